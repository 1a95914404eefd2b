/*
 * traces/import/imp_ali.c - importers of Alibaba's GPU traces: PAI 2020
 * (cluster-trace-gpu-v2020: pai_job_table joined with pai_task_table) and
 * the 2023 openb pod lists (cluster-trace-gpu-v2023).
 *
 * Owns, for PAI, a hash table from job_name to the job's task aggregate
 * (built from the whole task table first, freed before returning).
 *
 * Fractional GPUs, one rule for both traces: a request below one whole
 * GPU becomes a 1-GPU job whose `util` is the requested share (so
 * co-locating policies such as horus and gandiva can pack such jobs on one
 * GPU; others give it the whole GPU), with `mem_gb` the same share of the
 * GPU type's memory when the type is known.  A multi-GPU request that is
 * not a whole number of GPUs is rounded up, with util = request / GPUs.
 *
 * openb (name, num_gpu, gpu_milli, gpu_spec, qos, pod_phase,
 * creation_time, deletion_time, scheduled_time; seconds):
 *   submit = creation_time, duration = deletion_time - scheduled_time;
 *   num_gpu 0 pods are CPU-only (skipped); gpu_milli < 1000 is the share
 *   of each GPU; pod_phase Succeeded and Running (running when the trace
 *   was taken; its deletion_time is where the record ends) are kept,
 *   Failed is failed, Pending (no scheduled_time) unfinished; gpu_spec
 *   "T4" -> gpu_type (through mdl_gpu_alias, as `cluster import` names
 *   types: V100M16 -> V100, V100M32 -> V100-32GB; other names kept), "A|B" -> no constraint (--multi-type any) or A (first);
 *   priority from qos: Guaranteed 3, LS 2, Burstable 1, BE 0.
 *
 * PAI (both tables without a header as published, or with the documented
 * one): submit = the job's start_time (its submission); duration = the
 * last task end_time - the first task start_time; GPUs = sum over the
 * job's tasks of inst_num x plan_gpu / 100 (plan_gpu is percent of one
 * GPU); gpu_type = the GPU tasks' gpu_type when they agree (through
 * mdl_gpu_alias: MISC -> K80, V100M32 -> V100-32GB); user = user;
 * status Terminated kept, Failed failed, Running / Waiting unfinished (a
 * task without an end time too).
 */
#include "traces/import/impint.h"
#include "models/perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Memory (GB) of the GPU types these traces name, after mdl_gpu_alias,
 * for fractional jobs: the memory_gb of models/gpus.csv. */
static double type_mem(const char *t)
{
    static const struct { const char *name; double gb; } tm[] = {
        { "K80", 12 }, { "T4", 16 }, { "P100", 16 }, { "V100", 16 },
        { "V100-32GB", 32 }, { "A10", 24 }, { "A100", 40 },
        { "A100-80GB", 80 }, { "A800-80GB", 80 }, { "H800", 80 },
    };
    for (size_t k = 0; t && k < sizeof tm / sizeof tm[0]; k++)
        if (!strcmp(t, tm[k].name))
            return tm[k].gb;
    return -1;
}

/* The dlsim name of a trace's GPU type (the alias table `cluster import`
 * uses too, so the trace and its imported cluster agree). */
static const char *map_type(const char *t)
{
    const char *a = mdl_gpu_alias(t);
    return a ? a : t;
}

/* GPUs as a real number -> num_gpus, util (share per GPU), notes. */
static void set_gpus(struct imp *m, struct trc_job *j, double gpus)
{
    if (gpus <= 0) {
        j->num_gpus = 0;
        return;
    }
    double n = ceil(gpus - 1e-9);
    j->num_gpus = (uint32_t)n;
    if (gpus < n - 1e-9) {
        j->util = (float)(gpus / n);
        m->note[n == 1 ? IMP_N_FRACTIONAL : IMP_N_ROUNDED_UP]++;
        double gb = type_mem(j->gpu_type);
        if (gb > 0)
            j->mem_gb = (float)(gb * j->util);
    }
}

/* ---------------------------------------------------------------- openb */

enum { O_NAME, O_NGPU, O_MILLI, O_SPEC, O_QOS, O_PHASE, O_CREATE, O_DELETE,
       O_SCHED, NO };

int imp_openb(struct imp *m, const char *path)
{
    static const char *const names[NO] = {
        "name", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
        "creation_time", "deletion_time", "scheduled_time" };
    static const bool req[NO] = { 1, 1, 1, 0, 0, 1, 1, 1, 1 };
    struct dl_csv c;
    int r = dl_csv_open(&c, path, &imp_csv_rules, m->err);
    if (r)
        return r;
    int idx[NO];
    if ((r = dl_csv_header(&c, names, req, NO, idx, m->err)))
        goto out;
    enum imp_unit unit = m->o->time_unit >= 0 ? (enum imp_unit)m->o->time_unit
                                              : IMP_SEC;
    const char *vc = imp_stem(m, path);
    char spec[256];
    while ((r = dl_csv_row(&c, m->err)) > 0) {
        imp_read_one(m);
        if (!imp_vc_ok(m, vc))
            continue;
        struct trc_job j;
        imp_job_init(&j);
        j.line = (uint32_t)c.line;
        j.id = dl_csv_fld(&c, idx[O_NAME]);
        long ngpu, milli;
        const char *s = dl_csv_fld(&c, idx[O_NGPU]);
        if (imp_count(s, &ngpu) < 0) {
            r = imp_bad(m, &c, "num_gpu", "not a GPU count", s);
            break;
        }
        s = dl_csv_fld(&c, idx[O_MILLI]);
        if (imp_count(s, &milli) < 0 || milli > 1000) {
            r = imp_bad(m, &c, "gpu_milli", "not a whole number in 0..1000",
                        s);
            break;
        }
        if (ngpu == 0) {        /* CPU-only, whatever its phase */
            imp_skip(m, IMP_S_ZERO_GPUS);
            continue;
        }
        const char *phase = dl_csv_fld(&c, idx[O_PHASE]);
        if (!strcmp(phase, "Failed")) {
            if (!m->o->keep_failed) {
                imp_skip(m, IMP_S_FAILED);
                continue;
            }
        } else if (strcmp(phase, "Succeeded") && strcmp(phase, "Running")) {
            imp_skip(m, IMP_S_UNFINISHED);
            continue;
        }
        simtime_t create, del, sched;
        const char *sc = dl_csv_fld(&c, idx[O_CREATE]);
        const char *sd = dl_csv_fld(&c, idx[O_DELETE]);
        const char *ss = dl_csv_fld(&c, idx[O_SCHED]);
        int tc = imp_time(sc, unit, 0, &create);
        int td = imp_time(sd, unit, 0, &del);
        int ts = imp_time(ss, unit, 0, &sched);
        if (tc < 0 || td < 0 || ts < 0) {
            r = imp_bad(m, &c, tc < 0 ? "creation_time" : td < 0
                        ? "deletion_time" : "scheduled_time", "not a time",
                        tc < 0 ? sc : td < 0 ? sd : ss);
            break;
        }
        if (tc > 0) {
            imp_skip(m, IMP_S_NO_TIME);
            continue;
        }
        if (ts > 0 || td > 0) {
            imp_skip(m, IMP_S_UNFINISHED);
            continue;
        }
        j.submit = create;
        j.duration = del - sched;
        s = dl_csv_fld(&c, idx[O_SPEC]);
        if (*s) {
            snprintf(spec, sizeof spec, "%s", s);
            char *bar = strchr(spec, '|');
            if (bar && !m->o->multi_first) {
                m->note[IMP_N_MULTI_TYPE]++;
            } else {
                if (bar)
                    *bar = '\0';
                j.gpu_type = map_type(spec);
            }
        }
        const char *qos = dl_csv_fld(&c, idx[O_QOS]);
        j.priority = !strcmp(qos, "Guaranteed") ? 3 : !strcmp(qos, "LS") ? 2
                   : !strcmp(qos, "Burstable") ? 1 : 0;
        double per = milli ? (double)milli / 1000 : 1;
        if (ngpu == 1 || milli == 1000 || milli == 0) {
            set_gpus(m, &j, ngpu == 1 ? per : (double)ngpu);
        } else {                /* several GPUs, each shared */
            j.num_gpus = (uint32_t)ngpu;
            j.util = (float)per;
            m->note[IMP_N_FRACTIONAL]++;
        }
        imp_add(m, &j);
    }
out:
    dl_csv_close(&c);
    return r < 0 ? r : 0;
}

/* ------------------------------------------------------------------ PAI */

struct agg {
    const char *name;           /* job_name, in the map's arena */
    double gpus;                /* sum of inst_num x plan_gpu / 100 */
    simtime_t start, end;       /* first task start, last task end */
    const char *type;           /* GPU tasks' type; "" when they differ */
    bool open;                  /* a task without start or end time */
};

struct aggmap {
    struct agg *a;
    size_t mask, used;
    struct arena *arena;
};

static uint64_t hstr(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    while (*s)
        h = (h ^ (unsigned char)*s++) * UINT64_C(1099511628211);
    return h ^ (h >> 31);
}

static struct agg *agg_get(struct aggmap *m, const char *name, bool add)
{
    if (add && (m->used + 1) * 2 > m->mask + 1) {
        struct aggmap b = { xcalloc((m->mask + 1) * 2, sizeof *m->a),
                            (m->mask + 1) * 2 - 1, m->used, m->arena };
        for (size_t i = 0; i <= m->mask; i++)
            if (m->a[i].name) {
                size_t k = hstr(m->a[i].name) & b.mask;
                while (b.a[k].name)
                    k = (k + 1) & b.mask;
                b.a[k] = m->a[i];
            }
        free(m->a);
        *m = b;
    }
    size_t k = hstr(name) & m->mask;
    for (; m->a[k].name; k = (k + 1) & m->mask)
        if (!strcmp(m->a[k].name, name))
            return &m->a[k];
    if (!add)
        return NULL;
    m->used++;
    struct agg *g = &m->a[k];
    g->name = arena_strndup(m->arena, name, strlen(name));
    g->start = SIM_NEVER;
    g->end = -SIM_NEVER;
    return g;
}

/* A headerless table (or one with the documented header), every row
 * width fields; *have = 1 when the first row is data. */
static int open_table(struct dl_csv *c, const char *path, const char *first,
                      int width, struct dl_error *err, int *have)
{
    int r = dl_csv_open(c, path, &imp_csv_rules, err);
    if (r)
        return r;
    dl_csv_width(c, width);
    r = dl_csv_row(c, err);
    if (r == 0)
        return dl_fail(err, path, 1, 0, "empty file");
    if (r < 0)
        return r;
    *have = strcmp(c->f[0], first) ? 1 : 0;
    return 0;
}

enum { T_JOB, T_TASK, T_INST, T_STATUS, T_START, T_END, T_CPU, T_MEM, T_GPU,
       T_TYPE, NT };

static int read_tasks(struct imp *m, const char *path, struct aggmap *map)
{
    struct dl_csv c;
    int have = 0;
    int r = open_table(&c, path, "job_name", NT, m->err, &have);
    while (!r) {
        if (!have && (r = dl_csv_row(&c, m->err)) <= 0)
            break;
        have = 0;
        r = 0;
        double inst, gpu;
        if (sim_parse_double(c.f[T_INST], &inst) < 0 || inst < 0) {
            r = imp_bad(m, &c, "inst_num", "not a count", c.f[T_INST]);
            break;
        }
        if (!*c.f[T_GPU])
            gpu = 0;
        else if (sim_parse_double(c.f[T_GPU], &gpu) < 0 || gpu < 0) {
            r = imp_bad(m, &c, "plan_gpu", "not a percentage", c.f[T_GPU]);
            break;
        }
        simtime_t s, e;
        int ts = imp_time(c.f[T_START], IMP_SEC, 0, &s);
        int te = imp_time(c.f[T_END], IMP_SEC, 0, &e);
        if (ts < 0 || te < 0) {
            r = imp_bad(m, &c, ts < 0 ? "start_time" : "end_time",
                        "not a time", ts < 0 ? c.f[T_START] : c.f[T_END]);
            break;
        }
        struct agg *g = agg_get(map, c.f[T_JOB], true);
        g->gpus += inst * gpu / 100;
        if (!(g->gpus <= IMP_MAX_GPUS)) {
            r = imp_bad(m, &c, "plan_gpu", "the job's tasks ask for over 4e9 "
                        "GPUs with", c.f[T_GPU]);
            break;
        }
        if (ts || te)           /* not started or not ended */
            g->open = true;
        else {
            if (s < g->start)
                g->start = s;
            if (e > g->end)
                g->end = e;
        }
        if (gpu > 0 && *c.f[T_TYPE]) {
            if (!g->type)
                g->type = arena_strndup(map->arena, c.f[T_TYPE],
                                        strlen(c.f[T_TYPE]));
            else if (strcmp(g->type, c.f[T_TYPE]))
                g->type = "";
        }
    }
    dl_csv_close(&c);
    return r < 0 ? r : 0;
}

enum { J_JOB, J_INST, J_USER, J_STATUS, J_START, J_END, NJ };

int imp_pai(struct imp *m, const char *path)
{
    struct aggmap map = { xcalloc(1024, sizeof(struct agg)), 1023, 0,
                          arena_new() };
    int r = read_tasks(m, m->o->tasks, &map);
    struct dl_csv c;
    memset(&c, 0, sizeof c);
    int have = 0;
    if (!r)
        r = open_table(&c, path, "job_name", NJ, m->err, &have);
    const char *vc = imp_stem(m, path);
    while (!r) {
        if (!have && (r = dl_csv_row(&c, m->err)) <= 0)
            break;
        have = 0;
        r = 0;
        imp_read_one(m);
        if (!imp_vc_ok(m, vc))
            continue;
        const char *st = c.f[J_STATUS];
        if (!strcmp(st, "Failed")) {
            if (!m->o->keep_failed) {
                imp_skip(m, IMP_S_FAILED);
                continue;
            }
        } else if (!strcmp(st, "Running") || !strcmp(st, "Waiting")) {
            imp_skip(m, IMP_S_UNFINISHED);
            continue;
        } else if (strcmp(st, "Terminated")) {
            r = imp_bad(m, &c, "status", "expected Terminated, Failed, "
                        "Running or Waiting", st);
            break;
        }
        struct trc_job j;
        imp_job_init(&j);
        j.line = (uint32_t)c.line;
        j.id = c.f[J_JOB];
        j.user = c.f[J_USER];
        int t = imp_time(c.f[J_START], IMP_SEC, 0, &j.submit);
        if (t < 0) {
            r = imp_bad(m, &c, "start_time", "not a time", c.f[J_START]);
            break;
        }
        if (t > 0) {
            imp_skip(m, IMP_S_NO_TIME);
            continue;
        }
        const struct agg *g = agg_get(&map, c.f[J_JOB], false);
        if (!g) {
            imp_skip(m, IMP_S_NO_TASKS);
            continue;
        }
        if (g->open || g->start == SIM_NEVER) {
            imp_skip(m, IMP_S_UNFINISHED);
            continue;
        }
        j.duration = g->end - g->start;
        j.gpu_type = g->type && *g->type ? map_type(g->type) : NULL;
        set_gpus(m, &j, g->gpus);
        imp_add(m, &j);
    }
    dl_csv_close(&c);
    free(map.a);
    arena_free(map.arena);
    return r < 0 ? r : 0;
}
