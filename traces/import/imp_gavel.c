/*
 * traces/import/imp_gavel.c - the Gavel msr trace importer (stanford-futuredata/
 * gavel scheduler/traces/msr/seed=N/<vc>.trace): tab-separated, no header,
 *
 *   job_type  command  num_steps_arg  needs_data_dir  total_steps
 *   arrival_time  scale_factor
 *
 * A Gavel job has no duration, only steps: duration = total_steps / the
 * isolated throughput (steps/s) of (job_type, scale_factor) on a v100 in
 * Gavel's throughput JSON (--throughputs, e.g. the artifact's
 * simulation_throughputs.json, the table Gavel's simulator reads by
 * default; the zoo's throughput.csv holds Gavel's re-measured physical
 * table instead, whose numbers differ, so the JSON is required).  Gavel
 * measured gangs of 1, 2, 4 and 8 GPUs; a larger or unmeasured scale
 * factor takes the largest measured gang below it, scaled linearly
 * (reported as a note); a job type with no measured gang below its scale
 * factor is skipped.
 *
 * Mapping: submit = arrival_time (s, from the VC's first job; every VC
 * starts at 0); num_gpus = scale_factor; model = the zoo's name for the
 * job type ("ResNet-50 (batch size 64)" -> resnet50@64, "LM (batch size
 * 20)" -> lstm@20, "CycleGAN" -> cyclegan, ...); VC = the file's name
 * (the VC hash), no user (Gavel's traces have none); id = VC-ROW (row in
 * its file, from 1).
 *
 * Owns (struct imp's state, between imp_gavel_begin and imp_gavel_end) the
 * parsed JSON and a flat table of its v100 entries.
 */
#include "traces/import/impint.h"
#include "models/perf.h"
#include "sim/base/formats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tput {
    char type[96];              /* Gavel job type */
    uint32_t sf;                /* scale factor (GPUs) */
    double steps_s;             /* isolated throughput on a v100 */
};

struct gavel {
    struct tput *t;
    size_t n, cap;
};

/* "('ResNet-50 (batch size 64)', 2)" -> type, sf (mdl_gavel_key).  0 or
 * -1. */
static int parse_key(const char *k, struct tput *t)
{
    struct mdl_gavel_job j;
    size_t at;
    const char *why;
    if (mdl_gavel_key(k, &j, &at, &why) || strlen(j.type) >= sizeof t->type)
        return -1;
    memcpy(t->type, j.type, strlen(j.type) + 1);
    t->sf = j.scale;
    return 0;
}

int imp_gavel_begin(struct imp *m)
{
    const char *path = m->o->throughputs;
    struct dl_json_doc d;
    int r = dl_json_load(path, &d, m->err);       /* plain or gzip */
    if (r)
        return r;
    const struct dl_json *v = dl_json_get(d.root, "v100");
    struct gavel *g = xcalloc(1, sizeof *g);
    m->state = g;
    if (!v || v->type != DL_JSON_OBJECT) {
        dl_json_free(&d);
        return dl_fail(m->err, path, 1, 1, "no \"v100\" table of "
                       "throughputs (is this Gavel's throughput JSON?)");
    }
    for (uint32_t i = 0; i < v->n && !r; i++) {
        const struct dl_json *e = &v->kid[i];
        struct tput t;
        const struct dl_json *iso = dl_json_get(e, "null");
        if (parse_key(e->key, &t) < 0 || !iso ||
            iso->type != DL_JSON_NUMBER || !(iso->num > 0))
            r = dl_fail(m->err, path, e->key_line, e->key_col, "v100 entry "
                        "'%.60s': expected \"('JOB TYPE', GPUS)\" with a "
                        "positive \"null\" (isolated) throughput", e->key);
        t.steps_s = r ? 0 : iso->num;
        xgrow(&g->t, &g->cap, g->n + 1, sizeof *g->t);
        g->t[g->n++] = t;
    }
    dl_json_free(&d);
    return r;
}

void imp_gavel_end(struct imp *m)
{
    struct gavel *g = m->state;
    if (g)
        free(g->t);
    free(g);
    m->state = NULL;
}

/* Throughput of type at sf: exact, or scaled from the largest measured
 * gang below sf; -1 when none. */
static double lookup(struct imp *m, const char *type, uint32_t sf)
{
    const struct gavel *g = m->state;
    const struct tput *best = NULL;
    for (size_t i = 0; i < g->n; i++) {
        const struct tput *t = &g->t[i];
        if (strcmp(t->type, type) || t->sf > sf)
            continue;
        if (!best || t->sf > best->sf)
            best = t;
    }
    if (!best)
        return -1;
    if (best->sf != sf)
        m->note[IMP_N_EXTRAPOLATED]++;
    return best->steps_s * sf / best->sf;
}

/* "ResNet-50 (batch size 64)" -> "resnet50@64"; LM -> lstm. */
/* A Gavel job type as the zoo names it ("ResNet-50 (batch size 64)" ->
 * "resnet50@64"), mdl_gavel_type; a type it cannot read is kept in its
 * normal form as far as it goes. */
static void zoo_name(const char *type, char *out, size_t n)
{
    char base[128];
    uint32_t batch;
    size_t at;
    const char *why;
    if (!mdl_gavel_type(type, strlen(type), base, &batch, &at, &why))
        snprintf(out, n, strstr(type, " (batch size ") ? "%s@%u" : "%s", base,
                 batch);
    else if (!dl_csv_norm_name(type, strlen(type), base))
        snprintf(out, n, "%s", base);
    else
        snprintf(out, n, "%s", type);
}

enum { G_TYPE, G_CMD, G_ARG, G_DATA, G_STEPS, G_ARRIVAL, G_SF, NG };

int imp_gavel(struct imp *m, const char *path)
{
    struct dl_csv c;
    int r = dl_csv_open(&c, path, &imp_tsv_rules, m->err);
    if (r)
        return r;
    const char *vc = imp_stem(m, path);
    enum imp_unit unit = m->o->time_unit >= 0 ? (enum imp_unit)m->o->time_unit
                                              : IMP_SEC;
    long row = 0;
    while ((r = dl_csv_row(&c, m->err)) > 0) {
        if (c.nf != NG) {
            r = dl_fail(m->err, path, c.line, 0, "row has %d "
                        "tab-separated fields, a Gavel trace has %d", c.nf,
                        NG);
            break;
        }
        row++;
        imp_read_one(m);
        if (!imp_vc_ok(m, vc))
            continue;
        struct trc_job j;
        imp_job_init(&j);
        j.line = (uint32_t)c.line;
        double steps;
        long sf;
        if (sim_parse_double(c.f[G_STEPS], &steps) < 0 || steps < 0) {
            r = imp_bad(m, &c, "total_steps", "not a step count",
                        c.f[G_STEPS]);
            break;
        }
        if (imp_count(c.f[G_SF], &sf) < 0) {
            r = imp_bad(m, &c, "scale_factor", "not a GPU count", c.f[G_SF]);
            break;
        }
        int t = imp_time(c.f[G_ARRIVAL], unit, 0, &j.submit);
        if (t < 0) {
            r = imp_bad(m, &c, "arrival_time", "not a time", c.f[G_ARRIVAL]);
            break;
        }
        if (t > 0) {
            imp_skip(m, IMP_S_NO_TIME);
            continue;
        }
        j.num_gpus = (uint32_t)sf;
        if (sf > 0) {
            double tp = lookup(m, c.f[G_TYPE], (uint32_t)sf);
            if (tp < 0) {
                imp_skip(m, IMP_S_NO_THROUGHPUT);
                continue;
            }
            double us = steps / tp * SIM_US_PER_S;
            j.duration = us < (double)TRC_MAX_TIME ? (simtime_t)llround(us)
                                                   : TRC_MAX_TIME + 1;
        }
        char id[160], model[128];
        snprintf(id, sizeof id, "%s-%ld", vc, row);
        zoo_name(c.f[G_TYPE], model, sizeof model);
        j.id = id;
        j.model = model;
        j.vc = vc;
        imp_add(m, &j);
    }
    dl_csv_close(&c);
    return r < 0 ? r : 0;
}
