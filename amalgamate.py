#!/usr/bin/env python3
"""Generate rnicq's single-file headers from the parts under src/.

    python3 amalgamate.py            write every generated header
    python3 amalgamate.py --check    regenerate in memory; fail if a committed header is stale
    python3 amalgamate.py --list     print each header's parts in order
    python3 amalgamate.py --line-directives DIR
                                     write every header into DIR (not the committed ones) with
                                     `#line N "<abs path>/src/..."` before each stretch of a part,
                                     so compilers, debuggers and gcov (make coverage) name the src/
                                     file and line; removing the #line lines gives the committed text

Each header is built from an explicit, ordered manifest (MANIFEST below):

    <manual>                       the header's opening comment (src/<module>/manual.h)
    common interface               src/common/*, inside ONE guard shared by every header,
                                   with a version check (#error when two versions meet)
    module interface               inside the header's own include guard
    implementation                 outside the guards, under <P>_IMPLEMENTATION (or
                                   RNIC_IMPLEMENTATION), with a run-once guard; the common
                                   implementation parts come first, on a run-once guard of
                                   their own; RNIC_ENGINES_LINKED keeps only those (the
                                   engines' code is linked from another object)

Quoted includes are inlined once per header (a repeat is dropped with a note); system
includes are kept; an unresolvable quoted include is an error. The output carries begin/end
markers naming each part and no timestamp or commit id, so it is byte-stable.
"""
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))

# Parts shared by every header, in order. Interface parts are pure declarations and
# `static inline` code; implementation parts may include third-party headers (xxHash).
COMMON_INTERFACE = [
    "src/common/base.h",
    "src/common/error.h",
    "src/common/fixed.h",
    "src/common/seq.h",
    "src/common/bitmap.h",
    "src/common/bucketq.h",
    "src/common/ssfifo.h",
    "src/common/ring.h",
    "src/common/prng.h",
    "src/common/trace.h",
    "src/common/work.h",
    "src/common/heap.h",
    "src/common/advance.h",
    "src/common/node.h",
]
COMMON_IMPLEMENTATION = [
    "src/common/hash.h",
]

# One entry per generated header: its prefix (P_IMPLEMENTATION, P_STATIC, P_H_INCLUDED),
# its manual, and its module's interface and implementation parts in order.
MANIFEST = {
    "ratelimit.h": {
        "prefix": "RL",
        "manual": "src/ratelimit/manual.h",
        "interface": ["src/ratelimit/api.h", "src/ratelimit/state.h", "src/ratelimit/node.h"],
        "implementation": ["src/ratelimit/version.c", "src/ratelimit/flow.c", "src/ratelimit/oversubscription.c",
                           "src/ratelimit/engine.c", "src/ratelimit/registers.c", "src/ratelimit/schedule_queue.c",
                           "src/ratelimit/descriptors.c", "src/ratelimit/rate_change.c",
                           "src/ratelimit/fetch_and_drop.c", "src/ratelimit/timeline.c", "src/ratelimit/transmit.c",
                           "src/ratelimit/fetch.c", "src/ratelimit/tick.c", "src/ratelimit/fast_forward.c",
                           "src/ratelimit/ports.c", "src/ratelimit/node.c"],
    },
    "rnicq.h": {
        "prefix": "RQ",
        "manual": "src/rnicq/manual.h",
        "interface": ["src/rnicq/api.h", "src/rnicq/ids.h", "src/rnicq/blocks.h", "src/rnicq/status.h", "src/rnicq/desc.h", "src/rnicq/qos_api.h", "src/rnicq/palos_weights.h", "src/rnicq/palos_api.h", "src/rnicq/node.h"],
        "implementation": ["src/rnicq/version.c", "src/rnicq/ids.c", "src/rnicq/blocks.c", "src/rnicq/status.c", "src/rnicq/desc.c", "src/rnicq/qos_engine.c", "src/rnicq/qos_axi_write.c", "src/rnicq/qos_status_read.c", "src/rnicq/qos_remote_read.c", "src/rnicq/qos_send_port.c", "src/rnicq/qos_pending_table.c", "src/rnicq/qos_metadata_arbiter.c", "src/rnicq/qos_message_handler.c", "src/rnicq/qos_retransmit.c", "src/rnicq/qos_segmenter.c", "src/rnicq/qos_tick.c", "src/rnicq/palos_weights.c", "src/rnicq/palos_engine.c", "src/rnicq/palos_doorbell.c", "src/rnicq/palos_fetch.c", "src/rnicq/palos_slicer.c", "src/rnicq/palos_port.c", "src/rnicq/palos_tick.c", "src/rnicq/node.c"],
    },
    "transport.h": {
        "prefix": "TP",
        "manual": "src/transport/manual.h",
        "interface": ["src/transport/api.h", "src/transport/protocols.h", "src/transport/proto_dcqcn.h", "src/transport/proto_irn.h", "src/transport/proto_ndp.h", "src/transport/state.h", "src/transport/node.h"],
        "implementation": ["src/transport/version.c", "src/transport/bitmaps.c", "src/transport/queues.c", "src/transport/data_delivery.c", "src/transport/credit.c", "src/transport/rtl.c", "src/transport/engine.c", "src/transport/receiver.c", "src/transport/proto_reno.c", "src/transport/proto_newreno.c", "src/transport/proto_sack.c", "src/transport/proto_dcqcn.c", "src/transport/proto_dcqcn_wake.c", "src/transport/proto_irn.c", "src/transport/proto_ndp.c", "src/transport/node.c"],
    },
    "hostcc.h": {
        "prefix": "HCC",
        "manual": "src/hostcc/manual.h",
        "interface": ["src/hostcc/api.h", "src/hostcc/host.h", "src/hostcc/rx_ctl.h", "src/hostcc/tx_ctl.h", "src/hostcc/node.h"],
        "implementation": ["src/hostcc/version.c", "src/hostcc/rx_buffer.c", "src/hostcc/pcie.c", "src/hostcc/iio.c",
                           "src/hostcc/memctl.c", "src/hostcc/ddio.c", "src/hostcc/host.c", "src/hostcc/rx_ctl.c",
                           "src/hostcc/tx_ctl.c", "src/hostcc/node.c"],
    },
}

# The licence every generated header ends with; the repository's LICENSE file is the same text
# (`--check` fails when they differ).
LICENSE_TEXT = """MIT License

Copyright (c) 2026 the rnicq authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"\s*$')
VERSION_RE = re.compile(r"^#define RNIC_COMMON_VERSION (\d+)\s*$", re.M)


class AmalgamateError(Exception):
    pass


def read(rel):
    path = os.path.join(ROOT, rel)
    try:
        with open(path, "r", encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise AmalgamateError(f"cannot read part {rel}: {e.strerror}") from None
    if "\r" in text:
        raise AmalgamateError(f"{rel}: CR line endings are not allowed")
    if not text.endswith("\n"):
        text += "\n"
    return text


def resolve(name, including):
    """A quoted include is looked up beside the including file, then under src/."""
    for base in (os.path.dirname(including), "src"):
        rel = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, rel)):
            return rel.replace(os.sep, "/")
    raise AmalgamateError(f'{including}: cannot resolve #include "{name}"')


def line_directive(line, path):
    """`#line` naming path (escaped as a C string literal)."""
    return '#line %d "%s"\n' % (line, path.replace("\\", "\\\\").replace('"', '\\"'))


class Emitter:
    """Inlines parts; each file is emitted at most once per generated header.

    With line_header (the absolute path the header is written to), each stretch of a part's
    lines is preceded by `#line N "<ROOT>/<part>"` and each stretch of generated text by a
    `#line` naming the header itself at its own line, so every line maps to where it was
    written. Without it the output has no #line at all (the committed headers)."""

    def __init__(self, line_header=None):
        self.done = set()
        self.active = []
        self.out = []
        self.line_header = line_header
        self.lines = 0  # newlines emitted so far

    def emit(self, s):
        self.out.append(s)
        self.lines += s.count("\n")

    def mark(self, rel, line):
        if self.line_header is not None:
            self.emit(line_directive(line, os.path.join(ROOT, rel)))

    def mark_header(self):
        if self.line_header is not None:
            # the line after this directive is line (lines so far + 2) of the written file
            self.emit(line_directive(self.lines + 2, self.line_header))

    def part(self, rel):
        if rel in self.done:
            self.mark_header()  # the note is generated text; the includer re-marks after it
            self.emit(f"/* (already inlined above: {rel}) */\n")
            return
        if rel in self.active:
            raise AmalgamateError(f"include cycle: {' -> '.join(self.active + [rel])}")
        self.active.append(rel)
        self.emit(f"/* ==== begin {rel} ==== */\n")
        self.mark(rel, 1)
        for number, line in enumerate(read(rel).splitlines(keepends=True), 1):
            m = INCLUDE_RE.match(line)
            if m:
                self.part(resolve(m.group(1), rel))
                self.mark(rel, number + 1)
            else:
                self.emit(line)
        self.mark_header()
        self.emit(f"/* ==== end {rel} ==== */\n")
        self.active.pop()
        self.done.add(rel)

    def text(self, s):
        self.emit(s)


def common_version():
    m = VERSION_RE.search(read("src/common/base.h"))
    if not m:
        raise AmalgamateError("src/common/base.h must define RNIC_COMMON_VERSION <integer>")
    return m.group(1)


def common_id():
    """A digest of every common part: two headers whose common cores differ in any byte
    refuse to meet even when nobody bumped RNIC_COMMON_VERSION."""
    h = hashlib.sha256()
    for part in COMMON_INTERFACE + COMMON_IMPLEMENTATION:
        h.update(part.encode() + b"\0" + read(part).encode() + b"\0")
    return "0x" + h.hexdigest()[:8] + "u"


def generate(name, line_header=None):
    """The text of one generated header; with line_header (the absolute path it will be
    written to), with #line directives (Emitter)."""
    spec = MANIFEST[name]
    p = spec["prefix"]
    version = common_version()
    cid = common_id()
    e = Emitter(line_header)
    e.text(f"/* {name} -- generated by amalgamate.py from src/; do not edit by hand.\n"
           f" * Regenerate with `python3 amalgamate.py`; `python3 amalgamate.py --check` verifies. */\n")
    e.part(spec["manual"])
    e.text("\n/* ======================= common core (shared by every rnicq header) ======================= */\n")
    e.text("#ifndef RNIC_COMMON_H_INCLUDED\n#define RNIC_COMMON_H_INCLUDED\n")
    e.text(f"#define RNIC_COMMON_ID {cid} /* digest of src/common, written by amalgamate.py */\n")
    for part in COMMON_INTERFACE:
        e.part(part)
    e.text("#else /* the common core came from another rnicq header: it must be the same one */\n")
    e.text(f"#if RNIC_COMMON_VERSION != {version} || RNIC_COMMON_ID != {cid}\n")
    e.text(f'#error "rnicq: {name} needs common core version {version} (id {cid}); '
           'a header with a different common core was included first: copy all headers from one release"\n')
    e.text("#endif\n#endif /* RNIC_COMMON_H_INCLUDED */\n")
    e.text(f"\n/* ======================= {name} interface ======================= */\n")
    e.text(f"#ifndef {p}_H_INCLUDED\n#define {p}_H_INCLUDED\nRNIC_EXTERN_C_BEGIN\n")
    for part in spec["interface"]:
        e.part(part)
    e.text(f"RNIC_EXTERN_C_END\n#endif /* {p}_H_INCLUDED */\n")
    e.text(f"\n/* ======================= {name} implementation ======================= */\n")
    e.text(f"#if defined(RNIC_IMPLEMENTATION) && !defined({p}_IMPLEMENTATION)\n"
           f"#define {p}_IMPLEMENTATION\n#endif\n")
    # The common implementation (rnic_hash64, the trace digest) comes first and on its own
    # run-once guard, so that a unit compiled with RNIC_ENGINES_LINKED (the engines' code linked
    # from one object built with RNIC_IMPLEMENTATION: the test suite builds each configuration
    # once) still gets it.
    e.text(f"#if defined({p}_IMPLEMENTATION) && !defined(RNIC__COMMON_IMPLEMENTATION_DONE)\n"
           "#define RNIC__COMMON_IMPLEMENTATION_DONE\n")
    for part in COMMON_IMPLEMENTATION:
        e.part(part)
    e.text("#endif /* RNIC__COMMON_IMPLEMENTATION_DONE */\n")
    e.text(f"#if defined({p}_IMPLEMENTATION) && !defined({p}__IMPLEMENTATION_DONE) && !defined(RNIC_ENGINES_LINKED)\n"
           f"#define {p}__IMPLEMENTATION_DONE\n")
    e.text("RNIC_EXTERN_C_BEGIN\n")
    for part in spec["implementation"]:
        e.part(part)
    e.text("RNIC_EXTERN_C_END\n")
    e.text(f"#endif /* {p}_IMPLEMENTATION */\n")
    e.text("\n/*\n" + "".join((" * " + line).rstrip() + "\n" for line in LICENSE_TEXT.splitlines()) + " */\n")
    return "".join(e.out)


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode not in ("", "--check", "--list", "--line-directives") or \
            (mode == "--line-directives") != (len(argv) == 3) or len(argv) > 3:
        print(__doc__)
        return 2
    try:
        if mode == "--line-directives":
            out_dir = os.path.abspath(argv[2])
            os.makedirs(out_dir, exist_ok=True)
            for name in MANIFEST:
                path = os.path.join(out_dir, name)
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(generate(name, path))
                print(f"wrote {path}")
            return 0
        if mode == "--list":
            for name, spec in MANIFEST.items():
                parts = [spec["manual"]] + COMMON_INTERFACE + spec["interface"] \
                    + COMMON_IMPLEMENTATION + spec["implementation"]
                print(f"{name}: " + " ".join(parts))
            return 0
        stale = []
        for name in MANIFEST:
            text = generate(name)
            path = os.path.join(ROOT, name)
            try:
                with open(path, "r", encoding="utf-8", newline="") as f:
                    old = f.read()
            except OSError:
                old = None
            if mode == "--check":
                if old != text:
                    stale.append(name)
            elif old != text:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                print(f"wrote {name}")
    except AmalgamateError as err:
        print(f"amalgamate.py: error: {err}", file=sys.stderr)
        return 1
    lic_path = os.path.join(ROOT, "LICENSE")
    if mode == "--check" and os.path.exists(lic_path):
        with open(lic_path, "r", encoding="utf-8") as f:
            if f.read() != LICENSE_TEXT:
                print("amalgamate.py: LICENSE differs from LICENSE_TEXT (the block every header ends with)", file=sys.stderr)
                return 1
    if stale:
        for name in stale:
            print(f"amalgamate.py: {name} is stale (it differs from what src/ generates)", file=sys.stderr)
        print("fix: run `python3 amalgamate.py` and commit the regenerated headers", file=sys.stderr)
        return 1
    if mode == "--check":
        print(f"amalgamate.py: {len(MANIFEST)} headers up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
