/* cm_net.c: the alpha-beta (Hockney 1994) model of a gossip round per link
 * class, its presets and the --net parser. The model is deliberately the
 * simplest one that separates latency-bound rounds (WAN) from
 * bandwidth-bound ones (large arrays, datacenter); the ranks of one host
 * share its link. The all-reduce algorithms Open MPI runs are priced on
 * the same links in cm_net_allreduce.c; cm_net_allreduce_time is the
 * textbook ring, kept for its callers.
 */
#include "cm_net.h"
#include "cm_platform.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    double alpha[2], beta[2];
} preset;

static const preset PRESETS[] = {
    {"datacenter", {1e-6, 25e-6}, {10e9, 3e9}},
    {"wan", {1e-6, 50e-3}, {10e9, 12.5e6}},
};

/* the two classes of a preset; no site level */
static void set_preset(cm_net *net, const preset *p)
{
    for (int c = 0; c < 2; c++) {
        net->alpha[c] = p->alpha[c];
        net->beta[c] = p->beta[c];
    }
}

typedef struct {
    const char *suffix;
    double scale;
} unit;

/* A unit is required: a bare number is refused (issue 42: "20" was read
 * as 20 seconds and "125" as 125 bytes per second, with no warning). */
static const unit TIME_UNITS[] = {
    {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
static const unit RATE_UNITS[] = {
    {"B/s", 1}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
    {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8}, {"kbit/s", 1e3 / 8},
    {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8}};
#define N_TIME_UNITS (sizeof TIME_UNITS / sizeof *TIME_UNITS)
#define N_RATE_UNITS (sizeof RATE_UNITS / sizeof *RATE_UNITS)

/* Parses "<number><unit>" of the table into *v; 0 on failure, -1 for a
 * number without a unit. */
static int parse_unit(const char *s, const unit *u, size_t nu, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !isfinite(x))
        return 0;
    if (!*end)
        return -1;
    for (size_t k = 0; k < nu; k++)
        if (strcmp(end, u[k].suffix) == 0) {
            *v = x * u[k].scale;
            return 1;
        }
    return 0;
}

/* A SimGrid platform file into net: the classes it does not give keep
 * the presets' in-host values. Its errors name flag (--net or
 * --platform) before the file. */
static cm_status platform_file(const char *path, const char *flag,
                               cm_net *net)
{
    memset(net, 0, sizeof *net);
    set_preset(net, &PRESETS[0]);
    cm_status s = cm_platform_net(path, net);
    if (s != CM_OK)
        cm_error_prefix(s, "%s", flag);
    return s;
}

cm_status cm_net_parse(const char *spec, cm_net *net)
{
    memset(net, 0, sizeof *net);
    size_t sl = strlen(spec);
    if (sl > 4 && strcmp(spec + sl - 4, ".xml") == 0)
        return platform_file(spec, "--net", net);
    for (size_t k = 0; k < sizeof PRESETS / sizeof *PRESETS; k++)
        if (strcmp(spec, PRESETS[k].name) == 0) {
            set_preset(net, &PRESETS[k]);
            snprintf(net->name, sizeof net->name, "%s", spec);
            return CM_OK;
        }
    set_preset(net, &PRESETS[0]);
    snprintf(net->name, sizeof net->name, "custom");
    char buf[256];
    if (!spec[0] || strlen(spec) >= sizeof buf)
        return cm_error(CM_EINVAL, "--net '%.60s': expected datacenter, wan "
                        "or intra=ALPHA,BETA;inter=ALPHA,BETA", spec);
    strcpy(buf, spec);
    static const char *const LEVEL[3] = {"intra", "inter", "site"};
    int seen[3] = {0, 0, 0}, seen_sites = 0;
    char *save = NULL;
    for (char *part = strtok_r(buf, ";", &save); part;
         part = strtok_r(NULL, ";", &save)) {
        if (strncmp(part, "sites=", 6) == 0) { /* the site level's count */
            char *end;
            errno = 0;
            unsigned long long k = strtoull(part + 6, &end, 10);
            if (seen_sites++)
                return cm_error(CM_EINVAL, "--net '%s': sites given twice",
                                spec);
            if (part[6] < '0' || part[6] > '9' || *end || errno || k < 1 ||
                k > 1000000)
                return cm_error(CM_EINVAL, "--net '%s': '%s' is not sites=S "
                                "with S a whole number of sites, at least 1",
                                spec, part);
            net->sites = (size_t)k;
            continue;
        }
        int c = strncmp(part, "intra=", 6) == 0 ? 0
              : strncmp(part, "inter=", 6) == 0 ? 1
              : strncmp(part, "site=", 5) == 0 ? 2 : -1;
        size_t pl = c == 2 ? 5 : 6; /* the prefix's length */
        char *comma = c >= 0 ? strchr(part + pl, ',') : NULL;
        if (c < 0 && !strchr(spec, '=') && !strchr(spec, ';'))
            return cm_error(CM_EINVAL, "--net '%s': not a preset (datacenter "
                            "or wan) nor intra=ALPHA,BETA;inter=ALPHA,BETA",
                            spec);
        if (c < 0 || !comma)
            return cm_error(CM_EINVAL, "--net '%s': '%s' is not intra=ALPHA,"
                            "BETA, inter=ALPHA,BETA, site=ALPHA,BETA or "
                            "sites=S", spec, part);
        if (seen[c]++)
            return cm_error(CM_EINVAL, "--net '%s': %s given twice", spec,
                            LEVEL[c]);
        *comma = '\0';
        double a = 0, b = 0;
        int ua = parse_unit(part + pl, TIME_UNITS, N_TIME_UNITS, &a);
        int ub = parse_unit(comma + 1, RATE_UNITS, N_RATE_UNITS, &b);
        if (ua < 0)
            return cm_error(CM_EINVAL, "--net '%s': latency '%s' has no "
                            "unit: write it as e.g. 50ms (s, ms, us, ns)",
                            spec, part + pl);
        if (ub < 0)
            return cm_error(CM_EINVAL, "--net '%s': bandwidth '%s' has no "
                            "unit: write it as e.g. 100Mbit/s or 12.5MB/s "
                            "(B/s, kB/s, MB/s, GB/s, Mb/s, Gb/s, kbit/s, "
                            "Mbit/s, Gbit/s)", spec, comma + 1);
        if (!ua || a < 0)
            return cm_error(CM_EINVAL, "--net '%s': latency '%s' is not a "
                            "time >= 0 (e.g. 25us, 50ms, 0s)", spec,
                            part + pl);
        if (!ub || !(b > 0))
            return cm_error(CM_EINVAL, "--net '%s': bandwidth '%s' is not a "
                            "rate > 0 (e.g. 3GB/s, 100Mbit/s, 12.5MB/s)", spec,
                            comma + 1);
        net->alpha[c] = a;
        net->beta[c] = b;
    }
    if (!seen[0] && !seen[1] && !seen[2])
        return cm_error(CM_EINVAL, "--net '%s': expected datacenter, wan or "
                        "intra=ALPHA,BETA;inter=ALPHA,BETA", spec);
    if (seen[2] && !seen_sites)
        return cm_error(CM_EINVAL, "--net '%s': site=ALPHA,BETA needs "
                        "sites=S, the number of sites the hosts fill in "
                        "blocks", spec);
    if (seen_sites && !seen[2])
        return cm_error(CM_EINVAL, "--net '%s': sites=S needs "
                        "site=ALPHA,BETA, the latency and uplink bandwidth "
                        "between sites", spec);
    return CM_OK;
}

cm_status cm_net_parse_platform(const char *path, cm_net *net)
{
    size_t sl = strlen(path);
    if (sl <= 4 || strcmp(path + sl - 4, ".xml") != 0)
        return cm_error(CM_EINVAL, "--platform '%s': expected a SimGrid "
                        "platform file P.xml (topogen platform, or your own); "
                        "a preset or intra=ALPHA,BETA;inter=ALPHA,BETA goes to "
                        "--net", path);
    return platform_file(path, "--platform", net);
}

/* "25 us" / "50 ms" / "1.5 s"; "3 GB/s" / "12.5 MB/s". */
static void fmt_time(char *b, size_t n, double s)
{
    if (s >= 1)
        snprintf(b, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(b, n, "%.3g ms", s * 1e3);
    else
        snprintf(b, n, "%.3g us", s * 1e6);
}

static void fmt_rate(char *b, size_t n, double r)
{
    if (r >= 1e9)
        snprintf(b, n, "%.3g GB/s", r / 1e9);
    else if (r >= 1e6)
        snprintf(b, n, "%.3g MB/s", r / 1e6);
    else
        snprintf(b, n, "%.3g kB/s", r / 1e3);
}

/* per-host links: the range of lat_up + lat_core + lat_down over hosts
 * a != b, and of up and down */
static char *describe_hosts(const cm_net *net, char *buf, size_t size)
{
    double lu[2] = {INFINITY, 0}, ld[2] = {INFINITY, 0};
    double u[2] = {INFINITY, 0}, d[2] = {INFINITY, 0};
    double p[2] = {INFINITY, 0};
    for (size_t h = 0; h < net->hosts; h++) {
        lu[0] = fmin(lu[0], net->lat_up[h]), lu[1] = fmax(lu[1], net->lat_up[h]);
        ld[0] = fmin(ld[0], net->lat_down[h]);
        ld[1] = fmax(ld[1], net->lat_down[h]);
        u[0] = fmin(u[0], net->up[h]), u[1] = fmax(u[1], net->up[h]);
        d[0] = fmin(d[0], net->down[h]), d[1] = fmax(d[1], net->down[h]);
    }
    /* the least path joins two different hosts: the two smallest sums */
    for (size_t a = 0; a < net->hosts; a++)
        for (size_t b = 0; b < net->hosts; b++)
            if (a != b) {
                double l = cm_net_path_lat(net, a, b);
                p[0] = fmin(p[0], l), p[1] = fmax(p[1], l);
            }
    if (net->hosts < 2)
        p[0] = p[1] = lu[0] + net->lat_core + ld[0];
    char t[2][32], r[4][32], a0[32], b0[32];
    fmt_time(t[0], sizeof t[0], p[0]);
    fmt_time(t[1], sizeof t[1], p[1]);
    fmt_rate(r[0], sizeof r[0], u[0]);
    fmt_rate(r[1], sizeof r[1], u[1]);
    fmt_rate(r[2], sizeof r[2], d[0]);
    fmt_rate(r[3], sizeof r[3], d[1]);
    fmt_time(a0, sizeof a0, net->alpha[0]);
    fmt_rate(b0, sizeof b0, net->beta[0]);
    snprintf(buf, size, "%s (%zu hosts with their own links: path latency "
             "%s-%s, up %s-%s, down %s-%s; intra %s, %s)", net->name,
             net->hosts, t[0], t[1], r[0], r[1], r[2], r[3], a0, b0);
    return buf;
}

char *cm_net_describe(const cm_net *net, char *buf, size_t size)
{
    if (net->hosts)
        return describe_hosts(net, buf, size);
    char a0[32], a1[32], b0[32], b1[32];
    fmt_time(a0, sizeof a0, net->alpha[0]);
    fmt_time(a1, sizeof a1, net->alpha[1]);
    fmt_rate(b0, sizeof b0, net->beta[0]);
    fmt_rate(b1, sizeof b1, net->beta[1]);
    if (net->sites) {
        char a2[32], b2[32];
        fmt_time(a2, sizeof a2, net->alpha[2]);
        fmt_rate(b2, sizeof b2, net->beta[2]);
        char of[48] = "";
        if (net->site_hosts)
            snprintf(of, sizeof of, " of %zu hosts", net->site_hosts);
        snprintf(buf, size, "%s (intra %s, %s; inter %s, %s; site %s, %s; "
                 "%zu site%s%s)", net->name, a0, b0, a1, b1, a2, b2,
                 net->sites, net->sites == 1 ? "" : "s", of);
        return buf;
    }
    snprintf(buf, size, "%s (intra %s, %s; inter %s, %s)", net->name, a0,
             b0, a1, b1);
    return buf;
}

cm_status cm_net_eval_placement(const cm_net *net, const cm_topo *t,
                                size_t P, size_t H, cm_place_kind kind,
                                double array_bytes, cm_net_eval *out)
{
    return cm_net_eval_placement_sizes(net, t, P, H, kind, 1, &array_bytes,
                                       out);
}

cm_status cm_net_eval_placement_sizes(const cm_net *net, const cm_topo *t,
                                      size_t P, size_t H, cm_place_kind kind,
                                      size_t nb, const double *array_bytes,
                                      cm_net_eval *out)
{
    memset(out, 0, nb * sizeof *out);
    if (P == 0 || P > t->n)
        return cm_error(CM_EINVAL, "%zu ranks for %zu workers (need "
                        "1..%zu)", P, t->n, t->n);
    if (H == 0 || H > P)
        return cm_error(CM_EINVAL, "%zu hosts for %zu ranks (need 1..%zu)",
                        H, P, P);
    size_t *host = malloc(P * sizeof *host);
    size_t *ro = malloc(t->n * sizeof *ro);
    cm_place_load *ld = malloc(P * sizeof *ld);
    cm_status s = host && ro && ld ? CM_OK
                                   : cm_error(CM_ENOMEM, "out of memory");
    for (size_t h = 0, q = 0; s == CM_OK && h < H; h++)
        for (size_t k = cm_place_rank_size(P, H, h); k > 0; k--)
            host[q++] = h;
    if (s == CM_OK)
        s = cm_place_workers_how(t, P, host, kind, CM_PLACE_USE_ALL, ro,
                                 &out->how);
    if (s == CM_OK)
        s = cm_place_eval(t, P, host, ro, ld, &out->st);
    if (s == CM_OK)
        s = cm_net_check_hosts(net, H);
    for (size_t k = 0; s == CM_OK && k < nb; k++) {
        if (k > 0) {
            out[k].st = out->st;
            out[k].how = out->how;
        }
        out[k].round_s = cm_net_round_time(net, ld, host, P, array_bytes[k],
                                           &out[k].worst, t, ro);
        if (isnan(out[k].round_s))
            s = CM_ENOMEM; /* the message is set */
    }
    free(ld);
    free(ro);
    free(host);
    return s;
}

cm_status cm_net_check_hosts(const cm_net *net, size_t H)
{
    if (net->hosts && H > net->hosts)
        return cm_error(CM_EINVAL, "%s has %zu hosts with links of their own "
                        "and the deployment %zu hosts: give at most %zu "
                        "hosts, or a platform of more (topogen platform -n)",
                        net->name, net->hosts, H, net->hosts);
    if (net->site_hosts && H > net->site_hosts)
        return cm_error(CM_EINVAL, "%s has %zu hosts on %zu sites and the "
                        "deployment %zu hosts: give at most %zu hosts, or a "
                        "platform of more (topogen platform "
                        "--hosts-per-site)", net->name, net->site_hosts,
                        net->sites, H, net->site_hosts);
    return CM_OK;
}

double cm_net_path_lat(const cm_net *net, size_t a, size_t b)
{
    if (!net->hosts)
        return net->alpha[1];
    return net->lat_up[a] + net->lat_core + net->lat_down[b];
}

/* idx[r]: rank r's platform host, its host label's order of first
 * appearance in host_of_rank (NULL: every rank on host 0); returns the
 * number of hosts */
static size_t host_index(const size_t *host_of_rank, size_t P, size_t *idx)
{
    size_t H = 0;
    for (size_t r = 0; r < P; r++) {
        size_t q = 0;
        while (q < r && host_of_rank && host_of_rank[q] != host_of_rank[r])
            q++;
        idx[r] = q < r ? idx[q] : H++;
    }
    return H;
}

/* The round on per-host links (cm_net.h): idx[r] is rank r's platform
 * host (its host label's order of first appearance). */
static double round_hosts(const cm_net *net, const cm_place_load *load,
                          const size_t *host_of_rank, size_t P, double B,
                          size_t *worst, const cm_topo *tp,
                          const size_t *rank_of)
{
    size_t *idx = malloc((P ? P : 1) * sizeof *idx);
    double *lat = calloc(net->hosts, sizeof *lat);
    double *S = calloc(net->hosts, sizeof *S), *R = calloc(net->hosts,
                                                           sizeof *R);
    double t = NAN;
    size_t H = 0, w = 0;
    if (!idx || !lat || !S || !R) {
        cm_error(CM_ENOMEM, "out of memory (network model)");
        goto done;
    }
    H = host_index(host_of_rank, P, idx);
    if (cm_net_check_hosts(net, H) != CM_OK)
        goto done;
    for (size_t r = 0; r < P; r++) {
        S[idx[r]] += (double)load[r].arrays[1];
        R[idx[r]] += (double)load[r].arrays_in[1];
    }
    if (tp && rank_of) { /* the round's messages across hosts */
        for (size_t i = 0; i < tp->n; i++) {
            const size_t *oa;
            const double *ow;
            size_t oc;
            cm_topo_out(tp, i, &oa, &ow, &oc);
            for (size_t k = 0; k < oc; k++) {
                size_t a = idx[rank_of[i]], b = idx[rank_of[oa[k]]];
                if (a == b)
                    continue;
                double l = cm_net_path_lat(net, a, b);
                lat[a] = fmax(lat[a], l);
                lat[b] = fmax(lat[b], l);
            }
        }
    } else { /* no topology: the farthest host of the deployment */
        for (size_t a = 0; a < H; a++)
            for (size_t b = 0; b < H; b++)
                if (a != b)
                    lat[a] = fmax(lat[a], fmax(cm_net_path_lat(net, a, b),
                                               cm_net_path_lat(net, b, a)));
    }
    t = 0;
    for (size_t r = 0; r < P; r++) {
        const cm_place_load *l = &load[r];
        size_t h = idx[r];
        size_t a0 = l->arrays[0] > l->arrays_in[0] ? l->arrays[0]
                                                   : l->arrays_in[0];
        double t0 = (l->peers[0] ? net->alpha[0] : 0.0) +
                    (double)a0 * B / net->beta[0];
        double t1 = l->peers[1] ? lat[h] + fmax(S[h] * B / net->up[h],
                                                R[h] * B / net->down[h])
                                : 0.0;
        double tr = fmax(t0, t1);
        if (tr > t) {
            t = tr;
            w = r;
        }
    }
done:
    if (worst)
        *worst = w;
    free(R);
    free(S);
    free(lat);
    free(idx);
    return t;
}

/* the block of item i when n items are cut into S blocks, the first
 * n mod S one larger (cm_place_rank_size) */
static size_t block_of(size_t n, size_t S, size_t i)
{
    size_t q = n / S, rem = n % S; /* the first rem blocks hold q + 1 */
    if (i < rem * (q + 1))
        return i / (q + 1);
    return rem + (i - rem * (q + 1)) / q; /* i >= rem (q + 1): q > 0 */
}

size_t cm_net_site_of(const cm_net *net, size_t H, size_t h)
{
    if (!net->sites || !H)
        return 0;
    return block_of(net->site_hosts ? net->site_hosts : H, net->sites, h);
}

size_t cm_net_sites_used(const cm_net *net, size_t H)
{
    if (!net->sites || !H)
        return 0;
    if (net->site_hosts) /* the file's sites of its first H hosts */
        return cm_net_site_of(net, H, (H < net->site_hosts ? H
                                                            : net->site_hosts) - 1) + 1;
    return net->sites < H ? net->sites : H;
}

/* The round on three levels (cm_net.h): the loads split by site with
 * cm_place_eval on site labels (rank r's site: its host's, hosts indexed
 * by first appearance, in blocks over the sites); without the topology
 * every array between hosts is taken to cross sites (an upper bound). */
static double round_sites(const cm_net *net, const cm_place_load *load,
                          const size_t *host_of_rank, size_t P, double B,
                          size_t *worst, const cm_topo *tp,
                          const size_t *rank_of)
{
    size_t *idx = malloc((P ? P : 1) * sizeof *idx);
    size_t *site = malloc((P ? P : 1) * sizeof *site);
    cm_place_load *ls = calloc(P ? P : 1, sizeof *ls);
    double *SH = calloc(2 * (P ? P : 1), sizeof *SH);
    double *SS = calloc(2 * (P ? P : 1), sizeof *SS);
    double t = NAN;
    size_t H = 0, w = 0;
    if (!idx || !site || !ls || !SH || !SS) {
        cm_error(CM_ENOMEM, "out of memory (network model)");
        goto done;
    }
    H = host_index(host_of_rank, P, idx);
    if (cm_net_check_hosts(net, H) != CM_OK)
        goto done;
    for (size_t r = 0; r < P; r++)
        site[r] = cm_net_site_of(net, H, idx[r]);
    if (tp && rank_of) {
        cm_place_stats st;
        if (cm_place_eval(tp, P, site, rank_of, ls, &st) != CM_OK)
            goto done;
    } else {
        for (size_t r = 0; r < P; r++)
            ls[r] = load[r];
    }
    /* SH[2h], SH[2h+1]: host h's arrays out, in across hosts; SS: site's
     * across sites */
    for (size_t r = 0; r < P; r++) {
        SH[2 * idx[r]] += (double)load[r].arrays[1];
        SH[2 * idx[r] + 1] += (double)load[r].arrays_in[1];
        SS[2 * site[r]] += (double)ls[r].arrays[1];
        SS[2 * site[r] + 1] += (double)ls[r].arrays_in[1];
    }
    t = 0;
    for (size_t r = 0; r < P; r++) {
        const cm_place_load *l = &load[r];
        size_t h = idx[r], s = site[r];
        size_t a0 = l->arrays[0] > l->arrays_in[0] ? l->arrays[0]
                                                   : l->arrays_in[0];
        size_t p2 = ls[r].peers[1], p1 = l->peers[1] - p2;
        double lh = fmax(SH[2 * h], SH[2 * h + 1]) * B / net->beta[1];
        double ls2 = fmax(SS[2 * s], SS[2 * s + 1]) * B / net->beta[2];
        double t0 = (l->peers[0] ? net->alpha[0] : 0.0) +
                    (double)a0 * B / net->beta[0];
        double t1 = (p1 ? net->alpha[1] : 0.0) + lh;
        double t2 = (p2 ? net->alpha[2] : 0.0) + fmax(lh, ls2);
        double tr = fmax(t0, fmax(t1, t2));
        if (tr > t) {
            t = tr;
            w = r;
        }
    }
done:
    if (worst)
        *worst = w;
    free(SS);
    free(SH);
    free(ls);
    free(site);
    free(idx);
    return t;
}

double cm_net_round_time(const cm_net *net, const cm_place_load *load,
                         const size_t *host_of_rank, size_t P,
                         double array_bytes, size_t *worst,
                         const cm_topo *tp, const size_t *rank_of)
{
    if (net->hosts)
        return round_hosts(net, load, host_of_rank, P, array_bytes, worst,
                           tp, rank_of);
    if (net->sites)
        return round_sites(net, load, host_of_rank, P, array_bytes, worst,
                           tp, rank_of);
    double t = 0;
    size_t w = 0;
    for (size_t r = 0; r < P; r++) {
        const cm_place_load *l = &load[r];
        size_t a0 = l->arrays[0] > l->arrays_in[0] ? l->arrays[0]
                                                   : l->arrays_in[0];
        size_t sh = 0, rh = 0;  /* the host's arrays across hosts */
        for (size_t q = 0; q < P; q++)
            if (!host_of_rank || host_of_rank[q] == host_of_rank[r]) {
                sh += load[q].arrays[1];
                rh += load[q].arrays_in[1];
            }
        /* sends posted together: one latency per link class */
        double t0 = (l->peers[0] ? net->alpha[0] : 0.0) +
                    (double)a0 * array_bytes / net->beta[0];
        double t1 = (l->peers[1] ? net->alpha[1] : 0.0) +
                    (double)(sh > rh ? sh : rh) * array_bytes / net->beta[1];
        double tr = t0 > t1 ? t0 : t1;
        if (tr > t) {
            t = tr;
            w = r;
        }
    }
    if (worst)
        *worst = w;
    return t;
}

double cm_net_allreduce_time(const cm_net *net, size_t n, int cls,
                             double bytes)
{
    if (n <= 1)
        return 0;
    int c = cls == 0 ? 0 : 1;
    double steps = 2.0 * (double)(n - 1);
    return steps * net->alpha[c] + steps / (double)n * bytes / net->beta[c];
}
