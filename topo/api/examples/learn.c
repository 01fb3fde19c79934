/* learn.c: the libtopogen example. Learns a topology with the settings
 * given as `n d seed iters [kind]`, writes it to a file and prints its
 * measures. The file is byte for byte what
 *   topogen -n N -d D --seed S --iters K --kind KIND -o FILE
 * writes (tests/system/install.sh checks it against the installed topogen).
 *
 *   cc learn.c $(pkg-config --cflags --libs topogen) -o learn
 *   ./learn 16 3 1 2000 learned out.txt
 */
#include <stdio.h>
#include <stdlib.h>

#include <topogen.h>

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: learn N D SEED ITERS KIND FILE\n");
        return 2;
    }
    topogen_learn_opts o;
    topogen_learn_opts_init(&o);
    o.n = strtoul(argv[1], NULL, 10);
    o.d = strtoul(argv[2], NULL, 10);
    o.seed = strtoull(argv[3], NULL, 10);
    o.iters = strtoul(argv[4], NULL, 10);
    o.kind = argv[5];

    topogen_topology *t = NULL;
    topogen_measures m;
    topogen_measures_init(&m);
    if (topogen_learn(&o, &t) != TOPOGEN_OK ||
        topogen_write(t, argv[6], "edgelist") != TOPOGEN_OK ||
        topogen_measure(t, 0, &m) != TOPOGEN_OK) {
        fprintf(stderr, "learn: %s\n", topogen_last_error());
        topogen_free(t);
        return 1;
    }
    size_t n = topogen_nodes(t);
    double *w = malloc(n * n * sizeof *w);
    if (!w || topogen_mixing_matrix(t, 0, w) != TOPOGEN_OK) {
        fprintf(stderr, "learn: %s\n", w ? topogen_last_error() : "no memory");
        free(w);
        topogen_free(t);
        return 1;
    }
    printf("n=%zu rounds=%zu edges=%zu slem=%.6f lambda2=%.6f "
           "lambdan=%.6f W_00=%.6f\n", n, topogen_rounds(t),
           topogen_edges(t, 0), m.slem, m.lambda2, m.lambdan, w[0]);
    free(w);
    topogen_free(t);
    return 0;
}
