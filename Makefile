# SPDX-License-Identifier: Apache-2.0
# direkt: the two commands a newcomer needs are `make demo` and `make test`; both install what is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# The host runtime needs Java 25 (Foreign Function & Memory API): the Temurin 25 JDK beside the system Java.
JAVA_HOME := /usr/lib/jvm/temurin-25-jdk-amd64
export JAVA_HOME
export PATH := $(JAVA_HOME)/bin:$(PATH)
# Maven 3.8's bundled Guava calls sun.misc.Unsafe; Java 25 warns about it on every run unless told it is allowed.
export MAVEN_OPTS ?= --sun-misc-unsafe-memory-access=allow

MVN  := mvn -B -q
VENV := .venv
PY   := $(VENV)/bin/python
PYTEST := $(abspath $(VENV))/bin/pytest
# Short benches in `make test`; `make regress` sets DIREKT_REGRESS=1 for the long form.
SIMS := verilator icarus

# The measured tables of README.md and docs/ must be what bench/results hold (bench/readme_tables.py renders them).
readme-check:
	@python3 bench/readme_tables.py --check

# bench/timing.py's netlist pass (a register after a block RAM read into the RAM's output
# register) on small netlists: one it must pack, five it must leave alone.
bench-check:
	@python3 bench/ecp5_outreg.py --self-test

# The documentation site (mkdocs.yml, docs/) into build/docs, built by the venv's MkDocs in strict mode: a
# link to a page or an anchor that does not exist fails it; then README.md's links are checked against it.
docs: setup
	@$(PY) scripts/docs_check.py

# The same, after showing that a broken link and a broken anchor fail each check (part of make test).
docs-check: setup
	@$(PY) scripts/docs_check.py --self-test

# Every source file names its licence (SPDX); the check first shows it can fail.
licence-check:
	@python3 scripts/spdx_check.py --self-test
	@python3 scripts/spdx_check.py

# No run of six or more identical lines stands twice inside sim/ or inside formal/ (one piece of
# bench or proof logic in one place); the check first shows a planted repeat fails.
repeat-check:
	@python3 scripts/repeat_check.py --self-test sim formal

.PHONY: readme-check bench-check licence-check repeat-check docs docs-check help setup build dist test-dist fusesoc-check rdl-check test test-plan driver test-importer test-java test-sim test-sim-verilator test-sim-icarus fault-check lint regress regress-sim regress-icarus regress-verilator-long formal-long demo golden ip formal bench bench-area bench-fifo bench-bridge bench-overlay bench-lint-kernel bench-regions bench-aperture bench-timing bench-bounce bench-session mutation clean

help:
	@echo "make demo     install what is missing, build, emit and simulate the example designs"
	@echo "make test     install what is missing, run every test (JUnit, lint, formal proofs, cocotb on Verilator and Icarus, the docs' links) as timed stages"
	@echo "make test-plan  which test and proof runs in make test and which in make regress"
	@echo "make docs     the documentation site into build/docs (open build/docs/index.html); its links and README's checked"
	@echo "make fault-check  each simulated fault (DIREKT_SIM_FAULT) fails the bridge bench make test runs"
	@echo "make driver   build the importer kernel module (host-runtime/driver) with -Werror against Debian's kernel headers"
	@echo "make test-importer  the importer in Debian's kernel under QEMU: every case, without and with an IOMMU, and from Java"
	@echo "make licence-check  every source file carries its SPDX licence line (scripts/spdx_check.py --fix adds missing ones)"
	@echo "make repeat-check  no run of six or more identical lines stands twice inside sim/ or formal/"
	@echo "make dist     build/dist/direkt-<version>-linux-x86_64.tar.gz: direkt with its own Java runtime, for machines without Java or Maven"
	@echo "make test-dist  the dist tarball unpacked and run with no java on PATH: overlay, lint-kernel, inspect, direkt-run (shown first to fail on broken copies)"
	@echo "make fusesoc-check  FuseSoC runs the lint target of every .core in ip/ and in an overlay's ip/ (and the overlay core's sim target)"
	@echo "make rdl-check  an overlay's direkt_bridge_csr.rdl compiled by systemrdl-compiler and compared with its manifest; its PeakRDL HTML and C header checked"
	@echo "make lint     verilator -Wall, iverilog and yosys on every Verilog file the project emits"
	@echo "make regress  long simulations, the whole Icarus set and the long proofs (what make test leaves out)"
	@echo "make golden   regenerate the emitter's golden files (review the diff)"
	@echo "make ip       regenerate the reference IP in ip/ from the generators"
	@echo "make formal   k-induction proofs (Yosys + yosys-smtbmc + z3) of the reference IP"
	@echo "make bench    bench-area (Yosys, Cyclone V), bench-fifo, bench-bridge (simulation), bench-overlay and bench-lint-kernel (CLI), bench-timing, bench-session into bench/results"
	@echo "make bench-regions  the GPU region walker: 64 MB through fragmented pages, area, place and route"
	@echo "make bench-aperture the GPU-master aperture under a GPU copy-engine model (Gen3 x8): throughput, area"
	@echo "make bench-timing  Fmax of every bridge preset against the async FIFO on ECP5 (Yosys + nextpnr-ecp5 place and route)"
	@echo "make mutation  PIT mutation testing of hdl-dsl, generators, board-spec and bsp-overlay into bench/results/mutation.json (target: 75 % per module)"
	@echo "make bench-bounce  (a machine with an NVIDIA GPU) the fallback path's CUDA half: pinned host <-> GPU copies, 4 B .. 64 MB"
	@echo "make bench-session a Session on its simulated FPGA: session start and GPU <-> FPGA copies (4 KB .. 4 MB, both paths)"

setup:
	@scripts/setup.sh

build: setup
	$(MVN) -DskipTests package

# Every test, as timed stages (scripts/stages.py): setup and build once, then the stages in order, two
# targets side by side where a stage names two; a table of each stage's wall time against its budget
# ends every run (docs/testing.md, "Where the time goes"). `make test-plan` lists which tests run where.
test:
	@python3 scripts/stages.py test

test-plan: setup
	@$(PY) scripts/test_plan.py

# FuseSoC (the venv's, scripts/requirements-ecosystem.txt) runs the lint target (Verilator -Wall) of
# every .core direkt ships: ip/'s, one per reference top, and an overlay's, whose sim target (Icarus)
# runs too. The self-test first shows a lint warning and a missing file fail a core.
fusesoc-check: build
	@rm -rf build/fusesoc-check && mkdir -p build/fusesoc-check
	@bin/direkt overlay --bsp examples/bsp/direkt_ref --out build/fusesoc-check/overlay --no-peakrdl > build/fusesoc-check/overlay.log \
	  || { cat build/fusesoc-check/overlay.log; exit 1; }
	@$(PY) scripts/fusesoc_check.py --self-test ip
	@$(PY) scripts/fusesoc_check.py --sim build/fusesoc-check/overlay/ip

# The register map's SystemRDL export against the manifest (systemrdl-compiler), with the HTML
# reference and C header the overlay renders with PeakRDL (scripts/rdl_check.py; its self-test first
# shows a moved register, a reset value, an access, a field's bits and a missing register are caught).
rdl-check: build
	@rm -rf build/rdl-check && mkdir -p build/rdl-check
	@bin/direkt overlay --bsp examples/bsp/direkt_ref --out build/rdl-check/overlay --peakrdl $(VENV)/bin/peakrdl > build/rdl-check/overlay.log \
	  || { cat build/rdl-check/overlay.log; exit 1; }
	@$(PY) scripts/rdl_check.py --self-test build/rdl-check/overlay

# The installable direkt (scripts/dist.sh): build/dist/direkt-<version>-linux-x86_64.tar.gz, the
# launchers, the jars, a jlinked Java runtime, the examples. Reproducible from the same jars.
dist: build
	@scripts/dist.sh

# The tarball unpacked into a fresh folder and run with no java on PATH and no JAVA_HOME (scripts/dist_test.sh);
# the self-test first shows its checks fail on copies broken on purpose.
test-dist: dist
	@scripts/dist_test.sh --self-test
	@scripts/dist_test.sh

test-java:
	$(MVN) test
	@cat */target/surefire-reports/*.txt | awk '/Tests run:/ {gsub(",", ""); r += $$3; f += $$5; e += $$7; s += $$9} \
	  END {printf "junit: %d tests, %d failures, %d errors, %d skipped\n", r, f, e, s}'

# The importer kernel module (host-runtime/driver), built with -Werror against Debian's 6.1 headers
# (scripts/kernel.sh headers fetches and unpacks them under build/kernel).
driver: setup
	@kdir=$$(scripts/kernel.sh headers) && mkdir -p build/kernel \
	  && { $(MAKE) -C host-runtime/driver KDIR=$$kdir > build/kernel/driver.log 2>&1 \
	       || { cat build/kernel/driver.log; echo "driver: the build failed (log: build/kernel/driver.log)" >&2; exit 1; }; } \
	  && echo "driver: host-runtime/driver/direkt_importer.ko built with -Werror against $$(basename $$kdir)"

# The importer's VM test: the module, a test-only exporter and QEMU's edu device (the FPGA stand-in)
# in Debian's kernel under QEMU, booted without and with an Intel IOMMU, then once more with the Java
# importer from the jlinked bundle (scripts/gpu-bundle.sh). Consoles under build/importer-vmtest/.
test-importer: setup build
	@bash scripts/gpu-bundle.sh > build/gpu-bundle.log 2>&1 || { cat build/gpu-bundle.log; exit 1; }
	@python3 host-runtime/driver/test/vmtest.py --java-bundle build/gpu

lint: build
	@scripts/lint.sh

# Every bench on Verilator, two at a time (pytest-xdist; the slowest start first), then the smoke set
# on Icarus (sim/direkt_sim/plan.py: one parameter set a bench, the X-propagation check); the whole
# Icarus set runs in `make regress`. First: the progress lines make regress prints are shown right.
test-sim: test-sim-verilator test-sim-icarus

test-sim-verilator: build
	@cd sim && ../$(PY) direkt_sim/progress.py --self-test
	@echo "== cocotb benches on verilator (two at a time)"
	@cd sim && SIM=verilator $(PYTEST) -q -n 2 --dist worksteal tb

test-sim-icarus: build
	@echo "== cocotb smoke set on icarus"
	@cd sim && SIM=icarus $(PYTEST) -q -n 2 --dist worksteal --smoke tb

# Each DIREKT_SIM_FAULT kind (a corrupted byte, a dropped status, a wrong ID) fails the bridge bench
# that make test runs on both simulators, and the same run passes without it (scripts/fault_check.py).
fault-check: build
	@$(PY) scripts/fault_check.py

# `make regress` (scripts/stages.py regress): what `make test` leaves out, as timed stages: every
# Icarus parameter set (make test runs its smoke set), the long form of every bench on Verilator
# (DIREKT_REGRESS=1: ten times the stimulus, and channel_port's every combination), the long proofs.
regress:
	@python3 scripts/stages.py regress

# Each run writes sim/build/regress-<name>.log and, on the terminal, a line per finished bench:
# done / total, elapsed, time left (by the last run's times, sim/build/regress-<name>-times.json;
# direkt_sim/progress.py). Two benches at a time (pytest-xdist, the slowest first).
define regress_run
	@mkdir -p sim/build; echo "== $(2) (log: sim/build/regress-$(1).log)"; \
	cd sim && $(3) DIREKT_PROGRESS_FD=3 DIREKT_PROGRESS_LABEL=$(1) DIREKT_PROGRESS_HISTORY=build/regress-$(1)-times.json \
	  $(PYTEST) -q -n 2 --dist worksteal tb 3>&2 > build/regress-$(1).log 2>&1; rc=$$?; \
	echo "== $(1): $$(tail -n 1 build/regress-$(1).log)"; \
	if [ $$rc -ne 0 ]; then grep -h -A40 -m3 "FAILED\|Error" build/regress-$(1).log | head -120; fi; exit $$rc
endef

regress-sim: regress-icarus regress-verilator-long

regress-icarus: build
	$(call regress_run,icarus,every cocotb bench on icarus,SIM=icarus)

regress-verilator-long: build
	$(call regress_run,verilator-long,the long form of every cocotb bench on verilator,DIREKT_REGRESS=1 SIM=verilator)

# The proofs that take over a minute each (formal/run.py LONG_CONFIGS), each reported as it ends.
formal-long: setup
	python3 formal/run.py --long

demo: build
	@scripts/demo.sh

CLASSPATH_GEN := contract/target/classes:hdl-dsl/target/classes:generators/target/classes

ip: build
	java -cp $(CLASSPATH_GEN) org.direkt.generators.Emit --ip ip

formal: setup
	python3 formal/run.py

bench: bench-area bench-fifo bench-bridge bench-overlay bench-lint-kernel bench-timing bench-session

bench-area: build
	python3 bench/area.py

bench-fifo: build
	$(PY) bench/fifo.py

# Each bench rewrites its tables (README.md, docs/) from its results, also when a bound is missed (then it exits 1).
bench-bridge: build
	$(PY) bench/bridge.py; rc=$$?; python3 bench/readme_tables.py --write; exit $$rc

bench-overlay: build
	$(PY) bench/overlay.py

bench-lint-kernel: build
	$(PY) bench/lint_kernel.py

# The GPU-master aperture under a model of a GPU's copy engine on PCIe Gen3 x8 (simulation, about 15
# minutes) and its area, into bench/results/aperture.json and aperture.png, then its table (docs/gpu-master.md).
bench-aperture: build
	$(PY) bench/aperture.py; rc=$$?; python3 bench/readme_tables.py --write; exit $$rc

# The GPU region walker: one 64 MB request through fragmented pages (simulation) and its area, then its
# place and route beside the reference FIFO into bench/results/timing-regions.json.
bench-regions: build ip
	$(PY) bench/regions.py; rc=$$?; \
	$(PY) bench/timing.py --presets none --units --out bench/results/timing-regions.json --plot bench/results/timing-regions.png || rc=1; \
	python3 bench/readme_tables.py --write; exit $$rc

# Place and route (pinned YoWASP Yosys and nextpnr-ecp5 from bench/requirements.txt), two tops at a time.
bench-timing: build
	$(PY) bench/timing.py; rc=$$?; python3 bench/readme_tables.py --write; exit $$rc

# The bounce path's CUDA half on this machine's GPU, into bench/results/bounce-<device>.json, then
# its table (docs/host-runtime.md); without a GPU it says so, writes nothing and fails. (Not part of `make bench`:
# that runs anywhere.) A GPU machine without Java runs it from the bundle: scripts/gpu-bundle.sh.
bench-bounce: build
	java --enable-native-access=ALL-UNNAMED \
	  -cp host-runtime/target/classes:host-runtime/target/test-classes:$$(cat host-runtime/target/classpath.txt) \
	  org.direkt.runtime.bench.BounceBench --out bench/results
	python3 bench/readme_tables.py --write

# A Session on its simulated FPGA, wall time on this machine: session start (simulator build cached) and
# copies GPU -> FPGA -> GPU of 4 KB .. 4 MB on both paths, into bench/results/session.json, then
# its table (docs/host-runtime.md). It exits 1 when a start takes over 10 s or a 256 KB copy over 1 s.
bench-session: build
	@bin/direkt overlay --bsp examples/bsp/direkt_ref --out build/bench-session/overlay > build/bench-session.log
	java --enable-native-access=ALL-UNNAMED \
	  -cp host-runtime/target/classes:host-runtime/target/test-classes:$$(cat host-runtime/target/classpath.txt) \
	  org.direkt.runtime.bench.SessionBench --overlay build/bench-session/overlay --out bench/results/session.json; \
	  rc=$$?; python3 bench/readme_tables.py --write; exit $$rc

# PIT on the four modules in one reactor (one module at a time, PIT_THREADS threads each; the pom's
# pluginManagement says why these versions and mutators), then bench/mutation.py writes the scores,
# the verdicts and every surviving mutant; it exits 1 when a module is under 75 %.
PIT_THREADS ?= 2
MUTATION_MODULES := hdl-dsl,generators,board-spec,bsp-overlay

mutation: setup
	@mkdir -p build/mutation
	@echo "mutation: PIT on $(MUTATION_MODULES), $(PIT_THREADS) threads (log: build/mutation/pit.log)"
	@mvn -B -pl $(MUTATION_MODULES) -Dpit.threads=$(PIT_THREADS) \
	  test-compile org.pitest:pitest-maven:mutationCoverage > build/mutation/pit.log 2>&1 \
	  || { tail -n 60 build/mutation/pit.log; echo "mutation: PIT failed (log: build/mutation/pit.log)" >&2; exit 1; }
	@python3 bench/mutation.py --log build/mutation/pit.log

golden: setup
	$(MVN) test -Ddirekt.updateGolden=true -Dtest=EmitterTest -Dsurefire.failIfNoSpecifiedTests=false
	@git status --short hdl-dsl/src/test/resources/golden

clean:
	$(MVN) clean
	rm -rf build sim/build
