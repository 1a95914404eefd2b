/*
 * sim/api/api.c - libdlsim.so's entry points (sim/api/dlsim.h) and the one
 * whole run that `dlsim run` and dlsim_run share (api_run): what the
 * command line did after reading argv lives here, so a run from Python
 * passes the same checks in the same order and writes the same files.
 *
 * Nothing here ends the process or prints an error: a failure comes back
 * as a DL_ code and a struct dl_error (the caller prints it, or a binding
 * raises it).  Warnings go where the run's struct dl_diag sends them.
 */
#include "sim/api/api.h"
#include "policies/policy.h"
#include "sim/sweep/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

bool api_is_foreign(const char *spec)
{
    return !strncmp(spec, "py:", 3);
}

static const struct dlsim_py *host;

const struct dlsim_py *api_host(void)
{
    return host;
}

void api_set_host(const struct dlsim_py *py)
{
    host = py;
}

static int run_inputs(const struct api_run *r, struct sim_result *res,
                      double *factor, double *cpu_read, struct dl_error *err);

/* The readers without a diag of their own (model files, the cluster file,
 * a quota file: a gzip file's trailing bytes) warn through the run's. */
int api_run(const struct api_run *r, struct sim_result *res, double *factor,
            double *cpu_read, struct dl_error *err)
{
    struct dl_diag *prev = dl_in_set_diag(r->o.diag);
    int rc = run_inputs(r, res, factor, cpu_read, err);
    dl_in_set_diag(prev);
    return rc;
}

static int run_inputs(const struct api_run *r, struct sim_result *res,
                      double *factor, double *cpu_read, struct dl_error *err)
{
    struct eng_opts o = r->o;
    struct policy shim;
    struct pol_args args;
    struct mdl_spec *spec = (struct mdl_spec *)o.models;
    int rc;
    *factor = 1;
    /* the policy and the models before the big inputs */
    if (r->py) {
        api_shim(r->py, &shim, &args);
        o.pol = &shim;
        o.args = &args;
    } else if (api_is_foreign(o.policy)) {
        return dl_fail(err, "--policy", 0, 0, "%s: a Python policy runs "
                       "through Python (python3 -m dlsim run, or dlsim.run)",
                       o.policy);
    } else if (!o.pol) {
        if ((rc = pol_parse(o.policy, &o.pol, &args, err)))
            return rc;
        o.args = &args;
    }
    if (spec && (rc = mdl_spec_finish(spec, err)))
        return rc;
    struct cluster c;
    if (!r->cluster)
        clu_builtin_demo(&c);
    else if ((rc = cfg_load_cluster(r->cluster, &c, err)))
        return rc;
    struct trace t;
    if ((rc = trc_load(r->trace, &t, err, o.diag))) {
        clu_free(&c);
        return rc;
    }
    if (cpu_read)
        *cpu_read = sim_cpu_seconds();
    struct out_prov pv = { .command = r->command, .models = o.models,
                           .load = r->load, .strict = o.diag && o.diag->strict,
                           .diag = o.diag };
    if ((r->load > 0 &&
         (rc = eng_scale_load(&t, &c, o.models, r->load, factor, err))) ||
        (r->out && (rc = out_prov_files(&pv, r->trace, r->cluster, err))))
        goto out;
    if (r->announce) {
        /* which cluster: the built-in one is never used silently */
        fprintf(stderr, "dlsim run: cluster %s (%u GPU%s, %u type%s, %u node%s)",
                c.name ? c.name : "?", c.ngpus, DL_PLURAL(c.ngpus), c.ntypes,
                DL_PLURAL(c.ntypes),
                c.nnodes, DL_PLURAL(c.nnodes));
        if (r->cluster)
            fprintf(stderr, " from %s\n", r->cluster);
        else
            fputs(": the built-in default (--cluster C.yaml for another)\n",
                  stderr);
    }
    if (r->load > 0 && r->announce)
        fprintf(stderr, "dlsim run: --load %g: arrival gaps x %.6g\n", r->load,
                *factor);
    if (o.sample > 0 && t.njobs &&
        (t.jobs[t.njobs - 1].submit - t.jobs[0].submit) / o.sample >= ENG_MAX_TS_ROWS) {
        rc = dl_fail(err, NULL, 0, 0, "dlsim run: --sample is too small for "
                     "this trace's span (over 4,000,000 timeseries rows) (see "
                     "dlsim run --help)");
        goto out;
    }
    api_shim_creating(r->py);
    rc = sim_run(&t, &c, &o, &pv, r->out, res, err);
    api_shim_creating(NULL);
out:
    trc_free(&t);
    clu_free(&c);
    return rc;
}

/* ------------------------------------------------------- libdlsim.so */

uint32_t dlsim_version(void)
{
    return DLSIM_API_VERSION;
}

size_t dlsim_sizeof(const char *what)
{
    static const struct { const char *name; size_t size; } t[] = {
        { "trc_job", sizeof(struct trc_job) },
        { "job_rt", sizeof(struct job_rt) },
        { "dlsim_instant", sizeof(struct dlsim_instant) },
        { "dlsim_error", sizeof(struct dlsim_error) },
        { "dlsim_opts", sizeof(struct dlsim_opts) },
        { "dlsim_stats", sizeof(struct dlsim_stats) },
        { "dlsim_py", sizeof(struct dlsim_py) },
        /* the offset of each engine struct's last field: a field added
         * into padding leaves the size as it was */
        { "trc_job.line", offsetof(struct trc_job, line) },
        { "job_rt.resizes", offsetof(struct job_rt, resizes) },
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(t[i].name, what))
            return t[i].size;
    return 0;
}

static void copy_error(struct dlsim_error *to, const struct dl_error *e, int code)
{
    memset(to, 0, sizeof *to);
    to->code = code;
    to->line = e->line;
    to->col = e->col;
    snprintf(to->file, sizeof to->file, "%s", e->file);
    snprintf(to->msg, sizeof to->msg, "%s", e->msg);
}

int dlsim_run(const struct dlsim_opts *o, struct dlsim_stats *st,
              struct dlsim_error *err)
{
    struct dl_error e = { 0 };
    memset(st, 0, sizeof *st);
    memset(err, 0, sizeof *err);
    if (o->version != DLSIM_API_VERSION) {
        dl_fail(&e, NULL, 0, 0, "dlsim_run: the caller was built for API "
                "version %u, this libdlsim provides %u", o->version,
                DLSIM_API_VERSION);
        copy_error(err, &e, DL_EINPUT);
        return DL_EINPUT;
    }
    struct mdl_spec spec;
    struct dl_diag diag;
    mdl_spec_init(&spec);
    dl_diag_init(&diag, o->quiet ? NULL : stderr, o->strict != 0);
    int rc = 0;
    simtime_t sample = 0;
    if (!o->trace)
        rc = dl_fail(&e, NULL, 0, 0, "dlsim run: --trace is required");
    else if (sim_parse_interval(o->sample ? o->sample : "300", &sample))
        rc = dl_fail(&e, NULL, 0, 0, "dlsim run: --sample expects seconds "
                     ">= 0 (0 = none; at least 1e-6, the clock's resolution)");
    else if (o->load < 0 || !isfinite(o->load))
        rc = dl_fail(&e, NULL, 0, 0, "dlsim run: --load expects an offered "
                     "load > 0");
    for (uint32_t i = 0; !rc && i < o->nmodels; i++)
        rc = mdl_spec_add(&spec, o->models[i], &e);
    if (!rc) {
        struct api_run r = {
            .trace = o->trace, .cluster = o->cluster, .out = o->out,
            .command = o->command, .load = o->load, .announce = !o->quiet,
            .py = o->py,
            .o = { .policy = o->policy ? o->policy : "fifo", .seed = o->seed,
                   .check = o->check != 0, .sample = sample, .diag = &diag,
                   .models = o->nmodels ? &spec : NULL },
        };
        struct sim_result res;
        rc = api_run(&r, &res, &st->load_factor, NULL, &e);
        if (!rc) {
            st->wall_seconds = res.wall_seconds;
            st->cpu_setup = res.cpu_setup;
            st->cpu_engine = res.cpu_engine;
            st->cpu_write = res.cpu_write;
            st->events = res.events;
        }
    }
    if (rc)
        copy_error(err, &e, rc);
    dl_diag_free(&diag);
    mdl_spec_free(&spec);
    return rc;
}

int dlsim_sweep(const char *spec, const char *out, long jobs, int32_t resume,
                int32_t quiet, int32_t strict)
{
    struct swp_opts o = { .spec = spec, .out = out, .jobs = jobs,
                          .resume = resume != 0, .quiet = quiet != 0,
                          .strict = strict != 0, .shard_n = 1 };
    fflush(NULL);               /* the forked runs must not repeat buffers */
    return swp_run(&o);
}

const char *dlsim_policy(int32_t i, const char **summary, const char **blocking)
{
    int32_t n = 0;
    while (pol_table[n])
        n++;
    if (i < 0 || i >= n)
        return NULL;
    *summary = pol_table[i]->summary;
    *blocking = pol_table[i]->blocking;
    return pol_table[i]->name;
}

const char *dlsim_policy_opt(int32_t i, int32_t k, const char **def,
                             const char **help)
{
    const char *s, *b;
    const struct pol_opt *o = i < 0 ? pol_common_opts
                            : dlsim_policy(i, &s, &b) ? pol_table[i]->opts : NULL;
    for (int32_t j = 0; o && o[j].key; j++)
        if (j == k) {
            *def = o[j].def;
            *help = o[j].help;
            return o[j].key;
        }
    return NULL;
}
