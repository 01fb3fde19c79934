#!/bin/sh
# smpi-retime.sh: the simulated (SMPI) cost of every communication pattern
# of the slow-network experiment (data/results-slow-network), measured by
# short runs of the real trainer, bin/dpsgd-train-smpi (make smpi), under
# scripts/experiments/smpi-run.sh --tcp cm02 and --tcp lv08, on the
# platforms of `topogen platform` (issue 45). A training trajectory does
# not depend on the network (docs/smpi.md: the SMPI build gives the Open
# MPI build's CSV training columns and workers-hash), so
# scripts/experiments/smpi-retime.py then re-times every committed run
# from these costs and its own schedule (OUT/README.md).
#
#   sh scripts/experiments/smpi-retime.sh OUT
#       OUT/probes/CELL/PROBE.{csv,log,json} (the CSV's simulated wall_s,
#       the trainer's `time per rank` split, the simulation's CPU and
#       memory); rerun to resume (a probe with a .json is skipped)
#
#   CELLS="wan-cm02 wan-lv08 ..."  platform-tcp pairs (platform: wan,
#       datacenter, sites4), in this order; default all six
#   PROBES="..."   the probes, in order (default: see probes() below;
#       at 256 hosts on 2 shared cores a probe takes about 35 s of CPU):
#       ar-auto, ar-direct, ar-hier (--allreduce ALG every step; auto is
#       the blocking MPI_Allreduce under SMPI's default selection),
#       ar-ompi, ar-rdb, ar-rab (auto with smpi/coll-selector:ompi, Open
#       MPI's own choice; smpi/allreduce:rdb recursive doubling; rab_rdb
#       Rabenseifner),
#       exact (local SGD's average every 2 steps, no warm-up), warm (the
#       every-step warm-up average of parameters and momentum),
#       d2-GRAPH-sS / dpsgd-GRAPH-sS / gt-GRAPH-sS (a gossip round on the
#       committed topo/GRAPH-sS.txt; gt's round sends [x | c + hbar], two
#       arrays a peer; opexp: topo/one-peer-exp.txt); options for
#       whole schedules (the end-to-end check): -HH (--average-every H),
#       -SS (--local-after S), -pgaK (--global-every K), e.g.
#       local-H2-S20, d2-random-s1-pga8
#       -EE (evaluate every E steps as the committed runs do: the whole
#       test set, --local-eval 100; e.g. d2-aware-s1-E14, ar-ompi-E14)
#       q-FORM-ALG: one all-reduce of a LeNet array compressed by FORM
#       (none, int8, int4: dt_compress_bytes of 61,706 floats, 246,824,
#       62,674, 31,821 bytes) by ALG (ompi, rdb, rab: MPI_Allreduce under
#       the same SMPI options as ar-ALG; direct: MPI_Ialltoall, sum,
#       MPI_Iallgather as --allreduce direct; hier: reduce in each site of
#       N/4 hosts, all-reduce among the sites' first hosts, broadcast, as
#       --allreduce hierarchical; sites4 only), timed by
#       scripts/experiments/smpi-probe.c (built with smpicc), REPS=8
#       operations back to back: OUT/probes/CELL/q-FORM-ALG.op. The
#       committed probes were made when the trainer moved dequantized
#       floats (before its wire format, docs/train/compression.md), so its
#       own ar-ALG probes are uncompressed; q-none-ALG is the same bare
#       operation at full size, to set beside the trainer's ar-ALG cost
#       (the trainer now sends codes: a probe of it with --compress would
#       be the compressed cost itself, not to be corrected again)
#       g-FORM-GRAPH-sS[-dD]: one gossip round on topo/GRAPH-sS.txt (every
#       rank sends its array to each neighbour, as the trainer's
#       point-to-point path), the array compressed by FORM (CHOCO-SGD's
#       q; none: full size), -dD with D + 1 rounds in flight (the
#       schedule of --staleness D: the steady-state seconds a round,
#       smpi-probe gossip:D), REPS=16 rounds: OUT/probes/CELL/g-....op.
#       When the probes were made the trainer's stale exchange blocked
#       (it keeps its rounds in flight since, docs/train/staleness.md) and
#       its CHOCO-SGD sent dequantized floats (its rounds move their wire
#       form since: a probe of the trainer made since with
#       --compress is the compressed round itself, not to be corrected
#       again); the re-timing
#       takes the trainer's own round less what the bare round saves
#       (one link per host: wan and datacenter only)
#   EVAL=E  also evaluate every E steps (--eval-every; default: at the end)
#   N=256 (hosts = workers = ranks, one per host); K=32 (steps a probe
#   trains: two agreements of 16 steps and an evaluation; an epoch is cut
#   to K steps by --train-limit K x 1024); TOPO=data/results-slow-network/topo
#   DEADLINE=HH:MM (UTC): start no probe after it (listed as not started)
#   SKIP="CELL/PROBE ..."  not run (too slow to simulate: say so in README)
#
# One SMPI job at a time, under nice -n 5. Global batch 1,024 (4 per
# worker at 256), LeNet, --partition iid (the partition changes no
# message; a short --train-limit cannot give every worker of dirichlet:0.1
# four images), 100 test images, no local evaluation: the evaluation is
# outside wall_s (dt_dpsgd_report.c) and costs simulation time only.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; -*) echo "smpi-retime: unknown option '$1' (see --help)" >&2; exit 2;; '') echo "smpi-retime: usage: scripts/experiments/smpi-retime.sh OUT (see --help)" >&2; exit 2;; esac
OUT=$1
. "$here/../lib/common.sh" # die
BIN=${BIN:-$root/bin}
N=${N:-256}
K=${K:-32}
TOPO=${TOPO:-$root/data/results-slow-network/topo}
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
BATCH=$((1024 / N))
[ $((BATCH * N)) = 1024 ] || die "N=$N does not divide the global batch of 1,024"
CELLS=${CELLS:-"wan-cm02 wan-lv08 sites4-cm02 sites4-lv08 datacenter-cm02 datacenter-lv08"}
SKIP=${SKIP:-}
[ -x "$BIN/topogen" ] || die "no $BIN/topogen (make)"
deadline_s=""
[ -z "${DEADLINE:-}" ] || deadline_s=$(date -u -d "$DEADLINE" +%s) || die "DEADLINE '$DEADLINE' is not HH:MM"

# the default probes of a platform: every pattern the committed runs use
probes() {
    p="ar-auto exact d2-aware-s1 dpsgd-opexp"
    case $1 in sites4) p="$p ar-hier d2-hosts-s1 d2-random-s1 d2-learned-s1 d2-hosts-s2 d2-hosts-s3";; esac
    echo "$p"
}
# flags PLATFORM PROBE: the probe's own flags
flags() {
    base=$2 opts=""
    case $2 in
    ar-*-*|exact-*|warm-*) base=${2%%-[A-Z]*} opts=${2#"$base"-};;
    local-*) base=local opts=${2#local-};;
    d2-*-s[0-9]*-*|dpsgd-*-s[0-9]*-*|gt-*-s[0-9]*-*) base=${2%-s[0-9]*}; r=${2#"$base"-}; base=$base-${r%%-*}; opts=${r#*-};;
    esac
    case $base in
    ar-auto|ar-ompi|ar-rdb|ar-rab) x="--mode allreduce --workers $N";;
    ar-direct) x="--mode allreduce --workers $N --allreduce direct";;
    ar-hier) [ "$1" = sites4 ] || die "ar-hier: sites4 only (one rank per host elsewhere)"
        x="--mode allreduce --workers $N --allreduce hierarchical --net-hosts 4";;
    exact) x="--mode allreduce --workers $N --average-every 2 --local-after 0";;
    warm) x="--mode allreduce --workers $N --average-every 2 --local-after 100000";;
    local) x="--mode allreduce --workers $N";;
    d2-*|dpsgd-*|gt-*)
        alg=${base%%-*} g=${base#*-}
        case $g in opexp) f=$TOPO/one-peer-exp.txt;; *) f=$TOPO/$g.txt;; esac
        [ -s "$f" ] || die "no topology $f"
        x="--topology $f --algorithm $alg"
        case $g in hosts-*) x="$x --placement block";; esac;;
    *) die "unknown probe '$2'";;
    esac
    IFS=-
    for o in $opts; do
        case $o in
        H[0-9]*) x="$x --average-every ${o#H}";;
        S[0-9]*) x="$x --local-after ${o#S}";;
        pga[0-9]*) x="$x --global-every ${o#pga}";;
        E[0-9]*) x="$x --eval-every ${o#E}";;
        *) unset IFS; die "unknown option '$o' in probe '$2'";;
        esac
    done
    unset IFS
    echo "$x"
}
# evals PROBE: the evaluation's flags: small (100 test images, no local
# evaluation: outside wall_s) unless the probe says -EE (the committed
# runs' evaluation, whose skew between ranks the next agreement waits for)
evals() {
    case $1 in
    *-E[0-9]*) echo "--local-eval 100";;
    *) echo "--test-limit 100 --local-eval 0";;
    esac
}
# probe_cfg PROBE: the SMPI options of the probe (smpi-run.sh's SMPI_CFG)
probe_cfg() {
    case $1 in
    ar-ompi|ar-ompi-*) echo "--cfg=smpi/coll-selector:ompi";;
    ar-rdb|ar-rdb-*) echo "--cfg=smpi/allreduce:rdb";;
    ar-rab|ar-rab-*|q-*-rab) echo "--cfg=smpi/allreduce:rab_rdb";;
    g-*) ;;
    q-*-ompi) echo "--cfg=smpi/coll-selector:ompi";;
    q-*-rdb) echo "--cfg=smpi/allreduce:rdb";;
    esac
}
# op_bytes FORM: a LeNet array (61,706 floats) compressed by FORM, in
# bytes (dt_compress_bytes: 256 values per float scale)
op_bytes() {
    awk -v f="$1" -v n=61706 'BEGIN { b = int((n + 255) / 256)
        if (f == "none") print 4 * n; else if (f == "int8") print n + 4 * b
        else if (f == "int4") print int((n + 1) / 2) + 4 * b; else print "" }'
}
# op_args PLATFORM PROBE: smpi-probe's arguments for q-FORM-ALG
op_args() {
    form=${2#q-} alg=${2##*-}
    form=${form%-*}
    B=$(op_bytes "$form")
    [ -n "$B" ] || die "probe '$2': form '$form' is not none, int8 or int4"
    case $alg in
    ompi|rdb|rab) echo "allreduce - $B ${REPS:-8}";;
    direct) echo "direct - $B ${REPS:-8}";;
    hier) [ "$1" = sites4 ] || die "$2: sites4 only"
        echo "hier $((N / 4)) $B ${REPS:-8}";;
    *) die "probe '$2': algorithm '$alg' is not ompi, rdb, rab, direct or hier";;
    esac
}
# gop_args PLATFORM PROBE: smpi-probe's arguments for g-FORM-GRAPH-sS[-dD]
gop_args() {
    r=${2#g-}
    form=${r%%-*} r=${r#*-}
    d=${r##*-d} g=${r%-d*}
    case $r in *-d[0-9]*) ;; *) d=0 g=$r;; esac
    [ "$1" != sites4 ] || die "$2: wan and datacenter only (one link per host; at 4 sites the trainer's placement is not the probe's)"
    B=$(op_bytes "$form")
    [ -n "$B" ] || die "probe '$2': form '$form' is not none, int8 or int4"
    f=$TOPO/$g.txt
    [ -s "$f" ] || die "probe '$2': no topology $f"
    if [ "$d" = 0 ]; then echo "gossip $f $B ${REPS:-16}"; else echo "gossip:$d $f $B ${REPS:-16}"; fi
}
probe_dir="" probe_bin=""
# the smpi-probe binary (built once, in a temporary folder removed at exit)
op_probe() {
    if [ -z "$probe_bin" ]; then
        command -v smpicc >/dev/null 2>&1 || die "smpicc not found (libsimgrid-dev)"
        probe_dir=$(mktemp -d "${TMPDIR:-/tmp}/smpi-retime.XXXXXX")
        trap 'rm -rf "$probe_dir"' EXIT
        probe_bin=$probe_dir/smpi-probe
        smpicc -O2 "$here/smpi-probe.c" -o "$probe_bin" 2>"$probe_dir/cc.err" ||
            die "smpicc: $(head -c 300 "$probe_dir/cc.err")"
    fi
}
platform_file() {
    f="$OUT/platforms/$1-$N.xml"
    if [ ! -s "$f" ]; then
        mkdir -p "$OUT/platforms"
        case $1 in sites4) net=sites:4;; *) net=$1;; esac
        "$BIN/topogen" platform --net "$net" -n "$N" -o "$f" || die "topogen platform $net failed"
    fi
    echo "$f"
}

mkdir -p "$OUT/probes"
for cell in $CELLS; do
    plat=${cell%-*} tcp=${cell##*-}
    case $plat in wan|datacenter|sites4) ;; *) die "unknown platform '$plat' in '$cell'";; esac
    case $tcp in cm02|lv08) ;; *) die "unknown TCP setting '$tcp' in '$cell'";; esac
    pf=$(platform_file "$plat")
    mkdir -p "$OUT/probes/$cell"
    for pr in ${PROBES:-$(probes "$plat")}; do
        b="$OUT/probes/$cell/$pr"
        [ -f "$b.json" ] || [ -f "$b.op" ] && continue
        case " $SKIP " in *" $cell/$pr "*) echo "smpi-retime: $cell $pr: skipped (SKIP)"; continue;; esac
        case $pr in ar-hier|q-*-hier) [ "$plat" = sites4 ] || continue;; g-*) [ "$plat" != sites4 ] || continue;; esac
        if [ -n "$deadline_s" ] && [ "$(date +%s)" -gt "$deadline_s" ]; then
            echo "smpi-retime: $cell $pr: not started (DEADLINE $DEADLINE)"
            continue
        fi
        c=$(probe_cfg "$pr")
        case $pr in q-*|g-*)
            case $pr in q-*) a=$(op_args "$plat" "$pr");; *) a=$(gop_args "$plat" "$pr");; esac
            op_probe
            echo "smpi-retime: $cell $pr: smpi-probe $a${c:+ (SMPI: $c)} ($(date -u +%H:%M:%S))"
            t0=$(date +%s)
            echo "# smpi-run.sh --tcp $tcp -platform $(basename "$pf") -np $N, SMPI_CFG='${SMPI_CFG:-} $c', smpi-probe $a, $(date -u +%Y-%m-%dT%H:%MZ)" >"$b.op.tmp"
            # shellcheck disable=SC2086
            if ! SMPI_CFG="${SMPI_CFG:-} $c" nice -n 5 /usr/bin/time -f "simulation: %e s wall, %U s user, %S s system, %M kB max RSS" \
                sh "$here/smpi-run.sh" --tcp "$tcp" -platform "$pf" -np "$N" "$probe_bin" $a >>"$b.op.tmp" 2>&1 ||
                ! grep -q '^probe_s ' "$b.op.tmp"; then
                echo "smpi-retime: $cell $pr failed: $(tail -n 3 "$b.op.tmp")"
                continue
            fi
            mv "$b.op.tmp" "$b.op"
            echo "smpi-retime: $cell $pr: $(grep '^probe_s' "$b.op") s an operation ($(($(date +%s) - t0)) s)"
            continue;;
        esac
        # the trainer's probes need the SMPI build (the bare q-/g- ones not)
        [ -x "$BIN/dpsgd-train-smpi" ] || die "no $BIN/dpsgd-train-smpi (make smpi)"
        f=$(flags "$plat" "$pr")
        [ -z "${EVAL:-}" ] || f="$f --eval-every $EVAL"
        echo "smpi-retime: $cell $pr: $f${c:+ (SMPI: $c)} ($(date -u +%H:%M:%S))"
        t0=$(date +%s)
        echo "# smpi-run.sh --tcp $tcp -platform $(basename "$pf") -np $N, SMPI_CFG='${SMPI_CFG:-} $c', K=$K, $(date -u +%Y-%m-%dT%H:%MZ)" >"$b.log"
        # shellcheck disable=SC2086
        SMPI_CFG="${SMPI_CFG:-} $(probe_cfg "$pr")" nice -n 5 /usr/bin/time -f "simulation: %e s wall, %U s user, %S s system, %M kB max RSS" \
            sh "$here/smpi-run.sh" --tcp "$tcp" -platform "$pf" -np "$N" "$BIN/dpsgd-train-smpi" \
            --data "$DATA" --model lenet --batch $BATCH --lr 0.05 --momentum 0.9 --partition iid \
            --train-limit $((K * 1024)) $(evals "$pr") --epochs 1 --seed 1 \
            $f --log "$b.csv.tmp" --summary "$b.json.tmp" >>"$b.log" 2>&1 ||
            { echo "smpi-retime: $cell $pr failed: $(tail -n 3 "$b.log")"; continue; }
        mv "$b.csv.tmp" "$b.csv"
        mv "$b.json.tmp" "$b.json"
        echo "smpi-retime: $cell $pr: $(grep '^time per rank' "$b.log") ($(($(date +%s) - t0)) s)"
    done
done
echo "smpi-retime: done; python3 $here/smpi-retime.py $OUT re-times the runs"
