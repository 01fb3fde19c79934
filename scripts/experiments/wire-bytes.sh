#!/bin/sh
# wire-bytes.sh: the bytes the compressed exchanges move between ranks, as
# Open MPI counts them (its pml monitoring component: every point-to-point
# message, those of the collectives included), for --compress none, int8
# and int4 (docs/train/compression.md, "On the wire"). Two cases:
#   allreduce  local SGD's averages: LeNet, 8 workers on NP ranks,
#              synthetic set, 32 steps, --average-every 4 (8 averages);
#   choco      CHOCO-SGD's gossip: the same model and steps on a degree-3
#              graph of the 8 workers (topogen -n 8 -d 3), every step a
#              round (none: plain D-PSGD's round of the same plan; also
#              topk:0.1 at --consensus-step 0.5, values and indices), on
#              the point-to-point path (DT_GOSSIP_P2P=1): Open MPI 4.1's
#              monitoring cannot count the neighbourhood collective (its
#              coll component calls mca_topo_base_cart_shift on the
#              distributed-graph communicator and dies of a division by
#              zero; with it disabled, pml monitoring crashes freeing the
#              communicator). That path moves the same packed buffer
#              (tests/cli/compress.sh checks its bits).
# The runs of a case differ only in the exchanges, so with A the
# exchanges' bytes uncompressed and O everything else, total(form) =
# O + A f(form). The script solves O and A from none and int8 with f =
# the trainer's own count of the exchanges' bytes (int8 codes and scales
# against floats: dt_gossip's bytes_round), then checks int4's total
# against O + A f(int4) and A against the trainer's count, and prints
# each form's measured bytes and their ratio to uncompressed. Exit 1 when
# a case does not match.
#
#   sh scripts/experiments/wire-bytes.sh [-np NP] [BIN] [CASE...]
#
#   -np NP  ranks (2)
#   BIN     folder of dpsgd-train and topogen (bin)
#   CASE    allreduce, choco (both)
#
# About 15 s of CPU. Measured here (2 ranks), allreduce: 13,824,160 bytes
# in all uncompressed, 6,458,168 int8, 5,224,048 int4: the averages'
# 9,872,960 bytes become 2,506,968 (0.254x) and 1,272,848 (0.129x), within
# a few bytes of the trainer's count; before the codes went on the wire
# every form moved 13,824,160-168 bytes. choco: see the doc's table
# (before the wire form CHOCO moved the floats of plain D-PSGD's rounds).
set -eu
NP=2
if [ "${1:-}" = "-np" ]; then
    NP=$2
    shift 2
fi
BIN=${1:-bin}
[ $# -gt 0 ] && shift
CASES=${*:-allreduce choco}
command -v mpirun >/dev/null 2>&1 || { echo "wire-bytes: mpirun not found" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$BIN/topogen" -n 8 -d 3 --quiet -o "$T/c8.txt"
total() { # CASE FORM: the bytes every rank sent, summed
    m=$1 c=$2
    set -- --dataset synthetic --synthetic-train 1024 --synthetic-test 64 \
        --batch 8 --epochs 2 --quiet --summary "$T/$m-$c.json"
    case $m in
    allreduce) set -- "$@" --mode allreduce --workers 8 --average-every 4 ;;
    *) set -- "$@" --topology "$T/c8.txt" ;;
    esac
    [ "$c" = none ] || set -- "$@" --compress "$c"
    case $c in topk*) set -- "$@" --consensus-step 0.5 ;; esac
    OPENBLAS_NUM_THREADS=1 DT_GOSSIP_P2P=${P2P:-0} nice -n 5 mpirun \
        --allow-run-as-root --oversubscribe \
        --bind-to none --mca pml_monitoring_enable 1 \
        --mca pml_monitoring_enable_output 1 -np "$NP" "$BIN/dpsgd-train" "$@" 2>&1 |
        awk '$1 == "E" { s += $4 } END { printf "%d\n", s }'
}
fails=0
for CASE in $CASES; do
P2P=0
[ "$CASE" = choco ] && P2P=1
echo "$CASE:"
t0=$(total "$CASE" none)
t8=$(total "$CASE" int8)
t4=$(total "$CASE" int4)
tk=""
[ "$CASE" = choco ] && tk=$(total "$CASE" topk:0.1)
if [ "$CASE" = choco ]; then
# the trainer's count: the summary's bytes_sent (a rank's mean) x NP, of
# the uncompressed rounds; f: a worker array's wire bytes over its floats
f=$(python3 - "$NP" "$T/choco-none.json" <<'EOF'
import json, sys
P, n = int(sys.argv[1]), 61706
fl = json.load(open(sys.argv[2]))["result"]["bytes_sent"] * P
def wire(m, k):  # dt_compress_wire_bytes
    return (m if k == 8 else (m + 1) // 2) + 4 * ((m + 255) // 256)
print(fl, wire(n, 8) / (4 * n), wire(n, 4) / (4 * n),
      8 * -(-n // 10) / (4 * n))  # topk:0.1: ceil(n/10) (value, index)
EOF
)
else
# the 8 averages' float bytes and f, an average's wire bytes over its
# float bytes, summed over the ranks
# (the exact average's segments; the re-quantized one cuts them on blocks
# of 256 and sends codes and scales): from the trainer's formulas
f=$(python3 - "$NP" <<'EOF'
import sys
P, n, cnt_total = int(sys.argv[1]), 61706, 8
def wire(m, k):  # dt_compress_wire_bytes
    b = (m + 255) // 256
    return (m if k == 8 else (m + 1) // 2) + 4 * b
def segs(c, P, blocks):
    if not blocks:
        return [c // P + (q < c % P) for q in range(P)]
    nb = (c + 255) // 256
    out, d = [], 0
    for q in range(P):
        k = min((nb // P + (q < nb % P)) * 256, c - d)
        out.append(k)
        d += k
    return out
cnt = [cnt_total // P + (q < cnt_total % P) for q in range(P)]
fl = sum(cnt[q] * (n - s) * 4 + s * (P - 1) * 4 for q, s in enumerate(segs(n, P, 0)))
w = {k: sum(cnt[q] * (wire(n, k) - wire(s, k)) + wire(s, k) * (P - 1)
            for q, s in enumerate(segs(n, P, 1))) for k in (8, 4)}
print(8 * fl, w[8] / fl, w[4] / fl)  # 8 averages
EOF
)
fi
if python3 - "$t0" "$t8" "$t4" $f $tk <<'EOF'
import sys
t0, t8, t4 = (int(x) for x in sys.argv[1:4])
fl, f8, f4 = int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
A = (t0 - t8) / (1 - f8)
O = t0 - A
print("bytes sent, all ranks: none %d  int8 %d  int4 %d" % (t0, t8, t4))
if A < 0.5 * fl:  # int8 moved (about) as much as none: floats
    print("wire-bytes: MISMATCH: int8 moved %d bytes, none %d: the "
          "exchanges do not move the compressed bytes" % (t8, t0))
    sys.exit(1)
print("exchanges uncompressed: %.0f measured, %d counted by the trainer" % (A, fl))
print("exchanges int8: %.0f bytes (%.4fx)  int4: %.0f bytes (%.4fx; "
      "predicted from int8's fit %.4fx)" % (t8 - O, (t8 - O) / A, t4 - O,
                                           (t4 - O) / A, f4))
ok = abs((t4 - O) / A - f4) < 1e-3 and abs(A - fl) < 1e-3 * fl
if len(sys.argv) > 8:  # choco: topk:0.1 too, against its own count
    fk, tk = float(sys.argv[7]), int(sys.argv[8])
    print("exchanges topk:0.1: %.0f bytes (%.4fx; predicted %.4fx)"
          % (tk - O, (tk - O) / A, fk))
    ok = ok and abs((tk - O) / A - fk) < 1e-3
print("wire-bytes: %s" % ("the exchanges move the compressed bytes" if ok
                          else "MISMATCH: the exchanges do not move what the trainer counts"))
sys.exit(0 if ok else 1)
EOF
then :; else fails=$((fails + 1)); fi
done
exit $((fails > 0))
