#!/usr/bin/env python3
"""Every manual's example, as a user sees it: each "DO THIS" block of the manual at the top of a
generated header (ratelimit.h, rnicq.h, transport.h, hostcc.h; the block is the indented text
after a line " * DO THIS ..." up to the next section line), alone in an empty folder with its
header, compiled as C (gcc -std=c99 -Wall -Wextra -Wpedantic -Werror) and as C++ (g++ -Wall
-Wextra -Werror) and run; both must exit 0 and print the same output. RNIC_NO_XXHASH: the header then
pulls in no libc header of its own, so the program must include everything it uses.

  python3 tests/test_manual_examples.py [header.h ...]    (default: the four headers)

Ends with "N passed, N failed"; exit status 1 on any failure. (tests/test_contract_names.py
compiles the same blocks from src/*/manual.h as part of the contract gate; this one reads the
generated headers, so it also catches an amalgamation that lost or mangled the manual.)"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = ["ratelimit.h", "rnicq.h", "transport.h", "hostcc.h"]


def examples(header):
    """The DO THIS blocks of the header's leading comment (the manual)."""
    with open(os.path.join(ROOT, header), encoding="utf-8") as f:
        text = f.read()
    start = text.find("==== begin src/")  # the manual, after the generator's own comment
    start = text.find("/*", start if start >= 0 else 0)
    end = text.find("*/", start)
    return do_this_blocks(text[start:end].splitlines())


def do_this_blocks(lines):
    """The program text of each "DO THIS" block among a manual's comment lines: the indented
    lines after a line " * DO THIS ..." up to the next section line, with " *   " removed (the
    contract gate, tests/test_contract_names.py, reads the manuals with it too)."""
    out, block = [], None
    for line in lines + [" * END"]:
        if block is not None and re.match(r"^ \* \S", line):
            out.append("\n".join(block) + "\n")
            block = None
        if line.startswith(" * DO THIS"):
            block = []
        elif block is not None:
            block.append(line[5:] if line.startswith(" *   ") else "" if line.rstrip() == " *" else line)
    return out


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def main():
    headers = sys.argv[1:] or HEADERS
    passed = failed = 0
    for header in headers:
        found = examples(header)
        if not found:
            print(f"not ok {header}: no DO THIS example in its manual")
            failed += 1
            continue
        for n, src in enumerate(found, 1):
            tmp = tempfile.mkdtemp()
            try:
                shutil.copy(os.path.join(ROOT, header), tmp)
                with open(os.path.join(tmp, "main.c"), "w", encoding="utf-8") as f:
                    f.write(src)
                rc, out = run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O0", "-DRNIC_NO_XXHASH", "main.c",
                               "-o", "main-c"], tmp)
                if rc == 0:
                    rc, out_c = run(["./main-c"], tmp)
                    out = out_c if rc else out
                if rc == 0:
                    rc, out = run(["g++", "-x", "c++", "-Wall", "-Wextra", "-Werror", "-O0", "-DRNIC_NO_XXHASH", "main.c", "-o",
                                   "main-cxx"], tmp)
                if rc == 0:
                    rc, out_cxx = run(["./main-cxx"], tmp)
                    if rc == 0 and out_cxx != out_c:
                        rc, out = 1, f"C printed {out_c!r}, C++ printed {out_cxx!r}"
                if rc == 0:
                    passed += 1
                    print(f"ok {header} example {n} as C and C++: {out_c.strip().splitlines()[-1] if out_c.strip() else ''}")
                else:
                    failed += 1
                    print(f"not ok {header} example {n}:\n{out.strip()}")
            finally:
                shutil.rmtree(tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
