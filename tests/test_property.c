/*
 * tests/test_property.c - properties over many random traces and clusters.
 *
 * For every policy and placement, with --check on (the engine's invariants
 * after every instant: no GPU over-allocated, one state per job, work never
 * negative, time monotone, the policy's queue = the queued jobs):
 *   - every job either finishes exactly once or is rejected, and is
 *     rejected only when it can never fit the empty cluster;
 *   - the GPU work done (integral of GPUs x rate) equals the work the
 *     trace asks for, plus exactly the preemption costs: so all policies do
 *     the same total work;
 *   - non-preemptive policies never preempt, and a job runs for exactly
 *     its duration divided by its GPU type's speed;
 *   - times are ordered: submit <= start <= finish, wait <= jct;
 *   - the same inputs give the same schedule.
 */
#include "randwork.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

TestSuite(property, .fini = tu_tmp_cleanup);

static const char *const policies[] = {
    "fifo", "fifo:backfill=1", "sjf", "sjf:backfill=0", "srtf",
    "srtf:backfill=0", "srtf:preempt_cost=7", "fifo:placement=pool",
    "sjf:placement=pool", "srtf:placement=pool,preempt_cost=3",
};

Test(property, random_workloads, .timeout = 600)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2026);
    for (int round = 0; round < 60; round++) {
        struct cluster c;
        struct trace t;
        tu_random_cluster(&c, r);
        tu_random_trace(&t, &c, r, 150 + gsl_rng_uniform_int(r, 250),
                        (struct tu_rand_fields){ .util = 0.3 });
        for (size_t p = 0; p < sizeof policies / sizeof *policies; p++)
            tu_check_random_run(&t, &c, policies[p], round,
                                !strncmp(policies[p], "srtf", 4), true);
        trc_free(&t);
        clu_free(&c);
    }
    gsl_rng_free(r);
}

/* ---------------------------------------- dlsim reads back what it writes
 *
 * Hostile ids and names (commas, quotes, line breaks, '#', blanks at the
 * ends, tabs, bytes that are not UTF-8, Unicode that YAML folds or
 * refuses, and very long ones) through every writer of names: the native
 * trace (plain and gzip) and the workload description of trace fit, read
 * back by dlsim's own readers byte for byte, and trace gen --like drawing
 * the same names.  A row too long for the reader is refused by the writer
 * instead (tested last). */

static const char *const hostile_parts[] = {
    ",", "\"", "\"\"", "\n", "\r\n", "\r", "#", " ", "\t", "\xff", "\xc3",
    "\x80\x80", "caf\xc3\xa9", "\xc2\x85", "\xe2\x80\xa8", "\xef\xbb\xbf",
    "\x7f", "\x01", "a", "Z9", "::", "- ", "? ", "[", "{", "&x", "*y", "!t",
    "null", "~", "%", "@", "\\", "'",
};

/* A random hostile string of about len bytes (never empty, no NUL). */
static char *hostile(gsl_rng *r, size_t len)
{
    size_t cap = len + 32, n = 0;
    char *s = malloc(cap);
    do {
        const char *p = hostile_parts[gsl_rng_uniform_int(r,
            sizeof hostile_parts / sizeof *hostile_parts)];
        size_t k = strlen(p);
        if (n + k + 1 > cap)
            s = realloc(s, cap = 2 * (n + k + 1));
        memcpy(s + n, p, k);
        n += k;
    } while (n < len);
    s[n] = '\0';
    return s;
}

Test(property, hostile_names_read_back, .timeout = 300)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 13);
    for (int round = 0; round < 12; round++) {
        uint32_t n = 40;
        struct trace t;
        trc_init(&t, "hostile.csv", n);
        char **mine = calloc(4 * n, sizeof *mine);
        for (uint32_t i = 0; i < n; i++) {
            /* one long field a round, up to 200 KB; unique ids */
            size_t len = round % 3 == 2 && i == 7 ? 200000
                       : 1 + gsl_rng_uniform_int(r, 40);
            char *id = hostile(r, len);
            size_t k = strlen(id);
            id = realloc(id, k + 16);
            snprintf(id + k, 16, "|%u", i);
            mine[4 * i] = id;
            mine[4 * i + 1] = hostile(r, 1 + gsl_rng_uniform_int(r, 12));
            mine[4 * i + 2] = hostile(r, 1 + gsl_rng_uniform_int(r, 8));
            mine[4 * i + 3] = hostile(r, 1 + gsl_rng_uniform_int(r, 8));
            struct trc_job *j = &t.jobs[i];
            j->id = mine[4 * i];
            j->model = i % 5 ? mine[4 * (i % 7) + 1] : NULL;
            j->gpu_type = i % 3 ? mine[4 * (i % 4) + 2] : NULL;
            j->user = mine[4 * i + 3];
            j->submit = (simtime_t)i * 1000000;
            j->duration = 1 + (simtime_t)gsl_rng_uniform_int(r, 1000000000);
            j->num_gpus = i == 3 ? UINT32_C(1) << 31 : 1 + i % 8;
        }
        struct dl_error e;
        for (int gz = 0; gz < 2; gz++) {
            const char *p = tu_tmp_pathf("h%d.csv%s", round, gz ? ".gz" : "");
            cr_assert_eq(trc_write(&t, p, &e), 0, "%s", e.msg);
            struct trace b;
            cr_assert_eq(trc_load(p, &b, &e, NULL), 0, "round %d: %s:%ld: %s",
                         round, e.file, e.line, e.msg);
            cr_assert_eq(b.njobs, n);
            for (uint32_t i = 0; i < n; i++) {
                cr_assert_str_eq(b.jobs[i].id, t.jobs[i].id);
                cr_assert_eq(!b.jobs[i].model, !t.jobs[i].model);
                if (t.jobs[i].model)
                    cr_assert_str_eq(b.jobs[i].model, t.jobs[i].model);
                if (t.jobs[i].gpu_type)
                    cr_assert_str_eq(b.jobs[i].gpu_type, t.jobs[i].gpu_type);
                cr_assert_str_eq(b.jobs[i].user, t.jobs[i].user);
                cr_assert_eq(b.jobs[i].num_gpus, t.jobs[i].num_gpus);
                cr_assert_eq(b.jobs[i].duration, t.jobs[i].duration);
            }
            trc_free(&b);
        }
        /* the workload description and trace gen --like */
        struct trc_workload w, back;
        cr_assert_eq(trc_wl_fit(&t, &w, &e), 0, "%s", e.msg);
        const char *wp = tu_tmp_pathf("h%d.yaml", round);
        cr_assert_eq(trc_wl_write(&w, wp, &e), 0, "%s", e.msg);
        cr_assert_eq(trc_wl_load(wp, &back, &e), 0, "round %d: %s:%ld:%ld: %s",
                     round, e.file, e.line, e.col, e.msg);
        cr_assert_eq(back.models.n, w.models.n);
        for (uint32_t k = 0; k < w.models.n; k++)
            cr_assert_str_eq(back.models.name[k], w.models.name[k]);
        cr_assert_eq(back.gpu_types.n, w.gpu_types.n);
        for (uint32_t k = 0; k < w.gpu_types.n; k++)
            cr_assert_str_eq(back.gpu_types.name[k], w.gpu_types.name[k]);
        cr_assert_str_eq(back.source, w.source);
        struct trc_like_opts o = { .seed = 5, .arrivals = TRC_ARR_REPLAY };
        struct trace g;
        cr_assert_eq(trc_generate_like(&o, &back, &g, &e), 0, "%s", e.msg);
        uint32_t big = 0;
        for (uint32_t i = 0; i < g.njobs; i++) {
            big += g.jobs[i].num_gpus == UINT32_C(1) << 31;
            bool known = !g.jobs[i].model;
            for (uint32_t k = 0; k < w.models.n && !known; k++)
                known = !strcmp(g.jobs[i].model, w.models.name[k]);
            cr_assert(known, "a model name that was not in the trace");
        }
        cr_expect_eq(big, 1, "the 2^31-GPU job");
        const char *gp = tu_tmp_pathf("g%d.csv", round);
        cr_assert_eq(trc_write(&g, gp, &e), 0, "%s", e.msg);
        struct trace gb;
        cr_assert_eq(trc_load(gp, &gb, &e, NULL), 0, "%s", e.msg);
        trc_free(&gb);
        trc_free(&g);
        trc_wl_free(&back);
        trc_wl_free(&w);
        for (uint32_t i = 0; i < 4 * n; i++)
            free(mine[i]);
        free(mine);
        trc_free(&t);
    }
    gsl_rng_free(r);
    /* a row over the reader's line limit is refused, not written */
    struct trace t;
    trc_init(&t, "x", 1);
    char *id = malloc(DL_MAX_LINE + 2);
    memset(id, '"', DL_MAX_LINE / 2 + 1);   /* doubled when quoted */
    id[DL_MAX_LINE / 2 + 1] = '\0';
    t.jobs[0].id = id;
    t.jobs[0].duration = 1;
    struct dl_error e;
    const char *p = tu_tmp_path("toolong.csv");
    cr_expect_eq(trc_write(&t, p, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "over the 1048576 a trace line may hold"), "%s",
              e.msg);
    cr_expect(!tu_exists(p));
    free(id);
    trc_free(&t);
    tu_tmp_cleanup();
}
