/*
 * sim/cluster/cluster.c - the cluster: topology (types, nodes, racks, GPUs) and
 * which job holds each GPU (prefix clu_).
 *
 * Owns: every array in struct cluster (malloc'd, freed by clu_free) and
 * every string (in c->arena).
 *
 * GPU g lives on node gpu_node[g] at local index g - first_gpu.  Nodes of
 * the same GPU type and size form a group; within a group each node sits
 * in exactly one bucket, the one for its number of free GPUs.  Buckets are
 * intrusive doubly linked lists threaded through clu_node.bprev/bnext, so
 * moving a node when one of its GPUs is taken or released is O(1), and the
 * placement questions "a node with at least k free GPUs", "the fullest
 * node that still fits", "how many wholly free nodes" cost O(node size),
 * independent of the cluster's size.
 *
 * Invariants (clu_check verifies them):
 *   - gpu_job[g] == SIM_NONE  <=>  bit (g - first_gpu) of its node's
 *     free_mask is set;
 *   - node.nfree == popcount(node.free_mask), and the node is in bucket
 *     [group][nfree];
 *   - types[t].free_gpus == sum of nfree over nodes of type t.
 * Order inside a bucket: initially ascending node index; a node that
 * changes bucket goes to the head.  So placement is deterministic.
 */
#include "sim/cluster/cluster.h"

#include <stdlib.h>
#include <string.h>

void clu_init(struct cluster *c, const char *name)
{
    memset(c, 0, sizeof *c);
    c->arena = arena_new();
    c->name = arena_strndup(c->arena, name, strlen(name));
    c->path = c->name;
    c->ref_type = SIM_NONE;
}

/* The capacity of an array of n elements grown by grow_cap: 0 for none,
 * else the power of two >= n (at least 16), so that adding entries one
 * call at a time costs amortized O(1) instead of a copy per call. */
static size_t grow_cap(size_t n)
{
    size_t c = 16;
    while (c < n)
        c *= 2;
    return n ? c : 0;
}

static const char *type_name(const void *c, uint32_t t)
{
    return ((const struct cluster *)c)->types[t].name;
}

static const char *rack_name(const void *c, uint32_t r)
{
    return ((const struct cluster *)c)->racks[r];
}

uint32_t clu_type_find(const struct cluster *c, const char *name)
{
    return dl_names_find(&c->type_ix, name, type_name, c);
}

uint32_t clu_add_type(struct cluster *c, const char *name, double memory_gb,
                      double speed)
{
    if ((size_t)c->ntypes + 1 > grow_cap(c->ntypes))
        c->types = xrealloc(c->types, grow_cap((size_t)c->ntypes + 1) *
                                      sizeof *c->types);
    struct clu_type *t = &c->types[c->ntypes];
    memset(t, 0, sizeof *t);
    t->name = arena_strndup(c->arena, name, strlen(name));
    t->memory_gb = memory_gb;
    t->speed = speed;
    /* a repeated name stays found as its first index (cfg refuses
     * repeats) */
    dl_names_add(&c->type_ix, c->ntypes, type_name, c);
    return c->ntypes++;
}

/* The index of rack (interned on first use).  A hash index (rack_ix, at
 * most half full) keeps a cluster of many racks linear to build; a linear
 * search made a one-rack-per-node list of 100,000 nodes take 15 s. */
static uint32_t rack_intern(struct cluster *c, const char *rack)
{
    if (!rack)
        rack = "";
    uint32_t r = dl_names_find(&c->rack_ix, rack, rack_name, c);
    if (r != SIM_NONE)
        return r;
    if ((size_t)c->nracks + 1 > grow_cap(c->nracks))
        c->racks = xrealloc(c->racks, grow_cap((size_t)c->nracks + 1) *
                                      sizeof *c->racks);
    c->racks[c->nracks] = arena_strndup(c->arena, rack, strlen(rack));
    dl_names_add(&c->rack_ix, c->nracks, rack_name, c);
    return c->nracks++;
}

void clu_add_nodes(struct cluster *c, uint32_t count, uint32_t ngpus,
                   uint32_t type, const char *rack)
{
    DL_ASSERT(ngpus >= 1 && ngpus <= 64 && type < c->ntypes);
    uint32_t r = rack_intern(c, rack);
    size_t want = (size_t)c->nnodes + count;
    if (want > grow_cap(c->nnodes))
        c->nodes = xrealloc(c->nodes, grow_cap(want) * sizeof *c->nodes);
    for (uint32_t i = 0; i < count; i++) {
        struct clu_node *n = &c->nodes[c->nnodes++];
        memset(n, 0, sizeof *n);
        n->type = type;
        n->ngpus = ngpus;
        n->rack = r;
    }
}

/* ------------------------------------------------------ bucket lists */

static void bucket_unlink(struct cluster *c, uint32_t node)
{
    struct clu_node *n = &c->nodes[node];
    struct clu_group *g = &c->groups[n->group];
    if (n->bprev != SIM_NONE)
        c->nodes[n->bprev].bnext = n->bnext;
    else
        g->bucket_head[n->nfree] = n->bnext;
    if (n->bnext != SIM_NONE)
        c->nodes[n->bnext].bprev = n->bprev;
    g->bucket_count[n->nfree]--;
}

static void bucket_push(struct cluster *c, uint32_t node)
{
    struct clu_node *n = &c->nodes[node];
    struct clu_group *g = &c->groups[n->group];
    uint32_t head = g->bucket_head[n->nfree];
    n->bprev = SIM_NONE;
    n->bnext = head;
    if (head != SIM_NONE)
        c->nodes[head].bprev = node;
    g->bucket_head[n->nfree] = node;
    g->bucket_count[n->nfree]++;
}

static uint64_t full_mask(uint32_t ngpus)
{
    return ngpus == 64 ? ~UINT64_C(0) : (UINT64_C(1) << ngpus) - 1;
}

void clu_reset(struct cluster *c)
{
    for (uint32_t gi = 0; gi < c->ngroups; gi++) {
        struct clu_group *g = &c->groups[gi];
        for (uint32_t f = 0; f <= g->gpus_per_node; f++) {
            g->bucket_head[f] = SIM_NONE;
            g->bucket_count[f] = 0;
        }
    }
    for (uint32_t t = 0; t < c->ntypes; t++)
        c->types[t].free_gpus = c->types[t].total_gpus;
    /* push in reverse so each bucket lists nodes in ascending order */
    for (uint32_t i = c->nnodes; i-- > 0;) {
        struct clu_node *n = &c->nodes[i];
        n->nfree = n->ngpus;
        n->free_mask = full_mask(n->ngpus);
        bucket_push(c, i);
    }
    for (uint32_t g = 0; g < c->ngpus; g++)
        c->gpu_job[g] = SIM_NONE;
}

static int by_speed(const void *a, const void *b, void *types)
{
    const struct clu_type *ty = types;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    double sx = ty[x].speed, sy = ty[y].speed;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return (x > y) - (x < y);
}

void clu_finish(struct cluster *c)
{
    DL_ASSERT(c->ntypes > 0 && c->nnodes > 0 && !c->groups);
    dl_names_free(&c->rack_ix);
    if (c->ref_type == SIM_NONE)
        c->ref_type = 0;
    double ref = c->types[c->ref_type].speed;
    for (uint32_t t = 0; t < c->ntypes; t++) {
        c->types[t].speed /= ref;
        c->types[t].total_gpus = 0;
        c->types[t].max_node_gpus = 0;
    }
    uint64_t total = 0;
    /* groups are at most min(nodes, types x 64): index room for twice
     * that many */
    size_t gcap = 16;
    while (gcap < 2 * (size_t)c->nnodes && gcap < 2 * (size_t)c->ntypes * 65)
        gcap *= 2;
    uint32_t *gix = xcalloc(gcap, sizeof *gix), gmask = (uint32_t)gcap - 1;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        struct clu_node *n = &c->nodes[i];
        n->first_gpu = (uint32_t)total;
        total += n->ngpus;
        DL_ASSERT(total < SIM_NONE);
        c->types[n->type].total_gpus += n->ngpus;
        if (n->ngpus > c->types[n->type].max_node_gpus)
            c->types[n->type].max_node_gpus = n->ngpus;
        if (n->ngpus > c->max_node_gpus)
            c->max_node_gpus = n->ngpus;
        /* the group of (type, size): a hash index, as a cluster of many
         * types has as many groups (a scan per node was quadratic) */
        uint64_t key = (uint64_t)n->type * 65 + n->ngpus;
        uint32_t h = (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32);
        for (h &= gmask; gix[h] && !(c->groups[gix[h] - 1].type == n->type &&
                                     c->groups[gix[h] - 1].gpus_per_node ==
                                         n->ngpus);
             h = (h + 1) & gmask)
            ;
        uint32_t g = gix[h] ? gix[h] - 1 : c->ngroups;
        if (g == c->ngroups) {
            gix[h] = g + 1;
            if ((size_t)g + 1 > grow_cap(g))
                c->groups = xrealloc(c->groups, grow_cap((size_t)g + 1) *
                                                sizeof *c->groups);
            struct clu_group *ng = &c->groups[g];
            ng->type = n->type;
            ng->gpus_per_node = n->ngpus;
            ng->nnodes = 0;
            ng->bucket_head = xmalloc((n->ngpus + 1) * sizeof(uint32_t));
            ng->bucket_count = xmalloc((n->ngpus + 1) * sizeof(uint32_t));
            c->ngroups++;
        }
        n->group = g;
        c->groups[g].nnodes++;
    }
    free(gix);
    /* fastest first, ties by index (an insertion sort was quadratic in
     * the number of types) */
    c->type_order = xmalloc(c->ntypes * sizeof(uint32_t));
    for (uint32_t t = 0; t < c->ntypes; t++)
        c->type_order[t] = t;
    qsort_r(c->type_order, c->ntypes, sizeof *c->type_order, by_speed,
            c->types);
    c->ngpus = (uint32_t)total;
    c->gpu_node = xmalloc(c->ngpus * sizeof(uint32_t));
    c->gpu_job = xmalloc(c->ngpus * sizeof(uint32_t));
    for (uint32_t i = 0; i < c->nnodes; i++)
        for (uint32_t k = 0; k < c->nodes[i].ngpus; k++)
            c->gpu_node[c->nodes[i].first_gpu + k] = i;
    clu_reset(c);
}

void clu_free(struct cluster *c)
{
    for (uint32_t g = 0; g < c->ngroups; g++) {
        free(c->groups[g].bucket_head);
        free(c->groups[g].bucket_count);
    }
    free(c->groups);
    free(c->types);
    free(c->nodes);
    free(c->racks);
    dl_names_free(&c->rack_ix);
    dl_names_free(&c->type_ix);
    free(c->gpu_node);
    free(c->gpu_job);
    free(c->type_order);
    arena_free(c->arena);
    memset(c, 0, sizeof *c);
}

void clu_builtin_demo(struct cluster *c)
{
    clu_init(c, "demo-256");
    uint32_t v100 = clu_add_type(c, "V100", 32, 1.0);
    uint32_t p100 = clu_add_type(c, "P100", 16, 0.6);
    clu_add_nodes(c, 24, 8, v100, "r0");
    clu_add_nodes(c, 16, 4, p100, "r1");
    c->path = "builtin:demo-256";
    clu_finish(c);
}

/* ------------------------------------------------------ alloc/release */

/* The GPUs of one node come in a run (the list is sorted): the node moves
 * bucket once per run, not once per GPU.  That ends in the same state,
 * bucket order included: a node pushed to a bucket's head and unlinked
 * again leaves that bucket as it was, and the runs are taken in list
 * order, so each node reaches the head of its last bucket in the same
 * order as GPU by GPU.  A 1,000-GPU gang costs ~1,000 stores plus one
 * move per node. */
void clu_alloc(struct cluster *c, uint32_t job, const uint32_t *gpus, uint32_t n)
{
    uint32_t *gpu_job = c->gpu_job;
    for (uint32_t i = 0; i < n;) {
        DL_ASSERT(gpus[i] < c->ngpus);
        uint32_t node = c->gpu_node[gpus[i]], k = 0;
        struct clu_node *nd = &c->nodes[node];
        uint64_t bits = 0;
        do {
            uint32_t g = gpus[i];
            uint64_t bit = UINT64_C(1) << (g - nd->first_gpu);
            DL_ASSERT(gpu_job[g] == SIM_NONE && (nd->free_mask & bit));
            gpu_job[g] = job;
            bits |= bit;
            k++;
        } while (++i < n && gpus[i] < c->ngpus && c->gpu_node[gpus[i]] == node);
        bucket_unlink(c, node);
        nd->free_mask &= ~bits;
        nd->nfree -= k;
        bucket_push(c, node);
        c->types[nd->type].free_gpus -= k;
    }
}

void clu_release(struct cluster *c, const uint32_t *gpus, uint32_t n)
{
    uint32_t *gpu_job = c->gpu_job;
    for (uint32_t i = 0; i < n;) {
        DL_ASSERT(gpus[i] < c->ngpus);
        uint32_t node = c->gpu_node[gpus[i]], k = 0;
        struct clu_node *nd = &c->nodes[node];
        uint64_t bits = 0;
        do {
            uint32_t g = gpus[i];
            uint64_t bit = UINT64_C(1) << (g - nd->first_gpu);
            DL_ASSERT(gpu_job[g] != SIM_NONE && !((nd->free_mask | bits) & bit));
            gpu_job[g] = SIM_NONE;
            bits |= bit;
            k++;
        } while (++i < n && gpus[i] < c->ngpus && c->gpu_node[gpus[i]] == node);
        bucket_unlink(c, node);
        nd->free_mask |= bits;
        nd->nfree += k;
        bucket_push(c, node);
        c->types[nd->type].free_gpus += k;
    }
}

uint32_t clu_group_max_free(const struct cluster *c, uint32_t g)
{
    const struct clu_group *gr = &c->groups[g];
    for (uint32_t f = gr->gpus_per_node; f > 0; f--)
        if (gr->bucket_count[f])
            return f;
    return 0;
}

uint32_t clu_bucket_first(const struct cluster *c, uint32_t g, uint32_t f)
{
    return c->groups[g].bucket_head[f];
}

int clu_check(const struct cluster *c, char *why, size_t n)
{
    uint32_t *tfree = xcalloc(c->ntypes, sizeof *tfree);
    uint32_t *bcount = NULL;
    int rc = 0;
    for (uint32_t i = 0; i < c->nnodes && !rc; i++) {
        const struct clu_node *nd = &c->nodes[i];
        uint32_t nf = 0;
        for (uint32_t k = 0; k < nd->ngpus; k++) {
            int isfree = (nd->free_mask >> k) & 1;
            nf += isfree;
            if (isfree != (c->gpu_job[nd->first_gpu + k] == SIM_NONE)) {
                snprintf(why, n, "GPU %u: free bit and holder disagree",
                         nd->first_gpu + k);
                rc = DL_ECHECK;
            }
        }
        if (nf != nd->nfree && !rc) {
            snprintf(why, n, "node n%u: %u free GPUs counted, %u recorded", i,
                     nf, nd->nfree);
            rc = DL_ECHECK;
        }
        tfree[nd->type] += nf;
    }
    for (uint32_t t = 0; t < c->ntypes && !rc; t++)
        if (tfree[t] != c->types[t].free_gpus) {
            snprintf(why, n, "type %s: %u free GPUs counted, %u recorded",
                     c->types[t].name, tfree[t], c->types[t].free_gpus);
            rc = DL_ECHECK;
        }
    for (uint32_t gi = 0; gi < c->ngroups && !rc; gi++) {
        const struct clu_group *g = &c->groups[gi];
        bcount = xrealloc(bcount, (g->gpus_per_node + 1) * sizeof *bcount);
        for (uint32_t f = 0; f <= g->gpus_per_node && !rc; f++) {
            uint32_t cnt = 0;
            for (uint32_t nd = g->bucket_head[f]; nd != SIM_NONE;
                 nd = c->nodes[nd].bnext, cnt++)
                if (c->nodes[nd].nfree != f || c->nodes[nd].group != gi ||
                    cnt > c->nnodes) {
                    snprintf(why, n, "node n%u misfiled in bucket %u", nd, f);
                    rc = DL_ECHECK;
                    break;
                }
            if (!rc && cnt != g->bucket_count[f]) {
                snprintf(why, n, "bucket %u of group %u: count %u, listed %u",
                         f, gi, g->bucket_count[f], cnt);
                rc = DL_ECHECK;
            }
        }
    }
    free(bcount);
    free(tfree);
    return rc;
}

size_t clu_fmt_placement(const struct cluster *c, const uint32_t *gpus,
                         uint32_t n, char *buf, size_t len)
{
    /* segments "nNODE:LO-HI" (or "nNODE:G") joined by '+'; never a comma,
     * so the field needs no CSV quoting.  By hand: one per output row.
     * A segment is written in place while one of the longest still fits,
     * else through seg, cut where it no longer fits. */
    enum { SEG = 40 };
    size_t off = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t node = c->gpu_node[gpus[i]];
        uint32_t lo = gpus[i] - c->nodes[node].first_gpu, hi = lo;
        while (i + 1 < n && gpus[i + 1] == gpus[i] + 1 &&
               c->gpu_node[gpus[i + 1]] == node) {
            i++;
            hi++;
        }
        i++;
        char seg[SEG], *p = len - off > SEG ? buf + off : seg, *p0 = p;
        if (off)
            *p++ = '+';
        *p++ = 'n';
        p += dl_fmt_u64(p, node);
        *p++ = ':';
        p += dl_fmt_u64(p, lo);
        if (lo != hi) {
            *p++ = '-';
            p += dl_fmt_u64(p, hi);
        }
        size_t k = (size_t)(p - p0);
        if (p0 == seg) {
            if (off + k >= len)
                k = len - 1 - off;
            memcpy(buf + off, seg, k);
        }
        buf[off += k] = 0;
        if (off == len - 1)
            break;
    }
    return off;
}

bool clu_spread(const struct cluster *c, uint32_t t, const uint32_t *gpus,
                uint32_t n)
{
    uint32_t nodes = 1, big = c->types[t].max_node_gpus;
    for (uint32_t i = 1; i < n; i++)
        nodes += c->gpu_node[gpus[i]] != c->gpu_node[gpus[i - 1]];
    return nodes > (n + big - 1) / big;
}
