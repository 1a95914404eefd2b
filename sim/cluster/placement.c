/*
 * sim/placement.c - where a gang of GPUs goes (prefix plc_), part of the
 * cluster layer: shared by every policy (through the contract's services,
 * sim/policy.h) and by the engine's admission, so that policies differ only
 * in order, never in placement.
 *
 * Reads the cluster's free-GPU index (sim/cluster/cluster.c): per group of nodes of
 * one type and size, buckets of nodes by free-GPU count.  Every query costs
 * O(groups x node size) plus the GPUs it returns, independent of how many
 * nodes the cluster has.  Nothing here changes the cluster.
 *
 * Types are tried fastest first (cluster.type_order); a gang never mixes
 * GPU types.  Within a node the lowest free GPU indices are taken.
 */
#include "sim/cluster/cluster.h"

#include <stdlib.h>

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Takes up to want free GPUs of node (lowest first) into out; returns how
 * many it took. */
static uint32_t take(const struct cluster *c, uint32_t node, uint32_t want,
                     uint32_t *out)
{
    const struct clu_node *n = &c->nodes[node];
    uint64_t m = n->free_mask;
    uint32_t k = 0;
    while (m && k < want) {
        int bit = __builtin_ctzll(m);
        m &= m - 1;
        if (out)
            out[k] = n->first_gpu + (uint32_t)bit;
        k++;
    }
    return k;
}

/* Nodes nd[0..m) (distinct) give their GPUs into nd itself, sorted: each
 * all its free GPUs but node last, which gives last_want; ngpus in all.
 * The node ids are sorted (nodes hold increasing GPU ranges), then each
 * node's GPUs are written from the back: node i's GPUs start at or after
 * index i, so no unread node id is overwritten.  O(m log m + ngpus),
 * where sorting the GPUs was O(ngpus log ngpus). */
static void give_sorted(const struct cluster *c, uint32_t *nd, uint32_t m,
                        uint32_t last, uint32_t last_want, uint32_t ngpus)
{
    if (m <= 16) {              /* insertion: a few nodes */
        for (uint32_t i = 1; i < m; i++) {
            uint32_t x = nd[i], k = i;
            for (; k > 0 && nd[k - 1] > x; k--)
                nd[k] = nd[k - 1];
            nd[k] = x;
        }
    } else if (ngpus - m >= m) {
        dl_sort_u32(nd, m, nd + m); /* the GPUs' room past the ids */
    } else {
        qsort(nd, m, sizeof *nd, cmp_u32);
    }
    uint32_t off = ngpus;
    for (uint32_t i = m; i-- > 0;) {
        uint32_t node = nd[i];
        uint32_t w = node == last ? last_want
                                  : (uint32_t)__builtin_popcountll(c->nodes[node].free_mask);
        DL_ASSERT(w >= 1 && off >= w && off - w >= i);
        off -= w;
        take(c, node, w, nd + off);
    }
    DL_ASSERT(off == 0);
}

/* The fullest partially free node of group g with at least need free
 * GPUs (need <= f < node size), or SIM_NONE. */
static uint32_t partial_fit(const struct cluster *c, uint32_t g, uint32_t need)
{
    const struct clu_group *gr = &c->groups[g];
    for (uint32_t f = need; f < gr->gpus_per_node; f++)
        if (gr->bucket_count[f])
            return clu_bucket_first(c, g, f);
    return SIM_NONE;
}

static bool place_single(const struct cluster *c, uint32_t ngpus, uint32_t t,
                         uint32_t *gpus)
{
    /* the fullest node of any size that fits; ties: group order */
    uint32_t best = SIM_NONE, best_free = UINT32_MAX;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        const struct clu_group *gr = &c->groups[g];
        if (gr->type != t || gr->gpus_per_node < ngpus)
            continue;
        for (uint32_t f = ngpus; f <= gr->gpus_per_node && f < best_free; f++)
            if (gr->bucket_count[f]) {
                best = clu_bucket_first(c, g, f);
                best_free = f;
                break;
            }
    }
    if (best == SIM_NONE)
        return false;
    if (gpus)
        take(c, best, ngpus, gpus);
    return true;
}

static bool place_multi(const struct cluster *c, uint32_t ngpus, uint32_t t,
                        uint32_t *gpus)
{
    /* the group with the largest nodes that can take the gang: fewest
     * nodes per gang */
    uint32_t bestg = SIM_NONE, bestn = 0;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        const struct clu_group *gr = &c->groups[g];
        if (gr->type != t || gr->gpus_per_node >= ngpus || gr->gpus_per_node <= bestn)
            continue;
        uint32_t n = gr->gpus_per_node, whole = ngpus / n, rem = ngpus % n;
        uint32_t avail = gr->bucket_count[n];
        if (avail >= whole && (rem == 0 || avail > whole ||
                               partial_fit(c, g, rem) != SIM_NONE)) {
            bestg = g;
            bestn = n;
        }
    }
    if (bestg == SIM_NONE)
        return false;
    if (!gpus)
        return true;
    uint32_t n = bestn, whole = ngpus / n, rem = ngpus % n, k = 0;
    /* the remainder goes to the fullest partially free node that fits, so
     * that it does not use up a whole node */
    uint32_t remnode = rem ? partial_fit(c, bestg, rem) : SIM_NONE;
    uint32_t nd = clu_bucket_first(c, bestg, n);
    for (uint32_t i = 0; i < whole; i++, nd = clu_bucket_next(c, nd))
        gpus[k++] = nd;
    if (rem)
        gpus[k++] = remnode != SIM_NONE ? remnode : nd;
    give_sorted(c, gpus, k, rem ? gpus[k - 1] : SIM_NONE, rem, ngpus);
    return true;
}

static bool place_pool(const struct cluster *c, uint32_t ngpus, uint32_t t,
                       uint32_t *gpus)
{
    if (c->types[t].free_gpus < ngpus)
        return false;
    if (!gpus)
        return true;
    uint32_t k = 0, m = 0, last = SIM_NONE, last_want = 0;
    /* fullest nodes first, to keep whole nodes free for big gangs; each
     * gives all its free GPUs but the last, which gives what is left */
    for (uint32_t f = 1; f <= c->max_node_gpus && k < ngpus; f++)
        for (uint32_t g = 0; g < c->ngroups && k < ngpus; g++) {
            if (c->groups[g].type != t || c->groups[g].gpus_per_node < f)
                continue;
            for (uint32_t nd = clu_bucket_first(c, g, f);
                 nd != SIM_NONE && k < ngpus; nd = clu_bucket_next(c, nd)) {
                uint32_t w = f < ngpus - k ? f : ngpus - k;
                gpus[m++] = nd;         /* m <= k: no GPU written yet */
                k += w;
                last = nd;
                last_want = w;
            }
        }
    DL_ASSERT(k == ngpus);
    give_sorted(c, gpus, m, last, last_want, ngpus);
    return true;
}

static bool place_type(const struct cluster *c, uint32_t ngpus, uint32_t t,
                       enum plc_mode mode, uint32_t *gpus)
{
    if (c->types[t].free_gpus < ngpus)
        return false;
    if (mode == PLC_POOL)
        return place_pool(c, ngpus, t, gpus);
    /* a gang that fits some node of its type waits for one: it is never
     * split over smaller nodes */
    for (uint32_t g = 0; g < c->ngroups; g++)
        if (c->groups[g].type == t && c->groups[g].gpus_per_node >= ngpus)
            return place_single(c, ngpus, t, gpus);
    return place_multi(c, ngpus, t, gpus);
}

bool plc_find(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
              enum plc_mode mode, uint32_t *type, uint32_t *gpus)
{
    for (uint32_t i = 0; i < c->ntypes; i++) {
        uint32_t t = req_type != SIM_NONE ? req_type : c->type_order[i];
        if (place_type(c, ngpus, t, mode, gpus)) {
            if (type)
                *type = t;
            return true;
        }
        if (req_type != SIM_NONE)
            break;
    }
    return false;
}

bool plc_ever_fits(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
                   enum plc_mode mode)
{
    for (uint32_t t = 0; t < c->ntypes; t++) {
        if (req_type != SIM_NONE && t != req_type)
            continue;
        if (c->types[t].total_gpus < ngpus)
            continue;
        if (mode == PLC_POOL)
            return true;
        for (uint32_t g = 0; g < c->ngroups; g++) {
            const struct clu_group *gr = &c->groups[g];
            if (gr->type != t)
                continue;
            uint32_t n = gr->gpus_per_node;
            if (ngpus <= n)
                return true;
            /* whole nodes plus one for the remainder */
            if ((uint64_t)gr->nnodes >= ngpus / n + (ngpus % n != 0))
                return true;
        }
    }
    return false;
}
