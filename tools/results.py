#!/usr/bin/env python3
"""The one place every measured figure of rnicq comes from.

MANIFEST below lists every experiment: an id, the exact command (programs under build/, built
with `make -s build/<name>`), the header it belongs to, whether its output is deterministic
(simulation outputs are; host timings, callgrind counts, fuzz rates are not), how long it takes,
and the paper's numbers where the paper gives one. Every key of every RESULT line an experiment
prints is a figure.

  python3 tools/results.py                 run the deterministic experiments of the quick and full
                                           tiers, write docs/results.md and README.md's blocks
  python3 tools/results.py --quick         only the quick tier (the rest keeps its committed values)
  python3 tools/results.py --all           also the long tier (tens of minutes: ns-3's 200 flows,
                                           Tassel at 65,536 QPs)
  python3 tools/results.py --only ID,..    only these experiments
  python3 tools/results.py --log FILE      also take the non-deterministic figures (make bench,
                                           make soak, make fuzz, make firmware, make coverage
                                           output saved to FILE; --bench-log is the same option);
                                           shown as measured, with the date of FILE
  python3 tools/results.py --figures       regenerate the PNGs of docs/figures (gnuplot) and
                                           record the sha256 of the CSV data each is drawn from
  python3 tools/results.py --check         re-run the quick deterministic experiments and the cheap
                                           figures' data; exit 1 naming every stale value
                                           (committed vs now); README.md at most 300 lines
  python3 tools/results.py --check --full  the same for every tier but "long" (make check)
  python3 tools/results.py --check --all   every tier
  python3 tools/results.py --check --only-tier full   the full tier alone (make check, after make test)

Without --log, non-deterministic figures keep the values (and dates) committed in
docs/results.md. Generated regions: README.md (and each document of DOC_BLOCKS, such as
docs/trace_csv.md) between `<!-- results:begin NAME -->` and
`<!-- results:end NAME -->`; docs/results.md entirely (its last lines hold the data as JSON,
read back by the next run). Ends with "N passed, N failed" in --check mode.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_MD = os.path.join(ROOT, "docs", "results.md")
README = os.path.join(ROOT, "README.md")
README_MAX_LINES = 300

# Keys that read a host clock, in experiments that are otherwise deterministic.
HOST_KEYS = {"model_host_s", "ns3_host_s", "mcycles_per_s", "pkts_per_s", "wall_s", "rss_kb", "rss_per_host_kb"}

GROUPS = [
    ("common", "Common core (every header)"),
    ("ratelimit", "ratelimit.h: Tassel"),
    ("qos", "rnicq.h: the RED-SEA QoS engine"),
    ("palos", "rnicq.h: Palos"),
    ("transport", "transport.h: Tonic"),
    ("hostcc", "hostcc.h: RHCC and the receiving host"),
    ("model", "The composed RNIC (`make run`)"),
    ("fabric_papers", "Published set-ups on the fabric (issue 33)"),
    ("ns3", "Inside ns-3: the fabric's NICs and switches as ns-3 NetDevices, on MPI ranks (issue 34)"),
    ("firmware", "Firmware, fuzzing, coverage, soak"),
]

# Tiers: "quick" is checked by `make test` (--check), "full" by `make check` (--check --full),
# "long" only by --check --all; "measured" experiments are not deterministic: their figures come
# from a saved log (--log) and are never checked.
#
# Each experiment: id, group, title, cmd (list, run from the repository root), tier, secs (about,
# on the 2-core development machine), build (make targets), line_id (keys naming a RESULT line
# when several lines share keys), paper ({figure: the paper's number}), label ({figure: meaning}),
# match (measured only: a key that identifies its RESULT lines in a log), cmd_text (measured:
# how the log is produced).
# the built-in incast (rnic_model without --scenario) with each tenant's distance from the share reference
INCAST = ["bash", "tools/fabric_run.sh", "-"]
MANIFEST = [
    # ---- common core ----
    dict(id="fixed_point_range", group="common", tier="quick", secs=0.3,
         title="Fixed-point pacing error over 100 Kb/s .. 800 Gb/s and 100 MHz .. 1 GHz",
         cmd=["./build/fixed_point_range"],
         label={"max_rate_err_ppm": "worst achieved-rate error (ppm; target 1)",
                "max_drift_ppm": "worst drift with a rate change every 1,000 packets (ppm)"}),
    dict(id="bench_common", group="common", tier="measured", match="bitmap_ffs_ns",
         title="Common structures against naive baselines (host ns per operation)",
         cmd_text="make bench (./build/bench_common)"),
    # ---- ratelimit.h ----
    dict(id="tassel_accuracy", group="ratelimit", tier="quick", secs=0.2,
         title="Fig. 7: one backlogged QP, 100 Kb/s .. 400 Gb/s",
         cmd=["./build/tassel_accuracy"],
         label={"max_rate_err_pct": "worst rate error (%)",
                "max_gap_err_cycles": "worst gap error (cycles)",
                "single_qp_cap_gbps_n8": "one QP's cap with n = 8 (Gb/s)"},
         paper={"max_rate_err_pct": "accurate 100 Kb/s .. 100 Gb/s (Fig. 7, no number)"}),
    dict(id="tassel_rate_change", group="ratelimit", tier="quick", secs=0.4,
         title="Rate changes act promptly (issue 9)",
         cmd=["./build/tassel_rate_change"],
         label={"raise_first_pkt_cycles": "first packet after a raise (cycles)",
                "raise_first_target_cycles": "target: one new-rate packet + 2 x PCIe latency (cycles)",
                "cut_raise_max_ratio": "cut then raise: largest 1 ms rate / configured (target <= 1.01)",
                "cut_raise_b_gbps": "cut then raise: B over 50 ms (configured 30 Gb/s)",
                "cut_raise_a_gbps": "cut then raise: A over 50 ms (configured 60 Gb/s)",
                "burst_excess_ratio": "largest burst beyond one packet / rate x (lookahead + a packet on the wire)"}),
    dict(id="tassel_scale_quick", group="ratelimit", tier="quick", secs=12,
         title="Fig. 8 at 1,024 QPs, short (the run make test checks)",
         cmd=["./build/tassel_scale", "--quick"],
         label={"max_err_pct_phi1": "(a) worst QP, limits sum to 95 % of the link (%)",
                "max_err_pct_phi2": "(b) worst QP, Phi = 2 (%)"},
         paper={"max_err_pct_phi1": "on the diagonal (Fig. 8a, no number)",
                "max_err_pct_phi2": "on rate / Phi (Fig. 8b, no number)"}),
    dict(id="tassel_scale", group="ratelimit", tier="long", secs=270,
         title="Fig. 8: scalability, 1,024 and 65,536 QPs, 10 s simulated per case",
         cmd=["./build/tassel_scale"],
         label={"max_err_pct_phi1": "(a) worst QP at 65,536 QPs, k = 256 (%)",
                "max_err_pct_phi2": "(b) worst QP at 65,536 QPs, Phi = 2, k = 256 (%)",
                "phi2_64k_k60_pct": "(b) worst QP at 65,536 QPs with the paper's k = 60 (%)",
                "tb_max_err_pct": "token-bucket baseline, worst QP (%)",
                "rr_max_err_pct": "round-robin baseline, worst QP (%)"},
         paper={"max_err_pct_phi1": "on the diagonal (Fig. 8a, 1,024 QPs)",
                "max_err_pct_phi2": "on rate / Phi (Fig. 8b, 1,024 QPs)"}),
    dict(id="tassel_scale_16k", group="ratelimit", tier="full", secs=110,
         title="Fig. 8 at 16,384 QPs with the paper's k = 60, 10 s simulated per case (issue 31)",
         cmd=["./build/tassel_scale", "--qps", "16384", "--desc", "60"],
         label={"max_err_pct_phi1": "(a) worst QP at 16,384 QPs, k = 60 (%)",
                "max_err_pct_phi2": "(b) worst QP at 16,384 QPs, Phi = 2, k = 60 (%)",
                "tb_max_err_pct": "token-bucket baseline, worst QP (%)",
                "rr_max_err_pct": "round-robin baseline, worst QP (%)"},
         paper={"max_err_pct_phi2": "on rate / Phi (Fig. 8b, 1,024 QPs)"}),
    dict(id="tassel_storm", group="ratelimit", tier="full", secs=40,
         title="Wake-up storms and the ranked schedule queue (issue 13), up to 16,000 slow QPs",
         cmd=["./build/tassel_storm", "--csv", "build/tassel_storm.csv"],
         label={"fifo_gap_x": "FIFO schedule queue: fast QP's largest gap / ideal",
                "option_gap_x": "ranked schedule queue: fast QP's largest gap / ideal"}),
    dict(id="bench_ratelimit", group="ratelimit", tier="measured", match="ns_1k",
         title="Host ns per packet decision against a two-heap WF2Q+",
         cmd_text="make bench (./build/bench_ratelimit)"),
    dict(id="callgrind_ratelimit", group="ratelimit", tier="measured", match="ir_fair_1k",
         title="Instructions per decision (callgrind)",
         cmd_text="make bench (bash tools/callgrind_per_decision.sh)"),
    # ---- rnicq.h: QoS engine ----
    dict(id="qos_hello", group="qos", tier="quick", secs=0.2,
         title="One 200,000 B transfer through the engine",
         cmd=["./build/qos_hello"]),
    dict(id="qos_rates", group="qos", tier="quick", secs=0.1,
         title="Rates (thesis sec. 4.2.1, Fig. 4.3)",
         cmd=["./build/qos_rates"],
         label={"inline_latency_cycles": "inline 8 B transfer: last descriptor word -> Packet queue (cycles)",
                "inline_latency_from_aw_cycles": "the same from the write address (cycles)",
                "host_transfers_per_cycle": "host path, back-to-back descriptors (transfers per cycle)",
                "segmenter_blocks_per_cycle": "segmenter (blocks per cycle)",
                "handler_cycles_per_ack": "message handler (cycles per ACK)"},
         paper={"inline_latency_cycles": "2", "inline_latency_from_aw_cycles": "4",
                "host_transfers_per_cycle": "0.5", "segmenter_blocks_per_cycle": "1",
                "handler_cycles_per_ack": "3"}),
    dict(id="qos_throughput", group="qos", tier="quick", secs=0.8,
         title="Throughput against transfer size (thesis Fig. 4.4-4.6)",
         cmd=["./build/qos_throughput"],
         label={"peak_gbps": "peak (Gb/s)", "out_128b_gbps": "128 B transfers, 32 outstanding (Gb/s)",
                "single_small_latency_ns": "small transfer, one at a time (ns)",
                "line_rate_size_out": "outstanding: 95 % of line rate from (B)",
                "line_rate_size_single": "one at a time: 95 % of line rate from (B)"},
         paper={"peak_gbps": "68.3", "out_128b_gbps": "21.6", "single_small_latency_ns": "360",
                "line_rate_size_out": "16384"}),
    dict(id="bench_qos", group="qos", tier="measured", match="transfers_per_s",
         also=["qos_harness_identical", "qos_ff_identical"],
         title="100,000 random transfers, host speed; fast-forward on a sparse workload",
         cmd_text="make bench (./build/bench_qos)"),
    dict(id="callgrind_qos", group="qos", tier="measured", match="qos_ir_per_block",
         title="Instructions per block (callgrind)", cmd_text="make bench (bash tools/callgrind_qos.sh)"),
    # ---- rnicq.h: Palos ----
    dict(id="palos_hello", group="palos", tier="quick", secs=0.2,
         title="Five 3,000 B WQEs of one QP sliced", cmd=["./build/palos_hello"]),
    dict(id="palos_isolation", group="palos", tier="quick", secs=2.4,
         title="Fig. 2 (packet round robin) and Fig. 7 (Palos): 64 B small flows beside large ones",
         cmd=["./build/palos_isolation"],
         label={"palos_small_share": "Palos, wire-charged chunks: small flows' share",
                "palos_large_share": "Palos, wire-charged chunks: large flows' share",
                "rr_small_share_64": "round robin, 64 B: small flows' share of peak",
                "rr_large_share_64": "round robin, 64 B: large flows' share of peak"},
         paper={"palos_small_share": "16/17 = 0.9412", "palos_large_share": "1/17 = 0.0588",
                "rr_small_share_64": "ConnectX-5: 0.45", "rr_large_share_64": "ConnectX-5: 0.67"}),
    dict(id="palos_latency", group="palos", tier="quick", secs=3.4,
         title="Fig. 3 / Fig. 8: latency growth of a 64 B flow beside large flows",
         cmd=["./build/palos_latency"],
         label={"latency_growth_rr": "round robin, 24 large flows (x)",
                "latency_growth_palos_prio": "Palos + priority, 24 large flows (x)",
                "growth16_rr": "round robin, 16 large flows (x)",
                "growth16_palos_prio": "Palos + priority, 16 large flows (x)"},
         paper={"latency_growth_rr": "ConnectX-5: 7.8", "growth16_rr": "ConnectX-5: 5",
                "growth16_palos_prio": "1.79"}),
    dict(id="palos_groups", group="palos", tier="quick", secs=1.6,
         title="Fig. 9: group A's message rate, 1 .. 8 large flows in group B",
         cmd=["./build/palos_groups"],
         label={"groupA_drift_pct": "Palos: group A's drift (%)",
                "rr_groupA_at8": "round robin: group A at 8 flows (of its rate at 1)",
                "rr_groupB_at8": "round robin: group B at 8 flows (x)"},
         paper={"groupA_drift_pct": "flat", "rr_groupA_at8": "ConnectX-5: 0.10",
                "rr_groupB_at8": "ConnectX-5: 1.55"}),
    dict(id="palos_weights", group="palos", tier="quick", secs=0.3,
         title="Fig. 10: 32 QPs against Eq. 1", cmd=["./build/palos_weights"],
         label={"max_err_pct": "worst QP's distance from Eq. 1 (%)"},
         paper={"max_err_pct": "\"precisely\""}),
    dict(id="palos_weight_change", group="palos", tier="quick", secs=0.4,
         title="Fig. 11: QP 4's weight 1 .. 6", cmd=["./build/palos_weight_change"],
         label={"groupA_gbps_min": "group A, lowest (Gb/s)", "groupA_gbps_max": "group A, highest (Gb/s)"},
         paper={"groupA_gbps_min": "50", "groupA_gbps_max": "50"}),
    dict(id="bench_palos", group="palos", tier="measured", match="ns_per_out_wqe",
         title="1,024 QPs backlogged: host ns per output WQE; fast-forward on a sparse workload",
         cmd_text="make bench (./build/bench_palos)"),
    dict(id="callgrind_palos", group="palos", tier="measured", match="palos_ir_per_out_wqe",
         title="Instructions per output WQE (callgrind)", cmd_text="make bench (bash tools/callgrind_palos.sh)"),
    # ---- transport.h ----
    dict(id="tonic_tables", group="transport", tier="quick", secs=0.8, line_id=["proto", "table"],
         title="Table 3 (protocol sizes) and Table 4 (scale limits)", cmd=["./build/tonic_tables"],
         paper={"loc[proto=reno]": "48", "loc[proto=newreno]": "74", "loc[proto=sack]": "193",
                "loc[proto=ndp]": "20", "loc[proto=dcqcn]": "63", "loc[proto=irn]": "54",
                "ctx_bytes[proto=reno]": "8", "ctx_bytes[proto=newreno]": "13",
                "ctx_bytes[proto=sack]": "19", "ctx_bytes[proto=ndp]": "1",
                "ctx_bytes[proto=dcqcn]": "30", "ctx_bytes[proto=irn]": "14",
                "flows": "2048", "window": "256", "ctx_bytes[table=4]": "448"}),
    dict(id="tonic_newreno_single", group="transport", tier="full", secs=25,
         title="Fig. 3a/3b: one NewReno flow beside ns-3 3.37's TcpNewReno",
         cmd=["./build/tonic_newreno_single", "--csv", "build/tonic_newreno_single.csv",
              "--ns3-csv", "build/tonic_newreno_single_ns3.csv"], build=["build/tonic_newreno_ns3"],
         label={"cwnd_mean_diff_pct": "time-averaged cwnd, model vs ns-3 (%)"}),
    dict(id="tonic_newreno_200", group="transport", tier="long", secs=190,
         title="Fig. 3c: 200 NewReno flows for 5 s beside ns-3 (ns-3 takes minutes)",
         cmd=["./build/tonic_newreno_200", "--csv", "build/tonic_newreno_200.csv",
              "--ns3-csv", "build/tonic_newreno_200_ns3.csv"], build=["build/tonic_newreno_ns3"],
         label={"cdf_ks_distance": "Kolmogorov-Smirnov distance of the two CDFs"}),
    dict(id="tonic_dcqcn_pair", group="transport", tier="full", secs=40,
         title="Fig. 4: two DCQCN flows, 40 Gb/s, 1 s",
         cmd=["./build/tonic_dcqcn_pair", "--csv", "build/tonic_dcqcn_pair.csv"],
         paper={"rate_a_gbps": "20", "rate_b_gbps": "20"}),
    dict(id="tonic_dcqcn_200", group="transport", tier="full", secs=30,
         title="200 DCQCN flows, 40 Gb/s, 1 s",
         cmd=["./build/tonic_dcqcn_200", "--csv", "build/tonic_dcqcn_200.csv"],
         label={"wire_mbps": "per flow on the wire (goodput x 1042 / 1000)",
                "sem_mbps": "standard error of the mean (stdev / sqrt(flows))"},
         paper={"mean_mbps": "203", "stdev_mbps": "0.2",
                "wire_mbps": "203 (x 200 = 40.6 Gb/s, above the 40 Gb/s line)",
                "sem_mbps": "0.2, if the paper's +- is the mean's uncertainty"}),
    dict(id="tonic_dcqcn_200_250ms", group="transport", tier="full", secs=8,
         title="200 DCQCN flows, 250 ms (the spread against run length: sampling noise of RED's marks)",
         cmd=["./build/tonic_dcqcn_200", "--ms", "250"]),
    dict(id="tonic_dcqcn_200_rr", group="transport", tier="full", secs=20,
         title="200 DCQCN flows with ECN marking off (round robin and PFC alone)",
         cmd=["./build/tonic_dcqcn_200", "--no-marking"]),
    dict(id="tonic_dcqcn_200_ns3", group="transport", tier="full", secs=30,
         title="200 DCQCN flows with the DCQCN ns-3 code's parameters (the paper's [44])",
         cmd=["./build/tonic_dcqcn_200", "--ns3-defaults"],
         paper={"mean_mbps": "203", "stdev_mbps": "0.2"}),
    dict(id="tonic_dcqcn_pair_ns3", group="transport", tier="full", secs=10,
         title="Fig. 4's pair with the DCQCN ns-3 code's parameters",
         cmd=["./build/tonic_dcqcn_pair", "--ns3-defaults"],
         paper={"rate_a_gbps": "20", "rate_b_gbps": "20"}),
    dict(id="tonic_irn_loss", group="transport", tier="full", secs=8, line_id=["loss_pct", "exp"],
         title="IRN against RoCE go-back-N under random loss (4:1, 100 Gb/s, no PFC)",
         cmd=["./build/tonic_irn_loss"]),
    dict(id="tonic_irn_loss_quick", group="transport", tier="quick", secs=0.6, line_id=["loss_pct", "exp"],
         title="IRN against go-back-N, short (the run make test checks)",
         cmd=["./build/tonic_irn_loss", "--quick"]),
    dict(id="tonic_ndp_incast", group="transport", tier="full", secs=3, line_id=["exp"],
         title="NDP 16:1 incast of 1 MB each at 100 Gb/s", cmd=["./build/tonic_ndp_incast"]),
    dict(id="tonic_ndp_incast_quick", group="transport", tier="quick", secs=0.3, line_id=["exp"],
         title="NDP incast, short (the run make test checks)", cmd=["./build/tonic_ndp_incast", "--quick"]),
    dict(id="transport_bench", group="transport", tier="measured", match="mcycles_per_s_1k",
         title="Closed loop, every flow backlogged: simulated cycles per host second",
         cmd_text="make bench (./build/transport_bench)"),
    dict(id="callgrind_transport", group="transport", tier="measured", match="ir_per_cycle_1k",
         title="Instructions per simulated cycle (callgrind)",
         cmd_text="make bench (bash tools/callgrind_transport.sh)"),
    # ---- hostcc.h ----
    dict(id="hostcc_quick", group="hostcc", tier="full", secs=20, line_id=["variant", "exp"],
         title="The paper's Fig. 2 / 4 / 6 on the composed RNIC, short runs (make check's claims)",
         cmd=["python3", "tools/hostcc_experiments.py", "--quick", "--jobs", "1"], build=["build/rnic_model"]),
    dict(id="hostcc", group="hostcc", tier="full", secs=60, line_id=["variant", "exp"],
         title="The paper's Fig. 2 / 4 / 6 on the composed RNIC (one sender, 4 QPs, 20 ms per run)",
         cmd=["python3", "tools/hostcc_experiments.py", "--jobs", "1", "--csv-dir", "build/hostcc"],
         build=["build/rnic_model"],
         paper={"tput_drop_3x_pfc_pct": "62", "tput_drop_3x_nopfc_pct": "68",
                "lat_x_3x_pfc": "2.4", "lat_x_3x_nopfc": "2.6",
                "stall_cut_1x_pct": "80", "stall_cut_2x_pct": "93",
                "stall_cut_3x_pct": "97", "pause_cut_3x_pct": "64",
                "tput_gain_3x": "up to 2", "lat_gain_3x": "1.4"}),
    dict(id="hostcc_probe_head", group="hostcc", tier="full", secs=150, line_id=["variant", "exp"],
         title="Fig. 6 with the probe stamped at the RX buffer's head (the default before issue 31: D_cur = 0, the sender never cuts)",
         cmd=["python3", "tools/hostcc_experiments.py", "--jobs", "1", "--probe-ts", "head", "--only", "6"],
         build=["build/rnic_model"],
         paper={"stall_cut_1x_pct": "80", "stall_cut_2x_pct": "93",
                "stall_cut_3x_pct": "97", "pause_cut_3x_pct": "64",
                "tput_gain_3x": "up to 2", "lat_gain_3x": "1.4"}),
    dict(id="hostcc_evict_wb_cpu", group="hostcc", tier="full", secs=150, line_id=["variant", "exp"],
         title="Fig. 2 / 6 with a CPU-evicted I/O line's write-back held by the CPU's window (`host.cpu_evict_wb = cpu`)",
         cmd=["python3", "tools/hostcc_experiments.py", "--jobs", "1", "--cpu-evict-wb", "cpu", "--only", "2,6"],
         build=["build/rnic_model"],
         paper={"tput_drop_3x_pfc_pct": "62", "tput_drop_3x_nopfc_pct": "68",
                "lat_x_3x_pfc": "2.4", "lat_x_3x_nopfc": "2.6",
                "stall_cut_1x_pct": "80", "stall_cut_2x_pct": "93",
                "stall_cut_3x_pct": "97", "pause_cut_3x_pct": "64",
                "tput_gain_3x": "up to 2", "lat_gain_3x": "1.4"}),
    dict(id="hostcc_evict_wb_queued", group="hostcc", tier="full", secs=60, line_id=["variant", "exp"],
         title="Fig. 2 as the model was before issue 31 (`host.cpu_evict_wb = queued`, head probe stamps: the IIO starved by unbounded write-backs)",
         cmd=["python3", "tools/hostcc_experiments.py", "--jobs", "1", "--cpu-evict-wb", "queued",
              "--probe-ts", "head", "--only", "2"],
         build=["build/rnic_model"],
         paper={"tput_drop_3x_pfc_pct": "62", "tput_drop_3x_nopfc_pct": "68",
                "lat_x_3x_pfc": "2.4", "lat_x_3x_nopfc": "2.6"}),
    dict(id="hostcc_host_sweep", group="hostcc", tier="full", secs=6, line_id=["case"],
         title="The receiving host alone: 100 Gb/s of 1 KB packets against CPU load 0x-3x, DDIO 4 MB or off, footprint 1 or 16 MB (docs/hostcc_host.md)",
         cmd=["build/tests/gcc/test_hostcc_host"], build=["build/tests/gcc/test_hostcc_host"],
         paper={"tput_drop_pct[case=ddio4_fp16_3x]": "62"}),
    # ---- the composed RNIC ----
    dict(id="rnic_model", group="model", tier="full", secs=60, run_block=True,
         title="`make run`: the default scenario (a 16-host leaf-spine, every host sending and receiving, two tenants, DCQCN, the host model and RHCC)",
         cmd=None,  # the Makefile's run command, read from MAIN_CMD
         label={"rx_gbps": "payload the receivers absorbed (Gb/s)",
                "share_err_pct": "worst tenant's distance from its expected share (%)",
                "link_util_max_pct": "busiest link's use of its line rate (%)",
                "queue_max_kb": "deepest queue sampled (KB)", "bytes_lost": "bytes lost"}),
    dict(id="model_pcap", group="model", tier="full", secs=15, build=[],
         title="tshark over `make run`'s pcap (run after rnic_model)",
         cmd=["bash", "tools/pcap_check.sh", "build/run.pcap"], needs=["rnic_model"]),
    dict(id="fat_tree_line_rate", group="model", tier="full", secs=155, build=["build/rnic_model"],
         title="k = 4 fat tree, a permutation, ECMP: per-host payload line rate reached with 8 QPs (mean, least and most over 3 permutations; coalesced ACKs), with 1 QP, and with an ACK per packet, each beside the share reference on the same ECMP paths, and that reference over 20 permutations (issue 30 asks 90 %)",
         cmd=["bash", "tools/fat_tree_line_rate.sh"]),
    dict(id="model_rhcc_off", group="model", tier="full", secs=8,
         title="The built-in 2:1 incast (rnic_model without --scenario, on the fabric) without RHCC: the receiving host's memory binds, so share_err_pct compares each tenant's fraction of what it absorbed",
         build=["build/rnic_model"], cmd=["bash", "tools/fabric_run.sh", "--by-fraction", "-", "--quiet", "--rhcc", "off"]),
    dict(id="model_host_off", group="model", tier="full", secs=4,
         title="The built-in 2:1 incast without the receiving-host model", build=["build/rnic_model"], cmd=INCAST + ["--quiet", "--host", "off"]),
    dict(id="model_pfc_off", group="model", tier="full", secs=4,
         title="The built-in 2:1 incast without PFC", build=["build/rnic_model"], cmd=INCAST + ["--quiet", "--pfc", "off"]),
    dict(id="model_dcqcn_paper", group="model", tier="full", secs=4,
         title="The built-in 2:1 incast with DCQCN's paper increase steps (40 Mb/s)",
         build=["build/rnic_model"], cmd=INCAST + ["--quiet", "--dcqcn", "paper"]),
    dict(id="model_rate_caps", group="model", tier="full", secs=4,
         title="Rate caps 2,000 and 1,500 Mb/s per tenant, no congestion (issue 9)",
         build=["build/rnic_model"], cmd=INCAST + ["--quiet", "--rates-mbps", "2000,1500", "--qps", "12", "--sizes", "64,262144", "--depth", "16"]),
    dict(id="model_loss", group="model", tier="full", secs=4,
         title="0.1 % random loss on every link, PFC off: go-back-N recovers every byte",
         build=["build/rnic_model"], cmd=INCAST + ["--quiet", "--loss-ppm", "1000", "--pfc", "off"]),
    dict(id="trace_size", group="model", tier="quick", secs=2.5, build=["build/rnic_model"],
         title="The trace CSV's size per simulated ms (`--trace-csv`, docs/trace_csv.md): the default scenario and the k = 4 fat tree, 200 us each from the start, no drain",
         cmd=["bash", "tools/trace_size.sh"],
         label={"trace_sim_us": "simulated time of each run (us)",
                "trace_csv_bytes_per_sim_ms_default": "default scenario: CSV bytes per simulated ms",
                "trace_csv_events_per_sim_ms_default": "default scenario: trace events (rows) per simulated ms",
                "trace_csv_bytes_per_event_default": "default scenario: bytes per row",
                "trace_csv_bytes_per_sim_ms_fat_tree_k4": "k = 4 fat tree: CSV bytes per simulated ms",
                "trace_csv_events_per_sim_ms_fat_tree_k4": "k = 4 fat tree: trace events (rows) per simulated ms",
                "trace_csv_bytes_per_event_fat_tree_k4": "k = 4 fat tree: bytes per row"}),
    dict(id="ns3_speed", group="model", tier="measured", match="ns3_cpu_s",
         title="Host speed against ns-3 3.37 simulating the same 2:1 incast at packet level (10 ms)",
         cmd_text="make bench (bash tools/bench_ns3_speed.sh build/incast_ns3 build/rnic_model)"),
    dict(id="callgrind_model", group="model", tier="measured", match="model_ir_per_pkt_host",
         title="Instructions per delivered packet (callgrind), the 2:1 incast with and without the host model, beside ns-3 3.37 in the same run (issue 32's targets: 13,000 / 11,000)",
         cmd_text="make bench (bash tools/callgrind_model.sh)"),
    dict(id="fabric_scale", group="model", tier="measured", match="fabric_scale_ratio",
         title="Instructions per delivered packet on fat-trees of 16 and 128 hosts (callgrind, host model off; issue 32's target: at most 1.3x apart)",
         cmd_text="make bench (bash tools/bench_fabric_scale.sh)"),
    # ---- inside ns-3 (issue 34): docs/ns3.md ----
    dict(id="ns3_fabric_k4", group="ns3", tier="long", secs=110, line_id=["rank_run", "run"],
         build=["build/rnic_model", "build/rnicq_fabric_ns3", "build/rnicq_fabric_ns3_mpi"],
         title="The k = 4 web search at 50 % load (DCQCN, 20 ms of arrivals): the fabric, the same in ns-3 (one process, Debian's ns-3), on ns-3's distributed simulator on 1 and 2 MPI ranks; per-flow CSV and digest checked against the fabric's",
         cmd=["bash", "tools/exp_ns3_fabric.sh", "--k", "4", "--csv-dir", "build/ns3_fabric"]),
    dict(id="ns3_fabric_k8", group="ns3", tier="long", secs=330, line_id=["rank_run", "run"],
         build=["build/rnic_model", "build/rnicq_fabric_ns3_mpi"],
         title="A k = 8 fat tree (128 hosts, 80 switches), the web search at 50 % load for 5 ms, on 1 and 2 MPI ranks beside the fabric",
         cmd=["bash", "tools/exp_ns3_fabric.sh", "--k", "8", "--duration-us", "5000", "--no-single",
              "--csv-dir", "build/ns3_fabric"]),
    dict(id="bench_ns3_fabric", group="ns3", tier="measured", match="ns3_overhead_ir_per_pkt",
         title="ns-3's own instructions around the fabric (callgrind, the k = 4 web search at 50 %, 1 ms): per delivered packet and per record carried over a channel",
         cmd_text="make bench (bash tools/bench_ns3_fabric.sh)"),
    # ---- published set-ups on the fabric (issue 33): docs/workloads.md "Published set-ups" ----
    dict(id="hpcc_websearch", group="fabric_papers", tier="long", secs=130, line_id=["load_pct"],
         build=["build/rnic_model"],
         title="The HPCC paper's web search, DCQCN, k = 4 fat tree (16 hosts, every link 100 Gb/s), 30 % and 50 % load, 100 ms of arrivals each (`make exp-hpcc-websearch`)",
         cmd=["bash", "tools/exp_hpcc_websearch.sh", "--csv-dir", "build/hpcc_websearch"]),
    dict(id="hpcc_websearch_short", group="fabric_papers", tier="full", secs=15, line_id=["load_pct"],
         build=["build/rnic_model"],
         title="The web search, 10 ms of arrivals per load (the run make check checks)",
         cmd=["bash", "tools/exp_hpcc_websearch.sh", "--duration-us", "10000", "--csv-dir", "build/hpcc_websearch_short"]),
    dict(id="hostcc_fabric_incast", group="fabric_papers", tier="full", secs=30, line_id=["variant", "exp"],
         build=["build/rnic_model"],
         title="The RHCC paper's Fig. 2 / 6 as a 4:1 incast across a k = 4 fat tree into the CPU-loaded receiver (scenarios/rhcc_fattree_incast.conf, 20 ms per run; `make exp-rhcc-fabric`)",
         cmd=["bash", "tools/exp_rhcc_fabric.sh", "--csv-dir", "build/hostcc_fabric"],
         paper={"tput_drop_3x_pfc_pct": "62", "tput_drop_3x_nopfc_pct": "68",
                "lat_x_3x_pfc": "2.4", "lat_x_3x_nopfc": "2.6",
                "stall_cut_1x_pct": "80", "stall_cut_2x_pct": "93",
                "stall_cut_3x_pct": "97", "pause_cut_3x_pct": "64",
                "tput_gain_3x": "up to 2", "lat_gain_3x": "1.4"}),
    # ---- firmware, fuzzing, coverage, soak (long or host-dependent: from their logs) ----
    dict(id="firmware", group="firmware", tier="measured", match="fw_rv32_passed",
         title="Every engine's self-test on rv32imac and Cortex-M4 under qemu", cmd_text="make firmware"),
    dict(id="fuzz", group="firmware", tier="measured", match="fuzz_execs_min", also=["fuzz_harness"],
         line_id=["fuzz_harness"], title="libFuzzer long runs, every harness", cmd_text="make fuzz"),
    dict(id="coverage", group="firmware", tier="measured", match="line_cov_pct",
         title="Line and branch coverage of src/", cmd_text="make coverage"),
    dict(id="soak", group="firmware", tier="measured", match="soak_cycles",
         title="The composed RNIC for 10^9 cycles, RSS sampled every second", cmd_text="make soak"),
]
BY_ID = {e["id"]: e for e in MANIFEST}

# The README's headline table: (experiment id, figure, what).
HEADLINE = [
    ("tassel_accuracy", "max_rate_err_pct", "Tassel, Fig. 7: worst rate error, 100 Kb/s .. 400 Gb/s (%)"),
    ("tassel_scale_quick", "max_err_pct_phi2", "Tassel, Fig. 8b: worst of 1,024 QPs at Phi = 2, short run (%)"),
    ("tassel_rate_change", "cut_raise_max_ratio", "Tassel: a QP cut then raised, largest 1 ms rate over its limit (x)"),
    ("qos_throughput", "peak_gbps", "QoS engine: peak throughput (Gb/s)"),
    ("qos_rates", "inline_latency_cycles", "QoS engine: inline transfer latency (cycles)"),
    ("palos_isolation", "palos_small_share", "Palos, Fig. 7: 64 B flows' share beside large flows"),
    ("palos_latency", "growth16_palos_prio", "Palos, Fig. 8: latency growth with priority, 16 flows (x)"),
    ("tonic_newreno_single", "cwnd_mean_diff_pct", "Tonic, Fig. 3a: mean cwnd against ns-3's NewReno (%)"),
    ("tonic_dcqcn_200", "mean_mbps", "Tonic: 200 DCQCN flows, mean per flow (Mb/s)"),
    ("hostcc", "tput_drop_3x_pfc_pct", "RHCC, Fig. 2: throughput drop at 3x CPU load, PFC (%)"),
    ("hostcc", "tput_gain_3x", "RHCC, Fig. 6: throughput gain with RHCC at 3x (x)"),
    ("rnic_model", "share_err_pct", "Fabric (`make run`): worst tenant's distance from its expected share (%)"),
]

# Figures: the data each PNG is drawn from (deterministic), the commands that write it and
# the gnuplot command that draws it. tier as above ("quick" data is checked by make test).
FIGURES = [
    dict(png="fixed_point_error.png", tier="quick", csv=["build/fixed_point_range.csv"],
         run=[["./build/fixed_point_range", "--csv", "build/fixed_point_range.csv"]],
         plot=["-e", "csv='build/fixed_point_range.csv'; out='docs/figures/fixed_point_error.png'", "docs/figures/fixed_point_error.gp"]),
    dict(png="tassel_fig7.png", tier="quick", csv=["build/tassel_accuracy.csv"],
         run=[["./build/tassel_accuracy", "--csv", "build/tassel_accuracy.csv"]],
         plot=["-e", "csv='build/tassel_accuracy.csv'; out='docs/figures/tassel_fig7.png'", "docs/figures/tassel_fig7.gp"]),
    dict(png="tassel_fig8a.png", tier="long", csv=["build/tassel_scale.csv"],
         run=[["./build/tassel_scale", "--qps", "1024", "--csv", "build/tassel_scale.csv"]],
         plot=["-e", "csv='build/tassel_scale.csv'; out='docs/figures/tassel_fig8a.png'; over=0", "docs/figures/tassel_fig8.gp"]),
    dict(png="tassel_fig8b.png", tier="long", csv=["build/tassel_scale.csv"], run=[], after="tassel_fig8a.png",
         plot=["-e", "csv='build/tassel_scale.csv'; out='docs/figures/tassel_fig8b.png'; over=1", "docs/figures/tassel_fig8.gp"]),
    dict(png="tassel_rate_change.png", tier="quick", csv=["build/tassel_rate_change.csv"],
         run=[["./build/tassel_rate_change", "--csv", "build/tassel_rate_change.csv"]],
         plot=["-e", "csv='build/tassel_rate_change.csv'; out='docs/figures/tassel_rate_change.png'", "docs/figures/tassel_rate_change.gp"]),
    dict(png="tassel_storm.png", tier="full", csv=["build/tassel_storm.csv"], exp="tassel_storm", run=[],
         plot=["-e", "csv='build/tassel_storm.csv'; out='docs/figures/tassel_storm.png'", "docs/figures/tassel_storm.gp"]),
    dict(png="qos_throughput.png", tier="quick", csv=["build/qos_throughput.csv"],
         run=[["./build/qos_throughput", "--csv", "build/qos_throughput.csv"]],
         plot=["-e", "csv='build/qos_throughput.csv'; out='docs/figures/qos_throughput.png'", "docs/figures/qos_throughput.gp"]),
    dict(png="palos_fig7.png", tier="quick", csv=["build/palos_isolation.csv"],
         run=[["./build/palos_isolation", "--csv", "build/palos_isolation.csv"]],
         plot=["-e", "csv='build/palos_isolation.csv'; out='docs/figures/palos_fig7.png'", "docs/figures/palos_fig7.gp"]),
    dict(png="palos_fig8.png", tier="quick", csv=["build/palos_latency.csv"],
         run=[["./build/palos_latency", "--csv", "build/palos_latency.csv"]],
         plot=["-e", "csv='build/palos_latency.csv'; out='docs/figures/palos_fig8.png'", "docs/figures/palos_fig8.gp"]),
    dict(png="palos_fig9.png", tier="quick", csv=["build/palos_groups.csv"],
         run=[["./build/palos_groups", "--csv", "build/palos_groups.csv"]],
         plot=["-e", "csv='build/palos_groups.csv'; out='docs/figures/palos_fig9.png'", "docs/figures/palos_fig9.gp"]),
    dict(png="palos_fig10.png", tier="quick", csv=["build/palos_weights.csv"],
         run=[["./build/palos_weights", "--csv", "build/palos_weights.csv"]],
         plot=["-e", "csv='build/palos_weights.csv'; out='docs/figures/palos_fig10.png'", "docs/figures/palos_fig10.gp"]),
    dict(png="palos_fig11.png", tier="quick", csv=["build/palos_weight_change.csv"],
         run=[["./build/palos_weight_change", "--csv", "build/palos_weight_change.csv"]],
         plot=["-e", "csv='build/palos_weight_change.csv'; out='docs/figures/palos_fig11.png'", "docs/figures/palos_fig11.gp"]),
    dict(png="tonic_fig3ab.png", tier="full", csv=["build/tonic_newreno_single.csv", "build/tonic_newreno_single_ns3.csv"],
         exp="tonic_newreno_single", run=[],
         plot=["-e", "model='build/tonic_newreno_single.csv'; ns3='build/tonic_newreno_single_ns3.csv'; out='docs/figures/tonic_fig3ab.png'", "docs/figures/tonic_fig3ab.gp"]),
    dict(png="tonic_fig3c.png", tier="long", csv=["build/tonic_newreno_200.csv", "build/tonic_newreno_200_ns3.csv"],
         exp="tonic_newreno_200", run=[],
         plot=["-e", "model='build/tonic_newreno_200.csv'; ns3='build/tonic_newreno_200_ns3.csv'; out='docs/figures/tonic_fig3c.png'", "docs/figures/tonic_fig3c.gp"]),
    dict(png="tonic_fig4.png", tier="full", csv=["build/tonic_dcqcn_pair.csv"],
         exp="tonic_dcqcn_pair", run=[],
         plot=["-e", "csv='build/tonic_dcqcn_pair.csv'; out='docs/figures/tonic_fig4.png'", "docs/figures/tonic_fig4.gp"]),
    dict(png="tonic_dcqcn_200.png", tier="full", csv=["build/tonic_dcqcn_200.csv"],
         exp="tonic_dcqcn_200", run=[],
         plot=["-e", "csv='build/tonic_dcqcn_200.csv'; out='docs/figures/tonic_dcqcn_200.png'", "docs/figures/tonic_dcqcn_200.gp"]),
    dict(png="rnic_model.png", tier="quick", csv=["build/incast_qps.csv", "build/incast_queue.csv"],
         run=[["./build/rnic_model", "--quiet", "--csv", "build/incast_qps.csv", "--queue-csv", "build/incast_queue.csv"]],
         plot=["-e", "csv='build/incast_qps.csv'; qcsv='build/incast_queue.csv'; out='docs/figures/rnic_model.png'", "docs/figures/rnic_model.gp"]),
    dict(png="hostcc_fig2.png", tier="full", csv=["build/hostcc/hostcc_fig2.csv"],
         exp="hostcc", run=[],
         plot=["-e", "dir='build/hostcc'; out='docs/figures/hostcc_fig2.png'", "docs/figures/hostcc_fig2.gp"]),
    dict(png="hostcc_fig4.png", tier="full", csv=["build/hostcc/hostcc_fig4.csv"], run=[], exp="hostcc",
         plot=["-e", "dir='build/hostcc'; out='docs/figures/hostcc_fig4.png'", "docs/figures/hostcc_fig4.gp"]),
    dict(png="hostcc_fig6.png", tier="full", csv=["build/hostcc/hostcc_fig6.csv"], run=[], exp="hostcc",
         plot=["-e", "dir='build/hostcc'; out='docs/figures/hostcc_fig6.png'", "docs/figures/hostcc_fig6.gp"]),
    dict(png="hpcc_websearch.png", tier="long", exp="hpcc_websearch", run=[],
         csv=["build/hpcc_websearch/buckets_30.csv", "build/hpcc_websearch/buckets_50.csv"],
         plot=["-e", "dir='build/hpcc_websearch'; out='docs/figures/hpcc_websearch.png'",
               "docs/figures/hpcc_websearch.gp"]),
]
TIER_ORDER = {"quick": 0, "full": 1, "long": 2}


# ---------------------------------------------------------------------------------------------
def parse_result(line):
    """'RESULT a=1 b=x' -> [('a', '1'), ('b', 'x')] (order kept)."""
    out = []
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            out.append((k, v))
    return out


def figures_of(exp, lines):
    """The figures of an experiment's RESULT lines: [(name, value)], name = key, or key[k=v] when
    several lines share a key (k = the first of the experiment's line_id keys the line has)."""
    parsed = [parse_result(l) for l in lines]
    seen = {}
    for p in parsed:
        for k, _ in p:
            seen[k] = seen.get(k, 0) + 1
    figs = []
    for p in parsed:
        d = dict(p)
        lab = None
        for lk in exp.get("line_id", []):
            if lk in d:
                lab = f"{lk}={d[lk]}"
                break
        for k, v in p:
            if lab and k == lab.split("=")[0]:
                continue
            name = f"{k}[{lab}]" if (seen[k] > 1 and lab) else k
            figs.append((name, v))
    return figs


def base_key(name):
    return name.split("[", 1)[0]


def makefile_run_cmd():
    """The command `make run` runs: $(MAIN_CMD), read from the Makefile."""
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        mk = f.read()
    cmd = re.search(r"^MAIN_CMD\s*:?=\s*(.*)$", mk, re.M)
    if not cmd:
        raise SystemExit("results.py: the Makefile has no MAIN_CMD (the command `make run` runs)")
    return cmd.group(1).split()


def exp_cmd(exp):
    return makefile_run_cmd() if exp.get("run_block") else exp["cmd"]


def exp_builds(exp):
    if exp.get("build") is not None and not exp.get("cmd"):
        return list(exp["build"])
    cmd = exp_cmd(exp)
    b = [c[2:] for c in cmd if c.startswith("./build/")]
    return b + list(exp.get("build", []))


def make(targets):
    targets = sorted(set(targets))
    if not targets:
        return True
    r = subprocess.run(["make", "-s", "--no-print-directory"] + targets, cwd=ROOT)
    return r.returncode == 0


# --check writes the programs' output files (CSV, pcap) into a scratch directory instead of
# build/, so that a make target running beside it cannot change the data it hashes.
OUT_DIR = None


# the directories experiments write their CSVs into (--csv-dir)
CSV_DIRS = ("build/hostcc", "build/hostcc_fabric", "build/hpcc_websearch",
            "build/hpcc_websearch_short")


def out_path(arg):
    """build/X.csv, build/X.pcap, a CSV directory -> the scratch directory in --check mode."""
    if OUT_DIR and arg.startswith("build/") and (arg.endswith((".csv", ".pcap")) or arg in CSV_DIRS):
        return os.path.join(OUT_DIR, arg[len("build/"):].replace("/", "_"))
    return arg


def mapped(cmd):
    return [out_path(c) for c in cmd]


def cpu_children():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# --reuse DIR: outputs the test suite saved from its own run of the same command line
# (DIR/ex-NAME.cmd holds the command, DIR/ex-NAME.out what it printed), read instead of
# running the program a second time in the same make test.
REUSE_DIR = None


def saved_output(cmd):
    """The saved stdout of exactly this command line, or None."""
    if not REUSE_DIR or mapped(cmd) != cmd:  # a command writing files keeps its scratch copy
        return None
    name = os.path.basename(cmd[0])
    cf, of = os.path.join(REUSE_DIR, f"ex-{name}.cmd"), os.path.join(REUSE_DIR, f"ex-{name}.out")
    try:
        with open(cf) as f:
            if f.read().split() != cmd:
                return None
        with open(of) as f:
            return f.read()
    except OSError:
        return None


def run_exp(exp):
    """Runs one experiment: (stdout, RESULT lines, cpu s, wall s, returncode)."""
    cmd = mapped(exp_cmd(exp))
    c0, w0 = cpu_children(), time.time()
    out = saved_output(cmd)
    if out is not None:
        r = subprocess.CompletedProcess(cmd, 0, out, "")
    else:
        r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cpu, wall = cpu_children() - c0, time.time() - w0
    if OUT_DIR:  # the output as the unmapped command prints it
        r.stdout = r.stdout.replace(OUT_DIR + "/", "build/")
    lines = [l.strip() for l in r.stdout.splitlines() if l.startswith("RESULT")]
    if exp["id"].startswith("hostcc"):  # its last line is the sweep's own bookkeeping
        lines = [l for l in lines if "exp=hostcc_sweep" not in l]
    return r.stdout, lines, cpu, wall, r.returncode, r.stderr


def mask_host(text):
    """The run block without what reads the host's clock (compared by --check)."""
    text = re.sub(r"[0-9.]+ s host time", "- s host time", text)
    return re.sub(r"\b(%s)=[^ \n]*" % "|".join(sorted(HOST_KEYS)), r"\1=-", text)


# ---------------------------------------------------------------------------------------------
def load_data():
    """The JSON data at the end of the committed docs/results.md (empty when none)."""
    try:
        with open(RESULTS_MD, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {"experiments": {}, "figures": {}}
    m = re.search(r"<!-- results-data\n(.*)\n-->", text, re.S)
    if not m:
        return {"experiments": {}, "figures": {}}
    return json.loads(m.group(1))


def read_logs(paths, date_text):
    """RESULT lines of saved make bench / soak / fuzz / firmware / coverage output, given to the
    measured experiments whose match key they carry."""
    got = {}
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            lines = [l.strip() for l in f if l.startswith("RESULT")]
        date = date_text or datetime.datetime.utcfromtimestamp(os.path.getmtime(p)).strftime("%Y-%m-%d")
        for exp in MANIFEST:
            if exp["tier"] != "measured":
                continue
            keys = [exp["match"]] + exp.get("also", [])
            mine = [l for l in lines if any(k in dict(parse_result(l)) for k in keys)]
            if mine:
                got[exp["id"]] = {"lines": mine, "date": date, "source": os.path.basename(p)}
    return got


# ---------------------------------------------------------------------------------------------
def fmt_cmd(cmd):
    return " ".join(cmd)


def render_results_md(data):
    out = []
    w = out.append
    w("# Measured results")
    w("")
    w("Every figure rnicq reports, each beside the command that printed it. This file is written by")
    w("`python3 tools/results.py` (`make results`); do not edit it: edit the manifest in that script.")
    w("Deterministic figures come from simulations: `make test` re-runs the quick ones")
    w("(`tools/results.py --check`) and `make check` the rest (`--check --full`), and fails when a")
    w("committed figure differs. Figures marked *measured* read a host clock, an instruction counter or")
    w("a long run (benchmarks, fuzzing, soak, firmware under qemu, coverage): they are shown as measured")
    w("on the date given, from a saved log (`tools/results.py --log FILE`), and are not checked.")
    w("Where the paper gives a number it is beside ours; the comparisons, and what each departure")
    w("means, are in the `docs/*_model.md` of each engine.")
    w("")
    for gid, gtitle in GROUPS:
        exps = [e for e in MANIFEST if e["group"] == gid and e["id"] in data["experiments"]]
        if not exps:
            continue
        w(f"## {gtitle}")
        w("")
        for e in exps:
            d = data["experiments"][e["id"]]
            w(f"### `{e['id']}`: {e['title']}")
            w("")
            if e["tier"] == "measured":
                w(f"Command: `{e['cmd_text']}`. *Measured* {d.get('date', '?')} (from {d.get('source', '?')}); not checked.")
            else:
                when = {"quick": "checked by `make test`", "full": "checked by `make check`",
                        "long": "checked by `tools/results.py --check --all`"}[e["tier"]]
                w(f"Command: `{fmt_cmd(d['cmd'])}`. Deterministic, about {fmt_secs(d.get('cpu_s'))} of CPU; {when}.")
            w("")
            w("| figure | value | paper | meaning |")
            w("|---|---:|---|---|")
            paper = e.get("paper", {})
            label = e.get("label", {})
            for name, val in d["figures"]:
                host = e["tier"] != "measured" and base_key(name) in HOST_KEYS
                v = f"{val} (host, measured)" if host else val
                w(f"| `{name}` | {v} | {paper.get(name, '')} | {label.get(name, '')} |")
            w("")
    speed_table(data, w)
    papers_tables(data, w)
    w("## Figures")
    w("")
    w("Each PNG in `docs/figures/` is drawn by gnuplot from CSV data a deterministic program writes;")
    w("`python3 tools/results.py --figures` redraws them and records the data's sha256 here, and")
    w("`--check` re-runs the cheap ones' data so that a stale figure fails.")
    w("")
    w("| figure | data (sha256) | command | checked by |")
    w("|---|---|---|---|")
    for f in FIGURES:
        rec = data["figures"].get(f["png"])
        if not rec:
            continue
        sums = ", ".join(f"`{os.path.basename(c)}` `{rec['sha256'].get(c, '?')[:16]}`" for c in f["csv"])
        if f.get("exp"):
            cmd = fmt_cmd(exp_cmd(BY_ID[f["exp"]]))
        else:
            cmd = "; ".join(fmt_cmd(r) for r in f["run"]) or f"(the data of {f['after']})"
        chk = {"quick": "`make test`", "full": "`make check`", "long": "`--check --all`"}[f["tier"]]
        w(f"| `docs/figures/{f['png']}` | {sums} | `{cmd}` | {chk} |")
    w("")
    w("<!-- results-data")
    w(dump_data(data))
    w("-->")
    return "\n".join(out) + "\n"


def dump_data(data):
    """The data as JSON, one line per experiment and per figure (readable diffs)."""
    parts = []
    for sect in ("experiments", "figures"):
        items = sorted(data.get(sect, {}).items())
        body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in items)
        parts.append(f"{json.dumps(sect)}: {{\n{body}\n}}")
    return "{\n" + ",\n".join(parts) + "\n}"


def fmt_secs(s):
    if s is None:
        return "?"
    if s < 1:
        return "under 1 s"
    if s < 120:
        return f"{s:.0f} s"
    return f"{s / 60:.0f} min"


# htsim is not packaged in Debian and is not built here: its row is issue 32's own measurement,
# quoted as the external anchor (the one figure in this file that no program of ours printed).
HTSIM_ANCHOR = ("2.5 K", "7.07 M", "issue 32's table: htsim (the packet-level simulator of the NDP "
                "and Ultra Ethernet work), RoCE with PFC, no NIC pipeline, no host; its version and "
                "command were not recorded there, and it is not re-measured here")


def speed_table(data, w):
    """Issue 32's comparison: ns-3 and rnicq from the same `make bench`, htsim as the anchor."""
    g = lambda eid, name: fig_value(data, eid, name) or "not measured"
    if "callgrind_model" not in data["experiments"] or "ns3_speed" not in data["experiments"]:
        return
    w("## Speed beside ns-3 and htsim (issue 32)")
    w("")
    w("The default 2:1 incast at 100 Gb/s. Instructions per delivered packet: `callgrind_model` "
      f"({g('callgrind_model', 'sim_us')} us simulated, both simulators in one run); packets per CPU "
      "second: `ns3_speed` (10 ms simulated, host model off, both in one run). Both from the same "
      "`make bench` log (the dates above).")
    w("")
    w("| simulator | Ir per delivered packet | packets per CPU s |")
    w("|---|---:|---:|")
    w(f"| ns-3 3.37, plain UDP, no congestion control (`examples/ns3/incast_ns3.cc`) | "
      f"{g('callgrind_model', 'ns3_ir_per_pkt')} | {g('ns3_speed', 'ns3_pkts_per_cpu_s')} |")
    w(f"| rnicq composed model, `--host off` | {g('callgrind_model', 'model_ir_per_pkt_nohost')} | "
      f"{g('ns3_speed', 'model_pkts_per_cpu_s')} |")
    w(f"| rnicq composed model, default (host model and RHCC on) | {g('callgrind_model', 'model_ir_per_pkt_host')} | "
      "not measured (`ns3_speed` runs the model with the host off, as ns-3 has no host) |")
    w(f"| htsim (external anchor) | {HTSIM_ANCHOR[0]} | {HTSIM_ANCHOR[1]} |")
    w("")
    w(f"htsim's row: {HTSIM_ANCHOR[2]}.")
    w("")


# The HPCC paper's web-search set-up beside ours. The paper's own numbers are read from its public
# simulator (github.com/alibaba-edu/High-Precision-Congestion-Control: simulation/mix/fat.txt,
# simulation/run.py) and from its first author's answers in that repository's issues #21 and #36;
# the stored copies of the paper's text give its first page only, and its web-search FCT curves
# are images (the project page, liyuliang001.github.io/projects/hpcc, plots DCQCN+window, not
# DCQCN): no slowdown of the paper's is quoted here, none was read off.
HPCC_SETUP = [
    ("hosts and switches", "320 hosts; 20 ToR, 20 aggregation and 16 core switches, 16 hosts per ToR (fat.txt)",
     "16 hosts; a k = 4 fat tree: 8 edge, 8 aggregation and 4 core switches, 2 hosts per edge switch"),
    ("link rates", "hosts 100 Gb/s, every switch-to-switch link 400 Gb/s (fat.txt)",
     "the same: hosts 100 Gb/s, switch-to-switch links 400 Gb/s (`topology.fabric_gbps`)"),
    ("link delay", "1 us (fat.txt)", "1 us"),
    ("traffic", "web-search sizes, Poisson arrivals at 30 % / 50 % of each host's link, all to all",
     "the same (scenarios/cdf/websearch.txt, docs/workloads.md)"),
    ("DCQCN", "run.py `dcqcn` and `dcqcn_vwin` (DCQCN + window; both in the paper, issue #36): alpha every 1 us, "
     "decrease check every 4 us, rate timer 300 us, g = 1/256, F = 1; at `--bw 100` R_AI 20 Mb/s, R_HAI 200 Mb/s, "
     "minimum rate 1 Gb/s",
     "`variant = hpcc` (docs/scenario.md): Mellanox's timers, g and F (docs/transport_dcqcn.md), R_AI 20 Mb/s, "
     "R_HAI 200 Mb/s, minimum 1 Gb/s: the same; no window"),
    ("ECN", "RED from 400 to 1,600 KB at 20 % on 100 Gb/s links, 1,600 to 6,400 KB on 400 Gb/s links (run.py; "
     "Alibaba's production values, issue #21)", "RED from 400 to 1,600 KB at 20 % on every link, the 400 Gb/s ones "
     "too (the switch model has one threshold pair per switch)"),
    ("switches", "32 MB buffer (run.py at `--bw 100`), PFC with a dynamic threshold", "32 MB shared buffer, PFC"),
    ("packets", "1,000 B payloads; an ACK per packet, ACKs at high priority (`dcqcn`)",
     "1,000 B payloads; an ACK per packet, control packets served first"),
    ("flows", "a QP per flow; no NIC pipeline: a flow starts on the wire at its start time",
     "a flow on the least loaded of 4 QPs of its host pair; the doorbell, WQE fetch and payload DMA over PCIe "
     "come first (1 to 3 us alone, tests/fct_check.py)"),
]


def papers_tables(data, w):
    """Issue 33 item 5: the HPCC paper's web search and the RHCC paper's receiver contention on the
    fabric, each beside the paper (and RHCC beside the standalone experiment)."""
    ws = data["experiments"].get("hpcc_websearch")
    if ws:
        g = lambda eid, name: fig_value(data, eid, name) or "-"
        w("## Beside the papers: the HPCC paper's web search on the fabric (issue 33)")
        w("")
        w("From `hpcc_websearch` above (`make exp-hpcc-websearch`; the figure "
          "`docs/figures/hpcc_websearch.png`). The set-ups:")
        w("")
        w("| | the HPCC paper (SIGCOMM 2019) | here |")
        w("|---|---|---|")
        for what, paper, ours in HPCC_SETUP:
            w(f"| {what} | {paper} | {ours} |")
        w("")
        w("FCT slowdown (FCT over the flow's standalone FCT, docs/workloads.md) per size tenth "
          "(the flows sorted by size, a tenth of them each; `largest` is the tenth's largest flow at 30 % / 50 %), "
          "then over all flows. Each cell p50 / p95 / p99.")
        w("")
        w("| flows | largest (KB) | 30 % | 50 % | the paper, DCQCN |")
        w("|---|---:|---|---|---|")
        trio = lambda eid, pre, lab: " / ".join(g(eid, f"{pre}_{q}{lab}") for q in ("p50", "p95", "p99"))
        for i in range(10):
            l30, l50 = "[load_pct=30]", "[load_pct=50]"
            size = f"{g('hpcc_websearch', f'bucket{i}_max_kb' + l30)} / {g('hpcc_websearch', f'bucket{i}_max_kb' + l50)}"
            w(f"| tenth {i + 1} | {size} | {trio('hpcc_websearch', f'bucket{i}', l30)} | "
              f"{trio('hpcc_websearch', f'bucket{i}', l50)} | not quoted (below) |")
        allq = lambda eid, lab: " / ".join(g(eid, f"fct_slowdown_{q}{lab}") for q in ("p50", "p95", "p99"))
        w(f"| all flows | | {allq('hpcc_websearch', '[load_pct=30]')} | {allq('hpcc_websearch', '[load_pct=50]')} | not quoted |")
        w(f"| under 100 KB, p99 | | {g('hpcc_websearch', 'small_flow_p99[load_pct=30]')} | "
          f"{g('hpcc_websearch', 'small_flow_p99[load_pct=50]')} | not quoted |")
        w(f"| 100 KB and above, p99 | | {g('hpcc_websearch', 'large_flow_p99[load_pct=30]')} | "
          f"{g('hpcc_websearch', 'large_flow_p99[load_pct=50]')} | not quoted |")
        w(f"| flows, offered load | | {g('hpcc_websearch', 'flows[load_pct=30]')}, {g('hpcc_websearch', 'load[load_pct=30]')} | "
          f"{g('hpcc_websearch', 'flows[load_pct=50]')}, {g('hpcc_websearch', 'load[load_pct=50]')} | |")
        w("")
        w("Why the paper's column is empty: the paper's web-search slowdowns are plots, and the stored copies "
          "of its text that could be read here give its first page only; its project page plots DCQCN + "
          "window, not DCQCN. No value was read off a figure, so none is quoted; the set-up table above is "
          "what could be checked. What makes ours differ from a DCQCN run of the paper's set-up, each "
          "visible in the table:")
        w("")
        w(f"- **The NIC in every FCT.** Our flows start with a doorbell, a WQE fetch and the payload's DMA "
          f"read over PCIe, 1 to 3 us that the simulator's NIC does not have (tests/fct_check.py). On the "
          f"smallest flows, whose ideal FCT is a few microseconds of propagation, that alone is a slowdown "
          f"above 1: the smallest tenth's median is {g('hpcc_websearch', 'bucket0_p50[load_pct=30]')} at 30 %.")
        w("- **ECN on the 400 Gb/s links.** The switch model has one marking threshold pair per switch, so "
          "the 400 Gb/s links mark from 400 KB like the 100 Gb/s ones, where the paper's mark from 1,600 KB: "
          "ours mark earlier on the fabric links, which cuts senders sooner there (more CNPs, lower queues).")
        per = {}
        for lab in ("30", "50"):  # a tenth's flows, and which largest its nearest-rank p99 is
            n = int(g("hpcc_websearch", f"flows[load_pct={lab}]")) // 10 if g("hpcc_websearch", f"flows[load_pct={lab}]") != "-" else 0
            per[lab] = (n, n - (n * 99) // 100)
        w(f"- **Scale.** 16 hosts with 15 destinations each instead of 320 with 319: two large flows meet at "
          f"one receiver's 100 Gb/s link more often; and a tenth holds about {per['30'][0]} flows at 30 % "
          f"({per['50'][0]} at 50 %), so its p99 is the {per['30'][1]}th-largest ({per['50'][1]}th) of them and "
          f"moves by whole units between neighbouring tenths (the figure); 320 hosts at the same load start "
          f"twenty times the flows per millisecond.")
        w("- **DCQCN + window.** The paper's better DCQCN curve is DCQCN with a window (`dcqcn_vwin`), which "
          "we do not model; our DCQCN is its plain `dcqcn` (the same timers, steps and floor).")
        w("- **The run's length.** 100 ms of arrivals then the drain: the last flows finish on an emptying "
          "fabric, and the offered load of the run (`load`) is below the target by the web-search sizes' "
          "spread (docs/workloads.md).")
        w("")
    fb = data["experiments"].get("hostcc_fabric_incast")
    st = data["experiments"].get("hostcc")
    if fb and st:
        paper = BY_ID["hostcc"].get("paper", {})
        w("## Beside the papers: the RHCC paper's receiver contention on the fabric (issue 33)")
        w("")
        w("`hostcc_fabric_incast` (a 4:1 incast across a k = 4 fat tree into the CPU-loaded receiver, "
          "scenarios/rhcc_fattree_incast.conf, `make exp-rhcc-fabric`) beside `hostcc` (the standalone "
          "experiment: one sender, one switch, the paper's testbed) and the paper (seed 002, Sec. 2.2 and "
          "Sec. 4). Both run the same points through tools/hostcc_experiments.py (4 QPs per sender, 256 KB "
          "messages, 20 ms per run, DCQCN), so each row is one formula over runs of the two set-ups. How the "
          "standalone run departs from the paper (its larger gains, its complete pause cut) is in "
          "docs/hostcc_model.md; the last column says what the fabric changes on top of it.")
        w("")
        w("| figure | fabric, 4:1 | standalone, 1:1 | paper | why the fabric differs |")
        w("|---|---:|---:|---|---|")
        rows = [
            ("tput_drop_3x_pfc_pct", "Fig. 2: throughput drop at 3x, PFC (%)",
             "the receiver's memory binds in both: the Gb/s it absorbs at 3x (the rows below) is close"),
            ("tput_drop_3x_nopfc_pct", "Fig. 2: throughput drop at 3x, no PFC (%)",
             "one sender is held under the host by its CE marks without a drop; four senders' bursts overflow the receiving host's buffer, and go-back-N resends (the fabric run's host_drops, rtx)"),
            ("lat_x_3x_pfc", "Fig. 2: latency at 3x over 0x, PFC",
             "the 0x baseline already queues at the receiver's edge switch (4:1 into 100 Gb/s)"),
            ("lat_x_3x_nopfc", "Fig. 2: latency at 3x over 0x, no PFC", "as above, with the drops' retransmissions"),
            ("tput_3x_off_gbps", "Fig. 6: 3x, RHCC off (Gb/s)", "the memory's share left to the NIC, the same host"),
            ("tput_3x_rhcc_gbps", "Fig. 6: 3x, RHCC on (Gb/s)", "both reach the receiver's 100 Gb/s link (payload rate); in the fabric four senders share it"),
            ("tput_gain_3x", "Fig. 6: throughput gain at 3x", "the ratio of the two rows above"),
            ("lat_gain_3x", "Fig. 6: latency gain at 3x", "RHCC removes the host's queue; the switch's stays"),
            ("stall_cut_1x_pct", "Fig. 6: PCIe stall cut at 1x (%)",
             "the standalone run has no stall at 1x to cut (na); the incast's bursts stall PCIe briefly at 1x and RHCC cuts only part of it"),
            ("stall_cut_2x_pct", "Fig. 6: PCIe stall cut at 2x (%)", ""),
            ("stall_cut_3x_pct", "Fig. 6: PCIe stall cut at 3x (%)", ""),
            ("pause_cut_3x_pct", "Fig. 6: PFC pause cut at 3x (%)", "the MBA level that frees the memory ends the host's PAUSEs"),
            ("rx_only_tput_gain_3x", "receiver controller alone: gain at 3x", "the receiver's MBA step does the work"),
            ("tx_only_tput_gain_3x", "sender controller alone: gain at 3x (vs plain DCQCN)",
             "R_rev alone cuts the senders below what the host takes"),
        ]
        for key, what, why in rows:
            w(f"| {what} (`{key}`) | {g2(data, 'hostcc_fabric_incast', key)} | {g2(data, 'hostcc', key)} | "
              f"{paper.get(key, '')} | {why} |")
        w("")


def g2(data, eid, name):
    v = fig_value(data, eid, name)
    return "-" if v is None else v


def fig_value(data, eid, name):
    d = data["experiments"].get(eid)
    if not d:
        return None
    for n, v in d["figures"]:
        if n == name:
            return v
    return None


def render_blocks(data):
    """The README's generated blocks: NAME -> text between the markers."""
    blocks = {}
    rm = data["experiments"].get("rnic_model")
    if rm:
        body = ["```", "$ make run", fmt_cmd(rm["cmd"])] + rm["stdout"].rstrip("\n").split("\n") + ["```"]
        blocks["run"] = "\n".join(body)
    rows = ["| what | rnicq | paper | command |", "|---|---:|---|---|"]
    for eid, name, what in HEADLINE:
        v = fig_value(data, eid, name)
        if v is None:
            continue
        e = BY_ID[eid]
        paper = e.get("paper", {}).get(name, "")
        cmd = "make run" if e.get("run_block") else fmt_cmd(data["experiments"][eid]["cmd"])
        rows.append(f"| {what} | {v} | {paper} | `{cmd}` |")
    blocks["headline"] = "\n".join(rows)
    return blocks


# Documents besides README.md with generated blocks (the same markers): path -> the function that
# renders their blocks from the data ({name: text}).
def render_trace_blocks(data):
    """docs/trace_csv.md's size table, from experiment trace_size."""
    d = data["experiments"].get("trace_size")
    if not d:
        return {}
    f = dict(d["figures"])
    rows = [f"Measured by `{fmt_cmd(d['cmd'])}` ({f.get('trace_sim_us', '?')} us of each scenario from "
            "its start, no drain; `tools/results.py` writes this table from its RESULT line):", "",
            "| scenario | bytes per simulated ms | (MB) | rows (trace events) per simulated ms | bytes per row |",
            "|---|---:|---:|---:|---:|"]
    for name, what in (("default", "`scenarios/default.conf` (16 hosts, host model and RHCC on)"),
                       ("fat_tree_k4", "`scenarios/fat_tree_k4.conf` (16 hosts, 20 switches)")):
        b = f.get("trace_csv_bytes_per_sim_ms_" + name, "?")
        mb = f"{int(b) / 1e6:.0f}" if b.isdigit() else "?"
        rows.append(f"| {what} | {b} | {mb} | {f.get('trace_csv_events_per_sim_ms_' + name, '?')} | "
                    f"{f.get('trace_csv_bytes_per_event_' + name, '?')} |")
    return {"trace_size": "\n".join(rows)}


def render_ns3_blocks(data):
    """docs/ns3.md's measured figures: the runs of tools/exp_ns3_fabric.sh and make bench's callgrind."""
    rows = []
    for eid, k in (("ns3_fabric_k4", 4), ("ns3_fabric_k8", 8)):
        d = data["experiments"].get(eid)
        if not d:
            continue
        f = dict(d["figures"])
        g = lambda name, run: f.get(f"{name}[run={run}]", f.get(name, "-") if run == "scaling" else "-")
        gr = lambda name, run, rank: f.get(f"{name}[rank_run={run}_r{rank}]", "-")
        rows += [f"`{fmt_cmd(d['cmd'])}`: the web search on a k = {k} fat tree ({g('hosts', 'fabric')} hosts, "
                 f"{g('flows', 'fabric')} flows, 50 % load); every run's per-flow CSV and digest "
                 f"({g('digest', 'fabric')}) against the fabric's:", "",
                 "| run | same FCT CSV | same digest | FCT slowdown p50 / p99 | wall s (slowest rank) | "
                 "peak RSS KB (per rank) | ns-3 events (per rank) |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        for run, what in (("fabric", "standalone fabric (`rnic_model`)"), ("ns3", "ns-3, one process"),
                          ("mpi1", "ns-3 MPI, 1 rank"), ("mpi2", "ns-3 MPI, 2 ranks")):
            if f"digest[run={run}]" not in f:
                continue
            if run == "mpi2":
                rss = " / ".join(gr("rss_kb", run, r) for r in (0, 1))
                ev = " / ".join(gr("events", run, r) for r in (0, 1))
            elif run == "mpi1":
                rss, ev = gr("rss_kb", run, 0), gr("events", run, 0)
            else:
                rss, ev = g("rss_kb", run), "-"
            rows.append(f"| {what} | {g('same_fct_csv', run)} | {g('same_digest', run)} | "
                        f"{g('fct_slowdown_p50', run)} / {g('fct_slowdown_p99', run)} | {g('wall_s', run)} | {rss} | {ev} |")
        rows += ["", f"2 ranks: lookahead {g('lookahead_ps', 'scaling')} ps, {g('sim_us', 'scaling')} us simulated "
                 f"(at most {g('windows_max', 'scaling')} synchronisation windows), {g('events_total', 'scaling')} "
                 f"ns-3 events over both ranks ({g('events_rank_max', 'scaling')} on the busier), "
                 f"{g('frames', 'scaling')} records carried over channels ({g('cross_frames', 'scaling')} between the ranks), engine cycles run on the busier rank "
                 f"{g('cycles_run_rank_max', 'scaling')}.", ""]
    d = data["experiments"].get("ns3_fabric_k8")
    if d:  # the estimate for more ranks, from the k = 8 runs' wall times and event counts
        f = dict(d["figures"])
        try:
            t1, t2 = float(f["wall_s[run=mpi1]"]), float(f["wall_s[run=mpi2]"])
            e1 = int(f["events[rank_run=mpi1_r0]"])
            e2 = [int(f["events[rank_run=mpi2_r0]"]), int(f["events[rank_run=mpi2_r1]"])]
            w, look = int(f["windows_max"]), int(f["lookahead_ps"])
            cyc = int(f["cycles_run[rank_run=mpi1_r0]"])
        except (KeyError, ValueError):
            t1 = None
        if t1:
            a = t1 / e1                      # host s per ns-3 event on one rank
            dup = sum(e2) - e1               # events a second rank adds (its own cycle events)
            sync = max(t2 - a * max(e2), 0)  # what 2 ranks cost beyond their events: windows, MPI messages
            over = t2 - a * max(e2)
            rows += ["**Scaling, estimated on paper** from the k = 8 runs. One rank spends "
                     f"{a * 1e6:.2f} us of host time per ns-3 event ({t1:.1f} s / {e1} events). A second rank "
                     f"adds {dup} events ({sum(e2)} over both): each rank runs its own event per engine cycle "
                     f"with work ({cyc} cycles here), whatever its share of the nodes. 2 ranks took {t2:.1f} s, "
                     + (f"{-over:.1f} s less than their busier rank's events cost at one rank's rate (a rank with "
                        "half the nodes spends less per event): the synchronisation and the MPI messages are not "
                        "measurable beside the events at 2 ranks" if over <= 0 else
                        f"{over:.1f} s more than their busier rank's events at one rank's rate: the synchronisation "
                        "and the MPI messages, taken to grow as log2 R (an MPI_Allgather per window)")
                     + f", with at most {w} synchronisation windows (the simulated time over the lookahead, "
                     f"{look} ps). With R ranks a rank has (events + (R - 1) x the second rank's) / R events; "
                     "the estimate counts them at one rank's cost:", "",
                     "| ranks | events on a rank | estimated wall s | speedup over 1 rank |", "|---:|---:|---:|---:|"]
            import math
            for r in (1, 2, 4, 8, 16, 32):
                er = (e1 + (r - 1) * dup) / r
                tr = a * er + sync * math.log2(r)
                rows.append(f"| {r} | {er:.0f} | {tr:.1f} | {t1 / tr:.2f} |")
            rows += ["", f"The floor is one event per engine cycle with work on every rank ({dup} here): "
                     f"no number of ranks takes this run below about {a * dup:.1f} s, "
                     f"{t1 / (a * dup):.0f}x faster than one rank; the fabric's own scheduler on one core "
                     "ran it in the time of the `fabric` row above.", ""]
    b = data["experiments"].get("bench_ns3_fabric")
    if b:
        f = dict(b["figures"])
        rows += [f"`make bench` (`bash tools/bench_ns3_fabric.sh`, measured {b.get('date', '')}): callgrind "
                 f"instructions of the same run (k = 4, 50 %, 1 ms of arrivals), {f.get('delivered_packets', '?')} "
                 f"packets delivered, {f.get('frames', '?')} records over channels:", "",
                 "| | instructions per delivered packet |", "|---|---:|",
                 f"| standalone fabric | {f.get('fabric_ir_per_pkt', '?')} |",
                 f"| inside ns-3 (one process) | {f.get('ns3_ir_per_pkt', '?')} |",
                 f"| ns-3's overhead (the difference) | {f.get('ns3_overhead_ir_per_pkt', '?')} "
                 f"({f.get('ns3_overhead_ir_per_frame', '?')} per record carried) |",
                 f"| of which in ns-3's libraries, libstdc++ and libc | {f.get('ns3_lib_ir_per_pkt', '?')} "
                 f"({f.get('ns3_lib_pct', '?')} % of the ns-3 build's) |", ""]
    return {"ns3": "\n".join(rows).rstrip("\n")}


DOC_BLOCKS = [(os.path.join(ROOT, "docs", "trace_csv.md"), render_trace_blocks),
              (os.path.join(ROOT, "docs", "ns3.md"), render_ns3_blocks)]


BLOCK_RE = re.compile(r"(<!-- results:begin (\w+) -->\n)(.*?)(<!-- results:end \2 -->)", re.S)


def apply_blocks(text, blocks):
    def one(m):
        body = blocks[m.group(2)] + "\n" if m.group(2) in blocks else m.group(3)
        return m.group(1) + body + m.group(4)
    return BLOCK_RE.sub(one, text)


def read_blocks(text):
    return {m.group(2): m.group(3).rstrip("\n") for m in BLOCK_RE.finditer(text)}


# ---------------------------------------------------------------------------------------------
def sha256(path):
    h = hashlib.sha256()
    p = path
    d = os.path.dirname(path)
    if OUT_DIR and d in CSV_DIRS:
        p = os.path.join(out_path(d), os.path.basename(path))
    else:
        p = out_path(path)
    with open(os.path.join(ROOT, p), "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def figure_data(f, log):
    """Runs a figure's data commands; {csv: sha256} or None on failure."""
    for cmd in f["run"]:
        r = subprocess.run(mapped(cmd), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            log(f"figure {f['png']}: {fmt_cmd(cmd)} failed: {r.stderr.strip()[-300:]}")
            return None
    try:
        return {c: sha256(c) for c in f["csv"]}
    except OSError as e:
        log(f"figure {f['png']}: {e}")
        return None


def figure_builds(f):
    return [c[2:] for r in f["run"] for c in r if c.startswith("./build/")] + (
        ["build/rnic_model"] if any("hostcc_experiments" in " ".join(r) for r in f["run"]) else [])


# ---------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare the committed figures with a fresh run")
    ap.add_argument("--full", action="store_true", help="also the 'full' tier (make check)")
    ap.add_argument("--only-tier", choices=["quick", "full", "long"], default=None,
                    help="only this tier (e.g. make check: --check --only-tier full, make test having checked quick)")
    ap.add_argument("--all", action="store_true", help="every tier, the long ones too (check or write)")
    ap.add_argument("--quick", action="store_true", help="write mode: run the quick tier only (default: quick and full)")
    ap.add_argument("--only", default="", help="comma-separated experiment ids (write or check)")
    ap.add_argument("--log", "--bench-log", action="append", default=[], dest="logs",
                    help="saved output of make bench / soak / fuzz / firmware / coverage (repeatable)")
    ap.add_argument("--log-date", default=None, help="the date to show for --log (default: the file's mtime)")
    ap.add_argument("--figures", action="store_true", help="redraw docs/figures/*.png and record their data's sha256")
    ap.add_argument("--list", action="store_true", help="print the manifest and exit")
    ap.add_argument("--reuse", default=None, metavar="DIR",
                    help="read a program's output from DIR/ex-NAME.out when DIR/ex-NAME.cmd is the same command "
                         "(make test: the examples' own runs)")
    a = ap.parse_args()
    global REUSE_DIR
    REUSE_DIR = a.reuse

    if a.list:
        for e in MANIFEST:
            c = e.get("cmd_text") or fmt_cmd(exp_cmd(e))
            print(f"{e['id']:24} {e['tier']:8} {str(e.get('secs', '-')):>5}  {c}")
        for f in FIGURES:
            print(f"{f['png']:24} {f['tier']:8} figure  {'; '.join(fmt_cmd(r) for r in f['run'])}")
        return 0

    if a.check:
        top = 2 if a.all else 1 if a.full else 0
    else:
        top = 0 if a.quick else 2 if a.all else 1
    only = set(x for x in a.only.split(",") if x)
    for x in only:
        if x not in BY_ID:
            print(f"unknown experiment id {x!r} (see --list)")
            return 2

    def chosen(e):
        if e["tier"] == "measured":
            return False
        if only:
            return e["id"] in only
        if a.only_tier:
            return e["tier"] == a.only_tier
        return TIER_ORDER[e["tier"]] <= top

    exps = [e for e in MANIFEST if chosen(e)]
    for e in exps:  # dependencies (the pcap check reads rnic_model's pcap)
        for n in e.get("needs", []):
            if BY_ID[n] not in exps:
                exps.insert(0, BY_ID[n])
    ids = {e["id"] for e in exps}
    figs = [f for f in FIGURES if (a.figures or a.check) and (
        f.get("exp") in ids if f.get("exp") else not only and (
            f["tier"] == a.only_tier if a.only_tier else TIER_ORDER[f["tier"]] <= top))]

    global OUT_DIR
    if a.check:
        OUT_DIR = tempfile.mkdtemp(prefix="rnicq-results-")
    old = load_data()
    new = json.loads(json.dumps(old))
    new.setdefault("experiments", {})
    new.setdefault("figures", {})
    known = {e["id"] for e in MANIFEST}
    for gone in [k for k in new["experiments"] if k not in known]:
        del new["experiments"][gone]  # an experiment removed from the manifest: its data goes too
    problems = []
    passed = failed = 0
    log = lambda s: print(s, flush=True)

    builds = [b for e in exps for b in exp_builds(e)] + [b for f in figs for b in figure_builds(f)]
    if not make(builds):
        log("not ok build: make " + " ".join(sorted(set(builds))))
        print(f"{passed} passed, {failed + 1} failed")
        return 1

    cpu_total = 0.0
    t_start = time.time()
    for e in exps:
        stdout, lines, cpu, wall, rc, err = run_exp(e)
        cpu_total += cpu
        if rc != 0 or not lines:
            failed += 1
            log(f"not ok {e['id']}: `{fmt_cmd(exp_cmd(e))}` exit {rc}, {len(lines)} RESULT lines {err.strip()[-400:]}")
            continue
        figs_now = figures_of(e, lines)
        rec = {"cmd": exp_cmd(e), "figures": figs_now, "cpu_s": round(cpu, 1)}
        if e.get("run_block"):
            rec["stdout"] = stdout
        if a.check:
            committed = old["experiments"].get(e["id"])
            cfig = dict(committed["figures"]) if committed else {}
            for name, v in figs_now:
                if base_key(name) in HOST_KEYS:
                    continue
                if cfig.get(name) == v:
                    passed += 1
                else:
                    failed += 1
                    problems.append(f"stale {e['id']}.{name}: committed {cfig.get(name, '(none)')} vs now {v}")
            for name in cfig:
                if name not in dict(figs_now) and base_key(name) not in HOST_KEYS:
                    failed += 1
                    problems.append(f"stale {e['id']}.{name}: committed {cfig[name]} vs now (not printed)")
            if e.get("run_block") and committed:
                if mask_host(committed.get("stdout", "")) == mask_host(stdout):
                    passed += 1
                else:
                    failed += 1
                    problems.append(f"stale {e['id']}: the output of `make run` differs from the committed block")
            # the committed host-clock values stay
            if committed:
                hv = {n: v for n, v in committed["figures"] if base_key(n) in HOST_KEYS}
                rec["figures"] = [(n, hv.get(n, v)) if base_key(n) in HOST_KEYS else (n, v) for n, v in figs_now]
                if e.get("run_block"):
                    rec["stdout"] = committed.get("stdout", stdout)
                rec["cpu_s"] = committed.get("cpu_s", rec["cpu_s"])
        if a.check:  # the manifest's names must still be printed (a renamed RESULT key is caught)
            names = dict(figs_now)
            for k in list(e.get("paper", {})) + list(e.get("label", {})) + [
                    n for x, n, _ in HEADLINE if x == e["id"]]:
                if k in names:
                    passed += 1
                else:
                    failed += 1
                    problems.append(f"manifest names {e['id']}.{k}, which the program no longer prints")
        how = "read the suite's saved output of" if saved_output(mapped(exp_cmd(e))) is not None else "ran"
        log(f"{how} {e['id']}: {len(lines)} RESULT lines, {cpu:.1f} s CPU, {wall:.1f} s wall")
        new["experiments"][e["id"]] = rec

    for f in figs:
        if f.get("after") and not f["run"]:
            src = next(x for x in FIGURES if x["png"] == f["after"])
            if src not in figs:
                continue
        c0 = cpu_children()
        sums = figure_data(f, log)
        cpu_total += cpu_children() - c0
        if sums is None:
            failed += 1
            continue
        if a.check:
            cs = old["figures"].get(f["png"], {}).get("sha256", {})
            for c, s in sums.items():
                if cs.get(c) == s:
                    passed += 1
                else:
                    failed += 1
                    problems.append(f"stale figure docs/figures/{f['png']}: data {c} committed {cs.get(c, '(none)')[:16]} vs now {s[:16]} (redraw: python3 tools/results.py --figures)")
        else:
            if shutil.which("gnuplot"):
                r = subprocess.run(["gnuplot"] + f["plot"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
                if r.returncode != 0:
                    failed += 1
                    log(f"not ok gnuplot {f['png']}: {r.stderr.strip()[-300:]}")
                    continue
                log(f"drew docs/figures/{f['png']}")
            else:
                log(f"gnuplot missing: docs/figures/{f['png']} not redrawn (apt-get install gnuplot-nox)")
                continue
            new["figures"][f["png"]] = {"sha256": sums}

    if a.logs:
        for eid, rec in read_logs(a.logs, a.log_date).items():
            new["experiments"][eid] = {"figures": figures_of(BY_ID[eid], rec["lines"]),
                                       "date": rec["date"], "source": rec["source"], "lines": rec["lines"]}
            log(f"took {eid} from {rec['source']} ({rec['date']})")

    md = render_results_md(new)
    with open(README, encoding="utf-8") as fh:
        readme = fh.read()
    blocks = render_blocks(new)
    readme_new = apply_blocks(readme, blocks)

    if a.check:
        # the committed texts must be what the committed data renders to (a hand edit fails);
        # stale data was caught figure by figure above
        with open(RESULTS_MD, encoding="utf-8") as fh:
            md_old = fh.read()
        md_want = render_results_md(old)
        if md_old == md_want:
            passed += 1
        else:
            failed += 1
            problems.append("docs/results.md is not what tools/results.py writes from its own data "
                            "(edited by hand?): " + first_diff(md_old, md_want))
        blocks = render_blocks(old)
        rb_old, rb_new = read_blocks(readme), read_blocks(apply_blocks(readme, blocks))
        for name in sorted(blocks):
            if name not in rb_old:
                failed += 1
                problems.append(f"README.md has no generated block {name} (<!-- results:begin {name} -->)")
            elif rb_old[name] == rb_new[name]:
                passed += 1
            else:
                failed += 1
                problems.append(f"README.md block {name} is not what docs/results.md's data renders to "
                                "(run python3 tools/results.py): " + first_diff(rb_old[name], rb_new[name]))
        for path, render in DOC_BLOCKS:
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            dblocks = render(old)
            db_old, db_new = read_blocks(text), read_blocks(apply_blocks(text, dblocks))
            for name in sorted(dblocks):
                if name not in db_old:
                    failed += 1
                    problems.append(f"{rel} has no generated block {name} (<!-- results:begin {name} -->)")
                elif db_old[name] == db_new[name]:
                    passed += 1
                else:
                    failed += 1
                    problems.append(f"{rel} block {name} is not what docs/results.md's data renders to "
                                    "(run python3 tools/results.py): " + first_diff(db_old[name], db_new[name]))
        n = readme.count("\n")
        if n <= README_MAX_LINES:
            passed += 1
        else:
            failed += 1
            problems.append(f"README.md has {n} lines (at most {README_MAX_LINES})")
        for p in problems:
            log("not ok " + p)
        shutil.rmtree(OUT_DIR, ignore_errors=True)
        log(f"checked in {time.time() - t_start:.0f} s wall, {cpu_total:.1f} s CPU")
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0

    with open(RESULTS_MD, "w", encoding="utf-8") as fh:
        fh.write(md)
    with open(README, "w", encoding="utf-8") as fh:
        fh.write(readme_new)
    for path, render in DOC_BLOCKS:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(apply_blocks(text, render(new)))
    log(f"wrote docs/results.md and README.md's blocks ({', '.join(sorted(blocks))}) in "
        f"{time.time() - t_start:.0f} s wall, {cpu_total:.1f} s CPU")
    if failed:
        print(f"{failed} experiments failed")
    return 1 if failed else 0


def first_diff(a, b):
    al, bl = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return f"line {i + 1}: committed {x.strip()[:160]!r} vs now {y.strip()[:160]!r}"
    return f"committed {len(al)} lines vs now {len(bl)}"


if __name__ == "__main__":
    sys.exit(main())
