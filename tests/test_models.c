/*
 * tests/test_models.c - runs with performance models (--models): jobs
 * sharing GPUs under each slowdown form, with schedules computed by hand;
 * the runtime model's speed ratios on a heterogeneous cluster; predictions
 * and their noise; the `kind: models` file.  Every run has --check on.
 */
#include "testutil.h"
#include "models/perf.h"

#include <math.h>

TestSuite(models, .fini = tu_tmp_cleanup);

/* ---- a packing test policy: every queued job, in arrival order, goes on
 * the GPUs holding the fewest jobs (lowest index first) that have room */

static void pk_enqueue(void *st, const struct pol_view *v, uint32_t j)
{
    (void)st, (void)v, (void)j;
}

static int pk_create(void **st, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    (void)a, (void)v, (void)err;
    *st = NULL;
    return 0;
}

static void pk_destroy(void *st)
{
    (void)st;
}

static void pk_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    uint32_t ng = v->clu->ngpus, pick[64];
    for (uint32_t j = 0; j < v->njobs; j++) {
        if (v->state[j] != JOB_QUEUED)
            continue;
        uint32_t need = v->jobs[j].num_gpus, n = 0;
        bool used[64] = { false };
        for (; n < need; n++) {
            uint32_t best = SIM_NONE;
            for (uint32_t g = 0; g < ng && g < 64; g++)
                if (!used[g] && v->nocc[g] < v->max_share &&
                    (best == SIM_NONE || v->nocc[g] < v->nocc[best]))
                    best = g;
            if (best == SIM_NONE)
                break;
            used[best] = true;
        }
        if (n < need)
            continue;
        n = 0;
        for (uint32_t g = 0; g < ng && g < 64; g++)
            if (used[g])
                pick[n++] = g;
        if (pol_colocate(x, j, pick))
            return;
    }
}

static const struct policy pack_policy = {
    .name = "pack", .create = pk_create, .destroy = pk_destroy,
    .enqueue = pk_enqueue, .schedule = pk_schedule,
};

static struct eng *run_models(const struct trace *t, struct cluster *c,
                              const struct policy *impl, const char *policy,
                              const struct mdl_spec *s)
{
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = policy, .pol = impl, .seed = 1,
                          .check = true, .models = s };
    struct eng *e = tu_eng_new(t, c, &o, &err);
    cr_assert(e, "%s", err.msg);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    return e;
}

/* A packed run on one node of `gpus` GPUs of type G under a slowdown file. */
struct packed {
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    struct eng *e;
};

static void packed_run(struct packed *r, const char *csv, uint32_t gpus,
                       const char *slowdown_yaml)
{
    tu_trace(&r->t, csv);
    tu_simple_cluster(&r->c, 1, gpus);
    tu_spec_from(&r->s, "sd.yaml", slowdown_yaml);
    r->e = run_models(&r->t, &r->c, &pack_policy, "pack", &r->s);
}

static void packed_free(struct packed *r)
{
    eng_free(r->e);
    mdl_spec_free(&r->s);
    trc_free(&r->t);
    clu_free(&r->c);
}

/* ---- co-location, hand-computed */

static const char three_share[] =
    "job_id,submit_time,num_gpus,duration\n"
    "a,0,1,10\n"
    "b,2,1,4\n"
    "c,3,1,1\n";

/* One GPU, constant form at 0.5 per co-runner (k co-runners: 0.5^k).
 *   0-2  a alone (rate 1): a has 8 left.
 *   2-3  a, b at 0.5: a 7.5, b 3.5 left.
 *   3-7  a, b, c at 0.25: c's 1 s of work takes 4 s, ends at 7; a 6.5, b 2.5.
 *   7-12 a, b at 0.5: b ends at 12; a has 4 left.
 *   12-16 a alone: ends at 16. */
Test(models, constant_three_jobs_change_co_runners)
{
    struct packed r;
    packed_run(&r, three_share, 1,
               "kind: slowdown\ngpu_types:\n"
               "  - {name: \"*\", form: constant, rate: 0.5}\n");
    TU_SCHED(r.e, "a", 0, 16);
    TU_SCHED(r.e, "b", 2, 12);
    TU_SCHED(r.e, "c", 3, 7);
    struct met_summary m;
    met_summarize(r.e, &m);
    /* shared 2-12 of the 16 s the GPU was held */
    cr_expect_float_eq(m.colocated_frac, 10.0 / 16.0, 1e-12);
    /* a: 16 s for 10 s of solo progress; b: 10 for 4; c: 4 for 1 */
    cr_expect_float_eq(m.interference, (1.6 + 2.5 + 4.0) / 3, 1e-12);
    cr_expect_eq(m.colocated_jobs, 3);
    /* utilizations unknown count as 1: the GPU is fully used while held */
    cr_expect_float_eq(m.util_eff, 1.0, 1e-12);
    cr_expect_float_eq(r.e->work_done, US(15), 1);
    packed_free(&r);
}

/* Useful utilization (SPEC 5) counts a co-located job at the rate its
 * co-runners leave it; effective does not.  Three jobs of solo util 0.3 on
 * one GPU, each slowed to 0.64 (the constant form at 0.8 per co-runner:
 * 0.8^2): while they share, the GPU contributes 3 x 0.3 x 0.64 = 0.576 to
 * useful and 0.9 to effective utilization, 1 to allocated.  10 s of work
 * each at 0.64 ends all three at 15.625 s. */
Test(models, useful_utilization_of_three_sharing_a_gpu)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,util\n"
                 "a,0,1,10,0.3\nb,0,1,10,0.3\nc,0,1,10,0.3\n");
    tu_simple_cluster(&c, 1, 1);
    tu_spec_from(&s, "sd.yaml", "kind: slowdown\ngpu_types:\n"
                 "  - {name: \"*\", form: constant, rate: 0.8}\n");
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = "pack", .pol = &pack_policy, .seed = 1,
                          .check = true, .models = &s, .sample = US(5) };
    struct eng *e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e, "%s", err.msg);
    cr_assert_eq(eng_run(e), 0, "%s", e->fail_msg);
    TU_SCHED(e, "a", 0, 15.625);
    TU_SCHED(e, "c", 0, 15.625);
    struct met_summary m;
    met_summarize(e, &m);
    cr_expect_float_eq(m.util_useful, 0.576, 1e-7);
    cr_expect_float_eq(m.util_eff, 0.9, 1e-7);
    cr_expect_float_eq(m.util_alloc, 1.0, 1e-12);
    /* the timeseries samples it too, at 0, 5, 10 and 15 s */
    cr_assert_eq(e->nts, 4);
    for (size_t i = 0; i < e->nts; i++) {
        cr_expect_float_eq(e->ts[i].util_useful, 0.576, 1e-7, "row %zu", i);
        cr_expect_float_eq(e->ts[i].util_eff, 0.9, 1e-7, "row %zu", i);
    }
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* Hinge, alpha 0.5: a (util 0.5) and b (util 1) sum to 1.5, so both run at
 * 1 - 0.5 * 0.5 = 0.75.  a alone 0-2 (4 left); together b's 3 s take 4 s,
 * ending at 6 while a does 3 (1 left); a alone again ends at 7.
 * Effective utilization: 0.5 for 2 s, 1 for 4 s, 0.5 for 1 s, over 7. */
Test(models, hinge_with_utilizations)
{
    struct packed r;
    packed_run(&r, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,6,0.5\nb,2,1,3,1\n", 1,
               "kind: slowdown\ngpu_types:\n"
               "  - {name: G, form: hinge, alpha: 0.5}\n");
    TU_SCHED(r.e, "a", 0, 7);
    TU_SCHED(r.e, "b", 2, 6);
    struct met_summary m;
    met_summarize(r.e, &m);
    cr_expect_float_eq(m.util_eff, (0.5 * 2 + 4 + 0.5) / 7, 1e-12);
    cr_expect_float_eq(m.util_alloc, 1.0, 1e-12);
    packed_free(&r);
}

/* Timeshare: rates util_x / (util_a + util_b): a (0.25) at 0.25 / 1 =
 * 0.25, b (0.75) at 0.75, from t = 0.  b's 3 s take 4 s (ends at 4); a has
 * done 1 of 5 and runs alone from 4: ends at 8. */
Test(models, timeshare)
{
    struct packed r;
    packed_run(&r, "job_id,submit_time,num_gpus,duration,util\n"
             "a,0,1,5,0.25\nb,0,1,3,0.75\n", 1,
               "kind: slowdown\ngpu_types:\n"
               "  - {name: \"*\", form: timeshare}\n");
    TU_SCHED(r.e, "a", 0, 8);
    TU_SCHED(r.e, "b", 0, 4);
    packed_free(&r);
}

/* A gang advances at the pace of its slowest GPU: x holds GPUs 0 and 1; y
 * joins GPU 0 at t=1 (constant 0.5): both run at 0.5.  y's 2 s take 4 s
 * (ends at 5), x has done 1 + 2 = 3 of 10; alone again, x ends at 12. */
Test(models, gang_at_slowest_gpu)
{
    struct packed r;
    packed_run(&r, "job_id,submit_time,num_gpus,duration\nx,0,2,10\ny,1,1,2\n", 2,
               "kind: slowdown\ngpu_types:\n"
               "  - {name: \"*\", form: constant, rate: 0.5}\n");
    TU_SCHED(r.e, "x", 0, 12);
    TU_SCHED(r.e, "y", 1, 5);
    tu_placement(r.e, "y", "n0:0");
    struct met_summary m;
    met_summarize(r.e, &m);
    /* GPU-time held: 2 GPUs x 12 s; shared: GPU 0 for 1-5 */
    cr_expect_float_eq(m.colocated_frac, 4.0 / 24.0, 1e-12);
    /* useful: x at half speed on its unshared GPU 1 too; GPU 0 holds x and
     * y at 0.5 each (utils unknown: 1).  0-1: 2, 1-5: 1 + 0.5, 5-12: 2
     * GPUs' worth: 22 of 24 GPU-seconds; effective is 24 of 24 */
    cr_expect_float_eq(m.util_useful, 22.0 / 24.0, 1e-12);
    cr_expect_float_eq(m.util_eff, 1.0, 1e-12);
    packed_free(&r);
}

/* Sensitivity x pressure per job from the zoo's names, and a measured pair
 * that overrides the form where it covers the pair.  All-V100 cluster: the
 * runtime model's ratio V100/V100 is exactly 1. */
static const char sp_model[] =
    "kind: slowdown\ngpu_types:\n"
    "  - name: V100\n    form: sensitivity_pressure\n"
    "    mean_sensitivity: 0.5\n    mean_pressure: 1\n"
    "    jobs:\n"
    "      - {name: \"resnet50@64\", s: 0.5, p: 1}\n"
    "      - {name: \"vgg16@64\", s: 0.25, p: 0.4}\n";

static void v100_cluster(struct cluster *c, uint32_t gpus)
{
    clu_init(c, "v100");
    uint32_t t = clu_add_type(c, "V100", 32, 1.0);
    clu_add_nodes(c, 1, gpus, t, NULL);
    clu_finish(c);
}

/* r (resnet50@64, s 0.5 p 1) and v (vgg16@64, s 0.25 p 0.4) together:
 * r at exp(-0.5 * 0.4), v at exp(-0.25 * 1) (models/FIT.md).  Both start
 * at 0: v's 3 s take 3 / exp(-0.25) = 3.852077 s (rounded up to the
 * microsecond); r has then done exp(-0.2) of each of them and ends alone. */
Test(models, sensitivity_pressure_by_model)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model\n"
             "r,0,1,8,resnet50@64\nv,0,1,3,vgg16@64\n");
    v100_cluster(&c, 1);
    tu_spec_zoo(&s, "sp.yaml", sp_model);
    struct eng *e = run_models(&t, &c, &pack_policy, "pack", &s);
    simtime_t tv = (simtime_t)ceil(US(3) / exp(-0.25) - 1e-9);
    double left = US(8) - exp(-0.2) * (double)tv;
    cr_expect_eq(tv, 3852077);
    cr_expect_eq(e->end[tu_job(&t, "v")].finish, tv);
    cr_expect_eq(e->end[tu_job(&t, "r")].finish, tv + (simtime_t)ceil(left - 1e-9));
    eng_free(e);
    /* a measured pair replaces the form: r at 0.5, v at 0.6; v's 3 s take
     * 5 s, r has done 2.5 and ends at 5 + 5.5 = 10.5 */
    mdl_spec_free(&s);
    tu_spec_zoo(&s, "sp.yaml", sp_model);
    snprintf(s.pairs_path, sizeof s.pairs_path, "%s",
             tu_tmp_file("pairs.csv", "gpu_type,job_a,job_b,rate_a,rate_b\n"
                          "V100,vgg16@64,resnet50@64,0.6,0.5\n"));
    s.has_pairs = true;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_spec_finish(&s, &err), 0, "%s", err.msg);
    e = run_models(&t, &c, &pack_policy, "pack", &s);
    TU_SCHED(e, "r", 0, 10.5);
    TU_SCHED(e, "v", 0, 5);
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* The Horus authors' rule (form horus-authors): a task's duration x 1.2
 * once while its GPU is shared, as a rate 1 / 1.2 whatever the number of
 * co-runners.  One GPU; a (10 s) from 0, b (10 s) from 2, c (3 s) from 4,
 * all packed:
 *   0-2   a alone: 2 s of work done, 8 left;
 *   2-4   a, b at 1/1.2: 5/3 each, a 19/3 left, b 25/3;
 *   4-7.6 a, b, c at 1/1.2 (the constant form would give 0.8^2): c's 3 s
 *         of work take 3.6 s; a 10/3 left, b 16/3;
 *   7.6-11.6 a, b at 1/1.2: a's 10/3 take 4 s;
 *   11.6-13.6 b alone: its last 2 s.
 * The rule is a rate, so the shared stretch of each job takes 1.2 times
 * its work and the rest its work: a = 2 + 1.2 x 8, b = 1.2 x 8 + 2,
 * c = 1.2 x 3. */
Test(models, horus_authors_rule_finish_times)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
             "a,0,1,10\nb,2,1,10\nc,4,1,3\n");
    tu_simple_cluster(&c, 1, 1);
    tu_spec_from(&s, "ha.yaml", "kind: slowdown\ngpu_types:\n"
                 "  - {name: \"*\", form: horus-authors}\n");
    struct eng *e = run_models(&t, &c, &pack_policy, "pack", &s);
    /* each time within the microsecond rounding-up of its completion */
    const struct { const char *id; double start, end; } want[] = {
        { "a", 0, 11.6 }, { "b", 2, 13.6 }, { "c", 4, 7.6 } };
    for (int i = 0; i < 3; i++) {
        const struct job_end *r = &e->end[tu_job(&t, want[i].id)];
        cr_expect_eq(r->first_start, US(want[i].start), "%s", want[i].id);
        cr_expect(llabs(r->finish - (simtime_t)llround(want[i].end * 1e6)) <= 1,
                  "%s: finish %lld, expected %g s", want[i].id,
                  (long long)r->finish, want[i].end);
    }
    eng_free(e);
    mdl_spec_free(&s);
    /* factor: 2 doubles the shared stretch: c's 3 s take 6 s */
    tu_spec_from(&s, "ha2.yaml", "kind: slowdown\ngpu_types:\n"
                 "  - {name: \"*\", form: horus-authors, factor: 2}\n");
    e = run_models(&t, &c, &pack_policy, "pack", &s);
    TU_SCHED(e, "c", 4, 10);
    eng_free(e);
    mdl_spec_free(&s);
    /* bad values are located */
    struct dl_error err = { 0 };
    mdl_spec_init(&s);
    cr_expect_eq(mdl_spec_add(&s, tu_tmp_file("ha3.yaml", "kind: slowdown\n"
                 "gpu_types:\n  - {name: \"*\", form: horus-authors, "
                 "factor: 0.5}\n"), &err), DL_EINPUT);
    cr_expect_eq(err.line, 3);
    cr_expect(strstr(err.msg, "factor"), "%s", err.msg);
    mdl_spec_free(&s);
    mdl_spec_init(&s);
    cr_expect_eq(mdl_spec_add(&s, tu_tmp_file("ha4.yaml", "kind: slowdown\n"
                 "gpu_types:\n  - {name: \"*\", form: horus-authors, "
                 "rate: 0.5}\n"), &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "not a parameter of form horus-authors"), "%s",
              err.msg);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* The engine refuses more jobs on a GPU than max_jobs_per_gpu, and more
 * memory than the GPU has. */
Test(models, share_limits_are_enforced)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, three_share);
    tu_simple_cluster(&c, 1, 1);
    tu_spec_from(&s, "m.yaml", "kind: models\nmax_jobs_per_gpu: 2\n");
    struct dl_error err = { 0 };
    /* the pack policy respects v->max_share: c waits for a free slot */
    struct eng *e = run_models(&t, &c, &pack_policy, "pack", &s);
    cr_expect_eq(e->end[tu_job(&t, "c")].first_start >= US(3), true);
    eng_free(e);
    trc_free(&t);
    /* 10 + 8 GB on a 16 GB GPU: refused, the run fails */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,mem_gb\n"
             "a,0,1,10,10\nb,1,1,10,8\n");
    struct eng_opts o = { .pol = &pack_policy, .check = true, .models = &s };
    e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_expect_neq(eng_run(e), 0);
    cr_expect(strstr(e->fail_msg, "GB in use"), "%s", e->fail_msg);
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* ---- the runtime model on a heterogeneous cluster */

static const char five_types[] =
    "name: five\nreference_gpu: V100\ngpu_types:\n"
    "  - {name: K80, memory_gb: 12, speed: 0.28}\n"
    "  - {name: P100, memory_gb: 16, speed: 0.68}\n"
    "  - {name: V100, memory_gb: 32, speed: 1}\n"
    "  - {name: A100, memory_gb: 80, speed: 1.76}\n"
    "  - {name: H100, memory_gb: 80, speed: 5.81}\n"
    "nodes:\n"
    "  - {count: 2, gpus: 8, gpu_type: K80}\n"
    "  - {count: 2, gpus: 8, gpu_type: P100}\n"
    "  - {count: 2, gpus: 8, gpu_type: V100}\n"
    "  - {count: 2, gpus: 8, gpu_type: A100}\n"
    "  - {count: 2, gpus: 8, gpu_type: H100}\n";

/* Every job pinned to a type runs exactly duration / ratio, where ratio is
 * the runtime model's throughput there over its throughput on V100 (the
 * measured table where it has the figure, else the roofline), and a
 * compute-bound model runs faster on each newer generation. */
Test(models, heterogeneous_cluster_speed_ratios)
{
    static const char *const types[] = { "K80", "P100", "V100", "A100", "H100" };
    static const char *const models[] = { "resnet50@64", "vgg16@64",
                                          "transformer@64", "bert@64",
                                          "a3c@1", "lstm@20" };
    static const uint32_t sizes[] = { 1, 4, 8, 16 };
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    fputs("job_id,submit_time,num_gpus,duration,model,gpu_type\n", f);
    int k = 0;
    for (size_t m = 0; m < 6; m++)
        for (size_t g = 0; g < 4; g++)
            for (size_t ty = 0; ty < 5; ty++, k++)
                fprintf(f, "j%d,%d,%u,3600,%s,%s\n", k, k * 100000, sizes[g],
                        models[m], types[ty]);
    fclose(f);
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, csv);
    free(csv);
    tu_cluster(&c, five_types);
    tu_spec_zoo(&s, NULL, NULL);
    struct eng *e = run_models(&t, &c, NULL, "fifo", &s);
    k = 0;
    for (size_t m = 0; m < 6; m++) {
        char name[64];
        snprintf(name, sizeof name, "%s", models[m]);
        *strchr(name, '@') = 0;
        uint32_t batch = (uint32_t)atoi(strchr(models[m], '@') + 1);
        for (size_t g = 0; g < 4; g++) {
            double prev = 0;
            for (size_t ty = 0; ty < 5; ty++, k++) {
                /* 16 GPUs span two 8-GPU nodes: the fewest possible, so
                 * not "spread" */
                double thr = mdl_rt_throughput(&s.zoo, &s.rt, name, batch,
                                               types[ty], sizes[g], false);
                double ref = mdl_rt_throughput(&s.zoo, &s.rt, name, batch,
                                               "V100", sizes[g], false);
                cr_assert(thr > 0 && ref > 0);
                const struct job_end *r = &e->end[k];
                double run = (double)(r->finish - r->first_start);
                double want = ceil(US(3600) / (thr / ref) - 1e-9);
                cr_expect(fabs(run - want) <= 1, "%s x%u on %s: ran %.0f us, "
                          "model says %.0f", models[m], sizes[g], types[ty],
                          run, want);
                /* (not for gangs: Gavel measured resnet50@64 on 4 P100 at
                 * 7.70 it/s and on 4 V100 at 5.80; the tables rule) */
                if (m < 2 && g == 0 && ty > 0)
                    cr_expect(run < prev, "%s x%u: %s not faster than %s",
                              models[m], sizes[g], types[ty], types[ty - 1]);
                prev = run;
            }
        }
    }
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* Spread: a, b, c take n0:0-1, n0:2-3 (pool: fullest node first) and
 * n1:0-1; when b ends at 50 the 4-GPU x gets n0:2-3 + n1:2-3, two nodes
 * where one would do: it runs at the runtime model's spread throughput. */
Test(models, spread_placement_uses_the_spread_ratio)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model\n"
             "a,0,2,100,resnet50@64\nb,0,2,50,resnet50@64\n"
             "c,0,2,100,resnet50@64\nx,1,4,3600,resnet50@64\n");
    tu_cluster(&c, "name: two\ngpu_types: [{name: V100, memory_gb: 32}]\n"
               "nodes: [{count: 2, gpus: 4, gpu_type: V100}]\n");
    tu_spec_zoo(&s, NULL, NULL);
    struct eng *e = run_models(&t, &c, NULL, "fifo:placement=pool", &s);
    tu_placement(e, "x", "n0:2-3+n1:2-3");
    const struct job_end *r = &e->end[tu_job(&t, "x")];
    cr_expect_eq(r->first_start, US(50));
    double cons = mdl_rt_throughput(&s.zoo, &s.rt, "resnet50", 64, "V100", 4, false);
    double spr = mdl_rt_throughput(&s.zoo, &s.rt, "resnet50", 64, "V100", 4, true);
    cr_assert(spr < cons);
    double want = ceil(US(3600) / (spr / cons) - 1e-9);
    cr_expect(fabs((double)(r->finish - r->first_start) - want) <= 1);
    /* a consolidated gang of the same job runs at the reference speed */
    TU_SCHED(e, "a", 0, 100);
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* ---- predictions */

Test(models, predictions_noise_is_seeded_and_sized)
{
    enum { N = 20000 };
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    fputs("job_id,submit_time,num_gpus,duration,model,util\n", f);
    for (int j = 0; j < N; j++)
        fprintf(f, "j%d,%d,1,1000,resnet50@64,0.5\n", j, j);
    fclose(f);
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, csv);
    free(csv);
    v100_cluster(&c, 8);
    tu_spec_zoo(&s, "p.yaml", "kind: models\npredict: {runtime: oracle, "
             "runtime_noise: 0.3, util: oracle, util_noise: 0.2}\n");
    struct mdl_perf *p = mdl_perf_new(&s, &c, &t, 7, NULL);
    struct mdl_perf *q = mdl_perf_new(&s, &c, &t, 7, NULL);
    struct mdl_perf *r = mdl_perf_new(&s, &c, &t, 8, NULL);
    double sum = 0, sum2 = 0;
    int differ = 0;
    for (uint32_t j = 0; j < N; j++) {
        double x = mdl_perf_pred_runtime(p, j, 0, false);
        cr_assert_eq(x, mdl_perf_pred_runtime(q, j, 0, false));
        differ += x != mdl_perf_pred_runtime(r, j, 0, false);
        double l = log(x / US(1000));
        sum += l, sum2 += l * l;
        /* the truth is never noisy */
        cr_assert_eq(mdl_perf_util(p, j, 0), 0.5);
        cr_assert_eq(mdl_perf_rate(p, j, 0, false), 1.0);
    }
    double mean = sum / N, sd = sqrt(sum2 / N - mean * mean);
    cr_expect(fabs(mean) < 4 * 0.3 / sqrt(N), "mean log noise %g", mean);
    cr_expect(fabs(sd - 0.3) < 0.01, "sd of log noise %g", sd);
    cr_expect_gt(differ, N - 10);
    mdl_perf_free(p);
    mdl_perf_free(q);
    mdl_perf_free(r);
    /* without noise, an oracle prediction is the truth; the model's is the
     * roofline's ratio */
    mdl_spec_free(&s);
    tu_spec_zoo(&s, NULL, NULL);
    p = mdl_perf_new(&s, &c, &t, 7, NULL);
    cr_expect_eq(mdl_perf_pred_runtime(p, 0, 0, false), (double)US(1000));
    /* the zoo's regressor (models/util.yaml) predicts from resnet50's
     * features, not from the trace's measured 0.5 */
    double pu = mdl_perf_pred_util(p, 0, 0);
    cr_expect(pu >= 0.01 && pu <= 1 && pu != 0.5f, "%g", pu);
    cr_expect(s.util_default);
    mdl_perf_free(p);
    mdl_spec_free(&s);
    tu_spec_zoo(&s, "o.yaml", "kind: models\npredict: {util: oracle}\n");
    p = mdl_perf_new(&s, &c, &t, 7, NULL);
    cr_expect_eq(mdl_perf_pred_util(p, 0, 0), 0.5f);
    mdl_perf_free(p);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* With predict.runtime: roofline, the predicted runtime on another type
 * follows the roofline alone, not the measured table the engine uses; by
 * default it is the runtime model itself. */
Test(models, predicted_runtime_model_or_roofline)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model\na,0,1,3600,resnet50@64\n");
    tu_cluster(&c, five_types);
    tu_spec_zoo(&s, NULL, NULL);
    struct mdl_perf *d = mdl_perf_new(&s, &c, &t, 1, NULL);
    cr_expect_float_eq(mdl_perf_pred_runtime(d, 0, 0, false),
                       US(3600) / mdl_perf_rate(d, 0, 0, false), 1e-6);
    mdl_perf_free(d);
    mdl_spec_free(&s);
    tu_spec_zoo(&s, "roof.yaml", "kind: models\npredict: {runtime: roofline}\n");
    struct mdl_perf *p = mdl_perf_new(&s, &c, &t, 1, NULL);
    const struct mdl_model *m = mdl_zoo_find(&s.zoo, "resnet50@64");
    double k80 = mdl_rt_estimate(m, mdl_zoo_gpu(&s.zoo, "K80"), &s.rt, 1, false);
    double v100 = mdl_rt_estimate(m, mdl_zoo_gpu(&s.zoo, "V100"), &s.rt, 1, false);
    cr_expect_float_eq(mdl_perf_pred_runtime(p, 0, 0, false),
                       US(3600) / (k80 / v100), 1e-6);
    double tk = mdl_zoo_throughput(&s.zoo, "resnet50", 64, "K80", 1, false);
    double tv = mdl_zoo_throughput(&s.zoo, "resnet50", 64, "V100", 1, false);
    cr_assert(tk > 0 && tv > 0, "the zoo measures resnet50@64 on K80 and V100");
    cr_expect_float_eq(mdl_perf_rate(p, 0, 0, false), tk / tv, 1e-12);
    mdl_perf_free(p);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* ---- the models file */

static void expect_bad(const char *yaml, long line, long col, const char *what)
{
    struct mdl_spec s;
    struct dl_error err = { 0 };
    mdl_spec_init(&s);
    int rc = mdl_spec_add(&s, tu_tmp_file("bad.yaml", yaml), &err);
    cr_expect_eq(rc, DL_EINPUT, "%s", yaml);
    cr_expect_eq(err.line, line, "%s: line %ld", err.msg, err.line);
    cr_expect_eq(err.col, col, "%s: col %ld", err.msg, err.col);
    cr_expect(strstr(err.msg, what), "'%s' lacks '%s'", err.msg, what);
    mdl_spec_free(&s);
}

Test(models, bad_models_files)
{
    expect_bad("kind: models\nmax_jobs_per_gpu: 0\n", 2, 19, "max_jobs_per_gpu");
    expect_bad("kind: models\nmax_jobs_per_gpu: 2.5\n", 2, 19, "whole");
    expect_bad("kind: models\nfoo: 1\n", 2, 1, "unknown key 'foo'");
    expect_bad("kind: models\npredict: {runtime: magic}\n", 2, 20, "oracle");
    expect_bad("kind: models\npredict: {util_noise: -1}\n", 2, 23, "util_noise");
    expect_bad("kind: other\n", 1, 7, "kind");
    expect_bad("kind: models\nmax_jobs_per_gpu: 2\nmax_jobs_per_gpu: 3\n", 3, 1,
               "repeated");
    expect_bad("- 1\n", 1, 1, "kind");
}

Test(models, missing_model_file_is_an_io_error)
{
    struct mdl_spec s;
    struct dl_error err = { 0 };
    mdl_spec_init(&s);
    cr_expect_eq(mdl_spec_add(&s, tu_tmp_file("m.yaml", "kind: models\n"
                                               "slowdown: nothere.yaml\n"), &err),
                 DL_EIO);
    cr_expect(strstr(err.file, "nothere.yaml"), "%s", err.file);
    mdl_spec_free(&s);
}

Test(models, models_file_paths_are_relative_to_it)
{
    tu_tmp_file("sd.yaml", "kind: slowdown\ngpu_types:\n"
                 "  - {name: G, form: constant, rate: 0.25}\n");
    struct mdl_spec s;
    tu_spec_from(&s, "rel.yaml", "kind: models\nslowdown: sd.yaml\n"
              "max_jobs_per_gpu: 3\npredict: {util_noise: 0.1}\n");
    cr_expect(s.has_sd);
    cr_expect_eq(s.max_share, 3);
    cr_expect_float_eq(s.util_noise, 0.1, 0);
    cr_expect_eq(s.sd.types[0].rate, 0.25);
    mdl_spec_free(&s);
}

/* ---- elastic starts (pol_start_n) */

static uint32_t half_n;

static void half_schedule(void *st, const struct pol_view *v, struct pol_ctx *x)
{
    (void)st;
    for (uint32_t j = 0; j < v->njobs; j++)
        if (v->state[j] == JOB_QUEUED) {
            uint32_t g[64];
            if (plc_find(v->clu, half_n, SIM_NONE, PLC_CONSOLIDATED, NULL, g) &&
                pol_start_n(x, j, g, half_n))
                return;
        }
}

static const struct policy half_policy = {
    .name = "half", .create = pk_create, .destroy = pk_destroy,
    .enqueue = pk_enqueue, .schedule = half_schedule,
};

/* A 4-GPU resnet50@64 job started on 2 GPUs runs at the runtime model's
 * throughput for 2 GPUs over its throughput for 4 (both V100, measured by
 * Gavel: 5.417286 and 5.798896 it/s); without a model, at half speed.
 * Gangs of 0 GPUs or of more than the job asks for are refused. */
Test(models, elastic_start_runs_at_the_smaller_gangs_speed)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model\n"
             "a,0,4,3600,resnet50@64\nb,0,4,100,\n");
    v100_cluster(&c, 4);
    tu_spec_zoo(&s, NULL, NULL);
    half_n = 2;
    struct eng *e = run_models(&t, &c, &half_policy, "half", &s);
    double r = 5.417286 / 5.798896;
    cr_expect_eq(e->end[0].finish, (simtime_t)ceil(US(3600) / r - 1e-9));
    cr_expect_eq(e->kept[0].ngpus, 2);
    TU_SCHED(e, "b", 0, 200);
    tu_placement(e, "b", "n0:2-3");
    /* the job work done is the trace's, num_gpus x duration (each job's
     * last microsecond may overshoot by its rate) */
    cr_expect_float_eq(e->work_done, US(4 * 3600 + 4 * 100), 8);
    eng_free(e);
    struct dl_error err = { 0 };
    struct eng_opts o = { .pol = &half_policy, .check = true, .models = &s };
    half_n = 0;
    e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_expect_neq(eng_run(e), 0);
    cr_expect(strstr(e->fail_msg, "on 0 GPUs"), "%s", e->fail_msg);
    eng_free(e);
    trc_free(&t);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,0,2,100\n");
    half_n = 3;
    e = tu_eng_new(&t, &c, &o, &err);
    cr_assert(e);
    cr_expect_neq(eng_run(e), 0);
    cr_expect(strstr(e->fail_msg, "on 3 GPUs (it asks for 2)"), "%s", e->fail_msg);
    eng_free(e);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}

/* ---- utilization per GPU type (models/MODELS.md) */

/* resnet50_cifar10@64 is measured on A100 (util.csv: 0.4156); vgg16@64 is
 * not; x carries a utilization in the trace.  On A100 the measured figure
 * holds as it is; on V100 it moves by the busy-time rule u / (u + s (1 -
 * u)), s the job's V100 / A100 throughput from the runtime model (the GPU
 * part of an iteration runs s times as fast, the rest does not), unless
 * util_transfer: none; vgg16 gets the zoo regressor's prediction from its
 * graph features (for A100, the type util.yaml was trained on, then moved
 * the same way); the trace's figure is the same on every type. */
Test(models, util_per_type_measured_transferred_predicted)
{
    struct trace t;
    struct cluster c;
    struct mdl_spec s;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model,util\n"
             "r,0,1,10,resnet50_cifar10@64,\nv,0,1,10,vgg16@64,\n"
             "x,0,1,10,resnet50_cifar10@64,0.3\n");
    clu_init(&c, "two");
    uint32_t ta = clu_add_type(&c, "A100", 40, 1.0);
    uint32_t tv = clu_add_type(&c, "V100", 16, 0.5);
    clu_add_nodes(&c, 1, 1, ta, NULL);
    clu_add_nodes(&c, 1, 1, tv, NULL);
    clu_finish(&c);
    tu_spec_zoo(&s, NULL, NULL);
    cr_assert(s.util_default);
    cr_assert_str_eq(s.util.gpu_type, "A100");
    struct mdl_perf *p = mdl_perf_new(&s, &c, &t, 1, NULL);
    const uint32_t r = 0, v = 1, x = 2;
    cr_expect_eq(mdl_perf_util(p, r, ta), (double)(float)0.4156);
    double sr = mdl_rt_throughput(&s.zoo, &s.rt, "resnet50_cifar10", 64, "V100", 1, false) /
                mdl_rt_throughput(&s.zoo, &s.rt, "resnet50_cifar10", 64, "A100", 1, false);
    cr_assert(sr > 0 && sr < 1, "V100 is slower: %g", sr);
    double want = 0.4156 / (0.4156 + sr * (1 - 0.4156));
    cr_expect_float_eq(mdl_perf_util(p, r, tv), want, 1e-6);
    cr_expect_gt(mdl_perf_util(p, r, tv), 0.4156);
    /* vgg16: the regressor on A100, then moved */
    const struct mdl_model *m = mdl_zoo_find(&s.zoo, "vgg16@64");
    double xf[MDL_UTIL_NFEAT] = { m->flops, m->params, m->conv_layers,
                                  m->linear_layers, m->activation_layers,
                                  m->other_layers };
    double reg = mdl_util_predict(&s.util, xf);
    cr_expect_eq(mdl_perf_util(p, v, ta), (double)(float)reg);
    double sv = mdl_rt_throughput(&s.zoo, &s.rt, "vgg16", 64, "V100", 1, false) /
                mdl_rt_throughput(&s.zoo, &s.rt, "vgg16", 64, "A100", 1, false);
    cr_expect_float_eq(mdl_perf_util(p, v, tv), reg / (reg + sv * (1 - reg)), 1e-6);
    /* Horus's prediction is the regressor's, for the measured model too */
    const struct mdl_model *mr = mdl_zoo_find(&s.zoo, "resnet50_cifar10@64");
    double xr[MDL_UTIL_NFEAT] = { mr->flops, mr->params, mr->conv_layers,
                                  mr->linear_layers, mr->activation_layers,
                                  mr->other_layers };
    cr_expect_eq(mdl_perf_pred_util(p, r, ta),
                 (double)(float)mdl_util_predict(&s.util, xr));
    /* the trace's figure on both types */
    cr_expect_eq(mdl_perf_util(p, x, ta), 0.3f);
    cr_expect_eq(mdl_perf_util(p, x, tv), 0.3f);
    mdl_perf_free(p);
    mdl_spec_free(&s);
    /* util_transfer: none */
    tu_spec_zoo(&s, "same.yaml", "kind: models\nutil_transfer: none\n");
    p = mdl_perf_new(&s, &c, &t, 1, NULL);
    cr_expect_eq(mdl_perf_util(p, r, tv), (double)(float)0.4156);
    cr_expect_eq(mdl_perf_util(p, v, tv), (double)(float)reg);
    mdl_perf_free(p);
    mdl_spec_free(&s);
    /* a bad value is located */
    struct dl_error err = { 0 };
    mdl_spec_init(&s);
    cr_expect_eq(mdl_spec_add(&s, tu_tmp_file("bad.yaml", "kind: models\n"
                                              "util_transfer: scale\n"), &err),
                 DL_EINPUT);
    cr_expect_eq(err.line, 2);
    cr_expect(strstr(err.msg, "busy or none"), "%s", err.msg);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}
