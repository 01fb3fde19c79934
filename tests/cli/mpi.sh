#!/bin/sh
# cli/mpi.sh: dpsgd-train under mpirun: topologies, ranks, bad files and
# flags (every rank stops, one message), checkpoints (checkpoint_cases),
# --placement, --net, --bench-gossip (placement_cases).
#
#   BIN=bin sh tests/cli/mpi.sh  (make check-cli-mpi)
. "$(dirname "$0")/lib.sh"

# Issue 10 items 2-5, 7, 8: checkpoints that protect a run, and the run's
# reports (mpi_cases calls this with $dt, $syn and $T/g4.txt set).
checkpoint_cases() {
    ck="$T/ck-life"
    # --resume with no checkpoint yet: a notice, then a fresh start
    expect_ok "--resume on an empty directory" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --checkpoint "$ck" --resume --quiet --local-eval 0 --log "$T/life.csv"
    check 'grep -qx "dpsgd-train: notice: --resume: no checkpoint in $ck yet: starting from scratch" "$T/err" && [ "$(cat "$ck/latest")" = epoch-000002 ]' \
        "notice and a complete checkpoint: $(head -c 200 "$T/err")"
    check 'awk -F, "NR > 1 && \$6 != \"\" { bad = 1 } END { exit bad }" "$T/life.csv" && grep -q "  local_acc -  " "$T/out"' \
        "--local-eval 0: empty local-accuracy column, '-' on the final line"
    cp "$ck/latest" "$T/latest.before"
    # a fresh run refuses a directory that holds a checkpoint (it deleted it)
    expect_fail 2 "^dpsgd-train: --checkpoint: $ck holds the checkpoint of an earlier run \\(epoch 2\\): add --resume to continue it, or remove $ck" \
        "fresh run on an existing checkpoint" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 --checkpoint "$ck"
    check 'cmp -s "$ck/latest" "$T/latest.before" && [ -d "$ck/epoch-000002" ]' "the earlier checkpoint is intact"
    # a second run on the same directory is refused (flock(1) holds DIR/lock)
    expect_fail 1 "^dpsgd-train: --checkpoint: $ck is in use by another run \\($ck/lock is locked\\)" \
        "second run on one checkpoint directory" flock -n "$ck/lock" env OMPI_ALLOW_RUN_AS_ROOT=1 \
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 \
        mpirun -q --oversubscribe --bind-to none -np 2 "$dt" --topology "$T/g4.txt" $syn --epochs 3 --checkpoint "$ck" --resume
    rm -f "$ck/lock"
    # another setting: named, with both values
    expect_fail 2 "^dpsgd-train: --resume: $ck was written with other settings: --lr 0.02, this run has --lr 0.05: resume with the settings" \
        "resume with another --lr" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 3 --checkpoint "$ck" --resume --lr 0.05
    # a larger --epochs continues; --keep 2 keeps two generations
    expect_ok "--resume with more --epochs" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 4 --checkpoint "$ck" --resume --quiet
    check 'grep -q "^final: .*  epochs 4  " "$T/out" && grep -q "(8 steps after resume" "$T/out"' \
        "continued to epoch 4: $(grep final: "$T/out")"
    check '[ "$(ls -d "$ck"/epoch-* | wc -l)" -eq 2 ] && [ -d "$ck/epoch-000003" ] && [ -d "$ck/epoch-000004" ] && [ ! -e "$ck/lock" ]' \
        "--keep 2 (default): epochs 3 and 4 kept, no lock left: $(ls "$ck" | tr '\n' ' ')"
    expect_ok "--keep 1" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 5 --checkpoint "$ck" --resume --keep 1 --quiet
    check '[ "$(ls -d "$ck"/epoch-* | wc -l)" -eq 1 ] && [ "$(ls "$ck"/state-* | wc -l)" -eq 1 ]' "--keep 1: one generation"
    # start-up checks: an unwritable --checkpoint before any training
    : >"$T/plainfile"
    expect_fail 1 "^dpsgd-train: --checkpoint: cannot create checkpoint directory $T/plainfile/ck: Not a directory" \
        "unwritable --checkpoint at start-up" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 \
        --checkpoint "$T/plainfile/ck" --log "$T/unw.csv"
    check '[ ! -e "$T/unw.csv" ]' "no log row written"
    # divergence stops the run (--quiet: the epoch-0 row's progress line,
    # printed before the first step, is not part of the failure)
    expect_fail 1 "^dpsgd-train: training diverged at epoch 1 \\(step [0-9]+\\): the training loss is NaN" \
        "D-PSGD --lr 100 diverges" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --lr 100 --epochs 2 --quiet
    # --weights on a weighted file applies, with a notice
    "$BIN/topogen" -n 8 -d 2 --kind ring --weights laplacian -q -o "$T/ring8.txt"
    expect_ok "weighted file" mpi_run 2 "$dt" --topology "$T/ring8.txt" $syn --epochs 1 --quiet
    # the summary's start-up seconds, peak memory and in-memory gossip bytes
    check 'grep -qE "^time per rank: compute .* total [0-9.]+ s  start-up [0-9.]+ s \(CPU [0-9.]+ s\)  \([0-9]+ steps, [0-9.]+ kB sent per step per rank\)$" "$T/out" &&
           grep -qE "^memory per rank: peak RSS [0-9.]+ MB max, [0-9.]+ MB mean \([1-9][0-9]* bytes per worker\); gossip in memory [0-9.]+ MB streamed per step per rank$" "$T/out" &&
           ! grep -q "peak RSS 0.0 MB\|gossip in memory 0.0 MB" "$T/out"' \
        "start-up, memory and gossip bytes reported: $(grep -E "^(time|memory) per rank" "$T/out")"
    s1=$(sed -n 's/.*  slem \([0-9.]*\)  .*/\1/p' "$T/out")
    expect_ok "weighted file with --weights maxdeg" mpi_run 2 "$dt" --topology "$T/ring8.txt" $syn --epochs 1 --quiet --weights maxdeg
    s2=$(sed -n 's/.*  slem \([0-9.]*\)  .*/\1/p' "$T/out")
    check 'grep -qx "dpsgd-train: notice: --weights maxdeg replaces the weights in $T/ring8.txt" "$T/err" && [ -n "$s1" ] && [ "$s1" != "$s2" ]' \
        "--weights maxdeg applied with a notice (slem $s1 -> $s2)"
    # all-reduce reports the bytes it hands to MPI_Allreduce
    expect_ok "all-reduce bytes" mpi_run 2 "$dt" --mode allreduce $syn --epochs 1 --quiet --log "$T/ar.csv"
    check 'awk -F, "NR == 3 && \$8 > 0 { ok = 1 } END { exit !ok }" "$T/ar.csv" && ! grep -q "(.*, 0.0 kB sent per step" "$T/out"' \
        "all-reduce bytes_sent > 0: $(tail -n 1 "$T/ar.csv")"
    check 'grep -qE "^memory per rank: peak RSS [0-9.]+ MB max, [0-9.]+ MB mean \([1-9][0-9]* bytes per worker\)$" "$T/out"' \
        "all-reduce: memory line without the gossip bytes: $(grep "^memory per rank" "$T/out")"
}

# mk_idx DIR N SIDE t10k NT SIDE_T: an MNIST-style IDX directory, N
# SIDExSIDE training images and NT SIDE_TxSIDE_T test images, zero pixels
# and labels (plain files, big-endian headers written with printf).
be32() { printf "\\$(printf %03o $(($1 >> 24 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 & 255)))"; }
mk_idx() {
    mkdir -p "$1"
    { printf '\0\0\10\3'; be32 "$2"; be32 "$3"; be32 "$3"
      head -c $(($2 * $3 * $3)) /dev/zero; } >"$1/train-images-idx3-ubyte"
    { printf '\0\0\10\1'; be32 "$2"; head -c "$2" /dev/zero; } >"$1/train-labels-idx1-ubyte"
    { printf '\0\0\10\3'; be32 "$5"; be32 "$6"; be32 "$6"
      head -c $(($5 * $6 * $6)) /dev/zero; } >"$1/$4-images-idx3-ubyte"
    { printf '\0\0\10\1'; be32 "$5"; head -c "$5" /dev/zero; } >"$1/$4-labels-idx1-ubyte"
}

mpi_cases() {
    command -v mpirun >/dev/null 2>&1 || { fail "mpirun not found"; return; }
    dt="$BIN/dpsgd-train"
    l="$T/mpi.csv"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    "$BIN/topogen" -n 4 -d 3 --quiet -o "$T/g4.txt"
    "$BIN/topogen" -n 4 -d 3 --quiet --format ncol -o "$T/g4.ncol"
    "$BIN/topogen" -n 4 -d 3 --quiet --format graphml -o "$T/g4.graphml"
    # the shared reader: ncol (exact weights) trains bit for bit like the
    # edge list; GraphML (igraph's 15-digit weights) is read and trains
    expect_ok "train on an edge list" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 1 --quiet
    h_el=$(sed -n 's/.*workers-hash //p' "$T/out")
    expect_ok "train on ncol" mpi_run 2 "$dt" --topology "$T/g4.ncol" $syn --epochs 1 --quiet
    check '[ -n "$h_el" ] && [ "$(sed -n "s/.*workers-hash //p" "$T/out")" = "$h_el" ]' "ncol: same workers-hash as the edge list"
    expect_ok "train on GraphML" mpi_run 2 "$dt" --topology "$T/g4.graphml" $syn --epochs 1 --quiet
    printf '1 2\n2 3\n3 4\n4 1\n' >"$T/one4.txt"
    expect_ok "train on a 1-based edge list" mpi_run 2 "$dt" --topology "$T/one4.txt" $syn --epochs 1 --quiet
    check 'grep -q "notice: .*one4.txt has no node 0 and no n=: read as 1-based" "$T/err" && grep -q "workers 4 " "$T/out"' \
        "1-based list: 4 workers and a notice"
    awk 'BEGIN { for (i = 0; i < 999999; i++) print i, (i + 1) % 999999 }' >"$T/ring999999.txt"
    # its Laplacian weights are found now (shift-and-invert, seconds); the
    # run stops at the partition (and would at the worker-memory check)
    expect_fail 2 "^dpsgd-train: --partition: [0-9]+ training images are too few for 999999 workers" \
        "huge ring: validated, then a message, not GSL's abort" mpi_run 2 "$dt" --topology "$T/ring999999.txt" $syn --log "$l"
    awk 'BEGIN { for (i = 0; i < 5000; i++) print i, i, 0.5; for (i = 0; i < 5000; i++) print i, (i + 1) % 5000, 0.25 }' >"$T/wring5000.txt"
    # above the dense limit D^2's spectral check runs sparse: no n^2
    # buffer, then the partition's message
    expect_fail 2 "^dpsgd-train: --partition: 512 training images are too few for 5000 workers" \
        "d2 on a weighted file above the dense limit: no dense buffer" \
        mpi_run 2 "$dt" --topology "$T/wring5000.txt" --algorithm d2 $syn --log "$l"
    expect_fail 2 "^dpsgd-train: 5 MPI ranks but .*g4.txt has only 4 workers" \
        "more ranks than workers" mpi_run 5 "$dt" --topology "$T/g4.txt" $syn --log "$l"
    printf '0 0 0.5\n1 1 0.5\n0 1 0.5\n1 0 0.25\n' >"$T/asym.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*asym.txt:4: .*symmetric" \
        "asymmetric topology" mpi_run 2 "$dt" --topology "$T/asym.txt" $syn --log "$l"
    printf '0 0 0.5\n1 1 0.4\n0 1 0.5\n' >"$T/rows.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*rows.txt: row 1 of W sums to 0.9" \
        "non-stochastic topology" mpi_run 2 "$dt" --topology "$T/rows.txt" $syn --log "$l"
    printf '0 1\n2 3\n' >"$T/split.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*split.txt: the graph is disconnected" \
        "disconnected topology" mpi_run 2 "$dt" --topology "$T/split.txt" $syn --log "$l"
    expect_fail 1 "^dpsgd-train: --topology: cannot open .*missing.txt" \
        "missing topology" mpi_run 2 "$dt" --topology "$T/missing.txt" $syn --log "$l"
    expect_fail 1 "^dpsgd-train: .*$T/nodata" \
        "missing data" mpi_run 2 "$dt" --topology "$T/g4.txt" --data "$T/nodata" --log "$l"
    # issue 10 item 1: test images of another shape (14x14 vs 28x28) are
    # refused at set-up in both distributed modes, not read out of bounds
    mk_idx "$T/shape" 64 28 t10k 16 14
    for mode in "--topology $T/g4.txt" "--mode allreduce --workers 4"; do
        expect_fail 1 "^dpsgd-train: .*$T/shape: training images are 1x28x28 but test images 1x14x14" \
            "test shape differs ($mode)" mpi_run 2 "$dt" $mode --dataset mnist --data "$T/shape" --log "$l"
    done
    expect_fail 2 "^dpsgd-train: 2 MPI ranks need --topology" \
        "two ranks, no topology" mpi_run 2 "$dt" $syn --log "$l"
    expect_fail 2 "^dpsgd-train: --partition 'dirichlet:-1'" \
        "bad partition" mpi_run 2 "$dt" --topology "$T/g4.txt" --partition dirichlet:-1 $syn
    # --algorithm: unknown name; D^2 on a W at D^2's limit (the 4-cycle
    # with MH weights has lambda_min = -1/3) when told not to transform;
    # an algorithm with all-reduce
    expect_fail 2 "^dpsgd-train: --algorithm: unknown algorithm 'adam'" \
        "unknown algorithm" mpi_run 2 "$dt" --topology "$T/g4.txt" --algorithm adam $syn --log "$l"
    printf '0 1\n1 2\n2 3\n3 0\n' >"$T/ring4.txt"
    expect_fail 2 "^dpsgd-train: --algorithm d2 on .*ring4.txt: lambda_min of its mixing matrix .* is -0.3333 with C = 1 .*--d2-mixing auto or half" \
        "d2 on lambda_min(W) = -1/3" mpi_run 2 "$dt" --topology "$T/ring4.txt" --weights mh --algorithm d2 --d2-mixing w $syn --log "$l"
    expect_fail 2 "^dpsgd-train: --algorithm gt is for decentralized runs" \
        "gt with all-reduce" mpi_run 2 "$dt" --mode allreduce --algorithm gt $syn --log "$l"
    check '[ ! -e "$l" ]' "no log after MPI failures"
    expect_ok "d2 with the automatic mixing matrix" mpi_run 2 "$dt" --topology "$T/ring4.txt" \
        --weights mh --algorithm d2 $syn --epochs 1
    check 'grep -q "^final: d2 " "$T/out" && grep -q "^d2 mixing matrix: (1 - C) I + C W with C = 0.9375, SLEM 0.3750 (W: 0.3333)" "$T/out"' \
        "d2 reports its mixing matrix"
    checkpoint_cases
    # issue 10 item 7: after --stop-after the final line says the epochs done
    expect_ok "--stop-after 1 of 3" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 3 --stop-after 1 --checkpoint "$T/ck-stop" --quiet
    check 'grep -q "^final: .*  epochs 1 of 3  " "$T/out"' "final line: epochs 1 of 3: $(grep final: "$T/out")"
    # issue 10 item 6: SIGTERM to mpirun, and a rank killed with -9, end
    # the job with one dpsgd-train line naming the last good checkpoint
    # mpirun follows its SIGTERM to the ranks with a SIGKILL after
    # odls_base_sigkill_timeout (1 s by default); on a loaded machine a
    # rank may not run its handler within that second, so the case gives
    # it 10 (the README's "Stopping a run" says the same to users)
    for how in term kill; do
        case_no=$((case_no + 1))
        ck="$T/ck-$how"
        env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            OMPI_MCA_odls_base_sigkill_timeout=10 \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            OPENBLAS_NUM_THREADS=1 mpirun -q --oversubscribe --bind-to none \
            -np 2 "$dt" --topology "$T/g4.txt" --dataset synthetic \
            --synthetic-train 2048 --synthetic-test 64 --epochs 500 \
            --checkpoint "$ck" --quiet >"$T/out" 2>"$T/err" &
        mp=$!
        i=0
        while [ ! -f "$ck/latest" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
        if [ "$how" = term ]; then
            kill -TERM $mp
        else # the newest rank process (ranks start after mpirun)
            kill -9 "$(pgrep -f -- "--checkpoint $ck" | grep -vx "$mp" | sort -n | tail -n 1)"
        fi
        wait $mp
        rc=$?
        if [ "$rc" -eq 0 ]; then
            fail "$how: exit 0 after a signal"
        elif [ "$(grep -c "^dpsgd-train: stopped by SIGTERM (the job was interrupted, or another rank died); last good checkpoint: $ck/epoch-[0-9]* (continue with --resume)$" "$T/err")" -ne 1 ]; then
            fail "$how: not one message naming the checkpoint: $(head -c 300 "$T/err")"
        else
            passed=$((passed + 1))
        fi
    done
    # issue 10 item 6: a rank stopped (SIGSTOP) ends the job after
    # --timeout with one message naming it and the last good checkpoint
    case_no=$((case_no + 1))
    ck="$T/ck-stop-rank"
    env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OPENBLAS_NUM_THREADS=1 mpirun -q --oversubscribe --bind-to none \
        -np 3 "$dt" --topology "$T/g4.txt" --dataset synthetic \
        --synthetic-train 2048 --synthetic-test 64 --epochs 500 \
        --checkpoint "$ck" --timeout 3 --quiet >"$T/out" 2>"$T/err" &
    mp=$!
    i=0
    while [ ! -f "$ck/latest" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    pid=$(pgrep -f -- "--checkpoint $ck" | grep -vx "$mp" | sort -n | tail -n 1)
    rank=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    kill -STOP "$pid"
    wait $mp
    rc=$?
    if [ "$rc" -eq 0 ]; then
        fail "stopped rank: exit 0"
    elif [ "$(grep -c "^dpsgd-train:" "$T/err")" -ne 1 ] || ! grep -q "^dpsgd-train: no progress for 3 s (waiting in .*): rank $rank does not answer (stopped, hung or unreachable); the job is ended (--timeout 3); last good checkpoint: $ck/epoch-" "$T/err"; then
        fail "stopped rank $rank: not one message naming it: $(head -c 400 "$T/err")"
    else
        passed=$((passed + 1))
    fi
    # a good run, and a corrupt checkpoint refused on resume
    expect_ok "4 workers on 2 ranks" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --checkpoint "$T/ck" --log "$l"
    check '[ "$(wc -l <"$l")" -eq 4 ] && [ -f "$T/ck/latest" ]' "CSV rows (epochs 0, 1, 2) and a complete checkpoint"
    check 'sed -n 2p "$l" | grep -qE "^0,0,[0-9.]+,,0\.[0-9]+,.*,[0-9]+\.[0-9]+$"' "epoch-0 row: no minibatch loss, a global loss: $(sed -n 2p "$l")"
    f="$T/ck/$(cat "$T/ck/latest")/worker-000001.ckpt" # --keep 2: two epochs
    printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
    expect_fail 1 "^dpsgd-train: --resume: .*worker-000001.ckpt: checksum mismatch" \
        "corrupt checkpoint" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 --checkpoint "$T/ck" --resume
    # the average model of a distributed run, saved and evaluated again
    expect_ok "--save-model under mpirun" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --save-model "$T/avg.st"
    a1=$(sed -n 's/.*test_acc \([0-9.]*\) .*/\1/p' "$T/out" | tail -1)
    expect_ok "--eval-model of the average" dt_run $syn --eval-model "$T/avg.st"
    check '[ -n "$a1" ] && [ "$(sed -n "s/^eval:.*test_acc \([0-9.]*\).*/\1/p" "$T/out")" = "$a1" ]' "average model: the accuracy the run printed"
    expect_ok "--summary under mpirun" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --summary "$T/mpi.json"
    check 'grep -q "\"mode\": \"dpsgd\"" "$T/mpi.json" && grep -q "\"ranks\": 2," "$T/mpi.json" && grep -q "\"workers\": 4," "$T/mpi.json"' "MPI summary: mode, ranks, workers"
    placement_cases
}

# --placement, --net, --bench-gossip under mpirun.
placement_cases() {
    rm -f "$l"
    expect_fail 2 "^dpsgd-train: --placement 'metis': expected block or graph" \
        "bad --placement" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --placement metis --log "$l"
    expect_fail 2 "^dpsgd-train: --net 'fast': " "bad --net" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net fast --log "$l"
    expect_fail 2 "^dpsgd-train: --allreduce ring is only priced by the network model: add --net NET" "--allreduce ring (priced only) without --net" \
        mpi_run 2 "$dt" --mode allreduce $syn --allreduce ring --log "$l"
    expect_fail 2 "^dpsgd-train: --allreduce is --mode allreduce's all-reduce; a gossip run does not call one" "--allreduce on gossip" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net wan --allreduce ring --log "$l"
    expect_fail 2 "^dpsgd-train: --net-hosts 5: more hosts than the 4 workers" "--net-hosts > n" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net wan --net-hosts 5 --log "$l"
    expect_fail 2 "^dpsgd-train: --allreduce 'tree': expected ring" "bad --allreduce" \
        mpi_run 2 "$dt" --mode allreduce $syn --net wan --allreduce tree --log "$l"
    expect_fail 2 "^dpsgd-train: --bench-gossip needs --topology" "--bench-gossip without topology" \
        mpi_run 2 "$dt" --bench-gossip 3
    check '[ ! -e "$l" ]' "no log after refused placement flags"
    # a 10 s latency makes the model's round 10 s: model_s - wall_s is
    # 10 s per step, less the few seconds of measured MPI time it replaces
    expect_ok "--net with a log" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --net "intra=10s,1000GB/s" --log "$l"
    check 'head -1 "$l" | grep -qx "epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent,lr,test_loss,train_loss_global,model_s"' \
        "CSV header with model_s last: $(head -1 "$l")"
    check 'awk -F, "NR > 1 { d = \$12 - \$3 - 10 * \$2; if (d > 0.01 || d < -3) bad = 1 } END { exit bad }" "$l"' \
        "model_s = wall_s - MPI time + 10 s per step: $(tail -1 "$l")"
    check 'grep -qE "^placement graph \((METIS|own bisection)[a-z0-9 ,-]*\): 4 workers on 2 ranks on 1 host: cut [0-9]+ edges \(0 across hosts\); per round .*modelled round 1e\+04 ms" "$T/out"' \
        "placement line: $(grep "^placement" "$T/out" | head -1)"
    check 'grep -q "^modelled wall clock" "$T/out"' "modelled wall clock line"
    check 'grep -q "^dpsgd-train: notice: --net: the modelled deployment has one host" "$T/err"' \
        "notice: no inter-host link on one machine: $(cat "$T/err")"
    # --mode allreduce --net: 4 workers modelled on 4 wan hosts, rd (best):
    # 2 steps of 50 ms + 246824 B / 12.5 MB/s = 139.49 ms per step
    expect_ok "--net on allreduce" mpi_run 2 "$dt" --mode allreduce --workers 4 $syn \
        --epochs 1 --net wan --net-hosts 4 --allreduce best --log "$l"
    check 'grep -qE "^modelled all-reduce 139 ms each: priced as best \(recursive-doubling\) on 4 ranks on 4 hosts" "$T/out" && head -1 "$l" | grep -q ",model_s$" && ! grep -q "notice: --net" "$T/err"' \
        "allreduce model line: $(grep modelled "$T/out")"
    # the gossip round of the 4 workers (K4) on 4 wan hosts: alpha + 3 B / beta
    expect_ok "--net-hosts on gossip" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --net wan --net-hosts 4 --log "$l"
    check 'grep -qE "modelled round 109 ms" "$T/out"' "--net-hosts round: $(grep "^placement" "$T/out" | tail -1)"
    expect_ok "--bench-gossip" mpi_run 2 "$dt" --topology "$T/g4.txt" --bench-gossip 5 --bench-floats 1000 --placement block
    check 'grep -qE "^bench-gossip: 4 workers on 2 ranks on 1 host, placement block: cut [0-9]+ edges \(0 across hosts\), [0-9]+ arrays of 4000 bytes per round" "$T/out" && grep -qE "^bench-gossip: measured [0-9.]+ ms per round \(median of 5, slowest rank; fastest [0-9.]+ ms\); modelled [0-9.]+ ms \(datacenter" "$T/out"' \
        "bench-gossip lines: $(cat "$T/out")"
}

cli_run mpi
