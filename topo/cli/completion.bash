# bash completion for topogen and dpsgd-train (make install puts it in
# PREFIX/share/bash-completion/completions/ under both names). Flags come
# from the program's own --help, so new flags complete without an edit
# here; the values of the flags that take a word are listed below.
_topogen_complete()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd=${COMP_WORDS[0]} words="" sub=""
    [[ ${cmd##*/} == topogen ]] && sub=${COMP_WORDS[1]}
    case $prev in
        --kind) words="learned rrl ring torus hypercube exponential-sym
                       random complete one-peer-exp base perm exp-directed
                       epidemic stl-fw dcliques" ;;
        --weights) words="laplacian mh maxdeg fdla neff neff-alpha" ;;
        --objective) words="ratio gap slem-mh neff neff-per-message" ;;
        --init) words="random rrl" ;;
        --eigensolver) words="auto dense sparse" ;;
        --format) words="auto edgelist ncol graphml gml" ;;
        --net) if [[ $sub == platform ]]; then
                   words="wan datacenter sites: home"
               else
                   words="datacenter wan"
               fi ;;
        --dataset) words="fashion-mnist mnist cifar10 synthetic" ;;
        --model) words="lenet cnn" ;;
        --schedule) words="const step cosine" ;;
        --mode) words="gossip allreduce" ;;
        --partition) words="iid dirichlet: shards:" ;;
        --algorithm) words="dpsgd d2 gt qgm clique-avg" ;;
        --placement) words="graph block" ;;
        --allreduce) words="auto best ring recursive-doubling rabenseifner
                            binomial hierarchical" ;;
        -o|--output|--topology|--log|--summary|--save-model|--init-model|\
        --eval-model|--checkpoint|--data|--write-partition|--labels)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --platform) COMPREPLY=($(compgen -f -X '!*.xml' -- "$cur")); return ;;
        --results) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    # repair and platform parse their own flags: their own --help lists
    # them, each on a line of its own that starts with it
    if [[ ($sub == repair || $sub == platform) && $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$cmd" "$sub" --help 2>/dev/null |
            grep -E '^ +-' | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' |
            tr -d ' ,' | sort -u)" -- "$cur"))
        return
    fi
    if [ -n "$words" ]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$cmd" --help 2>/dev/null |
            grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' |
            tr -d ' ,' | sort -u)" -- "$cur"))
    elif [[ ${cmd##*/} == topogen && $COMP_CWORD == 1 ]]; then
        COMPREPLY=($(compgen -W "eval plan compare repair platform" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _topogen_complete topogen dpsgd-train
