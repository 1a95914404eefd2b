/*
 * traces/import/import.c - `dlsim trace import`: converts public traces to the
 * native format (SPEC 2), and the machinery every importer shares.
 *
 * Owns: the table of formats (name, one-line summary, where the trace is
 * published, the function that reads one input file), the command line,
 * and the import context (struct imp, traces/import/impint.h): the jobs kept so
 * far in a flat array, their strings in an arena that becomes the written
 * trace's, and the counters of what was skipped and why.
 *
 * Pipeline:
 *
 *   importer (one per format, traces/imp_*.c): parse, map units, statuses
 *       and columns -> imp_add (zero GPUs / bad duration skipped, counted;
 *       a format without ids numbers its jobs by row in their file;
 *       with several files the ids get a "FILE:" prefix; a 16-byte sort
 *       key per job)
 *   -> window filter on the input clock (--filter start=,end=)
 *   -> sort of the keys by (submit, input order), so the output is the same
 *      for the same input whatever the input's row order
 *   -> duplicate ids dropped (the first in that order stays)
 *   -> the records permuted in place into that order (no second copy)
 *   -> clock zero moved to the first kept submit (unless --epoch trace);
 *      deadlines move with it; a deadline before its submit is dropped
 *   -> trc_write (atomic: a temporary file renamed into place).
 *
 * Bad input (a malformed row: wrong field count, a number that is not
 * one, a broken or impossible date, a line over DL_MAX_LINE) is an error
 * naming file:line (exit 2) and nothing is written; so are two inputs of
 * the same file name (their ids would merge) and, unless --force, a
 * result that looks like a wrong --time-unit (plausible()).  Rows that are well formed but unusable (CPU-only, failed,
 * never finished, no submit time) are skipped and counted, and the report
 * on stderr lists every reason with its count.
 */
#include "traces/import/impint.h"
#include "traces/import/import.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ formats */

struct imp_format {
    const char *name;
    const char *summary;
    const char *source;         /* where to obtain it publicly */
    int (*read)(struct imp *m, const char *path);
    bool dirs;                  /* IN may be a directory of files */
    /* optional: before the first file and after the last (shared state
     * of a format, such as Gavel's throughput table) */
    int (*begin)(struct imp *m);
    void (*end)(struct imp *m);
    /* the option the format needs (pai: --tasks, gavel: --throughputs) */
    const char *needs;
};

static const struct imp_format formats[] = {
    { "itp", "Microsoft ITP, raw (ElasticFlow artifact); seconds",
      "github.com/microsoft/elasticflow-traces data/raw-traces.tar.gz",
      imp_itp, false, NULL, NULL, NULL },
    { "elasticflow", "ITP with synthetic models and absolute deadlines "
      "(also pkusys/ElasticFlow's traces)",
      "github.com/microsoft/elasticflow-traces data/elasticflow-traces"
      ".tar.gz; github.com/pkusys/ElasticFlow traces_for_ElasticFlow",
      imp_elasticflow, false, NULL, NULL, NULL },
    { "philly", "Microsoft Philly, per-job CSV of the Pollux/Sia artifacts; "
      "wall clock", "github.com/petuum/adaptdl (branch osdi21-artifact) "
      "simulator/traces/philly.csv", imp_philly, false, NULL, NULL, NULL },
    { "philly-json", "Microsoft Philly cluster_job_log (JSON, attempts)",
      "github.com/msr-fiddle/philly-traces trace-data.tar.gz", imp_philly_json,
      false, NULL, NULL, NULL },
    { "pai", "Alibaba PAI 2020: pai_job_table (IN) + pai_task_table "
      "(--tasks)", "github.com/alibaba/clusterdata cluster-trace-gpu-v2020",
      imp_pai, false, NULL, NULL, "--tasks" },
    { "openb", "Alibaba 2023 openb pod list: GPU shares, GPU-type "
      "constraints", "github.com/alibaba/clusterdata cluster-trace-gpu-v2023"
      "/csv/openb_pod_list_*.csv", imp_openb, false, NULL, NULL, NULL },
    { "helios", "SenseTime Helios / Lucid cluster_log (Slurm states)",
      "github.com/S-Lab-System-Group/HeliosData data/<cluster>/"
      "cluster_log.csv", imp_helios, false, NULL, NULL, NULL },
    { "tiresias", "Tiresias simulator CSV; seconds",
      "github.com/SymbioticLab/Tiresias simulator/*.csv", imp_tiresias,
      false, NULL, NULL, NULL },
    { "gavel", "Gavel msr traces (TSV; a file or a seed directory); needs "
      "--throughputs", "github.com/stanford-futuredata/gavel scheduler/"
      "traces/msr/seed=N", imp_gavel, true, imp_gavel_begin, imp_gavel_end, "--throughputs" },
    { "chronus", "Chronus deadline traces (strict/soft/best); minutes",
      "github.com/S-Lab-System-Group/ChronusArtifact code/data/exp/"
      "trace_job_Philly_*.csv", imp_chronus, false, NULL, NULL, NULL },
    { "muri", "Muri simulator traces (priority); milliseconds",
      "github.com/Rivendile/Muri simulator/trace-data/*.csv", imp_muri,
      false, NULL, NULL, NULL },
};
enum { NFORMATS = sizeof formats / sizeof formats[0] };

static const struct imp_format *find_format(const char *name)
{
    for (int i = 0; i < NFORMATS; i++)
        if (!strcmp(formats[i].name, name))
            return &formats[i];
    return NULL;
}

void trc_import_formats(FILE *to)
{
    for (int i = 0; i < NFORMATS; i++)
        fprintf(to, "  %-12s %s\n  %-12s %s\n", formats[i].name,
                formats[i].summary, "", formats[i].source);
}

/* ------------------------------------------------------------ context */

static const char *const skip_text[IMP_NSKIP] = {
#define IMP_TEXT(name, text) text,
    IMP_SKIPS(IMP_TEXT)
#undef IMP_TEXT
};
static const char *const note_text[IMP_NNOTE] = {
#define IMP_TEXT(name, text) text,
    IMP_NOTES(IMP_TEXT)
#undef IMP_TEXT
};

void imp_read_one(struct imp *m)
{
    m->nread++;
}

void imp_job_init(struct trc_job *j)
{
    memset(j, 0, sizeof *j);
    j->deadline = SIM_NEVER;
    j->util = j->mem_gb = -1.0f;
}

void imp_skip(struct imp *m, enum imp_skip why)
{
    m->skip[why]++;
}

bool imp_vc_ok(struct imp *m, const char *vc)
{
    if (!m->o->nvc)
        return true;
    for (size_t i = 0; vc && i < m->o->nvc; i++)
        if (!strcmp(vc, m->o->vc[i]))
            return true;
    m->skip[IMP_S_FILTER_VC]++;
    return false;
}

const char *imp_str(struct imp *m, const char *s)
{
    return s && *s ? arena_strndup(m->arena, s, strlen(s)) : NULL;
}

static uint64_t hash_id(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);        /* FNV-1a */
    while (*s)
        h = (h ^ (unsigned char)*s++) * UINT64_C(1099511628211);
    return h ^ (h >> 29);
}

/* Decimal digits of v into buf (at least 21 bytes), NUL-terminated. */
static void utoa(uint64_t v, char *buf)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
}

bool imp_add(struct imp *m, const struct trc_job *j)
{
    if (j->num_gpus == 0) {
        m->skip[IMP_S_ZERO_GPUS]++;
        return false;
    }
    if (j->duration <= 0 || j->duration > TRC_MAX_TIME) {
        m->skip[IMP_S_BAD_DURATION]++;
        return false;
    }
    xgrow(&m->jobs, &m->cap, m->njobs + 1, sizeof *m->jobs);
    struct trc_job *q = &m->jobs[m->njobs];
    *q = *j;
    q->model = imp_str(m, j->model);
    q->gpu_type = imp_str(m, j->gpu_type);
    q->user = imp_str(m, j->user);
    q->vc = imp_str(m, j->vc);
    char num[24];
    const char *id = j->id;
    if (!id || !*id) {          /* formats without ids: the input row */
        utoa(m->nread - m->file_read0, num);
        id = num;
    }
    size_t a = m->id_prefix ? strlen(m->id_prefix) : 0, b = strlen(id);
    char *s = arena_alloc(m->arena, a + b + 1);
    if (a)
        memcpy(s, m->id_prefix, a);
    memcpy(s + a, id, b + 1);
    q->id = s;
    xgrow(&m->keys, &m->kcap, m->njobs + 1, sizeof *m->keys);
    m->keys[m->njobs] = (struct imp_key){ q->submit, (uint32_t)m->njobs,
                                          (uint32_t)hash_id(s) };
    m->njobs++;
    return true;
}

const char *imp_stem(struct imp *m, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    static const char *const ext[] = { ".gz", ".csv", ".trace", ".json",
                                       ".tsv" };
    for (bool again = true; again;) {
        again = false;
        for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
            size_t e = strlen(ext[k]);
            if (n > e && !strncmp(b + n - e, ext[k], e)) {
                n -= e;
                again = true;
            }
        }
    }
    return arena_strndup(m->arena, b, n);
}

/* ------------------------------------------------------------- values */

static bool is_missing(const char *s)
{
    if ((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.')
        return false;
    static const char *const na[] = { "", "None", "none", "NaN", "nan",
                                       "null", "NULL", "NA", "\\N" };
    for (size_t k = 0; k < sizeof na / sizeof na[0]; k++)
        if (!strcmp(s, na[k]))
            return true;
    return false;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned mo, unsigned d)
{
    y -= mo <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
    }
    *out = v;
    return 0;
}

static int parse_date(const char *s, simtime_t *out)
{
    const char *p = s;
    int y, mo, d, h = 0, mi = 0, sec = 0;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
        *p++ != '-' || digits(&p, 2, &d))
        return -1;
    if (*p == ' ' || *p == 'T') {
        p++;
        if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
            return -1;
        if (*p == ':') {
            p++;
            if (digits(&p, 2, &sec))
                return -1;
        }
    }
    simtime_t frac = 0;
    if (*p == '.') {
        p++;
        simtime_t scale = 100000;
        if (!isdigit((unsigned char)*p))
            return -1;
        for (; isdigit((unsigned char)*p); p++, scale /= 10)
            frac += (*p - '0') * scale;
    }
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
                                 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    /* a real calendar date: 2017-02-29 must not become March 1 */
    if (*p || mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 ||
        sec > 59)
        return -1;
    int64_t days = days_from_civil(y, (unsigned)mo, (unsigned)d);
    *out = ((days * 86400 + h * 3600 + mi * 60 + sec) * SIM_US_PER_S) + frac;
    return 0;
}

int imp_time(const char *s, enum imp_unit unit, int wall, simtime_t *out)
{
    if (is_missing(s))
        return 1;
    bool date = isdigit((unsigned char)s[0]) && s[1] && s[2] && s[3] &&
                s[4] == '-';
    if (date) {
        if (wall == 0 || parse_date(s, out) < 0)
            return -1;
        return 0;
    }
    if (wall == 1)
        return -1;
    simtime_t v;
    if (sim_parse_seconds(s, &v) < 0)
        return -1;
    static const int64_t mul[] = { 1, 0, 60, 3600 };
    if (unit == IMP_MS) {
        v = v >= 0 ? (v + 500) / 1000 : -((-v + 500) / 1000);
    } else {
        if (v > TRC_MAX_TIME / mul[unit] || v < -TRC_MAX_TIME / mul[unit])
            return -1;
        v *= mul[unit];
    }
    if (v > TRC_MAX_TIME || v < -TRC_MAX_TIME)
        return -1;
    *out = v;
    return 0;
}

int imp_count(const char *s, long *out)
{
    double d;
    if (sim_parse_double(s, &d) < 0 || d < 0 || d > IMP_MAX_GPUS || d != floor(d))
        return -1;
    *out = (long)d;
    return 0;
}

int imp_bad(struct imp *m, const struct dl_csv *c, const char *col,
            const char *why, const char *val)
{
    char vb[48];
    size_t n = strlen(val);
    snprintf(vb, sizeof vb, "%.40s%s", val, n > 40 ? "..." : "");
    for (char *p = vb; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = '?';
    return dl_fail(m->err, c->path, c->line, 0, "column %s: %s '%s'",
                   col, why, vb);
}

/* ------------------------------------------------------------- CSV */

/* Public traces: RFC 4180 quoting, one record per line (a quoted field
 * holds no line break), blanks around fields trimmed; TSV (Gavel): quotes
 * are text. */
const struct dl_csv_opts imp_csv_rules = {
    .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_TRIM,
    .hint = " (is this the right --format?)",
};
const struct dl_csv_opts imp_tsv_rules = {
    .sep = '\t', .flags = DL_CSV_TRIM,
    .hint = " (is this the right --format?)",
};

/* ------------------------------------------------------------- finish */

static int by_submit(const void *a, const void *b)
{
    const struct imp_key *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The input file of job j (its index in m->jobs, as read). */
static size_t file_index(const struct imp *m, size_t j)
{
    size_t lo = 0, hi = m->nfiles;      /* file_first ascending */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (m->file_first[mid] <= j)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The input file of kept job j, once finish has moved the records (it
 * notes each kept job's file, m->out_file, before moving them). */
static const char *file_of(const struct imp *m, const struct trc_job *j)
{
    size_t k = (size_t)(j - m->jobs);
    return m->nfiles ? m->files[m->out_file[k]] : NULL;
}

/* Window, sort, ids, epoch, in place: afterwards m->jobs[0..*kept) are the
 * jobs to write, in output order.  The records are permuted where they
 * are rather than copied into a new array (a copy costs a page fault per
 * 4 KB of a large trace).  0 or DL_EINPUT. */
static int finish(struct imp *m, size_t *kept)
{
    const struct imp_opts *o = m->o;
    size_t n = 0, total = m->njobs;
    *kept = 0;
    if (!total)
        return 0;
    struct imp_key *key = m->keys;
    uint32_t *dest = xmalloc(total * sizeof *dest);
    for (size_t i = 0; i < total; i++) {
        dest[i] = SIM_NONE;
        simtime_t t = key[i].submit;
        if ((o->has_start && t < o->start) || (o->has_end && t >= o->end)) {
            m->skip[IMP_S_FILTER_TIME]++;
            continue;
        }
        key[n++] = key[i];
    }
    bool sorted = true;
    for (size_t k = 1; k < n && sorted; k++)
        sorted = key[k - 1].submit <= key[k].submit;
    if (!sorted)                /* (submit, idx) is a total order */
        qsort(key, n, sizeof *key, by_submit);
    /* duplicate ids: the first in output order stays (open addressing, at
     * most half full; a slot holds a job's id hash and index + 1) */
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    struct { uint32_t hash, idx1; } *slot = xcalloc(cap, sizeof *slot);
    m->out_file = xmalloc((n ? n : 1) * sizeof *m->out_file);
    size_t out = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t hv = key[k].hash;
        size_t h = hv & (cap - 1);
        bool dup = false;
        for (; slot[h].idx1 && !dup; h = (h + 1) & (cap - 1))
            dup = slot[h].hash == hv &&
                  !strcmp(m->jobs[slot[h].idx1 - 1].id, m->jobs[key[k].idx].id);
        if (dup) {
            m->skip[IMP_S_DUP_ID]++;
            continue;
        }
        slot[h].hash = hv;
        slot[h].idx1 = key[k].idx + 1;
        m->out_file[out] = (uint32_t)file_index(m, key[k].idx);
        dest[key[k].idx] = (uint32_t)out++;
    }
    free(slot);
    /* the dropped jobs go after the kept ones, so dest is a permutation;
     * then every cycle of it is rotated into place */
    size_t next = out;
    for (size_t i = 0; i < total; i++)
        if (dest[i] == SIM_NONE)
            dest[i] = (uint32_t)next++;
    for (size_t i = 0; i < total; i++) {
        while (dest[i] != i) {
            uint32_t d = dest[i];
            if (dest[d] != d)   /* the next hop of the cycle: a cache miss */
                __builtin_prefetch(&m->jobs[dest[d]], 0);
            struct trc_job tj = m->jobs[d];
            m->jobs[d] = m->jobs[i];
            m->jobs[i] = tj;
            dest[i] = dest[d];
            dest[d] = d;
        }
    }
    free(dest);
    simtime_t zero = o->epoch_trace || !out ? 0 : m->jobs[0].submit;
    for (size_t k = 0; k < out; k++) {
        struct trc_job *j = &m->jobs[k];
        j->submit -= zero;
        if (j->submit < 0 || j->submit > TRC_MAX_TIME)
            return dl_fail(m->err, file_of(m, j), j->line, 0, "job '%.60s': "
                           "submit time out of range on the output clock "
                           "(negative, or past 10^12 s)%s", j->id,
                           o->epoch_trace ? "; use --epoch first" : "");
        if (j->deadline != SIM_NEVER) {
            j->deadline -= zero;
            if (j->deadline < j->submit || j->deadline > TRC_MAX_TIME) {
                j->deadline = SIM_NEVER;
                m->note[IMP_N_DEADLINE_DROPPED]++;
            }
        }
    }
    *kept = out;
    return 0;
}

/* Several inputs of one name would merge: their ids get the same FILE:
 * prefix and their jobs the same virtual cluster, and the second file's
 * jobs would be dropped as duplicates.  0 or DL_EINPUT. */
static int distinct_stems(struct imp *m, const char *const *files, size_t n)
{
    const char **stem = xmalloc(n * sizeof *stem);
    int r = 0;
    for (size_t i = 0; i < n && !r; i++) {
        stem[i] = imp_stem(m, files[i]);
        for (size_t k = 0; k < i && !r; k++)
            if (!strcmp(stem[k], stem[i]))
                r = dl_fail(m->err, files[i], 0, 0, "has the same name '%s' "
                            "as %s: their job ids (%s:ID) and virtual "
                            "clusters would merge; rename one", stem[i],
                            files[k], stem[i]);
    }
    free(stem);
    return r;
}

static int cmp_time(const void *a, const void *b)
{
    simtime_t x = *(const simtime_t *)a, y = *(const simtime_t *)b;
    return (x > y) - (x < y);
}

/* Plausibility of the kept jobs, against a wrong --time-unit (Muri's
 * milliseconds read as seconds span 342 years): a submit span over
 * IMP_MAX_SPAN_DAYS or a median duration over IMP_MAX_MEDIAN_DAYS is
 * DL_EINPUT unless --force.  The longest public traces span months and
 * their median jobs run minutes to hours. */
#define IMP_MAX_SPAN_DAYS (20 * 365.25)
#define IMP_MAX_MEDIAN_DAYS 365.25
static int plausible(struct imp *m, size_t kept)
{
    const char *where = m->nfiles == 1 ? m->files[0] : NULL;
    double span = (double)(m->jobs[kept - 1].submit - m->jobs[0].submit) /
                  SIM_US_PER_S / 86400;
    if (span > IMP_MAX_SPAN_DAYS)
        return dl_fail(m->err, where, 0, 0, "implausible: the jobs' submit "
                       "times span %.0f days (over %g years); are the times "
                       "in another unit? (--time-unit s|ms|min|h; --force "
                       "imports anyway)", span, IMP_MAX_SPAN_DAYS / 365.25);
    simtime_t *d = xmalloc(kept * sizeof *d);
    for (size_t k = 0; k < kept; k++)
        d[k] = m->jobs[k].duration;
    qsort(d, kept, sizeof *d, cmp_time);
    double med = (double)d[(kept - 1) / 2] / SIM_US_PER_S / 86400;
    free(d);
    if (med > IMP_MAX_MEDIAN_DAYS)
        return dl_fail(m->err, where, 0, 0, "implausible: the median job "
                       "runs %.0f days (over a year); are the times in "
                       "another unit? (--time-unit s|ms|min|h; --force "
                       "imports anyway)", med);
    return 0;
}

/* The report on stderr. */
static void report(const struct imp *m, const struct trace *t,
                   const char *out, FILE *to)
{
    double gpus = 0;
    for (uint32_t i = 0; i < t->njobs; i++)
        gpus += (double)t->jobs[i].num_gpus *
                ((double)t->jobs[i].duration / SIM_US_PER_S);
    simtime_t span = t->njobs ? t->jobs[t->njobs - 1].submit -
                                t->jobs[0].submit : 0;
    char sb[32];
    sim_fmt_seconds(sb, sizeof sb, span);
    fprintf(to, "dlsim trace import: %s: read %llu job%s, kept %u -> %s "
            "(%.1f GPU-hours, submit span %s s = %.2f days)\n", m->o->format,
            (unsigned long long)m->nread, DL_PLURAL(m->nread), t->njobs, out,
            gpus / 3600,
            sb, (double)span / SIM_US_PER_S / 86400);
    for (int k = 0; k < IMP_NSKIP; k++)
        if (m->skip[k])
            fprintf(to, "  skipped %llu: %s\n",
                    (unsigned long long)m->skip[k], skip_text[k]);
    for (int k = 0; k < IMP_NNOTE; k++)
        if (m->note[k])
            fprintf(to, "  note %llu: %s\n", (unsigned long long)m->note[k],
                    note_text[k]);
}

/* ------------------------------------------------------------ command */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a directory (sorted by name, dot files left out) appended
 * to *files.  0 or DL_EIO. */
static int list_dir(const char *dir, char ***files, size_t *n, size_t *cap,
                    struct dl_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return dl_fail_io(err, dir, "cannot open directory: %s",
                          strerror(errno));
    size_t first = *n;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = xmalloc(len);
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        xgrow(files, cap, *n + 1, sizeof **files);
        (*files)[(*n)++] = p;
    }
    closedir(d);
    qsort(*files + first, *n - first, sizeof **files, cmp_str);
    if (*n == first)
        return dl_fail(err, dir, 0, 0, "directory holds no files");
    return 0;
}

const char *trc_import_needs(const char *format, bool *known)
{
    const struct imp_format *f = find_format(format);
    *known = f != NULL;
    return f ? f->needs : NULL;
}

int trc_import_parse_time(const char *s, simtime_t *t)
{
    return imp_time(s, IMP_SEC, -1, t);
}

int trc_import_run(const struct imp_opts *o, char *const *in, size_t nin,
                   const char *out, struct dl_error *err)
{
    const struct imp_format *f = find_format(o->format);
    DL_ASSERT(f);
    struct imp m;
    memset(&m, 0, sizeof m);
    m.o = o;
    m.err = err;
    m.arena = arena_new();
    char **files = NULL;
    size_t nfiles = 0, cap = 0;
    int r = 0;
    for (size_t i = 0; i < nin && !r; i++) {
        struct stat sb;
        if (f->dirs && stat(in[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            r = list_dir(in[i], &files, &nfiles, &cap, err);
            continue;
        }
        xgrow(&files, &cap, nfiles + 1, sizeof *files);
        files[nfiles++] = xstrdup(in[i]);
    }
    if (!r && nfiles > 1)
        r = distinct_stems(&m, (const char *const *)files, nfiles);
    if (!r && f->begin)
        r = f->begin(&m);
    m.files = (const char **)files;
    m.file_first = xmalloc((nfiles ? nfiles : 1) * sizeof *m.file_first);
    for (size_t i = 0; i < nfiles && !r; i++) {
        m.file_first[i] = m.njobs;
        m.nfiles = i + 1;
        if (nfiles > 1 && !f->dirs) {   /* gavel ids carry their VC */
            const char *stem = imp_stem(&m, files[i]);
            size_t n = strlen(stem);
            char *p = arena_alloc(m.arena, n + 2);
            memcpy(p, stem, n);
            memcpy(p + n, ":", 2);
            m.id_prefix = p;
        }
        m.file_read0 = m.nread;
        r = f->read(&m, files[i]);
    }
    if (f->end)
        f->end(&m);
    size_t kept = 0;
    if (!r)
        r = finish(&m, &kept);
    if (!r && kept && !o->force)
        r = plausible(&m, kept);
    struct trace t;
    memset(&t, 0, sizeof t);
    t.arena = m.arena;
    t.path = out;
    t.jobs = m.jobs;
    t.njobs = (uint32_t)kept;
    bool empty = !r && !kept;
    if (empty)
        r = dl_fail(err, NULL, 0, 0, "no jobs left to write (read %llu; see "
                    "the reasons above)", (unsigned long long)m.nread);
    if (!r)
        r = trc_write(&t, out, err);
    if (!r || empty)
        report(&m, &t, r ? "(nothing written)" : out, stderr);
    for (size_t i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    free(m.jobs);
    free(m.keys);
    free(m.file_first);
    free(m.out_file);
    arena_free(m.arena);
    return r;
}
