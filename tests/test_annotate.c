/*
 * tests/test_annotate.c - `dlsim trace annotate` (traces/annotate.c): the
 * seeded deadlines, models, util and mem_gb it attaches to a trace.
 *
 * Library level: byte-identical reruns for a seed; deadlines inside
 * [submit + LO * duration, submit + HI * duration] and the fraction near
 * F on a large trace; existing values kept without overwrite and replaced
 * with it, every other field untouched; one stream per field (deadlines
 * identical with and without util, models, mem; values already present
 * shift no draw); the deadlines equal trace gen's for the same seed; the
 * sample means of util, mem and the model weights within 5 standard
 * errors (seeds are fixed, so the tests are deterministic anyway); bad
 * options rejected with the trace unchanged.  Command level (through
 * $DLSIM, as a user runs it): exit statuses 0 / 1 / 2, file:line for a
 * malformed trace, no output file left behind on failure, gzip output,
 * the help text naming every flag.
 */
#include "testutil.h"
#include "traces/trace.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

TestSuite(annotate, .fini = tu_tmp_cleanup);

/* Files in tmpdir whose name starts with prefix. */
static int count_files(const char *prefix)
{
    DIR *d = opendir(tu_tmp_dir());
    cr_assert(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

/* A generated trace of n jobs (no deadlines, models, util or mem). */
static void gen(struct trace *t, uint32_t n, uint64_t seed)
{
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    o.njobs = n;
    o.seed = seed;
    struct dl_error e;
    cr_assert_eq(trc_generate(&o, &c, t, &e), 0, "%s", e.msg);
    clu_free(&c);
}

static void annotate(const struct trc_annot_opts *o, struct trace *t,
                     struct trc_annot_stats *st)
{
    struct dl_error e;
    cr_assert_eq(trc_annotate(o, t, st, &e), 0, "%s", e.msg);
}

static void write_trace(const struct trace *t, const char *name)
{
    struct dl_error e;
    cr_assert_eq(trc_write(t, tu_tmp_path(name), &e), 0, "%s", e.msg);
}

static void load(const char *p, struct trace *t)
{
    struct dl_error e;
    cr_assert_eq(trc_load(p, t, &e, NULL), 0, "%s:%ld: %s", e.file, e.line,
                 e.msg);
}

/* ---------------------------------------------------------- determinism */

Test(annotate, deterministic_bytes_for_a_seed)
{
    struct trace t;
    gen(&t, 3000, 5);
    write_trace(&t, "in.csv");
    trc_free(&t);
    const char *opts = "--deadline-slack 1.5:4 --deadline-frac 0.6 "
                       "--models resnet50@64:2,bert,vgg16:0.5 "
                       "--util beta:2,5 --mem lognormal:2,0.5";
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o a.csv %s --seed 9", opts), 0,
                 "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace annotate %s --seed 9 -o b.csv in.csv", opts), 0,
                 "%s", tu_out);
    cr_assert(tu_same_file(tu_tmp_path("a.csv"), tu_tmp_path("b.csv")));
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o c.csv %s --seed 10", opts),
                 0, "%s", tu_out);
    cr_assert(!tu_same_file(tu_tmp_path("a.csv"), tu_tmp_path("c.csv")));
    /* the default seed is 1 */
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o d.csv %s", opts), 0);
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o e.csv %s --seed 1", opts), 0);
    cr_assert(tu_same_file(tu_tmp_path("d.csv"), tu_tmp_path("e.csv")));
    /* gzip output: the same records */
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o a.csv.gz %s --seed 9", opts),
                 0, "%s", tu_out);
    size_t n;
    char *z = tu_slurp(tu_tmp_path("a.csv.gz"), &n);
    cr_assert(n > 2 && (unsigned char)z[0] == 0x1f &&
              (unsigned char)z[1] == 0x8b, "not gzip");
    free(z);
    struct trace a, b;
    load(tu_tmp_path("a.csv"), &a);
    load(tu_tmp_path("a.csv.gz"), &b);
    cr_assert_eq(a.njobs, 3000);
    cr_assert_eq(b.njobs, 3000);
    for (uint32_t i = 0; i < a.njobs; i++) {
        cr_assert_eq(a.jobs[i].deadline, b.jobs[i].deadline);
        cr_assert_str_eq(a.jobs[i].model, b.jobs[i].model);
        cr_assert_eq(a.jobs[i].util, b.jobs[i].util);
        cr_assert_eq(a.jobs[i].mem_gb, b.jobs[i].mem_gb);
    }
    trc_free(&a);
    trc_free(&b);
}

/* ------------------------------------------------------------ deadlines */

Test(annotate, deadlines_within_slack_and_fraction)
{
    struct trace t;
    const uint32_t n = 20000;
    gen(&t, n, 3);
    struct trc_annot_opts o;
    trc_annot_defaults(&o);
    o.deadline_lo = 1.5;
    o.deadline_hi = 4;
    o.deadline_frac = 0.3;
    struct trc_annot_stats st;
    annotate(&o, &t, &st);
    uint32_t with = 0;
    double ssum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct trc_job *j = &t.jobs[i];
        if (j->deadline == SIM_NEVER)
            continue;
        with++;
        double d = (double)j->duration;
        /* llround: within half a microsecond of the exact bound */
        cr_assert(j->deadline >= j->submit + (simtime_t)floor(1.5 * d),
                  "job %u: deadline below submit + 1.5 x duration", i);
        cr_assert(j->deadline <= j->submit + (simtime_t)ceil(4 * d),
                  "job %u: deadline above submit + 4 x duration", i);
        ssum += (double)(j->deadline - j->submit) / d;
    }
    cr_assert_eq(st.f[TRC_A_DEADLINE].filled, with);
    cr_assert_eq(st.f[TRC_A_DEADLINE].kept, 0);
    cr_assert(st.f[TRC_A_DEADLINE].asked);
    cr_assert(!st.f[TRC_A_UTIL].asked);
    double frac = (double)with / n, se = sqrt(0.3 * 0.7 / n);
    cr_assert(fabs(frac - 0.3) < 5 * se, "fraction %g", frac);
    /* slack ~ U[1.5, 4]: mean 2.75, sd 2.5 / sqrt(12) */
    double smean = ssum / with, sse = 2.5 / sqrt(12.0) / sqrt(with);
    cr_assert(fabs(smean - 2.75) < 5 * sse, "slack mean %g", smean);
    trc_free(&t);

    /* a single slack LO (hi 0 = lo) is exact, for every job by default */
    gen(&t, 500, 4);
    trc_annot_defaults(&o);
    o.deadline_lo = 2;
    annotate(&o, &t, &st);
    for (uint32_t i = 0; i < t.njobs; i++)
        cr_assert_eq(t.jobs[i].deadline,
                     t.jobs[i].submit + 2 * t.jobs[i].duration, "job %u", i);
    cr_assert_eq(st.f[TRC_A_DEADLINE].filled, 500);
    trc_free(&t);
}

Test(annotate, deadlines_equal_trace_gen)
{
    /* same stream and draws as the generator: gen with deadlines ==
     * gen without, then annotate with the same seed and slack */
    struct cluster c;
    clu_builtin_demo(&c);
    struct trc_gen_opts g;
    trc_gen_defaults(&g);
    g.njobs = 4000;
    g.seed = 77;
    g.deadline_lo = 1.2;
    g.deadline_hi = 3.5;
    g.deadline_frac = 0.4;
    struct trace a, b;
    struct dl_error e;
    cr_assert_eq(trc_generate(&g, &c, &a, &e), 0);
    g.deadline_lo = g.deadline_hi = 0;
    cr_assert_eq(trc_generate(&g, &c, &b, &e), 0);
    struct trc_annot_opts o;
    trc_annot_defaults(&o);
    o.seed = 77;
    o.deadline_lo = 1.2;
    o.deadline_hi = 3.5;
    o.deadline_frac = 0.4;
    annotate(&o, &b, NULL);
    for (uint32_t i = 0; i < a.njobs; i++)
        cr_assert_eq(a.jobs[i].deadline, b.jobs[i].deadline, "job %u", i);
    trc_free(&a);
    trc_free(&b);
    clu_free(&c);
}

Test(annotate, huge_deadline_is_cut_to_the_limit)
{
    struct trace t;
    trc_init(&t, "mem", 1);
    t.jobs[0].id = "x";
    t.jobs[0].submit = TRC_MAX_TIME / 2;
    t.jobs[0].duration = TRC_MAX_TIME;
    struct trc_annot_opts o;
    trc_annot_defaults(&o);
    o.deadline_lo = 1000;
    annotate(&o, &t, NULL);
    cr_assert_eq(t.jobs[0].deadline, TRC_MAX_TIME);
    write_trace(&t, "huge.csv");
    struct trace b;
    load(tu_tmp_path("huge.csv"), &b);    /* and it reads back */
    cr_assert_eq(b.jobs[0].deadline, TRC_MAX_TIME);
    trc_free(&b);
    trc_free(&t);
}

/* --------------------------------------------------- keep and overwrite */

static const char mixed[] =
    "job_id,submit_time,num_gpus,duration,model,gpu_type,deadline,util,"
    "mem_gb,user,priority\n"
    "# a comment\n"
    "a,0,1,100,vgg16,V100,500,0.5,8,alice,3\n"
    "\"b,1\",0.5,2,10.25,,,,,,bob,0\n"
    "c,1,4,3600,,K80,,0.25,,,-1\n"
    "d,2.000001,8,1,bert,,7,,16,carol,\n";

/* Fields other than the four annotated ones are identical. */
static void assert_rest_same(const struct trace *x, const struct trace *y)
{
    cr_assert_eq(x->njobs, y->njobs);
    for (uint32_t i = 0; i < x->njobs; i++) {
        const struct trc_job *a = &x->jobs[i], *b = &y->jobs[i];
        cr_assert_str_eq(a->id, b->id);
        cr_assert_eq(a->submit, b->submit);
        cr_assert_eq(a->duration, b->duration);
        cr_assert_eq(a->num_gpus, b->num_gpus);
        cr_assert_eq(a->priority, b->priority);
        cr_assert_eq(!a->gpu_type, !b->gpu_type);
        if (a->gpu_type)
            cr_assert_str_eq(a->gpu_type, b->gpu_type);
        cr_assert_eq(!a->user, !b->user);
        if (a->user)
            cr_assert_str_eq(a->user, b->user);
    }
}

Test(annotate, existing_fields_kept_without_overwrite)
{
    struct trace in, out;
    load(tu_tmp_file("in.csv", mixed), &in);
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o out.csv --deadline-slack 2:3 "
                       "--models x,y --util uniform:0.1,0.2 --mem const:4"),
                 0, "%s", tu_out);
    cr_assert(strstr(tu_out, "wrote 4 jobs to out.csv: deadline filled 2 "
                     "kept 2, model filled 2 kept 2, util filled 2 kept 2, "
                     "mem_gb filled 2 kept 2"), "%s", tu_out);
    load(tu_tmp_path("out.csv"), &out);
    assert_rest_same(&in, &out);
    const struct trc_job *j = out.jobs;
    /* a: everything kept */
    cr_assert_eq(j[0].deadline, 500 * SIM_US_PER_S);
    cr_assert_str_eq(j[0].model, "vgg16");
    cr_assert_eq(j[0].util, 0.5f);
    cr_assert_eq(j[0].mem_gb, 8.0f);
    /* b: everything filled */
    cr_assert(j[1].deadline >= j[1].submit + 2 * j[1].duration &&
              j[1].deadline <= j[1].submit + 3 * j[1].duration);
    cr_assert(!strcmp(j[1].model, "x") || !strcmp(j[1].model, "y"));
    cr_assert(j[1].util >= 0.1f && j[1].util <= 0.2f);
    cr_assert_eq(j[1].mem_gb, 4.0f);
    /* c: util kept, the rest filled; d: model, deadline, mem kept */
    cr_assert_eq(j[2].util, 0.25f);
    cr_assert_eq(j[2].mem_gb, 4.0f);
    cr_assert_neq(j[2].deadline, SIM_NEVER);
    cr_assert_eq(j[3].deadline, 7 * SIM_US_PER_S);
    cr_assert_str_eq(j[3].model, "bert");
    cr_assert_eq(j[3].mem_gb, 16.0f);
    cr_assert(j[3].util >= 0.1f && j[3].util <= 0.2f);
    trc_free(&out);
    trc_free(&in);
}

Test(annotate, overwrite_replaces_existing_fields)
{
    struct trace in, out;
    load(tu_tmp_file("in.csv", mixed), &in);
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o out.csv.gz --overwrite "
                       "--deadline-slack 2 --models x --util const:0.75 "
                       "--mem const:2"), 0, "%s", tu_out);
    cr_assert(strstr(tu_out, "deadline filled 4 replaced 2, model filled 4 "
                     "replaced 2, util filled 4 replaced 2, mem_gb filled 4 "
                     "replaced 2"), "%s", tu_out);
    load(tu_tmp_path("out.csv.gz"), &out);
    assert_rest_same(&in, &out);
    for (uint32_t i = 0; i < out.njobs; i++) {
        const struct trc_job *j = &out.jobs[i];
        cr_assert_eq(j->deadline, j->submit + 2 * j->duration, "job %u", i);
        cr_assert_str_eq(j->model, "x");
        cr_assert_eq(j->util, 0.75f);
        cr_assert_eq(j->mem_gb, 2.0f);
    }
    trc_free(&out);

    /* with a fraction 0, overwrite clears every deadline */
    struct trc_annot_opts o;
    trc_annot_defaults(&o);
    o.deadline_lo = 2;
    o.deadline_frac = 0;
    o.overwrite = true;
    struct trc_annot_stats st;
    annotate(&o, &in, &st);
    cr_assert_eq(st.f[TRC_A_DEADLINE].cleared, 2);
    cr_assert_eq(st.f[TRC_A_DEADLINE].filled, 0);
    for (uint32_t i = 0; i < in.njobs; i++)
        cr_assert_eq(in.jobs[i].deadline, SIM_NEVER);
    trc_free(&in);
}

Test(annotate, output_may_be_the_input)
{
    tu_tmp_file("t.csv", mixed);
    cr_assert_eq(tu_dlsim("trace annotate t.csv -o t.csv --util const:0.5"), 0,
                 "%s", tu_out);
    struct trace t;
    load(tu_tmp_path("t.csv"), &t);
    cr_assert_eq(t.njobs, 4);
    cr_assert_eq(t.jobs[1].util, 0.5f);
    cr_assert_eq(t.jobs[2].util, 0.25f);
    trc_free(&t);
    cr_assert_eq(count_files("t.csv.tmp"), 0);
}

/* --------------------------------------------------------- independence */

Test(annotate, streams_independent)
{
    struct trace base, a, b, c;
    gen(&base, 3000, 11);
    write_trace(&base, "base.csv");
    load(tu_tmp_path("base.csv"), &a);
    load(tu_tmp_path("base.csv"), &b);
    load(tu_tmp_path("base.csv"), &c);
    struct trc_annot_opts o;
    trc_annot_defaults(&o);
    o.seed = 5;
    o.deadline_lo = 1.5;
    o.deadline_hi = 4;
    o.deadline_frac = 0.5;
    annotate(&o, &a, NULL);
    o.util = "uniform:0.1,0.9";
    o.models = "p,q,r";
    o.mem = "exp:10";
    annotate(&o, &b, NULL);
    for (uint32_t i = 0; i < a.njobs; i++)
        cr_assert_eq(a.jobs[i].deadline, b.jobs[i].deadline, "job %u", i);

    /* util alone gives the same utils as util with everything else */
    trc_annot_defaults(&o);
    o.seed = 5;
    o.util = "uniform:0.1,0.9";
    annotate(&o, &c, NULL);
    for (uint32_t i = 0; i < c.njobs; i++)
        cr_assert_eq(c.jobs[i].util, b.jobs[i].util, "job %u", i);
    trc_free(&c);

    /* values already present shift no draw: prefill every third job's
     * util and every other job's deadline; the others get what they got
     * on the empty trace */
    load(tu_tmp_path("base.csv"), &c);
    for (uint32_t i = 0; i < c.njobs; i++) {
        if (i % 3 == 0)
            c.jobs[i].util = 0.123f;
        if (i % 2 == 0)
            c.jobs[i].deadline = c.jobs[i].submit + 1;
    }
    trc_annot_defaults(&o);
    o.seed = 5;
    o.deadline_lo = 1.5;
    o.deadline_hi = 4;
    o.deadline_frac = 0.5;
    o.util = "uniform:0.1,0.9";
    struct trc_annot_stats st;
    annotate(&o, &c, &st);
    cr_assert_eq(st.f[TRC_A_UTIL].kept, 1000);
    cr_assert_eq(st.f[TRC_A_DEADLINE].kept, 1500);
    for (uint32_t i = 0; i < c.njobs; i++) {
        if (i % 3)
            cr_assert_eq(c.jobs[i].util, b.jobs[i].util, "job %u", i);
        else
            cr_assert_eq(c.jobs[i].util, 0.123f);
        if (i % 2)
            cr_assert_eq(c.jobs[i].deadline, b.jobs[i].deadline, "job %u", i);
        else
            cr_assert_eq(c.jobs[i].deadline, c.jobs[i].submit + 1);
    }
    trc_free(&a);
    trc_free(&b);
    trc_free(&c);
    trc_free(&base);
}

/* ------------------------------------------------------- distributions */

static void util_moments(const struct trace *t, double *mean, double *lo,
                         double *hi)
{
    double s = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (uint32_t i = 0; i < t->njobs; i++) {
        s += t->jobs[i].util;
        *lo = fmin(*lo, t->jobs[i].util);
        *hi = fmax(*hi, t->jobs[i].util);
    }
    *mean = s / t->njobs;
}

Test(annotate, util_and_mem_distributions)
{
    const uint32_t n = 20000;
    struct trace t;
    struct trc_annot_opts o;
    double mean, lo, hi;

    gen(&t, n, 2);
    trc_annot_defaults(&o);
    o.util = "uniform:0.2,0.6";
    annotate(&o, &t, NULL);
    util_moments(&t, &mean, &lo, &hi);
    double se = 0.4 / sqrt(12.0) / sqrt(n);
    cr_assert(fabs(mean - 0.4) < 5 * se, "uniform mean %g", mean);
    cr_assert(lo >= 0.2f && hi <= 0.6f, "range %g..%g", lo, hi);
    trc_free(&t);

    /* beta(2, 5): mean 2/7, variance ab / ((a+b)^2 (a+b+1)) */
    gen(&t, n, 2);
    trc_annot_defaults(&o);
    o.util = "beta:2,5";
    annotate(&o, &t, NULL);
    util_moments(&t, &mean, &lo, &hi);
    se = sqrt(10.0 / (49 * 8)) / sqrt(n);
    cr_assert(fabs(mean - 2.0 / 7) < 5 * se, "beta mean %g", mean);
    cr_assert(lo >= 0.01f && hi <= 1, "range %g..%g", lo, hi);
    trc_free(&t);

    /* clamped to [0.01, 1]: uniform:0,2 puts half the jobs at 1 */
    gen(&t, n, 2);
    trc_annot_defaults(&o);
    o.util = "uniform:0,2";
    annotate(&o, &t, NULL);
    uint32_t at1 = 0;
    for (uint32_t i = 0; i < n; i++) {
        cr_assert(t.jobs[i].util >= 0.01f && t.jobs[i].util <= 1.0f);
        at1 += t.jobs[i].util == 1.0f;
    }
    cr_assert(fabs((double)at1 / n - 0.5) < 5 * sqrt(0.25 / n), "%u", at1);
    trc_free(&t);

    /* skewed betas converge (or fall back to bisection) and stay in range */
    static const char *const skewed[] = {"beta:0.01,0.01", "beta:10000,0.01",
                                         "beta:0.01,10000", "beta:0.5,0.5"};
    for (size_t k = 0; k < sizeof skewed / sizeof skewed[0]; k++) {
        gen(&t, 2000, 2);
        trc_annot_defaults(&o);
        o.util = skewed[k];
        annotate(&o, &t, NULL);
        for (uint32_t i = 0; i < t.njobs; i++)
            cr_assert(t.jobs[i].util >= 0.01f && t.jobs[i].util <= 1.0f,
                      "%s: %g", skewed[k], t.jobs[i].util);
        trc_free(&t);
    }

    /* mem exp:8 GB: mean 8, sd 8 */
    gen(&t, n, 2);
    trc_annot_defaults(&o);
    o.mem = "exp:8";
    annotate(&o, &t, NULL);
    double s = 0;
    for (uint32_t i = 0; i < n; i++) {
        cr_assert(t.jobs[i].mem_gb >= 0);
        cr_assert(t.jobs[i].util < 0);         /* util untouched */
        s += t.jobs[i].mem_gb;
    }
    cr_assert(fabs(s / n - 8) < 5 * 8 / sqrt(n), "mem mean %g", s / n);
    trc_free(&t);
}

Test(annotate, model_weights)
{
    const uint32_t n = 20000;
    struct trace t;
    struct trc_annot_opts o;
    gen(&t, n, 8);
    trc_annot_defaults(&o);
    o.models = " a : 3 , b:1, never:0";
    annotate(&o, &t, NULL);
    uint32_t na = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *m = t.jobs[i].model;
        cr_assert(!strcmp(m, "a") || !strcmp(m, "b"), "model '%s'", m);
        na += !strcmp(m, "a");
    }
    cr_assert(fabs((double)na / n - 0.75) < 5 * sqrt(0.75 * 0.25 / n), "%u",
              na);
    trc_free(&t);

    gen(&t, n, 8);
    trc_annot_defaults(&o);
    o.models = "resnet50@64,bert@32,vgg16";
    annotate(&o, &t, NULL);
    uint32_t k[3] = {0};
    for (uint32_t i = 0; i < n; i++)
        k[!strcmp(t.jobs[i].model, "bert@32") +
          2 * !strcmp(t.jobs[i].model, "vgg16")]++;
    for (int i = 0; i < 3; i++)
        cr_assert(fabs(k[i] / (double)n - 1.0 / 3) <
                      5 * sqrt(2.0 / 9 / n), "%d: %u", i, k[i]);
    trc_free(&t);
}

/* Tenants (--vc, --user): drawn by weight from their own streams, so
 * adding them moves no other field's draws and each is the same alone;
 * names already in the trace kept unless overwritten; bad lists named. */
Test(annotate, tenants_by_weight_own_streams_kept)
{
    const uint32_t n = 20000;
    struct trace t, u;
    struct trc_annot_opts o;
    gen(&t, n, 9);
    gen(&u, n, 9);
    trc_annot_defaults(&o);
    o.vc = "big:3, small:1, none:0";
    o.user = "u1,u2";
    o.util = "uniform:0.1,0.9";
    struct trc_annot_stats st;
    annotate(&o, &t, &st);
    cr_assert(st.f[TRC_A_VC].asked && st.f[TRC_A_USER].asked);
    cr_assert_eq(st.f[TRC_A_VC].filled, n);
    cr_assert_eq(st.f[TRC_A_USER].filled, n);
    uint32_t nbig = 0, nu1 = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *v = t.jobs[i].vc, *w = t.jobs[i].user;
        cr_assert(!strcmp(v, "big") || !strcmp(v, "small"), "vc '%s'", v);
        cr_assert(!strcmp(w, "u1") || !strcmp(w, "u2"), "user '%s'", w);
        nbig += !strcmp(v, "big");
        nu1 += !strcmp(w, "u1");
    }
    cr_assert(fabs((double)nbig / n - 0.75) < 5 * sqrt(0.75 * 0.25 / n), "%u", nbig);
    cr_assert(fabs((double)nu1 / n - 0.5) < 5 * sqrt(0.25 / n), "%u", nu1);
    /* vc alone: the same vcs; util alone: the same utils */
    trc_annot_defaults(&o);
    o.vc = "big:3,small:1";
    annotate(&o, &u, NULL);
    o.vc = NULL;
    o.util = "uniform:0.1,0.9";
    annotate(&o, &u, NULL);
    for (uint32_t i = 0; i < n; i++) {
        cr_assert_str_eq(u.jobs[i].vc, t.jobs[i].vc, "job %u", i);
        cr_assert_eq(u.jobs[i].util, t.jobs[i].util, "job %u", i);
        cr_assert_null(u.jobs[i].user);
    }
    trc_free(&u);
    trc_free(&t);

    /* the trace's users kept (a, b, d), c's filled; --overwrite replaces */
    struct trace in, out;
    load(tu_tmp_file("in.csv", mixed), &in);
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o out.csv --user x --vc v"),
                 0, "%s", tu_out);
    cr_assert(strstr(tu_out, "vc filled 4 kept 0, user filled 1 kept 3"),
              "%s", tu_out);
    load(tu_tmp_path("out.csv"), &out);
    cr_assert_str_eq(out.jobs[0].user, "alice");
    cr_assert_str_eq(out.jobs[2].user, "x");
    cr_assert_str_eq(out.jobs[3].vc, "v");
    trc_free(&out);
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o out.csv --user x --overwrite"),
                 0, "%s", tu_out);
    cr_assert(strstr(tu_out, "user filled 4 replaced 3"), "%s", tu_out);
    load(tu_tmp_path("out.csv"), &out);
    for (uint32_t i = 0; i < out.njobs; i++)
        cr_assert_str_eq(out.jobs[i].user, "x");
    trc_free(&out);
    trc_free(&in);

    /* bad lists: 2, the option named, nothing written */
    const char *bad[] = {"--vc a,,b", "--vc a:x", "--user a,a", "--user b:0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(tu_dlsim("trace annotate in.csv -o bad.csv %s", bad[i]), 2,
                     "%s: %s", bad[i], tu_out);
        cr_assert(strstr(tu_out, strstr(bad[i], "vc") ? "bad vc list" : "bad user list"),
                  "%s: %s", bad[i], tu_out);
        cr_assert_eq(count_files("bad.csv"), 0);
    }
}

/* ----------------------------------------------------------- bad input */

Test(annotate, bad_options_rejected_trace_unchanged)
{
    static const struct { const char *models, *util, *mem; double lo, hi,
                          frac; const char *word; } bad[] = {
        {"a,,b", NULL, NULL, 0, 0, 1, "empty name"},
        {"a:x", NULL, NULL, 0, 0, 1, "weight"},
        {"a:-1", NULL, NULL, 0, 0, 1, "weight"},
        {"a:0,b:0", NULL, NULL, 0, 0, 1, "positive weight"},
        {"a,b,a", NULL, NULL, 0, 0, 1, "twice"},
        {"", NULL, NULL, 0, 0, 1, "empty name"},
        {NULL, "beta:0,1", NULL, 0, 0, 1, "util"},
        {NULL, "beta:1", NULL, 0, 0, 1, "util"},
        {NULL, "gauss:1,2", NULL, 0, 0, 1, "util"},
        {NULL, "uniform:0.9,0.1", NULL, 0, 0, 1, "util"},
        {NULL, "philly", NULL, 0, 0, 1, "util"},
        {NULL, NULL, "exp:-3", 0, 0, 1, "mem"},
        {NULL, NULL, "lognormal:60,1", 0, 0, 1, "mem"},
        {NULL, NULL, NULL, 3, 2, 1, "slack"},
        {NULL, NULL, NULL, -1, 0, 1, "slack"},
        {NULL, NULL, NULL, 1, 1001, 1, "slack"},
        {NULL, NULL, NULL, 1, 2, 1.5, "fraction"},
    };
    struct trace t;
    load(tu_tmp_file("in.csv", mixed), &t);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct trc_annot_opts o;
        trc_annot_defaults(&o);
        o.models = bad[i].models;
        o.util = bad[i].util;
        o.mem = bad[i].mem;
        o.deadline_lo = bad[i].lo;
        o.deadline_hi = bad[i].hi;
        o.deadline_frac = bad[i].frac;
        struct dl_error e;
        cr_assert_eq(trc_annot_check(&o, &e), DL_EINPUT, "case %zu", i);
        cr_assert(strstr(e.msg, bad[i].word), "case %zu: %s", i, e.msg);
        o.util = "const:0.99";      /* the bad option must still fail */
        if (bad[i].util)
            o.util = bad[i].util;
        cr_assert_eq(trc_annotate(&o, &t, NULL, &e), DL_EINPUT, "case %zu", i);
    }
    /* nothing was touched */
    cr_assert_eq(t.jobs[1].util, -1.0f);
    cr_assert_null(t.jobs[1].model);
    cr_assert_eq(t.jobs[0].util, 0.5f);
    trc_free(&t);
}

Test(annotate, cli_exit_statuses_and_no_output_left)
{
    tu_tmp_file("in.csv", mixed);
    /* bad option values: 2, nothing written */
    const char *bad[] = {
        "--util beta:0,1", "--util weird", "--mem exp:0", "--models a,,b",
        "--deadline-slack 3:2", "--deadline-slack x", "--deadline-slack 0",
        "--deadline-slack 1:2000", "--deadline-slack 2 --deadline-frac 1.5",
        "--deadline-frac 0.5 --util const:1", "--seed -1 --util const:1",
        "--util", "--bogus", "", "--util const:1 extra.csv",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(tu_dlsim("trace annotate in.csv -o out.csv %s", bad[i]), 2,
                     "'%s': %s", bad[i], tu_out);
        cr_assert(strstr(tu_out, "dlsim trace annotate"), "'%s': %s",
                  bad[i], tu_out);
        cr_assert_eq(count_files("out"), 0, "'%s'", bad[i]);
    }
    cr_assert_eq(tu_dlsim("trace annotate in.csv --util const:1"), 2);
    cr_assert(strstr(tu_out, "missing -o"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace annotate -o out.csv --util const:1"), 2);
    cr_assert(strstr(tu_out, "missing the input"), "%s", tu_out);

    /* malformed input: 2 with file:line */
    tu_tmp_file("bad.csv", "job_id,submit_time,num_gpus,duration\n"
                          "a,5,1,10\nb,1,1,10\n");
    cr_assert_eq(tu_dlsim("trace annotate bad.csv -o out.csv --util const:1"),
                 2, "%s", tu_out);
    cr_assert(strstr(tu_out, "bad.csv:3:"), "%s", tu_out);
    tu_tmp_file("bad2.csv", "job_id,submit_time,num_gpus,duration,util\n"
                           "a,5,1,10,1.5\n");
    cr_assert_eq(tu_dlsim("trace annotate bad2.csv -o out.csv.gz --util "
                       "const:1 --overwrite"), 2, "%s", tu_out);
    cr_assert(strstr(tu_out, "bad2.csv:2:"), "%s", tu_out);
    cr_assert_eq(count_files("out"), 0);

    /* unreadable input, unwritable output: 1 */
    cr_assert_eq(tu_dlsim("trace annotate missing.csv -o out.csv --util "
                       "const:1"), 1, "%s", tu_out);
    cr_assert(strstr(tu_out, "missing.csv"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace annotate in.csv -o nodir/out.csv --util "
                       "const:1"), 1, "%s", tu_out);
    cr_assert_eq(count_files("out"), 0);
    cr_assert_eq(count_files("in.csv.tmp"), 0);

    /* standard input */
    cr_assert_eq(tu_dlsim("trace annotate - -o out.csv --models m < in.csv"), 0,
                 "%s", tu_out);
    cr_assert(strstr(tu_out, "wrote 4 jobs to out.csv: model filled 2 "
                     "kept 2"), "%s", tu_out);
}

Test(annotate, cli_help_documents_every_flag)
{
    cr_assert_eq(tu_dlsim("trace annotate --help"), 0);
    const char *flags[] = {"--deadline-slack", "--deadline-frac", "--models",
                           "--vc", "--user", "--util", "--mem", "--seed",
                           "--overwrite", "--output", "beta:A,B", "--help"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        cr_assert(strstr(tu_out, flags[i]), "no %s in:\n%s", flags[i],
                  tu_out);
    cr_assert_eq(tu_dlsim("trace --help"), 0);
    cr_assert(strstr(tu_out, "annotate"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace"), 2);
    cr_assert(strstr(tu_out, "annotate"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("--help"), 0);
    cr_assert(strstr(tu_out, "trace annotate"), "%s", tu_out);
}

/* --load: three 10 s one-GPU jobs at 0, 10, 20 on one GPU offer 30 GPU-s
 * over a 20 s span: load 1.5.  For load 3 every gap halves (0, 5, 10) and
 * a deadline keeps its slack; the offered load is then exactly 3. */
Test(annotate, scale_load)
{
    struct trace t;
    struct cluster c;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
             "a,0,1,10,\nb,10,1,10,25\nc,20,1,10,100\n");
    tu_simple_cluster(&c, 1, 1);
    cr_expect_float_eq(trc_offered_load(&t, &c), 1.5, 1e-12);
    struct dl_error err = { 0 };
    double k = 0;
    cr_assert_eq(trc_scale_load(&t, &c, 3, &k, &err), 0, "%s", err.msg);
    cr_expect_float_eq(k, 0.5, 1e-15);
    cr_expect_eq(t.jobs[0].submit, 0);
    cr_expect_eq(t.jobs[1].submit, US(5));
    cr_expect_eq(t.jobs[2].submit, US(10));
    cr_expect_eq(t.jobs[0].deadline, SIM_NEVER);
    cr_expect_eq(t.jobs[1].deadline, US(20));
    cr_expect_eq(t.jobs[2].deadline, US(90));
    cr_expect_float_eq(trc_offered_load(&t, &c), 3, 1e-12);
    cr_expect_eq(trc_scale_load(&t, &c, 0, &k, &err), DL_EINPUT);
    trc_free(&t);
    /* one submit time: no span, no load to rescale */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,5,1,10\nb,5,1,10\n");
    cr_expect_eq(trc_scale_load(&t, &c, 1, &k, &err), DL_EINPUT);
    cr_expect(strstr(err.msg, "undefined"), "%s", err.msg);
    trc_free(&t);
    clu_free(&c);
}
