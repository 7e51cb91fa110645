#!/usr/bin/env python3
"""The RHCC paper's experiments (../shared/seeds/002_fb8153eb89368d43.txt: Sec. 2.2 Fig. 2/3/4,
Sec. 4 Fig. 6) on the composed RNIC (build/rnic_model) with the receiving-host model (hcc_host)
and RHCC (hcc_rx at the receiver, hcc_tx at the sender).

Set-up as the paper's: one sender, one receiver (--hosts 1 --tenants 1), 100 G RNIC, DCQCN,
perftest-like fixed-size messages (--sizes S,S), CPU memory traffic 0x / 1x / 2x / 3x
(0 / 19.0 / 25.3 / 30.3 GB/s, --cpu-load 0..3).

  Fig. 2/3  loads 0..3 x PFC on/off, no RHCC (4 QPs, 256 KB): receiver throughput (rx_gbps),
            mean latency (fct_mean_us), PFC pause duration (host_pause_us) and CNPs, PCIe stalled
            writes, DDIO miss rate.
  Fig. 4    3x, PFC on, no RHCC: throughput against message size (64 KB .. 1 MB, 4 QPs) and
            QP count (1, 2, 4, 8; 256 KB).
  Fig. 6    PFC on, loads 0..3, RHCC off vs both; at 3x also rx-only, tx-only (= the RHCC sender
            against a plain DCQCN sender on the same host) and hostCC-style ECN marking.

PCIe back-pressure: the paper reads Neohost's "PCIe outbound stalled write requests", the ConnectX
counter outbound_pci_stalled_wr, which is "the percentage of time ... the NIC had outbound posted
writes requests but could not perform the operation due to insufficient posted credits" (Linux,
Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst). Its analogue here is
the model's stall time (pcie_stall_us; pcie_stall_pct = its share of the measurement window), so
stall_cut_*_pct are cuts of the stall time; the count of writes that waited for credits
(pcie_stalled_writes) is printed beside it as stalled_writes_cut_*_pct. (The count can fall while
the back-pressure grows: at 3x without RHCC fewer writes wait, each much longer.)

Every number printed is measured by a run of the model; the paper's numbers are printed beside them
as "paper ...". A run that fails (nonzero exit, no RESULT line, a missing key, bytes_lost != 0, an
option the model did not take) is reported and the driver exits 1 without the figures' RESULT lines.

  python3 tools/hostcc_experiments.py [--quick] [--csv-dir DIR] [--model PATH] [--jobs N]
      [--duration-us U] [--warmup-us U] [--seed S] [--ddio on|off] [--rx-footprint-mb N] [--only 2,4,6]
      [--probe-ts head|arrival|pipeline] [--rx-pipeline N] [--cpu-evict-wb io|cpu|queued] [--scenario FILE]

Output: one line per point (fig2 ..., fig4 ..., fig6 ...), then
  RESULT exp=hostcc_fig2 ..., RESULT exp=hostcc_fig4 ..., RESULT exp=hostcc_fig6 ...,
  RESULT exp=hostcc_fig6_variant variant=... (one per variant at 3x), and last
  RESULT exp=hostcc_sweep runs=.. failed=0 wall_s=..
CSVs (--csv-dir): hostcc_fig2.csv, hostcc_fig4.csv, hostcc_fig6.csv, columns described in
docs/figures/hostcc_fig*.gp.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

CPU_GBPS = {0: 0.0, 1: 19.0, 2: 25.3, 3: 30.3}  # the paper's 0x .. 3x (MLC, 1:1 read/write)

# the paper's numbers (text of Sec. 2.2 and Sec. 4)
PAPER = {
    "tput_drop_3x_pfc_pct": 62.0,
    "tput_drop_3x_nopfc_pct": 68.0,
    "lat_x_3x_pfc": 2.4,
    "lat_x_3x_nopfc": 2.6,
    "stall_cut_pct": {1: 80.0, 2: 93.0, 3: 97.0},
    "pause_cut_3x_pct": 64.0,
    "tput_gain_3x": 2.0,  # "up to 2x"
    "lat_gain_3x": 1.4,  # "up to 1.4x"
}

# keys every --host on RESULT line must carry (parsed by name, extra keys tolerated)
NUMERIC_KEYS = [
    "rx_gbps", "fct_mean_us", "host_pauses", "host_pause_us", "host_drops", "host_marked", "cnps",
    "pcie_stalled_writes", "ddio_miss_pct", "iio_occ_mean", "mba_level_end", "mba_steps", "probes",
    "r_rev_gbps", "r_cc_gbps", "host_delay_mean_ns", "bytes_lost", "pcie_stall_us",
]
STRING_KEYS = ["host", "cpu_load_x", "rhcc", "ddio"]

# the CSV's common columns (the gnuplot scripts index them by number: keep the order)
CSV_COMMON = ["variant", "pfc", "load_x", "cpu_GBps", "size_kb", "qps"] + [
    "rx_gbps", "fct_mean_us", "host_pause_us", "cnps", "pcie_stalled_writes", "ddio_miss_pct",
    "host_drops", "host_marked", "iio_occ_mean", "host_delay_mean_ns", "mba_level_end", "mba_steps",
    "probes", "r_rev_gbps", "r_cc_gbps", "host_pauses", "pcie_stall_us", "pcie_stall_pct", "host_pause_pct",
]

KB = 1024
FIG4_SIZES = [64 * KB, 128 * KB, 256 * KB, 512 * KB, 1024 * KB]
FIG4_QPS = [1, 2, 4, 8]
BASE_SIZE = 256 * KB
BASE_QPS = 4
VARIANTS = [("rx", "rx_only"), ("tx", "tx_only"), ("ecn", "ecn")]  # RHCC modes at 3x beside off / both


class Point:
    """One model run: (load, pfc, rhcc mode, message size, QPs)."""

    def __init__(self, load, pfc, rhcc, size, qps, sweep=""):
        self.load, self.pfc, self.rhcc, self.size, self.qps = load, pfc, rhcc, size, qps
        self.sweep = sweep  # Fig. 4: "size" or "qps"

    def key(self):
        return (self.load, self.pfc, self.rhcc, self.size, self.qps)

    def label(self):
        return "load=%dx pfc=%s rhcc=%s size=%dKB qps=%d" % (
            self.load, "on" if self.pfc else "off", self.rhcc, self.size // KB, self.qps)


def model_cmd(opt, p):
    # the paper's testbed (one sender, one receiver, one switch) is the built-in incast with one
    # sending host; --scenario runs the same points on a scenario file's fabric instead
    where = ["--scenario", opt.scenario] if opt.scenario else ["--hosts", "1", "--tenants", "1"]
    cmd = [opt.model] + where + ["--qps", str(p.qps),
           "--sizes", "%d,%d" % (p.size, p.size), "--duration-us", str(opt.duration_us),
           "--warmup-us", str(opt.warmup_us), "--seed", str(opt.seed), "--quiet",
           "--host", "on", "--cpu-load", str(p.load), "--rhcc", p.rhcc,
           "--pfc", "on" if p.pfc else "off"]
    if opt.ddio is not None:
        cmd += ["--ddio", opt.ddio]
    if opt.rx_footprint_mb is not None:
        cmd += ["--rx-footprint-mb", str(opt.rx_footprint_mb)]
    if opt.depth is not None:
        cmd += ["--depth", str(opt.depth)]
    if opt.probe_ts is not None:
        cmd += ["--probe-ts", opt.probe_ts]
    if opt.rx_pipeline is not None:
        cmd += ["--set", "host.rx_pipeline=%d" % opt.rx_pipeline]
    if opt.cpu_evict_wb is not None:
        cmd += ["--set", "host.cpu_evict_wb=%s" % opt.cpu_evict_wb]
    return cmd


def parse_result(line):
    """key=value tokens of a RESULT line, by name."""
    kv = {}
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            kv[k] = v
    return kv


def run_point(opt, p):
    """Runs the model for one point; returns (point, values dict, seconds, error or None)."""
    cmd = model_cmd(opt, p)
    t0 = time.monotonic()
    try:
        cp = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=opt.timeout_s)
    except subprocess.TimeoutExpired:
        return p, None, time.monotonic() - t0, "timed out after %d s" % opt.timeout_s
    except OSError as e:
        return p, None, time.monotonic() - t0, "cannot run %s: %s" % (opt.model, e)
    dt = time.monotonic() - t0
    if cp.returncode != 0:
        tail = (cp.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        return p, None, dt, "exit %d: %s" % (cp.returncode, tail)
    lines = [l for l in cp.stdout.splitlines() if l.strip()]
    if not lines or not lines[-1].startswith("RESULT "):
        return p, None, dt, "last line of stdout is not a RESULT line"
    kv = parse_result(lines[-1])
    missing = [k for k in NUMERIC_KEYS + STRING_KEYS if k not in kv]
    if missing:
        return p, None, dt, "RESULT line lacks %s" % ",".join(missing)
    vals = {}
    for k in NUMERIC_KEYS:
        try:
            vals[k] = float(kv[k])
        except ValueError:
            return p, None, dt, "%s=%s is not a number" % (k, kv[k])
    for k in STRING_KEYS:
        vals[k] = kv[k]
    # the model must have taken the options (a model that ignores one would fake a figure)
    if kv["host"] != "1":
        return p, None, dt, "host=%s (the host model is not on)" % kv["host"]
    try:
        if float(kv["cpu_load_x"]) != float(p.load):
            return p, None, dt, "cpu_load_x=%s, asked for %d" % (kv["cpu_load_x"], p.load)
    except ValueError:
        return p, None, dt, "cpu_load_x=%s is not a number" % kv["cpu_load_x"]
    if kv["rhcc"] != p.rhcc:
        return p, None, dt, "rhcc=%s, asked for %s" % (kv["rhcc"], p.rhcc)
    if opt.ddio is not None and kv["ddio"] not in (opt.ddio, "1" if opt.ddio == "on" else "0"):
        return p, None, dt, "ddio=%s, asked for %s" % (kv["ddio"], opt.ddio)
    if vals["fct_mean_us"] <= 0:
        return p, None, dt, "fct_mean_us=%s: no message completed in the measurement window (lengthen --duration-us)" % kv["fct_mean_us"]
    if vals["bytes_lost"] != 0:
        return p, None, dt, "bytes_lost=%s (must be 0)" % kv["bytes_lost"]
    if "qps" in kv and kv["qps"] != str(p.qps):
        return p, None, dt, "qps=%s, asked for %d" % (kv["qps"], p.qps)
    win = float(opt.duration_us - opt.warmup_us)
    vals["pcie_stall_pct"] = vals["pcie_stall_us"] / win * 100.0
    vals["host_pause_pct"] = vals["host_pause_us"] / win * 100.0
    return p, vals, dt, None


def ratio(a, b):
    """a / b, or None when b is 0 (undefined: printed as na, never as a number)."""
    return None if b == 0 else a / b


def fmt(x, nd=2):
    return "na" if x is None else "%.*f" % (nd, x)


def cut_pct(with_, without):
    r = ratio(with_, without)
    return None if r is None else (1.0 - r) * 100.0


def plan(opt):
    """The points of each figure (full or --quick)."""
    loads = [0, 3] if opt.quick else [0, 1, 2, 3]
    fig6_loads = [0, 1, 2, 3]
    sizes = [64 * KB, BASE_SIZE, 1024 * KB] if opt.quick else FIG4_SIZES
    qps = [1, BASE_QPS, 8] if opt.quick else FIG4_QPS
    figs = {}
    if 2 in opt.only:
        figs[2] = [Point(l, pfc, "off", BASE_SIZE, BASE_QPS) for pfc in (True, False) for l in loads]
    if 4 in opt.only:
        figs[4] = ([Point(3, True, "off", s, BASE_QPS, "size") for s in sizes] +
                   [Point(3, True, "off", BASE_SIZE, q, "qps") for q in qps])
    if 6 in opt.only:
        figs[6] = ([Point(l, True, m, BASE_SIZE, BASE_QPS) for m in ("off", "both") for l in fig6_loads] +
                   [Point(3, True, m, BASE_SIZE, BASE_QPS) for m, _ in VARIANTS])
    return figs


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join("" if v is None else (("%.6g" % v) if isinstance(v, float) else str(v))
                             for v in r) + "\n")


def common_row(p, v):
    return [p.rhcc, 1 if p.pfc else 0, p.load, CPU_GBPS[p.load], p.size // KB, p.qps] + [
        v[k] for k in CSV_COMMON[6:]]





def point_line(fig, p, v):
    return ("fig%s load=%dx cpu_GBps=%.1f pfc=%s rhcc=%s size_kb=%d qps=%d rx_gbps=%.2f fct_mean_us=%.1f "
            "host_pause_us=%.1f cnps=%d pcie_stalled_writes=%d pcie_stall_pct=%.1f ddio_miss_pct=%.1f host_drops=%d host_marked=%d "
            "iio_occ_mean=%.1f host_delay_mean_ns=%.0f mba_level_end=%d r_rev_gbps=%.2f r_cc_gbps=%.2f" % (
                fig, p.load, CPU_GBPS[p.load], "on" if p.pfc else "off", p.rhcc, p.size // KB, p.qps,
                v["rx_gbps"], v["fct_mean_us"], v["host_pause_us"], v["cnps"], v["pcie_stalled_writes"],
                v["pcie_stall_pct"], v["ddio_miss_pct"], v["host_drops"], v["host_marked"], v["iio_occ_mean"],
                v["host_delay_mean_ns"], v["mba_level_end"], v["r_rev_gbps"], v["r_cc_gbps"]))


def fig2(opt, pts, R, out):
    res = {}
    rows = []
    for pfc in (True, False):
        tag = "pfc" if pfc else "nopfc"
        ps = [p for p in pts if p.pfc == pfc]
        base = R[Point(0, pfc, "off", BASE_SIZE, BASE_QPS).key()]
        one = R.get(Point(1, pfc, "off", BASE_SIZE, BASE_QPS).key())
        for p in ps:
            v = R[p.key()]
            drop = cut_pct(v["rx_gbps"], base["rx_gbps"])
            latx = ratio(v["fct_mean_us"], base["fct_mean_us"])
            paper = ""
            if p.load == 3:
                paper = " (paper -%.0f %%, x%.1f)" % (PAPER["tput_drop_3x_%s_pct" % tag], PAPER["lat_x_3x_%s" % tag])
            out.append(point_line(2, p, v) + " | vs 0x: tput_drop_pct=%s lat_x=%s%s" % (fmt(drop, 1), fmt(latx), paper))
            stalls_1x = None if one is None else ratio(v["pcie_stall_us"], one["pcie_stall_us"])
            ref_t = base["rx_gbps"] * (1 - PAPER["tput_drop_3x_%s_pct" % tag] / 100) if p.load == 3 else None
            ref_l = base["fct_mean_us"] * PAPER["lat_x_3x_%s" % tag] if p.load == 3 else None
            rows.append(common_row(p, v) + [stalls_1x, ref_t, ref_l])
        top = R[Point(3, pfc, "off", BASE_SIZE, BASE_QPS).key()]
        res["tput_drop_3x_%s_pct" % tag] = cut_pct(top["rx_gbps"], base["rx_gbps"])
        res["lat_x_3x_%s" % tag] = ratio(top["fct_mean_us"], base["fct_mean_us"])
        res["stall_pct_3x_%s" % tag] = top["pcie_stall_pct"]
        res["ddio_miss_pct_3x_%s" % tag] = top["ddio_miss_pct"]
    line = ("RESULT exp=hostcc_fig2 tput_drop_3x_pfc_pct=%s tput_drop_3x_nopfc_pct=%s lat_x_3x_pfc=%s "
            "lat_x_3x_nopfc=%s" % (fmt(res["tput_drop_3x_pfc_pct"], 1), fmt(res["tput_drop_3x_nopfc_pct"], 1),
                                   fmt(res["lat_x_3x_pfc"]), fmt(res["lat_x_3x_nopfc"])))
    line += (" stall_pct_3x_pfc=%.1f stall_pct_3x_nopfc=%.1f ddio_miss_pct_3x_pfc=%.1f ddio_miss_pct_3x_nopfc=%.1f"
             " pause_pct_3x_pfc=%.1f cnps_3x_nopfc=%d" % (
                 res["stall_pct_3x_pfc"], res["stall_pct_3x_nopfc"], res["ddio_miss_pct_3x_pfc"],
                 res["ddio_miss_pct_3x_nopfc"], R[Point(3, True, "off", BASE_SIZE, BASE_QPS).key()]["host_pause_pct"],
                 R[Point(3, False, "off", BASE_SIZE, BASE_QPS).key()]["cnps"]))
    if opt.csv_dir:
        write_csv(os.path.join(opt.csv_dir, "hostcc_fig2.csv"),
                  CSV_COMMON + ["stall_time_over_1x", "paper_tput_ref", "paper_lat_ref"], rows)
    return line


def trend(r):
    if r is None:
        return "na"
    return "up" if r > 1.02 else "down" if r < 0.98 else "flat"


def fig4(opt, pts, R, out):
    sizes = [p for p in pts if p.sweep == "size"]
    qpts = [p for p in pts if p.sweep == "qps"]
    rows = []
    first_s = R[sizes[0].key()]["rx_gbps"]
    first_q = R[qpts[0].key()]["rx_gbps"]
    for sweep, ps, first in (("size", sizes, first_s), ("qps", qpts, first_q)):
        for p in ps:
            v = R[p.key()]
            r = ratio(v["rx_gbps"], first)
            out.append(point_line(4, p, v) + " | sweep=%s tput_over_first=%s (paper: slight increase)" % (sweep, fmt(r, 3)))
            rows.append(common_row(p, v) + [sweep, r])
    a = ratio(R[sizes[-1].key()]["rx_gbps"], first_s)
    b = ratio(R[qpts[-1].key()]["rx_gbps"], first_q)
    line = ("RESULT exp=hostcc_fig4 tput_%s_over_%s=%s size_trend=%s tput_%dqp_over_%dqp=%s qps_trend=%s "
            "tput_64kb_gbps=%.2f tput_1mb_gbps=%.2f" % (
                "1mb" if sizes[-1].size == 1024 * KB else "%dkb" % (sizes[-1].size // KB),
                "%dkb" % (sizes[0].size // KB), fmt(a, 3), trend(a), qpts[-1].qps, qpts[0].qps, fmt(b, 3), trend(b),
                first_s, R[sizes[-1].key()]["rx_gbps"]))
    if opt.csv_dir:
        write_csv(os.path.join(opt.csv_dir, "hostcc_fig4.csv"), CSV_COMMON + ["sweep", "tput_over_first"], rows)
    return line


def fig6(opt, pts, R, out):
    def get(load, mode):
        return R[Point(load, True, mode, BASE_SIZE, BASE_QPS).key()]

    rows = []
    lines = []
    res = {}
    for p in pts:
        v = R[p.key()]
        off = get(p.load, "off")
        sc = cut_pct(v["pcie_stall_us"], off["pcie_stall_us"])  # stall time: the ConnectX counter
        sw = cut_pct(v["pcie_stalled_writes"], off["pcie_stalled_writes"])  # stalled write requests
        pc = cut_pct(v["host_pause_us"], off["host_pause_us"])
        tg = ratio(v["rx_gbps"], off["rx_gbps"])
        lg = ratio(off["fct_mean_us"], v["fct_mean_us"])
        paper = ""
        if p.rhcc == "both" and p.load in PAPER["stall_cut_pct"]:
            paper = " (paper stalls -%.0f %%" % PAPER["stall_cut_pct"][p.load]
            if p.load == 3:
                paper += ", pause -%.0f %%, tput up to x%.1f, lat up to x%.1f" % (
                    PAPER["pause_cut_3x_pct"], PAPER["tput_gain_3x"], PAPER["lat_gain_3x"])
            paper += ")"
        extra = ""
        if p.rhcc != "off":
            extra = " | vs off: stall_cut_pct=%s stalled_writes_cut_pct=%s pause_cut_pct=%s tput_gain=%s lat_gain=%s%s" % (
                fmt(sc, 1), fmt(sw, 1), fmt(pc, 1), fmt(tg, 3), fmt(lg, 3), paper)
        out.append(point_line(6, p, v) + " mba_steps=%d probes=%d" % (v["mba_steps"], v["probes"]) + extra)
        both3 = p.rhcc == "both" and p.load == 3
        ref_s = (off["pcie_stall_us"] * (1 - PAPER["stall_cut_pct"][p.load] / 100)
                 if p.rhcc == "both" and p.load in PAPER["stall_cut_pct"] else None)
        rows.append(common_row(p, v) + [
            ratio(v["pcie_stall_us"], off["pcie_stall_us"]), ratio(v["host_pause_us"], off["host_pause_us"]),
            tg, lg, ref_s,
            off["host_pause_us"] * (1 - PAPER["pause_cut_3x_pct"] / 100) if both3 else None,
            off["rx_gbps"] * PAPER["tput_gain_3x"] if both3 else None,
            off["fct_mean_us"] / PAPER["lat_gain_3x"] if both3 else None,
            ratio(v["pcie_stalled_writes"], off["pcie_stalled_writes"])])
        if p.rhcc == "both" and p.load in (1, 2, 3):
            res["stall_cut_%dx_pct" % p.load] = sc
            res["stalled_writes_cut_%dx_pct" % p.load] = sw
        if both3:
            res.update(pause_cut_3x_pct=pc, tput_gain_3x=tg, lat_gain_3x=lg)
        for mode, name in VARIANTS:
            if p.rhcc == mode and p.load == 3:
                lines.append("RESULT exp=hostcc_fig6_variant variant=%s%s %s_tput_gain_3x=%s %s_lat_gain_3x=%s "
                             "%s_stall_cut_3x_pct=%s %s_stalled_writes_cut_3x_pct=%s %s_pause_cut_3x_pct=%s "
                             "%s_rx_gbps_3x=%.2f" % (
                                 name, " compare=rhcc_sender_vs_plain_dcqcn" if mode == "tx" else "",
                                 name, fmt(tg, 3), name, fmt(lg, 3), name, fmt(sc, 1), name, fmt(sw, 1),
                                 name, fmt(pc, 1), name, v["rx_gbps"]))
    head = "RESULT exp=hostcc_fig6 " + " ".join(
        "stall_cut_%dx_pct=%s" % (l, fmt(res.get("stall_cut_%dx_pct" % l), 1)) for l in (1, 2, 3)
        if "stall_cut_%dx_pct" % l in res)
    head += " pause_cut_3x_pct=%s tput_gain_3x=%s lat_gain_3x=%s" % (
        fmt(res["pause_cut_3x_pct"], 1), fmt(res["tput_gain_3x"], 3), fmt(res["lat_gain_3x"], 3))
    head += "".join(" stalled_writes_cut_%dx_pct=%s" % (l, fmt(res["stalled_writes_cut_%dx_pct" % l], 1))
                    for l in (1, 2, 3) if "stalled_writes_cut_%dx_pct" % l in res)
    b3 = get(3, "both")
    head += " tput_3x_off_gbps=%.2f tput_3x_rhcc_gbps=%.2f mba_level_end_3x=%d" % (
        get(3, "off")["rx_gbps"], b3["rx_gbps"], b3["mba_level_end"])
    if opt.csv_dir:
        write_csv(os.path.join(opt.csv_dir, "hostcc_fig6.csv"), CSV_COMMON + [
            "stall_time_over_off", "pause_over_off", "tput_over_off", "lat_off_over_this", "paper_stall_ref",
            "paper_pause_ref", "paper_tput_ref", "paper_lat_ref", "stalled_writes_over_off"], rows)
    return [head] + lines


def main():
    ap = argparse.ArgumentParser(description="RHCC paper Fig. 2/3/4/6 on the composed RNIC (build/rnic_model)")
    ap.add_argument("--quick", action="store_true", help="short runs, fewer points (make test)")
    ap.add_argument("--csv-dir", default=None, help="write hostcc_fig2/4/6.csv here")
    ap.add_argument("--model", default="build/rnic_model")
    ap.add_argument("--jobs", type=int, default=2, help="models run at once")
    ap.add_argument("--duration-us", type=int, default=None, help="per run, warm-up included (20000; quick 4000)")
    ap.add_argument("--warmup-us", type=int, default=None, help="(5000; quick 1000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--depth", type=int, default=None, help="messages outstanding per QP (model default)")
    ap.add_argument("--ddio", choices=["on", "off"], default=None, help="(model default)")
    ap.add_argument("--rx-footprint-mb", type=int, default=None, help="(model default, 16)")
    ap.add_argument("--probe-ts", choices=["head", "arrival", "pipeline"], default=None,
                    help="an RHCC probe's receive stamp (model default pipeline; docs/hostcc_model.md)")
    ap.add_argument("--rx-pipeline", type=int, default=None, help="with --probe-ts pipeline: its depth, packets (model default 4)")
    ap.add_argument("--cpu-evict-wb", choices=["io", "cpu", "queued"], default=None,
                    help="who holds a CPU-evicted I/O line's write-back (model default io; docs/hostcc_model.md)")
    ap.add_argument("--only", default="2,4,6", help="figures to run, e.g. 2,6")
    ap.add_argument("--scenario", default=None,
                    help="run every point on this scenario file (its tenants take --qps and --sizes) "
                         "instead of the built-in one-sender incast (tools/exp_rhcc_fabric.sh)")
    ap.add_argument("--timeout-s", type=int, default=900, help="per run")
    opt = ap.parse_args()
    if opt.duration_us is None:
        opt.duration_us = 4000 if opt.quick else 20000
    if opt.warmup_us is None:
        opt.warmup_us = 1000 if opt.quick else 5000
    try:
        opt.only = sorted({int(x) for x in opt.only.split(",")})
    except ValueError:
        ap.error("--only takes a list of 2, 4, 6")
    if not set(opt.only) <= {2, 4, 6} or not opt.only:
        ap.error("--only takes a list of 2, 4, 6")
    if opt.jobs < 1 or opt.warmup_us >= opt.duration_us:
        ap.error("--jobs >= 1 and --warmup-us < --duration-us")
    if not os.access(opt.model, os.X_OK):
        print("ERROR model %s is not an executable (make %s)" % (opt.model, opt.model), file=sys.stderr)
        return 1
    if opt.csv_dir:
        os.makedirs(opt.csv_dir, exist_ok=True)

    t0 = time.monotonic()
    figs = plan(opt)
    uniq = {}
    for ps in figs.values():
        for p in ps:
            uniq.setdefault(p.key(), p)
    print("# hostcc_experiments: %d runs of %s, %d us each (%d us warm-up), %d at once, %s" % (
        len(uniq), opt.model, opt.duration_us, opt.warmup_us, opt.jobs, "quick" if opt.quick else "full"),
        file=sys.stderr, flush=True)
    R, errors, model_s = {}, [], 0.0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opt.jobs) as ex:
        futs = [ex.submit(run_point, opt, p) for p in uniq.values()]
        for f in concurrent.futures.as_completed(futs):
            p, v, dt, err = f.result()
            model_s += dt
            if err:
                errors.append("ERROR run %s failed: %s\n  command: %s" % (p.label(), err, " ".join(model_cmd(opt, p))))
                print("# FAIL %s (%.1f s): %s" % (p.label(), dt, err), file=sys.stderr, flush=True)
            else:
                R[p.key()] = v
                print("# done %s (%.1f s) rx_gbps=%.2f" % (p.label(), dt, v["rx_gbps"]), file=sys.stderr, flush=True)
    if errors:
        for e in errors:
            print(e)
        print("ERROR %d of %d runs failed; no figure results" % (len(errors), len(uniq)))
        return 1

    out, results = [], []
    if 2 in figs:
        results.append(fig2(opt, figs[2], R, out))
    if 4 in figs:
        results.append(fig4(opt, figs[4], R, out))
    if 6 in figs:
        results += fig6(opt, figs[6], R, out)
    for l in out + results:
        print(l)
    print("RESULT exp=hostcc_sweep runs=%d failed=0 mode=%s duration_us=%d warmup_us=%d model_cpu_s=%.1f wall_s=%.1f scenario=%s" % (
        len(uniq), "quick" if opt.quick else "full", opt.duration_us, opt.warmup_us, model_s, time.monotonic() - t0,
        opt.scenario or "built-in"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
