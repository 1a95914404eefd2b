/*
 * tests/test_golden.c - end-to-end runs on small traces whose schedules
 * were computed by hand (the derivation is in each test's comment).
 * Every run has --check on, so the invariants hold at every instant too.
 */
#include "testutil.h"
#include <math.h>

static const char three_jobs[] =
    "job_id,submit_time,num_gpus,duration\n"
    "a,0,2,10\n"
    "b,1,4,5\n"
    "c,2,1,3\n";

/* One node of 4 GPUs.  Strict FIFO: a runs 0-10 on GPUs 0-1; b needs all
 * 4 and waits for a; c is behind b and waits too: b 10-15, c 15-18. */
Test(golden, fifo_strict_blocks)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, three_jobs);
    tu_simple_cluster(&c, 1, 4);
    struct eng *e = tu_run(&t, &c, "fifo");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "b", 10, 15);
    TU_SCHED(e, "c", 15, 18);
    cr_expect_eq(e->end[tu_job(&t, "b")].wait, US(9));
    cr_expect_eq(e->end[tu_job(&t, "c")].wait, US(13));
    tu_placement(e, "a", "n0:0-1");
    tu_placement(e, "b", "n0:0-3");
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_eq(m.makespan, US(18));
    cr_expect_float_eq(m.avg_jct, (10 + 14 + 16) / 3.0, 1e-9);
    cr_expect_float_eq(m.avg_wait, (0 + 9 + 13) / 3.0, 1e-9);
    /* GPU-seconds held: a 2x10 + b 4x5 + c 1x3 = 43 over 4 GPUs x 18 s */
    cr_expect_float_eq(m.util_alloc, 43.0 / 72.0, 1e-12);
    cr_expect_eq(m.p50_jct, 14);
    cr_expect_eq(m.p99_jct, 16);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* backfill=1: c fits beside a at t=2 (GPU 2), runs 2-5; b still 10-15. */
Test(golden, fifo_backfill_passes)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, three_jobs);
    tu_simple_cluster(&c, 1, 4);
    struct eng *e = tu_run(&t, &c, "fifo:backfill=1");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "b", 10, 15);
    TU_SCHED(e, "c", 2, 5);
    tu_placement(e, "c", "n0:2");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

static const char one_gpu_jobs[] =
    "job_id,submit_time,num_gpus,duration\n"
    "a,0,1,10\n"
    "b,1,1,5\n"
    "c,2,1,2\n";

/* One GPU.  SJF: a runs 0-10 (alone when it arrives, never preempted); at
 * 10 the queue holds b (5) and c (2): c 10-12, then b 12-17. */
Test(golden, sjf_one_gpu)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, one_gpu_jobs);
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "sjf");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "c", 10, 12);
    TU_SCHED(e, "b", 12, 17);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* One GPU, SRTF, no cost.  t=1: a has 9 left > b's 5: a preempted, b runs.
 * t=2: b has 4 left > c's 2: b preempted, c runs 2-4.  t=4: b (4) before
 * a (9): b 4-8, a 8-17.  Waits: a 8-1 = 7, b 4-2 = 2, c 0. */
Test(golden, srtf_one_gpu)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, one_gpu_jobs);
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "srtf");
    TU_SCHED(e, "a", 0, 17);
    TU_SCHED(e, "b", 1, 8);
    TU_SCHED(e, "c", 2, 4);
    uint32_t a = tu_job(&t, "a"), b = tu_job(&t, "b"), cc = tu_job(&t, "c");
    cr_expect_eq(e->end[a].preemptions, 1);
    cr_expect_eq(e->end[b].preemptions, 1);
    cr_expect_eq(e->end[cc].preemptions, 0);
    cr_expect_eq(e->end[a].wait, US(7));
    cr_expect_eq(e->end[b].wait, US(2));
    cr_expect_eq(e->preemptions, 2);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* The same with preempt_cost=1: a has 9+1 = 10 left from t=1, b 4+1 = 5
 * from t=2.  c 2-4, b 4-9, a 9-19. */
Test(golden, srtf_preempt_cost)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, one_gpu_jobs);
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "srtf:preempt_cost=1");
    TU_SCHED(e, "c", 2, 4);
    TU_SCHED(e, "b", 1, 9);
    TU_SCHED(e, "a", 0, 19);
    /* GPU work done: 10 + 5 + 2 + 2 s of checkpoint cost */
    cr_expect_float_eq(e->work_done, US(19), 1);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* SRTF does not preempt a job that is closer to done: a (10 s) at 0, b
 * (8 s) at 3 sees a with 7 left: no preemption; b runs 10-18. */
Test(golden, srtf_no_preempt_when_shorter)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,3,1,8\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "srtf");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "b", 10, 18);
    cr_expect_eq(e->preemptions, 0);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Two nodes of 4 GPUs.  a and b take 3 GPUs each, best fit: n0:0-2 then
 * n1:0-2.  c needs 2: consolidated, no node has 2 free, so c waits for a
 * (t=10) and runs 10-14 on n0.  With pool, GPUs come from the fullest
 * nodes first: a n0:0-2, b n0:3 + n1:0-1, c n1:2-3, all at 0. */
static const char frag_jobs[] =
    "job_id,submit_time,num_gpus,duration\n"
    "a,0,3,10\n"
    "b,0,3,20\n"
    "c,0,2,4\n";

Test(golden, consolidated_vs_pool)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, frag_jobs);
    tu_simple_cluster(&c, 2, 4);
    struct eng *e = tu_run(&t, &c, "fifo");
    tu_placement(e, "a", "n0:0-2");
    tu_placement(e, "b", "n1:0-2");
    TU_SCHED(e, "c", 10, 14);
    tu_placement(e, "c", "n0:0-1");
    eng_free(e);
    e = tu_run(&t, &c, "fifo:placement=pool");
    TU_SCHED(e, "c", 0, 4);
    tu_placement(e, "b", "n0:3+n1:0-1");
    tu_placement(e, "c", "n1:2-3");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A gang larger than a node goes on whole nodes: 12 GPUs on nodes of 8 =
 * one whole node plus 4 on a second.  A 6-GPU job at 0 sits on n0; the
 * 12-GPU job then takes n1 whole and 4 GPUs of n2 (fullest that fits is a
 * free node: n0 has only 2). */
Test(golden, multi_node_gang)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
                 "s,0,6,10\nbig,0,12,5\nwhole,0,16,1\n");
    tu_simple_cluster(&c, 3, 8);
    struct eng *e = tu_run(&t, &c, "fifo");
    tu_placement(e, "s", "n0:0-5");
    tu_placement(e, "big", "n1:0-7+n2:0-3");
    TU_SCHED(e, "big", 0, 5);
    /* 16 GPUs = two whole nodes: n1 and n2 are whole again at 5, but
     * strict FIFO also lets nothing pass; it starts at 5 */
    TU_SCHED(e, "whole", 5, 6);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Jobs that can never fit are rejected at arrival, not left waiting: 9
 * GPUs on a cluster of 8, and a GPU type the cluster does not have. */
Test(golden, never_fits_rejected)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,gpu_type\n"
                 "ok,0,1,5,\nhuge,1,9,5,\nalien,2,1,5,TPU\nafter,3,8,1,\n");
    tu_simple_cluster(&c, 2, 4);
    struct eng *e = tu_run(&t, &c, "fifo");
    cr_expect_eq(e->state[tu_job(&t, "huge")], JOB_REJECTED);
    cr_expect_eq(e->state[tu_job(&t, "alien")], JOB_REJECTED);
    TU_SCHED(e, "ok", 0, 5);
    TU_SCHED(e, "after", 5, 6);
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_eq(m.finished, 2);
    cr_expect_eq(m.rejected, 2);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Heterogeneous types: V100 (reference, speed 1) and K80 (0.5).  Jobs go
 * to the fastest free type: a on the V100 0-10, b on the K80 at half
 * speed 0-20; c requires the K80 and waits for it: 20-40. */
Test(golden, heterogeneous_speed)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,gpu_type\n"
                 "a,0,1,10,\nb,0,1,10,\nc,0,1,10,K80\n");
    tu_cluster(&c, "name: het\n"
                   "gpu_types:\n"
                   "  - {name: V100, memory_gb: 32, speed: 1.0}\n"
                   "  - {name: K80, memory_gb: 12, speed: 0.5}\n"
                   "nodes:\n"
                   "  - {count: 1, gpus: 1, gpu_type: V100}\n"
                   "  - {count: 1, gpus: 1, gpu_type: K80}\n");
    struct eng *e = tu_run(&t, &c, "fifo:backfill=1");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "b", 0, 20);
    TU_SCHED(e, "c", 20, 40);
    tu_placement(e, "b", "n1:0");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Progress is remaining work at a rate: a job preempted on a slow GPU
 * resumes on a fast one with exactly the work it had left.  K80 (0.5) is
 * the only free GPU for long (20 s of work) at 0; short (2 s) arrives at 4
 * on the V100?  No: V100 is busy with blocker until 6.  Schedule:
 *   blocker V100 0-6; long K80 from 0 (rate 0.5).
 *   t=4: short (2) vs long (20 - 2 = 18 left): preempt long, short on K80,
 *        2 s of work at 0.5 = 4 s: 4-8.
 *   t=6: V100 free: long (18 left) runs there 6-24. */
Test(golden, rate_change_exact)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,gpu_type\n"
                 "blocker,0,1,6,V100\nlong,0,1,20,\nshort,4,1,2,K80\n");
    tu_cluster(&c, "gpu_types:\n"
                   "  - {name: V100, memory_gb: 32}\n"
                   "  - {name: K80, memory_gb: 12, speed: 0.5}\n"
                   "nodes:\n"
                   "  - {gpus: 1, gpu_type: V100}\n"
                   "  - {gpus: 1, gpu_type: K80}\n");
    struct eng *e = tu_run(&t, &c, "srtf");
    TU_SCHED(e, "blocker", 0, 6);
    TU_SCHED(e, "short", 4, 8);
    TU_SCHED(e, "long", 0, 24);
    cr_expect_eq(e->end[tu_job(&t, "long")].preemptions, 1);
    cr_expect_eq(e->end[tu_job(&t, "long")].wait, US(2));
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Deadlines: a meets its deadline, b misses it.  QoS rate 1/2. */
Test(golden, qos_rate)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,10,10\nb,0,1,10,15\nc,0,1,1,\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "fifo");
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_eq(m.qos_jobs, 2);
    cr_expect_eq(m.qos_met, 1);
    cr_expect_float_eq(m.qos_rate, 0.5, 1e-12);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Decimal times are exact: 0.1 + 0.2 s of work finishes at exactly 0.3. */
Test(golden, exact_decimal_times)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
                 "a,0.1,1,0.2\nb,0.1,1,0.000001\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "fifo");
    TU_SCHED(e, "a", 0.1, 0.3);
    cr_expect_eq(e->end[tu_job(&t, "b")].finish, 300001);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- regressions found in review ---------------------------------- */

/* A job started by the first fill and stopped again within the same
 * instant never ran: no preemption, no cost, no start time.  Two nodes of
 * 4: A (4 GPUs, 100 s) runs from 0 on n0.  At 1, Q (8 GPUs, 10 s) and X
 * (4 GPUs, 50 s) arrive: the fill starts X on n1, then Q (10 < 50, 99)
 * stops X and A and runs 1-11.  X's start at 1 is undone: it starts at 11
 * and ends at 61 with no preemption; A pays 5 s: 11-115. */
Test(golden, srtf_same_instant_start_and_stop)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\nA,0,4,100\nQ,1,8,10\nX,1,4,50\n");
    tu_simple_cluster(&c, 2, 4);
    struct eng *e = tu_run(&t, &c, "srtf:preempt_cost=5");
    TU_SCHED(e, "Q", 1, 11);
    TU_SCHED(e, "X", 11, 61);
    TU_SCHED(e, "A", 0, 115);
    cr_expect_eq(e->end[tu_job(&t, "X")].preemptions, 0);
    cr_expect_eq(e->end[tu_job(&t, "X")].wait, US(10));
    cr_expect_eq(e->preemptions, 1);
    /* events: 3 arrivals, 3 completions, 1 preemption */
    cr_expect_eq(e->events, 7);
    tu_placement(e, "X", "n1:0-3");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Equal remaining work is served in submit order, also after a
 * preemption.  One node of 2 GPUs: Y (3 s) and A (10 s) at 0; C (2 GPUs,
 * 8 s) at 1 cannot make room (Y has 2 s left); B (1 s) at 2 stops A (8
 * left) and runs 2-3.  At 3, A and C both have 8 s: A (submitted first)
 * runs 3-11, then C 11-19. */
Test(golden, srtf_ties_by_submit)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\nA,0,1,10\nY,0,1,3\nC,1,2,8\nB,2,1,1\n");
    tu_simple_cluster(&c, 1, 2);
    struct eng *e = tu_run(&t, &c, "srtf");
    TU_SCHED(e, "Y", 0, 3);
    TU_SCHED(e, "B", 2, 3);
    TU_SCHED(e, "A", 0, 11);
    TU_SCHED(e, "C", 11, 19);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Finish times round up to whole microseconds, so on a fast type two jobs
 * can share a finish time with different remaining work; srtf must not
 * trip over that (it once asserted). */
Test(golden, srtf_rounded_finish_times)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,gpu_type\n"
                 "Z,0,1,1000,V100\nT,0,2,0.000104,H100\nV,0.000001,6,0.000093,H100\n"
                 "L,0.000002,2,0.00005,H100\nQ,0.000003,6,0.000084,H100\n");
    tu_cluster(&c, "gpu_types:\n  - {name: V100, memory_gb: 32}\n"
                   "  - {name: H100, memory_gb: 80, speed: 5.81}\n"
                   "nodes:\n  - {count: 3, gpus: 4, gpu_type: H100}\n"
                   "  - {count: 1, gpus: 1, gpu_type: V100}\n");
    struct eng *e = tu_run(&t, &c, "srtf");
    for (uint32_t j = 0; j < t.njobs; j++)
        cr_expect_eq(e->state[j], JOB_DONE);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A gang that fits the type's largest node waits for one rather than
 * being split over smaller nodes (SPEC 6): B (6 GPUs) waits for A. */
Test(golden, consolidated_never_splits_a_node_sized_gang)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\nA,0,8,100\nB,1,6,10\n");
    tu_cluster(&c, "gpu_types:\n  - {name: V100, memory_gb: 32}\n"
                   "nodes:\n  - {count: 1, gpus: 8, gpu_type: V100}\n"
                   "  - {count: 2, gpus: 4, gpu_type: V100}\n");
    struct eng *e = tu_run(&t, &c, "fifo");
    TU_SCHED(e, "B", 100, 110);
    tu_placement(e, "B", "n0:0-5");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A run that would pass the largest representable time fails with a
 * message instead of wrapping around. */
Test(golden, time_overflow_fails_the_run)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\nj1,0,1,1e10\n");
    tu_cluster(&c, "gpu_types:\n  - {name: A, memory_gb: 1}\n"
                   "  - {name: B, memory_gb: 1, speed: 0.000001}\n"
                   "nodes:\n  - {count: 1, gpus: 1, gpu_type: B}\n");
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = "fifo", .check = true };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_expect_eq(eng_run(e), DL_ECHECK);
    cr_expect(strstr(e->fail_msg, "largest time"), "%s", e->fail_msg);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- rate changes while running (the hook later models use) -------- */

/* A test policy: starts every job at once (one GPU each) and, at 4 s and
 * at 10 s, sets job 0's rate to 0.5 and then 2.0. */
static void rc_enqueue(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st, (void)v, (void)j;
}

static void rc_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    for (uint32_t j = 0; j < v->njobs; j++)
        if (v->state[j] == JOB_QUEUED) {
            uint32_t g[1];
            cr_assert(plc_find(v->clu, 1, SIM_NONE, PLC_CONSOLIDATED, NULL, g));
            cr_assert_eq(pol_start(x, j, g), 0);
        }
    if (v->now == 0) {
        pol_wake(x, US(4));
        pol_wake(x, US(10));
    }
    if (v->now == US(4))
        cr_assert_eq(eng_set_rate(x->impl, 0, 0.5), 0);
    if (v->now == US(10))
        cr_assert_eq(eng_set_rate(x->impl, 0, 2.0), 0);
}

static int rc_create(void **st, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    (void)a, (void)v, (void)err;
    *st = NULL;
    return 0;
}

static void rc_destroy(void *st)
{
    (void)st;
}

static const struct policy rate_policy = {
    .name = "rate-test", .summary = "", .blocking = "",
    .create = rc_create, .destroy = rc_destroy,
    .enqueue = rc_enqueue, .schedule = rc_schedule,
};

/* 10 s of work: 4 s at rate 1 leave 6; 6 s at 0.5 leave 3; at 2.0 the
 * last 3 take 1.5 s: it ends at exactly 11.5, not at the stale 16. */
Test(golden, rate_change_mid_run)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,0,1,20\n");
    tu_simple_cluster(&c, 1, 2);
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = "rate-test", .pol = &rate_policy, .check = true };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    TU_SCHED(e, "a", 0, 11.5);
    TU_SCHED(e, "b", 0, 20);
    cr_expect_float_eq(e->work_done, US(30), 1);
    /* 2 arrivals, 2 wake-ups, 2 completions */
    cr_expect_eq(e->events, 6);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- no hook runs while schedule() runs (the contract, sim/policy.h) -- */

/* A test policy that preempts, starts and changes rates inside schedule()
 * (the actions that once called enqueue and rate_changed back while
 * schedule() was on the stack) and counts every hook that arrives while
 * its schedule() runs: there must be none.  One GPU; a (10 s) starts at 0;
 * at 2 s b (5 s) arrives: a is preempted, b starts; at 3 s b's rate is
 * halved; a restarts when b ends. */
static struct { bool in; int bad, enq, fin, rate; } hk;

static void hk_enqueue(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st, (void)v, (void)j;
    hk.bad += hk.in;
    hk.enq++;
}

static void hk_finished(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st, (void)v, (void)j;
    hk.bad += hk.in;
    hk.fin++;
}

static void hk_rate(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st, (void)v, (void)j;
    hk.bad += hk.in;
    hk.rate++;
}

static void hk_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    hk.in = true;
    const uint32_t g0[1] = { 0 };
    if (v->now == US(2) && v->state[0] == JOB_RUNNING) {
        cr_assert_eq(pol_preempt(x, 0, 0), 0);
        cr_assert_eq(pol_start(x, 1, g0), 0);
        pol_wake(x, US(3));
    } else if (v->now == US(3)) {
        cr_assert_eq(eng_set_rate(x->impl, 1, 0.5), 0);
    } else if (v->nrunning == 0) {
        for (uint32_t j = 0; j < v->njobs; j++)
            if (v->state[j] == JOB_QUEUED) {
                cr_assert_eq(pol_start(x, j, g0), 0);
                break;
            }
    }
    hk.in = false;
}

static const struct policy hook_policy = {
    .name = "hook-test", .summary = "", .blocking = "",
    .create = rc_create, .destroy = rc_destroy,
    .enqueue = hk_enqueue, .finished = hk_finished, .rate_changed = hk_rate,
    .schedule = hk_schedule,
};

Test(golden, no_hook_runs_inside_schedule)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,2,1,5\n");
    tu_simple_cluster(&c, 1, 1);
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = "hook-test", .pol = &hook_policy, .check = true };
    memset(&hk, 0, sizeof hk);
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    cr_expect_eq(hk.bad, 0, "%d hooks ran inside schedule()", hk.bad);
    /* the hooks did arrive, after schedule() returned: two arrivals; the
     * preempted a is not enqueued again by the engine (the policy keeps
     * it); b's rate change once; two completions */
    cr_expect_eq(hk.enq, 2);
    cr_expect_eq(hk.rate, 1);
    cr_expect_eq(hk.fin, 2);
    /* b: 2-3 at rate 1 (1 s of work), then 4 s left at 0.5: ends at 11;
     * a: 2 s done, restarts at 11, ends at 19 */
    TU_SCHED(e, "b", 2, 11);
    TU_SCHED(e, "a", 0, 19);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- preempt and restart within one instant ------------------------ */

/* A test policy: at 0 starts a (10 s) on GPU 0 of 2; at 3 s preempts it
 * (cost 1 s) and restarts it at once on GPU mv_gpu.  On GPU 0 nothing
 * happened: no preemption, no cost, a ends at 10.  On GPU 1 it moved: a
 * preemption, its cost paid (11 s), and its first placement stays GPU 0. */
static uint32_t mv_gpu;

static void mv_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    const uint32_t g0[1] = { 0 }, gm[1] = { mv_gpu };
    if (v->now == 0) {
        cr_assert_eq(pol_start(x, 0, g0), 0);
        pol_wake(x, US(3));
    } else if (v->now == US(3)) {
        cr_assert_eq(pol_preempt(x, 0, (double)US(1)), 0);
        cr_assert_eq(pol_start(x, 0, gm), 0);
    }
}

static const struct policy move_policy = {
    .name = "move-test", .summary = "", .blocking = "",
    .create = rc_create, .destroy = rc_destroy, .enqueue = rc_enqueue,
    .schedule = mv_schedule,
};

Test(golden, restart_in_the_same_instant_elsewhere_is_a_preemption)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    tu_simple_cluster(&c, 1, 2);
    for (mv_gpu = 0; mv_gpu < 2; mv_gpu++) {
        struct dl_error err = { 0 };
        struct eng_opts o = { .policy = "move-test", .pol = &move_policy,
                              .check = true };
        struct eng *e = tu_eng_new(&t, &c, &o, &err);
        cr_assert(e);
        cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
        const struct job_end *r = &e->end[0];
        cr_expect_eq(r->preemptions, mv_gpu, "moved to GPU %u", mv_gpu);
        cr_expect_eq(r->finish, US(mv_gpu ? 11 : 10));
        cr_expect_eq(r->first_start, 0);
        cr_expect_eq(e->kept[0].gpus[0], mv_gpu);
        eng_free(e);
    }
    trc_free(&t);
    clu_free(&c);
}

/* ---- run state from arrival to the finished hook (contract 4) ------ */

/* A test policy over one node of two GPUs: a (10 s) at 0, b (5 s) at 1,
 * c at 2, which its admit refuses.  Each hook checks what the contract
 * says it sees of the job: in admit, a job still FUTURE with its run
 * state (its required type set); in enqueue, QUEUED; in finished, DONE
 * with its run state still there (finish now); and of a job gone, its
 * state in pol_state and its slot 0's run state: no job. */
static struct { int admit, enq, fin, absent; } rs;

static bool rs_admit(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st;
    cr_assert_eq(pol_state(v, j), JOB_FUTURE);
    cr_assert_eq(pol_rt(v, j)->req_type, SIM_NONE);
    cr_assert_eq(pol_rt(v, j)->first_start, SIM_NEVER);
    rs.admit++;
    return j != 2;
}

static void rs_enqueue(void *st, const struct pol_view *v, uint32_t j)
{
    cr_assert_eq(pol_state(v, j), JOB_QUEUED);
    rs.enq++;
    rc_enqueue(st, v, j);
}

static void rs_finished(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st;
    const struct job_rt *r = pol_rt(v, j);
    cr_assert_eq(pol_state(v, j), JOB_DONE);
    cr_assert_eq(r->finish, v->now);
    cr_assert_eq(r->first_start, US(j));
    cr_assert_float_eq(pol_measured_util(v, j), 0.25 * (double)(j + 1), 1e-6);
    rs.fin++;
    if (j == 0) {               /* b ended at 6, c was refused at 2 */
        cr_assert_eq(pol_state(v, 1), JOB_DONE);
        cr_assert_eq(pol_state(v, 2), JOB_REJECTED);
        for (uint32_t k = 1; k <= 2; k++) {
            const struct job_rt *g = &v->rts[v->rt_slot[k]];
            cr_assert_eq(v->rt_slot[k], 0);
            cr_assert(g->gen == 0 && g->ngpus == 0 &&
                      g->first_start == SIM_NEVER && g->finish == SIM_NEVER &&
                      g->type == SIM_NONE);
            rs.absent++;
        }
    }
}

static void rs_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    for (uint32_t j = 0; j < v->njobs; j++) {
        if (pol_state(v, j) != JOB_QUEUED)
            continue;
        uint32_t g = v->nocc[0] ? 1 : 0;
        cr_assert_eq(pol_start(x, j, &g), 0, "%s", eng_policy_failure(x));
    }
}

static const struct policy slot_policy = {
    .name = "slot-test", .summary = "", .blocking = "",
    .create = rc_create, .destroy = rc_destroy, .admit = rs_admit,
    .enqueue = rs_enqueue, .finished = rs_finished, .schedule = rs_schedule,
};

Test(golden, run_state_from_arrival_to_the_finished_hook)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
                 "a,0,1,10,0.25\nb,1,1,5,0.5\nc,2,1,1,0.75\n");
    tu_simple_cluster(&c, 1, 2);
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = "slot-test", .pol = &slot_policy,
                          .check = true };
    memset(&rs, 0, sizeof rs);
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    cr_expect(rs.admit == 3 && rs.enq == 2 && rs.fin == 2 && rs.absent == 2,
              "admit %d enqueue %d finished %d absent %d", rs.admit, rs.enq,
              rs.fin, rs.absent);
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "b", 1, 6);
    cr_expect_eq(e->state[2], JOB_REJECTED);
    /* three jobs were in the system at once (c during its admit), each in
     * a slot of its own besides slot 0; all given back */
    cr_expect_eq(e->nslots, 4u);
    cr_expect_eq(e->nfree_slots, 3u);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- pol_resize: validated like every action, applied exactly ------ */

/* A test policy: at 0 starts job 0 (4 GPUs asked) on GPUs 0-1 of node n0
 * (4 GPUs) and job 1 (1 GPU) on GPU 0 of node n1 (another type), and at
 * 2 s tries the resize given by rz_case. */
static int rz_case;
static int rz_rc;

static void rz_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    if (v->now == 0) {
        static const uint32_t g01[] = { 0, 1 }, g4[] = { 4 };
        cr_assert_eq(pol_start_n(x, 0, g01, 2), 0);
        cr_assert_eq(pol_start(x, 1, g4), 0);
        pol_wake(x, US(2));
        return;
    }
    if (v->now != US(2))
        return;
    static const uint32_t all[] = { 0, 1, 2, 3 }, bad_order[] = { 1, 0, 2 },
                          other[] = { 0, 1, 4 }, busy[] = { 0, 1, 5 },
                          one[] = { 1 }, same[] = { 0, 1 };
    switch (rz_case) {
    case 0: rz_rc = pol_resize(x, 0, all, 4); break;        /* grow */
    case 1: rz_rc = pol_resize(x, 0, one, 1); break;        /* shrink */
    case 2: rz_rc = pol_resize(x, 0, same, 2); break;       /* no-op */
    case 3: rz_rc = pol_resize(x, 0, all, 5); break;        /* > num_gpus */
    case 4: rz_rc = pol_resize(x, 0, bad_order, 3); break;
    case 5: rz_rc = pol_resize(x, 0, other, 3); break;      /* other type */
    case 6: rz_rc = pol_resize(x, 2, all, 4); break;        /* not running */
    case 7: rz_rc = pol_resize(x, 1, busy, 3); break;       /* 1 GPU job */
    }
}

static const struct policy resize_policy = {
    .name = "resize-test", .summary = "", .blocking = "",
    .create = rc_create, .destroy = rc_destroy,
    .enqueue = rc_enqueue, .schedule = rz_schedule,
};

/* Job a: 4 GPUs asked, 10 s of work, started on 2 (no models: speed 2/4 =
 * 0.5).  At 2 s it has 9 s of work left.  Grown to 4 (speed 1) it ends at
 * 2 + 9 = 11; shrunk to 1 (speed 0.25), at 2 + 36 = 38; resized to the
 * GPUs it holds, at 2 + 18 = 20 as without.  Every invalid resize fails
 * the run with its reason. */
Test(golden, resize_validated_and_exact)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
                 "a,0,4,10\nb,0,1,30\n");
    clu_init(&c, "rz");
    clu_add_nodes(&c, 1, 4, clu_add_type(&c, "F", 16, 1.0), NULL);
    clu_add_nodes(&c, 1, 2, clu_add_type(&c, "G", 16, 1.0), NULL);
    clu_finish(&c);
    static const struct { double fin; uint32_t ngpus; const char *says; } cases[] = {
        { 11, 4, NULL }, { 38, 1, NULL }, { 20, 2, NULL },
        { 0, 0, "resized job a to 5 GPUs (it asks for 4" },
        { 0, 0, "onto GPU 0, which is repeated, unsorted or absent" },
        { 0, 0, "onto GPU 4 of another type" },
        { 0, 0, "resized job 2, which is not running" },
        { 0, 0, "resized job b to 3 GPUs" },
    };
    for (int k = 0; k < (int)(sizeof cases / sizeof *cases); k++) {
        rz_case = k;
        rz_rc = -1;
        struct dl_error err = { 0 };
        struct eng_opts o = { .policy = "resize-test", .pol = &resize_policy,
                              .check = true };
        struct eng *e = tu_eng_new(&t, &c, &o, &err);
        cr_assert(e);
        int rc = eng_run(e);
        if (!cases[k].says) {
            cr_assert_eq(rc, 0, "case %d: %s", k, e->fail_msg);
            cr_expect_eq(rz_rc, 0);
            TU_SCHED(e, "a", 0, cases[k].fin);
            cr_expect_eq(e->kept[0].ngpus, cases[k].ngpus, "case %d", k);
            cr_expect_eq(e->kept[0].resizes, k < 2 ? 1u : 0u, "case %d", k);
            cr_expect_eq(e->end[0].preemptions, 0);
            /* the first placement is kept for jobs.csv */
            tu_placement(e, "a", "n0:0-1");
            cr_expect_float_eq(e->work_done, US(4 * 10 + 30), 1, "case %d", k);
        } else {
            cr_expect_neq(rz_rc, 0, "case %d accepted", k);
            cr_expect_eq(rc, DL_ECHECK, "case %d", k);
            cr_expect(strstr(e->fail_msg, cases[k].says), "case %d: %s", k,
                      e->fail_msg);
        }
        eng_free(e);
    }
    trc_free(&t);
    clu_free(&c);
}

/* A policy that asks to be woken long after the last job: the run ends
 * with the last job, and the moot wake-up is neither processed nor
 * counted. */
static void late_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    rc_schedule(st, v, x);
    pol_wake(x, v->now + US(1000));
}

static const struct policy late_policy = {
    .name = "late-waker", .summary = "", .blocking = "",
    .create = rc_create, .destroy = rc_destroy,
    .enqueue = rc_enqueue, .schedule = late_schedule,
};

Test(golden, run_ends_with_the_last_job)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,20\nb,1,1,2\n");
    tu_simple_cluster(&c, 1, 2);
    struct dl_error err = { 0 };
    struct eng_opts o = { .pol = &late_policy, .check = true, .sample = US(1) };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    /* a's 20 s of work at rate 1, then 0.5 from 4, then 2 from 10: 16 left
     * at 4, 13 at 10, done 6.5 s later */
    TU_SCHED(e, "a", 0, 16.5);
    TU_SCHED(e, "b", 1, 3);
    /* arrivals 2, completions 2, wake-ups at 4 and 10 (before the end) */
    cr_expect_eq(e->events, 6);
    cr_expect_eq(e->last_instant, US(16.5));
    cr_expect_eq(e->ts[e->nts - 1].t, US(16));
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- a buggy policy cannot corrupt the cluster, and --check catches a
 * policy whose bookkeeping is wrong ---------------------------------- */

static void bad_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    /* start every queued job on GPU 0, busy or not */
    for (uint32_t j = 0; j < v->njobs; j++)
        if (v->state[j] == JOB_QUEUED) {
            uint32_t g[1] = { 0 };
            if (pol_start(x, j, g))
                return;
        }
}

static uint32_t lying_queued(void *st)
{
    (void)st;
    return 42;
}

static const struct policy busy_policy = {
    .name = "busy", .create = rc_create, .destroy = rc_destroy,
    .enqueue = rc_enqueue, .schedule = bad_schedule,
};

static const struct policy lying_policy = {
    .name = "lying", .create = rc_create, .destroy = rc_destroy,
    .enqueue = rc_enqueue, .schedule = rc_schedule, .queued = lying_queued,
};

Test(golden, invalid_actions_fail_the_run)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,0,1,10\n");
    tu_simple_cluster(&c, 1, 2);
    struct dl_error err = { 0 };
    struct eng_opts o = { .pol = &busy_policy };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert_eq(eng_run(e), DL_ECHECK);
    cr_expect(strstr(e->fail_msg, "started job b on GPU 0, which is busy"), "%s",
              e->fail_msg);
    char why[128];
    cr_expect_eq(clu_check(&c, why, sizeof why), 0, "%s", why);
    cr_expect_eq(c.gpu_job[0], tu_job(&t, "a"));
    eng_free(e);
    /* --check compares the policy's queue with the engine's */
    o.pol = &lying_policy;
    o.check = true;
    e = tu_eng_new(&t, &c, &o, &err);
    cr_assert_eq(eng_run(e), DL_ECHECK);
    cr_expect(strstr(e->fail_msg, "holds 42 queued jobs"), "%s", e->fail_msg);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* The timeseries of fifo_strict_blocks sampled every 5 s: a state is the
 * one after every event at or before the sample time.
 *   t=0  a runs (2 GPUs)                         queued 0, running 1, busy 2
 *   t=5  b and c wait behind a                   queued 2, running 1, busy 2
 *   t=10 a done, b runs on 4                     queued 1, running 1, busy 4
 *   t=15 b done, c runs on 1 (last finish: 18)   queued 0, running 1, busy 1 */
Test(golden, timeseries_samples)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, three_jobs);
    tu_simple_cluster(&c, 1, 4);
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = "fifo", .check = true, .sample = US(5) };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    const uint32_t want[4][3] = { { 0, 1, 2 }, { 2, 1, 2 }, { 1, 1, 4 }, { 0, 1, 1 } };
    cr_assert_eq(e->nts, 4);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(e->ts[i].t, US(5 * i));
        cr_expect_eq(e->ts[i].queued, want[i][0], "row %d queued", i);
        cr_expect_eq(e->ts[i].running, want[i][1], "row %d running", i);
        cr_expect_eq(e->ts[i].busy, want[i][2], "row %d busy", i);
        cr_expect_float_eq(e->ts[i].util_alloc, want[i][2] / 4.0, 1e-12);
    }
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* The makespan floor (SPEC 5): every finished job alone from its submit on
 * the fastest type it may use.  V100 (speed 1) and K80 (0.5), one GPU each.
 *   a: 0 + 10 / 1 = 10;  b (K80 only): 2 + 10 / 0.5 = 22;  c: 5 + 2 = 7.
 * fifo:backfill=1 runs a 0-10 on the V100, b 2-22 on the K80, c 10-12:
 * makespan 22 = the floor (b decides it, not the policy). */
Test(golden, makespan_floor)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,gpu_type\n"
                 "a,0,1,10,\nb,2,1,10,K80\nc,5,1,2,\n");
    tu_cluster(&c, "gpu_types:\n"
                   "  - {name: V100, memory_gb: 32}\n"
                   "  - {name: K80, memory_gb: 12, speed: 0.5}\n"
                   "nodes:\n"
                   "  - {gpus: 1, gpu_type: V100}\n"
                   "  - {gpus: 1, gpu_type: K80}\n");
    struct eng *e = tu_run(&t, &c, "fifo:backfill=1");
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_eq(m.makespan_floor, US(22));
    cr_expect_eq(m.makespan, US(22));
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
    /* without b the floor is a's 10 while strict fifo on one V100 GPU
     * makes c wait: a 0-10, c 10-12 */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nc,5,1,2\n");
    tu_simple_cluster(&c, 1, 1);
    e = tu_run(&t, &c, "fifo");
    met_summarize(e, &m);
    cr_expect_eq(m.makespan_floor, US(10));
    cr_expect_eq(m.makespan, US(12));
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Utilization over the arrival window (first to last submit) against the
 * whole run: two GPUs, a (0, 10 s) and b (4, 2 s).  Window [0, 4]: one of
 * two GPUs busy: 0.5.  Whole run [0, 10]: (10 + 2) / 20 = 0.6. */
Test(golden, utilization_over_the_arrival_window)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,4,1,2\n");
    tu_simple_cluster(&c, 1, 2);
    struct eng *e = tu_run(&t, &c, "fifo");
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_float_eq(m.util_alloc_win, 0.5, 1e-12);
    cr_expect_float_eq(m.util_eff_win, 0.5, 1e-12);
    cr_expect_float_eq(m.util_useful_win, 0.5, 1e-12);
    cr_expect_float_eq(m.util_alloc, 0.6, 1e-12);
    cr_expect_float_eq(m.util_useful, 0.6, 1e-12);
    eng_free(e);
    trc_free(&t);
    /* one arrival instant: no window to speak of */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,0,1,2\n");
    e = tu_run(&t, &c, "fifo");
    met_summarize(e, &m);
    cr_expect(isnan(m.util_alloc_win));
    cr_expect(isnan(m.offered_load));
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Tenants and fairness, by hand: one GPU, fifo, three users' 10 s jobs at
 * 0: a (alice, vc X) 0-10, b (bob, X) 10-20, c (carol, Y) 20-30.  Mean
 * slowdowns 1, 2, 3: Jain's index 6^2 / (3 x 14) = 6/7, the worst user 3;
 * VCs X (1, 2: mean 1.5) and Y (3): 4.5^2 / (2 x 11.25) = 0.9, worst 3.
 * vc X: 2 jobs, mean JCT 15, p99 20 (nearest rank), mean wait 5; Y: JCT
 * 30, wait 20.  GPU-hours: 10 s each. */
Test(golden, tenants_and_fairness)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,user,vc,deadline\n"
                 "a,0,1,10,alice,X,15\nb,0,1,10,bob,X,15\nc,0,1,10,carol,Y,\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "fifo");
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_float_eq(m.fairness_jain, 6.0 / 7.0, 1e-12);
    cr_expect_float_eq(m.worst_user_slowdown, 3.0, 1e-12);
    cr_expect_float_eq(m.fairness_jain_vc, 0.9, 1e-12);
    cr_expect_float_eq(m.worst_vc_slowdown, 3.0, 1e-12);
    uint32_t n;
    struct met_group *g = met_groups(e, false, &n);
    cr_assert_eq(n, 3);
    cr_expect_str_eq(g[0].name, "alice");
    cr_expect_str_eq(g[2].name, "carol");
    cr_expect_float_eq(g[1].mean_slowdown, 2.0, 1e-12);
    cr_expect_float_eq(g[2].avg_wait, 20.0, 1e-12);
    cr_expect_float_eq(g[0].gpu_hours, 10.0 / 3600, 1e-12);
    cr_expect_eq(g[0].qos_jobs, 1);
    cr_expect_eq(g[0].qos_met, 1);
    cr_expect_eq(g[1].qos_met, 0);      /* bob ends at 20, due 15 */
    free(g);
    g = met_groups(e, true, &n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(g[0].name, "X");
    cr_expect_eq(g[0].jobs, 2);
    cr_expect_float_eq(g[0].avg_jct, 15.0, 1e-12);
    cr_expect_float_eq(g[0].p99_jct, 20.0, 1e-12);
    cr_expect_float_eq(g[0].avg_wait, 5.0, 1e-12);
    cr_expect_float_eq(g[0].p99_wait, 10.0, 1e-12);
    cr_expect_float_eq(g[1].avg_jct, 30.0, 1e-12);
    free(g);
    eng_free(e);
    trc_free(&t);
    /* no user column: no tenants, no fairness */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    e = tu_run(&t, &c, "fifo");
    met_summarize(e, &m);
    cr_expect(isnan(m.fairness_jain));
    cr_expect(isnan(m.fairness_jain_vc));
    cr_expect(isnan(m.worst_vc_slowdown));
    cr_expect_null(met_groups(e, false, &n));
    cr_expect_eq(n, 0);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* priority=1: strict classes.  One GPU busy with a until 10; b (priority
 * 0, 1 s), c (priority 5, 5 s) and d (priority 5, 2 s) queue at 1.  fifo:
 * c 10-15, d 15-17, b 17-18 (class 5 first, arrival order within); sjf:
 * d 10-12, c 12-17, b 17-18; without priority fifo runs b first. */
Test(golden, priority_classes)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,priority\n"
                 "a,0,1,10,0\nb,1,1,1,0\nc,1,1,5,5\nd,1,1,2,5\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "fifo:priority=1");
    TU_SCHED(e, "c", 10, 15);
    TU_SCHED(e, "d", 15, 17);
    TU_SCHED(e, "b", 17, 18);
    eng_free(e);
    e = tu_run(&t, &c, "sjf:priority=1");
    TU_SCHED(e, "d", 10, 12);
    TU_SCHED(e, "c", 12, 17);
    TU_SCHED(e, "b", 17, 18);
    eng_free(e);
    e = tu_run(&t, &c, "fifo");
    TU_SCHED(e, "b", 10, 11);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}
