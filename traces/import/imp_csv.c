/*
 * traces/import/imp_csv.c - importers of the CSV trace families whose columns
 * map one to one onto native fields: Microsoft ITP (raw and ElasticFlow),
 * Philly condensed CSV (Pollux/Sia), Helios/Lucid cluster_log, Tiresias,
 * Chronus and Muri.
 *
 * One table-driven reader (read_named) finds the columns by name in the
 * header; a struct spec per format says which column is which, the unit
 * of its numeric times, whether times are wall-clock dates, and the few
 * format rules (status mapping, relative deadline lists).  Owns nothing
 * beyond one call.
 *
 * Per format (the table of docs/traces.md says the same):
 *   itp          job_id, submission_time (s), duration (s), num_gpu
 *   elasticflow  + model_name -> model, deadline|ddl (absolute s) ->
 *                deadline; best_effort = 1 -> no deadline
 *   philly       timestamp (wall clock) -> submit, duration (s),
 *                num_gpus, cluster -> VC; no ids: rows numbered
 *   helios       job_id, user, vc, gpu_num, state, submit_time (date or
 *                number), duration (s; when absent or empty, end_time - start_time);
 *                COMPLETED kept, CANCELLED / FAILED / TIMEOUT / NODE_FAIL
 *                failed, anything else unfinished
 *   tiresias     job_id, num_gpu, submit_time (s), model_name, duration (s)
 *   chronus      job_id, user (a Philly VC, "vc_<hash>") -> VC, num_gpu,
 *                submit_time,
 *                duration (minutes by default), model_name; deadline =
 *                submit + expect_time_list (relative; soft jobs list
 *                several: --deadline first|last), none for best-effort;
 *                priority = SLO class (strict 2, soft 1, best 0)
 *   muri         tiresias columns in milliseconds + priority
 * Formats without a VC column take the input file's name as their VC for
 * --filter vc=; where a file is one tenant (ITP and ElasticFlow: one file
 * per ITP cluster) it is also written as the job's `vc`.  The job's `user`
 * is only ever a user column: a VC is not written as a user.
 */
#include "traces/import/impint.h"

#include <stdlib.h>
#include <string.h>

enum col {
    K_ID, K_SUBMIT, K_GPUS, K_DURATION, K_MODEL, K_DEADLINE, K_USER, K_VC,
    K_PRIORITY, K_BEST, K_STATE, K_START, K_END, K_EXPECT, K_JOBTYPE, NCOL
};

struct spec {
    const char *name[NCOL];     /* column names ("a|b" alternatives) */
    bool required[NCOL];
    enum imp_unit unit;         /* default unit of numeric times */
    int wall;                   /* imp_time's wall argument for submit */
    bool user_is_vc;            /* the user column is the VC (chronus) */
    bool file_is_vc;            /* one file per tenant: its name is the
                                   job's vc (ITP: one per cluster) */
};

static const struct spec itp_spec = {
    .name = { [K_ID] = "job_id", [K_SUBMIT] = "submission_time",
              [K_GPUS] = "num_gpu", [K_DURATION] = "duration" },
    .required = { [K_ID] = 1, [K_SUBMIT] = 1, [K_GPUS] = 1,
                  [K_DURATION] = 1 },
    .unit = IMP_SEC, .wall = 0, .file_is_vc = true,
};

static const struct spec ef_spec = {
    .name = { [K_ID] = "job_id", [K_SUBMIT] = "submission_time|submit_time",
              [K_GPUS] = "num_gpu", [K_DURATION] = "duration",
              [K_MODEL] = "model_name", [K_DEADLINE] = "deadline|ddl",
              [K_BEST] = "best_effort" },
    .required = { [K_ID] = 1, [K_SUBMIT] = 1, [K_GPUS] = 1,
                  [K_DURATION] = 1, [K_DEADLINE] = 1 },
    .unit = IMP_SEC, .wall = 0, .file_is_vc = true,
};

static const struct spec philly_spec = {
    .name = { [K_SUBMIT] = "timestamp", [K_GPUS] = "num_gpus",
              [K_DURATION] = "duration", [K_VC] = "cluster" },
    .required = { [K_SUBMIT] = 1, [K_GPUS] = 1, [K_DURATION] = 1,
                  [K_VC] = 1 },
    .unit = IMP_SEC, .wall = 1,
};

static const struct spec helios_spec = {
    .name = { [K_ID] = "job_id", [K_SUBMIT] = "submit_time",
              [K_GPUS] = "gpu_num", [K_DURATION] = "duration",
              [K_USER] = "user", [K_VC] = "vc", [K_STATE] = "state",
              [K_START] = "start_time", [K_END] = "end_time" },
    .required = { [K_SUBMIT] = 1, [K_GPUS] = 1 },
    .unit = IMP_SEC, .wall = -1,
};

static const struct spec tiresias_spec = {
    .name = { [K_ID] = "job_id", [K_SUBMIT] = "submit_time",
              [K_GPUS] = "num_gpu", [K_DURATION] = "duration",
              [K_MODEL] = "model_name" },
    .required = { [K_ID] = 1, [K_SUBMIT] = 1, [K_GPUS] = 1,
                  [K_DURATION] = 1 },
    .unit = IMP_SEC, .wall = 0,
};

static const struct spec muri_spec = {
    .name = { [K_ID] = "job_id", [K_SUBMIT] = "submit_time",
              [K_GPUS] = "num_gpu", [K_DURATION] = "duration",
              [K_MODEL] = "model_name", [K_PRIORITY] = "priority" },
    .required = { [K_ID] = 1, [K_SUBMIT] = 1, [K_GPUS] = 1,
                  [K_DURATION] = 1 },
    .unit = IMP_MS, .wall = 0,
};

static const struct spec chronus_spec = {
    .name = { [K_ID] = "job_id", [K_SUBMIT] = "submit_time",
              [K_GPUS] = "num_gpu", [K_DURATION] = "duration",
              [K_MODEL] = "model_name", [K_USER] = "user",
              [K_BEST] = "best_effort", [K_EXPECT] = "expect_time_list",
              [K_JOBTYPE] = "job_type" },
    .required = { [K_ID] = 1, [K_SUBMIT] = 1, [K_GPUS] = 1,
                  [K_DURATION] = 1, [K_EXPECT] = 1, [K_JOBTYPE] = 1 },
    .unit = IMP_MIN, .wall = 0, .user_is_vc = true,
};

/* Helios / Slurm states: 0 completed, 1 failed, 2 unfinished. */
static int slurm_state(const char *s)
{
    static const char *const failed[] = { "CANCELLED", "FAILED", "TIMEOUT",
                                          "NODE_FAIL", "OUT_OF_MEMORY",
                                          "PREEMPTED", "BOOT_FAIL",
                                          "DEADLINE" };
    if (!strcmp(s, "COMPLETED"))
        return 0;
    for (size_t k = 0; k < sizeof failed / sizeof failed[0]; k++)
        if (!strncmp(s, failed[k], strlen(failed[k])))
            return 1;
    return 2;
}

/* Chronus deadline: expect_time_list "a" or "a-b-c" relative to submit. */
static int chronus_expect(struct imp *m, const struct dl_csv *c, int i,
                          enum imp_unit unit, simtime_t *rel)
{
    const char *s = dl_csv_fld(c, i);
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return imp_bad(m, c, "expect_time_list", "too long", s);
    strcpy(buf, s);
    /* every element is a time >= 0, not just the one used: "159--x-"
     * is malformed, not 159 */
    bool have = false;
    for (char *p = buf, *dash;; p = dash + 1) {
        dash = strchr(p, '-');
        if (dash)
            *dash = '\0';
        simtime_t v;
        if (imp_time(p, unit, 0, &v) != 0 || v < 0)
            return imp_bad(m, c, "expect_time_list", "not a list of times "
                           ">= 0 separated by '-'", s);
        if (!have || m->o->deadline_last)
            *rel = v;
        have = true;
        if (!dash)
            return 0;
    }
}

static int read_named(struct imp *m, const char *path, const struct spec *sp)
{
    struct dl_csv c;
    struct dl_error *err = m->err;
    int r = dl_csv_open(&c, path, &imp_csv_rules, err);
    if (r)
        return r;
    int idx[NCOL];
    r = dl_csv_header(&c, sp->name, sp->required, NCOL, idx, err);
    if (r)
        goto out;
    if (sp == &helios_spec && idx[K_DURATION] < 0 &&
        (idx[K_START] < 0 || idx[K_END] < 0)) {
        r = dl_fail(err, path, c.line, 0, "missing column 'duration' "
                    "(or start_time and end_time) in the header");
        goto out;
    }
    enum imp_unit unit = m->o->time_unit >= 0 ? (enum imp_unit)m->o->time_unit
                                              : sp->unit;
    const char *stem = idx[K_VC] < 0 && !sp->user_is_vc ? imp_stem(m, path)
                                                         : NULL;
    while ((r = dl_csv_row(&c, err)) > 0) {
        imp_read_one(m);
        const char *vc = stem ? stem
                       : sp->user_is_vc ? dl_csv_fld(&c, idx[K_USER])
                                        : dl_csv_fld(&c, idx[K_VC]);
        if (!imp_vc_ok(m, vc))
            continue;
        struct trc_job j;
        imp_job_init(&j);
        j.line = (uint32_t)c.line;
        j.id = idx[K_ID] >= 0 ? dl_csv_fld(&c, idx[K_ID]) : NULL;
        if (j.id && !*j.id) {
            r = imp_bad(m, &c, sp->name[K_ID], "empty job id", "");
            break;
        }
        long v;
        const char *g = dl_csv_fld(&c, idx[K_GPUS]);
        if (imp_count(g, &v) < 0) {
            r = imp_bad(m, &c, sp->name[K_GPUS], "not a GPU count", g);
            break;
        }
        j.num_gpus = (uint32_t)v;
        if (idx[K_STATE] >= 0) {
            int s = slurm_state(dl_csv_fld(&c, idx[K_STATE]));
            if (s == 2) {
                imp_skip(m, IMP_S_UNFINISHED);
                continue;
            }
            if (s == 1 && !m->o->keep_failed) {
                imp_skip(m, IMP_S_FAILED);
                continue;
            }
        }
        const char *s = dl_csv_fld(&c, idx[K_SUBMIT]);
        int t = imp_time(s, unit, sp->wall, &j.submit);
        if (t < 0) {
            r = imp_bad(m, &c, "submit time", sp->wall == 1
                        ? "not a date YYYY-MM-DD HH:MM:SS" : "not a time", s);
            break;
        }
        if (t > 0) {
            imp_skip(m, IMP_S_NO_TIME);
            continue;
        }
        t = 1;                  /* no duration yet */
        if (idx[K_DURATION] >= 0) {
            s = dl_csv_fld(&c, idx[K_DURATION]);
            t = imp_time(s, unit, 0, &j.duration);
            if (t < 0) {
                r = imp_bad(m, &c, "duration", "not a time", s);
                break;
            }
        }
        /* an empty duration, or none: end_time - start_time (Helios) */
        if (t > 0 && idx[K_START] >= 0 && idx[K_END] >= 0) {
            simtime_t a, b;
            const char *sa = dl_csv_fld(&c, idx[K_START]);
            const char *sb = dl_csv_fld(&c, idx[K_END]);
            int ta = imp_time(sa, unit, -1, &a), tb = imp_time(sb, unit, -1,
                                                               &b);
            if (ta < 0 || tb < 0) {
                r = imp_bad(m, &c, ta < 0 ? "start_time" : "end_time",
                            "not a time", ta < 0 ? sa : sb);
                break;
            }
            t = ta || tb;
            j.duration = t ? 0 : b - a;
        }
        if (t > 0) {
            imp_skip(m, IMP_S_BAD_DURATION);
            continue;
        }
        if (idx[K_MODEL] >= 0)
            j.model = dl_csv_fld(&c, idx[K_MODEL]);
        if (idx[K_USER] >= 0 && !sp->user_is_vc)
            j.user = dl_csv_fld(&c, idx[K_USER]);
        if (idx[K_VC] >= 0 || sp->user_is_vc || sp->file_is_vc)
            j.vc = vc;
        if (idx[K_PRIORITY] >= 0) {
            s = dl_csv_fld(&c, idx[K_PRIORITY]);
            if (*s && (sim_parse_long(s, &v) < 0 || v < INT32_MIN ||
                       v > INT32_MAX)) {
                r = imp_bad(m, &c, "priority", "not an integer", s);
                break;
            }
            j.priority = *s ? (int32_t)v : 0;
        }
        bool best = idx[K_BEST] >= 0 && !strcmp(dl_csv_fld(&c, idx[K_BEST]),
                                                "1");
        if (idx[K_DEADLINE] >= 0 && !best) {
            s = dl_csv_fld(&c, idx[K_DEADLINE]);
            t = imp_time(s, unit, 0, &j.deadline);
            if (t < 0) {
                r = imp_bad(m, &c, "deadline", "not a time", s);
                break;
            }
            if (t > 0)
                j.deadline = SIM_NEVER;
        }
        if (idx[K_JOBTYPE] >= 0) {
            const char *jt = dl_csv_fld(&c, idx[K_JOBTYPE]);
            if (!strcmp(jt, "strict"))
                j.priority = 2;
            else if (!strcmp(jt, "soft"))
                j.priority = 1;
            else if (!strcmp(jt, "best"))
                best = true;
            else {
                r = imp_bad(m, &c, "job_type", "expected strict, soft or "
                            "best", jt);
                break;
            }
            if (!best) {
                simtime_t rel = 0;
                if ((r = chronus_expect(m, &c, idx[K_EXPECT], unit, &rel)))
                    break;
                j.deadline = j.submit + rel;
            }
        }
        imp_add(m, &j);
    }
out:
    dl_csv_close(&c);
    return r < 0 ? r : 0;
}

int imp_itp(struct imp *m, const char *path)
{
    return read_named(m, path, &itp_spec);
}

int imp_elasticflow(struct imp *m, const char *path)
{
    return read_named(m, path, &ef_spec);
}

int imp_philly(struct imp *m, const char *path)
{
    return read_named(m, path, &philly_spec);
}

int imp_helios(struct imp *m, const char *path)
{
    return read_named(m, path, &helios_spec);
}

int imp_tiresias(struct imp *m, const char *path)
{
    return read_named(m, path, &tiresias_spec);
}

int imp_muri(struct imp *m, const char *path)
{
    return read_named(m, path, &muri_spec);
}

int imp_chronus(struct imp *m, const char *path)
{
    return read_named(m, path, &chronus_spec);
}
