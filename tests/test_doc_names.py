#!/usr/bin/env python3
"""Every rnicq name the docs mention exists in a header: each identifier with a public prefix
(rl_, rq_, tp_, hcc_, rnic_ and their upper-case macro forms) written in docs/*.md (but
docs/CHANGES.md, the history of renames) or README.md must appear as a whole word in one of the generated headers (or, for names of the
composed model's modules, in examples/). One case per document; ends "N passed, N failed"."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME_RE = re.compile(r"\b((?:rl|rq|tp|hcc|rnic|RL|RQ|TP|HCC|RNIC)_[A-Za-z0-9_]+)")
# Generic patterns written in prose ("rq_qos_*", "X_IMPLEMENTATION") are not names.
WILDCARD_RE = re.compile(r"\b(?:rl|rq|tp|hcc|rnic|RL|RQ|TP|HCC|RNIC)_[A-Za-z0-9_]*\*")


def known_words():
    words = set()
    paths = [os.path.join(ROOT, h) for h in ("ratelimit.h", "rnicq.h", "transport.h", "hostcc.h")]
    paths += glob.glob(os.path.join(ROOT, "examples", "**", "*.[ch]"), recursive=True)
    for p in paths:
        with open(p, encoding="utf-8") as f:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f.read()))
    return words


def main():
    words = known_words()
    # docs/CHANGES.md is history: it names what was renamed or removed (`old -> new`)
    docs = sorted(d for d in glob.glob(os.path.join(ROOT, "docs", "*.md")) if os.path.basename(d) != "CHANGES.md")
    docs += [os.path.join(ROOT, "README.md")]
    passed = failed = 0
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            text = WILDCARD_RE.sub("", f.read())
        missing = sorted({n for n in NAME_RE.findall(text) if n not in words and not n.endswith("_")})
        rel = os.path.relpath(doc, ROOT)
        if missing:
            failed += 1
            print(f"not ok {rel}: names not in any header: {' '.join(missing)}")
        else:
            passed += 1
            print(f"ok {rel}")
    # the check must be able to fail: a made-up name is not found
    if "rq_axi_write" in words:
        failed += 1
        print("not ok negative control: rq_axi_write exists")
    else:
        passed += 1
        print("ok negative control (rq_axi_write is unknown)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
