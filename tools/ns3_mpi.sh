#!/usr/bin/env bash
# tools/ns3_mpi.sh [--print-prefix]: ns-3 3.37 with its MPI module (issue 34; docs/ns3.md), built
# from Debian's own source package of the libns3-dev the machine has, into a cache outside the
# checkout, once: $RNICQ_NS3_MPI, default ${XDG_CACHE_HOME:-$HOME/.cache}/rnicq/ns3-mpi. Only the
# modules the rnicq devices use are built (point-to-point and mpi, with core, network and stats).
# Debian's libns3-dev has no mpi module (its build leaves MPI off). Called by tools/deps.sh ns3-mpi
# after the packages (libopenmpi-dev, openmpi-bin, dpkg-dev, cmake, ninja-build) are installed.
# A deb-src line for the Debian archive the machine already uses is added when missing (as root).
# Prints the prefix (--print-prefix: only that, building nothing).
set -eu
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rnicq
prefix=${RNICQ_NS3_MPI:-$cache/ns3-mpi}
if [ "${1:-}" = --print-prefix ]; then
    echo "$prefix"
    exit 0
fi
if [ -f "$prefix/.rnicq-ns3-mpi" ] && [ -f "$prefix/lib/libns3-mpi.so" ]; then
    echo "ns3-mpi: cached in $prefix ($(cat "$prefix/.rnicq-ns3-mpi"))" >&2
    echo "$prefix"
    exit 0
fi
start=$SECONDS
src=$cache/ns3-src
mkdir -p "$src"
if ! ls -d "$src"/ns3-3.37*/ns-3.37 >/dev/null 2>&1; then
    if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        if [ "$(id -u)" -ne 0 ]; then
            echo "ns3-mpi: apt has no deb-src line; as root add one for the Debian archive, e.g." >&2
            echo "    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' | sudo tee /etc/apt/sources.list.d/rnicq-debian-src.sources" >&2
            exit 1
        fi
        suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "$suite" >/etc/apt/sources.list.d/rnicq-debian-src.sources
        echo "ns3-mpi: added /etc/apt/sources.list.d/rnicq-debian-src.sources (deb-src, $suite)" >&2
        apt-get update -qq
    fi
    ver=$(dpkg-query -W -f '${Version}' libns3-dev 2>/dev/null || true)
    echo "ns3-mpi: fetching Debian's ns3 source package ${ver:+(libns3-dev $ver)} into $src" >&2
    (cd "$src" && apt-get source -qq "ns3${ver:+=$ver}" >/dev/null)
fi
top=$(ls -d "$src"/ns3-3.37*/ns-3.37 | head -n 1)
build=$cache/ns3-mpi-build
rm -rf "$build"
mkdir -p "$build"
echo "ns3-mpi: configuring $top (point-to-point + mpi, Release)" >&2
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNS3_MPI=ON \
    -DNS3_ENABLED_MODULES="point-to-point;mpi" -DNS3_EXAMPLES=OFF -DNS3_TESTS=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix" >"$build/configure.log" 2>&1 || {
    tail -n 30 "$build/configure.log" >&2
    exit 1
}
echo "ns3-mpi: building (ninja -j2; about 2 minutes on 2 cores)" >&2
ninja -C "$build" -j2 >"$build/build.log" 2>&1 && ninja -C "$build" install >"$build/install.log" 2>&1 || {
    tail -n 30 "$build/build.log" >&2
    exit 1
}
echo "built $(date -u +%Y-%m-%dT%H:%MZ) in $((SECONDS - start)) s from $(basename "$(dirname "$top")")" >"$prefix/.rnicq-ns3-mpi"
rm -rf "$build"
echo "ns3-mpi: $(cat "$prefix/.rnicq-ns3-mpi"), in $prefix" >&2
echo "$prefix"
