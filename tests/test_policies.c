/*
 * tests/test_policies.c - policy parsing, the ordered queue, and the
 * victim index of srtf, each against a hand computation or brute force.
 */
#include "testutil.h"
#include "policies/policy.h"

#include <gsl/gsl_rng.h>

Test(policies, parse_defaults_and_overrides)
{
    const struct policy *p;
    struct pol_args a;
    struct dl_error err;
    cr_assert_eq(pol_parse("srtf", &p, &a, &err), 0);
    cr_expect_str_eq(p->name, "srtf");
    cr_expect_str_eq(pol_arg_str(&a, "placement"), "consolidated");
    cr_expect_str_eq(pol_arg_str(&a, "preempt_cost"), "0");
    cr_assert_eq(pol_parse("fifo:backfill=1,placement=pool", &p, &a, &err), 0);
    cr_expect_str_eq(pol_arg_str(&a, "backfill"), "1");
    enum plc_mode m;
    cr_expect_eq(pol_arg_placement(&a, &m, &err), 0);
    cr_expect_eq(m, PLC_POOL);
    cr_expect_eq(pol_parse("fifo:backfill", &p, &a, &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "not key=value"), "%s", err.msg);
    cr_expect_eq(pol_parse("nope:x=1", &p, &a, &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "valid: fifo, sjf, srtf"), "%s", err.msg);
    long v;
    /* a key given twice is an error naming it, not "the last one wins" */
    cr_expect_eq(pol_parse("fifo:backfill=1,backfill=0", &p, &a, &err),
                 DL_EINPUT);
    cr_expect(strstr(err.msg, "option 'backfill' given twice"), "%s", err.msg);
    cr_expect_eq(pol_parse("srtf:placement=pool,preempt_cost=1,placement=pool",
                           &p, &a, &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "'placement'"), "%s", err.msg);
    cr_assert_eq(pol_parse("fifo:backfill=2", &p, &a, &err), 0);
    cr_expect_eq(pol_arg_long(&a, "backfill", 0, 1, &v, &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "backfill=2"), "%s", err.msg);
    for (const struct policy *const *q = pol_table; *q; q++) {
        cr_expect((*q)->summary && (*q)->blocking && (*q)->schedule && (*q)->enqueue,
                  "%s is incomplete", (*q)->name);
        cr_expect_eq(pol_find((*q)->name), *q);
    }
}

Test(policies, queue_orders_and_buckets)
{
    struct pq q;
    pq_init(&q);
    /* (job, gpus, key) */
    pq_push(&q, 0, 1, SIM_NONE, 5);
    pq_push(&q, 1, 4, SIM_NONE, 2);
    pq_push(&q, 2, 1, SIM_NONE, 2);
    pq_push(&q, 3, 1, SIM_NONE, 5);
    pq_push(&q, 4, 1, 0, 1);
    cr_expect_eq(q.nb, 3);
    uint32_t order[5];
    for (int i = 0; i < 5; i++) {
        long b = pq_min_bucket(&q);
        order[i] = pq_pop(&q, b).job;
    }
    /* key order, ties by insertion: 4(1) 1(2) 2(2) 0(5) 3(5) */
    uint32_t want[] = { 4, 1, 2, 0, 3 };
    for (int i = 0; i < 5; i++)
        cr_expect_eq(order[i], want[i], "position %d: job %u", i, order[i]);
    cr_expect_eq(pq_min_bucket(&q), -1);
    pq_free(&q);
}

/* The queue against brute force over random operations: runs of pushes
 * in key order (a bucket kept sorted, popped by stepping forward), pushes
 * out of order (a heap from then on), items put back, pops of the
 * smallest head (pq_min_bucket, kept over pushes) and of other buckets'
 * heads, and clears; every pop is the smallest (prio, key, seq) of its
 * bucket, and every head the one brute force finds.  Sizes cross the
 * array's slides and growths. */
struct bf_item {
    struct pq_item it;
    uint32_t bucket;            /* its GPUs: one bucket a shape */
    bool in;
};

static long bf_min(const struct bf_item *a, size_t n, long bucket)
{
    long best = -1;
    for (size_t i = 0; i < n; i++) {
        const struct pq_item *x = &a[i].it, *y = best < 0 ? NULL : &a[best].it;
        if (!a[i].in || (bucket >= 0 && a[i].bucket != (uint32_t)bucket))
            continue;
        if (!y || x->prio > y->prio ||
            (x->prio == y->prio && (x->key < y->key ||
                                    (x->key == y->key && x->seq < y->seq))))
            best = (long)i;
    }
    return best;
}

Test(policies, queue_against_brute_force)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    static const uint32_t shapes[] = { 1, 2, 4, 8 };
    size_t cap = 200000;
    struct bf_item *a = calloc(cap, sizeof *a);
    for (unsigned seed = 1; seed <= 40; seed++) {
        gsl_rng_set(rng, seed);
        struct pq q;
        pq_init(&q);
        size_t n = 0, live = 0;
        double clock = 0;
        int ops = 1000 + (int)gsl_rng_uniform_int(rng, 4000);
        for (int op = 0; op < ops; op++) {
            unsigned r = (unsigned)gsl_rng_uniform_int(rng, 100);
            if (r < 55 && n < cap) {        /* a push, mostly in order */
                bool ordered = gsl_rng_uniform(rng) < 0.9;
                clock += gsl_rng_uniform_int(rng, 3);
                double key = ordered ? clock : clock - gsl_rng_uniform_int(rng, 50);
                uint32_t sh = (uint32_t)gsl_rng_uniform_int(rng, 4);
                int32_t prio = gsl_rng_uniform(rng) < 0.05 ? 1 : 0;
                a[n] = (struct bf_item){ { key, n, (uint32_t)n, prio },
                                         shapes[sh], true };
                pq_push_prio(&q, (uint32_t)n, shapes[sh], SIM_NONE, prio, key);
                n++, live++;
                /* a look at the smallest head (kept over the push) */
                long b = pq_min_bucket(&q), want = bf_min(a, n, -1);
                cr_assert_eq(pq_head(&q, b)->job, a[want].it.job,
                             "seed %u op %d: smallest head %u, want %u", seed,
                             op, pq_head(&q, b)->job, a[want].it.job);
            } else if (r < 97 && live) {    /* a pop */
                long b;
                if (r < 85) {
                    b = pq_min_bucket(&q);
                } else {                    /* another bucket's head */
                    do
                        b = pq_bucket(&q, shapes[gsl_rng_uniform_int(rng, 4)],
                                      SIM_NONE);
                    while (!q.b[b].n);
                }
                cr_assert_geq(b, 0);
                long want = bf_min(a, n, r < 85 ? -1 : (long)q.b[b].ngpus);
                cr_assert_eq(pq_head(&q, b)->job, a[want].it.job,
                             "seed %u op %d: head %u, want %u", seed, op,
                             pq_head(&q, b)->job, a[want].it.job);
                struct pq_item it = pq_pop(&q, b);
                cr_assert_eq(it.job, a[want].it.job, "seed %u op %d", seed, op);
                a[want].in = false;
                live--;
                if (gsl_rng_uniform(rng) < 0.1) {   /* put back */
                    pq_push_item(&q, &it, q.b[b].ngpus, SIM_NONE);
                    a[want].in = true;
                    live++;
                }
            } else if (r >= 99) {           /* clear */
                pq_clear(&q);
                for (size_t i = 0; i < n; i++)
                    a[i].in = false;
                live = 0;
            }
            cr_assert_eq(q.size, live);
        }
        while (live) {                      /* drain in order */
            long b = pq_min_bucket(&q), want = bf_min(a, n, -1);
            cr_assert_eq(pq_pop(&q, b).job, a[want].it.job, "seed %u drain", seed);
            a[want].in = false;
            live--;
        }
        cr_expect_eq(pq_min_bucket(&q), -1);
        pq_free(&q);
    }
    free(a);
    gsl_rng_free(rng);
}

/* Brute force of the victim index: for each node of size >= d, stop its
 * jobs latest finish first until d GPUs are free; the threshold is the
 * finish time of the last one stopped (+inf if d were free already). */
static simtime_t brute_threshold(const struct pol_view *v, uint32_t nd, uint32_t d)
{
    const struct clu_node *n = &v->clu->nodes[nd];
    if (n->nfree >= d)
        return SIM_NEVER;
    uint32_t acc = n->nfree;
    simtime_t last = SIM_NEVER;
    bool used[64] = { false };
    while (acc < d) {
        /* the latest-finishing job on the node not yet counted */
        uint32_t best = SIM_NONE;
        for (uint32_t i = 0; i < n->ngpus; i++) {
            uint32_t j = v->clu->gpu_job[n->first_gpu + i];
            if (j == SIM_NONE || used[j])
                continue;
            simtime_t fj = pol_rt(v, j)->finish_at;
            if (best == SIM_NONE || fj > pol_rt(v, best)->finish_at ||
                (fj == pol_rt(v, best)->finish_at && j > best))
                best = j;
        }
        used[best] = true;
        for (uint32_t i = 0; i < n->ngpus; i++)
            acc += v->clu->gpu_job[n->first_gpu + i] == best;
        last = pol_rt(v, best)->finish_at;
    }
    return last;
}

static bool any_job(const struct pol_view *v, uint32_t job, void *ctx)
{
    (void)v, (void)job, (void)ctx;
    return true;
}

static bool ends_after_10(const struct pol_view *v, uint32_t job, void *ctx)
{
    (void)ctx;
    return job == SIM_NONE || pol_rt(v, job)->finish_at > 10;
}

/* Types A and B (16 GB, speed 1) with na[i] nodes of sa[i] GPUs of A and
 * nb[i] of sb[i] of B (two groups of each at most, counts 0 skipped). */
static void two_types(struct cluster *c, const char *name, const uint32_t na[2],
                      const uint32_t sa[2], const uint32_t nb[2],
                      const uint32_t sb[2])
{
    clu_init(c, name);
    uint32_t a = clu_add_type(c, "A", 16, 1), b = clu_add_type(c, "B", 16, 1);
    for (int i = 0; i < 2; i++) {
        if (na[i])
            clu_add_nodes(c, na[i], sa[i], a, NULL);
    }
    for (int i = 0; i < 2; i++) {
        if (nb[i])
            clu_add_nodes(c, nb[i], sb[i], b, NULL);
    }
    clu_finish(c);
}

static void count_mark(void *ctx, uint32_t nd)
{
    ((uint32_t *)ctx)[nd]++;
}

static int64_t key_five(const void *ctx, const struct pol_view *v, uint32_t j)
{
    (void)ctx, (void)v, (void)j;
    return 5;
}

/* Node lists keep nothing before their first read; kept, they stop after
 * more unread changes than nodes plus 64, and the change that stops them
 * marks every node (each may have changed unseen from then on); a read
 * makes them again. */
Test(policies, node_lists_kept_only_while_read)
{
    struct cluster c;
    two_types(&c, "lists", (uint32_t[]){ 5, 3 }, (uint32_t[]){ 4, 8 },
              (uint32_t[]){ 2, 0 }, (uint32_t[]){ 2, 0 });
    struct job_rt slots[2], *rt = slots + 1;
    struct trc_job job;
    uint32_t slot = 1, gpu = 0;
    uint8_t st = JOB_RUNNING;
    memset(slots, 0, sizeof slots);
    memset(&job, 0, sizeof job);
    job.num_gpus = 1;
    rt->gpus = &gpu;
    clu_alloc(&c, 0, &gpu, 1);
    struct pol_view v = { .now = 0, .clu = &c, .jobs = &job, .rts = slots,
                          .rt_slot = &slot, .state = &st, .njobs = 1 };
    uint32_t *marks = calloc(c.nnodes, sizeof *marks), total = 0;
    struct vic_lists l;
    vic_lists_init(&l, &c);
    vic_lists_job(&l, &v, 0, true, 5, count_mark, marks);
    for (uint32_t nd = 0; nd < c.nnodes; nd++)
        cr_assert_eq(marks[nd], 0, "marked before the first read");
    vic_lists_read(&l, &v, key_five, NULL);
    cr_assert(vic_lists_match(&l, &v, 0, key_five, NULL));
    uint32_t limit = c.nnodes + 64;
    for (uint32_t k = 0; k < limit; k++)
        vic_lists_job(&l, &v, 0, true, 5, count_mark, marks);
    cr_assert_eq(marks[0], limit);
    for (uint32_t nd = 1; nd < c.nnodes; nd++)
        cr_assert_eq(marks[nd], 0);
    cr_assert(!l.unkept);
    vic_lists_job(&l, &v, 0, true, 5, count_mark, marks);  /* the one over */
    cr_assert(l.unkept);
    for (uint32_t nd = 0; nd < c.nnodes; nd++)
        total += marks[nd];
    cr_assert_eq(total, limit + c.nnodes, "every node marked once more");
    vic_lists_job(&l, &v, 0, true, 5, count_mark, marks);  /* unkept: none */
    cr_assert_eq(marks[0], limit + 1);
    vic_lists_read(&l, &v, key_five, NULL);
    cr_assert(!l.unkept);
    for (uint32_t nd = 0; nd < c.nnodes; nd++)
        cr_assert(vic_lists_match(&l, &v, nd, key_five, NULL));
    vic_lists_free(&l);
    free(marks);
    clu_free(&c);
}

Test(policies, victim_index_matches_brute_force)
{
    struct cluster c;
    two_types(&c, "vic", (uint32_t[]){ 5, 3 }, (uint32_t[]){ 4, 8 },
              (uint32_t[]){ 2, 0 }, (uint32_t[]){ 2, 0 });
    enum { NJ = 64 };
    struct job_rt slots[NJ + 1], *rt = slots + 1;  /* slot 0: no job */
    struct trc_job jobs[NJ];
    uint32_t gpus[NJ][8];
    uint32_t slot[NJ];          /* job j's run state in rt[j] */
    uint8_t st[NJ];
    memset(slots, 0, sizeof slots);
    memset(st, 0, sizeof st);
    memset(jobs, 0, sizeof jobs);
    for (uint32_t j = 0; j < NJ; j++)
        slot[j] = j + 1;
    struct pol_view v = { .now = 0, .clu = &c, .jobs = jobs, .rts = slots,
                          .rt_slot = slot, .state = st, .njobs = NJ };
    struct vic_index *x = vic_new(&c);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int step = 0; step < 3000; step++) {
        uint32_t j = gsl_rng_uniform_int(r, NJ);
        if (st[j] == JOB_RUNNING) {
            clu_release(&c, rt[j].gpus, jobs[j].num_gpus);
            st[j] = JOB_DONE;
            vic_touch_job(x, &v, j);
        } else {
            uint32_t want = 1 + gsl_rng_uniform_int(r, 4), t, got[8];
            /* spread gangs sometimes, so one job spans nodes */
            if (plc_find(&c, want, SIM_NONE, gsl_rng_uniform_int(r, 2), &t, got)) {
                jobs[j].num_gpus = want;
                rt[j].gpus = gpus[j];
                memcpy(gpus[j], got, want * sizeof *got);
                st[j] = JOB_RUNNING;
                rt[j].type = t;
                /* few distinct times, to exercise ties */
                rt[j].finish_at = 1 + gsl_rng_uniform_int(r, 20);
                clu_alloc(&c, j, got, want);
                vic_touch_job(x, &v, j);
            }
        }
        /* two spells ask nothing: the index keeps no list before its
         * first read, and stops keeping them after more changes than
         * nodes unread; each read after either makes them all */
        if (step < 200 || (step >= 1000 && step < 1400))
            continue;
        for (uint32_t t = 0; t < c.ntypes; t++)
            for (uint32_t d = 1; d <= 8; d++) {
                simtime_t best = INT64_MIN;
                uint32_t bnode = SIM_NONE;
                for (uint32_t nd = 0; nd < c.nnodes; nd++) {
                    if (c.nodes[nd].type != t || c.nodes[nd].ngpus < d)
                        continue;
                    simtime_t th = brute_threshold(&v, nd, d);
                    if (th > best) {
                        best = th;
                        bnode = nd;
                    }
                }
                uint32_t tj, node = vic_best_node(x, &v, d, t, &tj);
                cr_assert_eq(node, bnode, "step %d type %u d=%u: node %u, brute %u",
                             step, t, d, node, bnode);
                if (node != SIM_NONE && best != SIM_NEVER)
                    cr_assert_eq(rt[tj].finish_at, best);
                /* the index's kept list of the node gives the victims that
                 * its GPUs give */
                if (node != SIM_NONE) {
                    uint32_t kept[8], made[8];
                    uint32_t nk = vic_victims(x, &v, node, d, kept);
                    uint32_t nm = vic_node_victims(&v, node, d, made);
                    cr_assert_eq(nk, nm, "step %d node %u d=%u", step, node, d);
                    for (uint32_t i = 0; i < nk; i++)
                        cr_assert_eq(kept[i], made[i]);
                    if (best != SIM_NEVER)
                        cr_assert_eq(kept[nk - 1], tj);
                }
                /* and the top-k walk agrees on the order of thresholds */
                uint32_t nodes[8], tjs[8];
                uint32_t grp = c.nodes[node == SIM_NONE ? 0 : node].group;
                if (node != SIM_NONE && c.groups[grp].gpus_per_node >= d) {
                    uint32_t k = vic_top_nodes(x, &v, grp, d, 8, nodes, tjs,
                                               any_job, NULL);
                    cr_assert_eq(k, c.groups[grp].nnodes < 8 ? c.groups[grp].nnodes : 8);
                    for (uint32_t i = 1; i < k; i++)
                        cr_assert_geq(brute_threshold(&v, nodes[i - 1], d),
                                      brute_threshold(&v, nodes[i], d));
                    /* with a filter: exactly the nodes whose threshold
                     * ends after 10 (or that need no victim) */
                    k = vic_top_nodes(x, &v, grp, d, 8, nodes, tjs, ends_after_10, NULL);
                    uint32_t want = 0;
                    for (uint32_t nd = 0; nd < c.nnodes; nd++)
                        want += c.nodes[nd].group == grp && brute_threshold(&v, nd, d) > 10;
                    cr_assert_eq(k, want < 8 ? want : 8, "filtered top: %u, brute %u", k, want);
                    for (uint32_t i = 0; i < k; i++)
                        cr_assert_gt(brute_threshold(&v, nodes[i], d), 10);
                }
            }
    }
    gsl_rng_free(r);
    vic_free(x);
    clu_free(&c);
}

/* vic_freed_fits says what the placement finds once the GPUs marked are
 * released: random jobs (gangs spread over nodes too) on two types of
 * mixed node sizes, random sets of them marked, every gang size, type
 * asked and placement mode.  Marks cleared between sets, and a set tested
 * twice (the marks hold while the cluster is read as it is). */
Test(policies, fits_freed_matches_placement)
{
    struct cluster c;
    two_types(&c, "freed", (uint32_t[]){ 4, 3 }, (uint32_t[]){ 4, 8 },
              (uint32_t[]){ 3, 2 }, (uint32_t[]){ 2, 4 });
    const uint32_t a = 0, b = 1;    /* the types, in the order added */
    enum { NJ = 48, MAXG = 20 };
    struct job_rt slots[NJ + 1], *rt = slots + 1;  /* slot 0: no job */
    struct trc_job jobs[NJ];
    uint32_t gpus[NJ][MAXG];
    uint32_t slot[NJ];          /* job j's run state in rt[j] */
    uint8_t st[NJ];
    memset(slots, 0, sizeof slots);
    memset(st, 0, sizeof st);
    memset(jobs, 0, sizeof jobs);
    for (uint32_t j = 0; j < NJ; j++)
        slot[j] = j + 1;
    struct pol_view v = { .now = 0, .clu = &c, .jobs = jobs, .rts = slots,
                          .rt_slot = slot, .state = st, .njobs = NJ };
    struct vic_freed fr = { 0 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    uint32_t checked = 0, yes = 0;
    for (int step = 0; step < 400; step++) {
        uint32_t j = gsl_rng_uniform_int(r, NJ);
        if (st[j] == JOB_RUNNING) {
            clu_release(&c, rt[j].gpus, jobs[j].num_gpus);
            st[j] = JOB_DONE;
        } else {
            uint32_t want = 1 + gsl_rng_uniform_int(r, gsl_rng_uniform_int(r, 4) ? 4 : MAXG), t;
            if (plc_find(&c, want, SIM_NONE, gsl_rng_uniform_int(r, 2), &t, gpus[j])) {
                jobs[j].num_gpus = want;
                rt[j].gpus = gpus[j];
                st[j] = JOB_RUNNING;
                clu_alloc(&c, j, gpus[j], want);
            }
        }
        /* a random set of the running jobs, marked */
        uint32_t set[NJ], n = 0;
        for (uint32_t k = 0; k < NJ; k++)
            if (st[k] == JOB_RUNNING && gsl_rng_uniform(r) < 0.3) {
                set[n++] = k;
                vic_freed_add(&fr, &v, rt[k].gpus, jobs[k].num_gpus);
            }
        for (int twice = 0; twice < 2; twice++)
            for (uint32_t g = 1; g <= 26; g++)
                for (uint32_t q = 0; q < 3; q++)
                    for (int mode = 0; mode < 2; mode++) {
                        uint32_t req = q == 0 ? SIM_NONE : q == 1 ? a : b;
                        bool got = vic_freed_fits(&fr, &v, g, req, mode);
                        for (uint32_t k = 0; k < n; k++)
                            clu_release(&c, rt[set[k]].gpus, jobs[set[k]].num_gpus);
                        bool want = plc_find(&c, g, req, mode, NULL, NULL);
                        for (uint32_t k = 0; k < n; k++)
                            clu_alloc(&c, set[k], rt[set[k]].gpus, jobs[set[k]].num_gpus);
                        cr_assert_eq(got, want, "step %d: %u jobs marked, gang %u, "
                                     "type %u, mode %d: %d, placement %d", step, n,
                                     g, req, mode, got, want);
                        checked++;
                        yes += got;
                    }
        vic_freed_clear(&fr, &v);
    }
    /* both answers were exercised, often */
    cr_assert_gt(yes, checked / 10);
    cr_assert_lt(yes, checked - checked / 10);
    gsl_rng_free(r);
    vic_freed_free(&fr);
    clu_free(&c);
}

/* srtf makes room for a gang over two whole nodes (3 nodes of 2 GPUs).
 * t=0, srtf order L4 (10) L2 (50) L3 (80) L1 (100), best fit:
 *   n0: L4 (ends 10); n1: L2 (ends 50), L3 (ends 80); n2: L1 (ends 100).
 * t=1, q needs 4 GPUs for 20 s = two whole nodes.  Per node, the last job
 * to stop for a whole node ends at 10 (n0), 50 (n1), 100 (n2): the best two
 * are n2 and n1, whose jobs all have more than 20 s left: L1, L3, L2 are
 * preempted and q runs 1-21 on n1+n2.
 * t=10, L4 ends; L2 and L3 restart on n0: L2 10-59, L3 10-89.
 * t=21, q ends; L1 restarts on n2: 21-120. */
Test(policies, srtf_multi_node_room)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
                 "L1,0,2,100\nL4,0,2,10\nL2,0,1,50\nL3,0,1,80\nq,1,4,20\n");
    tu_simple_cluster(&c, 3, 2);
    struct eng *e = tu_run(&t, &c, "srtf");
    tu_placement(e, "L4", "n0:0-1");
    tu_placement(e, "L2", "n1:0");
    tu_placement(e, "L3", "n1:1");
    tu_placement(e, "L1", "n2:0-1");
    tu_placement(e, "q", "n1:0-1+n2:0-1");
    TU_SCHED(e, "q", 1, 21);
    TU_SCHED(e, "L4", 0, 10);
    TU_SCHED(e, "L2", 0, 59);
    TU_SCHED(e, "L3", 0, 89);
    TU_SCHED(e, "L1", 0, 120);
    cr_expect_eq(e->preemptions, 3);
    cr_expect_eq(e->end[tu_job(&t, "L1")].wait, US(20));
    cr_expect_eq(e->end[tu_job(&t, "L2")].wait, US(9));
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* srtf picks the node whose victims are longest: two nodes of 2 GPUs,
 * n0 runs A (ends 30) and B (ends 40), n1 runs C (ends 90) and D (ends
 * 60).  A 2-GPU job of 10 s at t=5 stops C and D (n1), not A and B. */
Test(policies, srtf_single_node_room)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
                 "A,0,1,30\nB,0,1,40\nD,0,1,60\nC,0,1,90\nq,5,2,10\n");
    tu_simple_cluster(&c, 2, 2);
    struct eng *e = tu_run(&t, &c, "srtf");
    tu_placement(e, "A", "n0:0");
    tu_placement(e, "B", "n0:1");
    tu_placement(e, "D", "n1:0");
    tu_placement(e, "C", "n1:1");
    TU_SCHED(e, "q", 5, 15);
    cr_expect_eq(e->end[tu_job(&t, "C")].preemptions, 1);
    cr_expect_eq(e->end[tu_job(&t, "D")].preemptions, 1);
    cr_expect_eq(e->end[tu_job(&t, "A")].preemptions, 0);
    /* D (55 left) restarts at 15 on n1, C (85 left) too */
    TU_SCHED(e, "D", 0, 70);
    TU_SCHED(e, "C", 0, 100);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}
