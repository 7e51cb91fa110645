#!/usr/bin/env python3
"""The trace CSV names every event the engines can emit (docs/trace_csv.md): each (engine, kind)
that a trace point in the sources emits -- RNIC__TRACE / RNIC__TRACE_REC in src/ (the engine
told by the file: src/ratelimit is Tassel, src/rnicq/palos_* Palos, src/rnicq/qos_* the QoS
engine, src/transport/receiver.c the transport's receiver and the rest of src/transport its
sender, src/hostcc/tx_ctl.c and rx_ctl.c RHCC's two controllers and the rest of src/hostcc the
host), hostcc's own wrappers of it, and the composed model's rnic_trace_emit calls in
examples/rnic_model -- has its row in examples/rnic_model/fm_trace.h's table, and so does every
engine-specific kind the headers define (*_TRACE_* with a code). tests/run.sh checks the other
way round on real runs (every event of every shipped scenario has a name). One case per engine;
ends "N passed, N failed"."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "examples", "rnic_model", "fm_trace.h")
# the trace points: the common one, its record form, hostcc's wrappers (the kind is 2nd argument)
EMIT_RE = re.compile(r"\b(?:RNIC__TRACE|RNIC__TRACE_REC|HCC__TX_TRACE|HCC__RX_TRACE|hcc__host_emit)\(\s*\w+\s*,\s*(\w+)")
MODEL_EMIT_RE = re.compile(r"\brnic_trace_emit\([^,]+,[^,]+,\s*\(uint16_t\)\(?(\w+)\)?\s*,\s*(\w+)")
DEFINE_RE = re.compile(r"^#define ((RL|RQ_PALOS|RQ_QOS|TP|HCC_HOST|HCC_RX|HCC_TX)_TRACE_[A-Z0-9_]+)\s+\d+u", re.M)
PREFIX_ENGINE = {"RL": "RNIC_ENGINE_TASSEL", "RQ_PALOS": "RNIC_ENGINE_PALOS", "RQ_QOS": "RNIC_ENGINE_QOS",
                 "TP": "RNIC_ENGINE_TRANSPORT", "HCC_HOST": "RNIC_ENGINE_HCC_HOST", "HCC_RX": "RNIC_ENGINE_HCC_RX",
                 "HCC_TX": "RNIC_ENGINE_HCC_TX"}


def engine_of(path):
    rel = os.path.relpath(path, os.path.join(ROOT, "src")).replace(os.sep, "/")
    d, f = rel.split("/", 1)
    if d == "ratelimit":
        return "RNIC_ENGINE_TASSEL"
    if d == "rnicq":
        return "RNIC_ENGINE_PALOS" if f.startswith("palos_") else "RNIC_ENGINE_QOS" if f.startswith("qos_") else None
    if d == "transport":
        return "RNIC_ENGINE_TP_RX" if f == "receiver.c" else "RNIC_ENGINE_TRANSPORT"
    if d == "hostcc":
        return {"tx_ctl.c": "RNIC_ENGINE_HCC_TX", "rx_ctl.c": "RNIC_ENGINE_HCC_RX"}.get(f, "RNIC_ENGINE_HCC_HOST")
    return None


def emitted():
    """{(engine, kind macro): 'file:line'} of every trace point."""
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "*", "*.c"))):
        eng = engine_of(path)
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            if line.lstrip().startswith("#define"):
                continue  # a wrapper's own definition (its kind is a parameter)
            for kind in EMIT_RE.findall(line):
                if not kind.isupper():
                    continue  # a wrapper's body passing its own parameter on (hcc__host_emit)
                if eng is None:
                    out[("?", kind)] = f"{os.path.relpath(path, ROOT)}:{no}"  # an engine this test does not know
                else:
                    out.setdefault((eng, kind), f"{os.path.relpath(path, ROOT)}:{no}")
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "rnic_model", "*.h"))):
        for no, line in enumerate(open(path, encoding="utf-8"), 1):
            for eng, kind in MODEL_EMIT_RE.findall(line):
                out.setdefault((eng, kind), f"{os.path.relpath(path, ROOT)}:{no}")
    return out


def defined():
    """{(engine, kind macro): header} of every engine-specific kind the headers define."""
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "*", "*.h"))):
        for name, prefix in DEFINE_RE.findall(open(path, encoding="utf-8").read()):
            out[(PREFIX_ENGINE[prefix], name)] = os.path.relpath(path, ROOT)
    return out


def main():
    text = open(TABLE, encoding="utf-8").read()
    rows = set(re.findall(r"FM_TRACE_ROW\((\w+),\s*(\w+),", text))
    engines = set(re.findall(r"^\s*\{ (\w+), \"[a-z_]+\",", text, re.M))
    passed = failed = 0
    want = {}
    for pair, where in list(emitted().items()) + list(defined().items()):
        want.setdefault(pair, where)
    by_engine = {}
    for (eng, kind), where in want.items():
        by_engine.setdefault(eng, []).append((kind, where))
    for eng in sorted(by_engine):
        missing = [f"{k} ({w})" for k, w in sorted(by_engine[eng]) if (eng, k) not in rows]
        if eng not in engines:
            missing.insert(0, f"the engine itself (no fm_trace_engines entry for {eng})")
        if missing:
            failed += 1
            print(f"not ok {eng}: no name in fm_trace.h for " + "; ".join(missing))
        else:
            passed += 1
            print(f"ok {eng}: {len(by_engine[eng])} kinds named")
    # the scan must find the trace points (a changed macro would find none and pass)
    if len(want) >= 60 and len(by_engine) >= 10:
        passed += 1
        print(f"ok the sources' trace points found ({len(want)} pairs of {len(by_engine)} engines)")
    else:
        failed += 1
        print(f"not ok the scan found only {len(want)} pairs of {len(by_engine)} engines")
    # and the check can fail: a kind no engine emits is not in the table
    if ("RNIC_ENGINE_TASSEL", "RL_TRACE_NO_SUCH_KIND") not in rows:
        passed += 1
        print("ok negative control (RL_TRACE_NO_SUCH_KIND has no row)")
    else:
        failed += 1
        print("not ok negative control")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
