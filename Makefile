# One non-recursive Makefile for topogen, dpsgd-train and their tests.
#
#   make            build bin/topogen and bin/dpsgd-train
#   make check      install missing packages, build, run every test tier
#                   (tests/README.md), CHECK_JOBS at a time
#   make check-cluster  a run over 2 hosts made of network namespaces (root)
#   make check-san  the readers' tests under ASan + UBSan (SAN_ALL=1: all)
#   make bench      the C benches (make bench-build) and the main benches
#   make demo       install missing packages, build, run the main job
#   make install    programs, libtopogen (.so, .a, topogen.h, topogen.pc),
#                   man pages, bash completion, scripts and the Python
#                   module under $(DESTDIR)$(PREFIX); `make uninstall`
#   make lib        bin/libtopogen.{a,so} (topo/api/topogen.h)
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

# PREFIX and DESTDIR reach the install and uninstall recipes' shell
# commands: a space, a quote, `&`, `;`, `$`, `*` ... would split a path or
# run a command (uninstall could delete a file outside PREFIX). Refused
# here, before any target, unless made only of letters, digits and
# / . _ - + , @ : (DESTDIR may be empty).
PATH_SAFE := a b c d e f g h i j k l m n o p q r s t u v w x y z \
             A B C D E F G H I J K L M N O P Q R S T U V W X Y Z \
             0 1 2 3 4 5 6 7 8 9 / . _ - + , @ :
unsafe_chars = $(if $(2),$(call unsafe_chars,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
check_path = $(if $(or $(filter-out $(if $(3),0 1,1),$(words $(2))),$(call unsafe_chars,$(subst $(space),?,$(2)),$(PATH_SAFE))),$(error $(1)='$(2)': a space or shell metacharacter; use a path of letters, digits and / . _ - + , @ :))
empty :=
space := $(empty) $(empty)
$(call check_path,PREFIX,$(PREFIX),)
$(call check_path,DESTDIR,$(DESTDIR),empty-ok)

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
# libxml2: the GraphML reader (src/topo/cm_topo_graphml.c); jansson: every JSON
# read or written (safetensors headers, --summary, topogen eval --json).
XML_CFLAGS    := $(shell $(PKG_CONFIG) --cflags libxml-2.0 2>/dev/null)
XML_LIBS      := $(shell $(PKG_CONFIG) --libs libxml-2.0 2>/dev/null)
JSON_CFLAGS   := $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JSON_LIBS     := $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null)
# CHOLMOD (libsuitesparse-dev, no .pc file) and LAPACKE (liblapacke-dev):
# the sparse Cholesky and the tridiagonal eigensolves of
# src/spectra/cm_shiftinv.c; every program linking src/ links it before BLAS.
SPARSE_CFLAGS := -I/usr/include/suitesparse
BLAS_LIBS     := -lcholmod -llapacke $(BLAS_LIBS)
# METIS (libmetis-dev, no .pc file): --placement graph's partitions
# (src/place/cm_place_metis.c), so every program linking src/ links it.
METIS_LIBS    := -lmetis

# Include paths follow the floor plan, so an include that points up does
# not compile: each src/ floor sees the ones below it
# (base < topo < spectra < place); topogen's library sees src/ and its
# own folders below it (graph < measure < kinds | weights < search; kinds
# and weights do not see each other); topo/make/ sees the library;
# topo/assess/ (what plan computes) sees topo/make/; topo/cli/ sees
# topo/assess/ and topo/make/, topo/api/ sees topo/make/ (neither sees the
# other, nor topo/make/ or topo/api/ topo/assess/); each train/
# layer sees the ones below it (nn < data < core < distributed < cli).
# Tests see everything.
INC_SBASE := -Isrc/base
INC_STOPO := $(INC_SBASE) -Isrc/topo
INC_SSPEC := $(INC_STOPO) -Isrc/spectra
INC_SRC   := $(INC_SSPEC) -Isrc/place
INC_TGRAPH := $(INC_SRC) -Itopo/graph
INC_TMEAS := $(INC_TGRAPH) -Itopo/measure
INC_TKINDS := $(INC_TMEAS) -Itopo/kinds
INC_TWEIGHTS := $(INC_TMEAS) -Itopo/weights
INC_TOPO  := $(INC_TMEAS) -Itopo/kinds -Itopo/weights -Itopo/search
INC_TMAKE := $(INC_TOPO) -Itopo/make
INC_TASSESS := $(INC_TMAKE) -Itopo/assess
INC_TCLI  := $(INC_TASSESS) -Itopo/cli
INC_API   := $(INC_TMAKE) -Itopo/api
INC_NN    := $(INC_SRC) -Itrain/nn
INC_DATA  := $(INC_NN) -Itrain/data
INC_CORE  := $(INC_DATA) -Itrain/core
INC_DIST  := $(INC_CORE) -Itrain/distributed
INC_DCLI  := $(INC_DIST) -Itrain/cli
INC_ALL   := $(INC_API) -Itopo/assess -Itopo/cli $(INC_DCLI) -Itests/unit -Itests/mpi
INC       ?= $(INC_ALL)
CPPFLAGS += -D_GNU_SOURCE
CFLAGS   ?= -std=c11 -Wall -Wextra $(OPT) -g
ALL_CFLAGS = $(CFLAGS) $(OMP_CFLAGS) $(PIC_CFLAGS) $(EXTRA_CFLAGS) $(BLAS_CFLAGS) \
             $(SPARSE_CFLAGS) $(GSL_CFLAGS) $(IGRAPH_CFLAGS) $(XML_CFLAGS) \
             $(JSON_CFLAGS) -MMD -MP
# OpenMP: the engine's threads (dt_net_set_threads, --threads); compiled
# into train/nn only, linked into the programs that contain it.
OPENMP ?= -fopenmp
ALL_LDFLAGS = $(LDFLAGS) $(EXTRA_LDFLAGS)

# ---- sources: a file's folder and name decide how it is built -------------
#   src/                 the floor both programs stand on (cm_*); no main:
#     base/              status and errors, atomic files, locks, RNG, hash,
#                        clocks, the flag-table walker
#     topo/              the file contract: topology and sequence storage,
#                        readers (edge list, GML, GraphML), the writer, the
#                        labels file
#     spectra/           eigensolvers (dense LAPACK, Lanczos, shift-invert),
#                        mixing weights and the spectral rules
#     place/             worker placement (METIS) and the network model
#   topo/                topogen's library (tg_*); no MPI:
#     graph/             the search's graph state, the igraph bridge and
#                        baselines, host groups, the catalogue
#     measure/           evaluation, n_eff, heterogeneity, dense W, the
#                        Laplacian spectrum
#     kinds/             constructions: sequences, directed graphs,
#                        D-Cliques, repair
#     weights/           FDLA, n_eff weights, STL-FW and its assignment
#                        solver
#     search/            the annealer (one cooling loop) and its objectives
#   topo/make/           the config, the settings schema, the kind table
#                        and making a topology (under cli/ and api/)
#   topo/assess/         what `topogen plan` computes (the experiments
#                        reader, the convergence model, the ranked rows);
#                        returns structs that topo/cli/ prints
#   topo/cli/            topogen's command line (main and its parts)
#   topo/api/            libtopogen's public API (topogen.h, the only
#                        installed header); the library is src/ + topo/ +
#                        topo/make/ + topo/api/, built -fPIC
#   train/nn/            the network engine
#   train/data/          data sets and partitions
#   train/core/          one process's pieces: configuration, logging, the
#                        update rules, the gossip plan, checkpoint files
#   train/distributed/   the run over MPI: *_mpi.c include <mpi.h> (built
#                        with $(MPICC)); the rest call their dt_comm /
#                        dt_gossip API, so they link only where those are:
#                        *_mpi.c in dpsgd-train and check_mpi, *_single.c
#                        (one rank, no MPI) in check_unit
#   train/cli/           dpsgd-train's main
SRC_SRCS       := $(wildcard src/*/*.c)
TOPO_DIRS      := topo/graph topo/measure topo/kinds topo/weights topo/search
TOPO_SRCS      := $(wildcard $(addsuffix /*.c,$(TOPO_DIRS)))
TOPO_MAKE_SRCS := $(wildcard topo/make/*.c)
TOPO_ASSESS_SRCS := $(wildcard topo/assess/*.c)
TOPO_CLI_SRCS  := $(wildcard topo/cli/*.c)
API_SRCS       := $(wildcard topo/api/*.c)
TRAIN_SRCS     := $(wildcard train/nn/*.c train/data/*.c train/core/*.c)
DIST_MPI_SRCS  := $(wildcard train/distributed/*_mpi.c)
DIST_SINGLE_SRCS := $(wildcard train/distributed/*_single.c)
DIST_SRCS      := $(filter-out $(DIST_MPI_SRCS) $(DIST_SINGLE_SRCS),$(wildcard train/distributed/*.c))
TRAIN_CLI_SRCS := $(wildcard train/cli/*.c)
UNIT_TESTS   := $(wildcard tests/unit/check_*.c)
MPI_TESTS    := $(wildcard tests/mpi/mpi_check_*.c)
# a test file left at the top of tests/ would not run: refused by make check
STRAY_TESTS  := $(filter-out tests/README.md,$(wildcard tests/*.*))
ifneq ($(filter check%,$(MAKECMDGOALS)),)
ifneq ($(STRAY_TESTS),)
$(error $(STRAY_TESTS): a test file outside the rooms of tests/ does not run; move it into its room (tests/README.md))
endif
endif

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
mpiobj = $(patsubst %.c,$(BUILD)/mpi/%.o,$(1))

SRC_OBJS   := $(call obj,$(SRC_SRCS))
TOPO_OBJS  := $(call obj,$(TOPO_SRCS))
TRAIN_OBJS := $(call obj,$(TRAIN_SRCS))
DIST_OBJS  := $(call obj,$(DIST_SRCS)) $(call mpiobj,$(DIST_MPI_SRCS))
DIST_SINGLE_OBJS := $(call obj,$(DIST_SRCS) $(DIST_SINGLE_SRCS))

TOPOGEN_LIBS = $(IGRAPH_LIBS) $(METIS_LIBS) $(BLAS_LIBS) $(GSL_LIBS) \
               $(XML_LIBS) $(JSON_LIBS) -lm -pthread
TRAIN_LIBS   = $(OPENMP) $(METIS_LIBS) $(BLAS_LIBS) $(GSL_LIBS) $(XML_LIBS) \
               $(JSON_LIBS) -lz -lm

PROGRAMS := $(BIN)/topogen $(BIN)/dpsgd-train

# libcm: src/ alone (the file contract, spectra, placement): dpsgd-train
# links it and nothing of topo/, so topogen's command line and igraph
# never reach the trainer (tests/contract/floors.py checks nm).
CM_A        := $(BUILD)/libcm.a
# libtopogen: topogen's library, make/ layer and public API, without its
# command line. topogen links topo/cli/ and the static archive.
LIB_OBJS    := $(call obj,$(API_SRCS) $(TOPO_MAKE_SRCS)) \
               $(TOPO_OBJS) $(SRC_OBJS)
LIB_VERSION := 1.0.0
LIB_SONAME  := libtopogen.so.1
LIB_A       := $(BIN)/libtopogen.a
LIB_SO      := $(BIN)/libtopogen.so.$(LIB_VERSION)
LIBS_OUT    := $(LIB_A) $(LIB_SO) $(BIN)/$(LIB_SONAME) $(BIN)/libtopogen.so

.PHONY: all check check-unit check-mpi check-cli check-misuse check-cluster check-torch check-claims \
        check-same-bits check-cross-kernel check-floors check-header \
        check-python check-lib check-san san-build lib man bench-build \
        demo deps install uninstall clean bench fuzz fuzz-build deps-fuzz wheel
all: $(PROGRAMS) $(LIBS_OUT)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/src/%.o $(BUILD)/mpi/src/%.o:         INC = $(INC_SRC)
$(BUILD)/src/base/%.o:                         INC = $(INC_SBASE)
$(BUILD)/src/topo/%.o:                         INC = $(INC_STOPO)
$(BUILD)/src/spectra/%.o:                      INC = $(INC_SSPEC)
$(BUILD)/topo/graph/%.o:                       INC = $(INC_TGRAPH)
$(BUILD)/topo/measure/%.o:                     INC = $(INC_TMEAS)
$(BUILD)/topo/kinds/%.o:                       INC = $(INC_TKINDS)
$(BUILD)/topo/weights/%.o:                     INC = $(INC_TWEIGHTS)
$(BUILD)/topo/%.o:                             INC = $(INC_TOPO)
$(BUILD)/topo/make/%.o:                        INC = $(INC_TMAKE)
$(BUILD)/topo/assess/%.o:                      INC = $(INC_TASSESS)
$(BUILD)/topo/cli/%.o:                         INC = $(INC_TCLI)
$(BUILD)/topo/api/%.o:                         INC = $(INC_API)
# what goes into the shared library is position-independent
$(BUILD)/src/%.o $(BUILD)/topo/%.o: PIC_CFLAGS = -fPIC -fno-semantic-interposition
$(BUILD)/train/nn/%.o:                         INC = $(INC_NN)
$(BUILD)/train/data/%.o:                       INC = $(INC_DATA)
$(BUILD)/train/core/%.o:                       INC = $(INC_CORE)
$(BUILD)/train/distributed/%.o $(BUILD)/mpi/train/distributed/%.o: INC = $(INC_DIST)
$(BUILD)/train/cli/%.o:                        INC = $(INC_DCLI)

# The engine's elementwise loops (bias, relu masks, col2im, SGD) are
# vectorized only at -O3 (GCC's -O2 cost model leaves them scalar): the
# whole of train/nn is built at -O3.
$(BUILD)/train/nn/%.o: OPT = -O3
# The fixed-order kernels behind topogen's bits (cm_dlin, the dense
# eigensolver: docs/topo/portable-bits.md): -O3 vectorises their
# elementwise loops, which changes no bit (no sum is reordered; -std=c11
# fuses no multiply-add).
$(BUILD)/src/base/cm_dlin.o $(BUILD)/src/spectra/cm_eigen.o: OPT = -O3
$(BUILD)/train/nn/%.o: OMP_CFLAGS = $(OPENMP)

$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(INC) $(ALL_CFLAGS) -c $< -o $@

$(BIN)/topogen: $(call obj,$(TOPO_CLI_SRCS) $(TOPO_ASSESS_SRCS)) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(TOPOGEN_LIBS)

$(BIN)/dpsgd-train: $(call obj,$(TRAIN_CLI_SRCS)) $(DIST_OBJS) \
                    $(TRAIN_OBJS) $(CM_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(TRAIN_LIBS)

# `make smpi`: bin/dpsgd-train-smpi, the same sources built with SimGrid's
# smpicc (libsimgrid-dev) in $(SMPI_BUILD), every object -fPIC (SMPI runs
# all ranks in one process and privatizes their globals). smpicc's helper
# header makes clock_gettime simulated time, so the trainer's clock, its
# CSV's wall_s and its time to target are simulated; DT_SMPI selects the
# point-to-point gossip and a watchdog-free wait (docs/smpi.md).
SMPICC     ?= smpicc
SMPI_BUILD ?= build-smpi
.PHONY: smpi
smpi: $(BIN)/dpsgd-train-smpi

$(BIN)/dpsgd-train-smpi: FORCE
	@command -v $(SMPICC) >/dev/null 2>&1 || { echo "smpi: $(SMPICC) not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
	+$(MAKE) CC=$(SMPICC) MPICC=$(SMPICC) BUILD=$(SMPI_BUILD) \
	    BIN=$(SMPI_BUILD)/bin EXTRA_CFLAGS="-fPIC -DDT_SMPI $(EXTRA_CFLAGS)" \
	    $(SMPI_BUILD)/bin/dpsgd-train
	@mkdir -p $(BIN)
	cmp -s $(SMPI_BUILD)/bin/dpsgd-train $@ || cp $(SMPI_BUILD)/bin/dpsgd-train $@

.PHONY: FORCE
FORCE:

lib: $(LIBS_OUT)

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(CM_A): $(SRC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Exports only topogen.h's functions (topo/api/topogen.map).
$(LIB_SO): $(LIB_OBJS) topo/api/topogen.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) \
	    -Wl,--version-script=topo/api/topogen.map -Wl,--no-undefined \
	    $(ALL_CFLAGS) $(LIB_OBJS) -o $@ $(ALL_LDFLAGS) $(TOPOGEN_LIBS)

$(BIN)/$(LIB_SONAME): $(LIB_SO)
	ln -sf $(notdir $<) $@

$(BIN)/libtopogen.so: $(BIN)/$(LIB_SONAME)
	ln -sf $(notdir $<) $@

# ---- tests ----------------------------------------------------------------
# The rooms of tests/ (tests/README.md): unit/ (bin/check_unit, one Check
# suite per tests/unit/check_X.c), mpi/ (bin/check_mpi under mpirun),
# cli/ (the command lines end to end, one file per group), contract/
# (same bits, the floor plan, the header contract), system/ (install,
# misuse, 2 hosts), python/ (the Python module, PyTorch), fuzz/
# (libFuzzer), fixtures/ (recorded files).
# Each tests/unit/check_X.c defines `Suite *X_suite(void)`; the runner's
# table of suites is generated from those definitions, so adding a file
# adds a suite (tests/mpi/mpi_check_X.c likewise).
$(BUILD)/tests/unit_suites.inc: $(UNIT_TESTS)
	@mkdir -p $(dir $@)
	sed -n 's/^Suite \*\([A-Za-z0-9_]*_suite\)(void)$$/SUITE(\1)/p' \
	    $(UNIT_TESTS) > $@

$(BUILD)/tests/mpi_suites.inc: $(MPI_TESTS)
	@mkdir -p $(dir $@)
	sed -n 's/^Suite \*\([A-Za-z0-9_]*_suite\)(void)$$/SUITE(\1)/p' \
	    $(MPI_TESTS) /dev/null > $@

$(BUILD)/tests/unit/check_main.o: tests/unit/check_main.c $(BUILD)/tests/unit_suites.inc
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_ALL) -I$(BUILD)/tests $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BUILD)/mpi/tests/mpi/mpi_main.o: tests/mpi/mpi_main.c $(BUILD)/tests/mpi_suites.inc
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(INC_ALL) -I$(BUILD)/tests $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_ALL) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BUILD)/mpi/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(INC_ALL) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

$(BIN)/check_unit: $(BUILD)/tests/unit/check_main.o $(call obj,$(UNIT_TESTS)) \
                   $(call obj,$(TOPO_MAKE_SRCS) $(TOPO_ASSESS_SRCS)) \
                   $(TOPO_OBJS) $(DIST_SINGLE_OBJS) $(TRAIN_OBJS) $(SRC_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(CHECK_LIBS) \
	    $(IGRAPH_LIBS) $(OPENMP) $(METIS_LIBS) $(BLAS_LIBS) $(GSL_LIBS) \
	    $(XML_LIBS) $(JSON_LIBS) -lz -lm -pthread

$(BIN)/check_mpi: $(BUILD)/mpi/tests/mpi/mpi_main.o $(call mpiobj,$(MPI_TESTS)) \
                  $(DIST_OBJS) $(TRAIN_OBJS) $(SRC_OBJS)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(CHECK_LIBS) \
	    $(OPENMP) $(METIS_LIBS) $(BLAS_LIBS) $(GSL_LIBS) $(XML_LIBS) \
	    $(JSON_LIBS) -lz -lm

MPIRUN ?= mpirun --allow-run-as-root --oversubscribe --bind-to none
MPI_ENV = OPENBLAS_NUM_THREADS=1 CK_FORK=no
# Check's per-test timeout (default 4 s) is too tight on a loaded or
# sanitized build; tests are bounded by their own sizes instead.
CK_ENV = CK_DEFAULT_TIMEOUT=120

# make check runs its tiers CHECK_JOBS at a time (default: the number of
# cores), the slow ones first; the cli groups are tiers of their own. Under
# `make -jN check` the N given wins.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_TIERS := $(if $(MPI_TESTS),check-mpi) check-python check-cli-mpi \
               check-cli-results check-cli-repair check-cross-kernel \
               check-unit check-misuse check-claims check-same-bits \
               check-cli check-torch check-lib check-header check-floors

check: deps
	$(MAKE) $(if $(findstring -j,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) $(CHECK_TIERS)

# UNIT_SUITES="topofile seq": only these suites (default: all of them)
check-unit: $(BIN)/check_unit $(PROGRAMS)
	$(if $(UNIT_SUITES),for s in $(UNIT_SUITES); do \
	    $(CK_ENV) CK_RUN_SUITE=$$s $(BIN)/check_unit || exit 1; done, \
	    $(CK_ENV) $(BIN)/check_unit)

check-mpi: $(BIN)/check_mpi $(PROGRAMS)
	$(MPI_ENV) $(MPIRUN) -np $(NP) $(BIN)/check_mpi

# End-to-end tests of the command lines (bad flags, bad files, exit codes):
# every tests/cli/GROUP.sh (tests/cli/lib.sh is their shared harness), one
# target check-cli-GROUP each, so `make -j2 check-cli` runs two groups at a
# time, the slow ones first. CLI_GROUPS="topogen readers" runs only those.
CLI_ALL    := $(filter-out lib,$(patsubst tests/cli/%.sh,%,$(wildcard tests/cli/*.sh)))
CLI_SLOW   := mpi results repair directed train dataaware local allreduce smpi
CLI_GROUPS ?= $(filter $(CLI_ALL),$(CLI_SLOW)) $(filter-out $(CLI_SLOW),$(CLI_ALL))
.PHONY: $(addprefix check-cli-,$(CLI_ALL))
check-cli: $(addprefix check-cli-,$(CLI_GROUPS))

$(addprefix check-cli-,$(CLI_ALL)): check-cli-%: tests/cli/%.sh $(PROGRAMS)
	BIN=$(BIN) sh $<

# the SMPI build's group needs the SMPI build, where smpicc exists (the
# group says SKIPPED elsewhere)
check-cli-smpi: $(if $(shell command -v $(SMPICC) 2>/dev/null),$(BIN)/dpsgd-train-smpi)

# Behaviour unchanged: topology files, spectra and trainer hashes against
# tests/fixtures/same-bits/ (tests/contract/same-bits.sh; about 25 s).
check-same-bits: $(PROGRAMS)
	BIN=$(BIN) sh tests/contract/same-bits.sh

# The same files on every OpenBLAS kernel path (issue 39): topogen and
# eval --json under each OPENBLAS_CORETYPE this CPU runs, --threads 1 and
# 2, byte for byte (tests/contract/cross-kernel.sh; about 1.5 CPU minutes).
check-cross-kernel: $(PROGRAMS)
	BIN=$(BIN) sh tests/contract/cross-kernel.sh

# The floor plans of src/ and topo/: calls down or sideways, no circle between
# files, an include pointing up does not compile, dpsgd-train without
# topogen's command line; topo/make/ under topo/cli/ and topo/api/
# (tests/contract/floors.py).
# The top README's "better" claims recomputed from the committed runs
# (data/results-slow-network/claims.tsv, per-run.tsv; Welch's t-test), and
# the SMPI re-timing (smpi/) re-made from its probes.
check-claims: $(BIN)/topogen
	/usr/bin/python3 tests/contract/results-claims.py .
	sh tests/contract/smpi-retime.sh
	sh tests/contract/bandwidth-bound.sh
	/usr/bin/python3 tests/contract/plan-cells.py $(BIN)/topogen .

check-floors: $(PROGRAMS) $(SRC_OBJS)
	python3 tests/contract/floors.py $(BUILD) $(BIN)

# The topology header read once with the graph (strace: one open) and the
# reader's refusals (tests/contract/header.sh; about 5 s).
check-header: $(PROGRAMS)
	BIN=$(BIN) sh tests/contract/header.sh

# Checkpoint directories shared between runs, exit codes, true notices
# (tests/system/misuse.sh: the probes of issues 24 and 25).
check-misuse: $(PROGRAMS)
	BIN=$(BIN) sh tests/system/misuse.sh

# dpsgd-train across 2 hosts made of network namespaces (root; prints
# "cluster: SKIPPED" and succeeds elsewhere, fails with CLUSTER_REQUIRED=1).
check-cluster: $(PROGRAMS)
	BIN=$(BIN) sh tests/system/cluster.sh

# A saved model loaded into PyTorch (python3-torch) gives dpsgd-train's
# test accuracy (tests/python/torch-model.sh).
check-torch: $(PROGRAMS)
	BIN=$(BIN) sh tests/python/torch-model.sh

# The Python module and its torch.distributed gossip (tests/python/module.sh:
# 4 and 16 gloo processes; about 1.5 min of CPU).
check-python: $(PROGRAMS) $(LIBS_OUT)
	BIN=$(BIN) sh tests/python/module.sh

# The Python package as a pure-Python wheel, dist/dpsgd_topogen-*.whl,
# written by the standard library alone (no setuptools, wheel or
# network): `pip install dist/dpsgd_topogen-*.whl` under any Python 3.9+.
WHEEL_PYTHON ?= python3
wheel:
	$(WHEEL_PYTHON) topo/python/make_wheel.py dist

# make install into a scratch prefix, then the C example built with
# pkg-config, man -l, the completion, the installed Python module, and
# make uninstall (tests/system/install.sh).
check-lib: $(PROGRAMS) $(LIBS_OUT) $(MANPAGES)
	BIN=$(BIN) MAKE="$(MAKE)" sh tests/system/install.sh

deps:
	@sh scripts/install-deps.sh

demo: deps
	$(MAKE) all
	BIN=$(BIN) sh scripts/demo.sh

# ---- benchmarks -----------------------------------------------------------
# Benchmarks are scripts that print same-run ratios (scripts/benches/),
# never tests. The C parts they run are built here: `make bench-build`
# puts them in $(BIN)/bench/ (bench-memcpy: memory bandwidth for
# bench-gossip.sh; bench-netmodel: the MPI side of bench-netmodel.sh;
# bench-place: METIS against the own bisection for bench-place.sh;
# bench-lanczos: the sparse spectrum of bench-lanczos.sh).
# `make bench` builds them and runs the three main benches.
BENCH_PROGS := $(patsubst scripts/benches/%.c,$(BIN)/bench/%,$(wildcard scripts/benches/*.c))

bench-build: $(BENCH_PROGS)

$(BIN)/bench/bench-memcpy: scripts/benches/bench-memcpy.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 $(EXTRA_CFLAGS) $< -o $@ $(ALL_LDFLAGS)

$(BIN)/bench/bench-netmodel: scripts/benches/bench-netmodel.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 -O2 $(EXTRA_CFLAGS) $< -o $@ $(ALL_LDFLAGS)

$(BIN)/bench/bench-place: scripts/benches/bench-place.c $(CM_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_SRC) $(CFLAGS) $(EXTRA_CFLAGS) $(BLAS_CFLAGS) \
	    $(SPARSE_CFLAGS) $(GSL_CFLAGS) $< $(CM_A) -o $@ \
	    $(ALL_LDFLAGS) $(METIS_LIBS) $(BLAS_LIBS) $(GSL_LIBS) $(XML_LIBS) \
	    $(JSON_LIBS) -lz -lm -pthread

# the sparse spectrum's probe, against this build's libtopogen.a
# (bench-lanczos.sh builds it again against an older library to compare)
$(BIN)/bench/bench-lanczos: scripts/benches/bench-lanczos.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_SSPEC) $(CFLAGS) $(EXTRA_CFLAGS) $(BLAS_CFLAGS) \
	    $(SPARSE_CFLAGS) $(GSL_CFLAGS) $(IGRAPH_CFLAGS) $< $(LIB_A) -o $@ \
	    $(ALL_LDFLAGS) $(TOPOGEN_LIBS)

bench: all bench-build
	sh scripts/benches/bench-topogen.sh
	sh scripts/benches/bench-train.sh
	sh scripts/benches/bench-gossip.sh

# ---- sanitizers -----------------------------------------------------------
# `make check-san`: a second build at -O1 under AddressSanitizer and
# UndefinedBehaviorSanitizer in $(SAN_BUILD), then the tests of the code
# that reads untrusted input: the unit suites of the readers and parsers
# (SAN_SUITES: topology files in every format and their header, directed
# and sequence files, labels/counts files, IDX/CIFAR data, safetensors
# model files, checkpoints and run state, the flag tables, --net, the
# atomic writer, the lost-worker lists, and the one-worker trainer with
# leak checks), the cli groups that feed files and flags to both programs
# (SAN_CLI) and the header contract. `make check-san SAN_ALL=1`: every
# unit suite, every cli group and the MPI suites too (the engine, the
# search and the distributed run; the previous CI step: 813-961 s).
# .ci/run says why the short set is its tier.
SAN_BUILD  ?= build/san
SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
              -fno-omit-frame-pointer
SAN_SUITES ?= topofile topo_doc topo_header topodir seq data model_file \
              model_io ckpt dpsgd_state config flags dataaware partition \
              repair netmodel atomic train
SAN_CLI    ?= topogen readers seq dataaware train
SAN_MAKE    = $(MAKE) BUILD=$(SAN_BUILD) BIN=$(SAN_BUILD)/bin OPT=-O1 \
              EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)"

# the instrumented programs alone (.ci/run builds them while the cluster
# step waits on its network)
san-build:
	+$(SAN_MAKE) $(addprefix $(SAN_BUILD)/bin/,topogen dpsgd-train check_unit \
	    $(if $(SAN_ALL),check_mpi))

check-san: san-build
	+UBSAN_OPTIONS=print_stacktrace=1 CK_TIMEOUT_MULTIPLIER=4 $(SAN_MAKE) \
	    $(if $(SAN_ALL),,UNIT_SUITES="$(SAN_SUITES)" CLI_GROUPS="$(SAN_CLI)") \
	    check-unit check-cli check-header
	+$(if $(SAN_ALL),ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(SAN_MAKE) check-mpi)

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
FUZZ_OBJS    := $(SRC_OBJS) $(call obj,$(wildcard train/nn/*.c) \
                $(wildcard train/data/*.c) train/core/dt_ckpt.c)

$(BIN)/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(ALL_LDFLAGS) \
	    $(OPENMP) $(METIS_LIBS) $(BLAS_LIBS) $(GSL_LIBS) $(XML_LIBS) \
	    $(JSON_LIBS) -lz -lm

# the topology harness drives the trainer's reader (a one-rank dt_comm of
# its own)
$(BIN)/fuzz_topo: $(call obj,train/distributed/dt_topo_load.c)

# DIR/neighbours and the handover of --drop-workers
$(BIN)/fuzz_neighbours: $(call obj,train/core/dt_ckpt_nb.c)

deps-fuzz:
	@sh scripts/install-deps.sh fuzz

fuzz-build: deps-fuzz
	$(MAKE) CC=$(FUZZ_CC) BUILD=$(FUZZ_BUILD) BIN=$(FUZZ_BUILD)/bin OPT=-O1 \
	    EXTRA_CFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
	    EXTRA_LDFLAGS="$(FUZZ_SAN)" \
	    $(patsubst %,$(FUZZ_BUILD)/bin/fuzz_%,$(FUZZERS))

# one target per harness, so `make -j2 fuzz` runs two at a time (each
# libFuzzer process is one core)
fuzz: $(addprefix fuzz-run-,$(FUZZERS))
.PHONY: fuzz $(addprefix fuzz-run-,$(FUZZERS))
$(addprefix fuzz-run-,$(FUZZERS)): fuzz-run-%: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/corpus/$*
	@echo "fuzz: $* for $(FUZZ_SECONDS) s"
	@UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(FUZZ_BUILD)/bin/fuzz_$* -max_total_time=$(FUZZ_SECONDS) \
	        -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_BUILD)/crash-$*- \
	        $(FUZZ_BUILD)/corpus/$* tests/fuzz/corpus/$* \
	        2> $(FUZZ_BUILD)/fuzz-$*.log \
	    || { tail -n 60 $(FUZZ_BUILD)/fuzz-$*.log; \
	         echo "fuzz: $* FOUND A BUG (log $(FUZZ_BUILD)/fuzz-$*.log)"; \
	         exit 1; }
	@grep -E '^stat::number_of_executed_runs|^Done' $(FUZZ_BUILD)/fuzz-$*.log \
	    | sed 's/^/fuzz: $*: /'

# ---- install --------------------------------------------------------------
# Under $(DESTDIR)$(PREFIX): bin/ (programs), lib/ (libtopogen.so.1.0.0,
# its symlinks, libtopogen.a, pkgconfig/topogen.pc), include/topogen.h,
# share/man/man1/ (help2man from --help), the bash completion,
# share/topogen/ (the scripts a user runs, the examples), share/doc/topogen/
# (the READMEs the error hints name) and the Python module topogen in
# lib/python3/dist-packages. `make uninstall` removes exactly these.
VERSION      := $(shell sed -n 's/^\#define TOPOGEN_VERSION "\(.*\)"/\1/p' \
                  topo/make/topogen_config.h)
# dpsgd-train's own version (what --version prints), for its man page
DT_VERSION   := $(shell sed -n 's/^\#define DT_TRAIN_VERSION "\(.*\)"/\1/p' \
                  train/core/dt_summary.h)
LIBDIR        = $(PREFIX)/lib
PYDIR         = $(LIBDIR)/python3/dist-packages/topogen
SHAREDIR      = $(PREFIX)/share/topogen
DOCDIR        = $(PREFIX)/share/doc/topogen
MANDIR        = $(PREFIX)/share/man/man1
COMPDIR       = $(PREFIX)/share/bash-completion/completions
# the scripts a user runs, in their rooms of scripts/ (lib/ is sourced)
USER_SCRIPTS := experiments/sweep.sh experiments/results.sh \
                experiments/results-every-topology.sh experiments/consensus.sh \
                experiments/algorithms.sh reports/plot.sh reports/summary.sh \
                reports/modelled.sh reports/aggregate.awk \
                reports/results-tables.py reports/measure-correlation.py \
                benches/torch-eval-model.py benches/bench_torch.py \
                lib/common.sh lib/runs.sh lib/styles.sh
SCRIPT_ROOMS := $(sort $(dir $(USER_SCRIPTS)))
PY_FILES     := $(wildcard topo/python/topogen/*.py)
EXAMPLES_SRC := topo/api/examples/learn.c
EXAMPLES_RUN := topo/python/examples/dpsgd.py \
                topo/python/examples/fashion.py
EXAMPLES     := $(EXAMPLES_SRC) $(EXAMPLES_RUN)
# the READMEs, docs/ and what they link to, installed under DOCDIR in
# the source tree's layout so that every relative link resolves
# (tests/system/install.sh checks each link of each installed .md)
DOCS         := README.md topo/README.md train/README.md topo/python/README.md \
                $(sort $(shell find docs -type f)) data/README.md \
                data/results/README.md data/results-slow-network/README.md \
                data/plan-heldout/README.md data/results/membership-full/README.md \
                data/results-slow-network/time-vs-acc.png \
                data/results-slow-network/smpi/README.md \
                data/results-slow-network/smpi/time-vs-acc-wan-cm02.png \
                data/bandwidth-bound/n256/README.md \
                data/bandwidth-bound/n256/time-vs-acc.png \
                $(wildcard data/results/2025-sweep/plots/*.png) \
                data/results/2025-sweep/long/plots/acc-epoch-dirichlet-0.1.png
MANPAGES     := $(BIN)/man/topogen.1 $(BIN)/man/dpsgd-train.1

man: $(MANPAGES)

$(BIN)/man/topogen.1: $(BIN)/topogen topo/cli/topogen.h2m
	@mkdir -p $(dir $@)
	help2man -N --version-string=$(VERSION) -o $@ -i topo/cli/topogen.h2m \
	    -n "learn fast-mixing topologies for decentralized SGD" $<

$(BIN)/man/dpsgd-train.1: $(BIN)/dpsgd-train train/cli/dpsgd-train.h2m
	@mkdir -p $(dir $@)
	help2man -N --version-string=$(DT_VERSION) -o $@ \
	    -i train/cli/dpsgd-train.h2m \
	    -n "decentralized SGD over MPI on a topology file" $<

install: $(PROGRAMS) $(LIBS_OUT) $(MANPAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(MANDIR) \
	    $(DESTDIR)$(COMPDIR) \
	    $(addprefix $(DESTDIR)$(SHAREDIR)/scripts/,$(SCRIPT_ROOMS)) \
	    $(DESTDIR)$(SHAREDIR)/examples $(DESTDIR)$(DOCDIR) \
	    $(DESTDIR)$(PYDIR)
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libtopogen.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@LIBS_PRIVATE@|$(strip $(TOPOGEN_LIBS))|' \
	    topo/api/topogen.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/topogen.pc
	install -m 644 topo/api/topogen.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/
	install -m 644 topo/cli/completion.bash $(DESTDIR)$(COMPDIR)/topogen
	ln -sf topogen $(DESTDIR)$(COMPDIR)/dpsgd-train
	for f in $(USER_SCRIPTS); do \
	    install -m 755 scripts/$$f $(DESTDIR)$(SHAREDIR)/scripts/$$f || exit 1; \
	done
	install -m 644 $(EXAMPLES_SRC) $(DESTDIR)$(SHAREDIR)/examples/
	install -m 755 $(EXAMPLES_RUN) $(DESTDIR)$(SHAREDIR)/examples/
	for f in $(DOCS); do \
	    install -D -m 644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; done
	install -m 644 $(PY_FILES) $(DESTDIR)$(PYDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(PROGRAMS))) \
	    $(addprefix $(DESTDIR)$(LIBDIR)/,$(notdir $(LIB_SO)) \
	        $(LIB_SONAME) libtopogen.so libtopogen.a pkgconfig/topogen.pc) \
	    $(DESTDIR)$(PREFIX)/include/topogen.h \
	    $(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(MANPAGES))) \
	    $(DESTDIR)$(COMPDIR)/topogen $(DESTDIR)$(COMPDIR)/dpsgd-train \
	    $(addprefix $(DESTDIR)$(SHAREDIR)/scripts/,$(USER_SCRIPTS)) \
	    $(addprefix $(DESTDIR)$(SHAREDIR)/examples/,$(notdir $(EXAMPLES))) \
	    $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOCS)) \
	    $(addprefix $(DESTDIR)$(PYDIR)/,$(notdir $(PY_FILES)))
	rm -rf $(DESTDIR)$(PYDIR)/__pycache__
	[ ! -d $(DESTDIR)$(DOCDIR) ] || \
	    find $(DESTDIR)$(DOCDIR) -depth -mindepth 1 -type d -empty -delete
	rmdir $(addprefix $(DESTDIR)$(SHAREDIR)/scripts/,$(SCRIPT_ROOMS)) \
	    $(DESTDIR)$(SHAREDIR)/scripts $(DESTDIR)$(SHAREDIR)/examples \
	    $(DESTDIR)$(SHAREDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PYDIR) \
	    2>/dev/null || true

clean:
	rm -rf $(BUILD) $(SMPI_BUILD) $(BIN)/dpsgd-train-smpi $(BIN)/topogen $(BIN)/dpsgd-train $(BIN)/check_unit \
	    $(BIN)/check_mpi $(BIN)/fuzz_* $(LIBS_OUT) $(BIN)/man $(BIN)/bench

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
