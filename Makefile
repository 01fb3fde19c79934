# One non-recursive Makefile for topogen, dpsgd-train and their tests.
#
#   make            build bin/topogen and bin/dpsgd-train
#   make check      install missing packages, build, run the Check suites
#   make check-cluster  a run over 2 hosts made of network namespaces (root)
#   make demo       install missing packages, build, run the main job
#   make install    copy both programs to $(DESTDIR)$(PREFIX)/bin
#   make fuzz       libFuzzer harnesses of tests/fuzz/ (clang, ASan+UBSan),
#                   each run FUZZ_SECONDS (default 60); fails on a finding
#
# Variables: CC, MPICC, OPT (default -O2), EXTRA_CFLAGS / EXTRA_LDFLAGS
# (e.g. -Werror, -fsanitize=address,undefined), BUILD (objects), BIN
# (programs), NP (ranks for the MPI tests), PREFIX, DESTDIR.

CC      ?= cc
MPICC   ?= mpicc
OPT     ?= -O2
BUILD   ?= build
BIN     ?= bin
PREFIX  ?= /usr/local
NP      ?= 4

PKG_CONFIG ?= pkg-config
IGRAPH_CFLAGS := $(shell $(PKG_CONFIG) --cflags igraph 2>/dev/null)
IGRAPH_LIBS   := $(shell $(PKG_CONFIG) --libs igraph 2>/dev/null)
BLAS_CFLAGS   := $(shell $(PKG_CONFIG) --cflags openblas 2>/dev/null)
BLAS_LIBS     := $(shell $(PKG_CONFIG) --libs openblas 2>/dev/null)
CHECK_CFLAGS  := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS    := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)
# GSL without its reference CBLAS: OpenBLAS (linked first) provides cblas_*.
GSL_CFLAGS    := $(shell $(PKG_CONFIG) --cflags gsl 2>/dev/null)
GSL_LIBS      := -lgsl
# CHOLMOD (libsuitesparse-dev, no .pc file) and LAPACKE (liblapacke-dev):
# the sparse Cholesky and the tridiagonal eigensolves of
# src/cm_shiftinv.c; every program linking src/ links it before BLAS.
SPARSE_CFLAGS := -I/usr/include/suitesparse
BLAS_LIBS     := -lcholmod -llapacke $(BLAS_LIBS)

# Include paths follow the floor plan, so an include that points up does
# not compile: src/ sees only itself; topo/ sees src/; topo/cli/ sees
# topo/; each train/ layer sees the ones below it
# (nn < data < core < distributed < cli). Tests see everything.
INC_SRC   := -Isrc
INC_TOPO  := $(INC_SRC) -Itopo
INC_TCLI  := $(INC_TOPO) -Itopo/cli
INC_NN    := $(INC_SRC) -Itrain/nn
INC_DATA  := $(INC_NN) -Itrain/data
INC_CORE  := $(INC_DATA) -Itrain/core
INC_DIST  := $(INC_CORE) -Itrain/distributed
INC_DCLI  := $(INC_DIST) -Itrain/cli
INC_ALL   := $(INC_TCLI) $(INC_DCLI) -Itests
INC       ?= $(INC_ALL)
CPPFLAGS += -D_GNU_SOURCE
CFLAGS   ?= -std=c11 -Wall -Wextra $(OPT) -g
ALL_CFLAGS = $(CFLAGS) $(OMP_CFLAGS) $(EXTRA_CFLAGS) $(BLAS_CFLAGS) \
             $(SPARSE_CFLAGS) $(GSL_CFLAGS) $(IGRAPH_CFLAGS) -MMD -MP
# OpenMP: the engine's threads (dt_net_set_threads, --threads); compiled
# into train/nn only, linked into the programs that contain it.
OPENMP ?= -fopenmp
ALL_LDFLAGS = $(LDFLAGS) $(EXTRA_LDFLAGS)

# ---- sources: a file's folder and name decide how it is built -------------
#   src/                 the floor both programs stand on (cm_*); no main
#   topo/                topogen's library (tg_*); no MPI
#   topo/cli/            topogen's command line (main and its parts)
#   train/nn/            the network engine
#   train/data/          data sets and partitions
#   train/core/          one process's pieces: configuration, logging, the
#                        update rules, the gossip plan, checkpoint files
#   train/distributed/   the run over MPI: *_mpi.c include <mpi.h> (built
#                        with $(MPICC)); the rest call their dt_comm /
#                        dt_gossip API, so they link only where those are
#   train/cli/           dpsgd-train's main
SRC_SRCS       := $(wildcard src/*.c)
TOPO_SRCS      := $(wildcard topo/*.c)
TOPO_CLI_SRCS  := $(wildcard topo/cli/*.c)
TRAIN_SRCS     := $(wildcard train/nn/*.c train/data/*.c train/core/*.c)
DIST_MPI_SRCS  := $(wildcard train/distributed/*_mpi.c)
DIST_SRCS      := $(filter-out $(DIST_MPI_SRCS),$(wildcard train/distributed/*.c))
TRAIN_CLI_SRCS := $(wildcard train/cli/*.c)
UNIT_TESTS   := $(wildcard tests/check_*.c)
MPI_TESTS    := $(wildcard tests/mpi_check_*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
mpiobj = $(patsubst %.c,$(BUILD)/mpi/%.o,$(1))

SRC_OBJS   := $(call obj,$(SRC_SRCS))
TOPO_OBJS  := $(call obj,$(TOPO_SRCS))
TRAIN_OBJS := $(call obj,$(TRAIN_SRCS))
DIST_OBJS  := $(call obj,$(DIST_SRCS)) $(call mpiobj,$(DIST_MPI_SRCS))

TOPOGEN_LIBS = $(IGRAPH_LIBS) $(BLAS_LIBS) $(GSL_LIBS) -lm -pthread
TRAIN_LIBS   = $(OPENMP) $(BLAS_LIBS) $(GSL_LIBS) -lz -lm

PROGRAMS := $(BIN)/topogen $(BIN)/dpsgd-train

.PHONY: all check check-unit check-mpi check-cli check-cluster check-torch \
        demo deps install uninstall clean bench fuzz fuzz-build deps-fuzz
all: $(PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/src/%.o $(BUILD)/mpi/src/%.o:         INC = $(INC_SRC)
$(BUILD)/topo/%.o:                             INC = $(INC_TOPO)
$(BUILD)/topo/cli/%.o:                         INC = $(INC_TCLI)
$(BUILD)/train/nn/%.o:                         INC = $(INC_NN)
$(BUILD)/train/data/%.o:                       INC = $(INC_DATA)
$(BUILD)/train/core/%.o:                       INC = $(INC_CORE)
$(BUILD)/train/distributed/%.o $(BUILD)/mpi/train/distributed/%.o: INC = $(INC_DIST)
$(BUILD)/train/cli/%.o:                        INC = $(INC_DCLI)

# The engine's elementwise loops (bias, relu masks, col2im, SGD) are
# vectorized only at -O3 (GCC's -O2 cost model leaves them scalar): the
# whole of train/nn is built at -O3.
$(BUILD)/train/nn/%.o: OPT = -O3
$(BUILD)/train/nn/%.o: OMP_CFLAGS = $(OPENMP)

$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(INC) $(ALL_CFLAGS) -c $< -o $@

$(BIN)/topogen: $(call obj,$(TOPO_CLI_SRCS)) $(TOPO_OBJS) $(SRC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(TOPOGEN_LIBS)

$(BIN)/dpsgd-train: $(call obj,$(TRAIN_CLI_SRCS)) $(DIST_OBJS) \
                    $(TRAIN_OBJS) $(SRC_OBJS)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(TRAIN_LIBS)

# ---- tests ----------------------------------------------------------------
# Each tests/check_X.c defines `Suite *X_suite(void)`; the runner's table of
# suites is generated from those definitions, so adding a file adds a suite.
$(BUILD)/tests/unit_suites.inc: $(UNIT_TESTS)
	@mkdir -p $(dir $@)
	sed -n 's/^Suite \*\([A-Za-z0-9_]*_suite\)(void)$$/SUITE(\1)/p' \
	    $(UNIT_TESTS) > $@

$(BUILD)/tests/mpi_suites.inc: $(MPI_TESTS)
	@mkdir -p $(dir $@)
	sed -n 's/^Suite \*\([A-Za-z0-9_]*_suite\)(void)$$/SUITE(\1)/p' \
	    $(MPI_TESTS) /dev/null > $@

$(BUILD)/tests/check_main.o: tests/check_main.c $(BUILD)/tests/unit_suites.inc
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_ALL) -I$(BUILD)/tests $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BUILD)/mpi/tests/mpi_main.o: tests/mpi_main.c $(BUILD)/tests/mpi_suites.inc
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(INC_ALL) -I$(BUILD)/tests $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_ALL) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BUILD)/mpi/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(INC_ALL) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BIN)/check_unit: $(BUILD)/tests/check_main.o $(call obj,$(UNIT_TESTS)) \
                   $(TOPO_OBJS) $(TRAIN_OBJS) $(SRC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(CHECK_LIBS) \
	    $(IGRAPH_LIBS) $(OPENMP) $(BLAS_LIBS) $(GSL_LIBS) -lz -lm -pthread

$(BIN)/check_mpi: $(BUILD)/mpi/tests/mpi_main.o $(call mpiobj,$(MPI_TESTS)) \
                  $(DIST_OBJS) $(TRAIN_OBJS) $(SRC_OBJS)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(CHECK_LIBS) \
	    $(OPENMP) $(BLAS_LIBS) $(GSL_LIBS) -lz -lm

MPIRUN ?= mpirun --allow-run-as-root --oversubscribe --bind-to none
MPI_ENV = OPENBLAS_NUM_THREADS=1 CK_FORK=no
# Check's per-test timeout (default 4 s) is too tight on a loaded or
# sanitized build; tests are bounded by their own sizes instead.
CK_ENV = CK_DEFAULT_TIMEOUT=120

check: deps
	$(MAKE) check-unit check-cli $(if $(MPI_TESTS),check-mpi) check-torch

check-unit: $(BIN)/check_unit $(PROGRAMS)
	$(CK_ENV) $(BIN)/check_unit

check-mpi: $(BIN)/check_mpi $(PROGRAMS)
	$(MPI_ENV) $(MPIRUN) -np $(NP) $(BIN)/check_mpi

# End-to-end tests of the command lines (bad flags, bad files, exit codes).
check-cli: $(PROGRAMS)
	BIN=$(BIN) sh tests/cli.sh

# dpsgd-train across 2 hosts made of network namespaces (root; prints
# "cluster: SKIPPED" and succeeds elsewhere, fails with CLUSTER_REQUIRED=1).
check-cluster: $(PROGRAMS)
	BIN=$(BIN) sh tests/cluster.sh

# A saved model loaded into PyTorch (python3-torch) gives dpsgd-train's
# test accuracy (tests/torch_model.sh).
check-torch: $(PROGRAMS)
	BIN=$(BIN) sh tests/torch_model.sh

deps:
	@sh scripts/install-deps.sh

demo: deps
	$(MAKE) all
	BIN=$(BIN) sh scripts/demo.sh

bench: all
	sh scripts/bench-topogen.sh
	sh scripts/bench-train.sh
	sh scripts/bench-gossip.sh

# ---- fuzzing --------------------------------------------------------------
# tests/fuzz/fuzz_X.c is a libFuzzer harness with seeds in
# tests/fuzz/corpus/X/. `make fuzz` rebuilds the readers with clang under
# ASan + UBSan in $(FUZZ_BUILD) and runs each harness FUZZ_SECONDS; the
# corpus it grows goes to $(FUZZ_BUILD)/corpus/X (the committed seeds are
# only read), a crashing input to $(FUZZ_BUILD)/crash-X-*, and any finding
# (crash, sanitizer report, leak, timeout, out of memory) fails the target.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZERS      := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_OBJS    := $(SRC_OBJS) $(call obj,$(wildcard train/data/*.c) \
                train/core/dt_ckpt.c)

$(BIN)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(ALL_LDFLAGS) \
	    $(BLAS_LIBS) $(GSL_LIBS) -lz -lm

deps-fuzz:
	@sh scripts/install-deps.sh fuzz

fuzz-build: deps-fuzz
	$(MAKE) CC=$(FUZZ_CC) BUILD=$(FUZZ_BUILD) BIN=$(FUZZ_BUILD)/bin OPT=-O1 \
	    EXTRA_CFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
	    EXTRA_LDFLAGS="$(FUZZ_SAN)" \
	    $(patsubst %,$(FUZZ_BUILD)/bin/fuzz_%,$(FUZZERS))

fuzz: fuzz-build
	@for f in $(FUZZERS); do \
	    mkdir -p $(FUZZ_BUILD)/corpus/$$f || exit 1; \
	    echo "fuzz: $$f for $(FUZZ_SECONDS) s"; \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(FUZZ_BUILD)/bin/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) \
	        -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_BUILD)/crash-$$f- \
	        $(FUZZ_BUILD)/corpus/$$f tests/fuzz/corpus/$$f \
	        2> $(FUZZ_BUILD)/fuzz-$$f.log \
	    || { tail -n 60 $(FUZZ_BUILD)/fuzz-$$f.log; \
	         echo "fuzz: $$f FOUND A BUG (log $(FUZZ_BUILD)/fuzz-$$f.log)"; \
	         exit 1; }; \
	    grep -E '^stat::number_of_executed_runs|^Done' \
	        $(FUZZ_BUILD)/fuzz-$$f.log; \
	done

install: $(PROGRAMS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/topogen $(DESTDIR)$(PREFIX)/bin/dpsgd-train

clean:
	rm -rf $(BUILD) $(BIN)/topogen $(BIN)/dpsgd-train $(BIN)/check_unit \
	    $(BIN)/check_mpi $(BIN)/fuzz_*

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
