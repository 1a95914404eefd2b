/*
 * tests/test_qos.c - the QoS-aware policy (policies/qos.c): schedules
 * computed by hand on tiny (mostly heterogeneous) clusters, its options,
 * and random workloads with deadlines.  Every run has --check on.
 *
 * Without --models a job's predicted run time on a type is exactly its
 * duration over the type's speed, so the derivations below are exact.
 * L = deadline - T_best is a QoS job's latest start; its waiting allowance
 * is WA = L - now.
 */
#include "testutil.h"
#include "models/perf.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

TestSuite(qos, .fini = tu_tmp_cleanup);

/* Two types: F (speed 1, the reference) on node n0 and S (speed 0.5) on
 * node n1, gpus_f and gpus_s GPUs each (0: no node of that type). */
static void two_types(struct cluster *c, uint32_t gpus_f, uint32_t gpus_s)
{
    clu_init(c, "two");
    uint32_t f = clu_add_type(c, "F", 16, 1.0);
    uint32_t s = clu_add_type(c, "S", 16, 0.5);
    if (gpus_f)
        clu_add_nodes(c, 1, gpus_f, f, NULL);
    if (gpus_s)
        clu_add_nodes(c, 1, gpus_s, s, NULL);
    clu_finish(c);
}

static double qos_rate(const struct eng *e)
{
    struct met_summary m;
    met_summarize(e, &m);
    return m.qos_rate;
}

/* ---- order */

/* One GPU.  a (no deadline) runs 0-10.  d (no deadline) arrives at 0.5,
 * b at 1 (L = 100 - 5 = 95), c at 2 (L = 16 - 5 = 11).  At 10 SWAF takes
 * c (WA 1) before b (WA 85), and the best-effort d after both: c 10-15, b
 * 15-20, d 20-21; every deadline met.  fifo runs them in arrival order,
 * d 10-11, b 11-16, c 16-21, and c misses its deadline (16). */
static const char swaf_jobs[] =
    "job_id,submit_time,num_gpus,duration,deadline\n"
    "a,0,1,10,\n"
    "d,0.5,1,1,\n"
    "b,1,1,5,100\n"
    "c,2,1,5,16\n";

Test(qos, swaf_order_vs_arrival)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, swaf_jobs);
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "c", 10, 15);
    TU_SCHED(e, "b", 15, 20);
    TU_SCHED(e, "d", 20, 21);
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    e = tu_run(&t, &c, "fifo");
    TU_SCHED(e, "d", 10, 11);
    TU_SCHED(e, "b", 11, 16);
    TU_SCHED(e, "c", 16, 21);
    cr_expect_float_eq(qos_rate(e), 0.5, 1e-12);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* be_order: three best-effort jobs on one GPU.  a 0-10; then arrival
 * order b 10-15, c 15-17, or shortest predicted first c 10-12, b 12-17. */
Test(qos, best_effort_order)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
                 "a,0,1,10\nb,1,1,5\nc,2,1,2\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "b", 10, 15);
    TU_SCHED(e, "c", 15, 17);
    eng_free(e);
    e = tu_run(&t, &c, "qos:be_order=short");
    TU_SCHED(e, "c", 10, 12);
    TU_SCHED(e, "b", 12, 17);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* priority=1: strict classes within the QoS class and within best
 * effort.  One GPU; a (no deadline) 0-10.  At 1: b (deadline 100, 5 s,
 * priority 0, L = 95), h1 and h2 (deadline 300, 5 s, priority 1, L =
 * 295), e (no deadline, 1 s, priority 0); at 1.5 f (no deadline, 2 s,
 * priority 2); at 2 g (deadline 14, 3 s, priority 0, L = 11).
 * priority=1: at 10 the class of 1 goes first: h1 10-15.  At 15 g is
 * past its latest start (11) although h2 is ahead of it in the queue, so
 * it is demoted then; h2 15-20, b 20-25, then best effort by class: f
 * 25-27, e 27-28, g 28-31.  Default (no classes): SWAF g 10-13, b 13-18,
 * h1 18-23, h2 23-28, then e 28-29, f 29-31. */
Test(qos, priority_classes)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline,priority\n"
                 "a,0,1,10,,0\nb,1,1,5,100,0\nh1,1,1,5,300,1\nh2,1,1,5,300,1\n"
                 "e,1,1,1,,0\nf,1.5,1,2,,2\ng,2,1,3,14,0\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos:priority=1");
    TU_SCHED(e, "h1", 10, 15);
    TU_SCHED(e, "h2", 15, 20);
    TU_SCHED(e, "b", 20, 25);
    TU_SCHED(e, "f", 25, 27);
    TU_SCHED(e, "e", 27, 28);
    TU_SCHED(e, "g", 28, 31);
    eng_free(e);
    e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "g", 10, 13);
    TU_SCHED(e, "b", 13, 18);
    TU_SCHED(e, "h1", 18, 23);
    TU_SCHED(e, "h2", 23, 28);
    TU_SCHED(e, "e", 28, 29);
    TU_SCHED(e, "f", 29, 31);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- demotion */

/* One node of 2 F GPUs.  a (no deadline) runs 0-10 on one GPU.  b (2 GPUs,
 * 4 s, deadline 13) arrives at 1: L = 9; it cannot start and is reserved
 * for: one GPU free now and a's at 10, so the shadow time is 10 with no
 * extra GPU.  c (1 GPU, 20 s, no deadline) arrives at 2 and would end at
 * 22 > 10: it may not backfill.  Nothing happens until a ends at 10 --
 * except b's WA turning negative at 9 s + 1 us: b is demoted then, the
 * reservation goes with it, and c starts at that very microsecond
 * (9.000001-29.000001).  b, now best effort, needs both GPUs: at 10 only
 * one is free, so it runs after c, 29.000001-33.000001.
 * demote=never: b keeps its reservation and starts at 10 (10-14, still
 * late), c after it 14-34. */
static const char demote_jobs[] =
    "job_id,submit_time,num_gpus,duration,deadline\n"
    "a,0,1,10,\n"
    "b,1,2,4,13\n"
    "c,2,1,20,\n";

Test(qos, demotion_at_the_exact_microsecond)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, demote_jobs);
    tu_simple_cluster(&c, 1, 2);
    struct eng *e = tu_run(&t, &c, "qos");
    uint32_t b = tu_job(&t, "b"), cc = tu_job(&t, "c");
    TU_SCHED(e, "a", 0, 10);
    cr_expect_eq(e->end[cc].first_start, US(9) + 1);
    cr_expect_eq(e->end[cc].finish, US(29) + 1);
    cr_expect_eq(e->end[b].first_start, US(29) + 1);
    cr_expect_eq(e->end[b].finish, US(33) + 1);
    eng_free(e);
    e = tu_run(&t, &c, "qos:demote=never");
    TU_SCHED(e, "b", 10, 14);
    TU_SCHED(e, "c", 14, 34);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* One GPU.  a (no deadline) 0-10.  b (4 s, deadline 12, L = 8) arrives at
 * 1 and c (5 s, deadline 100, L = 95) at 2.  b's WA turns negative at
 * 8 s + 1 us: it is demoted and served after the QoS job c: c 10-15, b
 * 15-19 (late anyway).  demote=never keeps b first: b 10-14, c 14-19. */
Test(qos, demoted_job_served_after_qos_jobs)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,10,\nb,1,1,4,12\nc,2,1,5,100\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "c", 10, 15);
    TU_SCHED(e, "b", 15, 19);
    eng_free(e);
    e = tu_run(&t, &c, "qos:demote=never");
    TU_SCHED(e, "b", 10, 14);
    TU_SCHED(e, "c", 14, 19);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A job that arrives with its deadline already out of reach is best
 * effort at once.  One GPU: a (no deadline) 0-10; b arrives at 1 with
 * 5 s to run and deadline 5 (WA = -1): best effort, behind the QoS job c
 * (arrives at 2, deadline 100) even though b arrived first. */
Test(qos, hopeless_on_arrival_is_best_effort)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,10,\nb,1,1,5,5\nc,2,1,5,100\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "c", 10, 15);
    TU_SCHED(e, "b", 15, 20);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- placement */

/* F (1 GPU, speed 1) on n0 and S (1 GPU, speed 0.5) on n1.
 * a (10 s, deadline 30) at 0 meets its deadline on either type (S: 0 + 20
 * <= 30); c (10 s, deadline 12) at 1 only on F (1 + 10 <= 12; S: 21).
 * cheapest: a takes the slow S (0-20), leaving F to c (1-11): both met.
 * fastest: a takes F (0-10); at 1 c finds only S free, where it would be
 * late, so it waits (reserving F); its WA turns negative at 2 s + 1 us
 * (L = 12 - 10 = 2), and as best effort it takes the free S then:
 * 2.000001-22.000001, late. */
Test(qos, cheapest_sufficient_type)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,10,30\nc,1,1,10,12\n");
    two_types(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "a", 0, 20);
    TU_SCHED(e, "c", 1, 11);
    tu_placement(e, "a", "n1:0");
    tu_placement(e, "c", "n0:0");
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    e = tu_run(&t, &c, "qos:placement_rule=fastest");
    TU_SCHED(e, "a", 0, 10);
    tu_placement(e, "a", "n0:0");
    uint32_t cc = tu_job(&t, "c");
    cr_expect_eq(e->end[cc].first_start, US(2) + 1);
    cr_expect_eq(e->end[cc].finish, US(22) + 1);
    tu_placement(e, "c", "n1:0");
    cr_expect_float_eq(qos_rate(e), 0.5, 1e-12);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A QoS job whose only meeting type is busy waits for it even though a
 * slower type is idle; best effort takes whatever type has room.  F and S,
 * one GPU each.  x (no deadline, 3 s) at 0 takes the faster F (0-3).  r
 * (2 s, deadline 5.5) at 2 would end at 6 on S, late; on F it meets the
 * deadline if started by 3.5: it waits for F, reserved there at 3 (x's
 * predicted end), and runs 3-5.  y (no deadline, 1 s) at 2.5 may not
 * delay r on F, but S is free and outside the reservation: 2.5-4.5. */
Test(qos, waits_for_a_meeting_type)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "x,0,1,3,\nr,2,1,2,5.5\ny,2.5,1,1,\n");
    two_types(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "x", 0, 3);
    tu_placement(e, "x", "n0:0");
    TU_SCHED(e, "r", 3, 5);
    tu_placement(e, "r", "n0:0");
    TU_SCHED(e, "y", 2.5, 4.5);
    tu_placement(e, "y", "n1:0");
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- reservation */

/* One node of 4 F GPUs.  a (2 GPUs, 10 s, no deadline) 0-10.  r (4 GPUs,
 * 5 s, deadline 100, L = 95) at 1 cannot start: shadow time 10 (2 free +
 * a's 2), no extra GPU.  s (1 GPU, 8 s) at 2 ends at 10 <= 10: it
 * backfills, 2-10.  l (1 GPU, 9 s) at 3 would end at 12 and delay r: it
 * waits.  q (1 GPU, 5 s, deadline 200: L = 195, behind r) at 4 ends at 9:
 * it backfills on the last GPU, 4-9.  At 9 l still may not start (18 >
 * 10).  r 10-15, then l 15-24.
 * reserve=0: l starts at 3 (3-12); q finds no GPU until a and s end at 10
 * and, r needing all four, starts then (10-15); r waits for q, 15-20.
 * backfill_window=0: nothing passes r; at 10 r starts (10-15); q is next
 * (the QoS class first), 15-20, with s 15-23 and l 15-24 beside it. */
static const char resv_jobs[] =
    "job_id,submit_time,num_gpus,duration,deadline\n"
    "a,0,2,10,\n"
    "r,1,4,5,100\n"
    "s,2,1,8,\n"
    "l,3,1,9,\n"
    "q,4,1,5,200\n";

Test(qos, reservation_holds_for_the_most_urgent)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, resv_jobs);
    tu_simple_cluster(&c, 1, 4);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "s", 2, 10);
    TU_SCHED(e, "q", 4, 9);
    TU_SCHED(e, "r", 10, 15);
    TU_SCHED(e, "l", 15, 24);
    eng_free(e);
    e = tu_run(&t, &c, "qos:reserve=0");
    TU_SCHED(e, "s", 2, 10);
    TU_SCHED(e, "l", 3, 12);
    TU_SCHED(e, "q", 10, 15);
    TU_SCHED(e, "r", 15, 20);
    eng_free(e);
    e = tu_run(&t, &c, "qos:backfill_window=0");
    TU_SCHED(e, "r", 10, 15);
    TU_SCHED(e, "q", 15, 20);
    TU_SCHED(e, "s", 15, 23);
    TU_SCHED(e, "l", 15, 24);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* EASY's extra GPUs.  One node of 4 F GPUs.  a (2 GPUs, 10 s) 0-10.  r
 * (3 GPUs, 5 s, deadline 100) at 1: shadow 10 with 2 + 2 - 3 = 1 extra
 * GPU.  l (1 GPU, 50 s) at 2 ends long after 10 but fits the extra GPU:
 * 2-52.  l2 (1 GPU, 50 s) at 3: no extra left, it waits; r 10-15, l2
 * 15-65.  reserve=0: l2 starts at 3 (3-53) and r waits for three free
 * GPUs until l ends: 52-57. */
Test(qos, reservation_extra_gpus)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,2,10,\nr,1,3,5,100\nl,2,1,50,\nl2,3,1,50,\n");
    tu_simple_cluster(&c, 1, 4);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "l", 2, 52);
    TU_SCHED(e, "r", 10, 15);
    TU_SCHED(e, "l2", 15, 65);
    eng_free(e);
    e = tu_run(&t, &c, "qos:reserve=0");
    TU_SCHED(e, "l", 2, 52);
    TU_SCHED(e, "l2", 3, 53);
    TU_SCHED(e, "r", 52, 57);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* The reservation holds one type only; jobs on the other type pass.  F (4
 * GPUs) and S (1 GPU).  As in reservation_holds_for_the_most_urgent, r
 * (4 GPUs: only F can hold it) is reserved on F at 10.  l (1 GPU, 9 s, no
 * deadline) at 3 may not take F, but S is outside the reservation: it
 * runs there, 3-21 (9 s at speed 0.5).  q at 4 would meet its deadline on
 * either type; S, the cheaper, is busy, and on F it ends at 9 <= 10: 4-9. */
Test(qos, reservation_leaves_other_types)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, resv_jobs);
    two_types(&c, 4, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "s", 2, 10);
    tu_placement(e, "s", "n0:2");
    TU_SCHED(e, "r", 10, 15);
    TU_SCHED(e, "l", 3, 21);
    tu_placement(e, "l", "n1:0");
    TU_SCHED(e, "q", 4, 9);
    tu_placement(e, "q", "n0:3");
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- preemption (preempt=1) */

static uint32_t preemptions(const struct eng *e, const char *id)
{
    return e->end[tu_job(e->tr, id)].preemptions;
}

/* One GPU.  a (no deadline, 10 s) runs from 0.  r (3 s, deadline 6, so
 * L = 3) arrives at 2: no GPU is free, and its reservation (shadow 10,
 * 10 + 3 > 6) misses.  preempt=1: a is best effort, so r stops it and runs
 * 2-5 (met); a, 8 s of work left, resumes when r ends: 5-13.  With
 * preempt_cost=1 a has 9 s left: 5-14.  preempt=0 (the default): r waits,
 * is demoted at 3 s + 1 us, and runs 10-13 after a (missed). */
static const char pre_be_jobs[] =
    "job_id,submit_time,num_gpus,duration,deadline\n"
    "a,0,1,10,\n"
    "r,2,1,3,6\n";

Test(qos, preempt_stops_best_effort)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, pre_be_jobs);
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "r", 2, 5);
    TU_SCHED(e, "a", 0, 13);
    cr_expect_eq(preemptions(e, "a"), 1);
    cr_expect_eq(preemptions(e, "r"), 0);
    cr_expect_eq(e->end[tu_job(&t, "a")].wait, US(3));
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    e = tu_run(&t, &c, "qos:preempt=1,preempt_cost=1");
    TU_SCHED(e, "r", 2, 5);
    TU_SCHED(e, "a", 0, 14);
    cr_expect_eq(preemptions(e, "a"), 1);
    eng_free(e);
    e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "r", 10, 13);
    cr_expect_eq(preemptions(e, "a"), 0);
    cr_expect_float_eq(qos_rate(e), 0.0, 1e-12);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* priority=1 and preemption: r (priority 1, deadline 6, 3 s) at 2 may
 * stop a (priority 0, deadline 100, 10 s: a QoS job with room to spare is
 * a victim anyway); but p (priority 2, no deadline) is never stopped for
 * a job of a lower class, though best effort.  One GPU each time. */
Test(qos, priority_classes_and_preemption)
{
    struct trace t;
    struct cluster c;
    tu_simple_cluster(&c, 1, 1);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline,priority\n"
                 "p,0,1,10,,2\nr,2,1,3,6,1\n");
    struct eng *e = tu_run(&t, &c, "qos:preempt=1,priority=1");
    TU_SCHED(e, "p", 0, 10);
    TU_SCHED(e, "r", 10, 13);
    eng_free(e);
    e = tu_run(&t, &c, "qos:preempt=1");     /* without classes: stopped */
    TU_SCHED(e, "r", 2, 5);
    cr_expect_eq(preemptions(e, "p"), 1);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* No preemption when waiting meets the deadline.  As above, but r's
 * deadline is 14: its reservation (10 + 3 = 13 <= 14) meets it, so r
 * waits and runs 10-13; a is never stopped. */
Test(qos, preempt_not_when_the_reservation_meets)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,10,\nr,2,1,3,14\n");
    tu_simple_cluster(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "a", 0, 10);
    TU_SCHED(e, "r", 10, 13);
    cr_expect_eq(preemptions(e, "a"), 0);
    cr_expect_eq(e->preemptions, 0);
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* A QoS job may be stopped only with room to spare.  One GPU.  q (10 s,
 * deadline D) runs from 0; r (3 s, deadline 6) arrives at 2 and its
 * reservation (10 + 3) misses.  q is less urgent (L = D - 8 > 3).
 * D = 100: restarted at X = max(2 + 3, shadow 10) = 10 with 8 s left, q
 * would end at 18 <= 100: r stops it, 2-5, and q resumes at once, 5-13;
 * both met.  With preempt_cost=2, q has 10 s left: 5-15 (X + 10 = 20 <=
 * 100).  preempt_qos=0: q is not best effort, so nothing is stopped: q
 * 0-10, r (demoted) 10-13, missed.  D = 15: X + 8 = 18 > 15, no room:
 * r waits, q 0-10 (met), r 10-13 (missed) -- even though q would still
 * have met 15 had it resumed when r ended (5 + 8 = 13): the rule counts
 * from the later shadow time. */
Test(qos, preempt_qos_job_with_room_to_spare)
{
    struct trace t;
    struct cluster c;
    tu_simple_cluster(&c, 1, 1);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "q,0,1,10,100\nr,2,1,3,6\n");
    struct eng *e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "r", 2, 5);
    TU_SCHED(e, "q", 0, 13);
    cr_expect_eq(preemptions(e, "q"), 1);
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    e = tu_run(&t, &c, "qos:preempt=1,preempt_cost=2");
    TU_SCHED(e, "r", 2, 5);
    TU_SCHED(e, "q", 0, 15);
    eng_free(e);
    e = tu_run(&t, &c, "qos:preempt=1,preempt_qos=0");
    TU_SCHED(e, "q", 0, 10);
    TU_SCHED(e, "r", 10, 13);
    cr_expect_eq(e->preemptions, 0);
    cr_expect_float_eq(qos_rate(e), 0.5, 1e-12);
    eng_free(e);
    trc_free(&t);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "q,0,1,10,15\nr,2,1,3,6\n");
    e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "q", 0, 10);
    TU_SCHED(e, "r", 10, 13);
    cr_expect_eq(e->preemptions, 0);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Victims: the fewest GPU-seconds disturbed, best effort first.  One node
 * of 4 GPUs.  At 0 the QoS job q (1 GPU, 50 s, deadline 1000) starts
 * first, then the best-effort b1 (1 GPU, 100 s) and b2 (2 GPUs, 100 s):
 * the node is full.  r (2 GPUs, 3 s, deadline 5) arrives at 1; its shadow
 * is 100 (q frees one GPU at 50): it would miss.  Each victim disturbs its
 * GPUs x 3 s: {b2} 6 GPU-s, all best effort; {b1, q} also 6, but 3 of
 * them q's (q would have room: 100 + 49 <= 1000).  r takes b2's GPUs,
 * 1-4; b2 resumes there, 4-103 (99 s left); b1 and q run on.
 * Best effort first even when it disturbs more: the same node running the
 * QoS jobs q1 and q2 (1 GPU, 50 s, deadline 1000 each) and b2; r (1 GPU,
 * 3 s, deadline 5) at 1 (shadow 50: it would miss).  Stopping q1 or q2
 * disturbs 3 GPU-s (each would have room: 50 + 49 <= 1000), b2 6, all
 * best effort: r stops b2 and runs 1-4 on one of its GPUs; b2 resumes,
 * 4-103. */
Test(qos, preempt_victims_fewest_gpu_seconds)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "b1,0,1,100,\nb2,0,2,100,\nq,0,1,50,1000\nr,1,2,3,5\n");
    tu_simple_cluster(&c, 1, 4);
    struct eng *e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "q", 0, 50);
    TU_SCHED(e, "b1", 0, 100);
    TU_SCHED(e, "r", 1, 4);
    TU_SCHED(e, "b2", 0, 103);
    cr_expect_eq(preemptions(e, "b2"), 1);
    cr_expect_eq(e->preemptions, 1);
    const uint32_t *gr = eng_first_gpus(e, tu_job(&t, "r"));
    const uint32_t *gb = eng_first_gpus(e, tu_job(&t, "b2"));
    cr_assert(gr && gb);
    cr_expect(gr[0] == gb[0] && gr[1] == gb[1]);
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    trc_free(&t);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "q1,0,1,50,1000\nb2,0,2,100,\nq2,0,1,50,1000\nr,1,1,3,5\n");
    e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "q1", 0, 50);
    TU_SCHED(e, "q2", 0, 50);
    TU_SCHED(e, "r", 1, 4);
    TU_SCHED(e, "b2", 0, 103);
    cr_expect_eq(preemptions(e, "b2"), 1);
    cr_expect_eq(e->preemptions, 1);
    gr = eng_first_gpus(e, tu_job(&t, "r"));
    gb = eng_first_gpus(e, tu_job(&t, "b2"));
    cr_expect(gr[0] == gb[0] || gr[0] == gb[1]);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Only on a type that meets the urgent job's deadline, and a deadline job
 * that cannot meet it is best effort.  F (speed 1) and S (speed 0.5), one
 * GPU each.  h (10 s, deadline 5: hopeless at arrival) is best effort and
 * takes the fast F, 0-; b (no deadline, 10 s) takes S, 0-20.  r (3 s,
 * deadline 6) at 2 meets its deadline on F only (S: 2 + 6 > 6): it stops
 * h there, 2-5, not b.  c (1 s, deadline 100) arrives at 3; its
 * reservation (F free at 5) meets its deadline: no preemption.  At 5 the
 * QoS job c goes before the best-effort h: c 5-6 on F, then h (8 s left)
 * 6-14 on F. */
Test(qos, preempt_on_a_meeting_type)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "h,0,1,10,5\nb,0,1,10,\nr,2,1,3,6\nc,3,1,1,100\n");
    two_types(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos:preempt=1");
    TU_SCHED(e, "b", 0, 20);
    tu_placement(e, "b", "n1:0");
    TU_SCHED(e, "r", 2, 5);
    tu_placement(e, "r", "n0:0");
    TU_SCHED(e, "c", 5, 6);
    TU_SCHED(e, "h", 0, 14);
    cr_expect_eq(preemptions(e, "h"), 1);
    cr_expect_eq(e->preemptions, 1);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* The last chance.  Two nodes of 2 GPUs.  The best-effort a and b (1 GPU
 * each) share n0, c and d n1; b and d (5 s) end at 5, a and c (100 s) run
 * on.  r (2 GPUs, 3 s, deadline 20, L = 17) arrives at 6: two GPUs are
 * free, but on two nodes.  Counting GPUs its shadow time is now, so
 * waiting might still meet its deadline (not before 6 s + 1 us: 6 + 1 us +
 * 3 <= 20): no preemption; it asks for a wake-up at L.  At 17 waiting any
 * longer misses (17 s + 1 us + 3 > 20): it stops a (n0, the lower of two
 * equal choices) and runs 17-20, met.  a, 83 s left, queues again at the
 * end of the instant and moves to the free GPU of n1 a microsecond later:
 * 17.000001-100.000001 (restarted within the instant, the engine would
 * undo its preemption: a free migration).  With preempt_cost=2 it ends
 * 2 s later.  preempt=0: r is demoted at 17 s + 1 us and runs when a and
 * c end, 100-103. */
Test(qos, preempt_at_the_last_chance)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,100,\nb,0,1,5,\nc,0,1,100,\nd,0,1,5,\nr,6,2,3,20\n");
    tu_simple_cluster(&c, 2, 2);
    struct eng *e = tu_run(&t, &c, "qos:preempt=1");
    tu_placement(e, "a", "n0:0");
    tu_placement(e, "b", "n0:1");
    TU_SCHED(e, "r", 17, 20);
    tu_placement(e, "r", "n0:0-1");
    uint32_t a = tu_job(&t, "a");
    cr_expect_eq(e->end[a].first_start, 0);
    cr_expect_eq(e->kept[a].last_start, US(17) + 1);
    cr_expect_eq(e->end[a].finish, US(100) + 1);
    cr_expect_eq(e->kept[a].gpus[0], 3u);     /* n1:1 */
    TU_SCHED(e, "c", 0, 100);
    cr_expect_eq(preemptions(e, "a"), 1);
    cr_expect_eq(e->preemptions, 1);
    cr_expect_float_eq(qos_rate(e), 1.0, 1e-12);
    eng_free(e);
    e = tu_run(&t, &c, "qos:preempt=1,preempt_cost=2");
    TU_SCHED(e, "r", 17, 20);
    cr_expect_eq(e->end[a].finish, US(102) + 1);
    eng_free(e);
    e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "r", 100, 103);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* ---- options */

static int try_create(const char *spec, char *msg, size_t n)
{
    const struct policy *p;
    struct pol_args a;
    struct dl_error err = { 0 };
    int rc = pol_parse(spec, &p, &a, &err);
    if (!rc) {
        struct cluster c;
        clu_builtin_demo(&c);
        rc = eng_check_policy(p, &a, &c, &err);
        clu_free(&c);
    }
    snprintf(msg, n, "%s", err.msg);
    return rc;
}

/* elastic=1.  One node of 4 GPUs (speed 1, no models: n of g GPUs run at
 * n/g of the speed).  a holds 2 GPUs 0-100.  b (4 GPUs, 10 s) arrives at 1
 * with a deadline of 31: 4 GPUs are not free, but 2 are, and on 2 GPUs b
 * takes 20 s: 1 + 20 <= 31, so b starts at 1 on GPUs 2-3 and ends at 21.
 * elastic=0: b waits for a, 100-110, and misses.  With a deadline of 15,
 * neither 2 GPUs (20 s) nor 1 (40 s) meets it: b waits as without
 * elasticity. */
Test(qos, elastic_starts_a_smaller_gang)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,2,100,1000\nb,1,4,10,31\n");
    tu_simple_cluster(&c, 1, 4);
    struct eng *e = tu_run(&t, &c, "qos:elastic=1");
    TU_SCHED(e, "b", 1, 21);
    tu_placement(e, "b", "n0:2-3");
    cr_expect_eq(e->kept[tu_job(&t, "b")].ngpus, 2);
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_eq(m.qos_met, 2);
    /* the GPU work done is still the trace's: 2 x 100 + 4 x 10 */
    cr_expect_float_eq(e->work_done, US(240), 1);
    eng_free(e);
    e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "b", 100, 110);
    eng_free(e);
    trc_free(&t);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,2,100,1000\nb,1,4,10,15\n");
    e = tu_run(&t, &c, "qos:elastic=1");
    TU_SCHED(e, "b", 100, 110);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* margin=F.  F (speed 1) and S (speed 0.5), one GPU each.  b (1 GPU,
 * 10 s, deadline 25) arrives at 0.  margin=0: the cheapest type meeting
 * the deadline is S (0 + 20 <= 25): b runs 0-20.  margin=0.5: S needs
 * 20 + 10 = 30 > 25, F 10 + 5 = 15 <= 25: b runs on F, 0-10.  margin=2:
 * F needs 10 + 20 = 30 > 25 too; no type meets the margin and b takes the
 * fastest with room, F, 0-10, as a job no type meets does. */
Test(qos, margin_needs_room_before_the_deadline)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\nb,0,1,10,25\n");
    two_types(&c, 1, 1);
    uint32_t b = tu_job(&t, "b");
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "b", 0, 20);
    cr_expect_eq(eng_last_type(e, b), 1);
    eng_free(e);
    e = tu_run(&t, &c, "qos:margin=0");
    TU_SCHED(e, "b", 0, 20);
    eng_free(e);
    e = tu_run(&t, &c, "qos:margin=0.5");
    TU_SCHED(e, "b", 0, 10);
    cr_expect_eq(eng_last_type(e, b), 0);
    eng_free(e);
    /* exactly at the bound: margin 0.25 on S is 20 + 5 = 25 <= 25 */
    e = tu_run(&t, &c, "qos:margin=0.25");
    TU_SCHED(e, "b", 0, 20);
    eng_free(e);
    e = tu_run(&t, &c, "qos:margin=2");
    TU_SCHED(e, "b", 0, 10);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* margin in the reservation.  One F GPU (speed 1), one S GPU (0.5).  a
 * (no deadline) holds F 0-10 and s (no deadline) holds S 0-30.  b (1 GPU,
 * 4 s, deadline 16) arrives at 1: no GPU free; F frees at 10, 10 + 4 <= 16
 * (margin 0), so b waits for F and runs 10-14.  With margin=1 it needs
 * 10 + 4 + 4 = 18 > 16 on F and 30 + 8 + 8 on S: no type meets at its
 * shadow time, and the reservation falls back to the earliest finish, F:
 * still 10-14, and nothing else changes.  The same margin on a job that
 * could start at once on S (S idle, 8 s + 8 > 16 - 1) moves it to F. */
Test(qos, margin_in_the_reservation)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,1,10,\ns,0,1,15,\nb,1,1,4,16\n");
    two_types(&c, 1, 1);
    struct eng *e = tu_run(&t, &c, "qos");
    TU_SCHED(e, "b", 10, 14);
    eng_free(e);
    e = tu_run(&t, &c, "qos:margin=1");
    TU_SCHED(e, "b", 10, 14);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* Elastic growth.  One node of 4 GPUs (speed 1, no models: n of g GPUs
 * run at n/g of the speed).  a holds 2 GPUs 0-5.  b (4 GPUs, 10 s,
 * deadline 31) arrives at 1 and starts on GPUs 2-3 (2 GPUs, 20 s predicted,
 * 1 + 20 <= 31).  At 5 a ends and GPUs 0-1 are idle with nothing queued.
 * grow=idle: b grows to 4 GPUs at 5; its work left is 10 - 4 x 0.5 = 8
 * reference-seconds, at speed 1: 8 s instead of 16 s, the ratio of the
 * speeds (0.5 / 1), so b ends at 13.  grow=need (default): b's forecast
 * from its progress (16 s left, ending 21 <= 31) meets its deadline, so it
 * keeps 2 GPUs and ends at 21; with margin=0.5 it was started predicted to
 * end by 31 - 10 (1 + 20 + 10 <= 31) and still needs no growth. */
Test(qos, elastic_growth_by_the_speed_ratio)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
                 "a,0,2,5,1000\nb,1,4,10,31\n");
    tu_simple_cluster(&c, 1, 4);
    uint32_t b = tu_job(&t, "b");
    struct eng *e = tu_run(&t, &c, "qos:elastic=1,grow=idle");
    TU_SCHED(e, "b", 1, 13);
    tu_placement(e, "b", "n0:2-3");     /* the first allocation */
    cr_expect_eq(e->kept[b].ngpus, 4);
    cr_expect_eq(e->kept[b].resizes, 1);
    cr_expect_eq(e->resizes, 1);
    cr_expect_eq(e->end[b].preemptions, 0);
    /* the GPU work is still the trace's: 2 x 5 + 4 x 10 */
    cr_expect_float_eq(e->work_done, US(50), 1);
    eng_free(e);
    e = tu_run(&t, &c, "qos:elastic=1");
    TU_SCHED(e, "b", 1, 21);
    cr_expect_eq(e->kept[b].resizes, 0);
    eng_free(e);
    e = tu_run(&t, &c, "qos:elastic=1,margin=0.5");
    TU_SCHED(e, "b", 1, 21);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
}

/* The same growth under the zoo's runtime model: b (resnet50, 4 GPUs)
 * starts on 2 V100s at 1 and grows to 4 at 5.  Its work left at 5 is
 * W - r2 x 4 s (r2: the runtime model's speed on 2 GPUs over that of its
 * 4-GPU reference gang), then it runs at r4 = 1: it ends at 5 + ceil((W -
 * 4 s r2) / r4), so its remaining time shrinks by exactly r2 / r4. */
Test(qos, elastic_growth_at_the_runtime_models_speeds)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec zoo;
    tu_spec_zoo(&zoo, NULL, NULL);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline,model\n"
                 "a,0,2,5,1000,resnet50\nb,1,4,10,40,resnet50\n");
    clu_init(&c, "v100");
    clu_add_nodes(&c, 1, 4, clu_add_type(&c, "V100", 32, 1.0), NULL);
    clu_finish(&c);
    uint32_t b = tu_job(&t, "b");
    struct eng *e = tu_run_models(&t, &c, "qos:elastic=1,grow=idle", &zoo);
    double r2 = mdl_perf_rate_n(e->perf, b, 0, 2, false);
    double r4 = mdl_perf_rate(e->perf, b, 0, false);
    cr_assert(r2 > 0 && r2 < r4, "r2 %g r4 %g", r2, r4);
    double left = (double)US(10) - r2 * (double)US(4);
    simtime_t fin = US(5) + (simtime_t)ceil(left / r4 - 1e-9);
    cr_expect_eq(e->end[b].first_start, US(1));
    cr_expect_eq(e->end[b].finish, fin, "finish %lld, expected %lld",
                 (long long)e->end[b].finish, (long long)fin);
    cr_expect_eq(e->kept[b].ngpus, 4);
    eng_free(e);
    /* without growth it ends at 1 + ceil(W / r2) */
    e = tu_run_models(&t, &c, "qos:elastic=1", &zoo);
    simtime_t fin2 = US(1) + (simtime_t)ceil((double)US(10) / r2 - 1e-9);
    cr_expect_eq(e->end[b].finish, fin2);
    /* remaining time after 5: (fin2 - 5) : (fin - 5) = r4 : r2 */
    cr_expect_float_eq((double)(fin - US(5)) / (double)(fin2 - US(5)),
                       r2 / r4, 1e-6);
    eng_free(e);
    trc_free(&t);
    clu_free(&c);
    mdl_spec_free(&zoo);
}

Test(qos, options)
{
    char msg[512];
    cr_expect_eq(try_create("qos", msg, sizeof msg), 0);
    cr_expect_eq(try_create("qos:demote=never,be_order=short,placement_rule=fastest,"
                            "reserve=0,backfill_window=0,elastic=1,placement=pool",
                            msg, sizeof msg), 0, "%s", msg);
    cr_expect_eq(try_create("qos:preempt=1,preempt_qos=0,preempt_cost=2.5",
                            msg, sizeof msg), 0, "%s", msg);
    static const struct {
        const char *spec, *says;
    } bad[] = {
        { "qos:demote=soon", "demote=soon" },
        { "qos:be_order=random", "be_order=random" },
        { "qos:placement_rule=best", "placement_rule=best" },
        { "qos:reserve=2", "reserve=2" },
        { "qos:backfill_window=-1", "backfill_window=-1" },
        { "qos:elastic=2", "elastic=2" },
        { "qos:elastic=yes", "elastic=yes" },
        { "qos:placement=spread", "placement=spread" },
        { "qos:deadline=1", "no option 'deadline'" },
        { "qos:preempt=2", "preempt=2" },
        { "qos:preempt_qos=-1", "preempt_qos=-1" },
        { "qos:preempt_cost=-1", "preempt_cost=-1" },
        { "qos:margin=-0.1", "margin=-0.1" },
        { "qos:margin=x", "margin=x" },
        { "qos:grow=always", "grow=always" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_expect_eq(try_create(bad[i].spec, msg, sizeof msg), DL_EINPUT, "%s",
                     bad[i].spec);
        cr_expect(strstr(msg, bad[i].says), "%s: %s", bad[i].spec, msg);
    }
    /* dlsim policies lists it with its options and what blocking does */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pol_print_list(f, false);
    fclose(f);
    const char *q = strstr(buf, "  qos - ");
    cr_assert(q, "%s", buf);
    for (const char *w = "demote\0be_order\0placement_rule\0reserve\0"
                         "backfill_window\0elastic\0reservation\0runtime_noise\0"
                         "preempt\0preempt_qos\0preempt_cost\0margin\0grow\0";
         *w; w += strlen(w) + 1)
        cr_expect(strstr(q, w), "policies lacks %s", w);
    free(buf);
}

/* ---- random workloads */

static void random_cluster(struct cluster *c, gsl_rng *r)
{
    static const char *names[] = { "K80", "P100", "V100" };
    static const double speeds[] = { 0.35, 0.6, 1.0 };
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    clu_init(c, "random");
    uint32_t nt = 1 + gsl_rng_uniform_int(r, 3);
    for (uint32_t t = 0; t < nt; t++)
        clu_add_type(c, names[t], 16, speeds[t]);
    uint32_t ng = 1 + gsl_rng_uniform_int(r, 4);
    for (uint32_t g = 0; g < ng; g++)
        clu_add_nodes(c, 1 + gsl_rng_uniform_int(r, 3), sizes[gsl_rng_uniform_int(r, 4)],
                      g < nt ? g : gsl_rng_uniform_int(r, nt), NULL);
    clu_finish(c);
}

static void random_trace(struct trace *t, const struct cluster *c, gsl_rng *r,
                         uint32_t n)
{
    static const uint32_t gpus[] = { 1, 1, 1, 2, 2, 4, 8, 16 };
    static const char *models[] = { "resnet50", "vgg16", "bert", "lstm", "gpt2" };
    trc_init(t, "random", n);
    double now = 0, gap = 1 + gsl_rng_uniform(r) * 100;
    for (uint32_t j = 0; j < n; j++) {
        struct trc_job *tj = &t->jobs[j];
        char id[16];
        snprintf(id, sizeof id, "r%u", j);
        tj->id = arena_strndup(t->arena, id, strlen(id));
        if (gsl_rng_uniform(r) > 0.2)
            now += gsl_ran_exponential(r, gap);
        tj->submit = (simtime_t)llround(now * 1e6);
        tj->num_gpus = gpus[gsl_rng_uniform_int(r, 8)];
        tj->duration = 1 + (simtime_t)llround(gsl_ran_lognormal(r, 4, 1.2) * 1e6);
        tj->deadline = SIM_NEVER;
        if (gsl_rng_uniform(r) < 0.8)
            tj->deadline = tj->submit +
                           (simtime_t)llround((0.5 + 4 * gsl_rng_uniform(r)) *
                                              (double)tj->duration);
        if (gsl_rng_uniform(r) < 0.1) {
            uint32_t ty = gsl_rng_uniform_int(r, c->ntypes);
            tj->gpu_type = c->types[ty].name;
        }
        tj->model = models[gsl_rng_uniform_int(r, 5)];
        tj->line = j + 2;
    }
}

static const char *const variants[] = {
    "qos", "qos:reserve=0", "qos:demote=never", "qos:placement_rule=fastest",
    "qos:be_order=short,backfill_window=2", "qos:placement=pool",
    "qos:placement=pool,reserve=0,demote=never", "qos:backfill_window=0",
    "qos:elastic=1", "qos:elastic=1,placement=pool,placement_rule=fastest",
    "qos:elastic=1,grow=idle", "qos:elastic=1,grow=idle,placement=pool",
    "qos:margin=0.3", "qos:margin=1,elastic=1,reserve=0",
};

/* Every job finishes exactly once (or is rejected, only when it can never
 * fit), never preempted, for exactly its run time on its type; the same
 * run twice gives the same schedule; and with models and noisy
 * predictions the invariants still hold. */
/* The source tree's zoo with noisy runtime predictions (sigma 0.5). */
static void noisy_zoo(struct mdl_spec *noisy)
{
    tu_spec_zoo(noisy, "noise.yaml",
                "kind: models\npredict: {runtime_noise: 0.5}\n");
}

Test(qos, random_workloads, .timeout = 600)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 4242);
    struct mdl_spec noisy;
    struct dl_error err = { 0 };
    noisy_zoo(&noisy);
    uint32_t shrunk = 0, grown = 0;
    for (int round = 0; round < 30; round++) {
        struct cluster c;
        struct trace t;
        random_cluster(&c, r);
        random_trace(&t, &c, r, 100 + gsl_rng_uniform_int(r, 200));
        for (size_t p = 0; p < sizeof variants / sizeof *variants; p++) {
            const char *pol = variants[p];
            bool pool = strstr(pol, "pool") != NULL;
            struct eng *e = tu_run(&t, &c, pol);
            for (uint32_t j = 0; j < t.njobs; j++) {
                const struct trc_job *tj = &t.jobs[j];
                const struct job_rt *rt = &e->kept[j];
                uint32_t req = tj->gpu_type ? clu_type_find(&c, tj->gpu_type) : SIM_NONE;
                bool fits = plc_ever_fits(&c, tj->num_gpus, req,
                                          pool ? PLC_POOL : PLC_CONSOLIDATED);
                cr_assert_eq(e->state[j], fits ? JOB_DONE : JOB_REJECTED,
                             "round %d %s job %s", round, pol, tj->id);
                if (!fits)
                    continue;
                cr_assert_eq(rt->preemptions, 0);
                cr_assert_leq(tj->submit, rt->first_start);
                /* exact predictions: a gang grows only with grow=idle */
                if (rt->resizes) {
                    cr_assert(strstr(pol, "grow=idle"), "%s grew a gang", pol);
                    cr_assert_gt(rt->ngpus, rt->first_ngpus);
                    grown++;
                    continue;
                }
                /* an elastic start on n of its g GPUs runs at n/g speed */
                double speed = c.types[rt->type].speed;
                if (rt->ngpus != tj->num_gpus) {
                    cr_assert(strstr(pol, "elastic=1"), "%s shrank a gang", pol);
                    speed = speed * rt->ngpus / tj->num_gpus;
                    shrunk++;
                }
                simtime_t run = (simtime_t)ceil((double)tj->duration / speed - 1e-9);
                cr_assert_eq(rt->finish - rt->first_start, run,
                             "round %d %s job %s", round, pol, tj->id);
                cr_assert_eq(rt->wait, rt->first_start - tj->submit);
            }
            tu_assert_rerun_same(e, &t, &c, pol);
            eng_free(e);
            /* with the zoo and noisy predictions */
            struct eng_opts o = { .policy = pol, .seed = (uint64_t)round + 1,
                                  .check = true, .models = &noisy };
            e = tu_eng_new(&t, &c, &o, &err);
            cr_assert(e, "%s", err.msg);
            cr_assert_eq(eng_run(e), 0, "round %d %s: %s", round, pol, e->fail_msg);
            for (uint32_t j = 0; j < t.njobs; j++)
                cr_assert(e->state[j] == JOB_DONE || e->state[j] == JOB_REJECTED);
            eng_free(e);
        }
        trc_free(&t);
        clu_free(&c);
    }
    mdl_spec_free(&noisy);
    cr_expect_gt(shrunk, 0, "elastic=1 never started a smaller gang");
    cr_expect_gt(grown, 0, "grow=idle never grew a gang");
    gsl_rng_free(r);
}

static const char *const preempt_variants[] = {
    "qos:preempt=1", "qos:preempt=1,preempt_cost=30",
    "qos:preempt=1,placement=pool", "qos:preempt=1,preempt_qos=0",
    "qos:preempt=1,demote=never,placement_rule=fastest",
    "qos:preempt=1,reserve=0,be_order=short,preempt_cost=5",
    "qos:preempt=1,elastic=1", "qos:preempt=1,elastic=1,placement=pool",
};

/* Preemption on random workloads: every job finishes exactly once (or is
 * rejected, only when it can never fit); one never preempted runs for
 * exactly its run time on its type (no victim restarts within the
 * instant, which the engine would count as no preemption); the run has at most 2 x sum(num_gpus)
 * preemptions (the bound of policies/qos.c: no livelock); the same run
 * twice gives the same schedule; and with models and noisy predictions
 * the same holds. */
static void check_preempt_run(const struct eng *e, const struct trace *t,
                              const struct cluster *c, const char *pol, int round)
{
    bool pool = strstr(pol, "pool") != NULL;
    uint64_t gpus = 0;
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct trc_job *tj = &t->jobs[j];
        const struct job_rt *rt = &e->kept[j];
        uint32_t req = tj->gpu_type ? clu_type_find(c, tj->gpu_type) : SIM_NONE;
        bool fits = plc_ever_fits(c, tj->num_gpus, req,
                                  pool ? PLC_POOL : PLC_CONSOLIDATED);
        cr_assert_eq(e->state[j], fits ? JOB_DONE : JOB_REJECTED,
                     "round %d %s job %s", round, pol, tj->id);
        gpus += tj->num_gpus;
        if (!fits)
            continue;
        cr_assert_leq(tj->submit, rt->first_start);
        cr_assert_lt(rt->first_start, rt->finish);
        cr_assert_geq(rt->wait, rt->first_start - tj->submit);
        if (rt->preemptions)
            continue;
        cr_assert_eq(rt->wait, rt->first_start - tj->submit);
        if (e->o.models)
            continue;
        double speed = c->types[rt->type].speed;
        if (rt->ngpus != tj->num_gpus)             /* elastic: n/g speed */
            speed = speed * rt->ngpus / tj->num_gpus;
        simtime_t run = (simtime_t)ceil((double)tj->duration / speed - 1e-9);
        cr_assert_eq(rt->finish - rt->first_start, run,
                     "round %d %s job %s", round, pol, tj->id);
    }
    cr_assert_leq(e->preemptions, 2 * gpus, "round %d %s", round, pol);
}

Test(qos, random_workloads_preempt, .timeout = 600)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 777);
    struct mdl_spec noisy;
    struct dl_error err = { 0 };
    noisy_zoo(&noisy);
    uint64_t total = 0;
    for (int round = 0; round < 30; round++) {
        struct cluster c;
        struct trace t;
        random_cluster(&c, r);
        random_trace(&t, &c, r, 100 + gsl_rng_uniform_int(r, 200));
        for (size_t p = 0; p < sizeof preempt_variants / sizeof *preempt_variants; p++) {
            const char *pol = preempt_variants[p];
            struct eng *e = tu_run(&t, &c, pol);
            check_preempt_run(e, &t, &c, pol, round);
            total += e->preemptions;
            tu_assert_rerun_same(e, &t, &c, pol);
            eng_free(e);
            struct eng_opts o = { .policy = pol, .seed = (uint64_t)round + 1,
                                  .check = true, .models = &noisy };
            e = tu_eng_new(&t, &c, &o, &err);
            cr_assert(e, "%s", err.msg);
            cr_assert_eq(eng_run(e), 0, "round %d %s: %s", round, pol, e->fail_msg);
            check_preempt_run(e, &t, &c, pol, round);
            eng_free(e);
        }
        trc_free(&t);
        clu_free(&c);
    }
    cr_expect_gt(total, 0, "the workloads never preempted");
    mdl_spec_free(&noisy);
    gsl_rng_free(r);
}
