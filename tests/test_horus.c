/*
 * tests/test_horus.c - the Horus policy on hand-built cluster states: the
 * device cost picks the GPU the formula says, memory and resident limits
 * hold, the look-ahead starts the first job that fits, a gang's plan
 * follows racks, Horus+ serves queues by credit.  Every run has --check
 * on.  Without --models, the predicted utilization is the trace's `util`
 * and sharing costs the default constant slowdown (0.8 per co-runner).
 */
#include "testutil.h"
#include "models/perf.h"

static struct eng *horus_run(const struct trace *t, struct cluster *c,
                             const char *policy)
{
    return tu_run(t, c, policy);
}

static uint32_t first_gpu(const struct eng *e, const struct trace *t,
                          const char *id)
{
    const uint32_t *g = eng_first_gpus(e, tu_job(t, id));
    cr_assert(g, "%s never started", id);
    return g[0];
}

/* Two GPUs.  b (util 0.2) comes first in the queue (lowest utilization)
 * and takes the fullest node's lowest free GPU, GPU 0; a (0.7) gets GPU 1.
 * At t=1, c arrives with nowhere free.  Device costs (memory unknown):
 *   c util 0.3:  GPU 1 (a): s = 70 + 30 - 100 = 0    -> 0 + 1 = 1.0
 *                GPU 0 (b): s = 20 + 30 - 100 = -50  -> 0.5 + 1 = 1.5
 *   c util 0.5:  GPU 1 (a): s = 20 > 0 -> 1.6 * 0.2 + 1 = 1.32
 *                GPU 0 (b): s = -30   -> 0.3 + 1 = 1.30
 * so c goes to GPU 1 in the first case and to GPU 0 in the second:
 * overshoot costs 1.6 times undershoot. */
Test(horus, device_cost_picks_the_formulas_gpu)
{
    static const char *const utils[] = { "0.3", "0.5" };
    static const uint32_t want[] = { 1, 0 };
    for (int k = 0; k < 2; k++) {
        char csv[256];
        snprintf(csv, sizeof csv, "job_id,submit_time,num_gpus,duration,util\n"
                 "a,0,1,100,0.7\nb,0,1,100,0.2\nc,1,1,10,%s\n", utils[k]);
        struct trace t;
        struct cluster c;
        tu_trace(&t, csv);
        tu_simple_cluster(&c, 1, 2);
        struct eng *e = horus_run(&t, &c, "horus");
        cr_expect_eq(first_gpu(e, &t, "b"), 0);
        cr_expect_eq(first_gpu(e, &t, "a"), 1);
        cr_expect_eq(first_gpu(e, &t, "c"), want[k], "c util %s", utils[k]);
        cr_expect_eq(e->end[tu_job(&t, "c")].first_start, US(1));
        eng_free(e);
        trc_free(&t);
        clu_free(&c);
    }
}

/* The memory term: with 16 GB GPUs, a (util 0.7, 12 GB) on GPU 1 and b
 * (0.2, 2 GB) on GPU 0, c (util 0.3, 1 GB):
 *   GPU 1: 1.3 * 13/16 + 0 + 1 = 2.05625;  GPU 0: 1.3 * 3/16 + 0.5 + 1 =
 *   1.74375  -> GPU 0, although its utilization fits worse.
 * And c with 4 GB cannot share GPU 1 at all (12 + 4 > 16 - 0.5). */
Test(horus, memory_term_and_reserve)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util,mem_gb\n"
             "a,0,1,100,0.7,12\nb,0,1,100,0.2,2\nc,1,1,10,0.3,1\n");
    tu_simple_cluster(&c, 1, 2);
    struct eng *e = horus_run(&t, &c, "horus");
    cr_expect_eq(first_gpu(e, &t, "a"), 1);
    cr_expect_eq(first_gpu(e, &t, "c"), 0);
    eng_free(e);
    trc_free(&t);
    /* util 0.7 + 0.3 fits GPU 1 perfectly, but 4 GB do not */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util,mem_gb\n"
             "a,0,1,100,0.7,12\nb,0,1,100,0.2,11\nc,1,1,10,0.3,4\n");
    e = horus_run(&t, &c, "horus:mem_reserve=0.5");
    cr_expect_eq(first_gpu(e, &t, "c"), 0);
    eng_free(e);
    trc_free(&t);
    /* with 12 GB beside both, c waits for a GPU of its own */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util,mem_gb\n"
             "a,0,1,100,0.7,12\nb,0,1,50,0.2,12\nc,1,1,10,0.3,4\n");
    e = horus_run(&t, &c, "horus");
    TU_SCHED(e, "c", 50, 60);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* One GPU, five light jobs at once: at most max_per_gpu share it; the
 * rest wait (the engine's --check verifies the limit at every instant). */
Test(horus, resident_limit)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,10,0.1\nb,0,1,10,0.1\nc,0,1,10,0.1\nd,0,1,10,0.1\n"
             "e,0,1,10,0.1\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = horus_run(&t, &c, "horus");
    int at0 = 0;
    for (uint32_t j = 0; j < t.njobs; j++)
        at0 += e->end[j].first_start == 0;
    cr_expect_eq(at0, 3);
    eng_free(e);
    e = horus_run(&t, &c, "horus:max_per_gpu=2");
    at0 = 0;
    for (uint32_t j = 0; j < t.njobs; j++)
        at0 += e->end[j].first_start == 0;
    cr_expect_eq(at0, 2);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Look-ahead.  Two GPUs, no sharing (max_per_gpu=1).  x (1 GPU) runs
 * 0-100.  At t=1, y (2 GPUs, util 0.1) heads the queue but cannot be
 * placed; z (1 GPU, util 0.5) behind it can.  lookahead=5: z starts at 1.
 * lookahead=1: only y is looked at, so z waits until y has run: y 100-110,
 * z 110-120. */
Test(horus, lookahead_starts_the_first_that_fits)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "x,0,1,100,0.9\ny,1,2,10,0.1\nz,1,1,10,0.5\n");
    tu_simple_cluster(&c, 1, 2);
    struct eng *e = horus_run(&t, &c, "horus:max_per_gpu=1");
    TU_SCHED(e, "z", 1, 11);
    TU_SCHED(e, "y", 100, 110);
    eng_free(e);
    e = horus_run(&t, &c, "horus:max_per_gpu=1,lookahead=1");
    TU_SCHED(e, "y", 100, 110);
    TU_SCHED(e, "z", 110, 120);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A gang larger than a node plans by racks.  Nodes in file order: n0
 * (rack A), n1 (rack B), n2 (rack A), two GPUs each, all free.  A 3-GPU
 * gang: every node has the same minimum cost, so the anchors are n0, n1,
 * n2; from n0 the plan fills n0 and takes the last GPU in its own rack:
 * n0:0-1 + n2:0 (2 nodes; the other anchors' plans also use 2 nodes and
 * lose the tie on index).  The generic consolidated placement would take
 * the next whole node, n1, in the other rack. */
Test(horus, gang_plan_prefers_the_anchors_rack)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\ng,0,3,10,0.5\n");
    tu_cluster(&c, "name: racks\ngpu_types: [{name: G, memory_gb: 16}]\n"
               "nodes:\n  - {count: 1, gpus: 2, gpu_type: G, rack: A}\n"
               "  - {count: 1, gpus: 2, gpu_type: G, rack: B}\n"
               "  - {count: 1, gpus: 2, gpu_type: G, rack: A}\n");
    struct eng *e = horus_run(&t, &c, "horus");
    tu_placement(e, "g", "n0:0-1+n2:0");
    eng_free(e);
    e = tu_run(&t, &c, "fifo");
    tu_placement(e, "g", "n0:0-1+n1:0");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* No GPU free: the cheapest node, ties to the lower index.  Two nodes of
 * one GPU: a (0.5) on n0, b (0.5) on n1 at 0.  At 1, c (0.3) costs 0.2 +
 * 1 = 1.2 on both: n0; then d (0.3): n0 now 2.16 (s = 80 + 30 - 100 = 10,
 * 1.6 * 0.1 + 2), n1 still 1.2: n1. */
Test(horus, busy_cluster_ties_go_to_the_lower_node)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,100,0.5\nb,0,1,100,0.5\nc,1,1,10,0.3\nd,1,1,10,0.3\n");
    tu_simple_cluster(&c, 2, 1);
    struct eng *e = horus_run(&t, &c, "horus");
    tu_placement(e, "a", "n0:0");
    tu_placement(e, "b", "n1:0");
    tu_placement(e, "c", "n0:0");
    tu_placement(e, "d", "n1:0");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Gangs beside running jobs: nodes with a free GPU come first in plan
 * order (a free GPU costs less than any shared one), and a plan still
 * takes the anchor's shared GPUs and its rack's before another rack's
 * free nodes.  Three nodes of 2 GPUs, n0 and n1 in rack A, n2 in rack B,
 * memory unknown (0 GB).  At 0: a (0.1), b (0.2), c (0.3) take n0:0,
 * n0:1, n1:0 (fullest node first).  At 1, g (4 GPUs, util 0.5), larger
 * than a node: costs are 0.5 on a free GPU (s = -50), 1.4 on a's, 1.3 on
 * b's, 1.2 on c's; nodes by minimum cost: n1 (0.5), n2 (0.5), n0 (1.3).
 * From n1: n1:1, n1:0, then rack A's n0 (n0:1, n0:0): 2 nodes.  From n2:
 * n2:0-1, then n1: 2 nodes.  Tie on nodes and anchor cost: n1, the
 * earlier.  So g shares four GPUs while n2 stays idle -- with 1, 2 or 3
 * anchors, and whether the plan can be read from the free nodes alone
 * (it cannot here: rack A's n0 comes after them). */
Test(horus, gang_plan_reads_past_the_free_nodes)
{
    static const char *const pols[] = { "horus", "horus:anchors=2",
                                        "horus:anchors=1" };
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,100,0.1\nb,0,1,100,0.2\nc,0,1,100,0.3\ng,1,4,10,0.5\n");
    tu_cluster(&c, "name: racks\ngpu_types: [{name: G, memory_gb: 16}]\n"
               "nodes:\n  - {count: 2, gpus: 2, gpu_type: G, rack: A}\n"
               "  - {count: 1, gpus: 2, gpu_type: G, rack: B}\n");
    for (int k = 0; k < 3; k++) {
        struct eng *e = horus_run(&t, &c, pols[k]);
        tu_placement(e, "a", "n0:0");
        tu_placement(e, "c", "n1:0");
        tu_placement(e, "g", "n0:0-1+n1:0-1");
        cr_expect_eq(e->end[tu_job(&t, "g")].first_start, US(1), "%s", pols[k]);
        eng_free(e);
    }
    trc_free(&t);
    clu_free(&c);
}

/* The same read from the free nodes alone: two nodes of 2 GPUs in one
 * rack, a (0.1) on n0:0; g (3 GPUs, 0.5) at 1 with 2 anchors.  From n0:
 * n0:1 (0.5), n0:0 (1.4), then n1:0: 2 nodes; from n1: n1:0-1, then n0:1:
 * 2 nodes; tie: n0.  g takes a's GPU although n1:1 is free. */
Test(horus, gang_plan_from_the_free_nodes)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,100,0.1\ng,1,3,10,0.5\n");
    tu_cluster(&c, "name: one\ngpu_types: [{name: G, memory_gb: 16}]\n"
               "nodes:\n  - {count: 2, gpus: 2, gpu_type: G, rack: A}\n");
    struct eng *e = horus_run(&t, &c, "horus:anchors=2");
    tu_placement(e, "a", "n0:0");
    tu_placement(e, "g", "n0:0-1+n1:0");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Horus+: utilizations 0.1 and 0.9 fall into two queues.  One GPU, no
 * sharing, every job 10 s, all submitted at 0: l1, l2 (0.1) and h1, h2, h3
 * (0.9).  At 0 both credits are 0: the first queue (low utilization)
 * starts l1.  At 10: low queue 1 job x 10 s = 10, high queue 3 x 10 = 30:
 * h1 runs 10-20.  At 20: low 1 x 20 = 20, high 2 x 20 = 40: h2 20-30.  At
 * 30: 30 vs 30: a tie goes to the first queue: l2 30-40; then h3 40-50.
 * Plain Horus runs both light jobs first. */
Test(horus, plus_serves_queues_by_credit)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "l1,0,1,10,0.1\nh1,0,1,10,0.9\nl2,0,1,10,0.1\nh2,0,1,10,0.9\n"
             "h3,0,1,10,0.9\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = horus_run(&t, &c, "horus:variant=plus,queues=2,max_per_gpu=1");
    TU_SCHED(e, "l1", 0, 10);
    TU_SCHED(e, "h1", 10, 20);
    TU_SCHED(e, "h2", 20, 30);
    TU_SCHED(e, "l2", 30, 40);
    TU_SCHED(e, "h3", 40, 50);
    eng_free(e);
    e = horus_run(&t, &c, "horus:max_per_gpu=1");
    TU_SCHED(e, "l1", 0, 10);
    TU_SCHED(e, "l2", 10, 20);
    TU_SCHED(e, "h1", 20, 30);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* --models zoo gives Horus real, varied utilizations: five jobs of five
 * zoo models, no util column, submitted at once on one A100 with no
 * sharing.  Horus sees the zoo regressor's predictions (models/util.yaml),
 * a different one per model, and starts the jobs in ascending order of
 * them, one after the other. */
Test(horus, zoo_utilizations_differ_per_model)
{
    static const char *const models[] = { "vgg16@64", "bert@64", "lstm@20",
                                          "cyclegan@1", "resnet50_cifar10@64" };
    enum { N = 5 };
    char csv[1024];
    int off = snprintf(csv, sizeof csv, "job_id,submit_time,num_gpus,duration,model\n");
    for (int j = 0; j < N; j++)
        off += snprintf(csv + off, sizeof csv - (size_t)off, "j%d,0,1,10,%s\n", j,
                        models[j]);
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, csv);
    tu_cluster(&c, "name: a\ngpu_types: [{name: A100, memory_gb: 40}]\n"
               "nodes: [{count: 1, gpus: 1, gpu_type: A100}]\n");
    tu_spec_zoo(&s, NULL, NULL);
    struct eng *e = tu_run_models(&t, &c, "horus:max_per_gpu=1", &s);
    double u[N];
    for (int j = 0; j < N; j++) {
        u[j] = mdl_perf_pred_util(e->perf, (uint32_t)j, 0);
        for (int k = 0; k < j; k++)
            cr_expect_neq(u[j], u[k], "%s and %s", models[j], models[k]);
    }
    /* each started when the one of the next lower utilization finished */
    for (int j = 0; j < N; j++) {
        int before = 0;
        for (int k = 0; k < N; k++)
            before += u[k] < u[j];
        simtime_t st = e->end[j].first_start;
        int ran_before = 0;
        for (int k = 0; k < N; k++)
            ran_before += e->end[k].first_start < st;
        cr_expect_eq(ran_before, before, "%s (predicted %.4f)", models[j], u[j]);
    }
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* ---- the authors' reading (variant=authors and its four options) */

/* gpu_order=index co-locates next to an idle GPU.  One node of two GPUs;
 * a (util 0.3, 10 s) at 0 and b (0.3, 10 s) at 1.  By default b takes
 * the free GPU 1.  In index order b takes the first GPU with room, GPU 0,
 * beside a, and GPU 1 stays idle: with the default slowdown (0.8 while
 * shared) a runs 1 s alone, then its 9 s at 0.8 (11.25 s): 0-12.25; b's
 * 11.25 s shared do 9 s of work, its last 1 s alone: 1-13.25. */
Test(horus, index_order_colocates_next_to_an_idle_gpu)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,10,0.3\nb,1,1,10,0.3\n");
    tu_simple_cluster(&c, 1, 2);
    struct eng *e = horus_run(&t, &c, "horus");
    cr_expect_eq(first_gpu(e, &t, "a"), 0);
    cr_expect_eq(first_gpu(e, &t, "b"), 1);
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "b", 1, 11);
    eng_free(e);
    const char *pols[] = { "horus:gpu_order=index", "horus:variant=authors" };
    for (int p = 0; p < 2; p++) {
        e = horus_run(&t, &c, pols[p]);
        cr_expect_eq(first_gpu(e, &t, "a"), 0, "%s", pols[p]);
        cr_expect_eq(first_gpu(e, &t, "b"), 0, "%s", pols[p]);
        TU_SCHED(e, "a", 0, 12.25);
        TU_SCHED(e, "b", 1, 13.25);
        eng_free(e);
    }
    trc_free(&t);
    clu_free(&c);
}

/* cap_util=1: a GPU's summed utilization counts at most 100.  One node of
 * two 16 GB GPUs, every job 1000 s: a (0.8, 0 GB) at 0 -> GPU 0; c (0.1,
 * 10 GB) at 1 -> GPU 1; b (0.7, 8 GB) at 2 cannot fit beside c (10 + 8 >
 * 16 - 0.5) -> GPU 0 (150 %); e (0.1) at 3 -> GPU 1 either way (2.6125
 * against 3.61 uncapped, 2.81 capped).  d (0.3) at 4:
 *   GPU 0 (a, b; 8 GB; 150 %): 1.3 x 8/16 + 2 + overshoot:
 *        uncapped s = 150 + 30 - 100 = 80 -> 1.6 x 0.8 = 1.28: 3.93;
 *        capped   s = 100 + 30 - 100 = 30 -> 0.48:            3.13;
 *   GPU 1 (c, e; 10 GB; 20 %):  1.3 x 10/16 + 2 + 0.5 (s = -50) = 3.3125.
 * So d goes to GPU 1 uncapped, to GPU 0 capped. */
Test(horus, capped_utilization_term)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util,mem_gb\n"
             "a,0,1,1000,0.8,0\nc,1,1,1000,0.1,10\nb,2,1,1000,0.7,8\n"
             "e,3,1,1000,0.1,0\nd,4,1,1000,0.3,0\n");
    tu_simple_cluster(&c, 1, 2);
    static const char *const pols[] = { "horus", "horus:cap_util=1" };
    static const uint32_t want_d[] = { 1, 0 };
    for (int p = 0; p < 2; p++) {
        struct eng *e = horus_run(&t, &c, pols[p]);
        cr_expect_eq(first_gpu(e, &t, "a"), 0, "%s", pols[p]);
        cr_expect_eq(first_gpu(e, &t, "c"), 1, "%s", pols[p]);
        cr_expect_eq(first_gpu(e, &t, "b"), 0, "%s", pols[p]);
        cr_expect_eq(first_gpu(e, &t, "e"), 1, "%s", pols[p]);
        cr_expect_eq(first_gpu(e, &t, "d"), want_d[p], "%s", pols[p]);
        for (uint32_t j = 0; j < t.njobs; j++)
            cr_expect_eq(e->end[j].first_start, t.jobs[j].submit, "%s", pols[p]);
        eng_free(e);
    }
    trc_free(&t);
    clu_free(&c);
}

/* anchors=tasks: as many candidate anchors as the job has GPUs.  Four
 * nodes of four 16 GB GPUs.  At 0 three 3-GPU blockers of 15 GB a task
 * take n0:0-2, n1:0-2, n2:0-2; at 1 a 4-GPU job of 1 GB takes n3:0-3.  At
 * 2 a 4-GPU job g (1 GB, util 0.2) finds no node with 4 free GPUs: n0-n2
 * each have one free GPU (the others lack memory), n3 four shared ones.
 * The nodes' minimum costs: 1.3/16 + 0.8 = 0.88125 on n0-n2 (a free GPU),
 * 1.3 x 2/16 + 1 + 0.3 = 1.4625 on n3.  With 3 anchors (n0, n1, n2) every
 * plan spans four nodes: n0:3+n1:3+n2:3+n3:0.  With 4 anchors, n3's plan
 * holds the whole job on one node. */
Test(horus, anchors_as_many_as_tasks)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util,mem_gb\n"
             "x0,0,3,1000,0.5,15\nx1,0,3,1000,0.5,15\nx2,0,3,1000,0.5,15\n"
             "y,1,4,1000,0.5,1\ng,2,4,10,0.2,1\n");
    tu_cluster(&c, "name: a\ngpu_types: [{name: G, memory_gb: 16}]\n"
               "nodes: [{count: 4, gpus: 4, gpu_type: G}]\n");
    struct eng *e = horus_run(&t, &c, "horus");
    tu_placement(e, "x0", "n0:0-2");
    tu_placement(e, "x1", "n1:0-2");
    tu_placement(e, "x2", "n2:0-2");
    tu_placement(e, "y", "n3:0-3");
    tu_placement(e, "g", "n0:3+n1:3+n2:3+n3:0");
    eng_free(e);
    e = horus_run(&t, &c, "horus:anchors=tasks");
    tu_placement(e, "g", "n3:0-3");
    eng_free(e);
    e = horus_run(&t, &c, "horus:anchors=4");
    tu_placement(e, "g", "n3:0-3");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* one_start=1: at most one start per instant.  Three jobs at 0 on three
 * free GPUs (no sharing), lowest utilization first: by default all start
 * at 0.  With one_start=1 the second waits for the next event (the
 * first's completion at 100), the third for the second's (200); with
 * tick=5 the policy tries again 5 s after each start: 0, 5, 10; under
 * variant=authors (tick=1; max_per_gpu=1, or its index order would stack
 * the three on GPU 0): 0, 1, 2. */
Test(horus, one_start_per_instant)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,100,0.1\nb,0,1,100,0.2\nc,0,1,100,0.3\n");
    tu_simple_cluster(&c, 1, 3);
    static const char *const pols[] = { "horus", "horus:one_start=1",
                                        "horus:one_start=1,tick=5",
                                        "horus:variant=authors,max_per_gpu=1" };
    static const char *const ids[3] = { "a", "b", "c" };
    static const double st[][3] = { { 0, 0, 0 }, { 0, 100, 200 },
                                    { 0, 5, 10 }, { 0, 1, 2 } };
    tu_expect_starts(&t, &c, pols, 4, ids, st, 100);
    trc_free(&t);
    clu_free(&c);
}

/* w_speed: a fast type F (speed 1) and a slow type S (0.5), one GPU
 * each.  x (util 0.5) holds F from 0; y (0.3, 10 s) arrives at 1.  The
 * paper's cost takes the free S GPU (0.7 against 1.2 shared): 20 s there.
 * With w_speed=2 the S GPU costs 0.7 + 2 x (20/10 - 1) = 2.7 and y shares
 * F with x (1.2): at 0.8, 12.5 s, 1-13.5.  With w_speed=0.1 (S: 0.8) it
 * still takes S. */
Test(horus, speed_aware_device_cost)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
             "x,0,1,100,0.5\ny,1,1,10,0.3\n");
    tu_cluster(&c, "name: h\ngpu_types: [{name: F, memory_gb: 16, speed: 1},"
               " {name: S, memory_gb: 16, speed: 0.5}]\n"
               "nodes:\n  - {count: 1, gpus: 1, gpu_type: F}\n"
               "  - {count: 1, gpus: 1, gpu_type: S}\n");
    static const char *const pols[] = { "horus", "horus:w_speed=2",
                                        "horus:w_speed=0.1" };
    static const uint32_t gpu[] = { 1, 0, 1 };
    static const double fin[] = { 21, 13.5, 21 };
    for (int p = 0; p < 3; p++) {
        struct eng *e = horus_run(&t, &c, pols[p]);
        cr_expect_eq(first_gpu(e, &t, "x"), 0, "%s", pols[p]);
        cr_expect_eq(first_gpu(e, &t, "y"), gpu[p], "%s", pols[p]);
        TU_SCHED(e, "y", 1, fin[p]);
        eng_free(e);
    }
    trc_free(&t);
    clu_free(&c);
}

Test(horus, bad_options)
{
    struct dl_error err = { 0 };
    const struct policy *p;
    struct pol_args a;
    struct cluster c;
    clu_builtin_demo(&c);
    cr_expect_eq(pol_parse("horus:variant=minus", &p, &a, &err), 0);
    cr_expect_eq(eng_check_policy(p, &a, &c, &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "variant"), "%s", err.msg);
    cr_expect(strstr(err.msg, "authors"), "%s", err.msg);
    cr_expect_eq(pol_parse("horus:lookahead=0", &p, &a, &err), 0);
    cr_expect_eq(eng_check_policy(p, &a, &c, &err), DL_EINPUT);
    static const char *const bad[][2] = {
        { "horus:gpu_order=random", "gpu_order=random" },
        { "horus:cap_util=2", "cap_util=2" },
        { "horus:anchors=some", "anchors=some" },
        { "horus:anchors=0", "anchors=0" },
        { "horus:one_start=yes", "one_start=yes" },
        { "horus:tick=-1", "tick=-1" },
        { "horus:w_speed=-1", "w_speed=-1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_expect_eq(pol_parse(bad[i][0], &p, &a, &err), 0);
        cr_expect_eq(eng_check_policy(p, &a, &c, &err), DL_EINPUT, "%s", bad[i][0]);
        cr_expect(strstr(err.msg, bad[i][1]), "%s: %s", bad[i][0], err.msg);
    }
    clu_free(&c);
    cr_expect_eq(pol_parse("horus:depth=2", &p, &a, &err), DL_EINPUT);
}

/* The fast readings of a plan (from the nodes with a free GPU; the
 * cheapest node through the bound tree, used where 64 GPUs or more have
 * room) give the full scan's plans: random busy workloads on 352 GPUs in
 * three racks, every job's start, end and first GPUs equal under
 * scan=auto and scan=full, for several option sets. */
Test(horus, fast_plans_equal_the_full_scan)
{
    static const char *const opts[] = { "", "anchors=1", "w_speed=1",
                                        "cap_util=1,max_per_gpu=2",
                                        "mem_reserve=0,anchors=tasks",
                                        "variant=plus,lookahead=1" };
    static const int g[] = { 1, 1, 1, 1, 2, 2, 3, 4, 5, 8, 12, 16 };
    for (int seed = 1; seed <= 6; seed++) {
        struct trace t;
        struct cluster c;
        tu_random_colo_trace(&t, (unsigned)seed, 900, g, 12, 400, 0, NULL, 0);
        tu_cluster(&c, "name: big\ngpu_types: [{name: A, memory_gb: 16, speed: 1},"
                   " {name: B, memory_gb: 32, speed: 1.5}]\n"
                   "nodes:\n  - {count: 24, gpus: 4, gpu_type: A, rack: x}\n"
                   "  - {count: 16, gpus: 4, gpu_type: A, rack: y}\n"
                   "  - {count: 24, gpus: 8, gpu_type: B, rack: z}\n");
        tu_same_runs(&t, &c, "horus", opts, sizeof opts / sizeof *opts,
                     "scan=full", seed);
        trc_free(&t);
        clu_free(&c);
    }
}

/* Random small traces on small clusters, with utilizations and memory:
 * every job finishes and the invariants hold at every instant. */
Test(horus, random_runs_finish)
{
    for (int seed = 1; seed <= 30; seed++) {
        srand((unsigned)seed);
        char *csv = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&csv, &len);
        fputs("job_id,submit_time,num_gpus,duration,util,mem_gb\n", f);
        int n = 20 + rand() % 40, ts = 0;
        for (int j = 0; j < n; j++) {
            ts += rand() % 5;
            static const int g[] = { 1, 1, 1, 2, 3, 4, 6, 8 };
            fprintf(f, "j%d,%d,%d,%d,%.2f,%d\n", j, ts, g[rand() % 8],
                    1 + rand() % 50, 0.05 + (rand() % 95) / 100.0, rand() % 12);
        }
        fclose(f);
        struct trace t;
        struct cluster c;
        tu_trace(&t, csv);
        free(csv);
        tu_cluster(&c, "name: r\ngpu_types: [{name: A, memory_gb: 16, speed: 1},"
                   " {name: B, memory_gb: 24, speed: 0.5}]\n"
                   "nodes:\n  - {count: 2, gpus: 4, gpu_type: A, rack: x}\n"
                   "  - {count: 1, gpus: 4, gpu_type: A, rack: y}\n"
                   "  - {count: 2, gpus: 2, gpu_type: B, rack: y}\n");
        const char *pols[] = { "horus", "horus:variant=plus", "horus:placement=pool",
                               "horus:anchors=1,lookahead=2", "horus:variant=authors",
                               "horus:variant=plus,gpu_order=index,cap_util=1,"
                               "anchors=tasks,one_start=1",
                               "horus:one_start=1,tick=0", "horus:w_speed=1" };
        for (int p = 0; p < 8; p++) {
            struct eng *e = horus_run(&t, &c, pols[p]);
            cr_expect_eq(e->ndone + e->nrejected, t.njobs, "seed %d %s", seed,
                         pols[p]);
            eng_free(e);
        }
        trc_free(&t);
        clu_free(&c);
    }
}
