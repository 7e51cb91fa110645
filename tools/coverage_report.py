#!/usr/bin/env python3
"""Turns gcovr's JSON reports into docs/coverage.md's table and the list of uncovered lines.

    coverage_report.py SUMMARY.json LINES.json docs/coverage.md UNCOVERED.txt "what ran"

docs/coverage.md: the part between <!-- coverage:begin --> and <!-- coverage:end --> is
rewritten (per-file line and branch coverage of src/, totals); the rest is written by hand and
kept. UNCOVERED.txt: per file, the lines never run and the lines with a branch never taken.
Prints `RESULT line_cov_pct=X branch_cov_pct=Y` (src/ totals, one decimal)."""
import json
import os
import sys

BEGIN, END = "<!-- coverage:begin -->", "<!-- coverage:end -->"


def pct(covered, total):
    return 100.0 * covered / total if total else 100.0


def ranges(numbers):
    out, start, prev = [], None, None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(out)


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    summary_path, lines_path, md_path, uncovered_path, what = argv[1:]
    with open(summary_path, encoding="utf-8") as f:
        summary = json.load(f)
    with open(lines_path, encoding="utf-8") as f:
        detail = json.load(f)
    files = sorted(summary["files"], key=lambda x: x["filename"])
    if not files:
        print("coverage_report: no src/ file in the report (did gcov see the #line headers?)", file=sys.stderr)
        return 1
    lc = sum(x["line_covered"] for x in files)
    lt = sum(x["line_total"] for x in files)
    bc = sum(x["branch_covered"] for x in files)
    bt = sum(x["branch_total"] for x in files)
    mods = {}
    for x in files:
        m = mods.setdefault(os.path.dirname(x["filename"]), [0, 0, 0, 0, 0])
        for i, k in enumerate(("line_covered", "line_total", "branch_covered", "branch_total")):
            m[i] += x[k]
        m[4] += 1
    per_module = ["| module | files | lines | line % | branches | branch % |", "|---|---:|---:|---:|---:|---:|"]
    for name, (mlc, mlt, mbc, mbt, n) in sorted(mods.items()):
        per_module.append(f"| `{name}/` | {n} | {mlc} / {mlt} | {pct(mlc, mlt):.1f} | {mbc} / {mbt} | {pct(mbc, mbt):.1f} |")
    rows = ["| file | lines | line % | branches | branch % |", "|---|---:|---:|---:|---:|"]
    for x in files:
        rows.append(f"| `{x['filename']}` | {x['line_covered']} / {x['line_total']} | {pct(x['line_covered'], x['line_total']):.1f} | "
                    f"{x['branch_covered']} / {x['branch_total']} | {pct(x['branch_covered'], x['branch_total']):.1f} |")
    rows.append(f"| **src/ total** | **{lc} / {lt}** | **{pct(lc, lt):.1f}** | **{bc} / {bt}** | **{pct(bc, bt):.1f}** |")
    block = (f"{BEGIN}\n<!-- written by tools/coverage.sh (make coverage); edit outside the markers -->\n"
             f"Measured by `make coverage` over {what}; gcc --coverage -O0, gcovr "
             f"--exclude-unreachable-branches; {len(files)} files of src/ with code.\n\n"
             + "\n".join(per_module) + "\n\n" + "\n".join(rows) + f"\n\n`RESULT line_cov_pct={pct(lc, lt):.1f} branch_cov_pct={pct(bc, bt):.1f}`\n{END}")
    if os.path.exists(md_path):
        with open(md_path, encoding="utf-8") as f:
            text = f.read()
    else:
        text = f"# Coverage of src/\n\n{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        print(f"coverage_report: {md_path} lacks the {BEGIN} / {END} markers", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(md_path, "w", encoding="utf-8") as f:
        f.write(head + block + tail)
    with open(uncovered_path, "w", encoding="utf-8") as f:
        for x in sorted(detail["files"], key=lambda x: x["file"]):
            never = [ln["line_number"] for ln in x["lines"] if not ln.get("gcovr/noncode") and ln["count"] == 0]
            part = [ln["line_number"] for ln in x["lines"] if ln["count"] > 0 and any(b["count"] == 0 for b in ln.get("branches", []))]
            if never or part:
                f.write(f"{x['file']}\n  never run: {ranges(never) or '-'}\n  branch not taken: {ranges(part) or '-'}\n")
    print(f"RESULT line_cov_pct={pct(lc, lt):.1f} branch_cov_pct={pct(bc, bt):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
