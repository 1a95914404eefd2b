/*
 * tests/testutil.h - helpers shared by the tests: traces and clusters from
 * inline text, one-call simulation runs, a temporary directory per test
 * with files written and read back there, and the built tools run through
 * the shell with their output captured.  Header-only (static) so each test
 * binary stays a single file.
 */
#ifndef DLSIM_TESTUTIL_H
#define DLSIM_TESTUTIL_H

#include "sim/simint.h"
#include "policies/policy.h"
#include "models/perf.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define US(s) ((simtime_t)((s) * (double)SIM_US_PER_S + 0.5))

static inline int tu_fd_with(const char *data, size_t len)
{
    int fd = memfd_create("dlsim-test", 0);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, data, len), (ssize_t)len);
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* ---- a temporary directory per test process (criterion forks one per
 * test), made on first use; suites remove it with .fini = tu_tmp_cleanup.
 * A test process that ends by exit() instead (cr_skip_test, a test with
 * .exit_code, a command run in-process that exits) never reaches its
 * .fini: an atexit hook removes the directory then, in the process that
 * made it only (not in a child forked from it that calls exit).  A test
 * that ends by a signal (.signal) must remove its files itself first. */
static char tu_tmpdir[256];
static pid_t tu_tmp_owner;

static inline int tu_rm_one(const char *p, const struct stat *sb, int flag,
                            struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

static inline void tu_tmp_atexit(void)
{
    if (tu_tmpdir[0] && getpid() == tu_tmp_owner) {
        nftw(tu_tmpdir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
        tu_tmpdir[0] = '\0';
    }
}

static inline const char *tu_tmp_path(const char *name)
{
    static char buf[8][1024];
    static int k;
    static bool hooked;
    if (!tu_tmpdir[0]) {
        snprintf(tu_tmpdir, sizeof tu_tmpdir, "/tmp/dlsim-test-XXXXXX");
        cr_assert_not_null(mkdtemp(tu_tmpdir));
        tu_tmp_owner = getpid();
        if (!hooked)
            hooked = atexit(tu_tmp_atexit) == 0;
    }
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tu_tmpdir, name);
    return buf[k];
}

/* tu_tmp_path of a printf-formatted name. */
__attribute__((format(printf, 1, 2)))
static inline const char *tu_tmp_pathf(const char *fmt, ...)
{
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return tu_tmp_path(name);
}

/* The directory itself, made now (commands run inside it). */
static inline const char *tu_tmp_dir(void)
{
    tu_tmp_path("");
    return tu_tmpdir;
}

/* Writes text to the file name there, making its parent directories;
 * returns its path. */
static inline const char *tu_tmp_file(const char *name, const char *text)
{
    for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
        char dir[512];
        snprintf(dir, sizeof dir, "%.*s", (int)(s - name), name);
        cr_assert(mkdir(tu_tmp_path(dir), 0777) == 0 || errno == EEXIST,
                  "cannot make %s", dir);
    }
    const char *path = tu_tmp_path(name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", name);
    fputs(text, f);
    fclose(f);
    return path;
}

/* How many files the directory holds; with remove, deletes them and it. */
static inline int tu_tmp_files(bool remove)
{
    if (!tu_tmpdir[0])
        return 0;
    DIR *d = opendir(tu_tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        if (remove)
            unlink(tu_tmp_path(e->d_name));
    }
    if (d)
        closedir(d);
    if (remove) {
        rmdir(tu_tmpdir);
        tu_tmpdir[0] = '\0';
    }
    return n;
}

/* Removes the directory and everything below it (the next use makes a
 * new one). */
static inline void tu_tmp_cleanup(void)
{
    if (!tu_tmpdir[0])
        return;
    cr_assert_eq(nftw(tu_tmpdir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    tu_tmpdir[0] = '\0';
}

static inline bool tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline bool tu_tmp_exists(const char *name)
{
    return tu_exists(tu_tmp_path(name));
}

/* The whole file at path, malloc'd and NUL-terminated (the caller frees
 * it); its length in *len unless len is NULL. */
static inline char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0, got;
    char *b = malloc(cap + 1);
    cr_assert(b);
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            b = realloc(b, (cap *= 2) + 1);
            cr_assert(b);
        }
    }
    fclose(f);
    b[n] = 0;
    if (len)
        *len = n;
    return b;
}

/* The whole file name in the temporary directory, NUL-terminated, in one
 * of four buffers used in turn (not to be freed). */
static inline char *tu_tmp_text(const char *name)
{
    static char *bufs[4];
    static int k;
    k = (k + 1) % 4;
    free(bufs[k]);
    bufs[k] = tu_slurp(tu_tmp_path(name), NULL);
    return bufs[k];
}

/* Whether the files at a and b hold the same bytes. */
static inline bool tu_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = tu_slurp(a, &na), *y = tu_slurp(b, &nb);
    bool same = na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

/* ---- commands through the shell: stdout and stderr into tu_out, the
 * exit status returned (128 when the command did not exit) */
static char tu_out[1 << 16];

/* Runs "cd DIR && PRE<fmt, ap> 2>&1" (no cd when dir is NULL). */
static inline int tu_vrun(const char *dir, const char *pre, const char *fmt,
                          va_list ap)
{
    char cmd[16384];
    int n = 0;
    if (dir)
        n = snprintf(cmd, sizeof cmd, "cd '%s' && ", dir);
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, "%s", pre);
    n += vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    cr_assert((size_t)n + 8 < sizeof cmd, "command line too long");
    strcat(cmd, " 2>&1");
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    size_t got = fread(tu_out, 1, sizeof tu_out - 1, p);
    tu_out[got] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The built dlsim ($DLSIM, set by meson test). */
static inline const char *tu_bin(void)
{
    const char *bin = getenv("DLSIM");
    cr_assert(bin, "DLSIM is not set (run through meson test)");
    return bin;
}

/* Runs a shell command line in the current directory (tests/). */
__attribute__((format(printf, 1, 2)))
static inline int tu_sh_here(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tu_vrun(NULL, "", fmt, ap);
    va_end(ap);
    return rc;
}

/* Runs a shell command line in the temporary directory, "$DLSIM" being
 * the built tool. */
__attribute__((format(printf, 1, 2)))
static inline int tu_sh(const char *fmt, ...)
{
    tu_bin();
    va_list ap;
    va_start(ap, fmt);
    int rc = tu_vrun(tu_tmp_dir(), "", fmt, ap);
    va_end(ap);
    return rc;
}

/* Runs "$DLSIM args" (shell syntax) in the temporary directory. */
__attribute__((format(printf, 1, 2)))
static inline int tu_dlsim(const char *fmt, ...)
{
    tu_bin();
    va_list ap;
    va_start(ap, fmt);
    int rc = tu_vrun(tu_tmp_dir(), "\"$DLSIM\" ", fmt, ap);
    va_end(ap);
    return rc;
}

/* Loads a native trace from text; asserts it parses. */
static inline void tu_trace(struct trace *t, const char *csv)
{
    struct dl_error err = { 0 };
    int rc = trc_load_fd(tu_fd_with(csv, strlen(csv)), "inline.csv", t, &err, NULL);
    if (rc)
        dl_error_print(&err, stderr);
    cr_assert_eq(rc, 0, "trace did not parse: %s", err.msg);
}

static inline void tu_cluster(struct cluster *c, const char *yaml)
{
    struct dl_error err = { 0 };
    int rc = cfg_load_cluster_mem("inline.yaml", yaml, strlen(yaml), c, &err);
    if (rc)
        dl_error_print(&err, stderr);
    cr_assert_eq(rc, 0, "cluster did not parse: %s", err.msg);
}

/* n nodes of g GPUs of one type "G" (speed 1). */
static inline void tu_simple_cluster(struct cluster *c, uint32_t n, uint32_t g)
{
    clu_init(c, "test");
    uint32_t t = clu_add_type(c, "G", 16, 1.0);
    clu_add_nodes(c, n, g, t, NULL);
    clu_finish(c);
}

/* The source tree's model zoo (tests run in tests/), plus one YAML file
 * written to the temporary directory when extra_yaml is given; finished. */
static inline void tu_spec_zoo(struct mdl_spec *s, const char *extra_name,
                               const char *extra_yaml)
{
    struct dl_error err = { 0 };
    mdl_spec_init(s);
    cr_assert_eq(mdl_spec_add(s, "zoo", &err), 0);
    snprintf(s->zoo_dir, sizeof s->zoo_dir, "../models");
    if (extra_yaml)
        cr_assert_eq(mdl_spec_add(s, tu_tmp_file(extra_name, extra_yaml), &err),
                     0, "%s:%ld:%ld: %s", err.file, err.line, err.col, err.msg);
    cr_assert_eq(mdl_spec_finish(s, &err), 0, "%s", err.msg);
}

/* A model spec from one YAML file written to the temporary directory
 * (name, text), finished; the zoo is the source tree's when the file
 * names none. */
static inline void tu_spec_from(struct mdl_spec *s, const char *name,
                                const char *yaml)
{
    struct dl_error err = { 0 };
    mdl_spec_init(s);
    int rc = mdl_spec_add(s, tu_tmp_file(name, yaml), &err);
    cr_assert_eq(rc, 0, "%s:%ld:%ld: %s", err.file, err.line, err.col, err.msg);
    if (!s->zoo_dir[0])
        snprintf(s->zoo_dir, sizeof s->zoo_dir, "../models");
    rc = mdl_spec_finish(s, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
}

/* The dlsim command line on argv[0..argc) (argv[0] the command, "fit"
 * say), as if run as "dlsim argv...". */
int dl_main(int argc, char **argv);
static inline int tu_main(int argc, char **argv)
{
    char *v[64];
    cr_assert(argc < 63);
    v[0] = "dlsim";
    for (int i = 0; i <= argc; i++)
        v[i + 1] = argv[i];
    return dl_main(argc + 1, v);
}

/* eng_new, the policy parsed from o->policy when o->pol is not set (the
 * command line's job: the engine takes a parsed policy). */
static inline struct eng *tu_eng_new(const struct trace *t, struct cluster *c,
                                     const struct eng_opts *o,
                                     struct dl_error *err)
{
    struct eng_opts oo = *o;
    oo.keep_rt = true;
    struct pol_args a;
    if (!oo.pol) {
        if (pol_parse(o->policy, &oo.pol, &a, err))
            return NULL;
        oo.args = &a;
    }
    return eng_new(t, c, &oo, err);
}

/* Runs policy over t on c with --check on and the models s (NULL: none);
 * asserts success. */
static inline struct eng *tu_run_models(const struct trace *t, struct cluster *c,
                                        const char *policy,
                                        const struct mdl_spec *s)
{
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = policy, .seed = 1, .check = true,
                          .sample = 0, .diag = NULL, .models = s };
    struct eng *e = tu_eng_new(t, c, &o, &err);
    cr_assert(e, "tu_eng_new(%s): %s", policy, err.msg);
    int rc = eng_run(e);
    cr_assert_eq(rc, 0, "run of %s failed: %s", policy, e->fail_msg);
    return e;
}

static inline struct eng *tu_run(const struct trace *t, struct cluster *c,
                                 const char *policy)
{
    return tu_run_models(t, c, policy, NULL);
}

/* A random trace of njobs for co-location (seeded by srand(seed)): one to
 * three s between arrivals, GPU counts drawn from g[0..ng), durations of
 * 20 s up to 20 + dur, utilizations 0.05-0.99, memory of mem0 up to mem0 +
 * 13 GB, and with types (ntypes of them, "" for any) a required type. */
static inline void tu_random_colo_trace(struct trace *t, unsigned seed, int njobs,
                                        const int *g, int ng, int dur, int mem0,
                                        const char *const *types, int ntypes)
{
    srand(seed);
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    fprintf(f, "job_id,submit_time,num_gpus,duration,util,mem_gb%s\n",
            types ? ",gpu_type" : "");
    for (int j = 0, ts = 0; j < njobs; j++) {
        ts += rand() % 3;
        fprintf(f, "j%d,%d,%d,%d,%.2f,%d", j, ts, g[rand() % ng],
                20 + rand() % dur, 0.05 + (rand() % 95) / 100.0,
                mem0 + rand() % 14);
        if (types)
            fprintf(f, ",%s", types[rand() % ntypes]);
        fputc('\n', f);
    }
    fclose(f);
    tu_trace(t, csv);
    free(csv);
}

/* Two runs of one trace made the same schedule: every job's first start,
 * first GPUs, finish and preemptions (what: named in a failure). */
static inline void tu_same_schedule(const struct eng *a, const struct eng *b,
                                    const char *what)
{
    cr_assert_eq(a->preemptions, b->preemptions, "%s", what);
    for (uint32_t j = 0; j < a->tr->njobs; j++) {
        const struct job_end *x = &a->end[j], *y = &b->end[j];
        cr_assert_eq(x->first_start, y->first_start, "%s job %u", what, j);
        cr_assert_eq(x->finish, y->finish, "%s job %u", what, j);
        cr_assert_eq(x->preemptions, y->preemptions, "%s job %u", what, j);
        const uint32_t *ga = eng_first_gpus(a, j), *gb = eng_first_gpus(b, j);
        cr_assert((!ga && !gb) ||
                  (ga && gb && eng_first_ngpus(a, j) == eng_first_ngpus(b, j) &&
                   !memcmp(ga, gb, eng_first_ngpus(a, j) * sizeof *ga)),
                  "%s job %u: other GPUs", what, j);
    }
}

/* Policy pol with each option set opts[k] ("" for none) makes the same
 * schedule of t on c as with ref added (its reference mode, such as
 * scan=full); seed: named in a failure. */
static inline void tu_same_runs(const struct trace *t, struct cluster *c,
                                const char *pol, const char *const *opts,
                                size_t nopts, const char *ref, int seed)
{
    for (size_t k = 0; k < nopts; k++) {
        char pa[160], pb[192], what[192];
        const char *o = opts[k];
        snprintf(pa, sizeof pa, "%s%s%s", pol, *o ? ":" : "", o);
        snprintf(pb, sizeof pb, "%s:%s%s%s", pol, o, *o ? "," : "", ref);
        struct eng *a = tu_run(t, c, pa), *b = tu_run(t, c, pb);
        snprintf(what, sizeof what, "seed %d %s", seed, pa);
        tu_same_schedule(a, b, what);
        eng_free(a);
        eng_free(b);
    }
}

/* Determinism: pol over t on c again gives e's schedule (every job's first
 * start, finish and preemption count). */
static inline void tu_assert_rerun_same(const struct eng *e,
                                        const struct trace *t,
                                        struct cluster *c, const char *pol)
{
    struct eng *e2 = tu_run(t, c, pol);
    for (uint32_t j = 0; j < t->njobs; j++) {
        cr_assert_eq(e->end[j].first_start, e2->end[j].first_start, "%s", pol);
        cr_assert_eq(e->end[j].finish, e2->end[j].finish, "%s", pol);
        cr_assert_eq(e->end[j].preemptions, e2->end[j].preemptions, "%s", pol);
    }
    eng_free(e2);
}

static inline uint32_t tu_job(const struct trace *t, const char *id)
{
    for (uint32_t j = 0; j < t->njobs; j++)
        if (!strcmp(t->jobs[j].id, id))
            return j;
    cr_assert_fail("no job %s", id);
    return 0;
}

/* Asserts job id started at start_s and finished at finish_s (seconds). */
#define TU_SCHED(e, id, start_s, finish_s)                                     \
    do {                                                                       \
        uint32_t j_ = tu_job((e)->tr, id);                                     \
        cr_expect_eq((e)->end[j_].first_start, US(start_s),                    \
                     "%s: start %lld, expected %g s", id,                      \
                     (long long)(e)->end[j_].first_start, (double)(start_s));   \
        cr_expect_eq((e)->end[j_].finish, US(finish_s),                        \
                     "%s: finish %lld, expected %g s", id,                     \
                     (long long)(e)->end[j_].finish, (double)(finish_s));       \
    } while (0)

/* Runs each of pols[0..n) over t on c and checks that job ids[k] starts
 * at st[p][k] seconds and runs for run_s (three jobs). */
static inline void tu_expect_starts(const struct trace *t, struct cluster *c,
                                    const char *const *pols, int n,
                                    const char *const ids[3],
                                    const double (*st)[3], double run_s)
{
    for (int p = 0; p < n; p++) {
        struct eng *e = tu_run(t, c, pols[p]);
        for (int k = 0; k < 3; k++)
            TU_SCHED(e, ids[k], st[p][k], st[p][k] + run_s);
        eng_free(e);
    }
}

static inline void tu_placement(const struct eng *e, const char *id,
                                const char *expect)
{
    uint32_t j = tu_job(e->tr, id);
    const uint32_t *g = eng_first_gpus(e, j);
    cr_assert(g, "%s never started", id);
    char buf[256];
    clu_fmt_placement(e->clu, g, eng_first_ngpus(e, j), buf, sizeof buf);
    cr_expect_str_eq(buf, expect, "%s placed on %s, expected %s", id, buf, expect);
}

#endif
