/*
 * tests/test_cluster.c - the cluster's free-GPU index and the placement
 * shared by all policies, checked against a brute-force model.
 */
#include "testutil.h"
#include "policies/policy.h"

#include <gsl/gsl_rng.h>

Test(cluster, alloc_release_index)
{
    struct cluster c;
    tu_simple_cluster(&c, 3, 8);
    char why[256];
    cr_assert_eq(c.ngpus, 24);
    cr_assert_eq(clu_group_max_free(&c, 0), 8);
    uint32_t g1[] = { 0, 1, 2 }, g2[] = { 8, 9, 10, 11, 12, 13, 14, 15 };
    clu_alloc(&c, 7, g1, 3);
    clu_alloc(&c, 8, g2, 8);
    cr_assert_eq(clu_check(&c, why, sizeof why), 0, "%s", why);
    cr_expect_eq(c.types[0].free_gpus, 13);
    cr_expect_eq(c.nodes[0].nfree, 5);
    cr_expect_eq(c.nodes[1].nfree, 0);
    cr_expect_eq(c.gpu_job[9], 8);
    cr_expect_eq(c.groups[0].bucket_count[8], 1);
    cr_expect_eq(c.groups[0].bucket_count[5], 1);
    cr_expect_eq(c.groups[0].bucket_count[0], 1);
    clu_release(&c, g2, 8);
    cr_assert_eq(clu_check(&c, why, sizeof why), 0, "%s", why);
    cr_expect_eq(c.groups[0].bucket_count[8], 2);
    char buf[64];
    uint32_t p[] = { 0, 1, 2, 3, 5, 8, 9 };
    clu_fmt_placement(&c, p, 7, buf, sizeof buf);
    cr_expect_str_eq(buf, "n0:0-3+n0:5+n1:0-1");
    clu_free(&c);
}

Test(cluster, check_detects_corruption)
{
    struct cluster c;
    tu_simple_cluster(&c, 2, 4);
    char why[256];
    c.gpu_job[3] = 42;          /* held, but the node says free */
    cr_expect_eq(clu_check(&c, why, sizeof why), DL_ECHECK);
    cr_expect(strstr(why, "GPU 3"), "%s", why);
    clu_free(&c);
}

Test(cluster, type_order_fastest_first)
{
    struct cluster c;
    clu_init(&c, "t");
    uint32_t a = clu_add_type(&c, "A", 16, 2.0);
    uint32_t b = clu_add_type(&c, "B", 16, 4.0);
    uint32_t k = clu_add_type(&c, "C", 16, 2.0);
    clu_add_nodes(&c, 1, 2, a, NULL);
    clu_add_nodes(&c, 1, 2, b, NULL);
    clu_add_nodes(&c, 1, 2, k, NULL);
    clu_finish(&c);
    cr_expect_float_eq(c.types[b].speed, 2.0, 1e-12);  /* relative to A */
    cr_expect_eq(c.type_order[0], b);
    cr_expect_eq(c.type_order[1], a);
    cr_expect_eq(c.type_order[2], k);
    uint32_t type, gpus[2];
    cr_assert(plc_find(&c, 2, SIM_NONE, PLC_CONSOLIDATED, &type, gpus));
    cr_expect_eq(type, b);
    cr_expect_eq(gpus[0], 2);
    clu_free(&c);
}

/* Brute force: can a gang of k fit on one node / whole nodes? */
static bool brute_consolidated(const struct cluster *c, uint32_t k)
{
    uint32_t whole = 0, best_partial = 0;
    uint32_t n = c->nodes[0].ngpus;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        if (c->nodes[i].nfree >= k)
            return true;
        if (c->nodes[i].nfree == n)
            whole++;
        else if (c->nodes[i].nfree > best_partial)
            best_partial = c->nodes[i].nfree;
    }
    if (k <= n)
        return false;
    uint32_t w = k / n, r = k % n;
    return whole >= w + (r && best_partial < r);
}

/* Random allocations and releases: the index stays consistent and
 * plc_find agrees with brute force, and returns free, distinct, sorted
 * GPUs of one node (or whole nodes). */
Test(cluster, placement_matches_brute_force)
{
    struct cluster c;
    tu_simple_cluster(&c, 6, 4);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    uint32_t held[64][24], nheld[64] = { 0 };
    char why[256];
    for (int step = 0; step < 4000; step++) {
        uint32_t slot = gsl_rng_uniform_int(r, 64);
        if (nheld[slot]) {
            clu_release(&c, held[slot], nheld[slot]);
            nheld[slot] = 0;
        } else {
            uint32_t k = 1 + gsl_rng_uniform_int(r, 12);
            for (int mode = 0; mode < 2; mode++) {
                bool want = mode ? c.types[0].free_gpus >= k
                                 : brute_consolidated(&c, k);
                uint32_t g[24];
                bool got = plc_find(&c, k, SIM_NONE, mode, NULL, g);
                cr_assert_eq(got, want, "step %d k=%u mode %d", step, k, mode);
                if (!got)
                    continue;
                for (uint32_t i = 0; i < k; i++) {
                    cr_assert_eq(c.gpu_job[g[i]], SIM_NONE);
                    cr_assert(i == 0 || g[i] > g[i - 1]);
                }
                if (mode == 0 && k <= 4)
                    cr_assert_eq(c.gpu_node[g[0]], c.gpu_node[g[k - 1]]);
                if (mode == 1 || !gsl_rng_uniform_int(r, 2)) {
                    clu_alloc(&c, slot, g, k);
                    memcpy(held[slot], g, k * sizeof *g);
                    nheld[slot] = k;
                    break;
                }
            }
        }
        cr_assert_eq(clu_check(&c, why, sizeof why), 0, "step %d: %s", step, why);
    }
    gsl_rng_free(r);
    clu_free(&c);
}

Test(cluster, ever_fits)
{
    struct cluster c;
    tu_simple_cluster(&c, 2, 8);
    cr_expect(plc_ever_fits(&c, 16, SIM_NONE, PLC_CONSOLIDATED));
    cr_expect(!plc_ever_fits(&c, 17, SIM_NONE, PLC_CONSOLIDATED));
    cr_expect(plc_ever_fits(&c, 12, SIM_NONE, PLC_POOL));
    cr_expect(!plc_ever_fits(&c, 3, 5, PLC_POOL));
    clu_free(&c);
}

Test(cluster, builtin_demo)
{
    struct cluster c;
    clu_builtin_demo(&c);
    cr_expect_eq(c.ngpus, 24 * 8 + 16 * 4);
    cr_expect_eq(c.ntypes, 2);
    cr_expect_float_eq(c.types[1].speed, 0.6, 1e-12);
    clu_free(&c);
}
