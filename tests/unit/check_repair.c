/* check_repair.c: losing workers (issue 34). cm_idlist reads and prints
 * LISTs strictly; tg_repair keeps degrees where the graph allows,
 * renumbers in order and refuses a disconnected result; dt_handoff gives
 * a lost shard round-robin to the nearest survivors, keeping every image
 * once; dt_ckpt_epoch_meta names an epoch's run; DIR/neighbours
 * round-trips and its reader refuses asymmetric lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_graphs.h"
#include "cm_idlist.h"
#include "cm_topo.h"
#include "dt_ckpt.h"
#include "dt_handoff.h"
#include "tg_repair.h"

START_TEST(idlist_parse_and_format)
{
    size_t *v = NULL, k = 0;
    char buf[64];
    ck_assert_int_eq(cm_idlist_parse("10-12,3,7", 0, "--x", &v, &k), CM_OK);
    ck_assert_uint_eq(k, 5);
    ck_assert_uint_eq(v[0], 3);
    ck_assert_uint_eq(v[4], 12);
    ck_assert_str_eq(cm_idlist_format(v, k, buf, sizeof buf), "3,7,10-12");
    free(v);
    const char *bad[] = {"", "3,,4", "5-3", "x", "3 4", "-1", "4,4", "3-",
                         "1,2-2,2", "0-999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(cm_idlist_parse(bad[i], 0, "--x", &v, &k),
                         CM_EINVAL);
        ck_assert_ptr_null(v);
        ck_assert(strstr(cm_last_error(), "--x") != NULL);
    }
    ck_assert_int_eq(cm_idlist_parse("64", 64, "--x", &v, &k), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "not below n = 64") != NULL);
}
END_TEST

START_TEST(repair_ring_stays_a_ring)
{
    cm_topo t, r;
    cm_topo_init(&t);
    ring(&t, 10);
    cm_topo_init(&r);
    const size_t rm[] = {2, 3, 7};
    tg_repair_info info;
    ck_assert_int_eq(tg_repair(&t, rm, 3, &r, &info), CM_OK);
    ck_assert_uint_eq(r.n, 7);
    for (size_t i = 0; i < r.n; i++)
        ck_assert_uint_eq(cm_topo_degree(&r, i), 2);
    ck_assert_uint_eq(info.components, 1);
    ck_assert_uint_eq(info.short_nodes, 0);
    /* old 1 and 4 (new 1 and 2) are joined across the removed 2, 3 */
    size_t x = cm_topo_edge_index(&r, 1, 2);
    ck_assert(x < r.m && r.ei[x] == 1 && r.ej[x] == 2);
    cm_topo_destroy(&r);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(repair_refuses_a_split)
{
    cm_topo t, r; /* a star: without its centre, leaves pair up apart */
    size_t ei[] = {0, 0, 0, 0}, ej[] = {1, 2, 3, 4};
    cm_topo_init(&t);
    cm_topo_init(&r);
    ck_assert_int_eq(cm_topo_from_edges(&t, 5, 4, ei, ej), CM_OK);
    const size_t rm[] = {0};
    tg_repair_info info;
    ck_assert_int_eq(tg_repair(&t, rm, 1, &r, &info), CM_ETOPO);
    ck_assert_uint_eq(info.components, 2);
    const size_t all[] = {0, 1, 2, 3};
    ck_assert_int_eq(tg_repair(&t, all, 4, &r, &info), CM_EINVAL);
    cm_topo_destroy(&r);
    cm_topo_destroy(&t);
}
END_TEST

/* n workers with 3 images each (worker w: 3w, 3w+1, 3w+2). */
static void shards(dt_partition *p, size_t n)
{
    dt_partition_init(p);
    p->n_workers = n;
    p->off = malloc((n + 1) * sizeof *p->off);
    p->idx = malloc(3 * n * sizeof *p->idx);
    ck_assert(p->off && p->idx);
    for (size_t w = 0; w <= n; w++)
        p->off[w] = 3 * w;
    for (size_t q = 0; q < 3 * n; q++)
        p->idx[q] = q;
}

START_TEST(handoff_round_robin_to_neighbours)
{
    cm_topo t;
    cm_topo_init(&t);
    ring(&t, 6);
    dt_partition p;
    shards(&p, 6);
    const size_t lost[] = {2};
    ck_assert_int_eq(dt_handoff_apply(&p, lost, 1, t.off, t.adj), CM_OK);
    ck_assert_uint_eq(p.n_workers, 5);
    /* worker 2's images 6, 7, 8 go to 1, 3, 1 (its neighbours, in order) */
    const size_t want_off[] = {0, 3, 8, 12, 15, 18};
    const size_t want_idx[] = {0, 1, 2, 3, 4, 5, 6, 8, 7, 9, 10, 11,
                               12, 13, 14, 15, 16, 17};
    for (size_t i = 0; i <= 5; i++)
        ck_assert_uint_eq(p.off[i], want_off[i]);
    for (size_t i = 0; i < 18; i++)
        ck_assert_uint_eq(p.idx[i], want_idx[i]);
    dt_partition_destroy(&p);
    /* no surviving neighbour: the survivors two hops away (0 and 4) */
    shards(&p, 6);
    const size_t three[] = {1, 2, 3};
    ck_assert_int_eq(dt_handoff_apply(&p, three, 3, t.off, t.adj), CM_OK);
    ck_assert_uint_eq(p.n_workers, 3);
    /* 1: 3, 4, 5 -> 0 (its only surviving neighbour) ... 2: 6 -> 0,
     * 7 -> 4, 8 -> 0 (0 and 4 two hops away); 3: 9, 10, 11 -> 4 */
    ck_assert_uint_eq(p.off[1], 3 + 3 + 2);
    ck_assert_uint_eq(p.off[2] - p.off[1], 3 + 3 + 1);
    ck_assert_uint_eq(p.off[3] - p.off[2], 3);
    dt_partition_destroy(&p);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(neighbours_file_round_trip)
{
    char dir[] = "/tmp/check_repair.XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    cm_topo t;
    cm_topo_init(&t);
    ring(&t, 5);
    ck_assert_int_eq(dt_ckpt_neighbours_write(dir, 5, t.off, t.adj, 0xabcu),
                     CM_OK);
    size_t n = 0, *off = NULL, *nb = NULL;
    uint64_t h = 0;
    ck_assert_int_eq(dt_ckpt_neighbours_read(dir, &n, &h, &off, &nb), CM_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_uint_eq(h, 0xabcu);
    ck_assert_mem_eq(off, t.off, 6 * sizeof *off);
    ck_assert_mem_eq(nb, t.adj, 10 * sizeof *nb);
    free(off);
    free(nb);
    /* a second write keeps the first topology */
    ck_assert_int_eq(dt_ckpt_neighbours_write(dir, 5, t.off, t.adj, 0x1u),
                     CM_OK);
    n = 5;
    ck_assert_int_eq(dt_ckpt_neighbours_read(dir, &n, &h, &off, &nb), CM_OK);
    ck_assert_uint_eq(h, 0xabcu);
    free(off);
    free(nb);
    snprintf(path, sizeof path, "%s/neighbours", dir);
    FILE *f = fopen(path, "w"); /* 0 lists 1, 1 does not list 0 */
    ck_assert_ptr_nonnull(f);
    fputs("# dpsgd-train neighbours n=2 topology=edges-and-weights-hash:"
          "0000000000000001\n0: 1\n1:\n", f);
    fclose(f);
    n = 0;
    ck_assert_int_eq(dt_ckpt_neighbours_read(dir, &n, &h, &off, &nb),
                     CM_EFORMAT);
    ck_assert(strstr(cm_last_error(), "not the reverse") != NULL);
    unlink(path);
    ck_assert_int_eq(dt_ckpt_neighbours_read(dir, &n, &h, &off, &nb),
                     CM_EIO);
    rmdir(dir);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(epoch_meta_names_the_run)
{
    char dir[] = "/tmp/check_repair.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    float x[3] = {1, 2, 3}, v[3] = {0, 0, 0}, *st[1] = {v};
    dt_ckpt_meta m = {.n_workers = 4, .worker = 2, .epoch = 5, .step = 50,
                      .fingerprint = 0x1234, .n_params = 3, .n_state = 1};
    ck_assert_int_eq(dt_ckpt_write(dir, &m, x, st), CM_OK);
    dt_ckpt_meta got;
    ck_assert_int_eq(dt_ckpt_epoch_meta(dir, 5, &got), CM_OK);
    ck_assert_uint_eq(got.n_workers, 4);
    ck_assert_uint_eq(got.fingerprint, 0x1234);
    ck_assert_int_eq(dt_ckpt_epoch_meta(dir, 6, &got), CM_EIO);
    char path[256];
    dt_ckpt_path(path, sizeof path, dir, 5, 2);
    unlink(path);
    snprintf(path, sizeof path, "%s/epoch-000005", dir);
    rmdir(path);
    rmdir(dir);
}
END_TEST

Suite *repair_suite(void)
{
    Suite *s = suite_create("repair");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, idlist_parse_and_format);
    tcase_add_test(tc, repair_ring_stays_a_ring);
    tcase_add_test(tc, repair_refuses_a_split);
    tcase_add_test(tc, handoff_round_robin_to_neighbours);
    tcase_add_test(tc, neighbours_file_round_trip);
    tcase_add_test(tc, epoch_meta_names_the_run);
    suite_add_tcase(s, tc);
    return s;
}
