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

#ifndef DLSIM_VERSION
#define DLSIM_VERSION "unknown"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_mkdirs(const char *dir)
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

void out_json_str(FILE *f, const char *s)
{
    json_str(f, s);
}

static void put_time(FILE *f, simtime_t t)
{
    char b[32];
    fwrite(b, 1, sim_fmt_seconds_raw(b, t), f);
}

/* ---- the jobs.csv line builder: a million rows must not cost a million
 * printf calls each, so fields are formatted by hand into one buffer. */

static char *b_str(char *p, const char *s)
{
    /* one pass, copying as it checks: fields are short (ids, names), and
     * strlen, strpbrk and memcpy calls cost more than their bytes */
    char *q = p;
    for (const char *c = s; *c; c++) {
        if (*c == ',' || *c == '"' || *c == '\n' || *c == '\r')
            goto quote;
        *q++ = *c;
    }
    return q;
quote:
    *p++ = '"';
    for (; *s; s++) {
        if (*s == '"')
            *p++ = '"';
        *p++ = *s;
    }
    *p++ = '"';
    return p;
}

static char *b_u(char *p, uint64_t v)
{
    return p + dl_fmt_u64(p, v);
}

static char *b_time(char *p, simtime_t t)
{
    return p + sim_fmt_seconds_raw(p, t);
}

/* %.6f for the non-negative values written here (rounded half up). */
static char *b_fixed6(char *p, double x)
{
    if (!(x >= 0 && x < 9e12))
        return p + sprintf(p, "%.6f", x);
    return p + dl_fmt_micro(p, (uint64_t)llround(x * 1e6), false);
}

/* The longest jobs.csv row of the run: quoted id and type name (each char
 * may double), a placement segment of up to ~24 chars per GPU, and ten
 * numbers. */
static size_t jobs_line_cap(const struct eng *e)
{
    const struct trace *t = e->tr;
    const struct cluster *c = e->clu;
    size_t cap = 0, typelen = 0;
    for (uint32_t t2 = 0; t2 < c->ntypes; t2++)
        if (strlen(c->types[t2].name) > typelen)
            typelen = strlen(c->types[t2].name);
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct trc_job *tj = &t->jobs[j];
        size_t g = eng_room(e, j);
        size_t need = 2 * strlen(tj->id) + 32 * g +
                      2 * (tj->model ? strlen(tj->model) : 0) +
                      2 * (tj->user ? strlen(tj->user) : 0) +
                      2 * (tj->vc ? strlen(tj->vc) : 0);
        if (need > cap)
            cap = need;
    }
    return cap + 2 * typelen + 16 * 32 + 512;
}

static const char jobs_header[] =
    "job_id,submit_time,start_time,finish_time,wait_time,jct,num_gpus,"
    "gpu_type,placement,preemptions,deadline,qos_met,isolated_runtime,"
    "slowdown,model,user,vc\n";

/* Job j's row into line (of cap bytes, jobs_line_cap); returns its end.
 * Reads only what the engine no longer changes once j is done or
 * rejected. */
static char *job_row(const struct eng *e, uint32_t j, char *line, size_t cap)
{
    const struct cluster *c = e->clu;
    const struct trc_job *tj = &e->tr->jobs[j];
    const struct job_end *r = &e->end[j];
    const uint32_t *first = eng_first_gpus(e, j);
    bool done = e->state[j] == JOB_DONE;
    uint32_t type = first ? c->nodes[c->gpu_node[first[0]]].type : SIM_NONE;
    char *p = line;
    p = b_str(p, tj->id);
    *p++ = ',';
    p = b_time(p, tj->submit);
    *p++ = ',';
    if (first)
        p = b_time(p, r->first_start);
    *p++ = ',';
    if (done) {
        p = b_time(p, r->finish);
        *p++ = ',';
        p = b_time(p, r->wait);
        *p++ = ',';
        p = b_time(p, r->finish - tj->submit);
    } else {
        *p++ = ',';
        *p++ = ',';
    }
    *p++ = ',';
    p = b_u(p, tj->num_gpus);
    *p++ = ',';
    if (first) {
        p = b_str(p, c->types[type].name);
        *p++ = ',';
        /* never a comma or a quote: no quoting needed */
        p += clu_fmt_placement(c, first, eng_first_ngpus(e, j), p,
                               cap - (size_t)(p - line));
    } else {
        *p++ = ',';
    }
    *p++ = ',';
    p = b_u(p, r->preemptions);
    *p++ = ',';
    if (tj->deadline != SIM_NEVER) {
        p = b_time(p, tj->deadline);
        *p++ = ',';
        *p++ = done && r->finish <= tj->deadline ? '1' : '0';
    } else {
        *p++ = ',';
    }
    *p++ = ',';
    if (first) {
        /* alone on the type of its first start */
        double iso = (double)tj->duration / eng_iso_rate(e, j) / SIM_US_PER_S;
        p = b_fixed6(p, iso);
        *p++ = ',';
        if (done)
            p = b_fixed6(p, (double)(r->finish - tj->submit) / SIM_US_PER_S / iso);
    } else {
        *p++ = ',';
    }
    for (int k = 0; k < 3; k++) {   /* model, user, vc */
        const char *v = k == 0 ? tj->model : k == 1 ? tj->user : tj->vc;
        *p++ = ',';
        if (v)
            p = b_str(p, v);
    }
    *p++ = '\n';
    return p;
}

/* ---- jobs.csv, streamed while the run goes on.  The engine publishes
 * how many rows from the first are final (every job up to there done or
 * rejected: out_stream_publish); a writer thread formats and writes them
 * meanwhile, so a run over millions of jobs writes most of jobs.csv on
 * the second core, and the rest once the run is over (out_write_run).
 * The writer reads the trace, the cluster's topology and the run state of
 * jobs that no longer change, never what the engine is changing, except
 * the engine's pool of first placements, which may move when it grows:
 * the engine grows it holding the stream's lock (out_stream_lock), the
 * writer formats its rows holding it. */
enum { TAIL_ROWS = 8192, TAIL_RING = 4, CHUNK_BYTES = 8 << 20 };

struct rowbuf {                 /* formatted rows */
    char *p;
    size_t n, cap;
};

struct out_stream {
    const struct eng *e;
    char path[4096];
    char *tmp;                  /* the temporary file's name */
    FILE *f;
    size_t keep;                /* the length of dir's deepest existing
                                   ancestor (or of dir): what was there */
    pthread_t th;
    bool running;
    pthread_mutex_t lock;
    _Atomic uint32_t avail;     /* rows [0, avail) are final */
    _Atomic bool final;         /* avail will not grow (set after it) */
    _Atomic bool stop;          /* give up: the run failed */
    uint32_t next;              /* rows written */
    int werr;                   /* errno of the first failed write, else 0
                                   (the writer's errno is its own) */
    size_t cap;                 /* a row's bytes at most (jobs_line_cap) */
    uint32_t batch_rows, tail_rows;     /* rows formatted at a time: at
                                   most OUT_BATCH_ROWS, TAIL_ROWS and
                                   CHUNK_BYTES / cap (gangs of thousands of
                                   GPUs make rows of kilobytes) */
    struct rowbuf batch;
    /* The rows left when the run is over (most of them when a job near
     * the start runs to near the end) are formatted by the writer and the
     * run's own thread together, a chunk of tail_rows at a time, and
     * written in order from a ring of TAIL_RING chunks (under lock). */
    pthread_cond_t cv;
    bool tail_on;               /* set up (by the writer) */
    uint32_t tail_from, nchunks, take, written;
    struct tail_buf {
        struct rowbuf rows;
        uint32_t ready;         /* chunk number + 1 once formatted */
    } tb[TAIL_RING];
};

/* A run of fewer jobs writes its outputs on its own thread: a thread
 * costs more than it saves there (start-up of a small run). */
enum { OUT_BATCH_ROWS = 4096, OUT_THREAD_MIN_JOBS = 16384 };

/* fwrite, keeping the first failure's errno; nothing more once one
 * failed (the file is dropped: no need to fill a full disk further). */
static void stream_put(struct out_stream *s, const char *p, size_t n)
{
    if (!s->werr && n && fwrite(p, 1, n, s->f) != n)
        s->werr = errno ? errno : EIO;
}

/* Rows [from, to) into b (grown to hold them). */
static void rows_fmt(const struct out_stream *s, uint32_t from, uint32_t to,
                     struct rowbuf *b)
{
    b->n = 0;
    for (uint32_t j = from; j < to; j++) {
        if (b->cap - b->n < s->cap)
            xgrow(&b->p, &b->cap, b->n + s->cap, 1);
        b->n = (size_t)(job_row(s->e, j, b->p + b->n, s->cap) - b->p);
    }
}

/* Writes the final rows [s->next, avail), batch_rows at a time; whether
 * there were any. */
static bool stream_some(struct out_stream *s)
{
    uint32_t a = atomic_load_explicit(&s->avail, memory_order_acquire);
    if (s->next >= a)
        return false;
    uint32_t end = a - s->next > s->batch_rows ? s->next + s->batch_rows : a;
    pthread_mutex_lock(&s->lock);
    rows_fmt(s, s->next, end, &s->batch);
    pthread_mutex_unlock(&s->lock);
    stream_put(s, s->batch.p, s->batch.n);
    s->next = end;
    return true;
}

/* Formats and writes chunks of the tail until none is left to take;
 * with s->lock held. */
static void tail_work(struct out_stream *s)
{
    uint32_t n = s->e->tr->njobs;
    for (;;) {
        while (s->take < s->nchunks && s->take >= s->written + TAIL_RING)
            pthread_cond_wait(&s->cv, &s->lock);
        if (s->take == s->nchunks)
            return;
        uint32_t k = s->take++;
        struct tail_buf *b = &s->tb[k % TAIL_RING];    /* free: k < written + RING */
        pthread_mutex_unlock(&s->lock);
        uint32_t from = s->tail_from + k * s->tail_rows;
        uint32_t to = n - from > s->tail_rows ? from + s->tail_rows : n;
        rows_fmt(s, from, to, &b->rows);
        pthread_mutex_lock(&s->lock);
        b->ready = k + 1;
        /* whoever finishes the oldest chunk writes it and those after it
         * that are ready */
        struct tail_buf *w;
        while (s->written < s->nchunks &&
               (w = &s->tb[s->written % TAIL_RING])->ready == s->written + 1) {
            stream_put(s, w->rows.p, w->rows.n);
            w->ready = 0;
            s->written++;
        }
        pthread_cond_broadcast(&s->cv);
    }
}

/* The writer wakes every millisecond and writes when a whole batch is
 * final: few wake-ups and few writes, so that it disturbs the engine's
 * core as little as it can.  Once the run is over it sets up the tail and
 * works on it with the run's thread (stream_finish). */
static void *stream_main(void *arg)
{
    struct out_stream *s = arg;
    const struct timespec nap = { 0, 1000000 };  /* 1 ms */
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        bool fin = atomic_load_explicit(&s->final, memory_order_acquire);
        uint32_t a = atomic_load_explicit(&s->avail, memory_order_acquire);
        if (fin) {
            pthread_mutex_lock(&s->lock);
            uint32_t left = s->e->tr->njobs - s->next;
            s->tail_from = s->next;
            s->nchunks = left / s->tail_rows + (left % s->tail_rows != 0);
            s->tail_on = true;
            pthread_cond_broadcast(&s->cv);
            tail_work(s);
            pthread_mutex_unlock(&s->lock);
            break;
        }
        if (a - s->next >= OUT_BATCH_ROWS && stream_some(s))
            continue;
        nanosleep(&nap, NULL);
    }
    return NULL;
}

/* The length of the path buf[0..n) without its last component (and the
 * slashes before it), not below keep. */
static size_t path_up(const char *buf, size_t n, size_t keep)
{
    while (n > keep && buf[n - 1] != '/')
        n--;
    while (n > keep && buf[n - 1] == '/')
        n--;
    return n;
}

/* The length of dir's deepest ancestor that exists (dir's own when it
 * does; 0 when none named in it does). */
static size_t existing_len(const char *dir)
{
    char buf[4096];
    struct stat st;
    snprintf(buf, sizeof buf, "%s", dir);
    for (size_t n = strlen(buf); n > 0; n = path_up(buf, n, 0)) {
        buf[n] = 0;
        if (!stat(buf, &st))
            return n;
    }
    return 0;
}

/* Each directory out_mkdirs made for dir (those past its first keep
 * bytes), deepest first, through what(): removed (rmdir: only if empty),
 * registered with the signal clean-up, or forgotten by it.  Stops at the
 * first failure of what (a directory not empty). */
static void made_dirs(const char *dir, size_t keep, int (*what)(const char *))
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (size_t n = strlen(buf); n > keep; n = path_up(buf, n, keep)) {
        buf[n] = 0;
        if (what(buf))
            return;
    }
}

static int dir_register(const char *d)
{
    dl_tmp_register(d);
    return 0;
}

static int dir_forget(const char *d)
{
    dl_tmp_forget(d);
    return 0;
}

/* The directories made for dir go: removed if empty, and forgotten by
 * the signal clean-up. */
static void remove_made_dirs(const char *dir, size_t keep)
{
    made_dirs(dir, keep, rmdir);
    made_dirs(dir, keep, dir_forget);
}

int out_stream_start(const struct eng *e, const char *dir,
                     struct out_stream **out, struct dl_error *err)
{
    *out = NULL;
    /* the longest name made below it ("/summary.json.tmp.PID") must fit
     * the path buffers here and in out_mkdirs, or a cut name would be
     * made and written instead */
    size_t len = strlen(dir);
    if (!len)
        return dl_fail(err, NULL, 0, 0, "the output directory has an empty "
                       "name");
    if (len > 4000)
        return dl_fail(err, NULL, 0, 0, "the output directory's name is %zu "
                       "bytes long (at most 4,000)", len);
    struct out_stream *s = xcalloc(1, sizeof *s);
    s->e = e;
    s->keep = existing_len(dir);
    if (out_mkdirs(dir)) {
        int rc = dl_fail_io(err, dir, "cannot create directory: %s",
                            strerror(errno));
        remove_made_dirs(dir, s->keep);
        free(s);
        return rc;
    }
    made_dirs(dir, s->keep, dir_register);  /* a signal removes them too */
    snprintf(s->path, sizeof s->path, "%s/jobs.csv", dir);
    if (!(s->f = dl_tmp_open(s->path, &s->tmp, err))) {
        remove_made_dirs(dir, s->keep);
        free(s);
        return DL_EIO;
    }
    fputs(jobs_header, s->f);
    s->cap = jobs_line_cap(e);
    size_t fit = CHUNK_BYTES / s->cap ? CHUNK_BYTES / s->cap : 1;
    s->batch_rows = fit < OUT_BATCH_ROWS ? (uint32_t)fit : OUT_BATCH_ROWS;
    s->tail_rows = fit < TAIL_ROWS ? (uint32_t)fit : TAIL_ROWS;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cv, NULL);
    /* without a thread: all rows at the end */
    s->running = e->tr->njobs >= OUT_THREAD_MIN_JOBS &&
                 dl_thread_start(&s->th, stream_main, s);
    *out = s;
    return 0;
}

bool out_stream_threaded(const struct out_stream *s)
{
    return s->running;
}

void out_stream_publish(struct out_stream *s, uint32_t rows)
{
    atomic_store_explicit(&s->avail, rows, memory_order_release);
}

void out_stream_lock(struct out_stream *s)
{
    pthread_mutex_lock(&s->lock);
}

void out_stream_unlock(struct out_stream *s)
{
    pthread_mutex_unlock(&s->lock);
}

/* Every row written (the run is over); the writer is gone. */
static void stream_finish(struct out_stream *s)
{
    out_stream_publish(s, s->e->tr->njobs);
    atomic_store_explicit(&s->final, true, memory_order_release);
    if (s->running) {           /* the tail, with the writer */
        pthread_mutex_lock(&s->lock);
        while (!s->tail_on)
            pthread_cond_wait(&s->cv, &s->lock);
        tail_work(s);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->th, NULL);
        s->next = s->e->tr->njobs;
    }
    s->running = false;
    while (stream_some(s))
        ;
}

static void stream_free(struct out_stream *s)
{
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->cv);
    for (int k = 0; k < TAIL_RING; k++)
        free(s->tb[k].rows.p);
    free(s->batch.p);
    free(s->tmp);
    free(s);
}

void out_stream_abort(struct out_stream *s, const char *dir)
{
    if (!s)
        return;
    atomic_store_explicit(&s->stop, true, memory_order_release);
    if (s->running)
        pthread_join(s->th, NULL);
    fclose(s->f);
    unlink(s->tmp);
    dl_tmp_forget(s->tmp);
    remove_made_dirs(dir, s->keep);     /* what the run made, if empty */
    stream_free(s);
}

static void write_ts(const struct eng *e, FILE *f)
{
    fputs("time,queued_jobs,running_jobs,busy_gpus,util_alloc,util_effective,"
          "util_useful\n", f);
    char line[256];             /* a time, three counts, three fixed6 */
    for (size_t i = 0; i < e->nts; i++) {
        const struct ts_row *r = &e->ts[i];
        char *p = b_time(line, r->t);
        *p++ = ',';
        p = b_u(p, r->queued);
        *p++ = ',';
        p = b_u(p, r->running);
        *p++ = ',';
        p = b_u(p, r->busy);
        const double u[3] = { r->util_alloc, r->util_eff, r->util_useful };
        for (int k = 0; k < 3; k++) {
            *p++ = ',';
            p = b_fixed6(p, u[k]);
        }
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), f);
    }
}

int out_prov_files(struct out_prov *p, const char *trace_path,
                   const char *cluster_path, struct dl_error *err)
{
    uint64_t bytes;
    p->has_trace_crc = p->has_cluster_crc = false;
    if (trace_path && strcmp(trace_path, "-")) {
        if (dl_file_crc32(trace_path, &bytes, &p->trace_crc32, err))
            return DL_EIO;
        p->has_trace_crc = true;
    }
    if (cluster_path) {
        if (dl_file_crc32(cluster_path, &bytes, &p->cluster_crc32, err))
            return DL_EIO;
        p->has_cluster_crc = true;
    }
    return 0;
}

char *out_command_line(int argc, char **argv)
{
    size_t cap = 16;
    for (int i = 0; i < argc; i++)
        cap += 4 * strlen(argv[i]) + 3;
    char *s = xmalloc(cap), *p = s;
    p += sprintf(p, "dlsim");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        /* where the outputs go changes none of them */
        if (!strcmp(a, "--out") && i + 1 < argc) {
            i++;
            continue;
        }
        if (!strncmp(a, "--out=", 6))
            continue;
        *p++ = ' ';
        bool plain = *a != 0;
        for (const char *q = a; *q && plain; q++)
            plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789-_./:=,+@%", *q) != NULL;
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else
                *p++ = *a;
        }
        *p++ = '\'';
        *p = 0;
    }
    return s;
}

const char *const out_summary_keys[] = {
    "policy", "trace", "cluster", "seed", "dlsim_version", "command", "models",
    "models_zoo", "load", "trace_crc32", "cluster_crc32", "strict", "jobs",
    "jobs_finished", "jobs_rejected", "makespan", "makespan_floor", "avg_jct",
    "p50_jct", "p95_jct", "p99_jct", "avg_wait", "p50_wait", "p99_wait",
    "qos_jobs", "qos_guarantee_rate", "gpu_util_alloc", "gpu_util_effective",
    "gpu_util_useful", "gpu_util_alloc_window", "gpu_util_effective_window",
    "gpu_util_useful_window", "offered_load", "jobs_model_measured",
    "jobs_model_roofline", "jobs_model_default", "colocated_gpu_time_frac",
    "interference_slowdown", "interfered_jobs", "prediction_runtime",
    "prediction_runtime_fit", "prediction_runtime_holdout",
    "prediction_error_jobs", "prediction_error_median", "prediction_error_p90",
    "prediction_unpredicted_jobs", "preemptions", "resizes", "events",
    "warnings", "warning_messages", "fairness_jain_user_slowdown",
    "worst_user_slowdown", "fairness_jain_vc_slowdown", "worst_vc_slowdown",
    "users", "vcs", "wall_seconds",
};
const size_t out_nsummary_keys = sizeof out_summary_keys / sizeof *out_summary_keys;

/* A number, or null when it is not finite. */
static void json_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.6f", x);
    else
        fputs("null", f);
}

/* "key": [ {name, jobs, ...}, ... ], one tenant a line (met_groups). */
static void write_groups(const struct eng *e, FILE *f, const char *key,
                         bool by_vc)
{
    uint32_t n;
    struct met_group *g = met_groups(e, by_vc, &n);
    fprintf(f, "  \"%s\": [", key);
    for (uint32_t i = 0; i < n; i++) {
        const struct met_group *q = &g[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        out_json_str(f, q->name);
        fprintf(f, ", \"jobs\": %u, \"jobs_finished\": %u, \"qos_jobs\": %u, "
                "\"qos_guarantee_rate\": ", q->jobs, q->finished, q->qos_jobs);
        json_num(f, q->qos_jobs ? (double)q->qos_met / q->qos_jobs : NAN);
        static const char *const k[] = { "avg_jct", "p99_jct", "avg_wait",
                                         "p99_wait", "mean_slowdown" };
        const double v[] = { q->avg_jct, q->p99_jct, q->avg_wait, q->p99_wait,
                             q->mean_slowdown };
        for (size_t a = 0; a < sizeof k / sizeof *k; a++) {
            fprintf(f, ", \"%s\": ", k[a]);
            json_num(f, q->finished ? v[a] : NAN);
        }
        fprintf(f, ", \"gpu_hours\": %.6f}", q->gpu_hours);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
    free(g);
}

static void write_prov(const struct out_prov *pv, FILE *f)
{
    fputs("  \"dlsim_version\": ", f);
    json_str(f, DLSIM_VERSION);
    fputs(",\n  \"command\": ", f);
    if (pv && pv->command)
        json_str(f, pv->command);
    else
        fputs("null", f);
    fputs(",\n  \"models\": [", f);
    const struct mdl_spec *ms = pv ? pv->models : NULL;
    for (uint32_t i = 0; ms && i < ms->nargs; i++) {
        if (i)
            fputs(", ", f);
        json_str(f, ms->args[i]);
    }
    fputs("],\n  \"models_zoo\": ", f);
    if (ms && ms->zoo_on && ms->zoo.dir)
        json_str(f, ms->zoo.dir);
    else
        fputs("null", f);
    fputs(",\n  \"load\": ", f);
    if (pv && pv->load > 0)
        fprintf(f, "%.17g", pv->load);
    else
        fputs("null", f);
    fputs(",\n  \"trace_crc32\": ", f);
    if (pv && pv->has_trace_crc)
        fprintf(f, "\"%08x\"", pv->trace_crc32);
    else
        fputs("null", f);
    fputs(",\n  \"cluster_crc32\": ", f);
    if (pv && pv->has_cluster_crc)
        fprintf(f, "\"%08x\"", pv->cluster_crc32);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"strict\": %s,\n", pv && pv->strict ? "true" : "false");
}

static void write_summary(const struct eng *e, const struct met_summary *m,
                          FILE *f, const char *policy, const char *trace,
                          const char *cluster, const struct out_prov *pv)
{
    fputs("{\n  \"policy\": ", f);
    json_str(f, policy);
    fputs(",\n  \"trace\": ", f);
    json_str(f, trace);
    fputs(",\n  \"cluster\": ", f);
    json_str(f, cluster);
    fprintf(f, ",\n  \"seed\": %llu,\n", (unsigned long long)e->o.seed);
    write_prov(pv, f);
    fprintf(f, "  \"jobs\": %u,\n  \"jobs_finished\": %u,\n  \"jobs_rejected\": %u,\n",
            m->jobs, m->finished, m->rejected);
    fputs("  \"makespan\": ", f);
    put_time(f, m->makespan);
    fputs(",\n  \"makespan_floor\": ", f);
    put_time(f, m->makespan_floor);
    /* no finished job: no JCT or wait to speak of (null, not 0) */
    static const char *const jw[] = { "avg_jct", "p50_jct", "p95_jct", "p99_jct",
                                      "avg_wait", "p50_wait", "p99_wait" };
    const double jv[] = { m->avg_jct, m->p50_jct, m->p95_jct, m->p99_jct,
                          m->avg_wait, m->p50_wait, m->p99_wait };
    for (size_t i = 0; i < sizeof jw / sizeof *jw; i++) {
        fprintf(f, ",\n  \"%s\": ", jw[i]);
        json_num(f, m->finished ? jv[i] : NAN);
    }
    fputs(",\n", f);
    fprintf(f, "  \"qos_jobs\": %u,\n  \"qos_guarantee_rate\": ", m->qos_jobs);
    if (m->qos_jobs)
        fprintf(f, "%.6f", m->qos_rate);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"gpu_util_alloc\": %.6f,\n  \"gpu_util_effective\": %.6f,\n"
            "  \"gpu_util_useful\": %.6f,\n", m->util_alloc, m->util_eff,
            m->util_useful);
    static const char *const wn[] = { "gpu_util_alloc_window",
                                      "gpu_util_effective_window",
                                      "gpu_util_useful_window", "offered_load" };
    const double wv[] = { m->util_alloc_win, m->util_eff_win,
                          m->util_useful_win, m->offered_load };
    for (size_t i = 0; i < sizeof wn / sizeof *wn; i++) {
        fprintf(f, "  \"%s\": ", wn[i]);
        json_num(f, wv[i]);
        fputs(",\n", f);
    }
    fprintf(f, "  \"jobs_model_measured\": %u,\n  \"jobs_model_roofline\": %u,\n"
            "  \"jobs_model_default\": %u,\n", m->jobs_src[MDL_SRC_MEASURED],
            m->jobs_src[MDL_SRC_ROOFLINE], m->jobs_src[MDL_SRC_DEFAULT]);
    fprintf(f, "  \"colocated_gpu_time_frac\": %.6f,\n  \"interference_slowdown\": "
            "%.6f,\n  \"interfered_jobs\": %u,\n", m->colocated_frac,
            m->interference, m->colocated_jobs);
    fputs("  \"prediction_runtime\": ", f);
    json_str(f, mdl_perf_predictor(e->perf));
    fputs(",\n  \"prediction_runtime_fit\": ", f);
    if (e->perf->rtp)
        json_str(f, e->perf->rtp->path);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"prediction_runtime_holdout\": %s",
            !e->perf->rtp ? "null" : e->perf->rtp_holdout ? "true" : "false");
    fprintf(f, ",\n  \"prediction_error_jobs\": %u,\n"
            "  \"prediction_error_median\": ", m->pred_jobs);
    json_num(f, m->pred_err_median);
    fputs(",\n  \"prediction_error_p90\": ", f);
    json_num(f, m->pred_err_p90);
    fprintf(f, ",\n  \"prediction_unpredicted_jobs\": %u,\n",
            e->perf->unpredicted);
    fprintf(f, "  \"preemptions\": %llu,\n  \"resizes\": %llu,\n"
            "  \"events\": %llu,\n", (unsigned long long)m->preemptions,
            (unsigned long long)m->resizes, (unsigned long long)m->events);
    const struct dl_diag *d = pv ? pv->diag : NULL;
    fprintf(f, "  \"warnings\": %u,\n  \"warning_messages\": [", d ? d->n : 0);
    for (uint32_t i = 0; d && i < d->nkept; i++) {
        if (i)
            fputs(", ", f);
        json_str(f, d->kept[i]);
    }
    fputs("],\n", f);
    fputs("  \"fairness_jain_user_slowdown\": ", f);
    json_num(f, m->fairness_jain);
    fputs(",\n  \"worst_user_slowdown\": ", f);
    json_num(f, m->worst_user_slowdown);
    fputs(",\n  \"fairness_jain_vc_slowdown\": ", f);
    json_num(f, m->fairness_jain_vc);
    fputs(",\n  \"worst_vc_slowdown\": ", f);
    json_num(f, m->worst_vc_slowdown);
    fputs(",\n", f);
    write_groups(e, f, "users", false);
    write_groups(e, f, "vcs", true);
    fprintf(f, "  \"wall_seconds\": %.3f\n}\n", e->wall_seconds);
}

/* The metrics (read-only over the engine, like jobs.csv) are taken on a
 * second thread while jobs.csv is written, and waited for before
 * summary.json; without a thread, at once. */
struct met_job {
    const struct eng *e;
    struct met_summary *m;
    pthread_t th;
    bool running;
};

static void *met_main(void *arg)
{
    struct met_job *mj = arg;
    met_summarize(mj->e, mj->m);
    return NULL;
}

static void met_start(struct met_job *mj)
{
    mj->running = mj->e->tr->njobs >= OUT_THREAD_MIN_JOBS &&
                  dl_thread_start(&mj->th, met_main, mj);
    if (!mj->running)
        met_summarize(mj->e, mj->m);
}

static void met_wait(struct met_job *mj)
{
    if (mj->running)
        pthread_join(mj->th, NULL);
    mj->running = false;
}

static int write_files(struct met_job *mj, FILE *jobs, char *jobs_tmp,
                       int jobs_errno, const char *dir, const char *policy,
                       const char *trace, const char *cluster,
                       const struct out_prov *pv, struct dl_error *err)
{
    const struct eng *e = mj->e;
    /* summary.json marks a whole set: remove the old one first, write every
     * file under a temporary name (jobs.csv's is written already), then
     * rename them, summary.json last */
    static const char *const names[] = { "jobs.csv", "timeseries.csv", "summary.json" };
    char path[3][4096], *tmp[3] = { jobs_tmp, NULL, NULL };
    int rc = 0, i;
    for (i = 0; i < 3; i++)
        snprintf(path[i], sizeof path[i], "%s/%s", dir, names[i]);
    if (unlink(path[2]) && errno != ENOENT)
        rc = dl_fail_io(err, path[2], "cannot replace: %s", strerror(errno));
    if (rc)
        fclose(jobs);           /* tmp[0] is removed below */
    for (i = 0; i < 3 && !rc; i++) {
        FILE *f = i == 0 ? jobs : dl_tmp_open(path[i], &tmp[i], err);
        if (!f) {
            rc = DL_EIO;
            break;
        }
        if (i == 0 && jobs_errno) {
            errno = jobs_errno; /* what the writer's write met */
        } else if (i == 1) {
            write_ts(e, f);
        } else if (i == 2) {
            met_wait(mj);
            write_summary(e, mj->m, f, policy, trace, cluster, pv);
        }
        if ((rc = dl_tmp_commit(f, tmp[i], path[i], false, err)))
            tmp[i] = NULL;      /* removed and freed by dl_tmp_commit */
    }
    int renamed = 0;            /* tmp[0..renamed) are in place */
    for (; renamed < 3 && !rc; renamed++) {
        if (rename(tmp[renamed], path[renamed])) {
            rc = dl_fail_io(err, path[renamed], "cannot rename into place: %s",
                            strerror(errno));
            break;
        }
        dl_tmp_forget(tmp[renamed]);    /* in place: no longer a temporary */
    }
    for (int k = 0; k < 3; k++) {
        if (rc && tmp[k] && k >= renamed) {
            unlink(tmp[k]);     /* not renamed: remove */
            dl_tmp_forget(tmp[k]);
        }
        free(tmp[k]);
    }
    return rc;
}

int out_write_run(const struct eng *e, struct met_summary *m,
                  struct out_stream *js, const char *dir, const char *policy,
                  const char *trace, const char *cluster,
                  const struct out_prov *pv, struct dl_error *err)
{
    struct met_job mj = { .e = e, .m = m };
    met_start(&mj);
    stream_finish(js);
    made_dirs(dir, js->keep, dir_forget);  /* the run's: kept from here */
    FILE *jobs = js->f;
    char *jobs_tmp = js->tmp;   /* write_files owns both from here */
    int werr = js->werr;
    js->tmp = NULL;
    stream_free(js);
    int rc = write_files(&mj, jobs, jobs_tmp, werr, dir, policy, trace,
                         cluster, pv, err);
    met_wait(&mj);
    return rc;
}

void out_table_header(FILE *to)
{
    fprintf(to, "%-28s %8s %8s %10s %10s %10s %10s %7s %7s %7s %6s %8s\n",
            "policy", "jobs", "done", "avg_jct_h", "p99_jct_h", "avg_wait_h",
            "makespan_h", "util", "eff", "useful", "qos", "preempt");
}

void out_table_row(FILE *to, const char *policy, const struct met_summary *m)
{
    char qos[16];
    if (m->qos_jobs)
        snprintf(qos, sizeof qos, "%.3f", m->qos_rate);
    else
        snprintf(qos, sizeof qos, "-");
    /* no job finished: no JCT, wait or makespan (null in summary.json) */
    char t[4][24];
    const double h[4] = { m->avg_jct / 3600, m->p99_jct / 3600, m->avg_wait / 3600,
                          (double)m->makespan / SIM_US_PER_S / 3600 };
    for (int i = 0; i < 4; i++)
        snprintf(t[i], sizeof t[i], m->finished ? "%.3f" : "-", h[i]);
    fprintf(to, "%-28s %8u %8u %10s %10s %10s %10s %7.3f %7.3f %7.3f "
            "%6s %8llu\n", policy, m->jobs, m->finished, t[0], t[1], t[2], t[3],
            m->util_alloc, m->util_eff, m->util_useful, qos,
            (unsigned long long)m->preemptions);
}
