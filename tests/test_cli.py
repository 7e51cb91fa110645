#!/usr/bin/env python3
"""The programs' command line (issue 29, item 5): build/rnic_model and every example and benchmark
that takes options (examples/*.c, bench/*.c with main(argc, argv)).

For each program:
  - --help prints the usage on stdout (nothing on stderr) and exits 0;
  - every option the parser compares (each "--name" literal in a strcmp of the program's source,
    or of examples/palos_sim.h for the Palos experiments) has its own line in the help;
  - every option of the help is one the parser accepts: an option with a value, given without
    one, exits 2 with "<option> needs ..." on stderr; a flag followed by an unknown option exits
    2 naming the unknown one, not the flag;
  - every option with a value has a default in its line; a numeric one with "range LO..HI" is
    refused at HI + 1 (and LO - 1 when LO > 0), and given as hexadecimal (0x1), exit 2 naming it;
and for rnic_model: --qps 010 is ten (the RESULT line's flows=, one host, one tenant), never
octal's 8; --qps 12x, --qps 0 (out of range), --bogus and a missing value exit 2 with a message
naming the argument; every strcmp(a, "--...") of its main() is in the help.

Builds what it checks with one make -j2 (up to date: nothing to do); --no-build takes build/ as
it is.
Ends with "N passed, N failed"; exit status 1 on any failure."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
passed = 0
failed = 0
# a test case is one program (its checks are the assertions): the case fails when any check does
case = "build"
case_failed = {}


def check(name, cond, detail=""):
    global passed, failed
    case_failed.setdefault(case, False)
    if cond:
        passed += 1
    else:
        failed += 1
        case_failed[case] = True
        print("FAIL %s%s" % (name, (": " + detail) if detail else ""))


def run(args, timeout=30):
    try:
        p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout


def programs():
    """(name, sources the parser is in) of every program with options, rnic_model first."""
    out = [("rnic_model", ["examples/rnic_model/rnic_model.c"])]
    for d in ("examples", "bench"):
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if not f.endswith(".c"):
                continue
            src = open(os.path.join(ROOT, d, f)).read()
            if not re.search(r"int main\(int argc", src):
                continue  # the README's hello programs take no argument
            srcs = [d + "/" + f]
            if "sim_options(" in src:
                srcs.append("examples/palos_sim.h")
            out.append((f[:-2], srcs))
    return out


def parser_options(name, srcs):
    """The "--name" literals the program's parser compares."""
    opts = set()
    for s in srcs:
        text = open(os.path.join(ROOT, s)).read()
        if name == "rnic_model":
            text = text[text.index("int main(int argc"):]
        found = set(re.findall(r'strcmp\([^,()]+,\s*"(--[a-z0-9-]+)"\)', text))
        if s.endswith("palos_sim.h") and "&msg" not in open(os.path.join(ROOT, srcs[0])).read():
            found.discard("--msg")  # sim_options takes --msg only where the program passes it
        opts |= found
    return opts


def help_entries(text):
    """{option: (placeholder, whole entry text)} from the help's option lines (an option line starts
    with two blanks and "--"; deeper-indented lines that follow continue it)."""
    entries = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^  (--[a-z0-9-]+)(,? .*)?$", line)
        if m:
            rest = m.group(2) or ""
            ph = re.match(r"^ ([^ ].*?)(?:  |$)", rest)  # the placeholder: up to two blanks
            cur = m.group(1)
            entries[cur] = [ph.group(1) if ph else "", line]
        elif cur and re.match(r"^ {3,}\S", line):
            entries[cur][1] += " " + line.strip()
        else:
            cur = None
    return {k: (v[0], v[1]) for k, v in entries.items()}


def takes_value(placeholder):
    return bool(placeholder) and not placeholder.startswith("-h") and not placeholder.startswith(", -h")


def check_program(name, srcs):
    exe = os.path.join("build", name)
    rc, out, err = run([exe, "--help"])
    check(name + " --help exits 0", rc == 0, "exit %s, stderr %r" % (rc, err[:200]))
    check(name + " --help on stdout", out.startswith("usage: "), "stdout %r" % out[:100])
    check(name + " --help: nothing on stderr", err == "", repr(err[:200]))
    entries = help_entries(out)
    check(name + " --help has option lines", len(entries) >= 2, "%d" % len(entries))
    for opt in sorted(parser_options(name, srcs)):
        check("%s --help has a line for %s" % (name, opt), opt in entries)
    for opt, (ph, entry) in sorted(entries.items()):
        if opt == "--help":
            continue
        if takes_value(ph):
            rc, out2, err = run([exe, opt])
            check("%s %s without its value: exit 2" % (name, opt), rc == 2, "exit %s" % rc)
            check("%s %s without its value: named" % (name, opt), (opt + " needs") in err, repr(err[:200]))
            if len(ph.split()) > 1:
                continue  # a mode with several positional values (--point, --one): no single default
            check("%s %s: its line has a default" % (name, opt), "default" in entry, entry)
            r = re.search(r"range (\d+)\.\.(\d+)\b", entry)
            if not r or ph.split()[0] in ("FILE", "F", "BIN", "DIR"):
                continue
            lo, hi = int(r.group(1)), int(r.group(2))
            bad = [str(hi + 1), "0x1"] + ([str(lo - 1)] if lo > 0 else [])
            for v in bad:
                rc, out2, err = run([exe, opt, v], timeout=20)
                check("%s %s %s: refused, exit 2" % (name, opt, v), rc == 2, "exit %s" % rc)
                check("%s %s %s: the message names %s and %s" % (name, opt, v, opt, v),
                      opt in err and v in err, repr(err[:200]))
                check("%s %s %s: nothing on stdout" % (name, opt, v), out2 == "", repr(out2[:100]))
        elif opt != "--callgrind":  # --callgrind runs at once
            rc, out2, err = run([exe, opt, "--no-such-option"], timeout=20)
            check("%s %s is accepted (then --no-such-option: exit 2)" % (name, opt), rc == 2, "exit %s" % rc)
            check("%s %s --no-such-option: the unknown one is named" % (name, opt),
                  "unknown option '--no-such-option'" in err, repr(err[:200]))
    return entries


def check_rnic_model():
    exe = os.path.join("build", "rnic_model")
    short = ["--hosts", "1", "--tenants", "1", "--duration-us", "20", "--warmup-us", "0", "--quiet"]
    rc, out, err = run([exe, "--qps", "010"] + short, timeout=120)
    res = [l for l in out.splitlines() if l.startswith("RESULT ")]
    qps = re.search(r"\bflows=(\d+)", res[-1]).group(1) if res else None
    check("rnic_model --qps 010 runs", rc == 0 and res, "exit %s, stderr %r" % (rc, err[:200]))
    check("rnic_model --qps 010 is ten (not octal 8)", qps == "10", "flows=%s" % qps)
    cases = [
        (["--qps", "12x"], "--qps: '12x' is not a decimal number"),
        (["--qps", "0x10"], "--qps: '0x10' is not a decimal number"),
        (["--qps", "0"], "--qps: 0 is out of range 1..1024"),
        (["--qps"], "--qps needs a value"),
        (["--bogus"], "unknown option '--bogus'"),
        (["--bogus", "3"], "unknown option '--bogus'"),
        (["--dcqcn", "fast"], "--dcqcn: 'fast' is not one of"),
        (["--weights", "1,,2"], "--weights: '1,,2'"),
    ]
    for args, msg in cases:
        rc, out, err = run([exe] + args)
        check("rnic_model %s: exit 2" % " ".join(args), rc == 2, "exit %s" % rc)
        check("rnic_model %s: stderr says %r" % (" ".join(args), msg), msg in err, repr(err[:200]))
        check("rnic_model %s: nothing on stdout" % " ".join(args), out == "", repr(out[:100]))
    rc, out, err = run([exe, "-h"])
    check("rnic_model -h is --help", rc == 0 and out.startswith("usage: "), "exit %s" % rc)


def main():
    build = "--no-build" not in sys.argv[1:]
    progs = programs()
    if build:  # one make for all, two jobs (the suite's build-examples-and-benches step builds the same)
        rc, out, err = run(["make", "-s", "-j2"] + ["build/" + name for name, _ in progs], timeout=1200)
        check("make the %d programs" % len(progs), rc == 0, (out + err)[-400:])
    global case
    nopts = 0
    for name, srcs in progs:
        case = name
        if not os.path.exists(os.path.join(ROOT, "build", name)):
            check(name + " is built", False, "build/%s missing" % name)
            continue
        nopts += len(check_program(name, srcs))
    case = "rnic_model"
    check_rnic_model()
    print("test_cli: %d programs, %d options in their --help" % (len(progs), nopts))
    bad = sum(1 for v in case_failed.values() if v)
    print("assertions %d" % (passed + failed))
    print("%d passed, %d failed" % (len(case_failed) - bad, bad))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
