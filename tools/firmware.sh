#!/usr/bin/env bash
# The firmware self-test (examples/firmware/) on emulated soft cores, with picolibc and
# semihosting:
#   rv32  rv32imac   riscv64-unknown-elf-gcc   qemu-system-riscv32 -machine virt (RAM at 0x80000000)
#   m4    Cortex-M4  arm-none-eabi-gcc         qemu-system-arm -machine mps2-an386
#
#   tools/firmware.sh               everything (make firmware): both targets run, the negative
#                                   control on both, per-engine code size at -Os and -O2, RESULT lines
#   tools/firmware.sh run TARGET    build and run one target; prints the firmware's lines and
#                                   exits with its status (the `make test` step)
#   tools/firmware.sh negative TARGET   the firmware built with one expected digest perturbed
#                                   must report 1 failed and exit non-zero (exit 0 when it does)
#
# The expected digests come from the same scenario source run on the host first
# (build/firmware/expected_gen writes build/firmware/expected.h).
set -u
cd "$(dirname "$0")/.."
OUT=build/firmware
SRC=examples/firmware
mkdir -p "$OUT"
WARN=(-std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow)
PICO=(--specs=picolibc.specs --oslib=semihost --crt0=semihost)
QEMU_TIMEOUT=60

# target_vars TARGET: CC, SIZE, NM, ARCH, LD and QEMU for it
target_vars() {
    case $1 in
    rv32)
        CC=riscv64-unknown-elf-gcc SIZE=riscv64-unknown-elf-size NM=riscv64-unknown-elf-nm
        ARCH=(-march=rv32imac -mabi=ilp32 -mcmodel=medany)
        # qemu virt: no flash, code and data both in the RAM at 0x80000000 (-bios none loads the ELF there)
        LD=(-Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x400000
            -Wl,--defsym=__ram=0x80400000 -Wl,--defsym=__ram_size=0x1000000)
        QEMU=(qemu-system-riscv32 -machine virt -bios none)
        ;;
    m4)
        CC=arm-none-eabi-gcc SIZE=arm-none-eabi-size NM=arm-none-eabi-nm
        ARCH=(-mcpu=cortex-m4 -mthumb -mfloat-abi=soft)
        # mps2-an386: 4 MB SSRAM at 0 (code, the vector table) and 4 MB at 0x20000000 (data)
        LD=(-Wl,--defsym=__flash=0x0 -Wl,--defsym=__flash_size=0x400000
            -Wl,--defsym=__ram=0x20000000 -Wl,--defsym=__ram_size=0x400000)
        QEMU=(qemu-system-arm -machine mps2-an386)
        ;;
    *)
        echo "unknown target '$1' (rv32 or m4)" >&2
        return 1
        ;;
    esac
}

# The host half: the scenarios' digests into expected.h (rebuilt when a source is newer).
expected() {
    local gen=$OUT/expected_gen
    if [ ! -x "$gen" ] || [ -n "$(find $SRC/scenarios.c $SRC/scenarios.h $SRC/expected_gen.c ratelimit.h rnicq.h transport.h hostcc.h -newer "$gen" 2>/dev/null)" ]; then
        gcc "${WARN[@]}" -O2 -I. -I$SRC $SRC/scenarios.c $SRC/expected_gen.c -o "$gen" || return 1
    fi
    "$gen" "$OUT/expected.h.new" >"$OUT/expected_gen.log" || { cat "$OUT/expected_gen.log"; return 1; }
    mv "$OUT/expected.h.new" "$OUT/expected.h"
}

# scenarios_obj TARGET OPT: the scenarios (every engine) compiled once per target and -O level
scenarios_obj() {
    local o=$OUT/$1/scenarios$2.o
    mkdir -p "$OUT/$1"
    if [ ! -e "$o" ] || [ -n "$(find $SRC/scenarios.c $SRC/scenarios.h ratelimit.h rnicq.h transport.h hostcc.h -newer "$o" 2>/dev/null)" ]; then
        "$CC" "${ARCH[@]}" "${WARN[@]}" "$2" -ffunction-sections -fdata-sections "${PICO[@]}" -I. -I$SRC \
            -c $SRC/scenarios.c -o "$o" || return 1
    fi
}

# selftest_elf TARGET ELF [defines...]: link the self-test (-O2) against the scenarios object
selftest_elf() {
    local t=$1 elf=$2
    shift 2
    scenarios_obj "$t" -O2 || return 1
    "$CC" "${ARCH[@]}" "${WARN[@]}" -O2 -ffunction-sections -fdata-sections "${PICO[@]}" -I$SRC -I$OUT "$@" \
        -c $SRC/selftest.c -o "$elf.o" || return 1
    "$CC" "${ARCH[@]}" "${PICO[@]}" "${LD[@]}" -Wl,--gc-sections "$elf.o" "$OUT/$t/scenarios-O2.o" -o "$elf"
}

# qemu_run ELF: run it with semihosting; exit status = the firmware's. qemu writes the
# firmware's semihosting console to its own stderr: merged into stdout here.
qemu_run() {
    timeout "$QEMU_TIMEOUT" "${QEMU[@]}" -kernel "$1" -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native 2>&1
}

run_target() { # TARGET: build, run, print the firmware's lines; status = the firmware's
    target_vars "$1" || return 1
    expected || return 1
    selftest_elf "$1" "$OUT/$1/selftest.elf" || return 1
    qemu_run "$OUT/$1/selftest.elf"
}

negative_target() { # TARGET: a perturbed expected digest must fail (1 failed, non-zero exit)
    local rc log
    target_vars "$1" || return 1
    expected || return 1
    selftest_elf "$1" "$OUT/$1/selftest-perturbed.elf" -DFW_PERTURB_EXPECTED=1 || return 1
    log=$OUT/$1/negative.log
    qemu_run "$OUT/$1/selftest-perturbed.elf" >"$log" 2>&1
    rc=$?
    cat "$log"
    if [ "$rc" -ne 0 ] && grep -qx '5 passed, 1 failed' "$log" && grep -q '^FAIL tassel ' "$log"; then
        echo "negative control $1: the perturbed digest failed (exit $rc), as it must"
        return 0
    fi
    echo "negative control $1: a wrong expected digest was not caught (exit $rc)"
    return 1
}

# sizes TARGET OPT: text/data/bss per engine: an image running only that engine's scenario
# minus the baseline image (digest code + printf, no engine), both --gc-sections. The engines
# are compiled in their own object (engines.c; scenarios.c with -DFW_ENGINES_APART), so no
# engine code is inlined into the driver; the driver's own functions (fw_* symbols) are taken
# out of the text and reported apart.
sizes() {
    local t=$1 opt=$2 name fn base_t base_d base_b fw_base fw t_ d_ b_ f
    for f in scenarios engines; do
        "$CC" "${ARCH[@]}" "${WARN[@]}" "$opt" -ffunction-sections -fdata-sections "${PICO[@]}" -I. -I$SRC \
            -DFW_ENGINES_APART -c $SRC/$f.c -o "$OUT/$t/size_$f$opt.o" || return 1
    done
    for fn in none tassel qos palos tp_newreno hostcc; do
        "$CC" "${ARCH[@]}" "${WARN[@]}" "$opt" -ffunction-sections -fdata-sections "${PICO[@]}" -I$SRC \
            -DFW_ONLY=fw_run_$fn -c $SRC/size_main.c -o "$OUT/$t/size_$fn$opt.o" || return 1
        "$CC" "${ARCH[@]}" "${PICO[@]}" "${LD[@]}" -Wl,--gc-sections "$OUT/$t/size_$fn$opt.o" \
            "$OUT/$t/size_scenarios$opt.o" "$OUT/$t/size_engines$opt.o" -o "$OUT/$t/size_$fn$opt.elf" || return 1
    done
    read -r base_t base_d base_b _ < <("$SIZE" "$OUT/$t/size_none$opt.elf" | tail -n 1)
    fw_base=$(fw_text "$OUT/$t/size_none$opt.elf")
    for fn in tassel qos palos tp_newreno hostcc; do
        read -r t_ d_ b_ _ < <("$SIZE" "$OUT/$t/size_$fn$opt.elf" | tail -n 1)
        fw=$(fw_text "$OUT/$t/size_$fn$opt.elf")
        name=$fn
        [ "$fn" = tp_newreno ] && name=transport
        echo "$t $opt $name $((t_ - base_t - (fw - fw_base))) $((d_ - base_d)) $((b_ - base_b)) $((fw - fw_base))"
    done
}
fw_text() { # ELF: bytes of the scenario driver's own code (fw_* text symbols)
    "$NM" -S -t d --size-sort "$1" | awk '$3 ~ /^[tT]$/ && $4 ~ /^fw_/ {s += $2} END {print s + 0}'
}

all() {
    local t rc p f fails=0 line engine cps
    declare -A PASSED FAILED
    for t in rv32 m4; do
        echo "== $t: self-test under qemu"
        run_target "$t" | tee "$OUT/$t.log"
        rc=${PIPESTATUS[0]}
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$OUT/$t.log" | tail -n 1)
        p=${line%% passed*}
        f=${line#*, }
        f=${f%% failed*}
        [ -n "$line" ] || { p=0; f=1; }
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
        PASSED[$t]=$p
        FAILED[$t]=$f
        fails=$((fails + f))
        echo "== $t: negative control (one expected digest perturbed)"
        negative_target "$t" | tail -n 1 || fails=$((fails + 1))
    done
    echo "== code size per engine: an image running that engine's scenario minus one running none (--gc-sections);"
    echo "   text excludes the scenario driver (fw_* symbols, shown apart); bss = the scenario's static RAM"
    echo "   (engine structs + caller memory sized by the *_MEM_SIZE macros + the driver's buffers)"
    printf '%-6s %-4s %-10s %8s %6s %8s %8s\n' target opt engine text data bss driver
    : >"$OUT/sizes.txt"
    for t in rv32 m4; do
        target_vars "$t" || return 1
        for opt in -Os -O2; do
            sizes "$t" "$opt" >>"$OUT/sizes.txt" || { echo "size build failed ($t $opt)"; return 1; }
        done
    done
    while read -r t opt engine tx d b drv; do
        printf '%-6s %-4s %-10s %8s %6s %8s %8s\n' "$t" "$opt" "$engine" "$tx" "$d" "$b" "$drv"
    done <"$OUT/sizes.txt"
    echo "RESULT fw_rv32_passed=${PASSED[rv32]} fw_m4_passed=${PASSED[m4]} fw_rv32_failed=${FAILED[rv32]} fw_m4_failed=${FAILED[m4]}"
    echo "RESULT $(awk '{o = substr($2, 2); printf "%sfw_%s_%s_%s_text=%s fw_%s_%s_%s_data=%s fw_%s_%s_%s_bss=%s", (NR > 1 ? " " : ""), $1, o, $3, $4, $1, o, $3, $5, $1, o, $3, $6}' "$OUT/sizes.txt")"
    # engine cycles per second under qemu: each scenario's ticked cycles over the time it took,
    # measured by the firmware with semihosting SYS_ELAPSED / SYS_TICKFREQ (host wall time)
    for t in rv32 m4; do
        line=""
        while read -r engine cps; do
            line="$line fw_${t}_${engine}_cycles_per_s=$cps"
        done < <(sed -n 's/^ok   \([a-z_0-9]*\) .* cycles_per_s=\([0-9]*\)$/\1 \2/p' "$OUT/$t.log")
        [ -n "$line" ] && echo "RESULT${line}"
    done
    [ "$fails" -eq 0 ]
}

case "${1:-all}" in
all) all ;;
run) run_target "${2:?target: rv32 or m4}" ;;
negative) negative_target "${2:?target: rv32 or m4}" ;;
*)
    echo "usage: $0 [all | run rv32|m4 | negative rv32|m4]" >&2
    exit 2
    ;;
esac
