/*
 * policies/queue.c - the ordered queue of waiting jobs (prefix pq_).
 *
 * Jobs are kept in buckets of equal gang shape (ngpus, required type),
 * each bucket a binary min-heap on (key, seq); seq is the job index, so
 * equal keys leave in submit order (also after a preemption) and the order
 * is deterministic.
 * A trace has few distinct shapes (1, 2, 4, 8, 16, ... GPUs), so finding
 * the best job that fits now costs one placement test per bucket, not one
 * per queued job: this is what keeps backfilling O(shapes) per start even
 * with hundreds of thousands of jobs waiting.
 */
#include "policies/kit.h"

#include <stdlib.h>
#include <string.h>

void pq_init(struct pq *q)
{
    memset(q, 0, sizeof *q);
}

void pq_free(struct pq *q)
{
    for (size_t i = 0; i < q->nb; i++)
        free(q->st[i].base);
    free(q->st);
    free(q->b);
    free(q->slots);
    free(q->by_size);
    free(q->gpus);
    memset(q, 0, sizeof *q);
}

static inline bool less(const struct pq_item *a, const struct pq_item *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

HEAP_DEFINE(bh, struct pq_bucket, struct pq_item, less)

static uint32_t shape_hash(uint32_t ngpus, uint32_t req_type)
{
    uint64_t h = ((uint64_t)ngpus << 32 | req_type) * UINT64_C(0x9e3779b97f4a7c15);
    return (uint32_t)(h >> 40);
}

/* The bucket of a shape, found through a small open-addressing index
 * (slot = bucket + 1, 0 = empty, at most half full), created if new. */
static size_t bucket_of(struct pq *q, uint32_t ngpus, uint32_t req_type)
{
    size_t mask = q->nslots - 1, i;
    for (i = q->nslots ? shape_hash(ngpus, req_type) & mask : 0;
         q->nslots && q->slots[i]; i = (i + 1) & mask) {
        const struct pq_bucket *b = &q->b[q->slots[i] - 1];
        if (b->ngpus == ngpus && b->req_type == req_type)
            return q->slots[i] - 1;
    }
    xgrow(&q->b, &q->capb, q->nb + 1, sizeof *q->b);
    struct pq_bucket *b = &q->b[q->nb];
    memset(b, 0, sizeof *b);
    b->ngpus = ngpus;
    b->req_type = req_type;
    /* keep by_size sorted (ties: creation order); shapes are few */
    q->by_size = xrealloc(q->by_size, (q->nb + 1) * sizeof *q->by_size);
    size_t k = q->nb;
    while (k > 0 && q->b[q->by_size[k - 1]].ngpus > ngpus) {
        q->by_size[k] = q->by_size[k - 1];
        k--;
    }
    q->by_size[k] = (uint32_t)q->nb;
    q->st = xrealloc(q->st, (q->nb + 1) * sizeof *q->st);
    q->st[q->nb] = (struct pq_store){ NULL, false };
    q->nb++;
    if (2 * q->nb > q->nslots) {         /* rebuild, twice as large */
        free(q->slots);
        q->nslots = q->nslots ? 2 * q->nslots : 16;
        q->slots = xcalloc(q->nslots, sizeof *q->slots);
        for (size_t k = 0; k < q->nb; k++) {
            size_t j = shape_hash(q->b[k].ngpus, q->b[k].req_type) & (q->nslots - 1);
            while (q->slots[j])
                j = (j + 1) & (q->nslots - 1);
            q->slots[j] = (uint32_t)k + 1;
        }
    } else {
        q->slots[i] = (uint32_t)q->nb;
    }
    return q->nb - 1;
}

long pq_bucket(struct pq *q, uint32_t ngpus, uint32_t req_type)
{
    return (long)bucket_of(q, ngpus, req_type);
}

/* Bucket b's items (n of them) move to the start of its array s. */
static void bucket_rebase(struct pq_bucket *b, struct pq_store *s)
{
    size_t off = (size_t)(b->a - s->base);
    if (b->n)                   /* off >= n (bucket_room): apart */
        memcpy(s->base, b->a, b->n * sizeof *b->a);
    b->cap += off;
    b->a = s->base;
}

/* Bucket b (its array s) emptied: sorted again, from the start. */
static void bucket_reset(struct pq_bucket *b, struct pq_store *s)
{
    b->n = 0;
    bucket_rebase(b, s);
    s->heap = false;
}

/* Room for an item at a[n]: the items slide back to the start of the
 * array when as much room lies before them as they fill, else the array
 * grows (geometrically). */
static void bucket_room(struct pq_bucket *b, struct pq_store *s)
{
    if (b->n < b->cap)
        return;
    size_t off = (size_t)(b->a - s->base);
    if (off && off >= b->n) {
        bucket_rebase(b, s);
        return;
    }
    size_t total = off + b->cap;
    xgrow(&s->base, &total, off + b->n + 1, sizeof *s->base);
    b->a = s->base + off;
    b->cap = total - off;
}

void pq_clear(struct pq *q)
{
    for (size_t i = 0; i < q->nb; i++)
        bucket_reset(&q->b[i], &q->st[i]);
    q->size = 0;
    q->min_ok = false;
}

void pq_push(struct pq *q, uint32_t job, uint32_t ngpus, uint32_t req_type,
             double key)
{
    pq_push_prio(q, job, ngpus, req_type, 0, key);
}

void pq_push_prio(struct pq *q, uint32_t job, uint32_t ngpus,
                  uint32_t req_type, int32_t prio, double key)
{
    /* ties by job index, i.e. by submit time: a preempted job keeps its
     * place among equals */
    struct pq_item it = { key, job, job, prio };
    pq_push_item(q, &it, ngpus, req_type);
}

void pq_push_item(struct pq *q, const struct pq_item *item, uint32_t ngpus,
                  uint32_t req_type)
{
    size_t bi = bucket_of(q, ngpus, req_type);   /* may move q->b */
    struct pq_bucket *b = &q->b[bi];
    struct pq_store *s = &q->st[bi];
    bucket_room(b, s);          /* bh_push then never grows a */
    if (!s->heap && b->n && less(item, &b->a[b->n - 1]))
        s->heap = true;         /* out of order: a heap from now on */
    if (s->heap)
        bh_push(b, *item);
    else
        b->a[b->n++] = *item;
    q->size++;
    /* the smallest head changes only if the item heads its bucket now
     * (the order is total: seq tells apart equal keys) */
    if (q->min_ok && (q->min < 0 || less(&b->a[0], &q->b[q->min].a[0])))
        q->min = (long)bi;
}

struct pq_item pq_pop(struct pq *q, long bi)
{
    struct pq_bucket *b = &q->b[bi];
    DL_ASSERT(b->n > 0);
    q->size--;
    q->min_ok = false;
    struct pq_store *s = &q->st[bi];
    if (s->heap) {
        struct pq_item top = bh_pop(b);
        s->heap = b->n != 0;    /* empty: sorted again */
        return top;
    }
    b->n--;                     /* sorted: the next is the first */
    b->cap--;
    return *b->a++;
}

static long min_scan(const struct pq *q)
{
    long best = -1;
    for (size_t i = 0; i < q->nb; i++)
        if (q->b[i].n && (best < 0 || less(&q->b[i].a[0], &q->b[best].a[0])))
            best = (long)i;
    return best;
}

long pq_min_bucket(struct pq *q)
{
    if (!q->min_ok) {           /* kept over pushes until the next pop */
        q->min = min_scan(q);
        q->min_ok = true;
    }
    return q->min;
}

long pq_fill(struct pq *q, const struct pol_view *v, struct pol_ctx *x,
             enum plc_mode mode, bool backfill,
             void (*started)(void *st, const struct pol_view *v, uint32_t job),
             void *st)
{
    long n = 0;
    while (q->size) {
        long best = -1;
        if (!backfill) {
            /* the head, placed at once (one search, not a test and then
             * the placement) */
            best = pq_min_bucket(q);
            const struct pq_bucket *b = &q->b[best];
            xgrow(&q->gpus, &q->gcap, b->ngpus, sizeof *q->gpus);
            if (!pol_place(v, b->ngpus, b->req_type, mode, NULL, q->gpus))
                break;
        } else {
            /* the smallest head among the buckets whose shape fits now;
             * buckets by size, so the scan stops at the free GPU count.
             * Each candidate is only tested (a test costs little, a
             * placement of a gang much more: it is placed once, below) */
            uint64_t free_gpus = 0;
            for (uint32_t t = 0; t < v->clu->ntypes; t++)
                free_gpus += v->clu->types[t].free_gpus;
            for (size_t k = 0; k < q->nb; k++) {
                size_t i = q->by_size[k];
                const struct pq_bucket *b = &q->b[i];
                if (b->ngpus > free_gpus)
                    break;
                if (!b->n || (best >= 0 && !less(&b->a[0], &q->b[best].a[0])))
                    continue;
                if (pol_place(v, b->ngpus, b->req_type, mode, NULL, NULL))
                    best = (long)i;
            }
            if (best < 0)
                break;
            const struct pq_bucket *b = &q->b[best];
            xgrow(&q->gpus, &q->gcap, b->ngpus, sizeof *q->gpus);
            bool ok = pol_place(v, b->ngpus, b->req_type, mode, NULL, q->gpus);
            DL_ASSERT(ok);
        }
        struct pq_item it = pq_pop(q, best);
        int rc = pol_start(x, it.job, q->gpus);
        if (rc)
            return rc;
        if (started)
            started(st, v, it.job);
        n++;
    }
    return n;
}
