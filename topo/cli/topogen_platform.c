/* topogen_platform.c: `topogen platform --net KIND -n N [--seed S] -o
 * P.xml [-q]` (sites:K: -n N or --hosts-per-site H, N = K H). Parses
 * the flags and writes cm_platform_write's file
 * atomically (or to stdout for -o -); the platform itself is made in
 * src/place/cm_platform.c. It prints nothing but errors, so -q (which
 * every subcommand takes) holds without changing anything.
 */
#include "topogen_platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_platform.h"
#include "cm_status.h"
#include "topogen_cli.h"

static void usage(FILE *fp)
{
    fputs("usage: topogen platform --net KIND -n N [--seed S] -o P.xml "
          "[-q]\n"
          "       topogen platform --net sites:K --hosts-per-site H -o "
          "P.xml\n\n"
          "A SimGrid platform file (XML, platform version 4.1) of N hosts "
          "for\n"
          "smpirun -platform P.xml (docs/smpi.md), from the presets of "
          "--net. Hosts\n"
          "h0000, h0001, ... compute at 1 Gf (one core of the simulating "
          "machine\n"
          "under scripts/experiments/smpi-run.sh); duplex is stated on "
          "every link.\n\n"
          "  --net KIND     wan         every host a split-duplex link of "
          "25 ms,\n"
          "                             12.5 MB/s (50 ms between hosts)\n"
          "                 datacenter  the same with 12.5 us, 3 GB/s\n"
          "                 sites:K     K sites of consecutive hosts: "
          "datacenter links\n"
          "                             inside, one split-duplex WAN uplink "
          "(25 ms,\n"
          "                             12.5 MB/s) per site, shared by its "
          "hosts\n"
          "                 home        every host an up link (10-50 Mb/s) "
          "and a down\n"
          "                             link (50-300 Mb/s), access latency "
          "5-75 ms\n"
          "                             each (10-150 ms between homes), "
          "drawn from S\n"
          "  -n N           hosts, 1 to 9999 (sites:K: in blocks, the "
          "first N mod K\n"
          "                 sites one host more)\n"
          "  --hosts-per-site H  sites:K: H hosts in every site (-n K*H); "
          "the\n"
          "                 model reads the file into three levels: site, "
          "host,\n"
          "                 worker (docs/network-model.md)\n"
          "  --seed S       home: the seed of the draws (default 1; the "
          "same seed,\n"
          "                 the same file); refused for the other kinds\n"
          "  -o, --output P.xml  the platform (- for stdout), written "
          "atomically\n"
          "  -q, --quiet    taken as by every subcommand: platform prints "
          "nothing\n"
          "                 on stderr but errors\n"
          "  -h, --help     print this help\n\n"
          "Exit status: 0 success, 1 an unwritable output, 2 a usage "
          "error.\n", fp);
}

/* A whole number in [lo, hi] into *v; 0 if s is not one. */
static int parse_count(const char *s, unsigned long long lo,
                       unsigned long long hi, unsigned long long *v)
{
    char *end;
    if (!*s || *s == '-' || *s == '+')
        return 0;
    *v = strtoull(s, &end, 10);
    return *end == '\0' && *v >= lo && *v <= hi;
}

int topogen_platform_main(int argc, char **argv)
{
    const char *net = NULL, *nflag = NULL, *sflag = NULL, *out = NULL;
    const char *hflag = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
            continue; /* nothing to quiet (above) */
        const char **slot = NULL, *name = a;
        if ((v = topogen_flag_value(argc, argv, &i, "--net", NULL)))
            slot = &net, name = "--net";
        else if ((v = topogen_flag_value(argc, argv, &i, "-n", NULL)))
            slot = &nflag, name = "-n";
        else if ((v = topogen_flag_value(argc, argv, &i, "--hosts-per-site",
                                         NULL)))
            slot = &hflag, name = "--hosts-per-site";
        else if ((v = topogen_flag_value(argc, argv, &i, "--seed", NULL)))
            slot = &sflag, name = "--seed";
        else if ((v = topogen_flag_value(argc, argv, &i, "--output", "-o")))
            slot = &out, name = "--output";
        if (!slot) {
            fprintf(stderr, a[0] == '-'
                    ? "topogen: platform: unknown flag '%s' (topogen "
                      "platform --help lists the flags)\n"
                    : "topogen: platform: unexpected argument '%s' (topogen "
                      "platform --help)\n", a);
            return 2;
        }
        if (*slot) {
            fprintf(stderr, "topogen: platform: %s given twice\n", name);
            return 2;
        }
        if (!*v) {
            fprintf(stderr, "topogen: platform: %s needs a value\n", name);
            return 2;
        }
        *slot = v;
    }
    if (nflag && hflag) {
        fprintf(stderr, "topogen: platform: -n and --hosts-per-site "
                "together: give one (--hosts-per-site H makes K*H hosts)\n");
        return 2;
    }
    if (!net || !(nflag || hflag) || !out) {
        fprintf(stderr, "topogen: platform: give %s (usage: topogen platform "
                "--net KIND -n N -o P.xml)\n",
                !net ? "--net KIND" : !(nflag || hflag) ? "-n N" : "-o P.xml");
        return 2;
    }
    cm_platform_spec spec;
    if (cm_platform_parse(net, "--net", &spec) != CM_OK) {
        fprintf(stderr, "topogen: platform: %s\n", cm_last_error());
        return 2;
    }
    unsigned long long n = 0, seed = 1, hps = 0;
    if (hflag && spec.kind != CM_PLATFORM_SITES) {
        fprintf(stderr, "topogen: platform: --hosts-per-site: only --net "
                "sites:K has sites (give -n N for %s)\n", net);
        return 2;
    }
    if (hflag) {
        if (!parse_count(hflag, 1, 9999, &hps) || hps * spec.sites > 9999) {
            fprintf(stderr, "topogen: platform: --hosts-per-site '%s': "
                    "expected a number of hosts per site, at least 1, at "
                    "most 9999 hosts in all\n", hflag);
            return 2;
        }
        n = hps * spec.sites;
    } else if (!parse_count(nflag, 1, 9999, &n)) {
        fprintf(stderr, "topogen: platform: -n '%s': expected a number of "
                "hosts, 1 to 9999\n", nflag);
        return 2;
    }
    if (spec.kind == CM_PLATFORM_SITES && spec.sites > n) {
        fprintf(stderr, "topogen: platform: --net %s with -n %llu: at least "
                "one host per site\n", net, n);
        return 2;
    }
    if (sflag && spec.kind != CM_PLATFORM_HOME) {
        fprintf(stderr, "topogen: platform: --seed: only --net home draws "
                "its links (the %s platform is fixed)\n", net);
        return 2;
    }
    if (sflag && !parse_count(sflag, 0, UINT64_MAX, &seed)) {
        fprintf(stderr, "topogen: platform: --seed '%s': expected a whole "
                "number, 0 to 2^64-1\n", sflag);
        return 2;
    }
    cm_status s;
    if (strcmp(out, "-") == 0) {
        s = cm_platform_write(stdout, &spec, (size_t)n, seed);
        if (s == CM_OK && fflush(stdout) != 0)
            s = cm_error(CM_EIO, "cannot write the platform to stdout");
    } else {
        cm_afile f;
        if ((s = cm_atomic_open(&f, out)) != CM_OK)
            cm_error_prefix(s, "-o");
        if (s == CM_OK) {
            s = cm_platform_write(f.fp, &spec, (size_t)n, seed);
            if (s == CM_OK)
                s = cm_atomic_commit(&f);
            else
                cm_atomic_abort(&f);
        }
    }
    if (s != CM_OK) {
        fprintf(stderr, "topogen: platform: %s\n", cm_last_error());
        return 1;
    }
    return 0;
}
