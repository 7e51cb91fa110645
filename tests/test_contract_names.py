#!/usr/bin/env python3
"""The contract gate: every public name, config field and trace field of the generated headers
follows docs/engine_contract.md, or it is a departure the doc justifies.

Rules (docs/engine_contract.md, "Names and linkage", "Lifecycle", "Ports", "Flows", "Config
fields", "Trace"), checked on the interface part of ratelimit.h, rnicq.h, transport.h, hostcc.h:
  - an engine's public functions are its lifecycle calls, its ports (X_push_<p> + X_space_<p>,
    X_pop_<p> + X_peek_<p>, with the contract's argument lists), its flow calls (X_flow_open /
    X_flow_close / X_flow_state / X_flow_config_default), its registers (X_set_<r>), or a call the
    doc lists under "Other public calls";
  - config structs: `clock_hz` (uint64_t) in every engine's, times `uint64_t *_ns` (no `_us`,
    `_ms`, no narrower `_ns`), rates `uint64_t *_bps`, port depths `*_depth` (no `_capacity`,
    `_port`, `_fifo`), `max_flows` (no `max_qps`), `link_bps` (no `line_bps`);
  - "never" is RNIC_NEVER only; the RNIC_ENGINE_* ids are distinct; engine trace kinds >= 16;
    the internal types the contract names are not public;
  - every engine's node table has exactly its ports (an input per X_push_<p>, an output per
    X_pop_<p>), and the doc's table of them says so;
  - refusals counted once: every X_stats has `rnic_err_stats errors`, no second refusal counter
    (null_args, refusals, port_full, ...), and `X_reason_stats reasons` with a reason list;
  - the shared machinery of src/common is used, not copied: no engine source emits trace events
    but through RNIC__TRACE, defines its own *__MEM_PART / *__MEM_BITLEN, or writes its own timer
    heap (*__heap_up/down/set/remove), every engine's X_advance runs rnic__advance, and every
    OUT / POP trace event carries the record's index and len (a, b; `size` where the record,
    rq_packet or rq_block_desc, names its byte length so);
  - compiled: every engine's default clock_hz is 250 MHz, its default trace_id is its own
    RNIC_ENGINE_* id, the one its node table reports (distinct), and its default min_rate_bps
    (where it has one) is 100 Kb/s;
  - the manuals' examples (src/*/manual.h, each "DO THIS" block) compile and run as C and as C++
    (gcc / g++, -Wall -Wextra -Wpedantic -Werror).

A departure still present is listed ONCE in DEPARTURES below with the bold title of the bullet
of docs/engine_contract.md "Where an engine departs, and why" that justifies it. An entry whose
departure no longer exists fails (the list cannot go stale); so does an entry whose section is
not in the doc. A negative control feeds the checkers synthetic bad declarations. Ends with
"N passed, N failed"; exit status 1 on any failure."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_manual_examples import do_this_blocks  # noqa: E402 (one reader of the manuals)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = {"ratelimit.h": "RL", "rnicq.h": "RQ", "transport.h": "TP", "hostcc.h": "HCC"}
ENGINES = ["rl", "rq_qos", "rq_palos", "tp", "tp_rx", "hcc_host", "hcc_rx", "hcc_tx"]
ENGINE_HEADER = {"rl": "ratelimit.h", "rq_qos": "rnicq.h", "rq_palos": "rnicq.h", "tp": "transport.h",
                 "tp_rx": "transport.h", "hcc_host": "hostcc.h", "hcc_rx": "hostcc.h", "hcc_tx": "hostcc.h"}
LIFECYCLE = {"config_default", "config_check", "mem_size", "init", "tick", "next_event", "advance",
             "advance_to", "now", "get_stats", "node_ops"}
# Public type names the contract says are internal (they take `__`).
INTERNAL_TYPES = ["rl_qp", "rl_desc", "rq_meta", "rq_pend", "tp_wring"]
DEFAULT_CLOCK_HZ = 250000000
# Building blocks that are not engines (docs/engine_contract.md, "Other public calls").
BLOCKS = ["rq_ids_", "rq_status_", "rq_desc_", "rq_pw_", "rq_tid_", "rq_block_", "tp_bits_", "tp_protocol_",
          "tp_dcqcn_", "tp_irn_", "tp_ndp_"]
VERSIONS = {"rl_version", "rq_version", "tp_version", "hcc_version"}

# Departures still present: key -> the bold title of the bullet in docs/engine_contract.md,
# "Where an engine departs, and why", that justifies it.
DEPARTURES = {
    "trace:src/rnicq/qos_axi_write.c": "QoS engine, bus records",
    "trace:src/rnicq/qos_status_read.c": "QoS engine, bus records",
    "fn:rq_qos_axi_write": "QoS engine, input names",
    "fn:rq_qos_axi_read": "QoS engine, input names",
    "sig:rq_qos_push_remote_read": "QoS engine, input names",
    "pair:rq_qos_space_axi_write": "QoS engine, input names",
    "pair:rq_qos_space_axi_read": "QoS engine, input names",
}


# ---------------------------------------------------------------- parsing

def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", re.sub(r"//[^\n]*", "", text), flags=re.S)


def interface(name, text):
    """The header's own interface (between its include guard) and its common core."""
    p = HEADERS[name]
    a = text.index(f"#ifndef {p}_H_INCLUDED")
    b = text.index(f"#endif /* {p}_H_INCLUDED */")
    c = text.index("#ifndef RNIC_COMMON_H_INCLUDED")
    return text[a:b], text[c:a]


FUNC_RE = re.compile(r"\b(?:RL|RQ|TP|HCC)_API\s+([^;{()]*?)\b([a-z][a-z0-9_]*)\s*\(([^)]*)\)", re.S)


def functions(iface):
    """[(name, return type, [params])] of the API declarations."""
    out = []
    for m in FUNC_RE.finditer(strip_comments(iface)):
        params = [" ".join(p.split()) for p in m.group(3).split(",")] if m.group(3).strip() else []
        out.append((m.group(2), " ".join(m.group(1).split()), params))
    return out


def configs(iface):
    """{struct name: [(type, field)]} of every `typedef struct *_config`."""
    out = {}
    for m in re.finditer(r"typedef struct (\w+_config) \{(.*?)\} \1;", strip_comments(iface), re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            mm = re.match(r"(.*?)\s*\b(\w+)\s*(\[[^\]]*\])?\s*((?:,\s*\w+\s*)*)$", decl)
            if not mm:
                continue
            typ = mm.group(1).strip()
            names = [mm.group(2)] + [n.strip() for n in mm.group(4).split(",") if n.strip()]
            if "," in decl and not mm.group(4):  # "uint32_t a, b, c"
                head = decl.split(",")
                first = head[0].split()
                typ, names = " ".join(first[:-1]), [first[-1]] + [h.strip() for h in head[1:]]
            fields += [(typ, n) for n in names]
        out[m.group(1)] = fields
    return out


def engine_of(name):
    """The engine whose prefix `name` has (longest match), or None (a building block's name)."""
    best = None
    if any(name.startswith(b) for b in BLOCKS) or name in VERSIONS:
        return None
    for e in ENGINES:
        if name.startswith(e + "_") and (best is None or len(e) > len(best)):
            best = e
    return best


# ---------------------------------------------------------------- the checkers

def check_functions(funcs, others):
    """Findings (key, message) for an engine's public functions."""
    found = []
    names = {f[0] for f in funcs}
    for name, ret, params in funcs:
        e = engine_of(name)
        if e is None:
            continue
        rest = name[len(e) + 1:]
        obj = e  # the engine's type is its prefix
        m = re.match(r"(push|space|pop|peek)(?:_([a-z0-9_]+))?$", rest)
        if rest in LIFECYCLE:
            continue
        if m:
            kind, port = m.group(1), m.group(2)
            if not port:
                found.append((f"nameless:{name}", f"{name}: a port call without a port name"))
                continue
            twin = {"push": "space", "space": "push", "pop": "peek", "peek": "pop"}[kind]
            if f"{e}_{twin}_{port}" not in names:
                found.append((f"pair:{name}", f"{name} has no {e}_{twin}_{port}"))
            want = {"push": (2, rf"^{obj} \*\w*$", r"^const \w+ \*\w*$"),
                    "space": (1, rf"^const {obj} \*\w*$", None),
                    "pop": (2, rf"^{obj} \*\w*$", r"^\w+ \*\w*$"),
                    "peek": (2, rf"^const {obj} \*\w*$", r"^\w+ \*\w*$")}[kind]
            ok = len(params) == want[0] and re.match(want[1], params[0]) and \
                (want[2] is None or re.match(want[2], params[1]))
            ok = ok and ret == ("uint32_t" if kind == "space" else "rnic_err")
            if not ok:
                found.append((f"sig:{name}", f"{name}({', '.join(params)}) is not the contract's {kind} shape"))
            continue
        if rest.startswith("flow_"):
            sig = {"flow_open": (3, rf"^{obj} \*\w*$", r"^uint32_t \w+$", rf"^const {e}_flow_config \*\w*$"),
                   "flow_close": (2, rf"^{obj} \*\w*$", r"^uint32_t \w+$", None),
                   "flow_state": (3, rf"^const {obj} \*\w*$", r"^uint32_t \w+$", rf"^{e}_flow_view \*\w*$"),
                   "flow_config_default": (1, rf"^{e}_flow_config \*\w*$", None, None),
                   # a per-flow register (issue 30, rq_palos_flow_hold: the protocol engine's ready
                   # bit): the engine, the flow, the value; answers rnic_err like a register write
                   "flow_hold": (3, rf"^{obj} \*\w*$", r"^uint32_t \w+$", r"^bool \w+$")}.get(rest)
            if sig is None:
                if name not in others:
                    found.append((f"fn:{name}", f"{name}: a flow call the contract does not name"))
                continue
            ok = len(params) == sig[0] and all(s is None or re.match(s, params[i]) for i, s in enumerate(sig[1:]) if i < len(params))
            if rest in ("flow_open", "flow_close", "flow_state", "flow_hold"):
                ok = ok and ret == "rnic_err"
            if not ok:
                found.append((f"sig:{name}", f"{name}({', '.join(params)}) is not the contract's {rest} shape"))
            continue
        if rest.startswith("set_"):
            if not params or not re.match(rf"^{obj} \*\w*$", params[0]) or ret != "rnic_err":
                found.append((f"sig:{name}", f"{name}: a register write takes the engine and answers rnic_err"))
            continue
        if name not in others:
            found.append((f"fn:{name}", f"{name}: not a lifecycle, port, flow or register call, and not in "
                                        f"docs/engine_contract.md \"Other public calls\""))
    return found


TIME_OTHER = re.compile(r"_(us|ms|s)$")


def check_config(struct, fields, engine_struct):
    found = []
    names = {n for _, n in fields}
    for typ, n in fields:
        key = f"cfg:{struct}.{n}"
        if TIME_OTHER.search(n):
            found.append((key, f"{struct}.{n}: times are uint64_t *_ns"))
        elif n.endswith("_ns") and typ != "uint64_t":
            found.append((key, f"{struct}.{n}: a time in ns is uint64_t, not {typ}"))
        elif n.endswith("_bps") and typ != "uint64_t" and not n.endswith("levels_bps"):
            found.append((key, f"{struct}.{n}: a rate in b/s is uint64_t, not {typ}"))
        elif n.endswith("_Bps"):
            found.append((key, f"{struct}.{n}: rates are b/s, named *_bps"))
        elif re.search(r"_(capacity|port|fifo)$", n):
            found.append((key, f"{struct}.{n}: a port depth is <port>_depth"))
        elif n.endswith("_depth") and typ != "uint32_t":
            found.append((key, f"{struct}.{n}: a depth is uint32_t"))
        elif n in ("max_qps", "line_bps"):
            found.append((key, f"{struct}.{n}: the contract's name is " + ("max_flows" if n == "max_qps" else "link_bps")))
    if engine_struct:
        clock = [t for t, n in fields if n == "clock_hz"]
        if clock != ["uint64_t"]:
            found.append((f"cfg:{struct}.clock_hz", f"{struct}: no uint64_t clock_hz"))
    return found


def check_macros(text):
    found = []
    for m in re.finditer(r"^\s*#\s*define\s+(\w+_NEVER)\b", text, re.M):
        if m.group(1) != "RNIC_NEVER":
            found.append((f"never:{m.group(1)}", f"{m.group(1)}: \"never\" is RNIC_NEVER only"))
    for m in re.finditer(r"^\s*#\s*define\s+((?:RL|RQ|TP|HCC)_\w*TRACE_\w+)\s+(\d+)u?\b", text, re.M):
        if int(m.group(2)) < 16:
            found.append((f"kind:{m.group(1)}", f"{m.group(1)} = {m.group(2)}: engine trace kinds start at 16"))
    return found


def check_engine_ids(text):
    found, seen = [], {}
    for m in re.finditer(r"^\s*#\s*define\s+(RNIC_ENGINE_\w+)\s+(\d+)u?\b", text, re.M):
        name, value = m.group(1), int(m.group(2))
        if name == "RNIC_ENGINE_MODEL":
            continue
        if value in seen and seen[value] != name:
            found.append((f"engine_id:{name}", f"{name} = {value} = {seen[value]}"))
        seen.setdefault(value, name)
    return found


def check_types(text):
    found = []
    for t in INTERNAL_TYPES:
        if re.search(rf"\btypedef\s+(?:struct|union|enum)?\s*\w*\s*\b{t}\b|\}}\s*{t}\s*;", text):
            found.append((f"type:{t}", f"{t}: an internal type, named {t.split('_', 1)[0]}__{t.split('_', 1)[1]}"))
    return found


def check_stats(iface):
    """Refusals counted once (docs/engine_contract.md, "Refusals"): every engine's X_stats has
    `rnic_err_stats errors`, no second refusal counter, and `X_reason_stats reasons` when the
    engine has a reason list."""
    found = []
    code = strip_comments(iface)
    for m in re.finditer(r"typedef struct (\w+)_stats \{(.*?)\} \1_stats;", code, re.S):
        e, body = m.group(1), m.group(2)
        if e not in ENGINES:
            continue
        if not re.search(r"\brnic_err_stats\s+errors\s*;", body):
            found.append((f"stats:{e}.errors", f"{e}_stats has no rnic_err_stats errors"))
        for bad in re.findall(r"\b(null_args|refusals|refused|port_full|rejected)\b", body):
            found.append((f"stats:{e}.{bad}", f"{e}_stats.{bad}: a second refusal counter (errors counts them)"))
        if re.search(rf"\bRNIC_REASONS\(\s*{e}\s*,", code) and not re.search(rf"\b{e}_reason_stats\s+reasons\s*;", body):
            found.append((f"stats:{e}.reasons", f"{e} has a reason list but {e}_stats has no `{e}_reason_stats reasons`"))
    return found


def check_nodes(text, funcs):
    """Every engine's node table (src/<module>/node.c, in the header's implementation) has
    exactly the engine's ports: an input per X_push_<p> of the contract's shape, an output per
    X_pop_<p>, in any order (docs/engine_contract.md, "The node interface")."""
    found = []
    tables = {}
    for m in re.finditer(r"static const rnic_node_port (\w+)__node_(in|out)\[\] = \{(.*?)\};", text, re.S):
        tables[(m.group(1), m.group(2))] = set(re.findall(r'"(\w+)"', m.group(3)))
    bad_sig = {k for k, _ in check_functions(funcs, set()) if k.startswith("sig:")}
    for e in ENGINES:
        if not any(f[0].startswith(e + "_") and engine_of(f[0]) == e for f in funcs):
            continue
        if not re.search(rf"\b{e}_node_ops\s*\(\s*void\s*\)\s*\{{", text):
            found.append((f"node:{e}", f"{e}_node_ops() is not defined"))
            continue
        for kind, verb in (("in", "push"), ("out", "pop")):
            want = {f[0][len(f"{e}_{verb}_"):] for f in funcs
                    if f[0].startswith(f"{e}_{verb}_") and engine_of(f[0]) == e and f"sig:{f[0]}" not in bad_sig}
            have = tables.get((e, kind), set())
            for p in sorted(want - have):
                found.append((f"node:{e}.{kind}.{p}", f"{e}_node_ops() lacks the {kind}put port {p}"))
            for p in sorted(have - want):
                found.append((f"node:{e}.{kind}.{p}", f"{e}_node_ops() has an {kind}put port {p} with no {e}_{verb}_{p}"))
    return found


def check_doc_nodes(doc, texts):
    """The ports table of docs/engine_contract.md, "The node interface", is the node tables'."""
    found = []
    m = re.search(r"^## The node interface\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    rows = {}
    for line in (m.group(1) if m else "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = (set(re.findall(r"`(\w+)`", cells[1])), set(re.findall(r"`(\w+)`", cells[2])))
    for e in ENGINES:
        tab = {}
        for t in texts:
            for mm in re.finditer(rf"static const rnic_node_port {e}__node_(in|out)\[\] = \{{(.*?)\}};", t, re.S):
                tab[mm.group(1)] = set(re.findall(r'"(\w+)"', mm.group(2)))
        have = (tab.get("in", set()), tab.get("out", set()))
        if rows.get(e) != have:
            found.append((f"docnode:{e}", f"docs/engine_contract.md, \"The node interface\": {e}'s ports are "
                                           f"in {sorted(have[0])} out {sorted(have[1])}"))
    return found


def check_shared(sources):
    """The shared machinery of src/common is used, not copied (docs/engine_contract.md, "Shared
    machinery"): `sources` maps a path under src/<module>/ to its text."""
    found = []
    for path, text in sorted(sources.items()):
        code = strip_comments(text)
        if re.search(r"\brnic_trace_(emit|rec)\s*\(", code):
            found.append((f"shared:emit:{path}", f"{path}: emits trace events itself, not through RNIC__TRACE"))
        for m in re.finditer(r"^\s*#\s*define\s+(\w+__MEM_(?:PART|BITLEN|POW2_AT_LEAST|ALIGN))\b", code, re.M):
            found.append((f"shared:layout:{m.group(1)}", f"{path}: {m.group(1)} copies RNIC__MEM_PART / RNIC__BITLEN"))
        for m in re.finditer(r"^static\s+[^;{(]*\b(\w+__heap_(?:up|down|set|remove))\s*\(", code, re.M):
            found.append((f"shared:heap:{m.group(1)}", f"{path}: {m.group(1)}: a timer heap of its own, not rnic__heap"))
        for m in re.finditer(r"\bRNIC__TRACE\s*\(([^;]*?)\)\s*;", code, re.S):
            args = [a.strip() for a in re.split(r",(?![^()]*\))", m.group(1))]
            if len(args) == 5 and args[1] in ("RNIC_TRACE_OUT", "RNIC_TRACE_POP") and not (
                    re.fullmatch(r"\(?[\w.>-]+(\.|->)index\)?", args[3]) and re.fullmatch(r"\(?[\w.>-]+(\.|->)(len|size)\)?", args[4])):
                found.append((f"trace:{path}", f"{path}: an OUT/POP event whose a/b are not the record's index/len "
                                               f"(RNIC__TRACE_REC writes them)"))
                break
        for m in re.finditer(r"\b(?:RL|RQ|TP|HCC)_API\s+uint64_t\s+([a-z_]+)_advance\s*\([^)]*\)\s*\{", code):
            body = code[m.end():code.find("\n}", m.end())]
            if m.group(1) in ENGINES and "rnic__advance(" not in body:
                found.append((f"shared:advance:{m.group(1)}", f"{m.group(1)}_advance does not run the common loop rnic__advance"))
    return found


def module_sources():
    out = {}
    for mod in sorted(os.listdir(os.path.join(ROOT, "src"))):
        if mod == "common" or not os.path.isdir(os.path.join(ROOT, "src", mod)):
            continue
        for name in sorted(os.listdir(os.path.join(ROOT, "src", mod))):
            if name.endswith((".c", ".h")):
                with open(os.path.join(ROOT, "src", mod, name), encoding="utf-8") as f:
                    out[f"src/{mod}/{name}"] = f.read()
    return out


# ---------------------------------------------------------------- the doc

def doc_sections(doc):
    """Bold titles of the bullets of "Where an engine departs, and why"."""
    m = re.search(r"^## Where an engine departs, and why\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return set(re.findall(r"^- \*\*(.+?)\*\*", m.group(1), re.M)) if m else set()


def doc_other_calls(doc):
    m = re.search(r"^## Other public calls\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return set(n for n in re.findall(r"`([a-z][a-z0-9_]*)`", m.group(1)) if not n.endswith("_")) if m else set()


# ---------------------------------------------------------------- compiled checks

DEFAULT_MIN_RATE_BPS = 100000


def make_probe(with_min_rate):
    """A program printing, per engine: default clock_hz, default trace_id, its node table's
    engine id, and default min_rate_bps ("-" for an engine whose config has no such field)."""
    lines = []
    for e in ENGINES:
        mr = "(unsigned long long)c.min_rate_bps" if e in with_min_rate else None
        fmt = "%llu" if mr else "-"
        args = f", {mr}" if mr else ""
        lines.append(f'    {{ {e}_config c; {e}_config_default(&c); printf("{e} %llu %u %u {fmt}\\n", '
                     f'(unsigned long long)c.clock_hz, (unsigned)c.trace_id, (unsigned){e}_node_ops()->engine{args}); }}')
    return ("#define RNIC_IMPLEMENTATION\n#include \"ratelimit.h\"\n#include \"rnicq.h\"\n#include \"transport.h\"\n"
            "#include \"hostcc.h\"\n#include <stdio.h>\nint main(void)\n{\n" + "\n".join(lines) + "\n    return 0;\n}\n")


def compile_run(src, lang, tmp, name):
    cc = "g++" if lang == "c++" else "gcc"
    if not shutil.which(cc):
        return None, f"{cc} not found"
    path = os.path.join(tmp, name + (".cpp" if lang == "c++" else ".c"))
    exe = os.path.join(tmp, name + "-" + lang.replace("+", "x"))
    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    std = ["-std=c++11"] if lang == "c++" else ["-std=c99"]
    r = subprocess.run([cc] + std + ["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O1", "-I" + ROOT, path, "-o", exe],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr[-2000:]
    r = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    if r.returncode:
        return None, f"exit {r.returncode}: {r.stdout[-1000:]}{r.stderr[-1000:]}"
    return r.stdout, None


def check_defaults(out):
    found, ids = [], {}
    for line in out.splitlines():
        e, clock, trace_id, node_id, min_rate = line.split()
        if min_rate != "-" and int(min_rate) != DEFAULT_MIN_RATE_BPS:
            found.append((f"default:{e}.min_rate_bps", f"{e}_config_default: min_rate_bps {min_rate}, not "
                                                       f"{DEFAULT_MIN_RATE_BPS} (a protocol floor is rate_floor_bps)"))
        if int(clock) != DEFAULT_CLOCK_HZ:
            found.append((f"default:{e}.clock_hz", f"{e}_config_default: clock_hz {clock}, not {DEFAULT_CLOCK_HZ}"))
        if trace_id != node_id:
            found.append((f"default:{e}.trace_id", f"{e}_config_default: trace_id {trace_id}, its node table says {node_id}"))
        if trace_id in ids:
            found.append((f"default:{e}.trace_id", f"{e}: default trace_id {trace_id} = {ids[trace_id]}'s"))
        ids.setdefault(trace_id, e)
    return found


def manual_examples():
    """(manual, n, example C text) of every "DO THIS" block of every manual (src/*/manual.h),
    read as tests/test_manual_examples.py reads them."""
    out = []
    for mod in sorted(os.listdir(os.path.join(ROOT, "src"))):
        path = os.path.join(ROOT, "src", mod, "manual.h")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for src in do_this_blocks(lines):
            out.append((os.path.relpath(path, ROOT), len(out) + 1, src))
    return out


# ---------------------------------------------------------------- main

def main():
    passed = failed = 0

    def result(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok {what}")
        else:
            failed += 1
            print(f"not ok {what}")

    with open(os.path.join(ROOT, "docs", "engine_contract.md"), encoding="utf-8") as f:
        doc = f.read()
    sections = doc_sections(doc)
    others = doc_other_calls(doc)
    result(len(sections) > 0, "docs/engine_contract.md has \"Where an engine departs, and why\"")
    result(len(others) > 0, "docs/engine_contract.md has \"Other public calls\"")
    missing_blocks = [b for b in BLOCKS if f"`{b}`" not in doc]
    result(not missing_blocks, "docs/engine_contract.md names every building block" +
           ("" if not missing_blocks else f" (not: {' '.join(missing_blocks)})"))

    findings = []
    all_funcs = set()
    with_min_rate = set()
    common_done = False
    for name in HEADERS:
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            text = f.read()
        iface, common = interface(name, text)
        funcs = functions(iface)
        all_funcs |= {f[0] for f in funcs}
        findings += check_functions(funcs, others)
        findings += check_nodes(text, funcs)
        for struct, fields in configs(iface).items():
            findings += check_config(struct, fields, struct[:-len("_config")] in ENGINES)
            if struct[:-len("_config")] in ENGINES and any(n == "min_rate_bps" for _, n in fields):
                with_min_rate.add(struct[:-len("_config")])
        findings += check_macros(iface) + check_types(iface) + check_stats(iface)
        if not common_done:
            findings += check_macros(common) + check_engine_ids(common)
            common_done = True
        # every engine of this header has the whole lifecycle
        for e in ENGINES:
            if ENGINE_HEADER[e] == name:
                for call in sorted(LIFECYCLE):
                    if f"{e}_{call}" not in all_funcs:
                        findings.append((f"missing:{e}_{call}", f"{e}_{call} missing"))

    findings += check_shared(module_sources())
    findings += check_doc_nodes(doc, [open(os.path.join(ROOT, h), encoding="utf-8").read() for h in HEADERS])

    # the doc names every reason list there is, and no other
    lists = set()
    for h in HEADERS:
        with open(os.path.join(ROOT, h), encoding="utf-8") as f:
            lists |= set(re.findall(r"^#\s*define\s+((?:RL|RQ|TP|HCC)_\w+_REASONS)\(R\)", f.read(), re.M))
    m = re.search(r"^The reason lists: (.*?)\n\n", doc, re.S | re.M)
    named = set(re.findall(r"`(\w+_REASONS)`", m.group(1))) if m else set()
    for n in sorted(lists ^ named):
        findings.append((f"doc:{n}", f"docs/engine_contract.md \"The reason lists\" and the headers differ on {n}"))

    # doc-listed other calls exist
    for n in sorted(others):
        if engine_of(n) and n not in all_funcs:
            findings.append((f"doc:{n}", f"docs/engine_contract.md lists {n}, no header declares it"))

    with tempfile.TemporaryDirectory() as tmp:
        out, err = compile_run(make_probe(with_min_rate), "c", tmp, "probe")
        result(out is not None, "defaults probe compiles and runs" + ("" if out is not None else f": {err}"))
        if out is not None:
            findings += check_defaults(out)
        examples = manual_examples()
        result(len(examples) >= 3, f"the manuals have DO THIS examples ({len(examples)})")
        for mod in sorted(os.listdir(os.path.join(ROOT, "src"))):
            path = f"src/{mod}/manual.h"
            if os.path.exists(os.path.join(ROOT, path)) and \
                    not any(p == path and src.strip() for p, _, src in examples):
                findings.append((f"example:{path}", f"{path}: no DO THIS program"))
        # each program is compiled and run as C and C++ by tests/test_manual_examples.py

    keys = {}
    for key, msg in findings:
        keys.setdefault(key, msg)
    for key in sorted(keys):
        if key in DEPARTURES:
            continue
        result(False, f"departs from docs/engine_contract.md: {keys[key]}")
    unexplained = [k for k in keys if k not in DEPARTURES]
    result(not unexplained, f"every public name, config field and trace field follows the contract "
                            f"({len(keys) - len(unexplained)} listed departures)")
    for key, section in sorted(DEPARTURES.items()):
        result(key in keys, f"departure {key} still exists (else remove it from DEPARTURES)")
        result(section in sections, f"departure {key}: section \"{section}\" in docs/engine_contract.md")

    # negative control: each checker flags a synthetic bad declaration
    bad = """RL_API rnic_err rl_pop(rl *r, rnic_work *out);
RL_API rnic_err rl_push_foo(rl *r, uint32_t flow, const rnic_work *w);
RL_API uint32_t rl_mystery(const rl *r);
typedef struct rl_config { uint32_t rto_us; uint32_t delay_ns; uint32_t tx_capacity; uint32_t max_qps; uint32_t line_bps; } rl_config;
#define RL_NEVER RNIC_NEVER
#define RL_TRACE_X 3u
typedef struct rl_qp { int x; } rl_qp;
"""
    neg = check_functions(functions(bad), set())
    for s, fl in configs(bad).items():
        neg += check_config(s, fl, True)
    neg += check_stats("typedef struct rl_stats { uint64_t null_args; } rl_stats;\n")
    neg += check_nodes('static const rnic_node_port rl__node_out[] = {{"tx", 64}};\n'
                       "RL_API const rnic_node_ops *rl_node_ops(void)\n{\n}\n",
                       functions("RL_API rnic_err rl_pop_tx(rl *r, rnic_work *w);\nRL_API rnic_err rl_peek_tx(const rl *r, rnic_work *w);\n"
                                 "RL_API rnic_err rl_pop_ack(rl *r, rnic_work *w);\nRL_API rnic_err rl_peek_ack(const rl *r, rnic_work *w);\n"))
    neg += check_macros(bad) + check_types(bad) + check_engine_ids("#define RNIC_ENGINE_A 3u\n#define RNIC_ENGINE_B 3u\n")
    neg += check_defaults("rl 150000000 1 1 -\nrq_qos 250000000 1 2 100000000\n")
    neg += check_shared({"src/x/a.c": "#define XX__MEM_PART(n, t) 0\nstatic void xx__heap_up(int *h) { }\n"
                                      "RL_API uint64_t rl_advance(rl *r, uint64_t n)\n{\n    return n;\n}\n"
                                      "static void f(void) { rnic_trace_emit(0, 0, 0, 0, 0, 0, 0); }\n"
                                      "static void g(x *q, rnic_work *w) { RNIC__TRACE(q, RNIC_TRACE_POP, w->flow, w->tag, w->len); }\n",
                       # a record named by `size` passes only with its index beside it: the old ids-first layout fails
                       "src/x/b.c": "static void h(x *q, const rq_packet *pk) { RNIC__TRACE(q, RNIC_TRACE_OUT, pk->transfer, "
                                    "((uint64_t)pk->tid << 32) | pk->seq, ((uint64_t)pk->kind << 32) | pk->size); }\n",
                       "src/x/c.c": "static void k(x *q, const rq_packet *pk) { RNIC__TRACE(q, RNIC_TRACE_POP, pk->transfer, pk->seq, pk->size); }\n",
                       "src/x/d.c": "static void m(x *q, const rq_packet *pk) { RNIC__TRACE(q, RNIC_TRACE_OUT, pk->transfer, pk->index, pk->size); }\n"})
    want = {"nameless:rl_pop", "sig:rl_push_foo", "pair:rl_push_foo", "fn:rl_mystery", "cfg:rl_config.rto_us",
            "cfg:rl_config.delay_ns", "cfg:rl_config.tx_capacity", "cfg:rl_config.max_qps", "cfg:rl_config.line_bps",
            "cfg:rl_config.clock_hz", "never:RL_NEVER", "kind:RL_TRACE_X", "type:rl_qp", "engine_id:RNIC_ENGINE_B",
            "default:rl.clock_hz", "default:rq_qos.trace_id", "default:rq_qos.min_rate_bps", "shared:layout:XX__MEM_PART",
            "shared:heap:xx__heap_up", "shared:advance:rl", "shared:emit:src/x/a.c", "stats:rl.errors", "stats:rl.null_args", "node:rl.out.ack",
            "trace:src/x/a.c", "trace:src/x/b.c", "trace:src/x/c.c"}
    got = {k for k, _ in neg}
    result(want <= got, "negative control: the checkers flag every synthetic departure" +
           ("" if want <= got else f" (missed {' '.join(sorted(want - got))})"))
    result("trace:src/x/d.c" not in got, "positive control: an OUT event with the record's index and size passes")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
