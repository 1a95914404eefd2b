/*
 * tests/test_horus.c - the Horus policy on hand-built cluster states: the
 * device cost picks the GPU the formula says, memory and resident limits
 * hold, the look-ahead starts the first job that fits, a gang's plan
 * follows racks, Horus+ serves queues by credit.  Every run has --check
 * on.  Without --models, the predicted utilization is the trace's `util`
 * and sharing costs the default constant slowdown (0.8 per co-runner).
 */
#include "testutil.h"
#include "models/model.h"

static struct eng *horus_run(const struct trace *t, struct cluster *c,
                             const char *policy)
{
    return tu_run(t, c, policy);
}

/* The same with the run's models s. */
static struct eng *horus_run_models(const struct trace *t, struct cluster *c,
                                    const char *policy, const struct mdl_spec *s)
{
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = policy, .seed = 1, .check = true,
                          .models = s };
    struct eng *e = tu_eng_new(t, c, &o, &err);
    cr_assert(e, "%s: %s", policy, err.msg);
    cr_assert_eq(eng_run(e), 0, "%s: %s", policy, e->fail_msg);
    return e;
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
        cr_expect_eq(e->rt[tu_job(&t, "c")].first_start, US(1));
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
        at0 += e->rt[j].first_start == 0;
    cr_expect_eq(at0, 3);
    eng_free(e);
    e = horus_run(&t, &c, "horus:max_per_gpu=2");
    at0 = 0;
    for (uint32_t j = 0; j < t.njobs; j++)
        at0 += e->rt[j].first_start == 0;
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
    struct eng *e = horus_run_models(&t, &c, "horus:max_per_gpu=1", &s);
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
        simtime_t st = e->rt[j].first_start;
        int ran_before = 0;
        for (int k = 0; k < N; k++)
            ran_before += e->rt[k].first_start < st;
        cr_expect_eq(ran_before, before, "%s (predicted %.4f)", models[j], u[j]);
    }
    eng_free(e);
    mdl_spec_free(&s);
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
    cr_expect_eq(pol_parse("horus:lookahead=0", &p, &a, &err), 0);
    cr_expect_eq(eng_check_policy(p, &a, &c, &err), DL_EINPUT);
    clu_free(&c);
    cr_expect_eq(pol_parse("horus:depth=2", &p, &a, &err), DL_EINPUT);
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
                               "horus:anchors=1,lookahead=2" };
        for (int p = 0; p < 4; p++) {
            struct eng *e = horus_run(&t, &c, pols[p]);
            cr_expect_eq(e->ndone + e->nrejected, t.njobs, "seed %d %s", seed,
                         pols[p]);
            eng_free(e);
        }
        trc_free(&t);
        clu_free(&c);
    }
}
