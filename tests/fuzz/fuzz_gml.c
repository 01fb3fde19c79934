/* fuzz_gml.c: libFuzzer harness for the strict GML reader
 * (src/cm_topo_gml.c), the format forced, with fuzz_graphml.c's round
 * trip. Seeds: what networkx, python-igraph and topogen write
 * (tests/fuzz/corpus/gml/). */
#define FUZZ_FORMAT CM_FORMAT_GML
#include "fuzz_graphml.c"
