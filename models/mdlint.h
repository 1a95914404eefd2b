/*
 * models/mdlint.h - private helpers shared inside models/ only (the public
 * interface is models/model.h).  Implemented in models/csv.c.
 */
#ifndef DLSIM_MODELS_MDLINT_H
#define DLSIM_MODELS_MDLINT_H

#include "models/model.h"

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#define MCSV_MAX_COLS 64
#define MCSV_MAX_BYTES ((size_t)1 << 30)
#define MCSV_NAME_MAX 128       /* bytes of a normal-form name, with NUL */

/* One open CSV file, read whole and parsed in place (see models/csv.c). */
struct mcsv {
    const char *path;           /* for messages */
    char *buf;                  /* whole file, NUL-terminated */
    size_t len, pos;            /* bytes in buf; start of the next line */
    long line;                  /* line number of the current row */
    char *f[MCSV_MAX_COLS];     /* fields of the current row */
    long fcol[MCSV_MAX_COLS];   /* 1-based byte column of each field */
    int nf;                     /* fields in the current row */
    int ncols;                  /* header width (0 until the header) */
};

int mcsv_open(struct mcsv *c, const char *path, struct dl_error *err);
void mcsv_close(struct mcsv *c);
int mcsv_row(struct mcsv *c, struct dl_error *err);
int mcsv_header(struct mcsv *c, const char *const *names,
                const bool *required, int n, int *idx, struct dl_error *err);

/* Field i of the current row; "" when i < 0 (an absent optional column). */
const char *mcsv_fld(const struct mcsv *c, int i);

/* "file:line:col: column 'name': WHY 'value'" for field i. */
int mcsv_bad_value(const struct mcsv *c, int i, const char *name,
                   const char *why, struct dl_error *err);

/* A number in [lo, hi]; empty -> *out = -1 unless required.  Messages
 * "column 'name': not a number: 'v'" / "out of range: 'v'". */
int mcsv_num(const struct mcsv *c, int i, const char *name, bool required,
             double lo, double hi, double *out, struct dl_error *err);

/* As mcsv_num, and a whole number; "not a whole number: 'v'". */
int mcsv_int(const struct mcsv *c, int i, const char *name, bool required,
             long lo, long hi, long *out, struct dl_error *err);

/* A number in [lo, hi], or (lo, hi] with lo_open; empty -> *out = -1 unless
 * required.  Message "name: 'v' is not a number in [lo, hi]". */
int mcsv_range(const struct mcsv *c, int i, const char *name, bool required,
               double lo, double hi, bool lo_open, double *out,
               struct dl_error *err);

/* Model-name normal form of s[0..len) into out (MCSV_NAME_MAX bytes):
 * lower-case letters and digits only, then the zoo's alias table (e.g.
 * "LM" = lstm).  -1 if empty or too long. */
int mcsv_norm_name(const char *s, size_t len, char *out);

/* ---- YAML scalars for the files the fits write */

/* A double-quoted YAML string; a number (%.9g) or null for NaN. */
void mcsv_yaml_str(FILE *f, const char *s);
void mcsv_yaml_num(FILE *f, double x);

/* ---- reading YAML model files (models/yload.c) */

/* The largest YAML file yl_open reads: model files, workload files and
 * sweep specs are a few KB to a few MB (a workload's tables hold at most
 * 1,001 numbers each); writers of such files refuse to write more. */
#define MDL_YAML_MAX_BYTES ((size_t)64 << 20)

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

#endif
