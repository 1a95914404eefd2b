/*
 * tests/test_fairshare.c - the fair-share policy (policies/fairshare.c):
 * schedules computed by hand (three tenants with quotas, lending and
 * reclaim; hard quotas; a reclaim that finds no node and leaves no trace,
 * nor moves a later placement;
 * victims kept when the placement does not need their GPUs), the quota
 * sources, option and quota-file errors, and random workloads with tenants
 * under --check (the engine's invariants; hard quotas never exceeded;
 * determinism).  Every run has --check on; a job's run time is its
 * duration (one GPU type of speed 1).
 */
#include "randwork.h"
#include "policies/policy.h"

TestSuite(fairshare, .fini = tu_tmp_cleanup);

#define PREEMPTS(e, id) ((e)->end[tu_job((e)->tr, id)].preemptions)
#define STATE(e, id) ((e)->state[tu_job((e)->tr, id)])

/* The policy spec with file=PATH of a quota file written now. */
static const char *with_file(const char *pol, const char *text)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s,file=%s", pol, tu_tmp_file("q.csv", text));
    return buf;
}

/* ---- three tenants on one 8-GPU node, quotas A 4, B 2, C 2
 *
 * 0   a1 (A, 4 GPUs) is within A's quota: starts.  b1 (B, 4) is over B's
 *     2: it borrows the 4 idle GPUs.
 * 10  c1 (C, 2) is within C's quota, no GPU is free: B is over its quota
 *     (4 > 2), so its latest job b1 is preempted (10 s done, 40 left) and
 *     c1 runs 10-40.  b1 (4 GPUs) cannot borrow the 2 left.
 * 40  c1 ends; b1 borrows again: 40-80 would end it.
 * 50  a2 (A, 2) would take A to 6 > 4: it waits to borrow; nothing free.
 * 60  c2 (C, 2): within quota, nothing free: b1 is reclaimed again (20 s
 *     done, 20 left), c2 runs 60-70.  Lending, lowest used/quota first:
 *     B (0/2) cannot place 4 GPUs on the 2 free, A (4/4) borrows them for
 *     a2, 60-80.
 * 70  c2 ends; b1 still needs 4, 2 are free.
 * 80  a2 ends; b1 runs its last 20 s, 80-100.  a1 ends at 100.
 * b1: first start 0, finish 100, two preemptions, waited 30 + 20 s. */
static const char three_jobs[] =
    "job_id,submit_time,num_gpus,duration,vc\n"
    "a1,0,4,100,A\n"
    "b1,0,4,50,B\n"
    "c1,10,2,30,C\n"
    "a2,50,2,20,A\n"
    "c2,60,2,10,C\n";
static const char three_quotas[] = "tenant,gpus\nA,4\nB,2\nC,2\n";

Test(fairshare, three_tenants_lend_and_reclaim)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, three_jobs);
    tu_simple_cluster(&c, 1, 8);
    const char *pol = with_file("fairshare:quota=file", three_quotas);
    struct eng *e = tu_run(&t, &c, pol);
    TU_SCHED(e, "a1", 0, 100);
    TU_SCHED(e, "b1", 0, 100);
    TU_SCHED(e, "c1", 10, 40);
    TU_SCHED(e, "a2", 60, 80);
    TU_SCHED(e, "c2", 60, 70);
    cr_expect_eq(PREEMPTS(e, "b1"), 2);
    cr_expect_eq(e->end[tu_job(&t, "b1")].wait, US(50));
    cr_expect_eq(e->preemptions, 2);
    tu_assert_rerun_same(e, &t, &c, pol);
    eng_free(e);
    /* weights 2:1:1 of 8 GPUs are the same quotas */
    e = tu_run(&t, &c, with_file("fairshare:quota=file",
                                 "tenant,weight\nA,2\n*,1\n"));
    TU_SCHED(e, "b1", 0, 100);
    TU_SCHED(e, "a2", 60, 80);
    cr_expect_eq(PREEMPTS(e, "b1"), 2);
    eng_free(e);
    /* a preemption cost: b1 pays 5 s of work per preemption, and may only
     * be stopped once it has done 10 s since it last started: at 10 it has
     * done exactly 10 (not more), so c1 waits for a GPU */
    e = tu_run(&t, &c, with_file("fairshare:quota=file,preempt_cost=5",
                                 three_quotas));
    TU_SCHED(e, "b1", 0, 50);
    cr_expect_eq(PREEMPTS(e, "b1"), 0);
    TU_SCHED(e, "c1", 50, 80);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* lend=0, the same trace: b1 (4 GPUs) is larger than B's quota of 2 and
 * is rejected on arrival; a2 waits inside A's quota until a1 ends at 100;
 * nothing is preempted. */
Test(fairshare, hard_quotas)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, three_jobs);
    tu_simple_cluster(&c, 1, 8);
    struct eng *e = tu_run(&t, &c, with_file("fairshare:quota=file,lend=0",
                                             three_quotas));
    cr_expect_eq(STATE(e, "b1"), JOB_REJECTED);
    TU_SCHED(e, "a1", 0, 100);
    TU_SCHED(e, "c1", 10, 40);
    TU_SCHED(e, "a2", 100, 120);
    TU_SCHED(e, "c2", 60, 70);
    cr_expect_eq(e->preemptions, 0);
    /* refused by the policy, not "can never fit the cluster" (8 GPUs) */
    cr_expect_eq(e->nrejected, 1);
    cr_expect_eq(e->nrefused, 1);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- two 4-GPU nodes, quotas X 6, Y 2
 *
 * 0   x1 (X, 3) and x2 (X, 3) fill X's quota, one on each node; x3 and x4
 *     (X, 1 each) borrow the last GPU of each node.
 * 10  y1 (Y, 2) is within Y's quota.  The borrowers x4, x3 (latest first)
 *     would free 2 GPUs, but one on each node: consolidated, no node
 *     then has 2, so both are restarted where they were (no preemption
 *     counted).  y1 starts at 100 when x1 ends (its node has 3 free).
 * With placement=pool the 2 freed GPUs are a placement: x4 and x3 are
 * preempted at 10 with 290 s left, y1 runs 10-60, and x3, x4 borrow again
 * at 60, ending at 350. */
static const char frag_jobs[] =
    "job_id,submit_time,num_gpus,duration,vc\n"
    "x1,0,3,100,X\n"
    "x2,0,3,200,X\n"
    "x3,0,1,300,X\n"
    "x4,0,1,300,X\n"
    "y1,10,2,50,Y\n";

Test(fairshare, reclaim_without_a_node_leaves_no_trace)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, frag_jobs);
    tu_simple_cluster(&c, 2, 4);
    const char *q = "tenant,gpus\nX,6\nY,2\n";
    struct eng *e = tu_run(&t, &c, with_file("fairshare:quota=file", q));
    TU_SCHED(e, "x3", 0, 300);
    TU_SCHED(e, "x4", 0, 300);
    TU_SCHED(e, "y1", 100, 150);
    cr_expect_eq(e->preemptions, 0);
    eng_free(e);
    e = tu_run(&t, &c, with_file("fairshare:quota=file,placement=pool", q));
    TU_SCHED(e, "y1", 10, 60);
    TU_SCHED(e, "x3", 0, 350);
    TU_SCHED(e, "x4", 0, 350);
    cr_expect_eq(PREEMPTS(e, "x3"), 1);
    cr_expect_eq(PREEMPTS(e, "x4"), 1);
    TU_SCHED(e, "x1", 0, 100);
    TU_SCHED(e, "x2", 0, 200);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- two 4-GPU nodes, quotas X 4, Y 3, Z 1: a reclaim that cannot
 * help moves no later placement.
 *
 * 0   z0 (Z, 1) within quota: n0:0.
 * 10  x2 (X, 1) within quota: the fullest node that fits, n0:1; z1 (Z, 1)
 *     borrows: n0:2.
 * 15  x3 (X, 3) within quota: n1:0-2.  Each node has one GPU free; among
 *     nodes alike the placement takes the one whose free count changed
 *     last (the free-GPU index keeps them so): n1, then n0.
 * 16  x4 (X, 3) would take X to 7: it waits to borrow; no node has 3 free.
 * 17  y6 (Y, 3) within quota, no placement: Z is over its quota (2 > 1),
 *     its latest job z1 the only victim, and freeing n0:2 leaves n0 two
 *     GPUs, no node three: the reclaim cannot help and stops nothing.
 *     z5 (Z, 1) borrows the GPU of the node first among those alike, n1:3,
 *     as it does where y6 is not in the trace at all.  (Before the dry run
 *     z1 was stopped and restarted, which left n0 first: z5 on n0:3.)
 * 45  x3 ends; y6 runs on n1:0-2. */
static const char no_trace_jobs[] =
    "job_id,submit_time,num_gpus,duration,vc\n"
    "z0,0,1,1000,Z\n"
    "z1,10,1,50,Z\n"
    "x2,10,1,100,X\n"
    "x3,15,3,30,X\n"
    "x4,16,3,1000,X\n"
    "z5,17,1,50,Z\n"
    "y6,17,3,1000,Y\n";

Test(fairshare, failed_reclaim_moves_no_placement)
{
    struct trace t;
    struct cluster c;
    const char *q = "tenant,gpus\nX,4\nY,3\nZ,1\n";
    tu_simple_cluster(&c, 2, 4);
    for (int with_y6 = 1; with_y6 >= 0; with_y6--) {
        char text[sizeof no_trace_jobs];
        snprintf(text, sizeof text, "%s", no_trace_jobs);
        if (!with_y6)
            *strstr(text, "y6,") = '\0';
        tu_trace(&t, text);
        struct eng *e = tu_run(&t, &c, with_file("fairshare:quota=file", q));
        tu_placement(e, "z0", "n0:0");
        tu_placement(e, "x2", "n0:1");
        tu_placement(e, "z1", "n0:2");
        tu_placement(e, "x3", "n1:0-2");
        tu_placement(e, "z5", "n1:3");
        TU_SCHED(e, "z1", 10, 60);
        TU_SCHED(e, "z5", 17, 67);
        cr_expect_eq(PREEMPTS(e, "z1"), 0);
        if (with_y6) {
            TU_SCHED(e, "y6", 45, 1045);
            tu_placement(e, "y6", "n1:0-2");
        }
        eng_free(e);
        trc_free(&t);
    }
    clu_free(&c);
}

/* ---- two 4-GPU nodes, quotas X 4, Y 4
 *
 * 0   x1 (X, 3) is within quota, on a node N; x2 (X, 2) borrows: best fit
 *     is the other node M; x3 (X, 1) borrows N's last GPU.
 * 10  y1 (Y, 4): the borrowers latest first: x3 (N) frees no node, x2
 *     (M) frees M, where y1 runs 10-60.  x3's GPU is not in y1's
 *     placement: it is restarted where it was (no preemption).  x2 (90 s
 *     left) waits to borrow until 60 and ends at 150. */
Test(fairshare, victims_the_placement_does_not_need_keep_running)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,vc\n"
                 "x1,0,3,100,X\nx2,0,2,100,X\nx3,0,1,300,X\ny1,10,4,50,Y\n");
    tu_simple_cluster(&c, 2, 4);
    struct eng *e = tu_run(&t, &c, with_file("fairshare:quota=file",
                                             "tenant,gpus\nX,4\nY,4\n"));
    TU_SCHED(e, "x1", 0, 100);
    TU_SCHED(e, "x2", 0, 150);
    TU_SCHED(e, "x3", 0, 300);
    TU_SCHED(e, "y1", 10, 60);
    cr_expect_eq(PREEMPTS(e, "x2"), 1);
    cr_expect_eq(PREEMPTS(e, "x3"), 0);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- quota sources, with hard quotas (admission shows the quota)
 *
 * 8 GPUs, users u1 (work 6 x 100 + 1 x 100 = 700 GPU-s), u2 (1 x 100) and
 * jobs without a user ('-', 1 x 100): demand quotas 8 x 7/9 = 6.2, 0.9
 * and 0.9: u1's 6-GPU job is admitted, u2's 1-GPU job is not (0.9 < 1).
 * Equal quotas, 8/3 = 2.7 each: u1's 6-GPU job is rejected, the 1-GPU jobs
 * admitted. */
Test(fairshare, quota_sources_by_user)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,user,vc\n"
                 "big,0,6,100,u1,v\nsmall,0,1,100,u1,v\n"
                 "other,0,1,100,u2,v\nnobody,0,1,100,,v\n");
    tu_simple_cluster(&c, 1, 8);
    struct eng *e = tu_run(&t, &c, "fairshare:by=user,quota=demand,lend=0");
    cr_expect_eq(STATE(e, "big"), JOB_DONE);
    cr_expect_eq(STATE(e, "small"), JOB_DONE);
    cr_expect_eq(STATE(e, "other"), JOB_REJECTED);
    cr_expect_eq(STATE(e, "nobody"), JOB_REJECTED);
    eng_free(e);
    e = tu_run(&t, &c, "fairshare:by=user,lend=0");
    cr_expect_eq(STATE(e, "big"), JOB_REJECTED);
    TU_SCHED(e, "small", 0, 100);
    TU_SCHED(e, "other", 0, 100);
    TU_SCHED(e, "nobody", 0, 100);
    eng_free(e);
    /* by vc: one tenant, the whole cluster */
    e = tu_run(&t, &c, "fairshare:lend=0");
    TU_SCHED(e, "big", 0, 100);
    TU_SCHED(e, "nobody", 100, 200);    /* FIFO: 6 + 1 + 1 of 8 at 0 */
    eng_free(e);
    /* a quota file naming '-', the tenant of the jobs without a user */
    e = tu_run(&t, &c, with_file("fairshare:by=user,quota=file,lend=0",
                                 "tenant,gpus\nu1,6\nu2,1\n-,1\n"));
    cr_expect_eq(STATE(e, "big"), JOB_DONE);
    TU_SCHED(e, "small", 100, 200);     /* u1 holds 6 of its 6 until 100 */
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- errors */

static void expect_create_error(const char *trace, const char *pol,
                                const char *what)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, trace);
    tu_simple_cluster(&c, 1, 8);
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = pol, .seed = 1, .check = true };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_expect_null(e, "%s: no error", pol);
    cr_expect(strstr(err.msg, what) || (err.file && strstr(err.file, what)),
              "%s: expected '%s' in '%s' (%s:%ld)", pol, what, err.msg,
              err.file ? err.file : "", err.line);
    if (e)
        eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

Test(fairshare, option_and_file_errors)
{
    const char *vc = "job_id,submit_time,num_gpus,duration,vc\na,0,1,1,A\n"
                     "b,0,1,1,B\n";
    /* the policy, the quota file's text (NULL: none written), the error */
    static const struct { const char *pol, *file, *what; } cases[] = {
        { "fairshare:by=team", NULL, "by=team: expected vc or user" },
        { "fairshare:quota=half", NULL, "expected equal, demand or file" },
        { "fairshare:lend=2", NULL, "lend=2" },
        { "fairshare:preempt_cost=-1", NULL, "preempt_cost=-1" },
        { "fairshare:quota=file", NULL, "quota=file needs file=PATH" },
        { "fairshare:quota=equal", "tenant,gpus\n",
          "is only read with quota=file" },
        { "fairshare:by=user", NULL, "the trace names no user" },
        { "fairshare:quota=file,file=/nonexistent/q.csv", NULL,
          "/nonexistent/q.csv" },
        { "fairshare:quota=file", "tenant,gpus\nA,4\n",
          "tenant 'B' of the trace has no quota" },
        { "fairshare:quota=file", "tenant,gpus\nA,4\nB,5\n",
          "the quotas sum to 9 GPUs, more than the cluster's 8" },
        { "fairshare:quota=file", "tenant,gpus,weight\nA,4,1\n",
          "exactly one of the columns" },
        { "fairshare:quota=file", "tenant\nA\n", "exactly one of the columns" },
        { "fairshare:quota=file", "tenant,gpus\nA,4\nA,2\n",
          "tenant 'A' listed twice" },
        { "fairshare:quota=file", "tenant,gpus\nA,4\n*,1\n*,2\n",
          "a second '*' row" },
        { "fairshare:quota=file", "tenant,weight\nA,0\nB,0\n",
          "the weights sum to 0" },
        { "fairshare:quota=file", "tenant,gpus\nA,x\n", "not a number" },
        { "fairshare:quota=file", "tenant,gpus\n,1\n", "empty tenant name" },
        { "fairshare:quota=file", "tenant,gpus\nA,9\n", "out of range" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_create_error(vc, cases[i].file ? with_file(cases[i].pol,
                                                          cases[i].file)
                                              : cases[i].pol,
                            cases[i].what);
    /* a located message: file:line */
    struct trace t;
    struct cluster c;
    tu_trace(&t, vc);
    tu_simple_cluster(&c, 1, 8);
    struct dl_error err = { 0 };
    struct eng_opts o = { .seed = 1,
                          .policy = with_file("fairshare:quota=file",
                                              "tenant,gpus\nA,1\nB,oops\n") };
    cr_expect_null(tu_eng_new(&t, &c, &o, &err));
    cr_expect(err.file && strstr(err.file, "q.csv") && err.line == 3,
              "%s:%ld: %s", err.file ? err.file : "", err.line, err.msg);
    trc_free(&t);
    clu_free(&c);
}

/* ---- random workloads with tenants */

static const char *const tenant_names[] = { "t0", "t1", "t2", "t3", "t4" };

/* Users: more than PASS_SCAN (16) of them, so that by=user passes keep
 * their candidates in a heap, where by=vc scans them. */
static const char *const user_names[] = {
    "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10",
    "u11", "u12", "u13", "u14", "u15", "u16", "u17", "u18", "u19", "u20",
    "u21", "u22", "u23", "u24", "u25", "u26", "u27", "u28", "u29",
};

/* Gives each job of t one of n VCs and (80 %) one of 30 users at random;
 * returns how many VCs the trace then names. */
static uint32_t add_tenants(struct trace *t, gsl_rng *r, uint32_t n)
{
    bool seen[5] = { false };
    uint32_t k = 0;
    for (uint32_t j = 0; j < t->njobs; j++) {
        uint32_t v = (uint32_t)gsl_rng_uniform_int(r, n);
        t->jobs[j].vc = tenant_names[v];
        t->jobs[j].user = gsl_rng_uniform(r) < 0.2
                              ? NULL : user_names[gsl_rng_uniform_int(r, 30)];
        k += !seen[v];
        seen[v] = true;
    }
    return k;
}

/* The largest number of GPUs tenant vc holds at once (jobs run once:
 * lend=0 never preempts). */
static double peak_use(const struct eng *e, const char *vc)
{
    double peak = 0;
    for (uint32_t j = 0; j < e->tr->njobs; j++) {
        const struct job_end *a = &e->end[j];
        if (e->state[j] != JOB_DONE || strcmp(e->tr->jobs[j].vc, vc))
            continue;
        double use = 0;
        for (uint32_t k = 0; k < e->tr->njobs; k++) {
            const struct job_end *b = &e->end[k];
            if (e->state[k] == JOB_DONE && !strcmp(e->tr->jobs[k].vc, vc) &&
                b->first_start <= a->first_start && a->first_start < b->finish)
                use += e->tr->jobs[k].num_gpus;
        }
        peak = use > peak ? use : peak;
    }
    return peak;
}

Test(fairshare, random_workloads_with_tenants, .timeout = 600)
{
    static const char *const lend[] = {
        "fairshare", "fairshare:by=user", "fairshare:quota=demand",
        "fairshare:placement=pool", "fairshare:preempt_cost=7",
        "fairshare:by=user,quota=demand,placement=pool,preempt_cost=3",
    };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    for (int round = 0; round < 30; round++) {
        struct cluster c;
        struct trace t;
        tu_random_cluster(&c, r);
        tu_random_trace(&t, &c, r, 100 + gsl_rng_uniform_int(r, 200),
                        (struct tu_rand_fields){ .util = 0.3 });
        uint32_t n = add_tenants(&t, r, 1 + gsl_rng_uniform_int(r, 5));
        for (size_t p = 0; p < sizeof lend / sizeof *lend; p++)
            tu_check_random_run(&t, &c, lend[p], round, true, false);
        /* hard quotas: never above the quota, C / n each; every job that
         * fits its quota and the cluster is done, the rest rejected */
        struct eng *e = tu_run(&t, &c, "fairshare:lend=0");
        double q = (double)c.ngpus / n;
        for (uint32_t k = 0; k < 5; k++)
            cr_assert_leq(peak_use(e, tenant_names[k]), q + 1e-9,
                          "round %d tenant %s", round, tenant_names[k]);
        for (uint32_t j = 0; j < t.njobs; j++) {
            const struct trc_job *tj = &t.jobs[j];
            uint32_t req = tj->gpu_type ? clu_type_find(&c, tj->gpu_type)
                                        : SIM_NONE;
            bool fits = (!tj->gpu_type || req != SIM_NONE) &&
                        plc_ever_fits(&c, tj->num_gpus, req, PLC_CONSOLIDATED) &&
                        tj->num_gpus <= q + 1e-9;
            cr_assert_eq(e->state[j], fits ? JOB_DONE : JOB_REJECTED,
                         "round %d job %s", round, tj->id);
            cr_assert_eq(e->end[j].preemptions, 0);
        }
        tu_assert_rerun_same(e, &t, &c, "fairshare:lend=0");
        eng_free(e);
        trc_free(&t);
        clu_free(&c);
    }
    gsl_rng_free(r);
}

/* ---- the tenants' metrics against a plain sort: every job by (name,
 * finished first, JCT or wait, index), each group's sums in that order --
 * met_groups finds the groups by hash and sorts within each; the fields
 * must agree to the bit. */

struct oracle_ctx {
    const struct eng *e;
    bool by_vc, by_wait;
};

static const char *oracle_name(const struct eng *e, uint32_t j, bool by_vc)
{
    return by_vc ? e->tr->jobs[j].vc : e->tr->jobs[j].user;
}

static simtime_t oracle_val(const struct eng *e, uint32_t j, bool by_wait)
{
    return by_wait ? e->end[j].wait : e->end[j].finish - e->tr->jobs[j].submit;
}

static int oracle_cmp(const void *a, const void *b, void *ctx)
{
    const struct oracle_ctx *o = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(oracle_name(o->e, x, o->by_vc), oracle_name(o->e, y, o->by_vc));
    if (c)
        return c;
    bool dx = o->e->state[x] == JOB_DONE, dy = o->e->state[y] == JOB_DONE;
    if (dx != dy)
        return dx ? -1 : 1;
    if (dx && oracle_val(o->e, x, o->by_wait) != oracle_val(o->e, y, o->by_wait))
        return oracle_val(o->e, x, o->by_wait) < oracle_val(o->e, y, o->by_wait) ? -1 : 1;
    return (x > y) - (x < y);
}

static void check_groups(const struct eng *e, bool by_vc, int round)
{
    uint32_t n, nj = e->tr->njobs, k = 0;
    struct met_group *g = met_groups(e, by_vc, &n);
    uint32_t *ix = malloc((nj ? nj : 1) * sizeof *ix);
    for (uint32_t j = 0; j < nj; j++)
        if (oracle_name(e, j, by_vc))
            ix[k++] = j;
    for (int pass = 0; pass < 2; pass++) {
        struct oracle_ctx o = { e, by_vc, pass == 1 };
        qsort_r(ix, k, sizeof *ix, oracle_cmp, &o);
        uint32_t ng = 0;
        for (uint32_t a = 0, b; a < k; a = b, ng++) {
            const char *name = oracle_name(e, ix[a], by_vc);
            for (b = a; b < k && !strcmp(oracle_name(e, ix[b], by_vc), name); b++)
                ;
            cr_assert_lt(ng, n, "round %d: more groups than met_groups gave", round);
            const struct met_group *q = &g[ng];
            cr_assert_str_eq(q->name, name, "round %d", round);
            uint32_t fin = 0, jobs = 0, qj = 0, qm = 0;
            double sum = 0, hours = 0, slow = 0;
            for (uint32_t i = a; i < b; i++) {
                uint32_t j = ix[i];
                const struct job_end *r = &e->end[j];
                const struct trc_job *tj = &e->tr->jobs[j];
                bool done = e->state[j] == JOB_DONE;
                jobs++;
                hours += e->kept[j].gpu_us / SIM_US_PER_S / 3600;
                if (tj->deadline != SIM_NEVER) {
                    qj++;
                    qm += done && r->finish <= tj->deadline;
                }
                if (!done)
                    continue;
                slow += (double)(r->finish - tj->submit) /
                        ((double)tj->duration / e->kept[j].iso_rate);
                fin++;
                sum += (double)oracle_val(e, j, pass == 1);
            }
            double p99 = 0;
            if (fin) {
                size_t rank = (size_t)ceil(0.99 * fin);
                p99 = (double)oracle_val(e, ix[a + (rank < 1 ? 1 : rank) - 1],
                                         pass == 1) / SIM_US_PER_S;
            }
            double avg = fin ? sum / fin / SIM_US_PER_S : 0;
            if (pass == 0) {
                cr_expect_eq(q->jobs, jobs, "round %d %s", round, name);
                cr_expect_eq(q->finished, fin, "round %d %s", round, name);
                cr_expect_eq(q->qos_jobs, qj, "round %d %s", round, name);
                cr_expect_eq(q->qos_met, qm, "round %d %s", round, name);
                cr_expect(q->gpu_hours == hours, "round %d %s", round, name);
                cr_expect(q->mean_slowdown == (fin ? slow / fin : 0),
                          "round %d %s", round, name);
                cr_expect(q->avg_jct == avg && q->p99_jct == p99,
                          "round %d %s", round, name);
            } else {
                cr_expect(q->avg_wait == avg && q->p99_wait == p99,
                          "round %d %s", round, name);
            }
        }
        cr_assert_eq(ng, n, "round %d", round);
    }
    free(ix);
    free(g);
}

Test(fairshare, tenant_metrics_match_a_sort_by_name)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    for (int round = 0; round < 12; round++) {
        struct cluster c;
        struct trace t;
        tu_random_cluster(&c, r);
        tu_random_trace(&t, &c, r, 200 + gsl_rng_uniform_int(r, 300),
                        (struct tu_rand_fields){ .util = 0.3, .deadline = 0.5 });
        add_tenants(&t, r, 1 + gsl_rng_uniform_int(r, 5));
        /* hard quotas reject some jobs: groups with unfinished ones */
        struct eng *e = tu_run(&t, &c, round % 2 ? "fairshare:lend=0" : "srtf");
        check_groups(e, false, round);
        check_groups(e, true, round);
        eng_free(e);
        trc_free(&t);
        clu_free(&c);
    }
    gsl_rng_free(r);
}
