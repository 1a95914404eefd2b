/*
 * sim/sweep/sweeprun.c - running a sweep (prefix swp_): the output directory
 * protocol, the pool of run processes, resume, shards and merge, MPI,
 * progress, and summary.csv.
 *
 * The protocol, which makes a kill at any moment harmless:
 *
 *   1. Every input is loaded and checked (sim/sweep/sweep.c) before DIR exists.
 *   2. DIR/grid.csv (run_id + coordinates, one row per run) and
 *      DIR/sweep.yaml are written atomically.  A DIR that already holds a
 *      different grid is refused, so a resume can never mix two specs.
 *   3. Each run is a forked child.  It writes into DIR/runs/.tmp-<id>.<pid>/
 *      and renames that directory to DIR/runs/<id>/ when its files are
 *      whole: a run is done iff DIR/runs/<id>/ exists, holding summary.json
 *      (ok) or error.txt (failed).  A child that fails or dies is recorded
 *      by its parent, which writes error.txt the same way (temporary
 *      directory, rename).  Children die with their parent (PDEATHSIG),
 *      and a rename onto an existing run is treated as done, so an orphan
 *      racing a resumed sweep cannot clobber anything.
 *   4. A finished run's row is appended to DIR/summary.csv.partial
 *      (visible progress; order of completion).
 *   5. At the end, summary.csv is rebuilt from DIR/runs/ alone, in grid
 *      order, and renamed into place; the journal is removed.
 *
 * Since step 5 reads only the run directories, a parallel, resumed,
 * sharded (--shard, then --merge) or MPI sweep gives the same bytes as a
 * serial one.  A failure is recorded as error.txt when a rerun would
 * repeat it (bad input, a failed invariant check, a crash) and as
 * retry.txt when it came from the run's environment (a full disk, an I/O
 * error, a kill, memory: env_failure); summary.csv says failed or retry.
 * --resume (under the directory's lock, so no other sweep is alive there)
 * removes the stale temporary directories and the retry records of the
 * runs it redoes, and skips every other finished run (delete
 * DIR/runs/<id> to redo a failed one).
 *
 * summary.csv: run_id,scenario,policy,trace,cluster,models,load,seed,
 * status,error, then the fields of summary.json in their order except
 * policy, trace, cluster, seed, models, load (coordinates already) and
 * wall_seconds (not reproducible).  summary.json is read with the JSON
 * reader (sim/base/json.c): a number is copied as written, null is an empty
 * field, an array or object is one field of compact JSON; fields are
 * CSV-quoted when they hold a comma, a quote or a line break.
 *
 * MPI (built with -Dmpi, DLSIM_MPI): only when the process was started by
 * mpirun (OMPI_COMM_WORLD_SIZE or PMI_SIZE set) is the MPI module loaded
 * (dlsim-mpi.so, sim/sweep/mpi.h: $DLSIM_MPI_MODULE, else beside this
 * executable, else PREFIX/LIBDIR/dlsim/) and MPI_Init called; a module
 * that cannot be loaded then is an error, not a sweep run on each rank.
 * Every rank validates the spec (each needs the inputs); rank 0 prepares
 * DIR, hands out run indices one at a time to whichever rank asks
 * (itself included: it polls its own child and the requests in turn),
 * counts progress, and writes summary.csv.  Every rank writes its own run
 * directories into the shared DIR.
 */
#include "sim/sweep/sweep.h"
#include "sim/base/formats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef DLSIM_MPI
#include "sim/sweep/mpi.h"

#include <dlfcn.h>
#endif

/* summary.json's fields when no run succeeded: the writer's own list
 * (out_summary_keys); any successful run's own fields take precedence. */
#define fallback_keys out_summary_keys
#define NFALLBACK out_nsummary_keys

/* The coordinates (already columns) and wall_seconds (not reproducible). */
static bool excluded_key(const char *k)
{
    return !strcmp(k, "policy") || !strcmp(k, "trace") || !strcmp(k, "cluster") ||
           !strcmp(k, "seed") || !strcmp(k, "models") || !strcmp(k, "load") ||
           !strcmp(k, "wall_seconds");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#ifndef DLSIM_MPI
static int usage_error(const char *msg)
{
    fprintf(stderr, "dlsim sweep: %s (see dlsim sweep --help)\n", msg);
    return 2;
}
#endif

/* ------------------------------------------------------------ files */

static char *path2(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* The whole file, NUL-terminated, or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = xmalloc(cap);
    size_t got;
    while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            b = xrealloc(b, cap *= 2);
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return NULL;
    }
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}

/* Removes a directory and what it holds (run directories are flat). */
static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        unlink(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = path2(dir, e->d_name);
        if (unlink(p) && (errno == EISDIR || errno == EPERM))
            rm_tree(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}

static int write_atomic(const char *path, const char *data, size_t len,
                        struct dl_error *err)
{
    char *tmp;
    FILE *f = dl_tmp_open(path, &tmp, err);
    if (!f)
        return DL_EIO;
    fwrite(data, 1, len, f);
    return dl_tmp_commit(f, tmp, path, true, err);
}

/* ------------------------------------------------------------ summary.json
 *
 * A run's summary.json read with the project's JSON reader (sim/base/json.c),
 * whatever its layout and however many members it has, each member turned
 * into one summary.csv cell: a string as its text; a number as written
 * (the token's bytes, so 0.500000 stays 0.500000); true/false as such;
 * null as an empty cell; an array or object (warning_messages, models) as
 * compact JSON, ["a","b"], so that one cell holds it whole and a reader
 * gets it back with a JSON parser. */

struct sjson {
    struct dl_json_doc doc;
    const char **key;           /* [n] member names (in doc's arena) */
    const char **val;           /* [n] cell texts (in doc's arena) */
    int n;
};

static void sj_free(struct sjson *j)
{
    dl_json_free(&j->doc);
    free(j->key);
    free(j->val);
    memset(j, 0, sizeof *j);
}

/* The bytes of number v as written in buf (json.c: col counts bytes of
 * the line from 1; lines end at '\n'). */
static void sj_number(FILE *f, const struct dl_json *v, const char *buf,
                      size_t len, const size_t *lstart, long nlines)
{
    if (v->line >= 1 && v->line <= nlines) {
        size_t at = lstart[v->line - 1] + (size_t)(v->col - 1), e = at;
        while (e < len && strchr("+-0123456789.eE", buf[e]))
            e++;
        if (e > at) {
            fwrite(buf + at, 1, e - at, f);
            return;
        }
    }
    fprintf(f, "%.17g", v->num);       /* (not reached: json.c's positions) */
}

/* v as compact JSON (arrays and objects) or cell text (top level). */
static void sj_value(FILE *f, const struct dl_json *v, bool top, const char *buf,
                     size_t len, const size_t *lstart, long nlines)
{
    switch (v->type) {
    case DL_JSON_NULL:
        fputs(top ? "" : "null", f);
        break;
    case DL_JSON_FALSE:
        fputs("false", f);
        break;
    case DL_JSON_TRUE:
        fputs("true", f);
        break;
    case DL_JSON_NUMBER:
        sj_number(f, v, buf, len, lstart, nlines);
        break;
    case DL_JSON_STRING:
        if (top)
            fputs(v->str, f);
        else
            out_json_str(f, v->str);
        break;
    case DL_JSON_ARRAY:
    case DL_JSON_OBJECT:
        fputc(v->type == DL_JSON_ARRAY ? '[' : '{', f);
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                fputc(',', f);
            if (v->type == DL_JSON_OBJECT) {
                out_json_str(f, v->kid[i].key);
                fputc(':', f);
            }
            sj_value(f, &v->kid[i], false, buf, len, lstart, nlines);
        }
        fputc(v->type == DL_JSON_ARRAY ? ']' : '}', f);
        break;
    }
}

/* 0, or DL_EIO / DL_EINPUT with err filled (missing, unreadable, not
 * JSON, not an object). */
static int sjson_read(const char *path, struct sjson *j, struct dl_error *err)
{
    memset(j, 0, sizeof *j);
    char *buf;
    size_t len;
    int rc = dl_read_file(path, DL_JSON_MAX_BYTES, 0, &buf, &len, err);
    if (rc)
        return rc;
    if ((rc = dl_json_parse(path, buf, len, &j->doc, err))) {
        free(buf);
        return rc;
    }
    const struct dl_json *o = j->doc.root;
    if (!o || o->type != DL_JSON_OBJECT) {
        free(buf);
        sj_free(j);
        return dl_fail(err, path, o ? o->line : 1, o ? o->col : 1,
                       "not a dlsim summary (expected a JSON object)");
    }
    long nlines = 1;
    for (size_t i = 0; i < len; i++)
        nlines += buf[i] == '\n';
    size_t *lstart = xmalloc((size_t)nlines * sizeof *lstart);
    long l = 0;
    lstart[l++] = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n')
            lstart[l++] = i + 1;
    j->n = (int)o->n;
    j->key = xcalloc(o->n ? o->n : 1, sizeof *j->key);
    j->val = xcalloc(o->n ? o->n : 1, sizeof *j->val);
    for (uint32_t i = 0; i < o->n; i++) {
        char *text = NULL;
        size_t tl = 0;
        FILE *f = open_memstream(&text, &tl);
        sj_value(f, &o->kid[i], true, buf, len, lstart, nlines);
        fclose(f);
        j->key[i] = o->kid[i].key;
        j->val[i] = arena_strndup(j->doc.arena, text, tl);
        free(text);
    }
    free(lstart);
    free(buf);
    return 0;
}

/* ------------------------------------------------------------ runs */

/* What runs/<id>/ says of a run: done (ok, failed for a reason of its
 * inputs, which a rerun would repeat), failed for a reason of its
 * environment (retry: a full disk, an I/O error, a kill; --resume runs
 * it again), or not done. */
enum { RUN_MISSING, RUN_OK, RUN_FAILED, RUN_RETRY };
static const char *const run_file[] = { NULL, "summary.json", "error.txt",
                                        "retry.txt" };

static int run_state(const char *dir, const char *id)
{
    char p[4096];
    struct stat st;
    for (int k = RUN_OK; k <= RUN_RETRY; k++) {
        snprintf(p, sizeof p, "%s/runs/%s/%s", dir, id, run_file[k]);
        if (!stat(p, &st))
            return k;
    }
    return RUN_MISSING;
}

/* The first line of runs/<id>/error.txt (or retry.txt) into buf. */
static void run_error(const char *dir, const char *id, int st, char *buf,
                      size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/runs/%s/%s", dir, id, run_file[st]);
    char *t = slurp(p, NULL);
    snprintf(buf, n, "%s", t ? t : "(its error file is unreadable)");
    free(t);
    buf[strcspn(buf, "\r\n")] = 0;
}

/* ------------------------------------------------------------ rows */

/* The summary.csv columns after the coordinates and status,error. */
struct keys {
    const char **k;
    int n;
    struct sjson src;           /* owns the strings when from a run */
};

static void keys_add(struct keys *K, const char *k, size_t *cap)
{
    xgrow(&K->k, cap, (size_t)K->n + 1, sizeof *K->k);
    K->k[K->n++] = k;
}

/* Keys from the first ok run among sel (grid order), else the writer's
 * own list. */
static void keys_find(struct keys *K, const char *dir,
                      const char *const (*co)[SWP_NCOORD], const uint32_t *sel,
                      uint32_t n)
{
    memset(K, 0, sizeof *K);
    size_t cap = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *id = co[sel[i]][0];
        char p[4096];
        snprintf(p, sizeof p, "%s/runs/%s/summary.json", dir, id);
        struct sjson j;
        struct dl_error err = { 0 };
        if (sjson_read(p, &j, &err))
            continue;
        K->src = j;
        for (int k = 0; k < j.n; k++)
            if (!excluded_key(j.key[k]))
                keys_add(K, j.key[k], &cap);
        return;
    }
    for (size_t i = 0; i < NFALLBACK; i++)
        if (!excluded_key(fallback_keys[i]))
            keys_add(K, fallback_keys[i], &cap);
}

static void keys_free(struct keys *K)
{
    sj_free(&K->src);
    free(K->k);
    memset(K, 0, sizeof *K);
}

static void write_header(FILE *f, const struct keys *K)
{
    for (int i = 0; i < SWP_NCOORD; i++)
        fprintf(f, "%s,", swp_coord_name[i]);
    fputs("status,error", f);
    for (int i = 0; i < K->n; i++) {
        fputc(',', f);
        dl_csv_put_field(f, K->k[i]);
    }
    fputc('\n', f);
}

/* One row for run id from its directory.  RUN_OK/RUN_FAILED, RUN_MISSING
 * (nothing written), or -1 with why filled (fields differ from K). */
static int write_row(FILE *f, const char *dir, const char *const co[SWP_NCOORD],
                     const struct keys *K, char *why, size_t whyn)
{
    const char *id = co[0];
    int st = run_state(dir, id);
    if (st == RUN_MISSING)
        return st;
    struct sjson j = { 0 };
    char err[1024] = "";
    if (st == RUN_OK) {
        char p[4096];
        snprintf(p, sizeof p, "%s/runs/%s/summary.json", dir, id);
        struct dl_error e = { 0 };
        if (sjson_read(p, &j, &e)) {
            char *m = NULL;
            size_t ml;
            FILE *mf = open_memstream(&m, &ml);
            dl_error_print(&e, mf);
            fclose(mf);
            m[strcspn(m, "\n")] = 0;
            snprintf(why, whyn, "%s (not a dlsim summary)", m);
            free(m);
            return -1;
        }
        int m = 0;
        for (int k = 0; k < j.n; k++) {
            if (excluded_key(j.key[k]))
                continue;
            if (m >= K->n || strcmp(K->k[m], j.key[k])) {
                snprintf(why, whyn, "%s: its fields differ from the other runs' "
                         "(made by another dlsim version?)", p);
                sj_free(&j);
                return -1;
            }
            m++;
        }
        if (m != K->n) {
            snprintf(why, whyn, "%s: its fields differ from the other runs'", p);
            sj_free(&j);
            return -1;
        }
    } else {
        run_error(dir, id, st, err, sizeof err);
    }
    for (int i = 0; i < SWP_NCOORD; i++) {
        dl_csv_put_field(f, co[i]);
        fputc(',', f);
    }
    fputs(st == RUN_OK ? "ok," : st == RUN_RETRY ? "retry," : "failed,", f);
    dl_csv_put_field(f, err);
    if (st == RUN_OK) {
        for (int k = 0; k < j.n; k++)
            if (!excluded_key(j.key[k])) {
                fputc(',', f);
                dl_csv_put_field(f, j.val[k]);
            }
    } else {
        for (int k = 0; k < K->n; k++)
            fputc(',', f);
    }
    fputc('\n', f);
    sj_free(&j);
    return st;
}

/* Writes out (atomically) the rows of the runs sel[0..n) in that order.
 * Counts the failed, retryable and missing runs; any missing run aborts
 * before writing.  0, DL_EIO, or 1 (missing runs, or inconsistent
 * fields: message printed). */
static int write_summary(const char *dir, const char *const (*co)[SWP_NCOORD],
                         const uint32_t *sel, uint32_t n, const char *out,
                         uint32_t *nfailed, uint32_t *nretry, uint32_t *nmissing)
{
    *nfailed = *nretry = *nmissing = 0;
    for (uint32_t i = 0; i < n; i++) {
        int st = run_state(dir, co[sel[i]][0]);
        if (st == RUN_MISSING) {
            if (*nmissing < 10)
                fprintf(stderr, "dlsim sweep: %s/runs/%s: missing (run %u not "
                        "finished)\n", dir, co[sel[i]][0], sel[i]);
            ++*nmissing;
        }
    }
    if (*nmissing) {
        fprintf(stderr, "dlsim sweep: %u of %u runs missing; %s not written\n",
                *nmissing, n, out);
        return 1;
    }
    struct keys K;
    keys_find(&K, dir, co, sel, n);
    struct dl_error err = { 0 };
    char *tmp;
    FILE *f = dl_tmp_open(out, &tmp, &err);
    if (!f) {
        keys_free(&K);
        dl_error_print(&err, stderr);
        return DL_EIO;
    }
    write_header(f, &K);
    int bad = 0;
    for (uint32_t i = 0; i < n && !bad; i++) {
        char why[4400];
        int st = write_row(f, dir, co[sel[i]], &K, why, sizeof why);
        if (st < 0) {
            fprintf(stderr, "dlsim sweep: %s\n", why);
            bad = 1;
        } else if (st == RUN_FAILED) {
            ++*nfailed;
        } else if (st == RUN_RETRY) {
            ++*nretry;
        }
    }
    keys_free(&K);
    if (bad) {
        fclose(f);
        unlink(tmp);
        free(tmp);
        return 1;
    }
    if (dl_tmp_commit(f, tmp, out, true, &err)) {
        dl_error_print(&err, stderr);
        return DL_EIO;
    }
    return 0;
}

/* The end of a sweep's last line: ", 2 failed, 1 to retry (...)". */
static void end_counts(char *buf, size_t n, uint32_t nfailed, uint32_t nretry)
{
    int k = snprintf(buf, n, "%u failed%s", nfailed,
                     nfailed ? " (see the error column)" : "");
    if (nretry && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ", %u to retry (a full disk, an I/O "
                 "error or a kill: --resume runs them again)", nretry);
}

/* ------------------------------------------------------------ progress */

struct prog {
    bool tty, quiet;
    uint32_t total, done, failed;
    double t0;
    double drawn;               /* when the bar was last drawn */
    int width;                  /* drawn bar width, 0 = none */
};

static void prog_draw(struct prog *p)
{
    if (p->quiet || !p->tty)
        return;
    enum { W = 30 };
    char bar[W + 1];
    uint32_t fill = p->total ? (uint32_t)((uint64_t)W * p->done / p->total) : W;
    for (int i = 0; i < W; i++)
        bar[i] = (uint32_t)i < fill ? '#' : '.';
    bar[W] = 0;
    char eta[32] = "?";
    double el = now_s() - p->t0;
    if (p->done)
        sim_fmt_duration(eta, sizeof eta, el / p->done * (p->total - p->done));
    fprintf(stderr, "\r[%s] %u/%u runs, %u failed, ETA %s\033[K", bar, p->done,
            p->total, p->failed, p->done == p->total ? "0s" : eta);
    fflush(stderr);
    p->width = 1;
}

static void prog_run(struct prog *p, const char *id, int st, const char *err,
                     double secs, int rank)
{
    char where[32] = "";
    if (rank >= 0)
        snprintf(where, sizeof where, ", rank %d", rank);
    p->done++;
    if (st != RUN_OK)
        p->failed++;
    if (p->quiet)
        return;
    if (p->tty) {
        if (st != RUN_OK)
            fprintf(stderr, "\r\033[K%s: failed: %s\n", id, err);
        double t = now_s();     /* at most ten redraws a second */
        if (st != RUN_OK || p->done == p->total || t - p->drawn >= 0.1) {
            p->drawn = t;
            prog_draw(p);
        }
    } else if (st == RUN_OK) {
        fprintf(stderr, "dlsim sweep: [%u/%u] %s ok (%.1f s%s)\n", p->done, p->total, id,
                secs, where);
    } else {
        fprintf(stderr, "dlsim sweep: [%u/%u] %s failed%s: %s\n", p->done, p->total, id,
                rank >= 0 ? where + 1 : "", err);
    }
}

static void prog_end(struct prog *p)
{
    if (!p->quiet && p->tty && p->width)
        fputc('\n', stderr);
}

/* ------------------------------------------------------------ a sweep */

struct sweep {
    struct swp_spec *s;
    const char *dir;
    const char *const (*co)[SWP_NCOORD];
    uint32_t *todo, ntodo;      /* runs to do now, grid order */
    uint32_t *sel, nsel;        /* runs of this invocation (shard) */
    double *started;            /* [nruns] wall time a run started */
    FILE *journal;
    struct keys jkeys;
    struct prog prog;
    uint32_t nfailed;
    bool shard;                 /* --shard shard_i/shard_n */
    uint32_t shard_i, shard_n;
    int lock_fd, shard_fd;      /* the directory's locks (-1: none) */
};

static void run_path(char *buf, size_t n, const struct sweep *w, const char *id,
                     const char *sub)
{
    snprintf(buf, n, "%s/runs/%s%s", w->dir, sub ? sub : "", id);
}

/* The child: run i into a temporary directory, rename it into place. */
static _Noreturn void child(struct sweep *w, uint32_t i, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    const char *id = w->s->runs[i].id;
    char log[4096], tmp[4096], fin[4096];
    snprintf(log, sizeof log, "%s/logs/%s.log", w->dir, id);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) {
        dup2(nul, 1);
        close(nul);
    }
    snprintf(tmp, sizeof tmp, "%s/runs/.tmp-%s.%ld", w->dir, id, (long)getpid());
    run_path(fin, sizeof fin, w, id, NULL);
    rm_tree(tmp);               /* a dead run's, whose pid this one reuses */
    int rc = swp_exec(w->s, i, tmp);
    if (rc) {
        rm_tree(tmp);
        fflush(stderr);
        _exit(rc);
    }
    if (rename(tmp, fin)) {
        int e = errno;
        bool done = run_state(w->dir, id) != RUN_MISSING;
        rm_tree(tmp);
        if (!done) {
            fprintf(stderr, "dlsim: %s: cannot rename into place: %s\n", fin,
                    strerror(e));
            _exit(SWP_EXIT_RETRY);
        }
    }
    _exit(0);
}

static pid_t spawn(struct sweep *w, uint32_t i)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("dlsim sweep: fork");
        return -1;
    }
    if (pid == 0)
        child(w, i, parent);
    w->started[i] = now_s();
    return pid;
}

/* The last non-empty line of the run's log, for its error message. */
static void last_line(const char *path, char *buf, size_t n)
{
    buf[0] = 0;
    size_t len;
    char *t = slurp(path, &len);
    if (!t)
        return;
    while (len && (t[len - 1] == '\n' || t[len - 1] == '\r' || t[len - 1] == ' '))
        t[--len] = 0;
    char *nl = strrchr(t, '\n');
    snprintf(buf, n, "%s", nl ? nl + 1 : t);
    free(t);
}

/* Whether a run process that ended with status failed for a reason of
 * its environment, so that running it again may well succeed: it said so
 * (SWP_EXIT_RETRY: its outputs could not be written, its inputs could
 * not be read again), or something outside killed it (SIGKILL, as the
 * OOM killer and kill -9 do; SIGTERM, SIGINT, SIGHUP; a CPU or file-size
 * limit), or it ran out of memory (the allocator's abort), or it ended
 * well but its directory is gone.  A crash (SIGSEGV, an assertion's
 * SIGABRT, ...), a failed invariant check (exit 1) and bad input (exit 2)
 * would happen again: deterministic. */
static bool env_failure(int status, const char *line)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status) == SWP_EXIT_RETRY || !WEXITSTATUS(status);
    if (!WIFSIGNALED(status))
        return false;
    switch (WTERMSIG(status)) {
    case SIGKILL: case SIGTERM: case SIGINT: case SIGHUP: case SIGQUIT:
    case SIGPIPE: case SIGXCPU: case SIGXFSZ:
        return true;
    case SIGABRT:
        return strstr(line, "out of memory") != NULL;
    default:
        return false;
    }
}

/* After a run process ended with status: records a failure as
 * runs/<id>/error.txt, or runs/<id>/retry.txt when it is environmental
 * (env_failure); returns RUN_OK, RUN_FAILED or RUN_RETRY, msg filled. */
static int record(struct sweep *w, uint32_t i, int status, pid_t pid,
                  char *msg, size_t msgn)
{
    const char *id = w->s->runs[i].id;
    msg[0] = 0;
    /* the directory is the truth: a run killed after its rename is done */
    int st = run_state(w->dir, id);
    if (st != RUN_MISSING) {
        if (st != RUN_OK)
            run_error(w->dir, id, st, msg, msgn);
        return st;
    }
    char tmp[4096], log[4096], line[1024], fin[4096];
    snprintf(tmp, sizeof tmp, "%s/runs/.tmp-%s.%ld", w->dir, id, (long)pid);
    rm_tree(tmp);               /* what the dead child left */
    snprintf(log, sizeof log, "%s/logs/%s.log", w->dir, id);
    last_line(log, line, sizeof line);
    st = env_failure(status, line) ? RUN_RETRY : RUN_FAILED;
    char how[128];
    if (WIFEXITED(status) && !WEXITSTATUS(status))
        snprintf(how, sizeof how, "its directory is missing");
    else if (WIFEXITED(status))
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "ended abnormally");
    if (!strncmp(line, "dlsim: ", 7))
        memmove(line, line + 7, strlen(line + 7) + 1);
    if (line[0])
        snprintf(msg, msgn, "%s (%s)", line, how);
    else
        snprintf(msg, msgn, "%s", how);
    for (char *p = msg; *p; p++)
        if (*p == '\r' || *p == '\n')
            *p = ' ';
    /* the record through a temporary directory, like a run's outputs; if
     * even that cannot be written (a full disk), the run stays missing,
     * which --resume also runs again */
    snprintf(tmp, sizeof tmp, "%s/runs/.tmp-%s.%ld", w->dir, id, (long)getpid());
    run_path(fin, sizeof fin, w, id, NULL);
    rm_tree(tmp);
    if (mkdir(tmp, 0777) == 0) {
        char *e = path2(tmp, run_file[st]);
        struct dl_error err = { 0 };
        char *text = xmalloc(strlen(msg) + 2);
        sprintf(text, "%s\n", msg);
        if (write_atomic(e, text, strlen(text), &err) || rename(tmp, fin)) {
            if (run_state(w->dir, id) == RUN_MISSING)
                fprintf(stderr, "dlsim sweep: cannot record the failure of "
                        "%s in %s (it stays to do)\n", id, fin);
            rm_tree(tmp);
        }
        free(text);
        free(e);
    } else {
        fprintf(stderr, "dlsim sweep: cannot record the failure of %s: %s: %s "
                "(it stays to do)\n", id, tmp, strerror(errno));
    }
    return st;
}

/* A run ended (on MPI rank, or -1 without MPI): its row to the journal,
 * the progress line. */
static void finished(struct sweep *w, uint32_t i, int st, const char *msg,
                     int rank)
{
    if (st != RUN_OK)
        w->nfailed++;
    if (w->journal) {
        char why[4400];
        write_row(w->journal, w->dir, w->co[i], &w->jkeys, why, sizeof why);
        fflush(w->journal);
    }
    prog_run(&w->prog, w->s->runs[i].id, st, msg, now_s() - w->started[i], rank);
}

/* The local pool: up to jobs children at once, todo in grid order. */
static void run_local(struct sweep *w, int jobs)
{
    pid_t *pid = xcalloc((size_t)jobs, sizeof *pid);
    uint32_t *who = xcalloc((size_t)jobs, sizeof *who);
    uint32_t next = 0;
    int running = 0;
    for (;;) {
        while (running < jobs && next < w->ntodo) {
            int slot = 0;
            while (pid[slot])
                slot++;
            pid_t p = spawn(w, w->todo[next]);
            if (p < 0)
                break;
            pid[slot] = p;
            who[slot] = w->todo[next++];
            running++;
        }
        if (!running)
            break;
        int status;
        pid_t p = waitpid(-1, &status, 0);
        if (p < 0) {
            if (errno == EINTR)
                continue;
            perror("dlsim sweep: waitpid");
            break;
        }
        for (int slot = 0; slot < jobs; slot++)
            if (pid[slot] == p) {
                char msg[1200];
                int st = record(w, who[slot], status, p, msg, sizeof msg);
                finished(w, who[slot], st, msg, -1);
                pid[slot] = 0;
                running--;
            }
    }
    free(pid);
    free(who);
}

/* ------------------------------------------------------------ MPI */

#ifdef DLSIM_MPI
static bool mpi_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE");
}

#ifndef DLSIM_REL_LIBDIR
#define DLSIM_REL_LIBDIR "lib"
#endif

/* The MPI module (sim/sweep/mpi.h), or NULL with the reason on stderr. */
static const struct swp_mpi *mpi_load(void)
{
    char dir[4096], path[8200];
    const char *env = getenv("DLSIM_MPI_MODULE");
    void *h = NULL;
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
        h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    } else if (dl_exe_dir(dir, sizeof dir) == 0) {
        snprintf(path, sizeof path, "%s/" SWP_MPI_MODULE, dir);   /* build tree */
        if (access(path, F_OK)) {                   /* PREFIX/BINDIR/dlsim */
            dl_dir_to_prefix(dir);
            snprintf(path, sizeof path, "%s/%s/dlsim/" SWP_MPI_MODULE, dir,
                     DLSIM_REL_LIBDIR);
        }
        h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    } else {
        snprintf(path, sizeof path, "%s", SWP_MPI_MODULE);
    }
    const char *why = h ? NULL : dlerror();
    const struct swp_mpi *m = h ? dlsym(h, SWP_MPI_SYMBOL) : NULL;
    if (m && m->abi == SWP_MPI_ABI)
        return m;
    fprintf(stderr, "dlsim sweep: started by mpirun, but the MPI module %s "
            "cannot be used: %s (set DLSIM_MPI_MODULE, or run without "
            "mpirun)\n", path, !h ? (why ? why : "cannot find this executable")
                                  : !m ? "no " SWP_MPI_SYMBOL : "another version");
    return NULL;
}

/* Rank 0: hands out w->todo one index at a time to whichever rank asks,
 * and runs one of them at a time itself. */
static void mpi_master(const struct swp_mpi *M, struct sweep *w, int size)
{
    uint32_t next = 0;
    int active = size - 1;
    pid_t mine = 0;
    uint32_t mine_i = 0;
    while (active > 0 || mine || next < w->ntodo) {
        bool busy = false;
        if (!mine && next < w->ntodo) {
            mine_i = w->todo[next];
            mine = spawn(w, w->todo[next++]);
            if (mine < 0)
                mine = 0;
            busy = true;
        }
        int msg[2], src;
        if (M->poll_request(msg, &src)) {
            if (msg[0] >= 0) {
                char err[1200] = "";
                int st = run_state(w->dir, w->s->runs[msg[0]].id);
                if (st == RUN_FAILED || st == RUN_RETRY)
                    run_error(w->dir, w->s->runs[msg[0]].id, st, err, sizeof err);
                w->started[msg[0]] = now_s() - (double)msg[1] / 1000;
                finished(w, (uint32_t)msg[0], st == RUN_MISSING ? RUN_RETRY : st,
                         err, src);
            }
            int give = next < w->ntodo ? (int)w->todo[next++] : -1;
            M->answer(src, give);
            if (give < 0)
                active--;
            busy = true;
        }
        int status;
        if (mine && waitpid(mine, &status, WNOHANG) == mine) {
            char msg[1200];
            int st = record(w, mine_i, status, mine, msg, sizeof msg);
            finished(w, mine_i, st, msg, 0);
            mine = 0;
            busy = true;
        }
        if (!busy) {
            struct timespec ts = { 0, 1000000 };    /* 1 ms */
            nanosleep(&ts, NULL);
        }
    }
}

/* Other ranks: ask for a run, run it, report it, until told to stop. */
static void mpi_worker(const struct swp_mpi *M, struct sweep *w)
{
    int msg[2] = { -1, 0 };
    for (;;) {
        int i = M->request(msg);
        if (i < 0)
            break;
        double t0 = now_s();
        pid_t p = spawn(w, (uint32_t)i);
        int status = 0;
        if (p > 0)
            while (waitpid(p, &status, 0) < 0 && errno == EINTR)
                ;
        else
            status = 1 << 8;
        char err[1200];
        record(w, (uint32_t)i, status, p, err, sizeof err);
        msg[0] = i;
        msg[1] = (int)((now_s() - t0) * 1000);
    }
}
#endif

/* ------------------------------------------------------------ the DIR */

/* The grid as CSV text (grid.csv). */
static char *grid_text(const struct sweep *w, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    for (int i = 0; i < SWP_NCOORD; i++)
        fprintf(f, "%s%s", swp_coord_name[i], i + 1 < SWP_NCOORD ? "," : "\n");
    for (uint32_t r = 0; r < w->s->nruns; r++)
        for (int i = 0; i < SWP_NCOORD; i++) {
            dl_csv_put_field(f, w->co[r][i]);
            fputc(i + 1 < SWP_NCOORD ? ',' : '\n', f);
        }
    fclose(f);
    return buf;
}

/* ------------------------------------------------------------ the lock
 *
 * One lock per sweep directory, so that two live sweeps never write into
 * it at once (a --resume used to delete the temporary run directories of
 * a sweep still running there).  DIR/sweep.lock is an flock(2) lock:
 * exclusive for a sweep, a --resume and a --merge; shared by the shards
 * of one --shard I/N sweep, which run side by side on purpose, each also
 * holding DIR/shard-I-of-N.lock exclusively (the same shard twice is
 * refused, and so is a shard of another N while one of N runs: their runs
 * would overlap).  Under MPI only rank 0 locks: the ranks are one sweep.
 *
 * The kernel releases an flock when the last descriptor of it closes, so
 * a sweep that dies leaves no lock behind (a "stale lock" cannot exist,
 * and a reused pid cannot make a dead sweep look alive); the forked run
 * processes inherit the descriptor, so the lock lasts until every process
 * of the sweep is gone.  The lock files hold "pid P on host H" of their
 * holder for the refusal message only, and are never removed (removing a
 * lock file races with the next locker).  Where the filesystem has no
 * flock (ENOLCK, EOPNOTSUPP), the sweep warns and goes on unlocked. */

static bool is_lock_name(const char *n)
{
    size_t l = strlen(n);
    return !strcmp(n, "sweep.lock") ||
           (!strncmp(n, "shard-", 6) && l > 5 && !strcmp(n + l - 5, ".lock"));
}

/* Opens (creating) DIR/name for locking: the descriptor or -1. */
static int lock_open(const char *dir, const char *name)
{
    char *p = path2(dir, name);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    free(p);
    return fd;
}

/* flock without waiting: 0 held, 1 held by another process, -1 this
 * filesystem has no flock (or another error, errno set). */
static int lock_try(int fd, int how)
{
    if (!flock(fd, how | LOCK_NB))
        return 0;
    return errno == EWOULDBLOCK ? 1 : -1;
}

/* lock_try for up to 0.3 s: the processes of a sweep just killed (kill -9
 * of its process group) take a moment to be gone, and so to release the
 * lock they share. */
static int lock_wait(int fd, int how)
{
    int r = lock_try(fd, how);
    for (int k = 0; r == 1 && k < 6; k++) {
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
        r = lock_try(fd, how);
    }
    return r;
}

/* Records this process as the lock's holder ("pid P on host H"). */
static void lock_note(int fd, const char *extra)
{
    char host[256] = "?", buf[400];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    int n = snprintf(buf, sizeof buf, "pid %ld on host %s%s\n", (long)getpid(),
                     host, extra);
    if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n)
        return;                 /* only a message depends on it */
}

/* The holder's note of lock file DIR/name into buf ("pid ? (unknown)" when
 * it has none yet). */
static void lock_holder(const char *dir, const char *name, char *buf, size_t n)
{
    char *p = path2(dir, name);
    char *t = slurp(p, NULL);
    free(p);
    snprintf(buf, n, "%s", t && *t ? t : "pid unknown, starting");
    buf[strcspn(buf, "\n")] = 0;
    free(t);
}

/* The live shards of DIR other than of n shards when n > 0 (or every live
 * shard, n == 0), listed into buf: their count. */
static int live_shards(const char *dir, uint32_t n, char *buf, size_t bn)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int live = 0;
    size_t k = 0;
    buf[0] = 0;
    while (d && (e = readdir(d))) {
        unsigned a, b;
        char tail[8];
        if (sscanf(e->d_name, "shard-%u-of-%u.lo%7s", &a, &b, tail) != 3 ||
            strcmp(tail, "ck") || (n && b == n))
            continue;
        int fd = lock_open(dir, e->d_name);
        if (fd < 0)
            continue;
        if (lock_try(fd, LOCK_SH) == 1) {
            char who[300];
            lock_holder(dir, e->d_name, who, sizeof who);
            if (k < bn)
                k += (size_t)snprintf(buf + k, bn - k, "%sshard %u/%u (%s)",
                                      live ? ", " : "", a, b, who);
            live++;
        }
        close(fd);              /* (releases the probe's shared lock) */
    }
    if (d)
        closedir(d);
    return live;
}

static void lock_unsupported(const char *dir)
{
    fprintf(stderr, "dlsim sweep: warning: %s: cannot lock (%s): this "
            "filesystem has no flock; make sure no other sweep uses this "
            "directory\n", dir, strerror(errno));
}

/* Takes DIR's lock for this sweep (exclusive, or as shard I/N), or for
 * --merge (shard false).  0, or 2 after a message naming the holder. */
static int lock_dir(const char *dir, bool shard, uint32_t si, uint32_t sn,
                    int *lock_fd, int *shard_fd)
{
    *lock_fd = *shard_fd = -1;
    int fd = lock_open(dir, "sweep.lock");
    if (fd < 0) {
        fprintf(stderr, "dlsim sweep: %s/sweep.lock: cannot open: %s\n", dir,
                strerror(errno));
        return 1;
    }
    char who[400], list[1200];
    int r = lock_wait(fd, shard ? LOCK_SH : LOCK_EX);
    if (r < 0) {
        lock_unsupported(dir);
        close(fd);
        return 0;
    }
    if (r == 1) {
        /* held: exclusively by a sweep, or shared by shards */
        if (!shard && lock_try(fd, LOCK_SH) == 0) {
            flock(fd, LOCK_UN);
            live_shards(dir, 0, list, sizeof list);
            fprintf(stderr, "dlsim sweep: %s is in use by running shards of a "
                    "sweep: %s; wait for them to end (or stop them)\n", dir,
                    *list ? list : "(starting)");
        } else {
            lock_holder(dir, "sweep.lock", who, sizeof who);
            fprintf(stderr, "dlsim sweep: %s is in use by another dlsim sweep "
                    "(%s); wait for it to end, or stop it (a sweep that died "
                    "holds no lock)\n", dir, who);
        }
        close(fd);
        return 2;
    }
    if (!shard) {
        lock_note(fd, "");
        *lock_fd = fd;
        return 0;
    }
    char name[64];
    snprintf(name, sizeof name, "shard-%u-of-%u.lock", si, sn);
    int sfd = lock_open(dir, name);
    r = sfd < 0 ? -1 : lock_wait(sfd, LOCK_EX);
    if (r == 1) {
        lock_holder(dir, name, who, sizeof who);
        fprintf(stderr, "dlsim sweep: shard %u/%u of %s is already running "
                "(%s)\n", si, sn, dir, who);
    } else if (r == 0 && live_shards(dir, sn, list, sizeof list)) {
        fprintf(stderr, "dlsim sweep: %s is being swept in another number of "
                "shards: %s is running; use the same N in --shard I/N\n", dir,
                list);
        r = 1;
    }
    if (r == 1) {
        close(sfd);
        close(fd);
        return 2;
    }
    if (r < 0) {
        lock_unsupported(dir);
        if (sfd >= 0)
            close(sfd);
    } else {
        char extra[64];
        snprintf(extra, sizeof extra, " (shard %u/%u)", si, sn);
        lock_note(sfd, extra);
        *shard_fd = sfd;
    }
    *lock_fd = fd;
    return 0;
}

/* Only what a sweep killed before writing grid.csv can leave. */
static bool only_sweep_debris(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool ok = true;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "runs") ||
            !strcmp(n, "logs") || !strcmp(n, "sweep.yaml") || is_lock_name(n) ||
            !strncmp(n, "sweep.yaml.tmp.", 15) || !strncmp(n, "grid.csv.tmp.", 13))
            continue;
        ok = false;
    }
    closedir(d);
    return ok;
}

static bool dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return true;
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            !is_lock_name(e->d_name))
            empty = false;
    closedir(d);
    return empty;
}

/* Creates or checks DIR.  0, or the exit status with a message. */
static int setup_dir(struct sweep *w, bool resume, bool shard)
{
    const char *dir = w->dir;
    size_t glen;
    char *grid = grid_text(w, &glen);
    char *gpath = path2(dir, "grid.csv");
    int rc = 0;
    struct stat st;
    if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "dlsim sweep: %s: exists and is not a directory\n", dir);
        rc = 2;
    } else if (out_mkdirs(dir)) {
        fprintf(stderr, "dlsim sweep: %s: cannot create: %s\n", dir,
                strerror(errno));
        rc = 1;
    } else if ((rc = lock_dir(dir, shard, w->shard_i, w->shard_n, &w->lock_fd,
                              &w->shard_fd))) {
        ;                       /* another live sweep: message printed */
    } else if (!dir_empty(dir)) {
        size_t ol;
        char *old = slurp(gpath, &ol);
        if (old && (ol != glen || memcmp(old, grid, glen))) {
            fprintf(stderr, "dlsim sweep: %s holds another sweep: its grid.csv "
                    "differs from the grid of %s (the spec changed since that "
                    "sweep started?); choose another --out\n", dir, w->s->file);
            rc = 2;
        } else if (!resume && !shard) {
            fprintf(stderr, "dlsim sweep: %s is not empty: --resume continues "
                    "the sweep there; or choose another --out\n", dir);
            rc = 2;
        } else if (!old && !only_sweep_debris(dir)) {
            fprintf(stderr, "dlsim sweep: %s is not empty and holds no sweep "
                    "(no grid.csv); choose another --out\n", dir);
            rc = 2;
        }
        free(old);
    }
    struct dl_error err = { 0 };
    char *runs = path2(dir, "runs"), *logs = path2(dir, "logs");
    if (!rc && (out_mkdirs(dir) || out_mkdirs(runs) || out_mkdirs(logs))) {
        fprintf(stderr, "dlsim sweep: %s: cannot create: %s\n", dir, strerror(errno));
        rc = 1;
    }
    if (!rc) {
        size_t sl;
        char *spec = slurp(w->s->file, &sl);
        char *copy = path2(dir, "sweep.yaml");
        if (!spec || write_atomic(copy, spec, sl, &err) ||
            write_atomic(gpath, grid, glen, &err)) {
            if (!spec)
                fprintf(stderr, "dlsim sweep: %s: cannot read again\n", w->s->file);
            else
                dl_error_print(&err, stderr);
            rc = 1;
        }
        free(spec);
        free(copy);
    }
    free(runs);
    free(logs);
    free(grid);
    free(gpath);
    return rc;
}

/* The runs of sel not done yet (missing, or to retry), into todo;
 * removes the record of a run to retry and the stale temporary
 * directories of those runs.  Only under the directory's lock (no other
 * live sweep can be writing them). */
static void plan(struct sweep *w)
{
    uint32_t n = w->s->nruns;
    bool *want = xcalloc(n ? n : 1, sizeof *want);
    w->todo = xcalloc(w->nsel ? w->nsel : 1, sizeof *w->todo);
    w->ntodo = 0;
    for (uint32_t k = 0; k < w->nsel; k++) {
        uint32_t i = w->sel[k];
        int st = run_state(w->dir, w->s->runs[i].id);
        if (st == RUN_OK || st == RUN_FAILED)
            continue;
        char p[4096];
        run_path(p, sizeof p, w, w->s->runs[i].id, NULL);
        struct stat sb;
        if (!stat(p, &sb))
            rm_tree(p);         /* retry.txt, or neither: not a result */
        want[i] = true;
        w->todo[w->ntodo++] = i;
    }
    char *runs = path2(w->dir, "runs");
    DIR *d = opendir(runs);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, ".tmp-", 5))
            continue;
        char *dot = strrchr(e->d_name, '.');
        unsigned long idx = strtoul(e->d_name + 5, NULL, 10);
        const char *id = e->d_name + 5;
        if (idx < n && want[idx] && dot &&
            (size_t)(dot - id) == strlen(w->s->runs[idx].id) &&
            !strncmp(id, w->s->runs[idx].id, (size_t)(dot - id))) {
            char *p = path2(runs, e->d_name);
            rm_tree(p);
            free(p);
        }
    }
    if (d)
        closedir(d);
    free(runs);
    free(want);
}

/* ------------------------------------------------------------ merge */

/* grid.csv, as grid_text writes it: RFC 4180, a coordinate (a scenario
 * name) may hold line breaks. */
static const struct dl_csv_opts grid_rules = {
    .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_MULTILINE,
};

static int cmd_merge(const char *dir, bool quiet)
{
    char *gpath = path2(dir, "grid.csv");
    struct dl_error err = { 0 };
    struct dl_csv c;
    if (dl_csv_open(&c, gpath, &grid_rules, &err)) {
        fprintf(stderr, "dlsim sweep: %s: cannot read (not a sweep directory?)\n",
                gpath);
        free(gpath);
        return 2;
    }
    int lock_fd, shard_fd, lrc = lock_dir(dir, false, 0, 0, &lock_fd, &shard_fd);
    if (lrc) {                  /* the shards are not done */
        dl_csv_close(&c);
        free(gpath);
        return lrc;
    }
    /* the runs' coordinates, by name, copied (the reader's fields live
     * for one row) */
    struct arena *a = arena_new();
    uint32_t n = 0, cap = 0;
    const char *(*co)[SWP_NCOORD] = NULL;
    int idx[SWP_NCOORD];
    int rc = dl_csv_header(&c, swp_coord_name, NULL, SWP_NCOORD, idx, &err);
    if (!rc && c.ncols != SWP_NCOORD)
        rc = dl_fail(&err, gpath, c.line, 0, "not a dlsim grid.csv header: "
                     "%d columns, expected %d", c.ncols, SWP_NCOORD);
    while (!rc && (rc = dl_csv_row(&c, &err)) == 1) {
        if (n == cap)
            co = xrealloc(co, (cap = cap ? 2 * cap : 256) * sizeof *co);
        for (int i = 0; i < SWP_NCOORD; i++) {
            const char *f = dl_csv_fld(&c, idx[i]);
            co[n][i] = arena_strndup(a, f, strlen(f));
        }
        n++;
        rc = 0;
    }
    dl_csv_close(&c);
    if (rc) {
        dl_error_print(&err, stderr);
        rc = 2;
    }
    uint32_t *sel = xcalloc(n ? n : 1, sizeof *sel);
    for (uint32_t i = 0; i < n; i++)
        sel[i] = i;
    uint32_t nfailed = 0, nretry = 0, nmissing = 0;
    char *out = path2(dir, "summary.csv");
    if (!rc) {
        rc = write_summary(dir, co, sel, n, out, &nfailed, &nretry, &nmissing);
        char counts[200];
        end_counts(counts, sizeof counts, nfailed, nretry);
        if (!rc && !quiet)
            fprintf(stderr, "dlsim sweep: merged %u run%s (%s) into %s\n", n,
                    DL_PLURAL(n), counts,
                    out);
        if (!rc && (nfailed || nretry))
            rc = 1;
    }
    free(out);
    free(sel);
    free(co);
    arena_free(a);
    free(gpath);
    if (lock_fd >= 0)
        close(lock_fd);
    return rc;
}

/* ------------------------------------------------------------ command */


int swp_parse_shard(const char *s, uint32_t *i, uint32_t *n)
{
    char *e;
    unsigned long a = strtoul(s, &e, 10);
    if (e == s || *e != '/')
        return -1;
    const char *t = e + 1;
    unsigned long b = strtoul(t, &e, 10);
    if (e == t || *e || b < 1 || b > 1000000 || a >= b || s[0] == '-' || t[0] == '-')
        return -1;
    *i = (uint32_t)a;
    *n = (uint32_t)b;
    return 0;
}

static char *default_out(const char *spec)
{
    const char *b = strrchr(spec, '/');
    b = b ? b + 1 : spec;
    size_t l = strlen(b);
    if (l > 5 && !strcmp(b + l - 5, ".yaml"))
        l -= 5;
    else if (l > 4 && !strcmp(b + l - 4, ".yml"))
        l -= 4;
    char *o = xmalloc(l + 5);
    memcpy(o, b, l);
    strcpy(o + l, ".out");
    return o;
}

/* The sweep's own statuses (0, 2 bad input, 1 a failure) as DL_ codes:
 * the command line turns them back into exit statuses. */
static int status_code(int st)
{
    return st == 0 ? DL_OK : st == 2 ? DL_EINPUT : DL_ECHECK;
}

int swp_run(const struct swp_opts *o)
{
    if (o->merge)
        return status_code(cmd_merge(o->merge, o->quiet));
    const char *specfile = o->spec, *out = o->out;
    bool resume = o->resume, quiet = o->quiet, shard = o->shard;
    bool strict = o->strict;
    uint32_t shard_i = o->shard_i, shard_n = o->shard_n;
    long jobs = o->jobs;

    int rank = 0, size = 1;
#ifndef DLSIM_MPI
    {   /* several ranks without MPI would each run the whole sweep */
        const char *n = getenv("OMPI_COMM_WORLD_SIZE");
        if (!n)
            n = getenv("PMI_SIZE");
        if (n && atoi(n) > 1)
            return status_code(usage_error("this dlsim was built without "
                                           "MPI (meson -Dmpi=enabled, "
                                           "libopenmpi-dev); under mpirun "
                                           "use one rank, or --shard"));
    }
#endif
#ifdef DLSIM_MPI
    const struct swp_mpi *M = NULL;
    if (mpi_launched()) {
        if (!(M = mpi_load()))
            return 1;
        M->init(&rank, &size);
    }
#endif
    struct swp_spec s;
    struct dl_error err = { 0 };
    int rc = swp_spec_load(specfile, &s, &err);
    for (uint32_t c = 0; c < s.nsc && !rc && strict; c++)
        s.sc[c].strict = true;
    if (!rc)
        rc = swp_validate(&s, rank == 0 ? stderr : NULL, &err);
    if (rc) {
        if (rank == 0)
            dl_error_print(&err, stderr);
        rc = 2;                 /* a bad spec is bad input, whatever failed */
    }
    char *defout = out ? NULL : default_out(specfile);
    struct sweep w;
    memset(&w, 0, sizeof w);
    w.s = &s;
    w.dir = out ? out : defout;
    w.shard = shard;
    w.shard_i = shard_i;
    w.shard_n = shard_n;
    w.lock_fd = w.shard_fd = -1;
    const char *(*co)[SWP_NCOORD] = xcalloc(s.nruns ? s.nruns : 1, sizeof *co);
    for (uint32_t i = 0; i < s.nruns && !rc; i++)
        swp_coords(&s, i, co[i]);
    w.co = co;
    w.started = xcalloc(s.nruns ? s.nruns : 1, sizeof *w.started);
    w.sel = xcalloc(s.nruns ? s.nruns : 1, sizeof *w.sel);
    for (uint32_t i = 0; i < s.nruns && !rc; i++)
        if (i % shard_n == shard_i)
            w.sel[w.nsel++] = i;
    s.outdir = w.dir;
    if (!rc && rank == 0) {
        rc = setup_dir(&w, resume, shard);
        if (!rc)
            plan(&w);
        /* the generated workloads the runs to do read, once, before any */
        if (!rc && (rc = swp_gen_write(&s, w.todo, w.ntodo, stderr, quiet)))
            rc = dl_exit_status(rc);
    }
#ifdef DLSIM_MPI
    if (M)                  /* every rank learns whether rank 0 goes on */
        M->allreduce_max(&rc);
#endif
    if (!rc && rank == 0) {
        char jname[64];
        if (shard)
            snprintf(jname, sizeof jname, "summary.shard-%u-of-%u.csv.partial",
                     shard_i, shard_n);
        char *jp = path2(w.dir, shard ? jname : "summary.csv.partial");
        w.journal = fopen(jp, "w");
        free(jp);
        keys_find(&w.jkeys, w.dir, w.co, w.sel, w.nsel);
        if (w.journal) {
            write_header(w.journal, &w.jkeys);
            char why[4400];
            for (uint32_t k = 0; k < w.nsel; k++)     /* already done */
                write_row(w.journal, w.dir, w.co[w.sel[k]], &w.jkeys, why,
                          sizeof why);
            fflush(w.journal);
        }
        w.prog.tty = isatty(2);
        w.prog.quiet = quiet;
        w.prog.total = w.ntodo;
        w.prog.t0 = now_s();
        if (!quiet && w.nsel > w.ntodo)
            fprintf(stderr, "dlsim sweep: %u of %u runs already done in %s\n",
                    w.nsel - w.ntodo, w.nsel, w.dir);
        prog_draw(&w.prog);
    }
    if (!rc) {
#ifdef DLSIM_MPI
        if (M && size > 1) {
            if (rank == 0)
                mpi_master(M, &w, size);
            else
                mpi_worker(M, &w);
        } else
#endif
            run_local(&w, jobs ? (int)jobs
                               : (int)(sysconf(_SC_NPROCESSORS_ONLN) > 0
                                           ? sysconf(_SC_NPROCESSORS_ONLN) : 1));
    }
    if (!rc && rank == 0) {
        prog_end(&w.prog);
        char name[64];
        if (shard)
            snprintf(name, sizeof name, "summary.shard-%u-of-%u.csv", shard_i,
                     shard_n);
        char *sp = path2(w.dir, shard ? name : "summary.csv");
        uint32_t nfailed, nretry, nmissing;
        rc = write_summary(w.dir, w.co, w.sel, w.nsel, sp, &nfailed, &nretry,
                           &nmissing);
        if (w.journal) {
            fclose(w.journal);
            w.journal = NULL;
            if (!rc) {
                char jname[80];
                snprintf(jname, sizeof jname, "%s.partial", shard ? name
                                                                  : "summary.csv");
                char *jp = path2(w.dir, jname);
                unlink(jp);
                free(jp);
            }
        }
        char counts[200];
        end_counts(counts, sizeof counts, nfailed, nretry);
        if (!rc && !quiet)
            fprintf(stderr, "dlsim sweep: %u run%s, %s; %s\n", w.nsel,
                    DL_PLURAL(w.nsel), counts, sp);
        if (!rc && (nfailed || nretry))
            rc = 1;
        free(sp);
    }
    if (w.journal)
        fclose(w.journal);
    if (w.shard_fd >= 0)
        close(w.shard_fd);
    if (w.lock_fd >= 0)
        close(w.lock_fd);
    keys_free(&w.jkeys);
#ifdef DLSIM_MPI
    if (M) {
        /* rank 0's status for every rank, so mpirun's exit status is its */
        M->bcast(&rc);
        M->finalize();
    }
#endif
    (void)size;
    free(w.todo);
    free(w.sel);
    free(w.started);
    free(co);
    free(defout);
    swp_spec_free(&s);
    return status_code(rc);
}
