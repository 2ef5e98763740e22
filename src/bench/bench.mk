# src/bench/bench.mk -- build rules for zerobench (CPU: MPI + OpenMP) and zerobench-cuda (CUDA + NCCL).
#
# Included by the top-level Makefile (which may set CC, CFLAGS, LDFLAGS), or
# used alone from the repository root:  make -f src/bench/bench.mk zerobench
#
# Targets:   zerobench  zerobench-cuda  test-bench  gpu-check  clean-bench
# Variables: V=1 (echo commands)  SANITIZER=address|undefined|...
#            MPICC (mpicc)  MPIRUN (mpirun)  CUDA_HOME (/usr/local/cuda)  NCCL_HOME (CUDA_HOME)
#            NVCC  BENCH_CUDA_ARCHS (80 90)  BENCH_ARCH (-march=native)  BENCH_OPT (-O3)
# Objects go to build/bench/{cpu,cuda}/ (build/bench/san/... when SANITIZER is set)
# with -MMD -MP dependency files.

BENCH_SAVED_GOAL := $(.DEFAULT_GOAL)

BENCH_DIR   := src/bench
BENCH_BUILD := build/bench$(if $(SANITIZER),/san)

MPICC     ?= mpicc
MPIRUN    ?= mpirun
CUDA_HOME ?= /usr/local/cuda
NCCL_HOME ?= $(CUDA_HOME)
BENCH_ARCH ?= -march=native
BENCH_OPT  ?= -O3
BENCH_CUDA_ARCHS ?= 80 90

ifeq ($(V),1)
BENCH_Q :=
BENCH_SAY := @true
else
BENCH_Q := @
BENCH_SAY := @printf '  %-6s %s\n'
endif

BENCH_SAN_CFLAGS  := $(if $(SANITIZER),-fsanitize=$(SANITIZER) -fno-omit-frame-pointer)
BENCH_SAN_LDFLAGS := $(if $(SANITIZER),-fsanitize=$(SANITIZER))

# Flags: the includer's CFLAGS first, ours after (so -O3 and -std=c11 win).
# -ffp-contract=fast lets FMA through (ISO C mode turns it off);
# -fno-math-errno lets sqrtf vectorise.
BENCH_CFLAGS = $(CFLAGS) -std=c11 $(BENCH_OPT) $(BENCH_ARCH) -Wall -Wextra -fopenmp -Isrc \
               -fno-math-errno -ffp-contract=fast -D_DEFAULT_SOURCE -MMD -MP $(BENCH_SAN_CFLAGS)
BENCH_LDFLAGS = $(LDFLAGS) -fopenmp $(BENCH_SAN_LDFLAGS)

# cblas for the CPU gemm: pkg-config openblas (preferred, used by --impl auto)
# or blas (reference BLAS: built in, used only with --impl cblas/all), and
# only if <cblas.h> compiles. Evaluated once, on first use.
BENCH_BLAS_PC = $(eval BENCH_BLAS_PC := $(shell \
    if pkg-config --exists openblas 2>/dev/null; then echo openblas; \
    elif pkg-config --exists blas 2>/dev/null; then echo blas; fi))$(BENCH_BLAS_PC)
BENCH_CBLAS_OK = $(eval BENCH_CBLAS_OK := $(if $(BENCH_BLAS_PC),$(shell \
    printf '#include <cblas.h>\n' | $(MPICC) $$(pkg-config --cflags $(BENCH_BLAS_PC)) -E -x c - \
    >/dev/null 2>&1 && echo yes)))$(BENCH_CBLAS_OK)
BENCH_BLAS_CFLAGS = $(if $(BENCH_CBLAS_OK),-DZB_HAVE_CBLAS $(if $(filter openblas,$(BENCH_BLAS_PC)),-DZB_CBLAS_OPTIMIZED) $(shell pkg-config --cflags $(BENCH_BLAS_PC)))
BENCH_BLAS_LIBS   = $(if $(BENCH_CBLAS_OK),$(shell pkg-config --libs $(BENCH_BLAS_PC)))

BENCH_HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)

# zerosim's model loader for gemm --model NAME: linked from the core library
# when the top-level Makefile includes us (it defines LIB_OBJ and builds
# $(BUILD)/libzerosim.a; its CFLAGS carry -Isrc and the cJSON flags). Alone,
# bench.mk builds without it and --model needs explicit sizes.
# Only gemm_core.c depends on it, built as gemm_core-zs.o with the loader and
# gemm_core.o without, so that either kind of build links from a shared tree.
BENCH_CORE_LIB    := $(if $(LIB_OBJ),$(BUILD)/libzerosim.a)
BENCH_CORE_LIBS   := $(if $(BENCH_CORE_LIB),$(BENCH_CORE_LIB) $(PKG_LIBS))
BENCH_CORE_O      := gemm_core$(if $(BENCH_CORE_LIB),-zs).o
# switching between the two kinds of build relinks: the stamp of the kind is new
BENCH_LINK_STAMP  := $(BENCH_BUILD)/.link-$(if $(BENCH_CORE_LIB),zs,alone)

# CUDA back end: needs nvcc and nccl.h (and mpicc, like the CPU back end).
BENCH_NVCC   := $(or $(NVCC),$(wildcard $(CUDA_HOME)/bin/nvcc),$(shell command -v nvcc 2>/dev/null))
BENCH_NCCL_H := $(firstword $(wildcard $(NCCL_HOME)/include/nccl.h $(CUDA_HOME)/include/nccl.h /usr/include/nccl.h))
BENCH_NCCL_INC := $(patsubst %/nccl.h,%,$(BENCH_NCCL_H))
BENCH_CUDA_OK  := $(if $(BENCH_HAVE_MPICC),$(if $(BENCH_NVCC),$(if $(BENCH_NCCL_H),yes)))
BENCH_CUDA_WHY := $(if $(BENCH_HAVE_MPICC),$(if $(BENCH_NVCC),nccl.h not found under NCCL_HOME=$(NCCL_HOME) or CUDA_HOME=$(CUDA_HOME),nvcc not found (CUDA_HOME=$(CUDA_HOME), PATH)),$(MPICC) not found)
# fp8 collectives where this nccl.h declares them (NCCL >= 2.24)
BENCH_NCCL_FP8 := $(if $(BENCH_NCCL_H),$(shell grep -q ncclFloat8e4m3 $(BENCH_NCCL_H) && echo -DZB_NCCL_FP8))
BENCH_CUDA_INC := -I$(CUDA_HOME)/include $(if $(BENCH_NCCL_INC),-I$(BENCH_NCCL_INC)) $(BENCH_NCCL_FP8)
BENCH_CUDA_LIBDIRS := $(sort $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib $(NCCL_HOME)/lib64 $(NCCL_HOME)/lib))
BENCH_CUDA_LIBS := $(foreach d,$(BENCH_CUDA_LIBDIRS),-L$(d) -Wl,-rpath,$(d)) -lnccl -lcublasLt -lcublas -lcudart -lstdc++
BENCH_NVCC_GENCODE := $(foreach a,$(BENCH_CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                      -gencode arch=compute_$(lastword $(BENCH_CUDA_ARCHS)),code=compute_$(lastword $(BENCH_CUDA_ARCHS))
BENCH_NVCCFLAGS = -O3 -std=c++17 $(BENCH_NVCC_GENCODE) -Xcompiler -Wall,-Wextra -MMD -MP

# Sources: common files are built once per back end (coll_*.c call MPI or
# NCCL depending on ZB_NCCL).
BENCH_COMMON := zb_main.c opts.c dtype.c fmt.c stats.c json.c zb_report.c be_common.c mpi_dtype.c \
                coll_data.c zb_harness.c zb_coll_allreduce.c zb_coll_allgather.c zb_coll_allgather_list.c \
                zb_coll_reducescatter.c \
                zb_coll_broadcast.c zb_coll_alltoall.c coll_reduce.c coll_gather.c coll_scatter.c \
                coll_sendrecv.c coll_run.c adam_common.c gemm_common.c gemm_table.c membw_common.c devsel.c
BENCH_CPU_ONLY  := be_mpi.c stream.c adam_cpu.c membw_cpu.c gemm_cpu.c
BENCH_CUDA_ONLY := be_cuda.c cuda_util.c stream.c adam_gpu.c membw_gpu.c gemm_gpu.c
BENCH_CU        := kernels.cu

# From src/, shared with zerosim: the atomic file writer behind -J.
BENCH_SHARED    := io/atomicfile.c
BENCH_CPU_OBJS  := $(patsubst %.c,$(BENCH_BUILD)/cpu/%.o,$(BENCH_COMMON) $(BENCH_CPU_ONLY) $(BENCH_SHARED)) \
                   $(BENCH_BUILD)/cpu/$(BENCH_CORE_O)
BENCH_CUDA_OBJS := $(patsubst %.c,$(BENCH_BUILD)/cuda/%.o,$(BENCH_COMMON) $(BENCH_CUDA_ONLY) $(BENCH_SHARED)) \
                   $(BENCH_BUILD)/cuda/$(BENCH_CORE_O) \
                   $(patsubst %.cu,$(BENCH_BUILD)/cuda/%.cu.o,$(BENCH_CU))

# Binaries: ./zerobench and ./zerobench-cuda; a SANITIZER build links them
# under build/bench/san/ instead (zerobench / zerobench-cuda then name those).
ifneq ($(SANITIZER),)
BENCH_BIN      := $(BENCH_BUILD)/zerobench
BENCH_CUDA_BIN := $(BENCH_BUILD)/zerobench-cuda
.PHONY: zerobench zerobench-cuda
zerobench: $(BENCH_BIN)
else
BENCH_BIN      := zerobench
BENCH_CUDA_BIN := zerobench-cuda
endif
.PHONY: test-bench clean-bench

$(BENCH_BUILD)/.link-zs $(BENCH_BUILD)/.link-alone:
	@mkdir -p $(@D)
	@rm -f $(BENCH_BUILD)/.link-zs $(BENCH_BUILD)/.link-alone
	@touch $@

$(BENCH_BIN): $(BENCH_CPU_OBJS) $(BENCH_CORE_LIB) $(BENCH_LINK_STAMP)
	$(BENCH_SAY) LINK $@
	$(BENCH_Q)$(MPICC) $(BENCH_LDFLAGS) -o $@ $(BENCH_CPU_OBJS) $(BENCH_CORE_LIBS) $(BENCH_BLAS_LIBS) -lm

# bench_cc: the recipe of every C object: mpicc with BENCH_CFLAGS and the extra flags $(1).
define bench_cc
@mkdir -p $(@D)
$(BENCH_SAY) CC $<
$(BENCH_Q)$(MPICC) $(BENCH_CFLAGS) $(1) -c -o $@ $<
endef

$(BENCH_BUILD)/cpu/%.o: $(BENCH_DIR)/%.c $(BENCH_DIR)/bench.mk
	$(call bench_cc,$(BENCH_BLAS_CFLAGS))

$(BENCH_SHARED:%.c=$(BENCH_BUILD)/cpu/%.o): $(BENCH_BUILD)/cpu/%.o: src/%.c $(BENCH_DIR)/bench.mk
	$(call bench_cc)

$(BENCH_SHARED:%.c=$(BENCH_BUILD)/cuda/%.o): $(BENCH_BUILD)/cuda/%.o: src/%.c $(BENCH_DIR)/bench.mk
	$(call bench_cc)

$(BENCH_BUILD)/cpu/gemm_core-zs.o $(BENCH_BUILD)/cuda/gemm_core-zs.o: $(BENCH_DIR)/gemm_core.c $(BENCH_DIR)/bench.mk
	$(call bench_cc,-DZB_HAVE_CORE)

ifeq ($(BENCH_CUDA_OK),yes)
ifneq ($(SANITIZER),)
zerobench-cuda: $(BENCH_CUDA_BIN)
endif
$(BENCH_CUDA_BIN): $(BENCH_CUDA_OBJS) $(BENCH_CORE_LIB) $(BENCH_LINK_STAMP)
	$(BENCH_SAY) LINK $@
	$(BENCH_Q)$(MPICC) $(BENCH_LDFLAGS) -o $@ $(BENCH_CUDA_OBJS) $(BENCH_CORE_LIBS) $(BENCH_CUDA_LIBS) -lm

$(BENCH_BUILD)/cuda/%.o: $(BENCH_DIR)/%.c $(BENCH_DIR)/bench.mk
	$(call bench_cc,-DZB_NCCL $(BENCH_CUDA_INC))

$(BENCH_BUILD)/cuda/%.cu.o: $(BENCH_DIR)/%.cu $(BENCH_DIR)/bench.mk
	@mkdir -p $(@D)
	$(BENCH_SAY) NVCC $<
	$(BENCH_Q)$(BENCH_NVCC) $(BENCH_NVCCFLAGS) $(BENCH_CUDA_INC) -c -o $@ $<
else
.PHONY: zerobench-cuda
zerobench-cuda:
	@echo "zerobench-cuda: skipped: $(BENCH_CUDA_WHY)"
endif

# Unit tests without MPI (fp8 encodings, GPU selection, fp8 GEMM check): plain cc.
BENCH_UNIT := $(BENCH_BUILD)/test-units
BENCH_UNIT_SRC := tests/bench/test_units.c $(addprefix $(BENCH_DIR)/,dtype.c devsel.c gemm_common.c gemm_core.c json.c) src/io/atomicfile.c
$(BENCH_UNIT): $(BENCH_UNIT_SRC) $(addprefix $(BENCH_DIR)/,dtype.h devsel.h gemm.h json.h bench.mk)
	@mkdir -p $(@D)
	$(BENCH_SAY) CC $@
	$(BENCH_Q)$(CC) -std=c11 -O1 -Wall -Wextra -D_DEFAULT_SOURCE -Isrc $(BENCH_SAN_CFLAGS) -o $@ \
	    $(BENCH_UNIT_SRC) $(BENCH_SAN_LDFLAGS) -lm

# The test script builds nothing itself when ZEROBENCH_NO_BUILD=1; without
# mpicc it reports a skip instead of failing the build.
test-bench: $(if $(BENCH_HAVE_MPICC),$(BENCH_BIN)) $(if $(BENCH_CUDA_OK),$(BENCH_CUDA_BIN)) $(BENCH_UNIT)
	$(BENCH_Q)ZEROBENCH_NO_BUILD=1 ZEROBENCH=./$(BENCH_BIN) ZEROBENCH_CUDA=./$(BENCH_CUDA_BIN) \
	    ZEROBENCH_UNITS=./$(BENCH_UNIT) \
	    MPIRUN="$(MPIRUN)" sh tests/bench/run.sh

# gpu-check: the unattended GPU suite (src/bench/gpu_check.sh). Without a GPU it prints one line
# and the script exits 77, which this target reports and turns into success, so that the target
# is safe anywhere; run the script itself to see 77. It checks for a GPU before building.
.PHONY: gpu-check
gpu-check:
	$(BENCH_Q)if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then \
	    sh $(BENCH_DIR)/gpu_check.sh; rc=$$?; [ $$rc -eq 77 ] && exit 0; exit $$rc; fi; \
	$(MAKE) -s zerobench-cuda zerosim && sh $(BENCH_DIR)/gpu_check.sh

clean-bench:
	rm -rf build/bench zerobench zerobench-cuda

-include $(BENCH_CPU_OBJS:.o=.d) $(BENCH_CUDA_OBJS:.o=.d)

# Keep the includer's default goal; standalone, the default is zerobench.
ifneq ($(BENCH_SAVED_GOAL),)
.DEFAULT_GOAL := $(BENCH_SAVED_GOAL)
else ifneq ($(filter %bench.mk,$(firstword $(MAKEFILE_LIST))),)
.DEFAULT_GOAL := zerobench
else
.DEFAULT_GOAL :=
endif
