# aggregate.awk: mean and standard deviation over seeds, row by row.
# Input: the CSVs of one setting (one per seed), each with a header naming
# its columns (dpsgd-train --log); columns are found by name, so logs
# without the newer columns (train_loss_global, a modelled time) still
# aggregate: the missing statistic is NaN. An empty field (not measured)
# is left out of that row's mean. Issue 14's lr and test_loss columns are
# not used here. Set -v mtime=NAME to aggregate the column NAME as the
# modelled time (default: dpsgd-train --net's model_s, else the first
# column whose name starts with "modelled").
# Output (whitespace-separated, one line per row index present in every
# file; NaN where no file has a value):
#  1 epoch  2 step  3 wall_mean  4 acc_mean  5 acc_std  6 loss_mean
#  7 loss_std  8 cons_mean  9 cons_std  10 local_acc_mean  11 nseeds
#  12 gloss_mean  13 gloss_std  14 bytes_mean  15 mtime_mean  16 mtime_std
BEGIN { FS = "," }
FNR == 1 {
    nf++
    if ($1 != "epoch") { printf "aggregate: %s: not a training log\n", FILENAME > "/dev/stderr"; bad = 1; exit 1 }
    delete C
    for (k = 1; k <= NF; k++) C[$k] = k
    if (mtime == "")
        for (k = 1; k <= NF; k++) if ($k == "model_s" || $k ~ /^modelled/) { mtime = $k; break }
    next
}
function add(key, name, r,   k, v) {
    if (!(name in C)) return
    v = $(C[name])
    if (v == "") return
    S[key, r] += v; S2[key, r] += v * v; N[key, r]++
}
{
    r = FNR - 1
    rows[nf] = r
    ep[r] = $1; st[r] = $2
    add("wall", "wall_s", r); add("acc", "test_acc", r)
    add("loss", "train_loss", r); add("cons", "consensus", r)
    add("local", "test_acc_local_mean", r); add("gloss", "train_loss_global", r)
    add("bytes", "bytes_sent", r)
    if (mtime != "") add("mtime", mtime, r)
}
function mean(key, r) { return N[key, r] ? S[key, r] / N[key, r] : "NaN" }
function sd(key, r,   k, v) {
    k = N[key, r]
    if (!k) return "NaN"
    v = S2[key, r] / k - (S[key, r] / k) ^ 2
    return v > 0 ? sqrt(v * k / (k > 1 ? k - 1 : 1)) : 0
}
END {
    if (bad || nf == 0) exit 1
    m = rows[1]
    for (f = 2; f <= nf; f++) if (rows[f] < m) m = rows[f]
    print "# epoch step wall_s acc_mean acc_std loss_mean loss_std cons_mean cons_std local_acc_mean nseeds gloss_mean gloss_std bytes_mean mtime_mean mtime_std"
    for (r = 1; r <= m; r++)
        print ep[r], st[r], mean("wall", r), mean("acc", r), sd("acc", r),
            mean("loss", r), sd("loss", r), mean("cons", r), sd("cons", r),
            mean("local", r), nf, mean("gloss", r), sd("gloss", r),
            mean("bytes", r), mean("mtime", r), sd("mtime", r)
}
