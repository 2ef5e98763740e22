# zerosim -- memory planning and cost simulation for large-model training.
#
#   make            build ./zerosim
#   make demo       install dependencies, build, run the default estimate
#   make test       install dependencies, build, run every test normally and under ASan+UBSan
#   make test-python  the Python package (src/python) over build/libzerosim.so, and pip install
#   make test-tsan  the API's threads test under ThreadSanitizer (build/tsan)
#   make bench      the simulator's own speed benchmark, then zerosim serve under load
#   make serve      the web page on http://127.0.0.1:8080 (zerosim serve; SERVE_ARGS="--port N")
#   make test-browser  the page in headless Chromium (tests/browser; also part of make test)
#   make readme     rerun the README's `$ ./zerosim ...` examples and put their output in place
#   make zerobench  the microbenchmark harness (CPU/MPI; zerobench-cuda with nvcc + NCCL)
#   make gpu-check  the unattended GPU suite (src/bench/gpu_check.sh; one line and success without a GPU)
#   make fuzz       libFuzzer on every parser (FUZZ_SECONDS=10); fuzz-regress replays known crashers
#   make valgrind   memcheck over the unit suites and the commands
#   V=1             show full commands;  SANITIZER=address,undefined  sanitized build

CC       ?= cc
PKGS     := libcjson gsl libcurl yaml-0.1 libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# Link-time optimisation inlines across the src/ files (the evaluation path crosses sim,
# memory, comm, collective and steptime): about +20% evaluations/s in make bench. Fat objects
# keep plain machine code beside the IR, so the static library links without -flto too.
OPT      ?= -O2 -flto=auto -ffat-lto-objects
WARN     := -Wall -Wextra -Wshadow -Wcast-qual -Wconversion -Wmissing-prototypes
CFLAGS   += -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(OPT) -g -MMD -MP -Isrc $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm -pthread
LDFLAGS  += $(filter -O% -flto%,$(OPT))
BUILD    ?= build

ifneq ($(SANITIZER),)
CFLAGS   += -fsanitize=$(SANITIZER) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=$(SANITIZER)
BUILD    := build/san
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# src/ is grouped by layer, each folder including only the ones before it (tests/arch.sh):
# core (the pure model), io (files), analysis (searches and fits over the core), report, cmd,
# api (the library's request interface); then serve (SERVE_SRC below: in the program only).
LAYERS   := core io analysis report cmd api
# Library: everything but main.c, the command files and the API, so tests link it without a main.
LIB_SRC  := $(filter-out src/cmd/main.c src/cmd/cmd_%.c src/api/%.c,$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
CMD_SRC  := src/cmd/main.c $(wildcard src/cmd/cmd_*.c)
API_SRC  := $(wildcard src/api/*.c)
# serve (after api): `zerosim serve`, the web page and JSON endpoints over the request API, in
# the program only; the page's files (src/serve/web/) embedded by src/serve/embed.sh.
SERVE_SRC := $(wildcard src/serve/*.c)
SERVE_WEB := $(sort $(wildcard src/serve/web/*.html src/serve/web/*.js src/serve/web/*.css src/serve/web/*.svg))
SERVE_OBJ := $(SERVE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/serve_web.o
TEST_SRC := $(wildcard tests/test_*.c) tests/fixture_hw.c
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/%.o)
API_OBJ  := $(API_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
# The shared library (libzerosim.so, for the C API and the Python package): the same sources
# but main.c, compiled again position-independent under $(BUILD)/pic, exporting only zs_*.
SO_SRC   := $(LIB_SRC) $(filter-out src/cmd/main.c,$(CMD_SRC)) $(API_SRC)
SO_OBJ   := $(SO_SRC:%.c=$(BUILD)/pic/%.o)
SHLIB    := $(BUILD)/libzerosim.so
DEPS     := $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(SERVE_OBJ:.o=.d) $(BUILD)/tests/perf/serve_load.d $(API_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(SO_OBJ:.o=.d) \
            $(BUILD)/tests/perf/bench_sim.d

ZEROSIM  := zerosim
ifneq ($(SANITIZER),)
ZEROSIM  := $(BUILD)/zerosim
endif
UNIT     := $(BUILD)/unit-tests

.PHONY: readme serve test-browser all deps demo test test-unit test-cli test-python test-tsan test-sanitize bench valgrind clean
all: $(ZEROSIM) $(if $(SANITIZER),,$(SHLIB))

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC PIC  $<")
	$(Q)$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(SHLIB): $(SO_OBJ)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -shared -fPIC -Wl,-soname,libzerosim.so -o $@ $^ $(LDLIBS)

$(BUILD)/libzerosim.a: $(LIB_OBJ)
	$(Q)$(AR) rcs $@ $^

$(BUILD)/gen/serve_web.c: src/serve/embed.sh $(SERVE_WEB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  EMBED   $@")
	$(Q)sh src/serve/embed.sh $@ $(SERVE_WEB)

$(BUILD)/gen/serve_web.o: $(BUILD)/gen/serve_web.c
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(ZEROSIM): $(CMD_OBJ) $(SERVE_OBJ) $(API_OBJ) $(BUILD)/libzerosim.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The unit suites link the commands and the API too (test_api calls zs_call).
$(UNIT): $(TEST_OBJ) $(filter-out $(BUILD)/src/cmd/main.o,$(CMD_OBJ)) $(API_OBJ) $(BUILD)/libzerosim.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Debian packages the project needs; installs only what is missing (as root or via sudo).
DEB_PKGS := build-essential pkg-config libcjson-dev libyaml-dev libgsl-dev libcurl4-openssl-dev gnuplot-nox openmpi-bin libopenmpi-dev python3 valgrind clang libclang-rt-14-dev \
            libmicrohttpd-dev curl chromium chromium-driver python3-selenium python3-pip python3-venv python3-pandas
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# make test fuzzes each parser briefly (11 targets, two at a time: about a minute in all).
CI_FUZZ_SECONDS ?= 6

DEMO_ARGS := --model llama-2-70b --hardware a100-80gb --gpus 64 --seq-len 4096 --checkpointing full
demo: deps
	$(MAKE) --no-print-directory all
	./zerosim estimate $(DEMO_ARGS) || [ $$? -eq 1 ]
	./zerosim plot $(DEMO_ARGS) --runs tests/validation/published_runs.csv -o plots
	./zerosim compare $(DEMO_ARGS) --tokens 2e12 || [ $$? -eq 1 ]
	./zerosim estimate --config tests/data/launch/axolotl_llama3_qlora.yml || [ $$? -eq 1 ]
	./zerosim estimate --config tests/data/launch/llamafactory_llama3_lora_sft.yaml --gpus 8 || [ $$? -eq 1 ]
	./zerosim estimate --config tests/data/launch/accelerate_fsdp.yaml --model llama-3-8b || [ $$? -eq 1 ]
	./zerosim estimate --config tests/data/launch/trl_zephyr_sft_qlora.yaml --gpus 8 || [ $$? -eq 1 ]
	./zerosim estimate --config tests/data/launch/megatron_llama3_8b_fp8.sh --hardware h100-80gb || [ $$? -eq 1 ]
	./zerosim estimate --config tests/data/launch/titan_llama3_70b.json --gpus 64 || [ $$? -eq 1 ]

# Every step's output goes through tests/total.sh, whose last line totals every suite.
test: deps
	$(MAKE) --no-print-directory all
	@sh tests/total.sh build/test.log "$(MAKE) --no-print-directory test-unit test-cli test-python" \
	  "$(MAKE) --no-print-directory test-bench" "$(MAKE) --no-print-directory -j2 fuzz FUZZ_SECONDS=$(CI_FUZZ_SECONDS)" \
	  "$(MAKE) --no-print-directory test-sanitize" "$(MAKE) --no-print-directory test-tsan"

test-unit: $(UNIT)
	$(UNIT)

# The command-line scripts run side by side, each into its own log under $(BUILD)/cli, printed
# whole when all are done (slowest first: they bound the wall time).
CLI_TESTS := tests/cli/catalog.sh tests/cli/plan.sh tests/cli/compare.sh tests/cli/report.sh \
             tests/cli/calibrate.sh \
             tests/cli/estimate_published.sh tests/cli/estimate_parallel.sh tests/cli/estimate.sh \
             tests/cli/validate.sh tests/cli/output.sh tests/cli/facts.sh tests/cli/sweep.sh tests/cli/usage.sh tests/cli/hub.sh tests/cli/config.sh \
             tests/cli/serve.sh \
             tests/test_plot.sh \
             tests/arch_selftest.sh

test-cli: $(ZEROSIM)
	sh tests/arch.sh
	ZEROSIM=./$(ZEROSIM) sh tests/cli/run.sh $(BUILD)/cli $(CLI_TESTS)
	$(if $(SANITIZER),,ZEROSIM=./$(ZEROSIM) $(BROWSER_PY) tests/browser/serve_test.py)

# Debian's python3 where there is one (python3-selenium and python3-pandas are its packages).
PYTHON   ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
# The browser tests: Debian's python3 (python3-selenium) driving Debian's chromium; each prints
# "skipped: why" and passes where either is missing.
BROWSER_PY ?= $(PYTHON)
test-browser: $(ZEROSIM)
	ZEROSIM=./$(ZEROSIM) $(BROWSER_PY) tests/browser/serve_test.py --shot plots/serve.png

# The Python package (src/python/zerosim) over the shared library, against the CLI's JSON, and
# `pip install ./src/python` into fresh virtual environments, with $(PYTHON).
test-python: $(SHLIB) $(ZEROSIM)
	ZEROSIM=$(ZEROSIM) ZEROSIM_LIB=$(CURDIR)/$(SHLIB) $(PYTHON) tests/python/run.py

# ThreadSanitizer over tests/test_api.c (four threads calling zs_call at once with every kind of
# request): about 10 s to run, plus the instrumented build under build/tsan; any race fails.
test-tsan:
	$(MAKE) --no-print-directory SANITIZER=thread BUILD=build/tsan OPT=-O1 build/tsan/unit-tests
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" build/tsan/unit-tests api

# The sanitized pass: unit suites, CLI and plot scripts, the zerobench harness test, and the
# replay of every fuzz regression input.
test-sanitize:
	$(MAKE) --no-print-directory SANITIZER=address,undefined OPT=-O1 test-unit test-cli test-bench
	$(MAKE) --no-print-directory fuzz-regress

$(BUILD)/bench-sim: $(BUILD)/tests/perf/bench_sim.o $(BUILD)/libzerosim.a
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/serve-load: $(BUILD)/tests/perf/serve_load.o
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ -pthread

# The simulator's speed, then zerosim serve under load (tests/perf/serve_bench.sh: compare,
# estimate and list on the loopback, server and client on 2 cores, median of 5 runs).
bench: $(BUILD)/bench-sim $(ZEROSIM) $(BUILD)/serve-load
	$(BUILD)/bench-sim
	sh tests/perf/serve_bench.sh ./$(ZEROSIM) $(BUILD)/serve-load

# Memcheck over the unit suites and a few commands; any error or leak fails.
VALGRIND := valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
valgrind: $(UNIT) $(ZEROSIM)
	$(VALGRIND) $(UNIT) units model hardware training memory compat comm fit
	$(VALGRIND) ./$(ZEROSIM) estimate $(DEMO_ARGS) --format json >/dev/null || [ $$? -eq 1 ]
	$(VALGRIND) ./$(ZEROSIM) plan --model llama-2-7b --max-gpus 16 >/dev/null
	$(VALGRIND) ./$(ZEROSIM) validate tests/validation/published_runs.csv >/dev/null
	$(VALGRIND) ./$(ZEROSIM) calibrate --hardware h100-80gb --nccl-tests tests/data/nccl/all_reduce_2.19_h100x8.log >/dev/null
	$(VALGRIND) ./$(ZEROSIM) sweep --model llama-2-7b --gpus 8:64:x2 >/dev/null
	$(VALGRIND) ./$(ZEROSIM) report $(DEMO_ARGS) --runs tests/validation/published_runs.csv -o - >/dev/null
	@echo "valgrind: clean"

# The web page (http://127.0.0.1:8080/; SERVE_ARGS="--port 9000" to change it). Ctrl-C stops.
SERVE_ARGS ?=
serve: $(ZEROSIM)
	./$(ZEROSIM) serve $(SERVE_ARGS)

# The README's examples are the current build's output (tests/readme.py; --check only names them).
readme: $(ZEROSIM)
	python3 tests/readme.py

clean:
	rm -rf build zerosim zerobench zerobench-cuda

-include $(DEPS)

include src/bench/bench.mk
include tests/fuzz/fuzz.mk
