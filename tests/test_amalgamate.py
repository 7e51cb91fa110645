#!/usr/bin/env python3
"""Tests of amalgamate.py, each on a scratch copy of the repository's generator and parts.
Ends with "N passed, N failed"."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import amalgamate  # noqa: E402  (the manifest is read from the module under test)

HEADERS = list(amalgamate.MANIFEST)
passed = failed = 0


def case(fn):
    global passed, failed
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(ROOT, "amalgamate.py"), d)
        shutil.copytree(os.path.join(ROOT, "src"), os.path.join(d, "src"))
        for h in HEADERS:
            shutil.copy(os.path.join(ROOT, h), d)
        try:
            fn(d)
        except AssertionError as e:
            failed += 1
            print(f"not ok {fn.__name__}: {e}")
            return
    passed += 1
    print(f"ok {fn.__name__}")


def run(d, *args):
    return subprocess.run([sys.executable, "amalgamate.py", *args], cwd=d, capture_output=True, text=True)


def read(d, rel):
    with open(os.path.join(d, rel), encoding="utf-8") as f:
        return f.read()


def append(d, rel, text):
    with open(os.path.join(d, rel), "a", encoding="utf-8") as f:
        f.write(text)


def test_committed_headers_are_current(d):
    r = run(d, "--check")
    assert r.returncode == 0, r.stderr


def test_generation_is_byte_stable(d):
    first = {h: read(d, h) for h in HEADERS}
    for h in HEADERS:
        os.remove(os.path.join(d, h))
    assert run(d).returncode == 0
    for h in HEADERS:
        assert read(d, h) == first[h], f"{h} differs between two generations"
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b|\b[0-9a-f]{40}\b", first[h]), f"{h} carries a date or commit id"


def test_stale_common_part_names_every_header(d):
    append(d, "src/common/prng.h", "/* changed */\n")
    r = run(d, "--check")
    assert r.returncode != 0, "a changed common part was not detected"
    for h in HEADERS:
        assert f"{h} is stale" in r.stderr, f"{h} not named: {r.stderr}"
    assert "python3 amalgamate.py" in r.stderr, "no instruction how to fix"


def test_stale_module_part_names_only_its_header(d):
    append(d, "src/hostcc/manual.h", "/* changed */\n")
    r = run(d, "--check")
    assert r.returncode != 0
    assert "hostcc.h is stale" in r.stderr
    for h in HEADERS:
        if h != "hostcc.h":
            assert f"{h} is stale" not in r.stderr, f"{h} wrongly named"


def test_check_does_not_write(d):
    append(d, "src/common/ring.h", "/* changed */\n")
    before = read(d, HEADERS[0])
    run(d, "--check")
    assert read(d, HEADERS[0]) == before, "--check rewrote a header"


def test_unresolvable_include_fails(d):
    append(d, "src/common/seq.h", '#include "no_such_part.h"\n')
    r = run(d)
    assert r.returncode != 0
    assert "no_such_part.h" in r.stderr, r.stderr


def test_include_cycle_fails(d):
    append(d, "src/common/base.h", '#include "seq.h"\n')  # seq.h includes base.h
    r = run(d)
    assert r.returncode != 0 and "cycle" in r.stderr, r.stderr


def test_each_part_once_with_markers_in_manifest_order(d):
    for h in HEADERS:
        text = read(d, h)
        spec = amalgamate.MANIFEST[h]
        parts = [spec["manual"]] + amalgamate.COMMON_INTERFACE + spec["interface"] + \
            amalgamate.COMMON_IMPLEMENTATION + spec["implementation"]
        pos = -1
        for p in parts:
            assert text.count(f"/* ==== begin {p} ==== */") == 1, f"{h}: {p} not exactly once"
            assert text.count(f"/* ==== end {p} ==== */") == 1, f"{h}: {p} end marker"
            at = text.index(f"/* ==== begin {p} ==== */")
            assert at > pos, f"{h}: {p} out of manifest order"
            pos = at
        assert not re.search(r'^\s*#\s*include\s*"', text, re.M), f"{h}: a quoted include directive survived"
        assert "#include <stdint.h>" in text, f"{h}: system include dropped"


def test_repeated_include_is_dropped_with_a_note(d):
    append(d, "src/common/ring.h", '#include "base.h"\n')
    assert run(d).returncode == 0
    text = read(d, HEADERS[0])
    assert text.count("/* ==== begin src/common/base.h ==== */") == 1
    assert "(already inlined above: src/common/base.h)" in text


def test_common_core_in_one_guard_with_version_check(d):
    version = amalgamate.common_version()
    for h in HEADERS:
        text = read(d, h)
        assert text.count("#ifndef RNIC_COMMON_H_INCLUDED") == 1
        assert f"#if RNIC_COMMON_VERSION != {version}" in text
        assert "#error" in text


LINE_RE = re.compile(r'^#line (\d+) "(.*)"$')


def test_line_directives_map_every_line_to_where_it_was_written(d):
    committed = {h: read(d, h) for h in HEADERS}
    out = os.path.join(d, "with_lines")
    r = run(d, "--line-directives", out)
    assert r.returncode == 0, r.stderr
    assert run(d, "--check").returncode == 0, "--line-directives touched the committed headers"
    for h in HEADERS:
        assert read(d, h) == committed[h], f"{h} rewritten by --line-directives"
        text = read(out, h)
        lines = text.splitlines()
        plain = [line for line in lines if not LINE_RE.match(line)]
        assert "\n".join(plain) + "\n" == committed[h], f"{h}: without its #line lines it differs from the committed header"
        cache, where, n, parts = {}, os.path.join(out, h), 1, set()  # before any #line: the file itself
        for line in lines:
            m = LINE_RE.match(line)
            if m:
                n, where = int(m.group(1)), m.group(2)
                continue
            if where not in cache:
                with open(where, encoding="utf-8") as f:
                    cache[where] = f.read().splitlines()
            src = cache[where]
            assert n <= len(src) and src[n - 1] == line, f"{h}: {line!r} mapped to {where}:{n}, which reads {src[n - 1] if n <= len(src) else 'past the end'!r}"
            if where.startswith(os.path.join(d, "src") + os.sep):
                parts.add(os.path.relpath(where, d).replace(os.sep, "/"))
            n += 1
        spec = amalgamate.MANIFEST[h]
        want = set([spec["manual"]] + amalgamate.COMMON_INTERFACE + spec["interface"] + amalgamate.COMMON_IMPLEMENTATION + spec["implementation"])
        assert want <= parts, f"{h}: parts never named by a #line: {sorted(want - parts)}"


def test_line_directives_compile_and_name_the_src_file(d):
    out = os.path.join(d, "with_lines")
    append(d, "src/transport/receiver.c", "#error coverage-line-marker\n")
    r = run(d, "--line-directives", out)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(d, "src/transport/receiver.c"), encoding="utf-8") as f:
        want_line = len(f.read().splitlines())
    # tu.c in a folder of its own: beside the scratch copy's committed headers, a quoted
    # include would find those first
    os.mkdir(os.path.join(d, "tu"))
    with open(os.path.join(d, "tu", "tu.c"), "w", encoding="utf-8") as f:
        f.write('#define RNIC_IMPLEMENTATION\n#include "ratelimit.h"\n#include "rnicq.h"\n#include "transport.h"\n#include "hostcc.h"\nint main(void) { return 0; }\n')
    c = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-I", out, "-c", "tu.c", "-o", "tu.o"],
                       cwd=os.path.join(d, "tu"), capture_output=True, text=True)
    assert c.returncode != 0, "the #error in a part did not stop the build"
    where = f"{os.path.join(d, 'src/transport/receiver.c')}:{want_line}:"
    assert where in c.stderr and "coverage-line-marker" in c.stderr, f"error not reported at {where}: {c.stderr[-400:]}"
    os.remove(os.path.join(d, "src/transport/receiver.c"))
    shutil.copy(os.path.join(ROOT, "src/transport/receiver.c"), os.path.join(d, "src/transport/receiver.c"))
    assert run(d, "--line-directives", out).returncode == 0
    c = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", out, "-c", "tu.c", "-o", "tu.o"],
                       cwd=os.path.join(d, "tu"), capture_output=True, text=True)
    assert c.returncode == 0, f"the headers with #line do not compile warning-free: {c.stderr[-400:]}"


def test_line_directives_needs_one_directory(d):
    assert run(d, "--line-directives").returncode == 2
    assert run(d, "--line-directives", "a", "b").returncode == 2


for t in [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]:
    case(t)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
