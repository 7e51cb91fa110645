#!/usr/bin/env bash
# tools/bench_ns3_speed.sh [NS3_BIN [MODEL_BIN]] -- the composed RNIC against ns-3 on the same
# 2:1 incast at 100 Gb/s (1 KB payloads, 10 ms simulated), in the same run: the CPU time
# (user + sys of the child process, from getrusage(RUSAGE_CHILDREN)) of each.
# Builds nothing: NS3_BIN defaults to build/incast_ns3 (examples/ns3/incast_ns3.cc), MODEL_BIN
# to build/rnic_model.
#
# Environment (all optional):
#   SIM_MS     simulated milliseconds for both (default 10)
#   NS3_CMD    the whole ns-3 command (default: NS3_BIN --sim-ms=$SIM_MS $NS3_ARGS)
#   NS3_ARGS   extra ns-3 options, e.g. "--prop-ns=1000 --switch-buf-bytes=1000000"
#   MODEL_CMD  the whole model command. Default: MODEL_BIN --payload 1024 --duration-us
#              $((SIM_MS*1000)) --quiet [--host off when the usage names it: ns-3 models no
#              receiving host] when MODEL_BIN's usage names --payload, else (the model
#              before the RoCEv2 + DCQCN scenario) MODEL_BIN --duration-us $((SIM_MS*1000))
#              --warmup-us $((SIM_MS*100)) (its own scenario, not the incast: a stand-in)
#   RUNS       runs of each program; the smallest CPU time counts (default 1)
#
# Delivered packets are read from each program's output: `delivered_packets=N` (incast_ns3;
# the model too if it prints it), else the model's "checked at the receiver: N packets".
# Prints one line per program, then
#   RESULT ns3_cpu_s=... model_cpu_s=... ns3_speed_ratio=... ns3_pkts_per_cpu_s=...
#          model_pkts_per_cpu_s=... ns3_delivered=... model_delivered=... sim_ms=...
# (ns3_speed_ratio = ns-3 CPU time / model CPU time: > 1 means the model is faster; a count
# the output does not give is printed as NA). Exits 1 if either program fails, 2 on bad use.
set -u
ns3_bin=${1:-build/incast_ns3}
model_bin=${2:-build/rnic_model}
sim_ms=${SIM_MS:-10}
case "$sim_ms" in '' | *[!0-9]*) echo "bench_ns3_speed: SIM_MS must be a whole number of ms" >&2; exit 2 ;; esac
runs=${RUNS:-1}
case "$runs" in '' | *[!0-9]* | 0) echo "bench_ns3_speed: RUNS must be >= 1" >&2; exit 2 ;; esac
command -v python3 >/dev/null 2>&1 || { echo "bench_ns3_speed: python3 is needed" >&2; exit 2; }

if [ -z "${NS3_CMD:-}" ]; then
    [ -x "$ns3_bin" ] || { echo "bench_ns3_speed: no $ns3_bin (make build/incast_ns3)" >&2; exit 2; }
    NS3_CMD="$ns3_bin --sim-ms=$sim_ms ${NS3_ARGS:-}"
fi
if [ -z "${MODEL_CMD:-}" ]; then
    [ -x "$model_bin" ] || { echo "bench_ns3_speed: no $model_bin (make build/rnic_model)" >&2; exit 2; }
    if "$model_bin" --help 2>&1 | grep -q -- '--payload'; then
        MODEL_CMD="$model_bin --payload 1024 --duration-us $((sim_ms * 1000)) --quiet"
        # ns-3's incast has no receiving host: compare the model without its host model too
        if "$model_bin" --help 2>&1 | grep -q -- '--host on'; then
            MODEL_CMD="$MODEL_CMD --host off"
        fi
    else
        MODEL_CMD="$model_bin --duration-us $((sim_ms * 1000)) --warmup-us $((sim_ms * 100))"
    fi
fi

python3 - "$NS3_CMD" "$MODEL_CMD" "$runs" "$sim_ms" <<'EOF'
import re, resource, shlex, subprocess, sys

ns3_cmd, model_cmd, runs, sim_ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def delivered(out):
    m = re.findall(r'\bdelivered_packets=(\d+)', out)
    if m:
        return int(m[-1])
    m = re.findall(r'checked at the receiver: (\d+) packets', out)
    if m:
        return int(m[-1])
    return None

def measure(name, cmd):
    best = None
    for _ in range(runs):
        before = cpu_children()
        p = subprocess.run(shlex.split(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        cpu = cpu_children() - before
        if p.returncode != 0:
            sys.stdout.write(p.stdout[-2000:])
            print('bench_ns3_speed: %s failed (exit %d): %s' % (name, p.returncode, cmd))
            sys.exit(1)
        if best is None or cpu < best[0]:
            best = (cpu, p.stdout)
    cpu, out = best
    n = delivered(out)
    rate = '%.0f' % (n / cpu) if n is not None and cpu > 0 else 'NA'
    print('%-5s cpu_s=%.3f delivered_packets=%s pkts_per_cpu_s=%s  [%s]'
          % (name, cpu, 'NA' if n is None else n, rate, cmd))
    for line in out.splitlines():
        if line.startswith('RESULT') or line.startswith('INFO'):
            print('      ' + line)
    return cpu, n, rate

ns3 = measure('ns3', ns3_cmd)
model = measure('model', model_cmd)
ratio = '%.2f' % (ns3[0] / model[0]) if model[0] > 0 else 'NA'
na = lambda v: 'NA' if v is None else str(v)
print('RESULT ns3_cpu_s=%.3f model_cpu_s=%.3f ns3_speed_ratio=%s ns3_pkts_per_cpu_s=%s '
      'model_pkts_per_cpu_s=%s ns3_delivered=%s model_delivered=%s sim_ms=%s'
      % (ns3[0], model[0], ratio, ns3[2], model[2], na(ns3[1]), na(model[1]), sim_ms))
EOF
