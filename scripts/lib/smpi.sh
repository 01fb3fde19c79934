# smpi.sh: what the scripts that hold the network model against SimGrid's
# SMPI cell by cell share (smpi-netmodel.sh, smpi-sites.sh; sourced after
# common.sh, not run): the probe built in a folder of its own, the SMPI
# settings of each all-reduce algorithm, one operation timed by SMPI, the
# model's time read from `topogen eval`, and their ratio.

# smpi_probe_setup NAME: T, a new folder under TMPDIR (NAME.XXXXXX)
# removed on exit, and T/probe, scripts/experiments/smpi-probe.c built by
# smpicc. Dies without smpicc or when the build fails.
smpi_probe_setup() {
    command -v smpicc >/dev/null 2>&1 || die "smpicc not found (apt-get install libsimgrid-dev)"
    T=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    trap 'rm -rf "$T"' EXIT INT TERM
    smpicc -O2 "$SCRIPTS/experiments/smpi-probe.c" -o "$T/probe" 2>"$T/cc.err" || die "smpicc: $(head -c 300 "$T/cc.err")"
}

# smpi_alg ALG [GROUP]: sets args (smpi-probe's operation) and adds SMPI's
# settings of the all-reduce ALG to cfg: recursive-doubling, rabenseifner,
# ring, binomial (reduce + broadcast), direct (reduce-scatter + allgather
# as all-to-alls), hierarchical (groups of GROUP consecutive ranks:
# binomial reduce in each, recursive doubling among their first ranks,
# binomial broadcast).
smpi_alg() {
    case $1 in
    recursive-doubling) args="allreduce -"; cfg="$cfg --cfg=smpi/allreduce:rdb" ;;
    rabenseifner) args="allreduce -"; cfg="$cfg --cfg=smpi/allreduce:rab_rdb" ;;
    ring) args="allreduce -"; cfg="$cfg --cfg=smpi/allreduce:lr" ;;
    binomial) args="allreduce -"; cfg="$cfg --cfg=smpi/allreduce:redbcast --cfg=smpi/reduce:binomial --cfg=smpi/bcast:binomial_tree" ;;
    direct) args="direct -"; cfg="$cfg --cfg=smpi/alltoall:basic_linear --cfg=smpi/allgather:spreading_simple" ;;
    hierarchical) args="hier $2"
        cfg="$cfg --cfg=smpi/reduce:binomial --cfg=smpi/allreduce:rdb --cfg=smpi/bcast:binomial_tree" ;;
    esac
}

# smpi_probe_ms TCP PLATFORM NP BYTES REPS SECONDS: T/probe's operation
# (args, SMPI settings cfg) on NP ranks under smpi-run.sh --tcp TCP, REPS
# times on arrays of BYTES: milliseconds per operation (4 digits), "?"
# when the run fails or takes more than SECONDS.
smpi_probe_ms() {
    # shellcheck disable=SC2086
    SMPI_CFG="$cfg" timeout "$6" sh "$SCRIPTS/experiments/smpi-run.sh" --tcp "$1" -platform "$2" \
        -np "$3" "$T/probe" $args "$4" "$5" >"$T/probe.out" 2>"$T/probe.err" ||
        { echo "?"; return; }
    awk '/^probe_s/ { printf "%.4g", $2 * 1e3 }' "$T/probe.out"
}

# eval_ms FILE OP: the modelled milliseconds in FILE (what `topogen eval`
# printed) of OP: gossip (a round of the block placement) or the name of
# an all-reduce algorithm.
eval_ms() {
    case $2 in
    gossip) sed -n 's/^  block .*modelled \([0-9.e+]*\) ms.*/\1/p' "$1" | head -1 ;;
    *) sed -n "s/^  allreduce   $2  *modelled \([0-9.e+]*\) ms.*/\1/p" "$1" | head -1 ;;
    esac
}

# ratio M S: M / S to 2 decimals, "-" unless both are numbers above 0.
ratio() {
    awk -v m="$1" -v s="$2" 'BEGIN { if (s + 0 > 0 && m + 0 > 0) printf "%.2f", m / s; else print "-" }'
}
