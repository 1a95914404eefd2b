/*
 * traces/import/imp_philly.c - the Philly cluster_job_log importer (msr-fiddle/
 * philly-traces): one JSON array of job objects, documented as
 *
 *   {"status": "Pass"|"Killed"|"Failed", "vc": "...", "jobid": "...",
 *    "submitted_time": "YYYY-MM-DD HH:MM:SS", "user": "...",
 *    "attempts": [{"start_time": ..., "end_time": ...,
 *                  "detail": [{"ip": "m47", "gpus": ["gpu0", ...]}]}]}
 *
 * Streaming: the file (plain or gzip) is read in chunks and cut into the
 * array's elements by a byte scanner that tracks strings, escapes and
 * nesting; each element alone goes through the strict JSON reader
 * (dl_json_parse), so memory is one job's text, not the file's (the
 * published file is about a gigabyte uncompressed).  A syntax error is
 * reported at file:line (the line counted over the whole file).
 *
 * Mapping: id = jobid; submit = submitted_time (wall clock read as UTC);
 * num_gpus = the GPUs of the last attempt that lists any; duration = the
 * sum over attempts of end_time - start_time (attempts missing either time
 * are left out: a logging error per the trace's notes); user = user; VC =
 * vc.  Pass is completed, Killed and Failed are failed (--keep-failed); a
 * job with no attempt, or whose last attempt has no end_time (running when
 * the snapshot was taken), is unfinished.
 */
#include "traces/import/impint.h"
#include "models/perf.h"
#include "sim/base/formats.h"

#include <stdlib.h>
#include <string.h>

/* The longest job object: Philly's longest, a job of hundreds of
 * attempts on dozens of machines, is some hundred KB; beyond 16 MiB the
 * text is not a job (a string that never ends, say) and is refused
 * before it takes more memory. */
#define IMP_MAX_OBJECT ((size_t)16 << 20)

struct scan {
    struct dl_in *in;
    char *buf;
    size_t cap, len;
    int eof, failed;
};

static int more(struct scan *s, size_t keep_from)
{
    if (keep_from > 0) {
        memmove(s->buf, s->buf + keep_from, s->len - keep_from);
        s->len -= keep_from;
    }
    if (s->cap - s->len < 65536) {
        s->cap *= 2;
        s->buf = xrealloc(s->buf, s->cap);
    }
    long n = dl_in_read(s->in, s->buf + s->len, s->cap - s->len - 1);
    if (n > 0) {
        s->len += (size_t)n;
        return (int)n;
    }
    s->eof = 1;
    s->failed = n < 0;
    return 0;
}

static const char *str_of(const struct dl_json *v)
{
    return v && v->type == DL_JSON_STRING ? v->str : NULL;
}

/* One job object. */
static int one_job(struct imp *m, const struct dl_json *o, const char *path,
                   long line)
{
    if (o->type != DL_JSON_OBJECT)
        return dl_fail(m->err, path, line, 0, "array element is a %s, not a "
                       "job object", dl_json_type_name(o->type));
    imp_read_one(m);
    const char *vc = str_of(dl_json_get(o, "vc"));
    if (!imp_vc_ok(m, vc))
        return 0;
    const char *status = str_of(dl_json_get(o, "status"));
    const char *id = str_of(dl_json_get(o, "jobid"));
    if (!status || !id)
        return dl_fail(m->err, path, line, 0, "job object without a string "
                       "'%s'", !status ? "status" : "jobid");
    if (strcmp(status, "Pass")) {
        if (strcmp(status, "Killed") && strcmp(status, "Failed"))
            return dl_fail(m->err, path, line, 0, "job %s: status '%.40s' "
                           "(expected Pass, Killed or Failed)", id, status);
        if (!m->o->keep_failed) {
            imp_skip(m, IMP_S_FAILED);
            return 0;
        }
    }
    struct trc_job j;
    imp_job_init(&j);
    j.line = (uint32_t)line;
    j.id = id;
    j.user = str_of(dl_json_get(o, "user"));
    j.vc = vc;
    const char *sub = str_of(dl_json_get(o, "submitted_time"));
    int t = sub ? imp_time(sub, IMP_SEC, 1, &j.submit) : 1;
    if (t < 0)
        return dl_fail(m->err, path, line, 0, "job %s: submitted_time '%.40s'"
                       " is not a date YYYY-MM-DD HH:MM:SS", id, sub);
    if (t > 0) {
        imp_skip(m, IMP_S_NO_TIME);
        return 0;
    }
    const struct dl_json *att = dl_json_get(o, "attempts");
    if (att && att->type != DL_JSON_ARRAY)
        return dl_fail(m->err, path, line, 0, "job %s: attempts is not an "
                       "array", id);
    if (!att || !att->n) {
        imp_skip(m, IMP_S_UNFINISHED);
        return 0;
    }
    bool open = false;
    for (uint32_t a = 0; a < att->n; a++) {
        const struct dl_json *at = &att->kid[a];
        if (at->type != DL_JSON_OBJECT)
            return dl_fail(m->err, path, line, 0, "job %s: attempt %u is "
                           "not an object", id, a + 1);
        const char *ss = str_of(dl_json_get(at, "start_time"));
        const char *se = str_of(dl_json_get(at, "end_time"));
        simtime_t s, e;
        int ts = ss ? imp_time(ss, IMP_SEC, 1, &s) : 1;
        int te = se ? imp_time(se, IMP_SEC, 1, &e) : 1;
        if (ts < 0 || te < 0)
            return dl_fail(m->err, path, line, 0, "job %s: attempt %u: bad "
                           "%s '%.40s'", id, a + 1, ts < 0 ? "start_time"
                           : "end_time", ts < 0 ? ss : se);
        if (a + 1 == att->n)
            open = te != 0;
        if (!ts && !te && e > s)
            j.duration += e - s;
        /* a detail or gpus of another type is a malformed job, not a
         * CPU-only one: "gpus": "gpu0" would otherwise count 0 GPUs */
        const struct dl_json *det = dl_json_get(at, "detail");
        if (det && det->type != DL_JSON_ARRAY)
            return dl_fail(m->err, path, line, 0, "job %s: attempt %u: "
                           "detail is a %s, not an array of machines", id,
                           a + 1, dl_json_type_name(det->type));
        uint64_t g = 0;
        for (uint32_t d = 0; det && d < det->n; d++) {
            const struct dl_json *mach = &det->kid[d];
            const struct dl_json *gp = mach->type == DL_JSON_OBJECT
                                            ? dl_json_get(mach, "gpus")
                                            : NULL;
            if (mach->type != DL_JSON_OBJECT ||
                (gp && gp->type != DL_JSON_ARRAY))
                return dl_fail(m->err, path, line, 0, "job %s: attempt %u, "
                               "machine %u: %s", id, a + 1, d + 1,
                               mach->type != DL_JSON_OBJECT
                                   ? "not an object"
                                   : "gpus is not an array of GPU names");
            if (gp)
                g += gp->n;
        }
        if (g >= SIM_NONE)
            return dl_fail(m->err, path, line, 0, "job %s: attempt %u: "
                           "%llu GPUs", id, a + 1, (unsigned long long)g);
        if (g)
            j.num_gpus = (uint32_t)g;
    }
    if (open) {
        imp_skip(m, IMP_S_UNFINISHED);
        return 0;
    }
    imp_add(m, &j);
    return 0;
}

int imp_philly_json(struct imp *m, const char *path)
{
    struct scan s = { 0 };
    s.in = dl_in_open(path, DL_MAX_STREAM, m->err);
    if (!s.in)
        return DL_EIO;
    s.cap = 1 << 20;
    s.buf = xmalloc(s.cap);
    int r = 0;
    long line = 1, el_line = 0;
    size_t i = 0, start = 0;    /* scan position; element start */
    int depth = 0, in_str = 0, esc = 0;
    bool opened = false, closed = false, want_value = true;
    uint64_t nel = 0;            /* elements seen */
    for (;;) {
        if (i == s.len) {
            if (s.eof)
                break;
            if (depth >= 2 && i - start > IMP_MAX_OBJECT) {
                r = dl_fail(m->err, path, el_line, 0, "job object longer "
                            "than %zu bytes", IMP_MAX_OBJECT);
                break;
            }
            size_t keep = depth >= 2 ? start : i;
            more(&s, keep);
            i -= keep;
            start -= keep < start ? keep : start;
            continue;
        }
        char ch = s.buf[i];
        if (ch == '\n')
            line++;
        if (in_str) {
            if (esc)
                esc = 0;
            else if (ch == '\\')
                esc = 1;
            else if (ch == '"')
                in_str = 0;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
            i++;
            continue;
        }
        if (closed) {
            r = dl_fail(m->err, path, line, 0, "text after the closing ']'");
            break;
        }
        if (!opened) {
            if (ch != '[') {
                r = dl_fail(m->err, path, line, 0, "expected a JSON array "
                            "of jobs ('[')");
                break;
            }
            opened = true;
            depth = 1;
            i++;
            continue;
        }
        if (depth == 1) {
            if (ch == ']' && (!want_value || nel == 0)) {
                closed = true;
                depth = 0;
            } else if (ch == ',' && !want_value) {
                want_value = true;
            } else if ((ch == '{' || ch == '[') && want_value) {
                start = i;
                el_line = line;
                depth = 2;
                want_value = false;
                nel++;
            } else {
                r = dl_fail(m->err, path, line, 0, "expected %s", want_value
                            ? "a job object" : "',' or ']'");
                break;
            }
            i++;
            continue;
        }
        if (ch == '"')
            in_str = 1;
        else if (ch == '{' || ch == '[')
            depth++;
        else if (ch == '}' || ch == ']') {
            if (--depth == 1) {
                struct dl_json_doc d;
                r = dl_json_parse(path, s.buf + start, i + 1 - start, &d,
                                   m->err);
                if (r) {
                    if (m->err->line > 0)
                        m->err->line += el_line - 1;
                    break;
                }
                r = one_job(m, d.root, path, el_line);
                dl_json_free(&d);
                if (r)
                    break;
            }
        }
        i++;
    }
    if (!r && s.failed)
        r = dl_in_fail(s.in, line, 0, m->err);
    if (!r && !closed)
        r = dl_fail(m->err, path, line, 0, "unexpected end of input inside "
                    "the array");
    if (!r)
        dl_in_warn_trailing(path, s.in);
    dl_in_close(s.in);
    free(s.buf);
    return r;
}
