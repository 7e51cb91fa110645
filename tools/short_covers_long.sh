#!/usr/bin/env bash
# tools/short_covers_long.sh TEST...: make test runs a shorter prefix of a few long seeded property
# loops (test_length() in tests/test.h), make check runs them at full length (RNIC_TEST_LONG=1).
# A loop is shortened only where the short run still reaches every line and every branch
# direction that the long run reaches: this builds TEST (tests/TEST.c with tests/impl.c, or alone
# for a test that implements the engines itself) with gcc --coverage -O0, with the default and with
# the portable arithmetic (RNIC_PORTABLE_ARITH), runs it short and long, and fails naming every
# line or branch of the test or of a header that only the long run reached. make check runs it
# over every shortened test. Prints one line per test and configuration; exits non-zero on a gap.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 TEST..." >&2; exit 2; }
WORK=build/short-covers-long
WARN=(-std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow)
read -r -a STB_CFLAGS <<<"$(pkg-config --cflags stb 2>/dev/null || echo -I/usr/include/stb)"
read -r -a STB_LIBS <<<"$(pkg-config --libs stb 2>/dev/null || echo -lstb)"

# covered DIR OUT: the lines (file:line) and branch directions (file:line:bN) executed at least once,
# from gcov's per-line counts of every object in DIR, one per line, sorted
covered() {
    (cd "$1" && gcov -b -c -l -o . ./*.gcda >/dev/null 2>&1) || return 1
    python3 - "$1" >"$2" <<'PY' || return 1
import glob, os, re, sys
seen = set()
for path in glob.glob(os.path.join(sys.argv[1], "*.gcov")):
    src, line = None, None
    for text in open(path, errors="replace"):
        m = re.match(r"\s*([^:]+):\s*(\d+):", text)
        if m:
            count, n = m.group(1).strip().rstrip("*"), int(m.group(2))
            if n == 0:
                s = re.match(r"\s*-:\s*0:Source:(.*)", text)
                if s:
                    src = os.path.basename(s.group(1).strip())
                continue
            line = n
            if count.isdigit() and int(count) > 0:
                seen.add(f"{src}:{n}")
            continue
        b = re.match(r"branch\s+(\d+) taken (\d+)", text)
        if b and line is not None and int(b.group(2)) > 0:
            seen.add(f"{src}:{line}:b{b.group(1)}")
for key in sorted(seen):
    print(key)
PY
}

# the tests that compile the engines themselves (the Makefile's OWN_IMPL_UNITS)
OWN_IMPL=$(sed -n 's/^OWN_IMPL_UNITS := //p' Makefile)
LEN_FROM=$(grep -n '^static inline uint64_t test_length' tests/test.h | cut -d: -f1)
LEN_TO=$(awk -v a="$LEN_FROM" 'NR > a && /^}/ { print NR; exit }' tests/test.h)
bad=0
for t in "$@"; do
    [ -e "tests/$t.c" ] || { echo "$t: no tests/$t.c"; bad=1; continue; }
    for cfg in default portable; do
        d="$WORK/$t-$cfg"
        rm -rf "$d" && mkdir -p "$d" || exit 1
        flags=("${WARN[@]}" -O0 --coverage -DRNIC_DEBUG -I"$PWD" -I"$PWD/tests") # absolute: gcov finds the sources
        [ "$cfg" = portable ] && flags+=(-DRNIC_PORTABLE_ARITH)
        if [[ " $OWN_IMPL " == *" $t "* ]]; then # implements the engines itself
            gcc "${flags[@]}" -c "$PWD/tests/$t.c" -o "$d/$t.o" "${STB_CFLAGS[@]}" || { bad=1; continue; }
            objs=("$d/$t.o")
        else
            gcc "${flags[@]}" -c "$PWD/tests/impl.c" -o "$d/impl.o" &&
                gcc "${flags[@]}" -DRNIC_ENGINES_LINKED -c "$PWD/tests/$t.c" -o "$d/$t.o" "${STB_CFLAGS[@]}" || { bad=1; continue; }
            objs=("$d/$t.o" "$d/impl.o")
        fi
        gcc --coverage "${objs[@]}" -o "$d/$t" "${STB_LIBS[@]}" -lxxhash -lm || { bad=1; continue; }
        for len in short long; do
            rm -f "$d"/*.gcda "$d"/*.gcov
            if [ "$len" = long ]; then
                RNIC_TEST_LONG=1 "$d/$t" >"$d/$len.log" 2>&1
            else
                env -u RNIC_TEST_LONG "$d/$t" >"$d/$len.log" 2>&1
            fi || { echo "$t ($cfg, $len run) failed: $(tail -n 1 "$d/$len.log")"; bad=1; continue 2; }
            covered "$d" "$d/$len.cov" || { echo "$t: gcov failed"; bad=1; continue 2; }
        done
        # test_length() itself reads RNIC_TEST_LONG: its own branch differs by design
        gap=$(comm -13 "$d/short.cov" "$d/long.cov" | awk -F: -v a="$LEN_FROM" -v b="$LEN_TO" '!($1 == "test.h" && $2 >= a && $2 <= b)')
        echo "$t ($cfg): short run $(wc -l <"$d/short.cov") lines and branch directions, long run $(wc -l <"$d/long.cov"); only in the long run: $(echo -n "$gap" | grep -c .)"
        if [ -n "$gap" ]; then
            echo "$gap" | head -n 20 | sed 's/^/    /'
            bad=1
        fi
    done
done
exit $bad
