#!/usr/bin/env python3
"""Reads a VCD file and checks it is well formed: definitions close, every value change names a
declared signal with a value of its width, times strictly increase. Prints, per scope, how many
times its `valid` rose (the events shown), as
    RESULT vcd_times=N vcd_ports=P <scope>=E ...
and exits 1 on any fault.   usage: tools/vcd_check.py FILE"""
import sys


def main(path):
    width, scope_of, rises, value = {}, {}, {}, {}
    scopes, faults, times, last_time = [], [], 0, -1
    in_defs = True
    with open(path, encoding="ascii") as f:
        tokens = f.read().split()
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if in_defs:
            if t == "$scope":
                scopes.append(tokens[i + 2])
                i = tokens.index("$end", i) + 1
            elif t == "$upscope":
                scopes.pop()
                i += 2
            elif t == "$var":
                w, code, name = int(tokens[i + 2]), tokens[i + 3], tokens[i + 4]
                width[code] = w
                scope_of[code] = (scopes[-1], name)
                i = tokens.index("$end", i) + 1
            elif t == "$enddefinitions":
                in_defs = False
                i += 2
            else:
                i = tokens.index("$end", i) + 1 if t.startswith("$") else i + 1
            continue
        if t in ("$dumpvars", "$end"):
            i += 1
        elif t.startswith("#"):
            now = int(t[1:])
            if now <= last_time:
                faults.append(f"time {now} after {last_time}")
            last_time, times = now, times + 1
            i += 1
        elif t.startswith("b"):
            bits, code = t[1:], tokens[i + 1]
            if code not in width or len(bits) != width[code] or set(bits) - {"0", "1"}:
                faults.append(f"bad vector change {t} {code}")
            i += 2
        elif t[0] in "01":
            code = t[1:]
            if code not in width or width[code] != 1:
                faults.append(f"bad scalar change {t}")
            else:
                scope, name = scope_of[code]
                if name == "valid" and t[0] == "1" and value.get(code) != "1":
                    rises[scope] = rises.get(scope, 0) + 1
                value[code] = t[0]
            i += 1
        else:
            faults.append(f"unexpected token {t}")
            i += 1
    if in_defs:
        faults.append("no $enddefinitions")
    ports = sorted({s for s, n in scope_of.values()})
    print("RESULT vcd_times=%d vcd_ports=%d %s" % (times, len(ports), " ".join(f"{p}={rises.get(p, 0)}" for p in ports)))
    for fault in faults[:10]:
        print("fault:", fault)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else 2)
