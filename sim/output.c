/*
 * sim/output.c - the files of SPEC section 4 and the stdout table (out_).
 *
 * Every file is written to a temporary name in the same directory and
 * renamed into place once complete, so a reader never sees half a file;
 * summary.json goes last, so its presence means the run's outputs are
 * whole.  Numbers are printed with fixed formats (times exactly, from
 * integer microseconds), so the same run gives the same bytes.
 */
#include "sim/simint.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *out_open_tmp(const char *path, char *tmp, size_t tmplen)
{
    snprintf(tmp, tmplen, "%s.tmp.%ld", path, (long)getpid());
    return fopen(tmp, "w");
}

int out_commit(FILE *f, const char *tmp, const char *path)
{
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int mkdirs(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return -1;
    return 0;
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void put_time(FILE *f, simtime_t t)
{
    char b[32];
    sim_fmt_seconds(b, sizeof b, t);
    fputs(b, f);
}

static void write_jobs(const struct eng *e, FILE *f)
{
    const struct trace *t = e->tr;
    const struct cluster *c = e->clu;
    char place[4096];
    fputs("job_id,submit_time,start_time,finish_time,wait_time,jct,num_gpus,"
          "gpu_type,placement,preemptions,deadline,qos_met,isolated_runtime,"
          "slowdown\n", f);
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct trc_job *tj = &t->jobs[j];
        const struct job_rt *r = &e->rt[j];
        const uint32_t *first = eng_first_gpus(e, j);
        csv_str(f, tj->id);
        fputc(',', f);
        put_time(f, tj->submit);
        fputc(',', f);
        if (first)
            put_time(f, r->first_start);
        fputc(',', f);
        if (r->state == JOB_DONE) {
            put_time(f, r->finish);
            fputc(',', f);
            put_time(f, r->wait);
            fputc(',', f);
            put_time(f, r->finish - tj->submit);
        } else {
            fputs(",,", f);
        }
        fprintf(f, ",%u,", tj->num_gpus);
        uint32_t type = first ? c->nodes[c->gpu_node[first[0]]].type : SIM_NONE;
        if (first) {
            csv_str(f, c->types[type].name);
            clu_fmt_placement(c, first, tj->num_gpus, place, sizeof place);
            fprintf(f, ",%s", place);
        } else {
            fputc(',', f);
        }
        fprintf(f, ",%u,", r->preemptions);
        if (tj->deadline != SIM_NEVER) {
            put_time(f, tj->deadline);
            fprintf(f, ",%d", r->state == JOB_DONE && r->finish <= tj->deadline);
        } else {
            fputc(',', f);
        }
        fputc(',', f);
        if (first) {
            /* alone on the type of its first start */
            double iso = (double)tj->duration / c->types[type].speed / SIM_US_PER_S;
            fprintf(f, "%.6f", iso);
            if (r->state == JOB_DONE)
                fprintf(f, ",%.6f",
                        (double)(r->finish - tj->submit) / SIM_US_PER_S / iso);
            else
                fputc(',', f);
        } else {
            fputc(',', f);
        }
        fputc('\n', f);
    }
}

static void write_ts(const struct eng *e, FILE *f)
{
    fputs("time,queued_jobs,running_jobs,busy_gpus,util_alloc,util_effective\n", f);
    for (size_t i = 0; i < e->nts; i++) {
        const struct ts_row *r = &e->ts[i];
        put_time(f, r->t);
        fprintf(f, ",%u,%u,%u,%.6f,%.6f\n", r->queued, r->running, r->busy,
                r->util_alloc, r->util_eff);
    }
}

static void write_summary(const struct eng *e, const struct met_summary *m,
                          FILE *f, const char *policy, const char *trace,
                          const char *cluster)
{
    fputs("{\n  \"policy\": ", f);
    json_str(f, policy);
    fputs(",\n  \"trace\": ", f);
    json_str(f, trace);
    fputs(",\n  \"cluster\": ", f);
    json_str(f, cluster);
    fprintf(f, ",\n  \"seed\": %llu,\n", (unsigned long long)e->o.seed);
    fprintf(f, "  \"jobs\": %u,\n  \"jobs_finished\": %u,\n  \"jobs_rejected\": %u,\n",
            m->jobs, m->finished, m->rejected);
    fputs("  \"makespan\": ", f);
    put_time(f, m->makespan);
    fprintf(f, ",\n  \"avg_jct\": %.6f,\n  \"p50_jct\": %.6f,\n  \"p95_jct\": %.6f,\n"
            "  \"p99_jct\": %.6f,\n", m->avg_jct, m->p50_jct, m->p95_jct, m->p99_jct);
    fprintf(f, "  \"avg_wait\": %.6f,\n  \"p50_wait\": %.6f,\n  \"p99_wait\": %.6f,\n",
            m->avg_wait, m->p50_wait, m->p99_wait);
    fprintf(f, "  \"qos_jobs\": %u,\n  \"qos_guarantee_rate\": ", m->qos_jobs);
    if (m->qos_jobs)
        fprintf(f, "%.6f", m->qos_rate);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"gpu_util_alloc\": %.6f,\n  \"gpu_util_effective\": %.6f,\n",
            m->util_alloc, m->util_eff);
    fprintf(f, "  \"preemptions\": %llu,\n  \"events\": %llu,\n",
            (unsigned long long)m->preemptions, (unsigned long long)m->events);
    fprintf(f, "  \"wall_seconds\": %.3f\n}\n", e->wall_seconds);
}

int out_write_run(const struct eng *e, const struct met_summary *m,
                  const char *dir, const char *policy, const char *trace,
                  const char *cluster, struct dl_error *err)
{
    if (mkdirs(dir))
        return dl_fail_io(err, dir, "cannot create directory: %s", strerror(errno));
    static const char *const names[] = { "jobs.csv", "timeseries.csv", "summary.json" };
    for (int i = 0; i < 3; i++) {
        char path[4096], tmp[4200];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = out_open_tmp(path, tmp, sizeof tmp);
        if (!f)
            return dl_fail_io(err, path, "cannot write: %s", strerror(errno));
        if (i == 0)
            write_jobs(e, f);
        else if (i == 1)
            write_ts(e, f);
        else
            write_summary(e, m, f, policy, trace, cluster);
        if (out_commit(f, tmp, path))
            return dl_fail_io(err, path, "write failed: %s", strerror(errno));
    }
    return 0;
}

void out_table_header(FILE *to)
{
    fprintf(to, "%-28s %8s %8s %10s %10s %10s %10s %7s %7s %6s %8s\n", "policy",
            "jobs", "done", "avg_jct_h", "p99_jct_h", "avg_wait_h", "makespan_h",
            "util", "eff", "qos", "preempt");
}

void out_table_row(FILE *to, const char *policy, const struct met_summary *m)
{
    char qos[16];
    if (m->qos_jobs)
        snprintf(qos, sizeof qos, "%.3f", m->qos_rate);
    else
        snprintf(qos, sizeof qos, "-");
    fprintf(to, "%-28s %8u %8u %10.3f %10.3f %10.3f %10.3f %7.3f %7.3f %6s %8llu\n",
            policy, m->jobs, m->finished, m->avg_jct / 3600, m->p99_jct / 3600,
            m->avg_wait / 3600, (double)m->makespan / SIM_US_PER_S / 3600,
            m->util_alloc, m->util_eff, qos, (unsigned long long)m->preemptions);
}
