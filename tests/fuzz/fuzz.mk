# fuzz.mk -- libFuzzer targets for every input parser (included by the top-level Makefile).
#
#   make fuzz [FUZZ_SECONDS=10]  build the targets with clang, fuzz each for FUZZ_SECONDS
#                                (make -j2 runs two at a time); fails on any crash, leak,
#                                timeout or sanitizer report; runs per target in
#                                build/fuzz/report.txt, logs in build/fuzz/logs/, crashing
#                                inputs in build/fuzz/artifacts/<target>/
#   make fuzz-regress            every target once over tests/data/fuzz-regressions/<target>/
#                                and the real seed files: quick, part of make test
#   make fuzz-build              only build build/fuzz/fuzz_<target>
# Standalone, without the top-level Makefile: make -f tests/fuzz/fuzz.mk fuzz
# Needs clang with the libFuzzer runtime (Debian: clang, libclang-rt-14-dev).

FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 10
FUZZ_BUILD   := build/fuzz
FUZZ_TARGETS := model hardware dsconfig nccl harness runs units grid safetensors launch flags

# Its own compile of the library: instrumented for coverage (fuzzer-no-link) and sanitized;
# a UBSan finding must stop the run, or the fuzzer would not record it.
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -O1 -g -MMD -MP -Isrc \
                $(shell pkg-config --cflags libcjson gsl libcurl yaml-0.1 2>/dev/null)
FUZZ_LDLIBS  := $(shell pkg-config --libs libcjson gsl libcurl yaml-0.1 2>/dev/null) -lm
FUZZ_Q       := $(if $(filter 1,$(V)),,@)

FUZZ_LIB_SRC := $(filter-out src/cmd/main.c src/cmd/cmd_%.c,$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c))) \
                tests/fuzz/fuzz_common.c
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_TGT_OBJ := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_RUNS    := $(FUZZ_TARGETS:%=fuzz-run-%)

.PHONY: fuzz fuzz-build fuzz-regress $(FUZZ_RUNS)

fuzz-build: $(FUZZ_BINS)

# Say what is missing once, instead of a link error per target.
$(FUZZ_BUILD)/cc-ok:
	@mkdir -p $(FUZZ_BUILD)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > $(FUZZ_BUILD)/cc-check.c
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $(FUZZ_BUILD)/cc-check.c -o $(FUZZ_BUILD)/cc-check 2>/dev/null || \
	  { echo "fuzz: '$(FUZZ_CC) -fsanitize=fuzzer' does not link: install clang with its libFuzzer runtime (Debian: clang libclang-rt-14-dev)" >&2; exit 1; }
	@touch $@

$(FUZZ_LIB_OBJ) $(FUZZ_TGT_OBJ): $(FUZZ_BUILD)/obj/%.o: %.c | $(FUZZ_BUILD)/cc-ok
	@mkdir -p $(dir $@)
	@$(if $(FUZZ_Q),echo "  FUZZCC  $<")
	$(FUZZ_Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c $< -o $@

$(FUZZ_BUILD)/libzerosim-fuzz.a: $(FUZZ_LIB_OBJ)
	$(FUZZ_Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_BINS): $(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libzerosim-fuzz.a
	@$(if $(FUZZ_Q),echo "  FUZZLD  $@")
	$(FUZZ_Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(FUZZ_LDLIBS)

# Each run always writes its result line; `fuzz` collects them and fails if one failed, so
# that one finding does not hide the other targets' results.
$(FUZZ_RUNS): fuzz-run-%: $(FUZZ_BUILD)/fuzz_%
	@sh tests/fuzz/run.sh $* $(FUZZ_SECONDS) $(FUZZ_BUILD) || true

fuzz: $(FUZZ_RUNS)
	@{ echo "# make fuzz FUZZ_SECONDS=$(FUZZ_SECONDS), $$(date -u '+%Y-%m-%d %H:%M UTC')"; \
	   for t in $(FUZZ_TARGETS); do cat $(FUZZ_BUILD)/results/$$t.txt 2>/dev/null || \
	     echo "fuzz_$$t FAILED: no result (see $(FUZZ_BUILD)/logs/$$t.log)"; done; } > $(FUZZ_BUILD)/report.txt
	@echo "fuzz: report in $(FUZZ_BUILD)/report.txt"
	@! grep -q FAILED $(FUZZ_BUILD)/report.txt || { grep FAILED $(FUZZ_BUILD)/report.txt >&2; exit 1; }

fuzz-regress: $(FUZZ_BINS)
	@sh tests/fuzz/regress.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_TGT_OBJ:.o=.d)

# Including this file must not change what a plain `make` builds.
.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
