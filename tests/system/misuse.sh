#!/bin/sh
# misuse.sh: the probes of issues 24 and 25 that failed, as a careless or
# hostile user would try them: checkpoint directories shared between runs
# (links, forks, a broken marker, leftovers of a killed save), exit codes
# with and without mpirun, notices that must be true, flags that do not
# apply to the mode. Each case failed on the previous release.
#
#   BIN=bin sh tests/system/misuse.sh  (make check-misuse)
#
# Prints one line per failure and `misuse: N passed, M failed`.
set -u
BIN=${BIN:-bin}
BIN=$(cd "$BIN" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/misuse.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
case_no=0
fail() {
    failed=$((failed + 1))
    echo "misuse: case $case_no FAILED: $*"
}
run() {
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
}
# expect CODE REGEX DESC CMD...: exit CODE; for a failure, stderr matches
# REGEX (grep -E) and holds one line, nothing on stdout.
expect() {
    case_no=$((case_no + 1))
    code=$1 pat=$2 desc=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$code" ]; then
        fail "$desc: exit $rc, expected $code: $(head -c 300 "$T/err")"
    elif [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/err"; then
        fail "$desc: message does not match /$pat/: $(head -c 300 "$T/err")"
    elif [ "$code" -ne 0 ] && [ "$(wc -l <"$T/err")" -gt 2 ]; then
        fail "$desc: more than one message: $(head -c 400 "$T/err")"
    elif [ "$code" -ne 0 ] && [ -s "$T/out" ]; then
        fail "$desc: wrote to stdout on failure: $(head -c 200 "$T/out")"
    else
        passed=$((passed + 1))
    fi
}
check() {
    case_no=$((case_no + 1))
    if eval "$1"; then passed=$((passed + 1)); else fail "$2"; fi
}
dt() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OPENBLAS_NUM_THREADS=1 timeout 120 "$BIN/dpsgd-train" "$@"
}
mpi() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OPENBLAS_NUM_THREADS=1 timeout 120 mpirun -q --oversubscribe \
        --bind-to none -np 2 "$BIN/dpsgd-train" "$@"
}
# the files of DIR's epochs with their checksums, to see that nothing
# changed
sums() { (cd "$1" && find . -name 'worker-*' -o -name 'state-*' | sort | xargs -r md5sum); }
hash_of() { sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$T/out"; }

"$BIN/topogen" -n 4 -d 2 -q -o "$T/g4.txt"
syn="--dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 16 --quiet"
g="--topology $T/g4.txt"

# ---- checkpoint directories (items 1, 2, 10) ---------------------------
A=$T/A
expect 0 "" "run A, 3 epochs" mpi $g $syn --epochs 3 --checkpoint "$A"
sums "$A" >"$T/A.sums"
# a fork through a link: refused before any write, A untouched
mkdir "$T/B"
ln -s "$A/epoch-000003" "$T/B/epoch-000003"
cp "$A/state-000003.bin" "$A/settings" "$T/B/"
echo epoch-000003 >"$T/B/latest"
expect 1 "^dpsgd-train: --checkpoint: $T/B/epoch-000003 is a symbolic link: a checkpoint directory is written and pruned only by the run that owns it" \
    "an epoch linked into another run's DIR" mpi $g $syn --epochs 5 --checkpoint "$T/B" --resume
check 'sums "$A" | cmp -s - "$T/A.sums"' "A's files after B's refusal: $(ls "$A/epoch-000003" | tr '\n' ' ')"
expect 1 "is a symbolic link" "the same link, fresh run" mpi $g $syn --epochs 2 --checkpoint "$T/B"
check 'sums "$A" | cmp -s - "$T/A.sums"' "A's files after a fresh run on B"
# the documented fork: a copy; both continue, A unchanged by B
rm -rf "$T/B"
cp -r "$A" "$T/B"
expect 0 "" "fork by copy: B continues to epoch 5" mpi $g $syn --epochs 5 --checkpoint "$T/B" --resume
hb=$(hash_of)
check 'sums "$A" | cmp -s - "$T/A.sums"' "A unchanged by its fork"
expect 0 "" "A continues to epoch 5 too" mpi $g $syn --epochs 5 --checkpoint "$A" --resume
check '[ -n "$hb" ] && [ "$(hash_of)" = "$hb" ]' "fork and original agree bit for bit: $hb vs $(hash_of)"
# a marker that is missing, empty or garbage beside complete epochs: the
# DIR holds another run, with or without --resume; nothing is deleted
C=$T/C
expect 0 "" "run C, 2 epochs" mpi $g $syn --epochs 2 --checkpoint "$C"
sums "$C" >"$T/C.sums"
for how in garbage empty missing; do
    case $how in
        garbage) echo "not a marker" >"$C/latest" ;;
        empty) : >"$C/latest" ;;
        missing) rm -f "$C/latest" ;;
    esac
    expect 2 "^dpsgd-train: --checkpoint: $C holds a complete checkpoint \\(epoch-000002\\) but $C/latest is missing or unreadable: it is another run's" \
        "fresh run, latest $how" mpi $g $syn --epochs 2 --checkpoint "$C"
    check 'sums "$C" | cmp -s - "$T/C.sums"' "C's epochs intact (latest $how)"
    # a missing marker with --resume is adopted when the settings are the
    # run's (issue 34: a save killed before its marker); never with others
    [ "$how" = missing ] &&
        expect 2 "^dpsgd-train: --checkpoint: $C was written with other settings: --lr 0.02, this run has --lr 0.05" \
            "--resume with other settings, latest $how" mpi $g $syn --epochs 3 --checkpoint "$C" --resume --lr 0.05
    [ "$how" = missing ] ||
        expect 2 "holds a complete checkpoint" "--resume, latest $how" mpi $g $syn --epochs 3 --checkpoint "$C" --resume
    check 'sums "$C" | cmp -s - "$T/C.sums"' "C's epochs intact after --resume (latest $how)"
done
expect 0 "continuing from epoch-000002, the newest complete checkpoint" "--resume, latest missing, the run's settings" \
    mpi $g $syn --epochs 3 --checkpoint "$C" --resume
check '[ "$(cat "$C/latest")" = epoch-000003 ]' "C adopted and continued to epoch 3"
# pruning removes only this run's epochs: another run's epoch directory
# (other settings, no marker, no state file) stays
P=$T/P
expect 0 "" "run with --lr 0.01" mpi $g $syn --epochs 1 --checkpoint "$T/other" --lr 0.01
mkdir "$P"
cp -r "$T/other/epoch-000001" "$P/epoch-000009"
expect 0 "" "a run beside a foreign epoch directory" mpi $g $syn --epochs 3 --checkpoint "$P"
check '[ -f "$P/epoch-000009/worker-000000.ckpt" ] && [ "$(cat "$P/latest")" = epoch-000003 ] && [ ! -d "$P/epoch-000001" ]' \
    "foreign epoch-000009 kept, own epoch 1 pruned: $(ls "$P" | tr '\n' ' ')"
# a save killed while writing: its temporary files go at the next start
: >"$A/state-000006.bin.tmp.Ab12Cd"
mkdir -p "$A/epoch-000005"
: >"$A/epoch-000005/worker-000001.ckpt.tmp.Xy34Zw"
: >"$A/latest.tmp.Qq56Rr"
expect 0 "" "resume after an interrupted save" mpi $g $syn --epochs 6 --checkpoint "$A" --resume
check '[ -z "$(find "$A" -name "*.tmp.*")" ]' "temporary files removed: $(find "$A" -name '*.tmp.*' | tr '\n' ' ')"

# ---- exit codes (item 4) ------------------------------------------------
expect 0 "" "a CNN model file" dt $syn --epochs 1 --model cnn --save-model "$T/cnn.st"
expect 1 "^dpsgd-train: --init-model: model file $T/cnn.st: tensor '0.weight' has shape" \
    "--init-model of another architecture, one process" dt $syn --epochs 1 --init-model "$T/cnn.st"
expect 1 "^dpsgd-train: --init-model: model file $T/cnn.st: tensor '0.weight' has shape" \
    "--init-model of another architecture, 1 process with --topology" dt $g $syn --epochs 1 --init-model "$T/cnn.st"
expect 1 "^dpsgd-train: --init-model: model file $T/cnn.st: tensor '0.weight' has shape" \
    "--init-model of another architecture, mpirun -np 2" mpi $g $syn --epochs 1 --init-model "$T/cnn.st"
expect 2 "^topogen: --hosts 3: more hosts than the 2 ranks" "eval --hosts 3 --ranks 2" \
    "$BIN/topogen" eval "$T/g4.txt" --net wan --hosts 3 --ranks 2
expect 2 "^topogen: --ranks 9: .* has only 4 nodes" "eval --ranks 9" \
    "$BIN/topogen" eval "$T/g4.txt" --net wan --ranks 9
expect 2 "^topogen: .*--groups 9: more groups than the 4 nodes" "eval --groups 9" \
    "$BIN/topogen" eval "$T/g4.txt" --groups 9

# ---- notices that are true (item 7) -------------------------------------
"$BIN/topogen" -n 8 --kind one-peer-exp -q -o "$T/ope8.txt"
for how in mpi dt; do
    expect 2 "^dpsgd-train: --weights: $T/ope8.txt is time-varying \\(period 3\\) and carries its own weights" \
        "--weights mh on a time-varying file ($how)" $how --topology "$T/ope8.txt" $syn --epochs 1 --weights mh
done

# ---- outputs that are inputs or each other (issue 34) --------------------
# refused before anything is written, exit 2 naming both flags; the
# topology is unchanged, no output appears
cp "$T/g4.txt" "$T/in.txt"
ln "$T/in.txt" "$T/in-link.txt"
for o in --log --summary --save-model --write-partition; do
    expect 2 "^dpsgd-train: $o $T/in.txt: the same file as --topology $T/in.txt" \
        "$o naming the --topology file" dt --topology "$T/in.txt" $syn --epochs 1 $o "$T/in.txt"
    check 'cmp -s "$T/in.txt" "$T/g4.txt"' "$o replaced the topology file"
done
expect 2 "^dpsgd-train: --log $T/in-link.txt: the same file as --topology $T/in.txt" \
    "--log a hard link of the topology (mpirun)" mpi --topology "$T/in.txt" $syn --epochs 1 --log "$T/in-link.txt"
expect 2 "^dpsgd-train: --summary $T/./out.csv: the same file as --log $T/out.csv" \
    "--log X --summary X (X new)" dt $g $syn --epochs 1 --log "$T/out.csv" --summary "$T/./out.csv"
check '[ ! -e "$T/out.csv" ]' "a refused run wrote $T/out.csv"
expect 2 "^dpsgd-train: --save-model $T/cnn.st: the same file as --init-model $T/cnn.st" \
    "--save-model naming --init-model" dt $syn --epochs 1 --model cnn --init-model "$T/cnn.st" --save-model "$T/cnn.st"
expect 0 "" "--log and --summary both /dev/null" dt $g $syn --epochs 1 --log /dev/null --summary /dev/null
# two runs on one --summary or --save-model: the second is refused, as
# for --log (the first holds FILE.lock)
expect 1 "^dpsgd-train: --summary $T/s.json is in use by another run" \
    "--summary of a running run" flock "$T/s.json.lock" "$BIN/dpsgd-train" $g $syn --epochs 1 --summary "$T/s.json"
expect 1 "^dpsgd-train: --save-model $T/m.st is in use by another run" \
    "--save-model of a running run (mpirun)" flock "$T/m.st.lock" sh -c \
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 mpirun -q --oversubscribe --bind-to none -np 2 '$BIN/dpsgd-train' $g $syn --epochs 1 --save-model '$T/m.st'"
check '[ ! -e "$T/s.json" ] && [ ! -e "$T/m.st" ]' "a refused run wrote its summary or model"
expect 0 "" "--summary and --save-model, no other run" dt $g $syn --epochs 1 --summary "$T/s.json" --save-model "$T/m.st"
check '[ -s "$T/s.json" ] && [ -s "$T/m.st" ] && [ ! -e "$T/s.json.lock" ] && [ ! -e "$T/m.st.lock" ]' \
    "summary and model written, lock files removed: $(ls "$T" | tr '\n' ' ')"

# ---- a signal while topogen writes (issue 34) ----------------------------
# SIGTERM once the 10^6-node file's temporary exists: exit 143, neither
# the file nor its *.tmp.XXXXXX left
mkdir "$T/sig"
"$BIN/topogen" -n 1000000 --kind ring -q -o "$T/sig/ring.txt" &
tg=$!
while kill -0 "$tg" 2>/dev/null && [ -z "$(ls "$T/sig")" ]; do sleep 0.01; done
kill -TERM "$tg" 2>/dev/null
wait "$tg"
rc=$?
check '[ "$rc" -eq 143 ] && [ -z "$(ls -A "$T/sig")" ]' "topogen killed while writing: exit $rc, left: $(ls -A "$T/sig" | tr '\n' ' ')"

# ---- a memory limit (issue 34) -------------------------------------------
# under ulimit -v 200000 topogen ends at once with exit 1 and one message
# (OpenBLAS retried its buffer allocation forever: a hang, even for 16
# nodes); a pipe beyond the 2 GiB cap reports the cap, not "out of memory"
# (the buffer doubled to 4 GiB before the cap was checked)
"$BIN/topogen" -n 16 -d 3 -q -o "$T/g16.txt"
expect 1 "^topogen: out of memory: the address-space limit \(ulimit -v 200000 KB\)" \
    "topogen eval under ulimit -v 200000" timeout -s KILL 60 sh -c "ulimit -v 200000; exec '$BIN/topogen' eval '$T/g16.txt'"
expect 1 "^topogen: out of memory: the address-space limit \(ulimit -v 200000 KB\)" \
    "topogen -n 4096 under ulimit -v 200000" timeout -s KILL 60 sh -c "ulimit -v 200000; exec '$BIN/topogen' -n 4096 -d 4 -q -o '$T/m.txt'"
# under ulimit -v 100000 OpenBLAS's constructor (before main) could not
# start its threads: its own message and exit 130 (issue 44); now each
# program's message, exit 1, OPENBLAS_NUM_THREADS unset as a user has it
expect 1 "^topogen: out of memory: the address-space limit \(ulimit -v 100000 KB\) leaves no room for OpenBLAS" \
    "topogen under ulimit -v 100000" timeout -s KILL 60 env -u OPENBLAS_NUM_THREADS sh -c "ulimit -v 100000; exec '$BIN/topogen' eval '$T/g16.txt'"
expect 1 "^dpsgd-train: out of memory: the address-space limit \(ulimit -v 100000 KB\) leaves no room for OpenBLAS" \
    "dpsgd-train under ulimit -v 100000" timeout -s KILL 60 env -u OPENBLAS_NUM_THREADS sh -c "ulimit -v 100000; exec '$BIN/dpsgd-train' --dataset synthetic --epochs 1 --quiet"
expect 1 "^topogen: -: larger than the 2147483647-byte \(2 GiB\) limit of topology files" \
    "2.2 GB on stdin under ulimit -v 3500000" sh -c "yes '0 1' | head -c 2200000000 | (ulimit -v 3500000; exec '$BIN/topogen' eval -)"

# ---- silent settings and outputs (issue 34) ------------------------------
# perm and exp-directed above 4,096 nodes (--help says 10^6): written, the
# header without the n_eff it cannot compute, and saying so
for k in perm exp-directed; do
    expect 0 "" "--kind $k at 4,097 nodes" "$BIN/topogen" -n 4097 $([ $k = perm ] && echo -d 2) --kind $k -q -o "$T/$k.txt"
    check 'grep -q "^# messages=[0-9.]* (n_eff and ||W - J||_2 are computed up to 4096 nodes)" "$T/$k.txt" && ! grep -q "neff=" "$T/$k.txt"' \
        "$k at 4,097 nodes: header $(sed -n 3p "$T/$k.txt")"
done
# a W that does not mix: reported, then refused as the trainer refuses it
printf '0 1 0.9\n1 2 0.9\n2 0 0.9\n' >"$T/nomix.txt"
case_no=$((case_no + 1))
run "$BIN/topogen" eval "$T/nomix.txt"
if [ "$rc" -eq 1 ] && grep -q "^slem  *1.7" "$T/out" &&
    grep -q "^topogen: $T/nomix.txt: W does not mix: its second-largest eigenvalue modulus ||W - 11^T/n||_2 is 1.7 (must be below 1); dpsgd-train refuses this file" "$T/err"; then
    passed=$((passed + 1))
else fail "eval of a W that does not mix: exit $rc: $(head -c 300 "$T/err")"; fi
# settings that would be ignored are refused; the implied degree itself
# is accepted
expect 2 "^topogen: --hetero-weight: needs --labels COUNTS" "--hetero-weight without --labels" \
    "$BIN/topogen" -n 16 -d 4 --hetero-weight 5 -q -o "$T/dx.txt"
expect 2 "^topogen: -d 3: --kind hypercube on 16 nodes has degree 4 \(implied by the kind\): leave -d out" \
    "-d 3 --kind hypercube" "$BIN/topogen" -n 16 -d 3 --kind hypercube -q -o "$T/dx.txt"
expect 2 "^topogen: -d 4: --kind exponential-sym on 16 nodes has degree 7" \
    "-d 4 --kind exponential-sym" "$BIN/topogen" -n 16 -d 4 --kind exponential-sym -q -o "$T/dx.txt"
check '[ ! -e "$T/dx.txt" ]' "a refused setting wrote $T/dx.txt"
expect 0 "" "-d 4 --kind hypercube on 16 nodes (its degree)" "$BIN/topogen" -n 16 -d 4 --kind hypercube -q -o "$T/dx.txt"
# messages and help
expect 2 "^topogen: unknown command 'evaluate' \(did you mean 'eval'\?\)" "topogen evaluate" \
    "$BIN/topogen" evaluate "$T/g4.txt"
check '"$BIN/topogen" --help | grep -q "^       topogen compare \[-n N\] \[-d D\]"' "compare is not in topogen --help"
expect 2 "^dpsgd-train: --algorithm: unknown algorithm 'd3' \(choose dpsgd, d2, gt, qgm or clique-avg\)" \
    "--algorithm d3" dt $g $syn --epochs 1 --algorithm d3
expect 2 "^dpsgd-train: --net 'lan': not a preset \(datacenter or wan\)" "--net lan" dt $g $syn --epochs 1 --net lan
expect 1 "^dpsgd-train: data directory /nonexistent/c does not exist \(CIFAR-10 is not packaged: unpack its binary version" \
    "--dataset cifar10 without its files" dt --dataset cifar10 --data /nonexistent/c --epochs 1
# --gamma is --lr-decay now: the old name works (the same run) and says so
expect 0 "" "--lr-decay 0.5" dt $g $syn --epochs 2 --schedule step --step-epochs 1 --lr-decay 0.5
h1=$(hash_of)
expect 0 "" "--gamma 0.5 (old name)" dt $g $syn --epochs 2 --schedule step --step-epochs 1 --gamma 0.5
check '[ -n "$h1" ] && [ "$(hash_of)" = "$h1" ] && grep -q "^dpsgd-train: notice: --gamma is now --lr-decay" "$T/err"' \
    "--gamma: the same run as --lr-decay ($h1 vs $(hash_of)) with a notice: $(head -c 200 "$T/err")"
# the summary: the real image counts, the topology by hash; all-reduce
# prints no SLEM nor gossip time; the placement line once
rm -f "$T/s.json" "$T/s2.json"
expect 0 "" "gossip run with --summary" mpi $g $syn --epochs 1 --summary "$T/s.json"
check '/usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
h = 14695981039346656037
for b in open(sys.argv[2], \"rb\").read():
    h = ((h ^ b) * 1099511628211) % 2**64
assert s[\"result\"][\"train_images\"] == 256 and s[\"result\"][\"test_images\"] == 64, s[\"result\"]
assert s[\"settings\"][\"topology_hash\"] == \"%016x\" % h, (s[\"settings\"][\"topology_hash\"], h)
" "$T/s.json" "$T/g4.txt"' "summary: train_images/test_images/topology_hash: $(grep -o '"train_images":[^,]*,"test_images":[^,]*' "$T/s.json")"
check '[ "$(grep -c "^placement " "$T/out")" -eq 1 ]' "placement line printed $(grep -c "^placement " "$T/out") times (--quiet)"
syn_loud=$(echo "$syn" | sed 's/--quiet//')
expect 0 "" "gossip run with progress lines" mpi $g $syn_loud --epochs 1
check '[ "$(grep -c "^placement " "$T/out")" -eq 1 ]' "placement line printed $(grep -c "^placement " "$T/out") times"
expect 0 "" "all-reduce run with --summary" mpi --mode allreduce --workers 4 $syn --epochs 1 --summary "$T/s2.json"
check 'grep -q "^final: allreduce" "$T/out" && ! grep -q "slem" "$T/out" && ! grep -q "gossip in-memory" "$T/out" && grep -q "\"slem\": *null" "$T/s2.json"' \
    "all-reduce prints a SLEM or a gossip time: $(grep "^final\|^time" "$T/out" | tr '\n' ' ')"

# ---- --log on a device (item 9) ----------------------------------------
# nothing is locked (or created) beside a file that is not a regular one:
# as root a device node of our own whose DEV.lock another process holds
# (the old code refused: "in use by another run"); as another user
# /dev/null itself (the old code could not create /dev/null.lock)
expect 0 "" "--log /dev/null" dt $g $syn --epochs 1 --log /dev/null
check '[ ! -e /dev/null.lock ]' "no /dev/null.lock"
if mknod "$T/null" c 1 3 2>/dev/null; then
    expect 0 "" "--log on a character device while DEV.lock is held" \
        flock -n "$T/null.lock" sh -c "ASAN_OPTIONS=detect_leaks=0 OPENBLAS_NUM_THREADS=1 '$BIN/dpsgd-train' $g $syn --epochs 1 --log '$T/null'"
fi

# ---- flags refused where they do nothing (items 13; issue 25) -----------
expect 2 "^dpsgd-train: --data $T: --dataset synthetic makes its own images" \
    "--data with --dataset synthetic" dt $syn --epochs 1 --data "$T"
expect 2 "^topogen: --t1 2: above the start temperature 1" "rising temperature" \
    "$BIN/topogen" -n 16 -d 3 --t0 1 --t1 2 -q -o "$T/x.txt"
check '[ ! -e "$T/x.txt" ]' "no file after a refused --t1"
for f in "--algorithm d2" "--partition dirichlet:0.1" "--workers 4" "--placement block" \
         "--net wan" "--weights mh" "--allreduce ring" "--net-hosts 4"; do
    expect 2 "^dpsgd-train: ${f%% *} is for distributed runs" "without --topology: $f" dt $syn --epochs 1 $f
done
for f in "--placement block" "--weights mh"; do
    expect 2 "^dpsgd-train: ${f%% *} is for decentralized runs" "--mode allreduce $f" \
        mpi --mode allreduce $syn --epochs 1 $f
done

# ---- the scripts (issue 25; issue 20's "scripts execute data") ----------
S=$(cd "$(dirname "$0")/../../scripts" && pwd)
R=$(cd "$(dirname "$0")/../../data/results/issue-15" && pwd)
mkdir "$T/cwd"
for f in experiments/sweep experiments/consensus experiments/algorithms demo reports/plot \
         reports/summary experiments/results experiments/results-every-topology reports/modelled \
         reports/import-results experiments/backfill-settings benches/bench-fdla benches/bench-gossip \
         benches/bench-net benches/bench-netmodel benches/bench-topogen benches/bench-train \
         benches/bench-groups install-deps experiments/slow-network; do
    case_no=$((case_no + 1))
    (cd "$T/cwd" && env -u OUT BIN=/nonexistent sh "$S/$f.sh" --help >"$T/out" 2>"$T/err")
    rc=$?
    if [ "$rc" -ne 0 ] || [ ! -s "$T/out" ] || [ -n "$(ls -A "$T/cwd")" ]; then
        fail "$f.sh --help: exit $rc, $(wc -l <"$T/out") lines, left in the folder: $(ls -A "$T/cwd" | tr '\n' ' ') $(head -c 200 "$T/err")"
    else
        passed=$((passed + 1))
    fi
done
for f in experiments/sweep experiments/consensus experiments/algorithms demo experiments/results experiments/slow-network; do
    (cd "$T/cwd" && expect 2 "^${f#*/}: unknown option '--bogus'" "$f.sh --bogus" sh "$S/$f.sh" --bogus)
    check '[ -z "$(ls -A "$T/cwd")" ]' "$f.sh --bogus created nothing: $(ls -A "$T/cwd")"
done
# an OUT with a newline: refused before any run (issue 44: summary.sh
# broke on it after a whole sweep), nothing created
nl="$T/new
line"
for f in experiments/sweep reports/summary; do
    expect 2 "holds a newline: the reports list runs one a line" "$f.sh with a newline in OUT" sh "$S/$f.sh" "$nl"
    check '[ ! -e "$nl" ]' "$f.sh: no folder made for an OUT with a newline"
done
# OUT as the argument: sweep.sh OUTDIR checks its tools first, in OUTDIR
expect 1 "^sweep: /nonexistent/topogen not found" "sweep.sh OUTDIR with no programs" \
    env BIN=/nonexistent sh "$S/experiments/sweep.sh" "$T/sweep-out"
# committed tables redraw from committed files: n16's table, into a folder
# of our own, equals the committed one
expect 0 "" "summary.sh --into DIR data/results/issue-15/n16" env TARGETS="0.80 0.85 0.88" \
    sh "$S/reports/summary.sh" --into "$T/sum16" "$R/n16"
check 'cmp -s "$T/sum16/summary.md" "$R/n16/summary.md"' "n16's table redrawn differs: $(diff "$R/n16/summary.md" "$T/sum16/summary.md" | head -c 300)"
check '! grep -q "± 0.00" "$T/sum16/summary.md" && grep -q "% (1 seed) |" "$T/sum16/summary.md"' "one-seed rows say '1 seed'"
expect 2 "^plot: .*/n16/plots holds committed plots: draw elsewhere with --into DIR" \
    "plot.sh on committed plots without --into" sh "$S/reports/plot.sh" "$R/n16"
# grid.env is read as data: a value with a command substitution is a
# string, not a command, and a line that is not KEY="value" is refused
mkdir -p "$T/evil"
cp -r "$R/n16-d2/runs" "$R/n16-d2/topo" "$T/evil/"
sed 's/^TRAIN_ARGS="\(.*\)"$/TRAIN_ARGS="\1 $(touch PWNED) --algorithm d2"/' "$R/n16-d2/grid.env" >"$T/evil/grid.env"
(cd "$T" && expect 0 "" "summary.sh with a command in grid.env" env TARGETS="0.80 0.85 0.88" sh "$S/reports/summary.sh" "$T/evil")
check '[ ! -e "$T/PWNED" ] && [ ! -e "$T/cwd/PWNED" ]' "grid.env's \$(touch PWNED) was run"
echo 'rm -rf "$HOME/nothing-here"' >>"$T/evil/grid.env"
expect 1 "grid.env:[0-9]+: not a KEY=\"value\" line" "summary.sh with a shell line in grid.env" \
    sh "$S/reports/summary.sh" "$T/evil"
# ---- scripts: names, folders, signals (issue 34) -------------------------
# a run name that would be gnuplot code is refused by plot.sh, naming the
# file; nothing is run
mkdir -p "$T/evilnames"
cp -r "$R/n16/runs" "$R/n16/topo" "$R/n16/grid.env" "$T/evilnames/"
bad="n8-rrl-mh-x';system('touch PWNED');'-s1"
cp "$R/n16/runs/n16-allreduce-none-iid-s1.settings" "$T/evilnames/runs/$bad.settings"
cp "$R/n16/runs/n16-allreduce-none-iid-s1.csv" "$T/evilnames/runs/$bad.csv"
(cd "$T/cwd" && expect 1 "^plot: $T/evilnames/runs/n8-rrl-mh-x';system\('touch PWNED'\);'-s1\.(settings|csv): a run name of other characters" \
    "plot.sh on a run name with gnuplot code" sh "$S/reports/plot.sh" --into "$T/evilplots" "$T/evilnames")
check '[ ! -e "$T/cwd/PWNED" ] && [ ! -e "$T/PWNED" ]' "plot.sh ran the run name's system()"
rm -f "$T/evilnames/runs/$bad".*
# OUT with a space, a quote and a backslash: plot.sh draws (the same
# figures as from a plain path)
sp="$T/o u't\\new"
mkdir -p "$sp"
cp -r "$T/evilnames" "$sp/n16"
(cd "$T/cwd" && expect 0 "" "plot.sh with ' \\ and a space in OUT" sh "$S/reports/plot.sh" "$sp/n16")
check '[ -s "$sp/n16/plots/acc-epoch-iid.png" ] && [ -s "$sp/n16/plots/consensus-iid.pdf" ] && [ -z "$(ls -A "$T/cwd")" ]' \
    "plot.sh in '$sp/n16': $(ls "$sp/n16/plots" 2>&1 | head -3 | tr '\n' ' ')"
# import-results.sh SRC SRC (or one inside the other) deletes nothing
mkdir "$T/imp"
cp -r "$T/evilnames" "$T/imp/n16"
touch "$T/imp/n16/runs/notes.txt"
for dest in "$T/imp" "$T/imp/." "$T/imp/sub/x"; do
    expect 2 "^import-results: DEST $dest is SRC $T/imp or inside it" \
        "import-results.sh SRC $dest" sh "$S/reports/import-results.sh" "$T/imp" "$dest"
done
expect 2 "^import-results: SRC $T/imp/n16 is inside DEST $T/imp" \
    "import-results.sh with SRC inside DEST" sh "$S/reports/import-results.sh" "$T/imp/n16" "$T/imp"
check '[ -f "$T/imp/n16/runs/notes.txt" ] && [ ! -e "$T/imp/sub" ]' "import-results.sh touched SRC: $(ls "$T/imp" "$T/imp/n16/runs" | head -5 | tr '\n' ' ')"
# sweep.sh stopped by SIGTERM stops its mpirun job: no process is left
# writing into OUT
so="$T/sweep signal"
SMOKE=1 WORKERS=4 SETTINGS=learned:laplacian PARTITIONS=iid ALLREDUCE=0 EPOCHS=100 NP=2 \
    BIN="$BIN" sh "$S/experiments/sweep.sh" "$so" >"$T/sweep.out" 2>&1 &
sw=$!
k=0
while [ $k -lt 300 ] && ! ps -eo args | grep -F "$so/runs" | grep -q dpsgd-train; do sleep 0.1; k=$((k + 1)); done
kill -TERM "$sw"
wait "$sw"
rc=$?
k=0
while [ $k -lt 100 ] && ps -eo args | grep -F "$so/runs" | grep -q dpsgd-train; do sleep 0.1; k=$((k + 1)); done
check '[ "$rc" -eq 143 ] && ! ps -eo args | grep -F "$so/runs" | grep -q dpsgd-train && [ ! -e "$so/runs/n4-learned-laplacian-iid-s1.done" ]' \
    "sweep.sh after SIGTERM: exit $rc, still running: $(ps -eo pid,args | grep -F "$so/runs" | grep -v grep | cut -c1-80)"


echo "misuse: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
