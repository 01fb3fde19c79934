/* check_topogen_search.c: tg_search.c (topo/search/), tg_eval.c
 * (topo/measure/): the
 * annealing search keeps the graph d-regular and connected, never returns
 * a graph worse than its start, is deterministic per seed and reaches the
 * n = 16 target; objectives match the weight rules' SLEMs; eval figures
 * against closed forms; the consensus simulation decays at the SLEM rate. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_blas.h"

#include "cm_rng.h"
#include "cm_mixing.h"
#include "tg_eval.h"
#include "tg_graph.h"
#include "tg_search.h"
#include "tg_spectrum.h"

/* The default search options for n nodes of degree d. */
static tg_search_opts opts_nd(size_t n, size_t d)
{
    tg_search_opts o;
    tg_search_opts_default(&o);
    o.n = n;
    o.d = d;
    return o;
}

/* Runs the search o into g (initialised here; the caller destroys it),
 * which must succeed. */
static void run(const tg_search_opts *o, tg_graph *g, tg_search_result *res)
{
    tg_graph_init(g);
    ck_assert_int_eq(tg_search_run(o, g, res), CM_OK);
}

/* Runs o twice: with the screen into a, without it (no_screen) into b. */
static void run_screen_and_not(tg_search_opts o, tg_graph *a,
                               tg_search_result *ra, tg_graph *b,
                               tg_search_result *rb)
{
    run(&o, a, ra);
    o.no_screen = 1;
    run(&o, b, rb);
}

/* Runs a quiet search with the given settings and 2 restarts. */
static void search(tg_graph *g, tg_search_result *res, size_t n, size_t d,
                   tg_objective obj, uint64_t seed, size_t iters,
                   int init_rrl)
{
    tg_search_opts o = opts_nd(n, d);
    o.obj = obj;
    o.seed = seed;
    o.iters = iters;
    o.restarts = 2;
    o.init_rrl = init_rrl;
    run(&o, g, res);
}

static void assert_regular_connected(const tg_graph *g, size_t n, size_t d)
{
    ck_assert_uint_eq(g->n, n);
    ck_assert_uint_eq(g->m, n * d / 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(tg_graph_degree(g, i), d);
        ck_assert(!g->adj[i * n + i]);
    }
    size_t links = 0;
    for (size_t k = 0; k < n * n; k++)
        links += g->adj[k];
    ck_assert_uint_eq(links, 2 * g->m); /* no multi-edges */
    int conn = -1;
    ck_assert_int_eq(tg_graph_connected(g, &conn), CM_OK);
    ck_assert(conn);
}

START_TEST(search_invariants)
{
    static const struct {
        size_t n, d;
        tg_objective obj;
        int rrl;
    } tab[] = {
        {12, 3, TG_OBJ_RATIO, 0}, {20, 4, TG_OBJ_RATIO, 1},
        {15, 4, TG_OBJ_GAP, 0},   {24, 5, TG_OBJ_SLEM_MH, 1},
        {10, 8, TG_OBJ_RATIO, 0}, {30, 2, TG_OBJ_RATIO, 0},
    };
    for (size_t t = 0; t < sizeof tab / sizeof *tab; t++) {
        tg_graph g;
        tg_search_result res;
        search(&g, &res, tab[t].n, tab[t].d, tab[t].obj, 3, 1500,
               tab[t].rrl);
        assert_regular_connected(&g, tab[t].n, tab[t].d);
        ck_assert_msg(res.energy <= res.start_energy + 1e-12,
                      "case %zu: energy %g worse than start %g", t,
                      res.energy, res.start_energy);
        ck_assert(res.l2 > 0.0 && res.ln >= res.l2);
        ck_assert(res.evals > 0 && res.moves >= res.evals - 3);
        tg_graph_destroy(&g);
    }
}
END_TEST

START_TEST(search_improves_lattice)
{
    /* the ring lattice mixes slowly; any search must beat it clearly */
    tg_graph g;
    tg_search_result res;
    search(&g, &res, 32, 4, TG_OBJ_RATIO, 1, 3000, 1);
    ck_assert(res.energy < res.start_energy - 0.1);
    tg_graph_destroy(&g);
}
END_TEST

START_TEST(search_deterministic)
{
    tg_graph a, b, c;
    tg_search_result ra, rb, rc;
    search(&a, &ra, 24, 4, TG_OBJ_RATIO, 9, 2000, 0);
    search(&b, &rb, 24, 4, TG_OBJ_RATIO, 9, 2000, 0);
    search(&c, &rc, 24, 4, TG_OBJ_RATIO, 10, 2000, 0);
    ck_assert_mem_eq(a.adj, b.adj, 24 * 24);
    ck_assert(ra.energy == rb.energy && ra.moves == rb.moves);
    ck_assert(memcmp(a.adj, c.adj, 24 * 24) != 0 || ra.energy != rc.energy);
    tg_graph_destroy(&a);
    tg_graph_destroy(&b);
    tg_graph_destroy(&c);
}
END_TEST

/* The default search on n = 16, d = 4 reaches the target. */
START_TEST(search_target_n16)
{
    tg_search_opts o = opts_nd(16, 4);
    tg_graph g;
    tg_search_result res;
    run(&o, &g, &res);
    assert_regular_connected(&g, 16, 4);
    /* energy of ratio is the SLEM of optimal Laplacian weights: check it
     * against the file-level dense computation */
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(tg_graph_to_topo(&g, &t), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    double slem;
    ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, res.energy, 1e-9);
    ck_assert_msg(slem <= 0.47, "n=16 d=4 SLEM %.4f above 0.47", slem);
    cm_topo_destroy(&t);
    tg_graph_destroy(&g);
}
END_TEST

/* The screen skips solves but never changes a decision: with and without
 * it the search returns the same graph. */
START_TEST(screen_changes_nothing)
{
    static const tg_objective objs[] = {TG_OBJ_RATIO, TG_OBJ_GAP,
                                        TG_OBJ_SLEM_MH};
    for (size_t k = 0; k < 3; k++) {
        tg_search_opts o = opts_nd(20, 3);
        o.obj = objs[k];
        o.iters = 3000;
        o.restarts = 1;
        tg_graph a, b;
        tg_search_result ra, rb;
        run_screen_and_not(o, &a, &ra, &b, &rb);
        ck_assert_mem_eq(a.eu, b.eu, a.m * sizeof *a.eu);
        ck_assert_mem_eq(a.ev, b.ev, a.m * sizeof *a.ev);
        ck_assert(ra.energy == rb.energy && ra.accepted == rb.accepted);
        ck_assert_uint_gt(ra.screened, 0);
        ck_assert_uint_eq(rb.screened, 0);
        ck_assert_uint_eq(ra.evals + ra.screened, rb.evals);
        tg_graph_destroy(&a);
        tg_graph_destroy(&b);
    }
}
END_TEST

/* The sparse path's screen and early stop skip work but not decisions:
 * same graph, same acceptances as with every proposal solved in full, on
 * both proposal schemes (plain, and best of 16 first-order candidates). */
START_TEST(sparse_screen_changes_nothing)
{
    for (size_t cands = 1; cands <= 16; cands += 15) {
        tg_search_opts o = opts_nd(60, 4);
        o.iters = 600;
        o.restarts = 1;
        o.solver = TG_SOLVER_SPARSE;
        o.candidates = cands;
        tg_graph a, b;
        tg_search_result ra, rb;
        run_screen_and_not(o, &a, &ra, &b, &rb);
        ck_assert(ra.sparse && rb.sparse);
        ck_assert_mem_eq(a.adj, b.adj, 60 * 60);
        ck_assert(ra.accepted == rb.accepted);
        ck_assert_double_eq_tol(ra.energy, rb.energy, 1e-12);
        ck_assert_uint_gt(ra.screened + ra.early, 0);
        ck_assert_uint_eq(rb.screened + rb.early, 0);
        ck_assert_uint_lt(ra.matvecs, rb.matvecs);
        tg_graph_destroy(&a);
        tg_graph_destroy(&b);
    }
}
END_TEST

/* tg_spec_sparse against the dense path and closed forms: ring, hypercube,
 * complete, and random regular graphs, to 1e-9 lambda_n. */
START_TEST(sparse_spectrum_matches_dense)
{
    static const struct {
        tg_kind kind;
        size_t n, d;
    } tab[] = {{TG_KIND_RING, 50, 2},      {TG_KIND_HYPERCUBE, 64, 6},
               {TG_KIND_COMPLETE, 20, 19}, {TG_KIND_RANDOM, 200, 4},
               {TG_KIND_RANDOM, 301, 6},   {TG_KIND_RANDOM, 10, 3}};
    tg_spec s;
    tg_spec_init(&s);
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        tg_graph g;
        tg_graph_init(&g);
        cm_rng rng;
        cm_rng_seed(&rng, 2, 0);
        ck_assert_int_eq(tg_graph_build(&g, tab[c].kind, tab[c].n, tab[c].d,
                                        &rng), CM_OK);
        double l2, ln, d2, dn;
        ck_assert_int_eq(tg_spec_sparse(&s, &g, NULL, &l2, &ln), CM_OK);
        ck_assert_int_eq(tg_spec_extremes(&s, &g, &d2, &dn), CM_OK);
        ck_assert_msg(fabs(l2 - d2) <= 1e-9 * dn && fabs(ln - dn) <= 1e-9 * dn,
                      "case %zu: sparse %.12g %.12g dense %.12g %.12g", c, l2,
                      ln, d2, dn);
        if (tab[c].kind == TG_KIND_RING)
            ck_assert_double_eq_tol(l2, 2.0 - 2.0 * cos(2.0 * M_PI / 50.0),
                                    1e-9);
        if (tab[c].kind == TG_KIND_HYPERCUBE)
            ck_assert(fabs(l2 - 2.0) < 1e-9 && fabs(ln - 12.0) < 1e-9);
        if (tab[c].kind == TG_KIND_COMPLETE)
            ck_assert(fabs(l2 - 20.0) < 1e-9 && fabs(ln - 20.0) < 1e-9);
        tg_graph_destroy(&g);
    }
    tg_spec_destroy(&s);
}
END_TEST

/* Same seed, same graph, however many threads run the restarts (dense
 * and sparse paths, plain and guided proposals). */
START_TEST(threads_same_result)
{
    static const struct {
        size_t n, cands;
        tg_solver solver;
    } tab[] = {{24, 1, TG_SOLVER_DENSE}, {100, 8, TG_SOLVER_SPARSE}};
    for (size_t c = 0; c < 2; c++) {
        tg_graph g[3];
        tg_search_result r[3];
        for (size_t t = 0; t < 3; t++) {
            tg_search_opts o = opts_nd(tab[c].n, 4);
            o.iters = 400;
            o.restarts = 3;
            o.candidates = tab[c].cands;
            o.solver = tab[c].solver;
            o.threads = t + 1;
            run(&o, &g[t], &r[t]);
            ck_assert_uint_eq(r[t].threads, t + 1);
        }
        for (size_t t = 1; t < 3; t++) {
            ck_assert_mem_eq(g[0].eu, g[t].eu, g[0].m * sizeof *g[0].eu);
            ck_assert_mem_eq(g[0].ev, g[t].ev, g[0].m * sizeof *g[0].ev);
            ck_assert(r[0].energy == r[t].energy &&
                      r[0].moves == r[t].moves &&
                      r[0].evals == r[t].evals);
        }
        for (size_t t = 0; t < 3; t++)
            tg_graph_destroy(&g[t]);
    }
}
END_TEST

/* Moves of several swaps (opts.swaps): the result is d-regular and
 * connected, no worse than its start, deterministic and independent of
 * the threads; accepted moves took more than one swap on average; one
 * swap per move is the old chain (swaps 1 and the default agree below
 * 2,048 nodes). */
START_TEST(moves_of_several_swaps)
{
    tg_graph g[3];
    tg_search_result r[3];
    for (size_t t = 0; t < 3; t++) {
        tg_search_opts o = opts_nd(300, 4);
        o.iters = 150;
        o.restarts = 2;
        o.candidates = 64;
        o.swaps = 8;
        o.threads = t == 2 ? 2 : 1;
        run(&o, &g[t], &r[t]);
        assert_regular_connected(&g[t], 300, 4);
        ck_assert(r[t].energy <= r[t].start_energy);
        ck_assert(r[t].sparse);
    }
    ck_assert_msg(r[0].swaps > r[0].accepted, "%zu swaps in %zu moves",
                  r[0].swaps, r[0].accepted);
    for (size_t t = 1; t < 3; t++) {
        ck_assert_mem_eq(g[0].eu, g[t].eu, g[0].m * sizeof *g[0].eu);
        ck_assert_mem_eq(g[0].ev, g[t].ev, g[0].m * sizeof *g[0].ev);
        ck_assert(r[0].energy == r[t].energy && r[0].swaps == r[t].swaps);
    }
    for (size_t t = 0; t < 3; t++)
        tg_graph_destroy(&g[t]);
    ck_assert_uint_eq(tg_search_default_swaps(1024), 1);
    ck_assert_uint_eq(tg_search_default_swaps(4096), 8);
    ck_assert_uint_eq(tg_search_default_swaps(16384), 32);
    tg_graph a, b;
    tg_search_result ra, rb;
    tg_search_opts o = opts_nd(120, 4);
    o.iters = 100;
    o.candidates = 16;
    run(&o, &a, &ra);
    o.swaps = 1;
    run(&o, &b, &rb);
    ck_assert_mem_eq(a.eu, b.eu, a.m * sizeof *a.eu);
    ck_assert(ra.swaps == ra.accepted && ra.energy == rb.energy);
    tg_graph_destroy(&a);
    tg_graph_destroy(&b);
}
END_TEST

/* A stop request ends the search with the best graph so far: here before
 * the first move, so the start graph of restart 0, flagged interrupted. */
START_TEST(stop_returns_best_so_far)
{
    volatile sig_atomic_t flag = 1;
    tg_search_opts o = opts_nd(40, 4);
    o.iters = 100000;
    o.restarts = 2;
    o.threads = 1;
    o.stop = &flag;
    tg_graph g;
    tg_search_result res;
    run(&o, &g, &res);
    ck_assert(res.interrupted);
    ck_assert_uint_eq(res.moves, 0);
    ck_assert_double_eq_tol(res.energy, res.start_energy, 1e-12);
    assert_regular_connected(&g, 40, 4);
    tg_graph_destroy(&g);
}
END_TEST

/* issue 34: a move whose sparse solve does not converge (here: Lanczos
 * capped at 80 products on 200 nodes) is rejected, not the run's end;
 * the best graph so far comes back, with its energy right even when its
 * final re-solve fails too; when even the start's solve fails, a clear
 * CM_ENUMERIC. The default cap fails nothing. */
START_TEST(failed_solves_are_rejected_moves)
{
    tg_search_opts o = opts_nd(200, 4);
    o.iters = 300;
    o.restarts = 1;
    o.solver = TG_SOLVER_SPARSE;
    o.max_matvec = 80;
    tg_graph g;
    tg_search_result res;
    run(&o, &g, &res);
    ck_assert_uint_gt(res.failed_solves, 0);
    ck_assert_uint_gt(res.accepted, 0);
    ck_assert(res.energy < res.start_energy);
    assert_regular_connected(&g, 200, 4);
    tg_spec sp;
    tg_spec_init(&sp);
    double l2, ln;
    ck_assert_int_eq(tg_spec_extremes(&sp, &g, &l2, &ln), CM_OK);
    ck_assert_double_eq_tol(res.energy,
                            tg_objective_energy(o.obj, 4, l2, ln), 1e-8);
    tg_spec_destroy(&sp);
    tg_graph_destroy(&g);

    o.max_matvec = 20; /* the start's solve fails as well */
    tg_graph_init(&g);
    ck_assert_int_eq(tg_search_run(&o, &g, &res), CM_ENUMERIC);
    ck_assert_str_eq(cm_last_error(), "search: no restart produced a graph "
                     "(the eigensolve of every start did not converge)");
    tg_graph_destroy(&g);

    o.max_matvec = 0;
    run(&o, &g, &res);
    ck_assert_uint_eq(res.failed_solves, 0);
    tg_graph_destroy(&g);
}
END_TEST

/* Eigenpairs from tg_spec_vectors satisfy L v = mu v, and the Rayleigh
 * bounds the screen uses hold for random swaps. */
START_TEST(vectors_and_bounds)
{
    size_t n = 24;
    cm_rng r;
    cm_rng_seed(&r, 11, 0);
    tg_graph g;
    tg_graph_init(&g);
    ck_assert_int_eq(tg_graph_random_regular(&g, n, 4, &r), CM_OK);
    tg_spec s;
    tg_spec_init(&s);
    ck_assert_int_eq(tg_spec_vectors(&s, &g), CM_OK);
    for (size_t k = 0; k < n; k++) {
        const double *v = s.z + k * n;
        double norm = 0.0;
        for (size_t i = 0; i < n; i++) {
            double lv = (double)tg_graph_degree(&g, i) * v[i];
            for (size_t p = g.off[i]; p < g.off[i + 1]; p++)
                lv -= v[g.nb[p]];
            ck_assert_double_eq_tol(lv, s.zw[k] * v[i], 1e-12);
            norm += v[i] * v[i];
        }
        ck_assert_double_eq_tol(norm, 1.0, 1e-12);
    }
    size_t tried = 0;
    for (size_t t = 0; t < 400; t++) {
        size_t k1 = cm_rng_below(&r, g.m), k2 = cm_rng_below(&r, g.m);
        size_t a = g.eu[k1], b = g.ev[k1], x = g.eu[k2], y = g.ev[k2];
        if (!tg_graph_swap_ok(&g, a, b, x, y))
            continue;
        double l2_up = INFINITY, ln_low = -INFINITY;
        for (size_t j = 1; j < n; j++) {
            const double *v = s.z + j * n;
            double q = s.zw[j] + pow(v[a] - v[x], 2) + pow(v[b] - v[y], 2) -
                       pow(v[a] - v[b], 2) - pow(v[x] - v[y], 2);
            l2_up = fmin(l2_up, q);
            ln_low = fmax(ln_low, q);
        }
        tg_graph_swap(&g, a, b, x, y);
        double l2, ln;
        tg_spec sp;
        tg_spec_init(&sp);
        ck_assert_int_eq(tg_spec_extremes(&sp, &g, &l2, &ln), CM_OK);
        tg_spec_destroy(&sp);
        tg_graph_swap(&g, a, x, b, y);
        ck_assert(l2 <= l2_up + 1e-9 && ln >= ln_low - 1e-9);
        if (l2 > 1e-9)
            for (int o = 0; o < 3; o++)
                ck_assert(tg_objective_energy((tg_objective)o, 4, l2, ln) >=
                          tg_objective_lower_bound((tg_objective)o, 4, l2_up,
                                                   ln_low) - 1e-9);
        tried++;
    }
    ck_assert_uint_gt(tried, 100);
    tg_spec_destroy(&s);
    tg_graph_destroy(&g);
}
END_TEST

START_TEST(search_time_limit)
{
    tg_search_opts o = opts_nd(64, 4);
    o.iters = 100000000;
    o.time_limit = 0.2;
    tg_graph g;
    tg_search_result res;
    run(&o, &g, &res);
    ck_assert(res.timed_out);
    ck_assert(res.seconds < 5.0);
    ck_assert(res.energy <= res.start_energy);
    assert_regular_connected(&g, 64, 4);
    tg_graph_destroy(&g);
    o.n = 9;
    o.d = 3; /* n*d odd */
    ck_assert_int_eq(tg_search_run(&o, &g, &res), CM_EINVAL);
}
END_TEST

/* Each objective's energy equals the SLEM of the matching weight rule (for
 * ratio and slem-mh) on a regular graph, and the objective names parse. */
START_TEST(objectives_match_weights)
{
    cm_rng r;
    cm_rng_seed(&r, 4, 0);
    tg_graph g;
    tg_graph_init(&g);
    ck_assert_int_eq(tg_graph_random_regular(&g, 20, 4, &r), CM_OK);
    tg_spec s;
    tg_spec_init(&s);
    double l2, ln;
    ck_assert_int_eq(tg_spec_extremes(&s, &g, &l2, &ln), CM_OK);
    static const struct {
        tg_objective obj;
        cm_weight_rule rule;
        const char *name;
    } tab[] = {{TG_OBJ_RATIO, CM_WEIGHTS_LAPLACIAN, "ratio"},
               {TG_OBJ_SLEM_MH, CM_WEIGHTS_MH, "slem-mh"}};
    for (size_t k = 0; k < 2; k++) {
        cm_topo t;
        cm_topo_init(&t);
        ck_assert_int_eq(tg_graph_to_topo(&g, &t), CM_OK);
        ck_assert_int_eq(cm_topo_set_weights(&t, tab[k].rule), CM_OK);
        double slem;
        ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
        ck_assert_double_eq_tol(tg_objective_energy(tab[k].obj, 4, l2, ln),
                                slem, 1e-9);
        tg_objective o;
        ck_assert_int_eq(tg_objective_parse(tab[k].name, &o), CM_OK);
        ck_assert_int_eq(o, tab[k].obj);
        ck_assert_str_eq(tg_objective_name(o), tab[k].name);
        cm_topo_destroy(&t);
    }
    ck_assert_double_eq_tol(tg_objective_energy(TG_OBJ_GAP, 4, l2, ln),
                            1.0 - l2 / 4.0, 1e-15);
    tg_objective o;
    ck_assert_int_eq(tg_objective_parse("speed", &o), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--objective"));
    tg_spec_destroy(&s);
    tg_graph_destroy(&g);
}
END_TEST

static void weighted(cm_topo *t, tg_kind kind, size_t n, size_t d,
                     cm_weight_rule rule)
{
    cm_rng r;
    cm_rng_seed(&r, 2, 0);
    tg_graph g;
    tg_graph_init(&g);
    ck_assert_int_eq(tg_graph_build(&g, kind, n, d, &r), CM_OK);
    cm_topo_init(t);
    ck_assert_int_eq(tg_graph_to_topo(&g, t), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(t, rule), CM_OK);
    tg_graph_destroy(&g);
}

START_TEST(eval_closed_forms)
{
    /* ring C_n, Laplacian weights: lambda_2 = 2 - 2cos(2pi/n), lambda_n = 4
     * (n even), diameter n/2 */
    cm_topo t;
    weighted(&t, TG_KIND_RING, 16, 2, CM_WEIGHTS_LAPLACIAN);
    tg_eval e;
    ck_assert_int_eq(tg_eval_topo(&t, &e), CM_OK);
    double l2 = 2.0 - 2.0 * cos(2.0 * M_PI / 16.0);
    ck_assert_uint_eq(e.n, 16);
    ck_assert_uint_eq(e.m, 16);
    ck_assert_uint_eq(e.dmin, 2);
    ck_assert_uint_eq(e.dmax, 2);
    ck_assert_double_eq_tol(e.diameter, 8.0, 1e-12);
    ck_assert_double_eq_tol(e.l2, l2, 1e-9);
    ck_assert_double_eq_tol(e.ln, 4.0, 1e-9);
    ck_assert_double_eq_tol(e.slem, (4.0 - l2) / (4.0 + l2), 1e-9);
    ck_assert_double_eq_tol(e.slem_best, e.slem, 1e-9);
    ck_assert_double_eq_tol(e.rounds, ceil(log(1e-3) / log(e.slem)), 1e-9);
    cm_topo_destroy(&t);
    /* hypercube Q_4 with MH weights 1/5: SLEM = max(|1-2/5|, |1-8/5|) */
    weighted(&t, TG_KIND_HYPERCUBE, 16, 0, CM_WEIGHTS_MH);
    ck_assert_int_eq(tg_eval_topo(&t, &e), CM_OK);
    ck_assert_double_eq_tol(e.diameter, 4.0, 1e-12);
    ck_assert_double_eq_tol(e.slem, 0.6, 1e-9);
    ck_assert_double_eq_tol(e.slem_best, (8.0 - 2.0) / (8.0 + 2.0), 1e-9);
    cm_topo_destroy(&t);
    /* complete graph: diameter 1, Laplacian weights average in one round */
    weighted(&t, TG_KIND_COMPLETE, 7, 0, CM_WEIGHTS_LAPLACIAN);
    ck_assert_int_eq(tg_eval_topo(&t, &e), CM_OK);
    ck_assert_double_eq_tol(e.diameter, 1.0, 1e-12);
    ck_assert_double_eq_tol(e.slem, 0.0, 1e-9);
    /* unweighted topologies are refused */
    cm_topo u;
    cm_topo_init(&u);
    size_t a = 0, b = 1;
    ck_assert_int_eq(cm_topo_from_edges(&u, 2, 1, &a, &b), CM_OK);
    ck_assert_int_eq(tg_eval_topo(&u, &e), CM_EINVAL);
    double rel[3];
    ck_assert_int_eq(tg_simulate(&u, 2, 1, rel), CM_EINVAL);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST

/* Gossip: disagreement never exceeds SLEM^t, and decays at that rate. */
START_TEST(simulate_slem_rate)
{
    static const struct {
        tg_kind kind;
        size_t n, d;
        cm_weight_rule rule;
    } tab[] = {
        {TG_KIND_RING, 16, 2, CM_WEIGHTS_LAPLACIAN},
        {TG_KIND_TORUS, 16, 4, CM_WEIGHTS_MH},
        {TG_KIND_RANDOM, 32, 4, CM_WEIGHTS_LAPLACIAN},
        {TG_KIND_RRL, 20, 4, CM_WEIGHTS_MAXDEG},
    };
    enum { R = 120 };
    for (size_t k = 0; k < sizeof tab / sizeof *tab; k++) {
        cm_topo t;
        weighted(&t, tab[k].kind, tab[k].n, tab[k].d, tab[k].rule);
        double slem, rel[R + 1], rel2[R + 1];
        ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
        ck_assert_int_eq(tg_simulate(&t, R, 5, rel), CM_OK);
        ck_assert(rel[0] == 1.0);
        for (size_t r = 1; r <= R; r++)
            ck_assert_msg(rel[r] <= pow(slem, (double)r) * (1 + 1e-9) + 1e-13,
                          "case %zu round %zu: %g above SLEM^t %g", k, r,
                          rel[r], pow(slem, (double)r));
        /* observed rate over 30 rounds, ending before rounding noise
         * (disagreement 1e-9), equals the SLEM */
        size_t end = R;
        while (end > 40 && rel[end] < 1e-9)
            end--;
        double rate = pow(rel[end] / rel[end - 30], 1.0 / 30.0);
        ck_assert_msg(fabs(rate - slem) < 0.01 * slem,
                      "case %zu: rate %.5f, SLEM %.5f", k, rate, slem);
        /* deterministic for a seed, different for another */
        ck_assert_int_eq(tg_simulate(&t, R, 5, rel2), CM_OK);
        ck_assert_mem_eq(rel, rel2, sizeof rel);
        ck_assert_int_eq(tg_simulate(&t, R, 6, rel2), CM_OK);
        ck_assert(rel[1] != rel2[1]);
        cm_topo_destroy(&t);
    }
}
END_TEST

Suite *topogen_search_suite(void)
{
    Suite *s = suite_create("topogen_search");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, search_invariants);
    tcase_add_test(tc, search_improves_lattice);
    tcase_add_test(tc, search_deterministic);
    tcase_add_test(tc, search_target_n16);
    tcase_add_test(tc, search_time_limit);
    tcase_add_test(tc, screen_changes_nothing);
    tcase_add_test(tc, sparse_screen_changes_nothing);
    tcase_add_test(tc, sparse_spectrum_matches_dense);
    tcase_add_test(tc, threads_same_result);
    tcase_add_test(tc, moves_of_several_swaps);
    tcase_add_test(tc, stop_returns_best_so_far);
    tcase_add_test(tc, failed_solves_are_rejected_moves);
    tcase_add_test(tc, vectors_and_bounds);
    tcase_add_test(tc, objectives_match_weights);
    tcase_add_test(tc, eval_closed_forms);
    tcase_add_test(tc, simulate_slem_rate);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
