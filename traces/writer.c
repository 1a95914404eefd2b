/*
 * traces/writer.c - writes a trace in the native format (SPEC section 2).
 *
 * Owns nothing beyond the call: a row buffer and the output stream.
 *
 * Output: a header of job_id,submit_time,num_gpus,duration followed by
 * those optional columns (in the order model,gpu_type,deadline,util,
 * mem_gb,user,priority) that at least one job uses, so a round trip
 * through trc_load gives back identical records.  Times are exact decimal
 * seconds (sim_fmt_seconds); util and mem_gb are the shortest decimals
 * that read back as the same float.  A string field is double-quoted
 * (RFC 4180, "" for a quote) when it holds a comma, quote, CR or LF,
 * starts with '#' (it would read as a comment) or has blanks at either end
 * (the reader trims them).
 *
 * Atomicity: the file is written as PATH.tmp.PID and renamed over PATH
 * only when every byte (and the gzip trailer) was written, so a reader
 * never sees half a trace; the temporary file is registered with
 * dl_tmp_register, so an interrupt (SIGINT, SIGTERM) removes it.  A path ending in ".gz" is gzip-compressed at
 * level 1 (5x faster than the default level 6 on traces, 8% larger);
 * otherwise zlib writes it through unchanged ("T" mode).
 */
#include "traces/trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct wbuf {
    char *p;
    size_t n, cap;
};

static void put(struct wbuf *b, const char *s, size_t n)
{
    xgrow(&b->p, &b->cap, b->n + n + 1, 1);
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void puts_(struct wbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void put_str(struct wbuf *b, const char *s)
{
    if (!s)
        return;
    size_t n = strlen(s);
    int quote = n && (s[0] == '#' || s[0] == ' ' || s[0] == '\t' ||
                      s[n - 1] == ' ' || s[n - 1] == '\t');
    if (!quote && strpbrk(s, ",\"\r\n"))
        quote = 1;
    if (!quote) {
        put(b, s, n);
        return;
    }
    put(b, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        put(b, s, (size_t)(q - s));
        put(b, "\"\"", 2);
    }
    puts_(b, s);
    put(b, "\"", 1);
}

static void put_time(struct wbuf *b, simtime_t t)
{
    char tmp[32];
    sim_fmt_seconds(tmp, sizeof tmp, t);
    puts_(b, tmp);
}

/* The shortest %g that reads back as the same float. */
static void put_float(struct wbuf *b, float v)
{
    char tmp[32];
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, (double)v);
        if (strtof(tmp, NULL) == v)
            break;
    }
    puts_(b, tmp);
}

enum { O_MODEL, O_GPU_TYPE, O_DEADLINE, O_UTIL, O_MEM, O_USER, O_PRIORITY,
       NOPT };

static const char *const opt_name[NOPT] = {
    "model", "gpu_type", "deadline", "util", "mem_gb", "user", "priority",
};

static int flush(gzFile gz, struct wbuf *b)
{
    if (b->n && gzwrite(gz, b->p, (unsigned)b->n) != (int)b->n)
        return -1;
    b->n = 0;
    return 0;
}

int trc_write(const struct trace *t, const char *path, struct dl_error *err)
{
    int used[NOPT] = {0};
    for (uint32_t i = 0; i < t->njobs; i++) {
        const struct trc_job *j = &t->jobs[i];
        used[O_MODEL] |= j->model != NULL;
        used[O_GPU_TYPE] |= j->gpu_type != NULL;
        used[O_DEADLINE] |= j->deadline != SIM_NEVER;
        used[O_UTIL] |= j->util >= 0;
        used[O_MEM] |= j->mem_gb >= 0;
        used[O_USER] |= j->user != NULL;
        used[O_PRIORITY] |= j->priority != 0;
    }

    if (dl_out_check(path, err))
        return DL_EIO;
    size_t plen = strlen(path);
    int gzip = plen >= 3 && !strcmp(path + plen - 3, ".gz");
    size_t tlen = plen + 32;
    char *tmp = xmalloc(tlen);
    snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());
    dl_tmp_register(tmp);       /* removed on SIGINT / SIGTERM */
    gzFile gz = gzopen(tmp, gzip ? "wb1" : "wbT");
    if (!gz) {
        int e = errno;
        dl_tmp_forget(tmp);
        free(tmp);
        return dl_fail_io(err, path, "cannot create %s.tmp.*: %s", path,
                          e ? strerror(e) : "out of memory");
    }
    gzbuffer(gz, 128 * 1024);

    struct wbuf b = {0};
    int bad = 0;
    char why[256];
    puts_(&b, "job_id,submit_time,num_gpus,duration");
    for (int k = 0; k < NOPT; k++)
        if (used[k]) {
            put(&b, ",", 1);
            puts_(&b, opt_name[k]);
        }
    put(&b, "\n", 1);
    int toolong = 0;
    for (uint32_t i = 0; i < t->njobs && !bad; i++) {
        const struct trc_job *j = &t->jobs[i];
        char num[24];
        size_t row0 = b.n;
        put_str(&b, j->id);
        put(&b, ",", 1);
        put_time(&b, j->submit);
        snprintf(num, sizeof num, ",%u,", j->num_gpus);
        puts_(&b, num);
        put_time(&b, j->duration);
        if (used[O_MODEL]) {
            put(&b, ",", 1);
            put_str(&b, j->model);
        }
        if (used[O_GPU_TYPE]) {
            put(&b, ",", 1);
            put_str(&b, j->gpu_type);
        }
        if (used[O_DEADLINE]) {
            put(&b, ",", 1);
            if (j->deadline != SIM_NEVER)
                put_time(&b, j->deadline);
        }
        if (used[O_UTIL]) {
            put(&b, ",", 1);
            if (j->util >= 0)
                put_float(&b, j->util);
        }
        if (used[O_MEM]) {
            put(&b, ",", 1);
            if (j->mem_gb >= 0)
                put_float(&b, j->mem_gb);
        }
        if (used[O_USER]) {
            put(&b, ",", 1);
            put_str(&b, j->user);
        }
        if (used[O_PRIORITY]) {
            snprintf(num, sizeof num, ",%d", (int)j->priority);
            puts_(&b, num);
        }
        /* a row the reader would refuse is not written: what dlsim
         * writes, dlsim reads back */
        if (b.n - row0 > DL_MAX_LINE) {
            bad = toolong = 1;
            snprintf(why, sizeof why, "job %u ('%.40s...'): its row is %zu "
                     "bytes, over the %zu a trace line may hold", i + 1,
                     j->id, b.n - row0, DL_MAX_LINE);
            break;
        }
        put(&b, "\n", 1);
        if (b.n >= 64 * 1024)
            bad = flush(gz, &b) < 0;
    }
    if (!bad)
        bad = flush(gz, &b) < 0;
    int zerr = Z_OK;
    const char *zmsg = bad && !toolong ? gzerror(gz, &zerr) : NULL;
    if (!toolong)
        snprintf(why, sizeof why, "%s", !bad ? "" : zerr == Z_ERRNO
                 ? strerror(errno) : zmsg ? zmsg : "?");
    int e = errno;
    int rc = gzclose_w(gz);
    if (!bad && rc != Z_OK) {
        bad = 1;
        snprintf(why, sizeof why, "%s",
                 rc == Z_ERRNO ? strerror(errno ? errno : e) : "zlib error");
    }
    free(b.p);
    if (!bad && rename(tmp, path) < 0) {
        bad = 1;
        snprintf(why, sizeof why, "cannot rename %s into place: %s", tmp,
                 strerror(errno));
    }
    if (bad)
        unlink(tmp);
    dl_tmp_forget(tmp);
    free(tmp);
    if (toolong)
        return dl_fail(err, path, 0, 0, "cannot write trace: %s", why);
    if (bad)
        return dl_fail_io(err, path, "cannot write trace: %s", why);
    return 0;
}
