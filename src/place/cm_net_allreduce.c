/* cm_net_allreduce.c: all-reduce schedules as Open MPI 4.1 runs them (see
 * cm_net.h), priced step by step on the alpha-beta links of cm_net. Each
 * schedule is written out message by message into a small step
 * accumulator (per rank bytes inside the host, per host bytes across
 * hosts), so a placement with several ranks per host prices the shared
 * host link as it is; the ring, whose 2(P-1) steps all have the same
 * pattern, is priced from one of them. The schedules follow the message
 * pattern of the v4.1.4 sources named in cm_net.h (read, not copied).
 */
#include "cm_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[CM_AR_COUNT] = {
    "ring", "recursive-doubling", "rabenseifner", "binomial",
    "hierarchical", "auto", "best", "direct", "hierarchical-site"};

const char *cm_net_ar_name(cm_net_ar_alg alg)
{
    return (unsigned)alg < CM_AR_COUNT ? NAMES[alg] : "?";
}

cm_status cm_net_ar_parse(const char *s, const char *flag,
                          cm_net_ar_alg *alg)
{
    for (int k = 0; k < CM_AR_COUNT; k++)
        if (strcmp(s, NAMES[k]) == 0) {
            *alg = (cm_net_ar_alg)k;
            return CM_OK;
        }
    if (strcmp(s, "rd") == 0) {
        *alg = CM_AR_RDOUBLING;
        return CM_OK;
    }
    if (strcmp(s, "hier") == 0) {
        *alg = CM_AR_HIER;
        return CM_OK;
    }
    if (strcmp(s, "hier-site") == 0) {
        *alg = CM_AR_HIER_SITE;
        return CM_OK;
    }
    return cm_error(CM_EINVAL, "%s '%.40s': expected ring, "
                    "recursive-doubling (rd), rabenseifner, binomial, "
                    "hierarchical (hier), hierarchical-site (hier-site), "
                    "direct, auto or best", flag, s);
}

/* floor(lg x) for x >= 1 */
static size_t lg_floor(size_t x)
{
    size_t k = 0;
    while (x >>= 1)
        k++;
    return k;
}

static size_t lg_ceil(size_t x)
{
    size_t k = lg_floor(x);
    return ((size_t)1 << k) < x ? k + 1 : k;
}

cm_net_ar_alg cm_net_allreduce_openmpi(size_t P, double bytes, int blocking,
                                       int in_place)
{
    double es = fmod(bytes, 4.0) == 0.0 ? 4.0 : 1.0;
    double count = bytes / es;
    if (!blocking) { /* nbc_iallreduce.c */
        size_t pof2 = P ? (size_t)1 << lg_floor(P) : 1;
        if (P < 4 || bytes < 65536 || in_place)
            return CM_AR_BINOMIAL;
        return count >= (double)pof2 ? CM_AR_RABENSEIFNER : CM_AR_RING;
    }
    /* coll_tuned_decision_fixed.c, commutative ops: the byte bounds below
     * which each algorithm runs, per communicator size range */
    static const struct {
        size_t below_p;   /* this row: P < below_p */
        double bound[6];  /* ascending byte bounds; 0 ends */
        int alg[7];       /* Open MPI's algorithm per interval */
    } T[] = {
        {4, {8, 4096, 8192, 16384, 65536, 262144}, {4, 3, 4, 3, 4, 5, 6}},
        {8, {16, 8192}, {4, 3, 6}},
        {16, {8192}, {3, 6}},
        {32, {64, 4096}, {5, 3, 6}},
        {64, {128}, {5, 6}},
        {128, {262144}, {3, 6}},
        {256, {131072, 262144}, {2, 3, 6}},
        {512, {4096}, {2, 6}},
        {2048, {2048, 16384}, {2, 3, 6}},
        {4096, {2048, 4096, 16384}, {2, 5, 3, 6}},
        {(size_t)-1, {2048, 4096, 16384}, {2, 5, 3, 6}},
    };
    size_t row = 0;
    while (P >= T[row].below_p)
        row++;
    int k = 0;
    while (k < 6 && T[row].bound[k] > 0 && bytes >= T[row].bound[k])
        k++;
    switch (T[row].alg[k]) {
    case 3:
        return CM_AR_RDOUBLING;
    case 4:
    case 5:
        return CM_AR_RING;
    case 6: /* falls back to recursive doubling when count < p' */
        return count >= (double)((size_t)1 << lg_floor(P))
                   ? CM_AR_RABENSEIFNER : CM_AR_RDOUBLING;
    default:
        return CM_AR_BINOMIAL;
    }
}

/* One schedule being priced: the current step's loads, the running total
 * and (optionally) every rank's messages and bytes sent. */
typedef struct {
    const cm_net *net;
    size_t P, H;
    size_t *host;         /* host of each rank (block placement) */
    size_t *start;        /* first rank of each host, H + 1 entries */
    double *out, *in;     /* this step: bytes per rank inside its host */
    double *hout, *hin;   /* this step: bytes per host across hosts */
    double *hlat;         /* this step, per-host links: the largest path
                             latency of a host's messages */
    size_t S;             /* sites in use (three levels), else 0 */
    size_t *hsite;        /* three levels: the site of each host */
    int *hx;              /* this step: host has a message to another site */
    double *sout, *sin;   /* this step: bytes per site across sites */
    double esize;         /* bytes per element */
    double t;             /* seconds so far */
    size_t steps;
    int any;              /* a message in this step */
    size_t *msgs;         /* may be NULL */
    double *sent;         /* may be NULL */
} sched;

static void msg(sched *s, size_t from, size_t to, double bytes)
{
    if (bytes <= 0 || from == to)
        return;
    s->any = 1;
    if (s->host[from] == s->host[to]) {
        s->out[from] += bytes;
        s->in[to] += bytes;
    } else {
        size_t a = s->host[from], b = s->host[to];
        s->hout[a] += bytes;
        s->hin[b] += bytes;
        if (s->S && s->hsite[a] != s->hsite[b]) {
            s->hx[a] = s->hx[b] = 1;
            s->sout[s->hsite[a]] += bytes;
            s->sin[s->hsite[b]] += bytes;
        }
        if (s->net->hosts) {
            double l = cm_net_path_lat(s->net, a, b);
            s->hlat[a] = fmax(s->hlat[a], l);
            s->hlat[b] = fmax(s->hlat[b], l);
        }
    }
    if (s->msgs)
        s->msgs[from]++;
    if (s->sent)
        s->sent[from] += bytes;
}

/* Ends a step: its cost is the slowest link's (times `repeat`, for the
 * ring's identical steps); the loads are cleared. */
static void step_end_n(sched *s, double repeat)
{
    if (!s->any)
        return;
    double t = 0;
    for (size_t r = 0; r < s->P; r++) {
        double b = s->out[r] > s->in[r] ? s->out[r] : s->in[r];
        if (b > 0) {
            double c = s->net->alpha[0] + b / s->net->beta[0];
            t = c > t ? c : t;
        }
        s->out[r] = s->in[r] = 0;
    }
    for (size_t h = 0; h < s->H; h++) {
        double b = s->hout[h] > s->hin[h] ? s->hout[h] : s->hin[h];
        if (b > 0) {
            const cm_net *n = s->net;
            double c = n->hosts ? s->hlat[h] + fmax(s->hout[h] / n->up[h],
                                                    s->hin[h] / n->down[h])
                                : n->alpha[s->S && s->hx[h] ? 2 : 1] +
                                      b / n->beta[1];
            t = c > t ? c : t;
        }
        s->hout[h] = s->hin[h] = s->hlat[h] = 0;
        if (s->S)
            s->hx[h] = 0;
    }
    for (size_t k = 0; k < s->S; k++) { /* the sites' uplinks */
        double b = fmax(s->sout[k], s->sin[k]);
        if (b > 0) {
            double c = s->net->alpha[2] + b / s->net->beta[2];
            t = c > t ? c : t;
        }
        s->sout[k] = s->sin[k] = 0;
    }
    s->t += repeat * t;
    s->steps += (size_t)repeat;
    s->any = 0;
}

static void step_end(sched *s)
{
    step_end_n(s, 1.0);
}

/* The group a flat algorithm runs on: m members, member i is rank
 * map[i] (NULL: rank i). */
typedef struct {
    size_t m;
    const size_t *map;
} group;

static size_t at(const group *g, size_t i)
{
    return g->map ? g->map[i] : i;
}

/* Elements of block b when count elements are cut into m blocks as Open
 * MPI's ring does (the first count mod m blocks one larger). */
static double block(double count, size_t m, size_t b)
{
    double lo = floor(count / (double)m);
    return lo + ((double)b < count - lo * (double)m ? 1.0 : 0.0);
}

static void ring(sched *s, const group *g, double count)
{
    size_t m = g->m;
    if (m < 2)
        return;
    /* every step: member i sends one block to member i+1; the busiest
     * link carries the largest block, ceil(count/m) elements */
    double big = block(count, m, 0) * s->esize;
    size_t *msgs = s->msgs;
    double *sent = s->sent;
    s->msgs = NULL;
    s->sent = NULL;
    for (size_t i = 0; i < m; i++)
        msg(s, at(g, i), at(g, (i + 1) % m), big);
    step_end_n(s, 2.0 * (double)(m - 1));
    s->msgs = msgs;
    s->sent = sent;
    for (size_t i = 0; i < m && (msgs || sent); i++) {
        size_t r = at(g, i);
        /* reduce-scatter: member i sends every block but block i + 1;
         * all-gather: every block but block i + 2 (Open MPI's order) */
        double el = 2.0 * count - block(count, m, (i + 1) % m) -
                    block(count, m, (i + 2) % m);
        if (msgs)
            msgs[r] += 2 * (m - 1);
        if (sent)
            sent[r] += el * s->esize;
    }
}

/* vrank -> member for the folded power-of-two group (the first 2r members
 * pair up; the odd one of each pair stays) */
static size_t fold_rd(size_t v, size_t rem)
{
    return v < rem ? 2 * v + 1 : v + rem;
}

static size_t fold_rab(size_t v, size_t rem)
{
    return v < rem ? 2 * v : v + rem;
}

static void rdoubling(sched *s, const group *g, double count)
{
    size_t m = g->m;
    if (m < 2)
        return;
    size_t pof2 = (size_t)1 << lg_floor(m), rem = m - pof2;
    double B = count * s->esize;
    for (size_t i = 0; i + 1 < 2 * rem; i += 2)
        msg(s, at(g, i), at(g, i + 1), B);
    step_end(s);
    for (size_t d = 1; d < pof2; d <<= 1) {
        for (size_t v = 0; v < pof2; v++)
            msg(s, at(g, fold_rd(v, rem)), at(g, fold_rd(v ^ d, rem)), B);
        step_end(s);
    }
    for (size_t i = 0; i + 1 < 2 * rem; i += 2)
        msg(s, at(g, i + 1), at(g, i), B);
    step_end(s);
}

static cm_status rabenseifner(sched *s, const group *g, double count)
{
    size_t m = g->m;
    if (m < 2)
        return CM_OK;
    size_t pof2 = (size_t)1 << lg_floor(m), rem = m - pof2;
    if (count < (double)pof2) { /* Open MPI falls back */
        rdoubling(s, g, count);
        return CM_OK;
    }
    double lh = floor(count / 2), rh = count - lh, E = s->esize;
    for (size_t i = 0; i + 1 < 2 * rem; i += 2) { /* halves exchanged */
        msg(s, at(g, i), at(g, i + 1), rh * E);
        msg(s, at(g, i + 1), at(g, i), lh * E);
    }
    step_end(s);
    for (size_t i = 0; i + 1 < 2 * rem; i += 2) /* the odd one's half */
        msg(s, at(g, i + 1), at(g, i), rh * E);
    step_end(s);
    double *w = malloc(pof2 * sizeof *w);
    size_t nlev = lg_floor(pof2);
    double *hist = malloc((nlev + 1) * pof2 * sizeof *hist);
    if (!w || !hist) {
        free(w);
        free(hist);
        return cm_error(CM_ENOMEM, "out of memory (all-reduce model)");
    }
    for (size_t v = 0; v < pof2; v++)
        w[v] = count;
    size_t lev = 0;
    for (size_t d = 1; d < pof2; d <<= 1, lev++) { /* reduce-scatter */
        memcpy(hist + lev * pof2, w, pof2 * sizeof *w);
        for (size_t v = 0; v < pof2; v++) {
            size_t u = v ^ d;
            double half = floor(w[v] / 2);
            /* the lower keeps the left half and sends the right */
            msg(s, at(g, fold_rab(v, rem)), at(g, fold_rab(u, rem)),
                (v < u ? w[v] - half : half) * E);
        }
        for (size_t v = 0; v < pof2; v++) {
            double half = floor(w[v] / 2);
            w[v] = v < (v ^ d) ? half : w[v] - half;
        }
        step_end(s);
    }
    for (size_t d = pof2 >> 1; d > 0; d >>= 1) { /* all-gather */
        lev--;
        for (size_t v = 0; v < pof2; v++)
            msg(s, at(g, fold_rab(v, rem)), at(g, fold_rab(v ^ d, rem)),
                w[v] * E);
        for (size_t v = 0; v < pof2; v++)
            w[v] = hist[lev * pof2 + v];
        step_end(s);
    }
    free(hist);
    free(w);
    for (size_t i = 0; i + 1 < 2 * rem; i += 2)
        msg(s, at(g, i), at(g, i + 1), count * E);
    step_end(s);
    return CM_OK;
}

/* libnbc's binomial reduce to member 0 then broadcast, on several groups
 * at once (ng groups of consecutive ranks first[k] .. first[k] + size[k]
 * - 1, or one mapped group): reduce = 0 runs the broadcast only, bcast
 * = 0 the reduce only. */
static void binomial_groups(sched *s, size_t ng, const size_t *first,
                            const size_t *size, const group *g, double count,
                            int reduce, int bcast)
{
    double B = count * s->esize;
    size_t maxm = 0;
    for (size_t k = 0; k < ng; k++)
        maxm = size[k] > maxm ? size[k] : maxm;
    size_t L = maxm > 1 ? lg_ceil(maxm) : 0;
#define MEMBER(k, v) (g ? at(g, v) : first[k] + (v))
    for (size_t r = 1; reduce && r <= L; r++) {
        size_t h = (size_t)1 << (r - 1);
        for (size_t k = 0; k < ng; k++)
            for (size_t v = h; v < size[k]; v += 2 * h)
                msg(s, MEMBER(k, v), MEMBER(k, v - h), B);
        step_end(s);
    }
    for (size_t r = 0; bcast && r < L; r++) {
        size_t h = (size_t)1 << r;
        for (size_t k = 0; k < ng; k++)
            for (size_t v = 0; v < h && v + h < size[k]; v++)
                msg(s, MEMBER(k, v), MEMBER(k, v + h), B);
        step_end(s);
    }
#undef MEMBER
}

/* The direct all-reduce: an all-to-all of blocks (reduce-scatter), then
 * an all-gather of the same blocks; each posted at once, so one step
 * each. Member i's block j: ceil(count/m) elements (padded). */
static void direct(sched *s, const group *g, double count)
{
    size_t m = g->m;
    if (m < 2)
        return;
    double B = ceil(count / (double)m) * s->esize;
    for (int phase = 0; phase < 2; phase++) {
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < m; j++)
                msg(s, at(g, i), at(g, j), B);
        step_end(s);
    }
}

static cm_status flat(sched *s, cm_net_ar_alg alg, const group *g,
                      double count)
{
    size_t zero = 0;
    switch (alg) {
    case CM_AR_DIRECT:
        direct(s, g, count);
        return CM_OK;
    case CM_AR_RING:
        ring(s, g, count);
        return CM_OK;
    case CM_AR_RDOUBLING:
        rdoubling(s, g, count);
        return CM_OK;
    case CM_AR_RABENSEIFNER:
        return rabenseifner(s, g, count);
    default:
        binomial_groups(s, 1, &zero, &g->m, g, count, 1, 1);
        return CM_OK;
    }
}

static void sched_free(sched *s)
{
    free(s->host);
    free(s->start);
    free(s->out);
    free(s->in);
    free(s->hout);
    free(s->hin);
    free(s->hlat);
    free(s->hsite);
    free(s->hx);
    free(s->sout);
    free(s->sin);
}

static cm_status sched_init(sched *s, const cm_net *net, size_t P, size_t H,
                            double esize, size_t *msgs, double *sent)
{
    memset(s, 0, sizeof *s);
    s->net = net;
    s->P = P;
    s->H = H;
    s->esize = esize;
    s->msgs = msgs;
    s->sent = sent;
    s->host = malloc(P * sizeof *s->host);
    s->start = malloc((H + 1) * sizeof *s->start);
    s->out = calloc(P, sizeof *s->out);
    s->in = calloc(P, sizeof *s->in);
    s->hout = calloc(H, sizeof *s->hout);
    s->hin = calloc(H, sizeof *s->hin);
    s->hlat = calloc(H, sizeof *s->hlat);
    if (!s->host || !s->start || !s->out || !s->in || !s->hout || !s->hin ||
        !s->hlat) {
        sched_free(s);
        return cm_error(CM_ENOMEM, "out of memory (all-reduce model)");
    }
    size_t q = 0;
    for (size_t h = 0; h < H; h++) {
        s->start[h] = q;
        for (size_t k = cm_place_rank_size(P, H, h); k > 0; k--)
            s->host[q++] = h;
    }
    s->start[H] = P;
    s->S = net->hosts ? 0 : cm_net_sites_used(net, H);
    if (s->S) {
        s->hsite = malloc(H * sizeof *s->hsite);
        s->hx = calloc(H, sizeof *s->hx);
        s->sout = calloc(s->S, sizeof *s->sout);
        s->sin = calloc(s->S, sizeof *s->sin);
        if (!s->hsite || !s->hx || !s->sout || !s->sin) {
            sched_free(s);
            return cm_error(CM_ENOMEM, "out of memory (all-reduce model)");
        }
        for (size_t h = 0; h < H; h++)
            s->hsite[h] = cm_net_site_of(net, H, h);
    }
    return CM_OK;
}

/* One algorithm (not auto or best) priced into *t / *steps; *inter gets
 * the hierarchical one's algorithm among hosts. */
static cm_status price(const cm_net *net, cm_net_ar_alg alg, size_t P,
                       size_t H, double bytes, double *t, size_t *steps,
                       cm_net_ar_alg *inter, size_t *msgs, double *sent)
{
    double es = fmod(bytes, 4.0) == 0.0 ? 4.0 : 1.0, count = bytes / es;
    sched s;
    cm_status st = sched_init(&s, net, P, H, es, msgs, sent);
    if (st != CM_OK)
        return st;
    *inter = alg;
    if (alg != CM_AR_HIER && alg != CM_AR_HIER_SITE) {
        const group g = {P, NULL};
        st = flat(&s, alg, &g, count);
    } else {
        /* the groups: hosts, or (by site) the ranks of each site; the
         * algorithm among them: the cheapest on one rank per group */
        int by_site = alg == CM_AR_HIER_SITE && s.S > 0;
        size_t G = by_site ? s.S : H;
        size_t *size = malloc(G * sizeof *size);
        size_t *first = malloc((G + 1) * sizeof *first);
        if (!size || !first) {
            free(size);
            free(first);
            sched_free(&s);
            return cm_error(CM_ENOMEM, "out of memory (all-reduce model)");
        }
        if (by_site) { /* a site's first rank: its first host's */
            for (size_t h = H; h-- > 0;)
                first[s.hsite[h]] = s.start[h];
            first[G] = P;
        } else {
            memcpy(first, s.start, (H + 1) * sizeof *first);
        }
        for (size_t k = 0; k < G; k++)
            size[k] = first[k + 1] - first[k];
        double best = INFINITY;
        const group lead = {G, first};
        for (int a = CM_AR_RING; a <= CM_AR_BINOMIAL && st == CM_OK; a++) {
            sched one;
            if ((st = sched_init(&one, net, P, H, es, NULL, NULL)) != CM_OK)
                break;
            st = flat(&one, (cm_net_ar_alg)a, &lead, count);
            if (st == CM_OK && one.t < best) {
                best = one.t;
                *inter = (cm_net_ar_alg)a;
            }
            sched_free(&one);
        }
        if (st == CM_OK) {
            binomial_groups(&s, G, first, size, NULL, count, 1, 0);
            st = flat(&s, *inter, &lead, count);
            binomial_groups(&s, G, first, size, NULL, count, 0, 1);
        }
        free(first);
        free(size);
    }
    *t = s.t;
    *steps = s.steps;
    sched_free(&s);
    return st;
}

cm_status cm_net_allreduce_model(const cm_net *net, cm_net_ar_alg alg,
                                 size_t P, size_t H, double bytes,
                                 cm_net_ar *out, size_t *msgs, double *sent)
{
    memset(out, 0, sizeof *out);
    if (P == 0 || H == 0 || H > P)
        return cm_error(CM_EINVAL, "all-reduce model: %zu ranks on %zu "
                        "hosts (need 1 <= hosts <= ranks)", P, H);
    if ((unsigned)alg >= CM_AR_COUNT)
        return cm_error(CM_EINVAL, "all-reduce model: no algorithm %d",
                        (int)alg);
    if (!(bytes >= 0) || !isfinite(bytes))
        return cm_error(CM_EINVAL, "all-reduce model: %g bytes", bytes);
    cm_status hs = cm_net_check_hosts(net, H);
    if (hs != CM_OK)
        return hs;
    if (alg == CM_AR_AUTO)
        alg = cm_net_allreduce_openmpi(P, bytes, 0, 1);
    size_t *m = calloc(P, sizeof *m);
    double *b = calloc(P, sizeof *b);
    if (!m || !b) {
        free(m);
        free(b);
        return cm_error(CM_ENOMEM, "out of memory (all-reduce model)");
    }
    cm_status st = CM_OK;
    if (alg == CM_AR_BEST) {
        out->time_s = INFINITY;
        cm_net_ar_alg last = H > 1 && H < P ? CM_AR_HIER : CM_AR_BINOMIAL;
        size_t G = net->hosts ? 0 : cm_net_sites_used(net, H);
        int site_cand = G > 1 && G < P; /* some site holds several ranks */
        for (int a = CM_AR_RING; a <= (int)CM_AR_HIER_SITE && st == CM_OK;
             a++) {
            if (a > (int)last && !(a == CM_AR_HIER_SITE && site_cand))
                continue;
            double t;
            size_t steps;
            cm_net_ar_alg inter;
            st = price(net, (cm_net_ar_alg)a, P, H, bytes, &t, &steps,
                       &inter, NULL, NULL);
            if (st == CM_OK && t < out->time_s) {
                out->time_s = t;
                out->alg = (cm_net_ar_alg)a;
            }
        }
        alg = out->alg;
    }
    if (st == CM_OK)
        st = price(net, alg, P, H, bytes, &out->time_s, &out->steps,
                   &out->inter, m, b);
    out->alg = alg;
    for (size_t r = 0; r < P && st == CM_OK; r++) {
        double mr = (double)m[r];
        out->msgs_mean += mr / (double)P;
        out->bytes_mean += b[r] / (double)P;
        out->msgs_max = mr > out->msgs_max ? mr : out->msgs_max;
        out->bytes_max = b[r] > out->bytes_max ? b[r] : out->bytes_max;
        if (msgs)
            msgs[r] = m[r];
        if (sent)
            sent[r] = b[r];
    }
    free(m);
    free(b);
    return st;
}

double cm_net_allreduce_alg_time(const cm_net *net, cm_net_ar_alg alg,
                                 size_t P, size_t H, double bytes)
{
    cm_net_ar a;
    return cm_net_allreduce_model(net, alg, P, H, bytes, &a, NULL, NULL) ==
                   CM_OK ? a.time_s : NAN;
}
