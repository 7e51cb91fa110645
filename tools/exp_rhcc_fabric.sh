#!/usr/bin/env bash
# The RHCC paper's Fig. 2 (receiver throughput and latency against the receiver's CPU memory
# load, PFC on and off) and Fig. 6 (RHCC off against on, PFC on) on a fabric: a 4:1 incast
# across a k = 4 fat tree into a receiver whose memory its CPU loads
# (scenarios/rhcc_fattree_incast.conf). The points, the figures and their RESULT keys are
# tools/hostcc_experiments.py's, so each figure sits beside the standalone experiment's (one
# sender, one switch: docs/results.md, `hostcc`) under the same name.
#
#   tools/exp_rhcc_fabric.sh [hostcc_experiments.py options, e.g. --quick, --csv-dir DIR]
#
# Prints RESULT exp=hostcc_fig2 ..., exp=hostcc_fig6 ..., exp=hostcc_fig6_variant ... (one run
# at a time: the machine is shared).
exec python3 tools/hostcc_experiments.py --jobs 1 --only 2,6 --scenario scenarios/rhcc_fattree_incast.conf "$@"
