/* check_groups.c: equal groups of node ids and the host-aware search
 * (topo/graph/tg_groups.c, tg_search with groups). The cut against
 * closed forms
 * (ring lattices cut in blocks), the swap delta against a recount, the
 * grouped start (regular, connected, the least cut, random swaps within
 * the bound), the search (bound respected, connected, regular, never worse
 * than its start, same bytes for a seed whatever the thread count, on the
 * dense and sparse paths) and the messages for bad groups and bounds. */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_rng.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_search.h"

static size_t cut_of(const tg_graph *g, size_t G)
{
    size_t c;
    tg_groups_cut(g->n, g->m, g->eu, g->ev, G, NULL, &c);
    return c;
}

static void assert_regular_connected(const tg_graph *g, size_t n, size_t d)
{
    ck_assert_uint_eq(g->n, n);
    ck_assert_uint_eq(g->m, n * d / 2);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(tg_graph_degree(g, i), d);
    size_t links = 0;
    for (size_t k = 0; k < n * n; k++)
        links += g->adj[k];
    ck_assert_uint_eq(links, 2 * g->m); /* simple */
    int conn = -1;
    ck_assert_int_eq(tg_graph_connected(g, &conn), CM_OK);
    ck_assert(conn);
}

/* A ring lattice of degree d cut into G blocks: each of the G boundaries
 * (cyclically) is crossed by 1 + 2 + ... + d/2 edges; a cycle by one. */
START_TEST(cut_closed_forms)
{
    static const struct {
        size_t n, d, G, total;
    } tab[] = {{16, 4, 4, 12}, {12, 2, 3, 3}, {24, 6, 2, 12},
               {30, 4, 5, 15}, {10, 2, 1, 0}, {8, 2, 8, 8}};
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        tg_graph g;
        tg_graph_init(&g);
        ck_assert_int_eq(tg_graph_build(&g, TG_KIND_RRL, tab[c].n, tab[c].d,
                                        NULL), CM_OK);
        size_t per[8], total;
        tg_groups_cut(g.n, g.m, g.eu, g.ev, tab[c].G, per, &total);
        ck_assert_uint_eq(total, tab[c].total);
        for (size_t k = 0; k < tab[c].G; k++)
            ck_assert_uint_eq(per[k], 2 * tab[c].total / tab[c].G);
        tg_graph_destroy(&g);
    }
    ck_assert_uint_eq(tg_group_of(0, 64, 4), 0);
    ck_assert_uint_eq(tg_group_of(15, 64, 4), 0);
    ck_assert_uint_eq(tg_group_of(16, 64, 4), 1);
    ck_assert_uint_eq(tg_group_of(63, 64, 4), 3);
}
END_TEST

/* The delta of a swap equals the recounted change, for random legal
 * swaps on a random regular graph. */
START_TEST(swap_delta_recount)
{
    tg_graph g;
    tg_graph_init(&g);
    cm_rng r;
    cm_rng_seed(&r, 5, 0);
    ck_assert_int_eq(tg_graph_random_regular(&g, 24, 4, &r), CM_OK);
    size_t tried = 0;
    for (size_t t = 0; t < 2000 && tried < 300; t++) {
        size_t k1 = cm_rng_below(&r, g.m), k2 = cm_rng_below(&r, g.m);
        size_t a = g.eu[k1], b = g.ev[k1], x = g.eu[k2], y = g.ev[k2];
        if (!tg_graph_swap_ok(&g, a, b, x, y))
            continue;
        size_t G = 2 + t % 3 * 2; /* 2, 4, 6 */
        long before = (long)cut_of(&g, G);
        long delta = tg_groups_swap_delta(24, G, a, b, x, y);
        tg_graph_swap(&g, a, b, x, y);
        ck_assert_int_eq((long)cut_of(&g, G) - before, delta);
        tried++;
    }
    ck_assert_uint_ge(tried, 100);
    tg_graph_destroy(&g);
}
END_TEST

/* The start: regular, connected, the least cut; with random swaps, within
 * the bound, and a pure function of the generator's state. */
START_TEST(start_meets_bound)
{
    static const struct {
        size_t n, d, G, C;
    } tab[] = {{64, 4, 4, 4}, {64, 4, 4, 12}, {64, 4, 2, 2}, {24, 3, 3, 5},
               {40, 2, 4, 6}, {18, 5, 3, 3}, {20, 4, 2, 40}};
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        size_t n = tab[c].n, d = tab[c].d, G = tab[c].G, C = tab[c].C;
        tg_graph g, h;
        tg_graph_init(&g);
        tg_graph_init(&h);
        ck_assert_int_eq(tg_groups_start(&g, n, d, G, C, NULL), CM_OK);
        assert_regular_connected(&g, n, d);
        ck_assert_uint_eq(cut_of(&g, G), tg_groups_min_cross(G));
        cm_rng r1, r2;
        cm_rng_seed(&r1, 9, c);
        cm_rng_seed(&r2, 9, c);
        ck_assert_int_eq(tg_groups_start(&g, n, d, G, C, &r1), CM_OK);
        ck_assert_int_eq(tg_groups_start(&h, n, d, G, C, &r2), CM_OK);
        assert_regular_connected(&g, n, d);
        ck_assert_uint_le(cut_of(&g, G), C);
        ck_assert_mem_eq(g.eu, h.eu, g.m * sizeof *g.eu);
        ck_assert_mem_eq(g.ev, h.ev, g.m * sizeof *g.ev);
        tg_graph_destroy(&g);
        tg_graph_destroy(&h);
    }
}
END_TEST

static void grouped_opts(tg_search_opts *o, size_t n, size_t d, size_t G,
                         size_t C)
{
    tg_search_opts_default(o);
    o->n = n;
    o->d = d;
    o->groups = G;
    o->max_cross = C;
    o->iters = 600;
    o->restarts = 2;
    o->seed = 4;
}

/* Every grouped search returns a regular connected graph within the
 * bound, no worse than its start, and reports the cut it has. */
START_TEST(search_respects_bound)
{
    static const struct {
        size_t n, d, G, C;
        int rrl;
    } tab[] = {{64, 4, 4, 4, 0},  {64, 4, 4, 10, 1}, {32, 4, 2, 2, 0},
               {32, 3, 2, 6, 0},  {36, 4, 3, 3, 1},  {48, 6, 4, 20, 0}};
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        tg_search_opts o;
        grouped_opts(&o, tab[c].n, tab[c].d, tab[c].G, tab[c].C);
        o.init_rrl = tab[c].rrl;
        tg_graph g;
        tg_search_result res;
        tg_graph_init(&g);
        ck_assert_int_eq(tg_search_run(&o, &g, &res), CM_OK);
        assert_regular_connected(&g, tab[c].n, tab[c].d);
        size_t cut = cut_of(&g, tab[c].G);
        ck_assert_uint_le(cut, tab[c].C);
        ck_assert_uint_eq(res.cross, cut);
        ck_assert(res.energy <= res.start_energy + 1e-12);
        ck_assert(res.accepted > 0);
        tg_graph_destroy(&g);
    }
}
END_TEST

/* A looser bound is used: with C = 24 on n = 64, G = 4 the search leaves
 * the 4-edge start and ends with more edges between groups and a lower
 * energy than the tightest bound's result from the same seed. */
START_TEST(search_uses_looser_bound)
{
    tg_search_opts o;
    tg_graph g;
    tg_search_result tight, loose;
    tg_graph_init(&g);
    grouped_opts(&o, 64, 4, 4, 4);
    o.iters = 3000;
    o.restarts = 1;
    ck_assert_int_eq(tg_search_run(&o, &g, &tight), CM_OK);
    o.max_cross = 24;
    ck_assert_int_eq(tg_search_run(&o, &g, &loose), CM_OK);
    ck_assert_uint_eq(tight.cross, 4);
    ck_assert_uint_gt(loose.cross, 4);
    ck_assert_uint_le(loose.cross, 24);
    ck_assert(loose.energy < tight.energy);
    tg_graph_destroy(&g);
}
END_TEST

/* Same seed, same graph for 1, 2 or 3 threads (dense and sparse paths);
 * another seed, another graph. */
START_TEST(search_threads_same_bytes)
{
    static const struct {
        size_t n;
        tg_solver solver;
    } tab[] = {{40, TG_SOLVER_DENSE}, {100, TG_SOLVER_SPARSE}};
    for (size_t c = 0; c < 2; c++) {
        tg_graph g[4];
        tg_search_result r[4];
        for (size_t t = 0; t < 4; t++) {
            tg_search_opts o;
            grouped_opts(&o, tab[c].n, 4, 5, 12);
            o.iters = 300;
            o.restarts = 3;
            o.solver = tab[c].solver;
            o.threads = t < 3 ? t + 1 : 2;
            o.seed = t < 3 ? 4 : 5;
            tg_graph_init(&g[t]);
            ck_assert_int_eq(tg_search_run(&o, &g[t], &r[t]), CM_OK);
        }
        for (size_t t = 1; t < 3; t++) {
            ck_assert_mem_eq(g[0].eu, g[t].eu, g[0].m * sizeof *g[0].eu);
            ck_assert_mem_eq(g[0].ev, g[t].ev, g[0].m * sizeof *g[0].ev);
            ck_assert(r[0].energy == r[t].energy && r[0].cross == r[t].cross);
        }
        ck_assert(memcmp(g[0].eu, g[3].eu, g[0].m * sizeof *g[0].eu) != 0 ||
                  memcmp(g[0].ev, g[3].ev, g[0].m * sizeof *g[0].ev) != 0);
        for (size_t t = 0; t < 4; t++)
            tg_graph_destroy(&g[t]);
    }
}
END_TEST

/* Bad groups or bounds: CM_EINVAL with a message naming the flag. */
START_TEST(bad_groups)
{
    static const struct {
        size_t n, d, G, C;
        const char *flag, *what;
    } tab[] = {
        {64, 4, 3, 8, "--groups 3", "does not divide"},
        {64, 4, 65, 80, "--groups 65", "more groups"},
        {64, 4, 0, 8, "--groups", "at least 1"},
        {64, 4, 1, 8, "--groups 1", "at least 2 groups"},
        {64, 4, 16, 16, "--groups 16", "need n/G >= d + 1"},
        {60, 3, 4, 8, "--groups 4", "(n/G)*d even"},
        {64, 4, 4, 3, "--max-cross 3", "at least 4"},
        {64, 4, 2, 1, "--max-cross 1", "at least 2"},
    };
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        ck_assert_int_eq(tg_groups_check(tab[c].n, tab[c].d, tab[c].G,
                                         tab[c].C), CM_EINVAL);
        ck_assert_msg(strstr(cm_last_error(), tab[c].flag) &&
                      strstr(cm_last_error(), tab[c].what),
                      "case %zu: %s", c, cm_last_error());
        tg_search_opts o;
        grouped_opts(&o, tab[c].n, tab[c].d, tab[c].G, tab[c].C);
        tg_graph g;
        tg_search_result res;
        tg_graph_init(&g);
        if (tab[c].G) /* G = 0 means no groups to the search */
            ck_assert_int_eq(tg_search_run(&o, &g, &res), CM_EINVAL);
        tg_graph_destroy(&g);
    }
    ck_assert_int_eq(tg_groups_check(64, 4, 4, 4), CM_OK);
    ck_assert_uint_eq(tg_groups_min_cross(1), 0);
    ck_assert_uint_eq(tg_groups_min_cross(2), 2);
    ck_assert_uint_eq(tg_groups_min_cross(7), 7);
}
END_TEST

Suite *groups_suite(void)
{
    Suite *s = suite_create("groups");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cut_closed_forms);
    tcase_add_test(tc, swap_delta_recount);
    tcase_add_test(tc, start_meets_bound);
    tcase_add_test(tc, search_respects_bound);
    tcase_add_test(tc, search_uses_looser_bound);
    tcase_add_test(tc, search_threads_same_bytes);
    tcase_add_test(tc, bad_groups);
    suite_add_tcase(s, tc);
    return s;
}
