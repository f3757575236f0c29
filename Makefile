# lsugen: make run (generate, time and prove everything in specs/) and make test.
GO      ?= go
BIN     := bin/lsugen
SPECS   := $(wildcard specs/*.hcl)
LARGE   := $(wildcard specs/large/*.hcl)
OUT     ?= out
# Debian packages of the external simulators and tools, by command name.
TOOLS   := iverilog:iverilog verilator:verilator yosys:yosys sta:opensta cc:gcc g++:g++ parallel:parallel
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build run test verify-all crosscheck clock-check golden docs bench fuzz clean

all: build

# Install the simulators with apt-get where they are missing.
deps:
	@missing=""; for t in $(TOOLS); do \
	  cmd=$${t%%:*}; pkg=$${t#*:}; \
	  command -v $$cmd >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build:
	$(GO) build -o $(BIN) ./cmd/lsugen

# Generate every example spec into out/ (RTL, gates, golden vectors and
# testbenches, FuseSoC cores, Yosys scripts, SDC, C headers of the constant
# hashes), print the timing summary, prove RTL = gates formally, replay
# traced kernels through the Fermi-like shared memory, then the
# access-pattern tools on patterns and on Accel-Sim traces of kernels, and
# the pipeline study.
run: deps build
	$(BIN) gen --tb --fusesoc --c -o $(OUT) $(SPECS)
	$(BIN) timing $(SPECS)
	$(BIN) verify --formal $(SPECS)
	$(BIN) gen -o $(OUT) $(LARGE)
	$(BIN) timing $(LARGE)
	$(BIN) verify --sim netlist,verilator --cycles 20000 $(LARGE)
	$(BIN) replay specs/large/shared_memory_fermi.hcl:shmem_fermi specs/traces/accelsim/kernelslist.g \
		specs/traces/accelsim/pipesim_example.traceg specs/traces/transpose.trace
	$(BIN) conflicts specs/patterns_000.hcl
	$(BIN) search --function bitvector_xor --addr-bits 10 --bank-bits 5 --name transpose_bvxor \
		-o $(OUT)/transpose_hash.hcl --svg $(OUT)/transpose.svg specs/traces/transpose.trace
	$(BIN) gen -o $(OUT) $(OUT)/transpose_hash.hcl
	$(BIN) verify --sim netlist $(OUT)/transpose_hash.hcl
	$(BIN) conflicts --hash $(OUT)/transpose_hash.hcl:transpose_bvxor specs/traces/transpose.trace
	$(BIN) conflicts --lock-hash specs/locks_002.hcl:lock_xor specs/traces/accelsim/kernelslist.g
	$(BIN) search --compare --addr-bits 12 --bank-bits 5 specs/traces/accelsim/kernelslist.g
	$(BIN) profile --timing-mode unsized --clock 40,48,56 specs/traces/accelsim/profile_*.traceg
	$(BIN) pipesim specs/pipeline_study.hcl --accelsim specs/traces/accelsim/pipesim_example.traceg
	$(BIN) pipesim specs/pipeline_figure4.hcl --trace specs/traces/figure4.ptrace
	$(BIN) pipesim specs/pipeline_study.hcl --preset aes_encrypt
	$(BIN) study atomics-fig5 --svg $(OUT)/atomics_fig5.svg
	$(BIN) study hough --svg $(OUT)/hough.svg

# go test runs the packages in the order given, two at a time on two
# cores: the longest first (by a cold run's package times,
# docs/verification.md#test-suite-time), so that the last minutes are not
# one long package alone on one core.
SLOW_PKGS = ./verify ./verify/formal ./cmd/lsugen ./golden ./verify/sta ./verify/hdl ./cmd/lsugen-bench ./units

# -trimpath: the compiled packages do not depend on where the checkout
# is, so a fresh clone finds them in Go's build cache.
test: deps
	$(GO) vet -trimpath ./...
	$(GO) test -trimpath -timeout 80m $(SLOW_PKGS) ./...

# Every example unit through model = netlist = Icarus = Verilator with
# lsugen verify's defaults, a line per check and a summary table: the same
# checks as make test's TestSpecs_ModelNetlistIcarusVerilator, from the
# command line.
verify-all: deps build
	$(BIN) verify $(SPECS)

# The FO4 model against Yosys + OpenSTA on a real cell library, every
# example unit; rewrites docs/crosscheck-timing.md. LIBERTY: your library;
# the default is the sky130 library that sits beside the repository, not in
# it.
LIBERTY         ?= ../shared/liberty/sky130_fd_sc_hd__tt_025C_1v80.lib.gz
CROSSCHECK_FLAGS ?= --jobs 2 --timeout 15m --progress
crosscheck: deps build
	$(BIN) crosscheck-timing --liberty $(LIBERTY) $(CROSSCHECK_FLAGS) --doc docs/crosscheck-timing.md $(SPECS)

# Every combinational example unit pipelined at 1 GHz and at 500 MHz on
# sky130 with timing_mode "liberty", each stage timed by OpenSTA on
# lsugen's gates mapped to the library's cells; rewrites the table of
# docs/clocks.md. make test runs the same check on the units of up to
# 1,500 gates.
clock-check: deps
	$(GO) test ./verify/sta -run '^TestLibertyClock$$' -clock-all -clock-doc $(CURDIR)/docs/clocks-table.md -timeout 120m -v

# Refresh the golden files after a reviewed change of the generators.
golden:
	$(GO) test ./golden -update

# Regenerate the generated pages (a test fails while one is stale):
# docs/spec-reference.md from the spec loader's tables, the Tables 5.1/5.2
# section of docs/timing-model.md from simulation, docs/schema/*.json, the
# import table of docs/architecture.md from go list.
docs:
	$(GO) test ./units -run 'SpecReference|SpeculativeTables' -update-docs
	$(GO) test ./cmd/lsugen -run JSONSchemas_UpToDate -update-docs
	$(GO) test ./internal/architecture -update-docs

# lsugen side by side with Verilator and Yosys on this machine (the first
# run builds the Verilator models, minutes for the 64-lane coalescer, and
# caches them), then the Go benchmarks behind the README's other figures,
# then the proof of the 48 KB shared memory (about 2 minutes).
bench: deps
	$(GO) run ./cmd/lsugen-bench
	$(GO) test -run '^$$' -bench . -benchtime 2s ./netlist ./timing ./golden ./tools/...
	$(GO) test -run '^$$' -bench FermiSharedMemory -benchtime 1x -timeout 70m ./verify/formal

# Every fuzz target in turn, FUZZTIME each (issue 18's campaign ran 10m
# each with one worker); new interesting inputs stay in the Go cache, copy
# them into the package's testdata/fuzz/TARGET to keep them.
FUZZTIME ?= 3m
FUZZ_TARGETS = specs:FuzzLoader cmd/lsugen:FuzzCLI timing/liberty:FuzzParse \
	timing/liberty:FuzzParseLibrary timing/liberty:FuzzParseFunction \
	tools/trace:FuzzParse tools/accelsim:FuzzReader tools/pipesim:FuzzParse \
	tools/pipesim:FuzzFromAccelSim tools/profile:FuzzProfiler_Add
fuzz:
	set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $$t"; \
		$(GO) test ./$${t%%:*} -run '^$$' -fuzz "^$${t##*:}\$$" -fuzztime $(FUZZTIME) -parallel 1; \
	done

clean:
	rm -rf bin $(OUT)
