# styles.sh: one colour, dash and point shape per topology + weights pair,
# shared by plot.sh and consensus.sh so that every figure uses the same
# ones. Sourced, not run.

# colour_of KIND WEIGHTS: a gnuplot line colour.
colour_of() {
    case "$1-$2" in
    learned-laplacian)     echo "lc rgb '#1f4fd6'";;
    learned-fdla)          echo "lc rgb '#17becf'";;
    learned-mh)            echo "lc rgb '#6fa8ff'";;
    rrl-mh)                echo "lc rgb '#d62728'";;
    rrl-laplacian)         echo "lc rgb '#ff9896'";;
    random-laplacian)      echo "lc rgb '#2ca02c'";;
    random-mh)             echo "lc rgb '#98df8a'";;
    exponential-laplacian) echo "lc rgb '#9467bd'";;
    exponential-mh)        echo "lc rgb '#c5b0d5'";;
    one_peer_exp-own)      echo "lc rgb '#ff7f0e'";;
    base-own)              echo "lc rgb '#8c564b'";;
    allreduce-none)        echo "lc rgb '#000000'";;
    *-alg)                 echo "lc rgb '#e377c2'";; # an algorithm (plot.sh EXTRA) on its graph
    *)                     echo "lc rgb '#7f7f7f'";;
    esac
}

# point_of KIND WEIGHTS: a point shape of its own for each pair, so that
# two settings with identical curves (e.g. the same small graph under two
# names) both stay visible.
point_of() {
    case "$1-$2" in
    learned-laplacian)     echo "pt 7";;
    learned-fdla)          echo "pt 9";;
    learned-mh)            echo "pt 6";;
    rrl-mh)                echo "pt 5";;
    rrl-laplacian)         echo "pt 4";;
    random-laplacian)      echo "pt 13";;
    random-mh)             echo "pt 12";;
    exponential-laplacian) echo "pt 11";;
    exponential-mh)        echo "pt 10";;
    one_peer_exp-own)      echo "pt 8";;
    base-own)              echo "pt 3";;
    allreduce-none)        echo "pt 1";;
    *-alg)                 echo "pt 15";;
    *)                     echo "pt 2";;
    esac
}

# line_of KIND WEIGHTS: colour plus width and dash (the main comparison
# bold and solid, Metropolis-Hastings variants dashed, all-reduce dotted).
line_of() {
    case "$1-$2" in
    learned-laplacian|rrl-mh|*-alg) w="lw 2.5 dt 1";;
    allreduce-none)           w="lw 2 dt 4";;
    *-mh|rrl-laplacian)       w="lw 1.5 dt 2";;
    *)                        w="lw 1.5 dt 1";;
    esac
    echo "$(colour_of "$1" "$2") $w"
}
