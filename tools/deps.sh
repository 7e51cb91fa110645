#!/usr/bin/env bash
# Makes sure what a make target needs is installed, and nothing more: installs the missing Debian
# packages with apt-get when run as root, otherwise prints the exact command to run and fails.
#   tools/deps.sh build|run|test|check|bench|figures|fuzz|coverage|firmware|soak|results|ns3-mpi
# build (make, make build/<name>) needs a C compiler and make only, run (make run, make scenarios)
# gnuplot besides; every other target lists what its own scripts and programs use. A package lock held by another apt or dpkg
# process (unattended-upgrades, say) is waited for, up to DEPS_LOCK_WAIT seconds (default 300).
set -u
need=()
want_cmd() { command -v "$1" >/dev/null 2>&1 || need+=("$2"); }
want_file() { [ -e "$1" ] || need+=("$2"); }
want_pkg() { dpkg -s "$1" >/dev/null 2>&1 || need+=("$1"); }

# make's $(CC) is cc unless CC is set (its first word: CC="ccache gcc"); Debian's gcc package
# provides cc
want_cc() {
    local cc=${CC:-cc}
    command -v "${cc%% *}" >/dev/null 2>&1 || need+=(gcc)
}

want_build() {
    want_cmd make make
    want_cc
    # the composed model's scenario files (examples/rnic_model/scenario.h) keep their tables in
    # stb_ds, linked from Debian's libstb (pkg-config stb)
    want_cmd pkg-config pkg-config
    want_file /usr/include/stb/stb_ds.h libstb-dev
    # make run: tools/fabric_run.sh computes the expected tenant shares with tools/share_ref.py
    want_cmd python3 python3
}

# what both suites of tests/run.sh use: the unit tests (gcc, clang with ASan + UBSan; stb_ds in
# test_bucketq's reference model; the system xxHash beside rnic_hash64), the C++ builds (g++,
# clang++), the freestanding gates (clang's cross targets, llvm-nm), the 32-bit digest
want_suite() {
    want_build
    want_cmd gcc gcc
    want_cmd g++ g++
    want_cmd clang clang
    want_cmd clang++ clang
    want_cmd llvm-nm llvm
    want_cmd python3 python3       # amalgamate.py --check, tests/test_*.py, tools/*.py
    want_cmd pkg-config pkg-config # stb's flags; make install's rnicq.pc
    # stb_ds, the reference dynamic arrays of tests/test_bucketq.c and the composed model's scenario tables
    want_file /usr/include/stb/stb_ds.h libstb-dev
    # the system xxHash: test_hash and test_trace compare rnic_hash64 with the library (the
    # headers themselves need it not: without <xxhash.h> they use their built-in XXH64)
    want_file /usr/include/xxhash.h libxxhash-dev
    # clang's sanitizer runtimes and libFuzzer come in their own package on Debian (only a
    # Recommends of clang)
    want_pkg libclang-rt-14-dev
    # 32-bit x86 build of the determinism test (the 32-bit code paths run, not just compile)
    if ! echo 'int main(void){return 0;}' | gcc -m32 -x c - -o /dev/null 2>/dev/null; then
        need+=(gcc-multilib)
    fi
    want_cmd qemu-i386 qemu-user
}

# make test (tests/run.sh, lines tagged T): the suite's tools and tshark (tools/pcap_check.sh
# reads the RoCEv2 pcaps)
want_test() {
    want_suite
    want_cmd tshark tshark
    want_cmd gnuplot gnuplot-nox # the run's figures (rnic_model --plots) are rendered and checked
}

# ns-3 3.37 (Debian's libns3-dev; its pkg-config files need GSL's), built with g++ and pkg-config
want_ns3() {
    want_cmd g++ g++
    want_cmd pkg-config pkg-config
    want_file /usr/include/ns3/tcp-socket-base.h libns3-dev
    want_file /usr/include/ns3/point-to-point-net-device.h libns3-dev
    want_file /usr/include/gsl/gsl_rng.h libgsl-dev
}

# ns-3 with its MPI module (examples/ns3/rnicq-ns3.h on several ranks): Debian's ns3 source package
# built by tools/ns3_mpi.sh into a cache outside the checkout (once), against Debian's OpenMPI
want_ns3_mpi() {
    want_ns3
    want_file /usr/include/x86_64-linux-gnu/openmpi/mpi.h libopenmpi-dev
    want_cmd mpirun openmpi-bin
    want_cmd dpkg-source dpkg-dev # apt-get source unpacks with it
    want_cmd cmake cmake
    want_cmd ninja ninja-build
    want_file /usr/include/stb/stb_ds.h libstb-dev
    want_cmd python3 python3 # tools/exp_ns3_fabric.sh, tools/results.py
    want_cmd make make
    want_cc
}

# the firmware self-test (tools/firmware.sh): rv32imac and Cortex-M4 cross compilers with
# picolibc, and the qemu system emulators that run it with semihosting
want_firmware() {
    want_build
    want_cmd riscv64-unknown-elf-gcc gcc-riscv64-unknown-elf
    want_file /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs picolibc-riscv64-unknown-elf
    want_cmd arm-none-eabi-gcc gcc-arm-none-eabi
    want_file /usr/lib/picolibc/arm-none-eabi/picolibc.specs picolibc-arm-none-eabi
    want_cmd qemu-system-riscv32 qemu-system-misc
    want_cmd qemu-system-arm qemu-system-arm
}

# make check (tests/run.sh check, lines tagged C): the suite's tools, and ns-3 (the NewReno
# comparisons), the firmware self-test under qemu, libFuzzer (the fuzz short runs; clang's runtime
# package above), awk for the soak (tools/soak.sh)
want_check() {
    want_suite
    want_ns3
    want_ns3_mpi # the fabric inside ns-3 on 2 MPI ranks (section 16e)
    want_firmware
    want_cmd awk gawk
}

target=${1:-test}
case "$target" in
build) want_build ;;
run)
    # make run and make scenarios render each run's figures (rnic_model --plots) with gnuplot
    want_build
    want_cmd gnuplot gnuplot-nox
    ;;
test) want_test ;;
check) want_check ;;
bench)
    want_build
    want_ns3_mpi               # the fabric inside ns-3 (tools/bench_ns3_fabric.sh)
    want_cmd valgrind valgrind # callgrind instruction counts (tools/callgrind_*.sh)
    want_cmd gcc gcc           # tools/callgrind_transport.sh
    want_cmd python3 python3   # tools/bench_ns3_speed.sh
    # ns-3's packet-level incast beside the composed RNIC (tools/bench_ns3_speed.sh)
    want_ns3
    ;;
coverage)
    # gcovr over gcc --coverage builds of the unit tests (tools/coverage.sh), which need what
    # they need under make test: python3, stb_ds, the system xxHash
    want_build
    want_cmd gcc gcc
    want_cmd gcovr gcovr
    want_cmd python3 python3
    want_file /usr/include/stb/stb_ds.h libstb-dev
    want_file /usr/include/xxhash.h libxxhash-dev
    ;;
firmware) want_firmware ;;
results)
    # make results (tools/results.py): the deterministic experiments, the NewReno pair beside
    # ns-3's, tshark over make run's pcap
    want_build
    want_cmd python3 python3
    want_cmd tshark tshark
    want_cmd gnuplot gnuplot-nox # --figures redraws docs/figures
    want_ns3
    ;;
figures)
    want_build
    want_cmd gnuplot gnuplot-nox
    want_cmd python3 python3 # tools/hostcc_experiments.py
    want_ns3                 # ns-3's TcpNewReno beside Tonic's (examples/ns3)
    ;;
fuzz)
    # libFuzzer ships in clang's runtime package on Debian (libclang_rt.fuzzer)
    want_build
    want_cmd clang clang
    want_pkg libclang-rt-14-dev
    ;;
soak)
    # tools/soak.sh reads /proc/<pid>/status with awk and sed; the model needs only the compiler
    want_build
    want_cmd awk gawk
    ;;
ns3-mpi) want_ns3_mpi ;;
*) echo "usage: $0 build|run|test|check|bench|figures|fuzz|coverage|firmware|soak|results|ns3-mpi" >&2; exit 2 ;;
esac

# after the packages: what is built from them outside the checkout (cached)
post_install() {
    case "$target" in
    check | ns3-mpi | bench) bash "$(dirname "$0")/ns3_mpi.sh" >/dev/null ;;
    esac
}

if [ ${#need[@]} -eq 0 ]; then
    post_install
    exit
fi
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)

# apt-get "$@", waiting (bounded) while another apt or dpkg process holds a package lock: apt
# waits up to DPkg::Lock::Timeout for dpkg's locks itself; the loop covers the lists lock of
# apt-get update and says what it waits for.
apt_wait() {
    local log limit=${DEPS_LOCK_WAIT:-300} start=$SECONDS said=0 holder
    log=$(mktemp) || return 1
    while :; do
        if apt-get -o DPkg::Lock::Timeout=10 "$@" >"$log" 2>&1; then
            rm -f "$log"
            return 0
        fi
        if ! grep -qiE 'could not get lock|unable to acquire|unable to lock' "$log" ||
            [ $((SECONDS - start)) -ge "$limit" ]; then
            cat "$log" >&2
            [ "$said" -eq 0 ] || echo "deps: gave up waiting for the package lock after $((SECONDS - start)) s" >&2
            rm -f "$log"
            return 1
        fi
        holder=$(grep -oiE 'held by process [0-9]+( \([^)]*\))?' "$log" | head -n 1)
        if [ $((SECONDS - start)) -ge $((said * 60)) ]; then
            echo "deps: the package lock is ${holder:-held by another apt or dpkg process}; waiting for it" \
                "($((SECONDS - start)) of $limit s)" >&2
            said=$((said + 1))
        fi
        sleep 5
    done
}

if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing ${need[*]} (for make $target)"
    export DEBIAN_FRONTEND=noninteractive
    # tshark's wireshark-common asks whether non-root users may capture: no, and no prompt
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null
    apt_wait update -qq && apt_wait install -y -qq "${need[@]}" || {
        echo "deps: apt-get install ${need[*]} failed" >&2
        exit 1
    }
    post_install
else
    echo "deps: missing Debian packages for make $target; run:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
    exit 1
fi
