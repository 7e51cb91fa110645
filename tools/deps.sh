#!/usr/bin/env bash
# Makes sure what a make target needs is installed: installs missing Debian packages with
# apt-get when run as root, otherwise prints the exact command to run and fails.
#   tools/deps.sh build|test|bench|figures|fuzz|... (one case per make target below)
set -u
need=()
want_cmd() { command -v "$1" >/dev/null 2>&1 || need+=("$2"); }
want_file() { [ -e "$1" ] || need+=("$2"); }

want_cmd python3 python3
want_cmd make make
want_cmd gcc gcc
want_cmd pkg-config pkg-config
want_file /usr/include/stb/stb_ds.h libstb-dev
case "${1:-test}" in
test)
    # the system xxHash: test_hash and test_trace compare rnic_hash64 with the library (the
    # headers themselves need it not: without <xxhash.h> they use their built-in XXH64)
    want_file /usr/include/xxhash.h libxxhash-dev
    want_cmd g++ g++
    want_cmd clang clang
    want_cmd clang++ clang
    want_cmd llvm-nm llvm
    # clang's sanitizer runtimes come in their own package on Debian (only a Recommends of clang)
    dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
    # 32-bit x86 build of the determinism test (the 32-bit code paths run, not just compile)
    if ! echo 'int main(void){return 0;}' | gcc -m32 -x c - -o /dev/null 2>/dev/null; then
        need+=(gcc-multilib)
    fi
    want_cmd qemu-i386 qemu-user
    # tshark reads the RoCEv2 pcap (tools/pcap_check.sh)
    want_cmd tshark tshark
    # ns-3 3.37's own TcpNewReno beside Tonic's (examples/ns3; its pkg-config files need GSL's)
    want_file /usr/include/ns3/tcp-socket-base.h libns3-dev
    want_file /usr/include/gsl/gsl_rng.h libgsl-dev
    # the firmware self-test (tools/firmware.sh run rv32 / m4): cross compilers, picolibc, qemu
    want_cmd riscv64-unknown-elf-gcc gcc-riscv64-unknown-elf
    want_file /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs picolibc-riscv64-unknown-elf
    want_cmd arm-none-eabi-gcc gcc-arm-none-eabi
    want_file /usr/lib/picolibc/arm-none-eabi/picolibc.specs picolibc-arm-none-eabi
    want_cmd qemu-system-riscv32 qemu-system-misc
    want_cmd qemu-system-arm qemu-system-arm
    ;;
build) ;;
bench)
    want_cmd valgrind valgrind # callgrind instruction counts
    # ns-3's packet-level incast beside the composed RNIC (tools/bench_ns3_speed.sh)
    want_cmd g++ g++
    want_file /usr/include/ns3/point-to-point-net-device.h libns3-dev
    want_file /usr/include/gsl/gsl_rng.h libgsl-dev
    ;;
coverage)
    # make coverage: gcovr over gcc --coverage builds (tools/coverage.sh); the unit tests need
    # the system xxHash as under make test
    want_cmd gcovr gcovr
    want_file /usr/include/xxhash.h libxxhash-dev
    ;;
firmware)
    # make firmware (tools/firmware.sh): rv32imac and Cortex-M4 cross compilers with picolibc,
    # and the qemu system emulators that run the self-test with semihosting
    want_cmd riscv64-unknown-elf-gcc gcc-riscv64-unknown-elf
    want_file /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs picolibc-riscv64-unknown-elf
    want_cmd arm-none-eabi-gcc gcc-arm-none-eabi
    want_file /usr/lib/picolibc/arm-none-eabi/picolibc.specs picolibc-arm-none-eabi
    want_cmd qemu-system-riscv32 qemu-system-misc
    want_cmd qemu-system-arm qemu-system-arm
    ;;
figures)
    want_cmd gnuplot gnuplot-nox
    want_cmd g++ g++
    want_file /usr/include/ns3/tcp-socket-base.h libns3-dev
    want_file /usr/include/gsl/gsl_rng.h libgsl-dev
    ;;
fuzz)
    # libFuzzer ships in clang's runtime package on Debian (libclang_rt.fuzzer)
    want_cmd clang clang
    dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
    ;;
soak)
    # tools/soak.sh reads /proc/<pid>/status with awk and sed; the model needs only gcc (build)
    want_cmd awk gawk
    ;;
*) echo "usage: $0 build|test|bench|figures|fuzz|..." >&2; exit 2 ;;
esac

[ ${#need[@]} -eq 0 ] && exit 0
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
if [ "$(id -u)" -eq 0 ]; then
    echo "deps: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # tshark's wireshark-common asks whether non-root users may capture: no, and no prompt
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null
    apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null || {
        echo "deps: apt-get install ${need[*]} failed" >&2
        exit 1
    }
else
    echo "deps: missing Debian packages; run:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
    exit 1
fi
