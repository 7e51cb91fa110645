# rnicq -- `make run` runs the main job, `make test` the fast tests, `make check` the long ones
# (each ends "N passed, N failed"). Other targets: scenarios, bench, results, figures, fuzz, coverage,
# soak, firmware, headers, install PREFIX=..., build/<name>, clean.
SHELL := /bin/bash
PREFIX ?= /usr/local

HEADERS := ratelimit.h rnicq.h transport.h hostcc.h
WARN := -std=c99 -Wall -Wextra -Wpedantic -Werror -Wundef -Wshadow
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
STB = $(shell pkg-config --cflags --libs stb 2>/dev/null || echo -I/usr/include/stb -lstb)
# stb_ds (libstb-dev) is linked only into the programs that include it: the reference model of
# tests/test_bucketq.c, the scenario reader (examples/rnic_model/scenario.h: its test, the HPCC
# input reader's test and build/rnic_model); the other examples and the benchmarks build without
# stb installed
STB_USERS := test_bucketq test_scenario test_hpcc_input
STB_IF_USED = $(if $(filter $(STB_USERS),$(notdir $@)),$(STB))
STB_CFLAGS = $(shell pkg-config --cflags stb 2>/dev/null || echo -I/usr/include/stb)
STB_CFLAGS_IF_USED = $(if $(filter $(STB_USERS),$(notdir $(basename $@))),$(STB_CFLAGS))
# -g1: line tables (ASan and UBSan name file:line) at three quarters of -g's compile time
TEST_CFLAGS := $(WARN) -g1 $(SAN) -DRNIC_DEBUG -I. -Itests
# the unit tests' optimisation per configuration: gcc's -Og compiles the sanitized tests in half
# the time of -O1 for about a fifth more run time (make test: 20 CPU-s less); clang has no -Og
OPT_gcc := -Og
OPT_portable := -Og
OPT_clang := -O1
# clang's -O1 with ASan + UBSan compiles a test 2-5x slower than its -O0 (UBSan's checks are
# optimised, not just emitted): a clang test object whose run is short compiles at -O0 (the same
# sanitizers and warnings -- clang's do not depend on the optimiser -- for 30 CPU-s less in make
# test); the tests that run long keep -O1 (at -O0 they run 2-5x longer). The engines (impl.o) are -O1.
CLANG_O1_UNITS := test_bitmap test_bucketq test_fabric test_fixed test_net test_prng test_ratelimit_fetchbw \
                  test_ratelimit_parts test_ratelimit_ref test_ring test_rnicq_palos test_seq test_ssfifo
unit_opt = $(if $(and $(filter clang,$(1)),$(filter-out $(CLANG_O1_UNITS),$(2))),-O0,$(OPT_$(1)))
PROG_CFLAGS := $(WARN) -O2 -g1 -I.

EXAMPLES := $(patsubst examples/%.c,%,$(wildcard examples/*.c))
BENCHES := $(patsubst bench/%.c,%,$(wildcard bench/*.c))
UNIT := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
# Tests whose code calls nothing of the engines' implementation (tests/impl.c) and is not
# compiled with the portable arithmetic itself: the portable configuration would run gcc's very
# objects again, so it skips them (tests/run.sh checks with nm that they still call nothing).
PORTABLE_SAME := test_common_machinery test_fabric test_hpcc_input test_lat_store test_net test_roce_pcap test_scenario test_topo \
	test_trace_csv test_workload
UNIT_BINS := $(foreach cc,gcc clang,$(addprefix build/tests/$(cc)/,$(UNIT))) \
             $(addprefix build/tests/portable/,$(filter-out $(PORTABLE_SAME),$(UNIT)))

# The main job: the composed RNIC (examples/rnic_model/) on its default scenario (a 16-host
# leaf-spine, scenarios/default.conf), writing per-QP, per-link and queue CSVs and a RoCEv2 pcap
# under build/ and its figures (PNG, examples/rnic_model/fm_plots.h) under build/plots/default/;
# tools/fabric_run.sh adds each tenant's distance from its expected share (tools/share_ref.py) to
# the RESULT line.
MAIN_EXAMPLE := rnic_model
MAIN_CMD := bash tools/fabric_run.sh --by-fraction scenarios/default.conf --pcap build/run.pcap --csv build/run_qps.csv --links-csv build/run_links.csv --queue-csv build/run_queue.csv --plots build/plots/default
MODEL_SRC := $(wildcard examples/rnic_model/*.c examples/rnic_model/*.h)

.PHONY: all programs run scenarios test check bench results figures fuzz coverage headers install clean unit-tests
.DELETE_ON_ERROR:

# Each user-facing target installs what it needs first, then builds with a nested make so
# that nothing is compiled before the packages are there (even under -j).
all:
	@bash tools/deps.sh build
	@$(MAKE) --no-print-directory programs

# the composed RNIC first: its compile is the longest (under -j2 it no longer ends the build alone)
programs: build/rnic_model $(addprefix build/,$(EXAMPLES) $(BENCHES))

run:
	@bash tools/deps.sh run
	@$(MAKE) --no-print-directory build/$(MAIN_EXAMPLE)
	$(MAIN_CMD)

# every shipped scenario at its own length, each one's figures and CSVs under
# build/plots/<name>/ (--plots); SCENARIO_ARGS adds options to every run (say
# SCENARIO_ARGS="--set run.duration_us=2000" for short runs). Runs them all, then fails if any did.
SCENARIO_ARGS ?=
scenarios:
	@bash tools/deps.sh run
	@$(MAKE) --no-print-directory build/rnic_model
	@bad=0; for f in scenarios/*.conf; do n=$$(basename $$f .conf); echo "== $$f -> build/plots/$$n/"; \
	    mkdir -p build/plots/$$n; ./build/rnic_model --scenario $$f --plots build/plots/$$n $(SCENARIO_ARGS) \
	        >build/plots/$$n/run.out; rc=$$?; grep -E '^  plots: |^RESULT' build/plots/$$n/run.out; \
	    [ $$rc -eq 0 ] || { echo "scenarios: $$f exited $$rc (build/plots/$$n/run.out)"; bad=1; }; done; exit $$bad

# make test: the fast suite (at most 5 minutes on an idle 2-core machine); make check: the long
# checks (ns-3 comparisons, firmware under qemu, soak, fuzz short runs and corpus replays, the
# portable-arithmetic unit tests, the rest of the build matrix). .ci/run runs both, then make run.
test:
	@bash tools/deps.sh test
	@bash tests/run.sh test

check:
	@bash tools/deps.sh check
	@bash tests/run.sh check

# every deterministic experiment (tools/results.py's manifest): rewrites docs/results.md and the
# README's generated blocks; RESULTS_ARGS="--log FILE" also takes make bench / soak / fuzz /
# firmware / coverage output saved to FILE, "--quick" only the short runs, "--all" the long ones
results:
	@bash tools/deps.sh results
	python3 tools/results.py $(RESULTS_ARGS)

bench:
	@bash tools/deps.sh bench
	@$(MAKE) --no-print-directory $(addprefix build/,$(BENCHES))
	@for b in $(BENCHES); do echo "== $$b"; ./build/$$b || exit 1; done
	@echo "== callgrind: instructions per rate-limiter decision"
	@bash tools/callgrind_per_decision.sh
	@echo "== callgrind: instructions per QoS-engine block"
	@bash tools/callgrind_qos.sh
	@echo "== callgrind: instructions per Palos output WQE"
	@bash tools/callgrind_palos.sh
	@echo "== callgrind: instructions per simulated Tonic cycle (1,024 NewReno flows, 1 % loss)"
	@bash tools/callgrind_transport.sh
	@echo "== callgrind: the fabric's instructions per delivered packet, 16 and 128 hosts"
	@bash tools/bench_fabric_scale.sh
	@$(MAKE) --no-print-directory build/incast_ns3 build/rnic_model
	@echo "== ns-3 3.37 vs the composed RNIC: 2:1 incast at 100 Gb/s, 1 KB payloads, 10 ms simulated (CPU s)"
	@bash tools/bench_ns3_speed.sh build/incast_ns3 build/rnic_model
	@echo "== callgrind: the composed RNIC's instructions per delivered packet (2:1 incast, host on / off) beside ns-3's"
	@bash tools/callgrind_model.sh build/rnic_model build/incast_ns3
	@echo "== callgrind: ns-3's instructions around the fabric (the k = 4 web search inside ns-3, beside the fabric)"
	@bash tools/bench_ns3_fabric.sh

figures:
	@bash tools/deps.sh figures
	@$(MAKE) --no-print-directory build/fixed_point_range
	./build/fixed_point_range --csv build/fixed_point_range.csv > /dev/null
	gnuplot -e "csv='build/fixed_point_range.csv'; out='docs/figures/fixed_point_error.png'" docs/figures/fixed_point_error.gp
	@echo "wrote docs/figures/fixed_point_error.png"
	@$(MAKE) --no-print-directory build/tassel_accuracy
	./build/tassel_accuracy --csv build/tassel_accuracy.csv > /dev/null
	gnuplot -e "csv='build/tassel_accuracy.csv'; out='docs/figures/tassel_fig7.png'" docs/figures/tassel_fig7.gp
	@echo "wrote docs/figures/tassel_fig7.png"
	@$(MAKE) --no-print-directory build/tassel_scale
	./build/tassel_scale --qps 1024 --csv build/tassel_scale.csv > /dev/null
	gnuplot -e "csv='build/tassel_scale.csv'; out='docs/figures/tassel_fig8a.png'; over=0" docs/figures/tassel_fig8.gp
	gnuplot -e "csv='build/tassel_scale.csv'; out='docs/figures/tassel_fig8b.png'; over=1" docs/figures/tassel_fig8.gp
	@echo "wrote docs/figures/tassel_fig8a.png docs/figures/tassel_fig8b.png"
	@$(MAKE) --no-print-directory build/tassel_rate_change
	./build/tassel_rate_change --csv build/tassel_rate_change.csv > /dev/null
	gnuplot -e "csv='build/tassel_rate_change.csv'; out='docs/figures/tassel_rate_change.png'" docs/figures/tassel_rate_change.gp
	@echo "wrote docs/figures/tassel_rate_change.png"
	@$(MAKE) --no-print-directory build/tassel_storm
	./build/tassel_storm --csv build/tassel_storm.csv | tail -n 1
	gnuplot -e "csv='build/tassel_storm.csv'; out='docs/figures/tassel_storm.png'" docs/figures/tassel_storm.gp
	@echo "wrote docs/figures/tassel_storm.png"
	@$(MAKE) --no-print-directory build/qos_throughput
	./build/qos_throughput --csv build/qos_throughput.csv > /dev/null
	gnuplot -e "csv='build/qos_throughput.csv'; out='docs/figures/qos_throughput.png'" docs/figures/qos_throughput.gp
	@echo "wrote docs/figures/qos_throughput.png"
	@$(MAKE) --no-print-directory build/palos_isolation build/palos_latency build/palos_groups build/palos_weights build/palos_weight_change
	./build/palos_isolation --csv build/palos_isolation.csv > /dev/null
	gnuplot -e "csv='build/palos_isolation.csv'; out='docs/figures/palos_fig7.png'" docs/figures/palos_fig7.gp
	./build/palos_latency --csv build/palos_latency.csv > /dev/null
	gnuplot -e "csv='build/palos_latency.csv'; out='docs/figures/palos_fig8.png'" docs/figures/palos_fig8.gp
	./build/palos_groups --csv build/palos_groups.csv > /dev/null
	gnuplot -e "csv='build/palos_groups.csv'; out='docs/figures/palos_fig9.png'" docs/figures/palos_fig9.gp
	./build/palos_weights --csv build/palos_weights.csv > /dev/null
	gnuplot -e "csv='build/palos_weights.csv'; out='docs/figures/palos_fig10.png'" docs/figures/palos_fig10.gp
	./build/palos_weight_change --csv build/palos_weight_change.csv > /dev/null
	gnuplot -e "csv='build/palos_weight_change.csv'; out='docs/figures/palos_fig11.png'" docs/figures/palos_fig11.gp
	@echo "wrote docs/figures/palos_fig7.png .. palos_fig11.png"
	@$(MAKE) --no-print-directory build/tonic_newreno_single build/tonic_newreno_200 build/tonic_newreno_ns3
	./build/tonic_newreno_single --csv build/tonic_newreno_single.csv --ns3-csv build/tonic_newreno_single_ns3.csv | tail -n 1
	gnuplot -e "model='build/tonic_newreno_single.csv'; ns3='build/tonic_newreno_single_ns3.csv'; out='docs/figures/tonic_fig3ab.png'" docs/figures/tonic_fig3ab.gp
	@echo "ns-3's 200 flows over 5 s take about 10 minutes"
	./build/tonic_newreno_200 --csv build/tonic_newreno_200.csv --ns3-csv build/tonic_newreno_200_ns3.csv | tail -n 1
	gnuplot -e "model='build/tonic_newreno_200.csv'; ns3='build/tonic_newreno_200_ns3.csv'; out='docs/figures/tonic_fig3c.png'" docs/figures/tonic_fig3c.gp
	@echo "wrote docs/figures/tonic_fig3ab.png docs/figures/tonic_fig3c.png"
	@$(MAKE) --no-print-directory build/tonic_dcqcn_pair build/tonic_dcqcn_200
	./build/tonic_dcqcn_pair --csv build/tonic_dcqcn_pair.csv | tail -n 1
	gnuplot -e "csv='build/tonic_dcqcn_pair.csv'; out='docs/figures/tonic_fig4.png'" docs/figures/tonic_fig4.gp
	./build/tonic_dcqcn_200 --csv build/tonic_dcqcn_200.csv | tail -n 1
	gnuplot -e "csv='build/tonic_dcqcn_200.csv'; out='docs/figures/tonic_dcqcn_200.png'" docs/figures/tonic_dcqcn_200.gp
	@echo "wrote docs/figures/tonic_fig4.png docs/figures/tonic_dcqcn_200.png"
	@$(MAKE) --no-print-directory build/rnic_model
	./build/rnic_model --quiet --csv build/incast_qps.csv --queue-csv build/incast_queue.csv > /dev/null
	gnuplot -e "csv='build/incast_qps.csv'; qcsv='build/incast_queue.csv'; out='docs/figures/rnic_model.png'" docs/figures/rnic_model.gp
	@echo "wrote docs/figures/rnic_model.png"
	python3 tools/hostcc_experiments.py --csv-dir build/hostcc > build/hostcc.out || { cat build/hostcc.out; exit 1; }
	grep '^RESULT' build/hostcc.out
	gnuplot -e "dir='build/hostcc'; out='docs/figures/hostcc_fig2.png'" docs/figures/hostcc_fig2.gp
	gnuplot -e "dir='build/hostcc'; out='docs/figures/hostcc_fig4.png'" docs/figures/hostcc_fig4.gp
	gnuplot -e "dir='build/hostcc'; out='docs/figures/hostcc_fig6.png'" docs/figures/hostcc_fig6.gp
	@echo "wrote docs/figures/hostcc_fig2.png docs/figures/hostcc_fig4.png docs/figures/hostcc_fig6.png"

# published set-ups on the fabric (issue 33, docs/workloads.md): full-length runs, each recorded in
# docs/results.md by tools/results.py (figures included); make check runs their short versions
.PHONY: experiments exp-hpcc-websearch exp-rhcc-fabric exp-ns3-fabric
experiments: exp-hpcc-websearch exp-rhcc-fabric exp-ns3-fabric

# the HPCC paper's web search at 30 / 50 % (100 ms of arrivals each): about 2 min of CPU, one run
# at a time
exp-hpcc-websearch:
	@bash tools/deps.sh results
	python3 tools/results.py --only hpcc_websearch --figures

# the RHCC paper's Fig. 2 / 6 as a 4:1 incast across a fat tree (15 runs of 20 ms, under a minute)
exp-rhcc-fabric:
	@bash tools/deps.sh results
	python3 tools/results.py --only hostcc_fabric_incast

# the fabric inside ns-3 (docs/ns3.md): the k = 4 web search four ways (about 2 min), a k = 8 fat
# tree on 1 and 2 MPI ranks (about 4 min), each against the standalone fabric's CSV and digest
exp-ns3-fabric:
	@bash tools/deps.sh ns3-mpi
	python3 tools/results.py --only ns3_fabric_k4,ns3_fabric_k8

# every libFuzzer harness (tests/fuzz/fuzz_<engine>.c) for 10 M runs, two at a time; make test
# runs the same harnesses for a short fixed number of runs (tools/fuzz.sh short)
fuzz:
	@bash tools/deps.sh fuzz
	@bash tools/fuzz.sh long

# line and branch coverage of src/ over the unit tests, the fuzz corpora, the composed RNIC's
# short scenarios and the quick examples (tools/coverage.sh): docs/coverage.md, RESULT line
coverage:
	@bash tools/deps.sh coverage
	@bash tools/coverage.sh

# soak: the composed RNIC's default scenario for 10^9 cycles (4 s simulated at 250 MHz; about
# 15-40 min) with its RSS sampled every second into build/soak_rss.csv (tools/soak.sh);
# RESULT soak_rss_growth_kb = RSS at the end - RSS after the first 10 %. make test runs 3x10^7.
.PHONY: soak
soak:
	@bash tools/deps.sh soak
	@$(MAKE) --no-print-directory build/rnic_model
	@bash tools/soak.sh --cycles 1000000000

# firmware: the self-test of every engine on rv32imac (qemu-system-riscv32 virt) and Cortex-M4
# (qemu-system-arm mps2-an386), picolibc + semihosting, against digests computed on the host;
# negative control, code size per engine and cycles/s as RESULT lines (tools/firmware.sh)
.PHONY: firmware
firmware:
	@bash tools/deps.sh firmware
	@bash tools/firmware.sh

headers:
	python3 amalgamate.py

unit-tests: $(UNIT_BINS)

# the unit-test programs of make test, one per line (tests/run.sh); the tests the portable
# configuration skips
unit-list:
	@for b in $(UNIT_BINS); do echo $$b; done
portable-same:
	@echo $(PORTABLE_SAME)

# The engines' code is compiled once per configuration (tests/impl.c) and linked into every unit
# program, whose own code is compiled once per compiler (build/tests/<cc>/obj/) with the headers
# under RNIC_ENGINES_LINKED. A test that reaches into an engine's private functions builds its
# own copy of the engines (OWN_IMPL_UNITS). The portable configuration (gcc with the 32-bit-target
# arithmetic forced) links gcc's test objects to its own engines, except the tests of the common
# core's inline arithmetic and the OWN_IMPL_UNITS, which it compiles with the flag itself.
OWN_IMPL_UNITS := test_ratelimit_parts
PORTABLE_OWN_UNITS := $(OWN_IMPL_UNITS) test_bitmap test_bucketq test_fixed test_hash test_prng test_ring test_seq test_ssfifo test_error test_trace
CC_gcc := gcc
CC_clang := clang
CC_portable := gcc
CFG_portable := -DRNIC_PORTABLE_ARITH
unit_cfg = $(firstword $(subst /, ,$(1)))
# the directory of the object unit $(2) of configuration $(1) links
unit_obj = build/tests/$(if $(filter portable,$(1)),$(if $(filter $(PORTABLE_OWN_UNITS),$(2)),portable,gcc),$(1))/obj/$(2).o

build/tests/%/impl.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC_$*) $(TEST_CFLAGS) $(OPT_$*) $(CFG_$*) -c $< -o $@

# the objects stay (they are not intermediate files to delete after the build)
.PRECIOUS: build/tests/%.o
.SECONDEXPANSION:
build/tests/%.o: tests/$$(notdir $$*).c tests/test.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC_$(call unit_cfg,$*)) $(TEST_CFLAGS) $(call unit_opt,$(call unit_cfg,$*),$(notdir $*)) $(CFG_$(call unit_cfg,$*)) $(if $(filter $(OWN_IMPL_UNITS),$(notdir $*)),,-DRNIC_ENGINES_LINKED) $(STB_CFLAGS_IF_USED) -c $< -o $@

# the unit tests three times: gcc, clang, and gcc with the 32-bit-target arithmetic paths forced
$(UNIT_BINS): build/tests/%: $$(call unit_obj,$$(call unit_cfg,$$*),$$(notdir $$*)) build/tests/$$(call unit_cfg,$$*)/impl.o
	@mkdir -p $(@D)
	$(CC_$(call unit_cfg,$*)) $(TEST_CFLAGS) $(OPT_$(call unit_cfg,$*)) $< $(if $(filter $(OWN_IMPL_UNITS),$(notdir $*)),,$(@D)/impl.o) -o $@ $(STB_IF_USED) -lxxhash -lm

# the same 2:1 incast at packet level in ns-3 (tools/bench_ns3_speed.sh compares CPU time)
build/incast_ns3: examples/ns3/incast_ns3.cc
	@mkdir -p $(@D)
	g++ -std=c++17 -O2 -o $@ $< $$(pkg-config --cflags --libs $(NS3_MODULES))

build/rnic_model: $(MODEL_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Iexamples/rnic_model examples/rnic_model/rnic_model.c -o $@ $(STB) -lm

# the RoCEv2 frame test includes a header of the composed model besides the generated ones
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_roce_pcap.o): examples/rnic_model/roce_pcap.h
# the composed model's bounded latency store (the soak's fix) has its own unit test
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_lat_store.o): examples/rnic_model/lat_store.h
# the scenario file's reader (parser, --set overrides, validation, dump) has its own unit test
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_scenario.o): examples/rnic_model/scenario.h
# the open-loop workloads' inputs (issue 33): CDF files, flow files
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_workload.o): examples/rnic_model/workload.h
# the HPCC simulator's topology and flow files (issue 33) have their own unit test
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_hpcc_input.o): examples/rnic_model/hpcc_input.h \
	examples/rnic_model/scenario.h examples/rnic_model/workload.h
# the trace CSV's rows and names (the model's modules for their trace codes only)
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_trace_csv.o): examples/rnic_model/fm_trace.h examples/rnic_model/model_parts.h

# the Tonic experiments share the network and set-up of examples/rnic_model
build/tonic_newreno_single build/tonic_newreno_200 build/tonic_dcqcn_pair build/tonic_dcqcn_200: examples/rnic_model/tonic_sim.h examples/rnic_model/net.h examples/rnic_model/fabric.h
# the two DCQCN experiments share their variant options
build/tonic_dcqcn_pair build/tonic_dcqcn_200: examples/dcqcn_variant.h
build/tonic_irn_loss build/tonic_ndp_incast: examples/rnic_model/net.h examples/rnic_model/xs_driver.h examples/rnic_model/fabric.h
# the Palos experiments' driver (examples/palos_sim.h) runs on the fabric's scheduler
$(addprefix build/,$(filter palos_%,$(EXAMPLES))): examples/rnic_model/fabric.h
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_net.o): examples/rnic_model/net.h
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_topo.o): examples/rnic_model/topo.h
# the fabric's event scheduler (examples/rnic_model/fabric.h)
$(foreach cc,gcc clang portable,build/tests/$(cc)/obj/test_fabric.o): examples/rnic_model/fabric.h

# the fabric inside ns-3 (issue 34; docs/ns3.md): rnicq's NIC and switch as ns-3 NetDevices on
# point-to-point channels. The model's C part is one object (rnicq_ext.c); the devices, fabric and
# helper are C++ (rnicq-ns3.cc). build/rnicq_fabric_ns3 links Debian's libns3-dev (one process);
# build/rnicq_fabric_ns3_mpi the ns-3 of tools/ns3_mpi.sh (its mpi module; cached outside the
# checkout) and Debian's OpenMPI, for mpirun -np R.
NS3_FABRIC_SRC := examples/ns3/rnicq_fabric_ns3.cc examples/ns3/rnicq-ns3.cc examples/ns3/rnicq-ns3.h examples/ns3/rnicq_ext.h
NS3_FABRIC_CXX := g++ -std=c++17 -O2 -g1 -Wall -Wextra -Werror -Iexamples/ns3
build/ns3/rnicq_ext.o: examples/ns3/rnicq_ext.c examples/ns3/rnicq_ext.h $(MODEL_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -Iexamples/rnic_model -Iexamples/ns3 $(STB_CFLAGS) -c $< -o $@
build/rnicq_fabric_ns3: $(NS3_FABRIC_SRC) build/ns3/rnicq_ext.o
	$(NS3_FABRIC_CXX) -o $@ examples/ns3/rnicq_fabric_ns3.cc examples/ns3/rnicq-ns3.cc build/ns3/rnicq_ext.o \
		$$(pkg-config --cflags --libs ns3-core ns3-network ns3-point-to-point) $(STB) -lm
build/rnicq_fabric_ns3_mpi: $(NS3_FABRIC_SRC) build/ns3/rnicq_ext.o
	@bash tools/deps.sh ns3-mpi
	p=$$(bash tools/ns3_mpi.sh --print-prefix) && \
	$(NS3_FABRIC_CXX) -DRNICQ_NS3_MPI -isystem $$p/include $$(pkg-config --cflags ompi-cxx | sed 's/-I/-isystem /g') \
		-o $@ examples/ns3/rnicq_fabric_ns3.cc examples/ns3/rnicq-ns3.cc build/ns3/rnicq_ext.o \
		-L$$p/lib -lns3-mpi -lns3-point-to-point -lns3-network -lns3-core -Wl,-rpath,$$p/lib \
		$$(pkg-config --libs ompi-cxx) $(STB) -lm

# ns-3's own TcpNewReno on the Tonic Fig. 3 topology (Debian's ns-3 3.37: libns3-dev, libgsl-dev)
NS3_MODULES := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control
build/tonic_newreno_ns3: examples/ns3/tonic_newreno_ns3.cc
	@mkdir -p $(@D)
	g++ -std=c++17 -O2 -o $@ $< $$(pkg-config --cflags --libs $(NS3_MODULES))

# The examples link the engines compiled once (tests/impl.c at the programs' flags; the example's
# own code under RNIC_ENGINES_LINKED): an example then compiles in about a seventh of the time
# (make test builds them all). Their output is the same; the benchmarks and rnic_model keep the
# engines in their own translation unit (their speed is what they measure).
build/prog-impl.o: tests/impl.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -c $< -o $@

build/%: examples/%.c $(wildcard examples/*.h) $(HEADERS) build/prog-impl.o
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -DRNIC_ENGINES_LINKED $< build/prog-impl.o -o $@ -lm

build/%: bench/%.c bench/bench_util.h examples/cli.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) $< -o $@ -lm

install: $(HEADERS)
	install -d $(DESTDIR)$(PREFIX)/include/rnicq $(DESTDIR)$(PREFIX)/share/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/rnicq/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e "s|@VERSION@|$$(sed -n 's/^#define RNIC_VERSION_STRING "\(.*\)"/\1/p' src/common/base.h)|" \
		tools/rnicq.pc.in > $(DESTDIR)$(PREFIX)/share/pkgconfig/rnicq.pc

clean:
	rm -rf build
