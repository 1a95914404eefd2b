/*
 * sim/base/formats.h - the base layer's readers of data formats, one of
 * each: the CSV reader of every CSV and TSV input but the native trace,
 * streamed, with located errors (dl_csv_, csv.c), a strict bounded JSON
 * reader (dl_json_, json.c), and YAML documents through libyaml with
 * located errors (yl_, yaml.c; the YAML scalar writer is dl_yaml_put_str
 * in base.h).  Apart from base.h so
 * that what includes the basics (a policy plug-in, say) needs no libyaml.
 */
#ifndef DLSIM_FORMATS_H
#define DLSIM_FORMATS_H

#include "sim/base/base.h"

#include <yaml.h>

#define DL_CSV_MAX_COLS 64
#define DL_CSV_MAX_BYTES ((size_t)1 << 30)
#define DL_CSV_NAME_MAX 128       /* bytes of a normal-form name, with NUL */

/* ---------------------------------------------------------------- CSV
 *
 * The one CSV reader (csv.c; its file comment states the rules every
 * input shares).  What differs between inputs is chosen here: */
#define DL_CSV_QUOTED    0x01u  /* RFC 4180: "a,b" quoted, "" a quote; a
                                 * quote inside an unquoted field or text
                                 * after a closing one is an error */
#define DL_CSV_MULTILINE 0x02u  /* with QUOTED: a quoted field may hold
                                 * line breaks (the files dlsim writes) */
#define DL_CSV_NO_QUOTES 0x04u  /* a '"' anywhere is an error (neither
                                 * flag: a '"' is text, as in TSV) */
#define DL_CSV_TRIM      0x08u  /* blanks (space, tab unless the
                                 * separator) around fields dropped, lines
                                 * of blanks skipped */
#define DL_CSV_COMMENTS  0x10u  /* lines starting with '#' skipped */
#define DL_CSV_NO_CTRL   0x20u  /* control characters but TAB refused */

struct dl_csv_opts {
    char sep;                   /* ',' (0) or '\t' */
    unsigned flags;             /* DL_CSV_* */
    int max_fields;             /* 0 = any number */
    size_t max_record;          /* bytes of a record; 0 = DL_MAX_LINE */
    uint64_t max_bytes;         /* of the input unpacked; 0 = DL_MAX_STREAM */
    const char *hint;           /* appended to "missing column" (or NULL) */
};

/* SPEC 7's rules for the model zoo and the measurement files: plain
 * fields (no quoting: a '"' is an error, so a quoted comma can never
 * shift the columns), '#' comments, no control characters, at most
 * DL_CSV_MAX_COLS fields, DL_CSV_MAX_BYTES. */
extern const struct dl_csv_opts dl_csv_model_files;

/* One open CSV input.  The first seven members are the current record,
 * read-only; its fields point into the reader's buffer and are valid
 * until the next dl_csv_row or dl_csv_close. */
struct dl_csv {
    const char *path;           /* for messages (not copied) */
    long line;                  /* line where the current record starts */
    int nf;                     /* fields in the current record */
    char **f;                   /* [nf] fields, NUL-terminated */
    long *fcol, *fline;         /* [nf] where each starts (col from 1) */
    int ncols;                  /* width every record must have, 0 = any */
    /* private */
    struct dl_csv_opts o;
    struct dl_in *in;           /* NULL for a memory buffer */
    char *buf;
    size_t cap, pos, len;       /* buf[pos..len): bytes not yet read */
    bool eof, failed, started;
    long lines;                 /* lines consumed */
    size_t fcap;
    char **hdr, *hdrbuf;        /* [nhdr] the header's names, copied */
    int nhdr;
    struct dl_names hdrix;
    unsigned char stop[256];    /* what ends an unquoted field's scan */
};

/* Opens path (plain or gzip; "-" = standard input) under the rules o.
 * 0, or DL_EIO with err; dl_csv_close afterwards in every case. */
int dl_csv_open(struct dl_csv *c, const char *path,
                const struct dl_csv_opts *o, struct dl_error *err);
/* The same over a copy of buf[0..len) (name for messages). */
void dl_csv_open_mem(struct dl_csv *c, const char *name, const char *buf,
                     size_t len, const struct dl_csv_opts *o);
/* Warns on stderr of bytes after the last gzip member, then frees. */
void dl_csv_close(struct dl_csv *c);
/* The next record: 1, 0 at the end of the input, or DL_EINPUT / DL_EIO
 * with err. */
int dl_csv_row(struct dl_csv *c, struct dl_error *err);
/* Reads the next record as the header: a name twice is an error; maps
 * each of names[0..n) ("a|b": either) to its field index in idx (-1 when
 * absent); a missing one is an error unless required[i] is false
 * (required NULL: every one is required).  Every later record must have
 * the header's width.  DL_EINPUT: "empty file: no header line", "column
 * 'a' appears twice", "missing column 'a' in the header". */
int dl_csv_header(struct dl_csv *c, const char *const *names,
                  const bool *required, int n, int *idx,
                  struct dl_error *err);
/* Without a header: every record must have n fields (0 = any). */
void dl_csv_width(struct dl_csv *c, int n);

/* Field i of the current record; "" when i < 0 (an absent optional
 * column) or past the record's end. */
const char *dl_csv_fld(const struct dl_csv *c, int i);

/* Fills err at field i's line:col (at the record's line when i < 0) with
 * the message and returns DL_EINPUT. */
int dl_csv_fail_at(const struct dl_csv *c, int i, struct dl_error *err,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "file:line:col: column 'name': WHY 'value'" for field i. */
int dl_csv_bad_value(const struct dl_csv *c, int i, const char *name,
                     const char *why, struct dl_error *err);

/* A number in [lo, hi]; empty -> *out = -1 unless required.  Messages
 * "column 'name': not a number: 'v'" / "out of range: 'v'". */
int dl_csv_num(const struct dl_csv *c, int i, const char *name, bool required,
               double lo, double hi, double *out, struct dl_error *err);

/* As dl_csv_num, and a whole number; "not a whole number: 'v'". */
int dl_csv_int(const struct dl_csv *c, int i, const char *name, bool required,
               long lo, long hi, long *out, struct dl_error *err);

/* A number in [lo, hi], or (lo, hi] with lo_open; empty -> *out = -1 unless
 * required.  Message "name: 'v' is not a number in [lo, hi]". */
int dl_csv_range(const struct dl_csv *c, int i, const char *name,
                 bool required, double lo, double hi, bool lo_open,
                 double *out, struct dl_error *err);

/* Writes s as one CSV field that dl_csv reads back (RFC 4180, fields over
 * lines): as it is, or double-quoted when it holds a comma, a quote or a
 * line break. */
void dl_csv_put_field(FILE *f, const char *s);

/* Model-name normal form of s[0..len) into out (DL_CSV_NAME_MAX bytes):
 * lower-case letters and digits only, then the zoo's alias table (e.g.
 * "LM" = lstm).  -1 if empty or too long. */
int dl_csv_norm_name(const char *s, size_t len, char *out);

/* ---- YAML scalars for the files the fits write */

/* A double-quoted YAML string; a number (%.9g) or null for NaN. */

/* ---- reading YAML model files (sim/base/yaml.c) */

/* The largest YAML file yl_open reads: model files, workload files and
 * sweep specs are a few KB to a few MB (a workload's tables hold at most
 * 1,001 numbers each); writers of such files refuse to write more. */
#define DL_YAML_MAX_BYTES ((size_t)64 << 20)

struct yload {
    const char *file;           /* for messages */
    yaml_document_t doc;
    bool loaded;
    struct dl_error *err;
};
/* Parses the whole file (plain or gzip; limits of dl_read_file and
 * dl_yaml_load: size, line length, nesting, exactly one document) and
 * refuses a key repeated in any mapping.  0, DL_EIO (cannot open) or
 * DL_EINPUT (at file:line:col).  yl_close afterwards in every case. */
int yl_open(struct yload *L, const char *path, struct dl_error *err);
void yl_close(struct yload *L);
const yaml_node_t *yl_root(struct yload *L);
const yaml_node_t *yl_node(struct yload *L, int index);
/* Fills L->err at n's line:col (1:1 when n is NULL); returns DL_EINPUT. */
int yl_fail(struct yload *L, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The text of a scalar node, NULL for anything else. */
const char *yl_scalar(const yaml_node_t *n);
/* Whether n is a sequence of exactly the n names, in this order. */
bool yl_names_are(struct yload *L, const yaml_node_t *n, const char *const *names,
                  int count);
/* A number in [lo, hi] ((lo, hi] with lo_open) -> *out, else DL_EINPUT
 * "key: expected a number in [lo, hi]". */
int yl_num(struct yload *L, const yaml_node_t *n, const char *key, double lo,
           double hi, bool lo_open, double *out);
/* Pair q of mapping n: its key node, value node and key text.  0, or
 * DL_EINPUT when the key is not a scalar (or is empty). */
int yl_pair(struct yload *L, const yaml_node_t *n, const yaml_node_pair_t *q,
            const yaml_node_t **k, const yaml_node_t **v, const char **key);
/* The root is a mapping whose `kind` is kind: 0, else DL_EINPUT. */
int yl_kind(struct yload *L, const char *kind);
/* The root mapping's `kind` text, or NULL. */
const char *yl_peek_kind(struct yload *L);

/* ------------------------------------------------------------ JSON reader
 *
 * A small, strict, bounded JSON reader (sim/base/json.c) for measurement files
 * such as Gavel's throughput JSON.  RFC 8259 grammar only: no comments, no
 * trailing commas, no NaN/Infinity, no leading zeros, no control bytes in
 * strings, no "\u0000", no duplicate member names, nothing after the root.
 * Nesting is limited to DL_JSON_MAX_DEPTH and the input to
 * DL_JSON_MAX_BYTES; every error is reported as file:line:col (col counts
 * bytes from 1) and never crashes.  The tree lives in one arena.
 */
#define DL_JSON_MAX_DEPTH 64
#define DL_JSON_MAX_BYTES ((size_t)256 << 20)

enum dl_json_type {
    DL_JSON_NULL, DL_JSON_FALSE, DL_JSON_TRUE, DL_JSON_NUMBER,
    DL_JSON_STRING, DL_JSON_ARRAY, DL_JSON_OBJECT,
};

struct dl_json {
    enum dl_json_type type;
    uint32_t n;                 /* elements / members (arrays, objects) */
    struct dl_json *kid;       /* [n], in document order */
    const char *key;            /* member name inside an object, else NULL */
    const char *str;            /* string value (UTF-8, NUL-terminated) */
    size_t len;                 /* its length in bytes */
    double num;                 /* number value (finite) */
    long line, col;             /* where the value starts */
    long key_line, key_col;     /* where its member name starts (objects) */
};

struct dl_json_doc {
    struct dl_json *root;      /* NULL when empty */
    struct arena *arena;        /* owns every node and string */
};

/* Parses buf[0..len); name is used in messages.  Returns 0, or DL_EINPUT
 * with err at the offending line:col; on failure *d is left empty. */
int dl_json_parse(const char *name, const char *buf, size_t len,
                   struct dl_json_doc *d, struct dl_error *err);
/* Reads (plain or gzip, dl_read_file) and parses a file: 0, DL_EINPUT or
 * DL_EIO. */
int dl_json_load(const char *path, struct dl_json_doc *d,
                  struct dl_error *err);
void dl_json_free(struct dl_json_doc *d);
/* The member of object o named key, or NULL (also when o is no object). */
const struct dl_json *dl_json_get(const struct dl_json *o, const char *key);
/* "object", "number", ... for messages. */
const char *dl_json_type_name(enum dl_json_type t);

#endif
