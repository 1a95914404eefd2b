/*
 * tests/testutil.h - helpers shared by the tests: traces and clusters from
 * inline text, and one-call simulation runs.  Header-only (static) so each
 * test binary stays a single file.
 */
#ifndef DLSIM_TESTUTIL_H
#define DLSIM_TESTUTIL_H

#include "sim/simint.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
 * test), made on first use */
static char tu_tmpdir[256];

static inline const char *tu_tmp_path(const char *name)
{
    static char buf[8][512];
    static int k;
    if (!tu_tmpdir[0]) {
        snprintf(tu_tmpdir, sizeof tu_tmpdir, "/tmp/dlsim-test-XXXXXX");
        cr_assert_not_null(mkdtemp(tu_tmpdir));
    }
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tu_tmpdir, name);
    return buf[k];
}

/* Writes text to the file name there; returns its path. */
static inline const char *tu_tmp_file(const char *name, const char *text)
{
    const char *path = tu_tmp_path(name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
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

static inline void tu_tmp_cleanup(void)
{
    tu_tmp_files(true);
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

/* Runs policy over t on c with --check on; asserts success. */
static inline struct eng *tu_run(const struct trace *t, struct cluster *c,
                                 const char *policy)
{
    struct dl_error err = { 0 };
    struct eng_opts o = { .policy = policy, .seed = 1, .check = true,
                          .sample = 0, .warn = NULL };
    struct eng *e = eng_new(t, c, &o, &err);
    cr_assert(e, "eng_new(%s): %s", policy, err.msg);
    int rc = eng_run(e);
    cr_assert_eq(rc, 0, "run of %s failed: %s", policy, e->fail_msg);
    return e;
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
        cr_expect_eq((e)->rt[j_].first_start, US(start_s),                    \
                     "%s: start %lld, expected %g s", id,                      \
                     (long long)(e)->rt[j_].first_start, (double)(start_s));   \
        cr_expect_eq((e)->rt[j_].finish, US(finish_s),                        \
                     "%s: finish %lld, expected %g s", id,                     \
                     (long long)(e)->rt[j_].finish, (double)(finish_s));       \
    } while (0)

static inline void tu_placement(const struct eng *e, const char *id,
                                const char *expect)
{
    uint32_t j = tu_job(e->tr, id);
    const uint32_t *g = eng_first_gpus(e, j);
    cr_assert(g, "%s never started", id);
    char buf[256];
    clu_fmt_placement(e->clu, g, e->rt[j].first_ngpus, buf, sizeof buf);
    cr_expect_str_eq(buf, expect, "%s placed on %s, expected %s", id, buf, expect);
}

#endif
