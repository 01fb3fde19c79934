# aggregate.awk: mean and standard deviation over seeds, row by row.
# Input: the CSVs of one setting (one per seed), each with the header
# epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent
# (and since issue 14 lr,test_loss, unused here)
# Output (whitespace-separated, one line per row index present in every
# file): epoch step wall_mean acc_mean acc_std loss_mean loss_std
#         cons_mean cons_std local_mean nseeds
BEGIN { FS = "," }
FNR == 1 {
    nf++
    if ($1 != "epoch") { printf "aggregate: %s: not a training log\n", FILENAME > "/dev/stderr"; bad = 1; exit 1 }
    next
}
{
    r = FNR - 1
    rows[nf] = r
    ep[r] = $1; st[r] = $2
    wall[r] += $3
    loss[r] += $4; loss2[r] += $4 * $4
    acc[r] += $5;  acc2[r] += $5 * $5
    if ($6 != "") { loc[r] += $6; nloc[r]++ } # empty: not measured
    cons[r] += $7; cons2[r] += $7 * $7
}
function sd(s, s2, k,   v) { v = s2 / k - (s / k) ^ 2; return v > 0 ? sqrt(v * k / (k > 1 ? k - 1 : 1)) : 0 }
END {
    if (bad || nf == 0) exit 1
    m = rows[1]
    for (f = 2; f <= nf; f++) if (rows[f] < m) m = rows[f]
    print "# epoch step wall_s acc_mean acc_std loss_mean loss_std cons_mean cons_std local_acc_mean nseeds"
    for (r = 1; r <= m; r++)
        printf "%s %s %.3f %.6f %.6f %.6f %.6f %.6g %.6g %.6f %d\n", ep[r], st[r],
            wall[r] / nf, acc[r] / nf, sd(acc[r], acc2[r], nf),
            loss[r] / nf, sd(loss[r], loss2[r], nf),
            cons[r] / nf, sd(cons[r], cons2[r], nf),
            nloc[r] ? loc[r] / nloc[r] : 0, nf
}
