/*
 * models/zoo.c - the model zoo: loads zoo.csv, gpus.csv and throughput.csv
 * from a directory and answers look-ups by name (see model.h; the data and
 * its citations are documented in models/ZOO.md).
 *
 * The three files are small (tens to a few thousand rows), so each is read
 * whole into memory and parsed in place by one strict CSV reader:
 *
 *   - lines starting with '#' are comments, blank lines are skipped, a
 *     trailing '\r' is dropped;
 *   - the first other line is the header; columns are found by name, every
 *     required column must be there, a name may not repeat, and columns
 *     this file does not know are ignored (SPEC 7);
 *   - every row has exactly as many fields as the header; fields are plain
 *     text split at ',' (no quoting: a '"' is an error, so a quoted comma
 *     can never shift the columns silently);
 *   - a bad value is reported as file:line:col naming the column and value.
 *
 * Names are compared through one normal form (lower-case letters and
 * digits only, then a short alias table), so "ResNet-50", "resnet_50" and
 * "RESNET50" are one model.  Every distinct normal form of zoo.csv is a
 * "family" (a model at any batch size); throughput rows refer to families
 * and GPU types by index and are sorted, so a look-up costs a scan of the
 * (few) names and a binary search of the rows.
 *
 * Ownership: every string lives in the zoo's arena; the row arrays are
 * malloc'd; mdl_zoo_free releases both.  Invariants after a successful
 * load: no two zoo rows share (family, batch); no two GPU types share a
 * name; no two throughput rows share a key; every throughput row names a
 * zoo family and a GPU type of gpus.csv, and its throughput is > 0.
 */
#include "models/model.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define NAME_MAX_LEN 128
#define MAX_COLS 64

/* ------------------------------------------------------------ names */

/* Spellings used by public traces for models the zoo knows under another
 * name; both sides in normal form. */
static const struct {
    const char *from, *to;
} aliases[] = {
    { "lm", "lstm" },                   /* Gavel "LM (batch size N)" */
    { "imagenet", "resnet50" },         /* Pollux / ElasticFlow T4 */
    { "cifar10", "resnet18" },          /* Pollux / ElasticFlow T4 */
    { "inceptionv3", "inception3" },
    { "neumf", "ncf" },
};

/* Normal form of s[0..len) into out (NAME_MAX_LEN bytes): lower-case
 * letters and digits only, aliases applied.  -1 if too long or empty. */
static int norm_name(const char *s, size_t len, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch))
            continue;
        if (k + 1 >= NAME_MAX_LEN)
            return -1;
        out[k++] = (char)tolower(ch);
    }
    out[k] = '\0';
    if (!k)
        return -1;
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (!strcmp(out, aliases[a].from)) {
            strcpy(out, aliases[a].to);
            break;
        }
    return 0;
}

/* ------------------------------------------------------------ CSV reader */

struct csv {
    const char *path;           /* for messages */
    char *buf;                  /* whole file, NUL-terminated, parsed in place */
    char *next;                 /* start of the next unread line */
    long lineno;                /* line number of the current row */
    char *field[MAX_COLS];
    long fcol[MAX_COLS];        /* 1-based column of each field */
    int nfield;
    int ncols;                  /* header width */
};

static int csv_open(struct csv *c, const char *path, struct dl_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    FILE *f = fopen(path, "rb");
    if (!f)
        return dl_fail_io(err, path, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *b = xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap)
            b = xrealloc(b, cap *= 2);
        size_t got = fread(b + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return dl_fail_io(err, path, "read error");
    }
    b[len] = '\0';
    if (memchr(b, '\0', len)) {
        free(b);
        return dl_fail(err, path, 0, 0, "file contains a NUL byte");
    }
    c->buf = b;
    c->next = b;
    return 0;
}

static void csv_close(struct csv *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* Next non-comment, non-blank line split into fields.  Returns 1 with a
 * row, 0 at the end, or DL_EINPUT. */
static int csv_row(struct csv *c, struct dl_error *err)
{
    while (*c->next) {
        char *line = c->next;
        char *nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
            c->next = nl + 1;
        } else {
            c->next = line + strlen(line);
        }
        c->lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (!len || line[0] == '#')
            continue;
        char *q = strchr(line, '"');
        if (q)
            return dl_fail(err, c->path, c->lineno, (long)(q - line) + 1,
                           "quoted fields are not supported");
        c->nfield = 0;
        char *p = line;
        for (;;) {
            if (c->nfield == MAX_COLS)
                return dl_fail(err, c->path, c->lineno, (long)(p - line) + 1,
                               "more than %d fields", MAX_COLS);
            c->fcol[c->nfield] = (long)(p - line) + 1;
            c->field[c->nfield++] = p;
            char *comma = strchr(p, ',');
            if (!comma)
                break;
            *comma = '\0';
            p = comma + 1;
        }
        if (c->ncols && c->nfield != c->ncols)
            return dl_fail(err, c->path, c->lineno, 0,
                           "%d fields where the header has %d",
                           c->nfield, c->ncols);
        return 1;
    }
    return 0;
}

/* Reads the header and maps each wanted name to its field index (idx[i],
 * -1 when absent and optional).  required[i] false = may be absent. */
static int csv_header(struct csv *c, const char *const *names,
                      const bool *required, int n, int *idx,
                      struct dl_error *err)
{
    int rc = csv_row(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return dl_fail(err, c->path, c->lineno ? c->lineno : 1, 0,
                       "no header line");
    for (int f = 0; f < c->nfield; f++)
        for (int g = 0; g < f; g++)
            if (!strcmp(c->field[f], c->field[g]))
                return dl_fail(err, c->path, c->lineno, c->fcol[f],
                               "column '%s' appears twice", c->field[f]);
    for (int i = 0; i < n; i++) {
        idx[i] = -1;
        for (int f = 0; f < c->nfield; f++)
            if (!strcmp(c->field[f], names[i]))
                idx[i] = f;
        if (idx[i] < 0 && required[i])
            return dl_fail(err, c->path, c->lineno, 0,
                           "missing column '%s'", names[i]);
    }
    c->ncols = c->nfield;
    return 0;
}

/* Field values.  Each reports "file:line:col: column 'x': ..." on error. */
static const char *fld(const struct csv *c, int i)
{
    return i < 0 ? "" : c->field[i];
}

static int bad_value(const struct csv *c, int i, const char *name,
                     const char *why, struct dl_error *err)
{
    return dl_fail(err, c->path, c->lineno, c->fcol[i],
                   "column '%s': %s '%s'", name, why, c->field[i]);
}

/* A number >= lo (and <= hi); empty -> *out = -1 unless required. */
static int get_num(const struct csv *c, int i, const char *name, bool required,
                   double lo, double hi, double *out, struct dl_error *err)
{
    const char *s = fld(c, i);
    if (!*s) {
        if (required)
            return dl_fail(err, c->path, c->lineno, i < 0 ? 0 : c->fcol[i],
                           "column '%s': empty", name);
        *out = -1;
        return 0;
    }
    double v;
    if (sim_parse_double(s, &v))
        return bad_value(c, i, name, "not a number:", err);
    if (v < lo || v > hi)
        return bad_value(c, i, name, "out of range:", err);
    *out = v;
    return 0;
}

/* A whole number in [lo, hi]; empty -> *out = -1 unless required. */
static int get_int(const struct csv *c, int i, const char *name, bool required,
                   long lo, long hi, long *out, struct dl_error *err)
{
    double v = -1;
    *out = -1;
    int rc = get_num(c, i, name, required, (double)lo, (double)hi, &v, err);
    if (rc)
        return rc;
    if (v != floor(v))
        return bad_value(c, i, name, "not a whole number:", err);
    *out = (long)v;
    return 0;
}

static int get_name(const struct csv *c, int i, const char *name, char *norm,
                    struct dl_error *err)
{
    const char *s = fld(c, i);
    if (!*s)
        return dl_fail(err, c->path, c->lineno, c->fcol[i],
                       "column '%s': empty", name);
    if (norm_name(s, strlen(s), norm))
        return bad_value(c, i, name, "not a usable name:", err);
    return 0;
}

/* ------------------------------------------------------------ loading */

struct loader {
    struct mdl_zoo *z;
    char **fam_norm;            /* [nfamilies] normal forms (arena) */
    size_t fam_cap, model_cap, gpu_cap, thr_cap;
    char path[4096];
};

static int set_path(struct loader *L, const char *file, struct dl_error *err)
{
    const char *dir = L->z->dir;
    int n = snprintf(L->path, sizeof L->path, "%s%s%s", dir,
                     *dir && dir[strlen(dir) - 1] != '/' ? "/" : "", file);
    if (n < 0 || (size_t)n >= sizeof L->path)
        return dl_fail(err, file, 0, 0, "model directory path too long");
    return 0;
}

static uint32_t family_find(char *const *norms, uint32_t n, const char *norm)
{
    for (uint32_t f = 0; f < n; f++)
        if (!strcmp(norms[f], norm))
            return f;
    return SIM_NONE;
}

enum { Z_MODEL, Z_BATCH, Z_TASK, Z_MEM, Z_FLOPS, Z_PARAMS, Z_CONV, Z_LIN,
       Z_ACT, Z_OTHER, Z_UTIL, Z_SOURCE, Z_N };
static const char *const zoo_cols[Z_N] = {
    "model", "batch_size", "task", "mem_gb", "flops", "params",
    "conv_layers", "linear_layers", "activation_layers", "other_layers",
    "util_a100", "source",
};

static int load_models(struct loader *L, struct dl_error *err)
{
    struct mdl_zoo *z = L->z;
    struct csv c;
    bool req[Z_N];
    int idx[Z_N];
    int rc;
    for (int i = 0; i < Z_N; i++)
        req[i] = true;
    if ((rc = set_path(L, "zoo.csv", err)) || (rc = csv_open(&c, L->path, err)))
        return rc;
    if ((rc = csv_header(&c, zoo_cols, req, Z_N, idx, err)))
        goto out;
    while ((rc = csv_row(&c, err)) == 1) {
        char norm[NAME_MAX_LEN];
        long batch, layers[4];
        double mem, flops, params, util;
        if ((rc = get_name(&c, idx[Z_MODEL], "model", norm, err)) ||
            (rc = get_int(&c, idx[Z_BATCH], "batch_size", true, 1, UINT32_MAX - 1,
                          &batch, err)) ||
            (rc = get_num(&c, idx[Z_MEM], "mem_gb", false, 0, 1e6, &mem, err)) ||
            (rc = get_num(&c, idx[Z_FLOPS], "flops", false, 0, 1e30, &flops, err)) ||
            (rc = get_num(&c, idx[Z_PARAMS], "params", false, 0, 1e30, &params, err)) ||
            (rc = get_num(&c, idx[Z_UTIL], "util_a100", false, 0, 1, &util, err)))
            goto out;
        for (int k = 0; k < 4; k++)
            if ((rc = get_int(&c, idx[Z_CONV + k], zoo_cols[Z_CONV + k], false,
                              0, INT32_MAX, &layers[k], err)))
                goto out;
        uint32_t fam = family_find(L->fam_norm, z->nfamilies, norm);
        if (fam == SIM_NONE) {
            xgrow(&L->fam_norm, &L->fam_cap, z->nfamilies + 1, sizeof(char *));
            fam = z->nfamilies++;
            L->fam_norm[fam] = arena_strndup(z->arena, norm, strlen(norm));
        }
        for (uint32_t m = 0; m < z->nmodels; m++)
            if (z->models[m].family == fam && z->models[m].batch_size == batch) {
                rc = dl_fail(err, c.path, c.lineno, c.fcol[idx[Z_MODEL]],
                             "model '%s' at batch size %ld already on line %ld",
                             fld(&c, idx[Z_MODEL]), batch, z->models[m].line);
                goto out;
            }
        xgrow(&z->models, &L->model_cap, z->nmodels + 1, sizeof *z->models);
        struct mdl_model *md = &z->models[z->nmodels++];
        const char *name = fld(&c, idx[Z_MODEL]);
        md->name = arena_strndup(z->arena, name, strlen(name));
        md->family = fam;
        md->batch_size = (uint32_t)batch;
        md->task = arena_strndup(z->arena, fld(&c, idx[Z_TASK]),
                                 strlen(fld(&c, idx[Z_TASK])));
        md->mem_gb = mem;
        md->flops = flops;
        md->params = params;
        md->conv_layers = (int32_t)layers[0];
        md->linear_layers = (int32_t)layers[1];
        md->activation_layers = (int32_t)layers[2];
        md->other_layers = (int32_t)layers[3];
        md->util_a100 = util;
        md->source = arena_strndup(z->arena, fld(&c, idx[Z_SOURCE]),
                                   strlen(fld(&c, idx[Z_SOURCE])));
        md->line = c.lineno;
    }
    if (rc == 0 && z->nmodels == 0)
        rc = dl_fail(err, c.path, c.lineno, 0, "no models");
out:
    csv_close(&c);
    return rc;
}

enum { G_NAME, G_MEM, G_FP32, G_FP16, G_BW, G_SOURCE, G_N };
static const char *const gpu_cols[G_N] = {
    "name", "memory_gb", "fp32_tflops", "fp16_tflops", "mem_bw_gbs", "source",
};

static int load_gpus(struct loader *L, struct dl_error *err)
{
    struct mdl_zoo *z = L->z;
    struct csv c;
    bool req[G_N] = { true, true, true, true, true, true };
    int idx[G_N];
    int rc;
    if ((rc = set_path(L, "gpus.csv", err)) || (rc = csv_open(&c, L->path, err)))
        return rc;
    if ((rc = csv_header(&c, gpu_cols, req, G_N, idx, err)))
        goto out;
    while ((rc = csv_row(&c, err)) == 1) {
        double v[4];
        const char *name = fld(&c, idx[G_NAME]);
        if (!*name) {
            rc = dl_fail(err, c.path, c.lineno, c.fcol[idx[G_NAME]],
                         "column 'name': empty");
            goto out;
        }
        for (int k = 0; k < 4; k++)
            if ((rc = get_num(&c, idx[G_MEM + k], gpu_cols[G_MEM + k], true,
                              1e-9, 1e9, &v[k], err)))
                goto out;
        for (uint32_t g = 0; g < z->ngpus; g++)
            if (!strcasecmp(z->gpus[g].name, name)) {
                rc = dl_fail(err, c.path, c.lineno, c.fcol[idx[G_NAME]],
                             "GPU type '%s' listed twice", name);
                goto out;
            }
        xgrow(&z->gpus, &L->gpu_cap, z->ngpus + 1, sizeof *z->gpus);
        struct mdl_gpu *g = &z->gpus[z->ngpus++];
        g->name = arena_strndup(z->arena, name, strlen(name));
        g->memory_gb = v[0];
        g->fp32_tflops = v[1];
        g->fp16_tflops = v[2];
        g->mem_bw_gbs = v[3];
        g->source = arena_strndup(z->arena, fld(&c, idx[G_SOURCE]),
                                  strlen(fld(&c, idx[G_SOURCE])));
    }
    if (rc == 0 && z->ngpus == 0)
        rc = dl_fail(err, c.path, c.lineno, 0, "no GPU types");
out:
    csv_close(&c);
    return rc;
}

static uint32_t gpu_find(const struct mdl_zoo *z, const char *name)
{
    for (uint32_t g = 0; g < z->ngpus; g++)
        if (!strcasecmp(z->gpus[g].name, name))
            return g;
    return SIM_NONE;
}

static int thr_cmp(const struct mdl_thr *a, const struct mdl_thr *b)
{
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
    CMP(family);
    CMP(batch_size);
    CMP(gpu);
    CMP(num_gpus);
    CMP(spread);
#undef CMP
    return 0;
}

static int thr_qcmp(const void *a, const void *b)
{
    return thr_cmp(a, b);
}

enum { T_GPU, T_MODEL, T_BATCH, T_NGPUS, T_PLACE, T_THR, T_N };
static const char *const thr_cols[T_N] = {
    "gpu_type", "model", "batch_size", "num_gpus", "placement", "throughput",
};

static int load_throughput(struct loader *L, struct dl_error *err)
{
    struct mdl_zoo *z = L->z;
    struct csv c;
    bool req[T_N] = { true, true, true, true, true, true };
    int idx[T_N];
    int rc;
    if ((rc = set_path(L, "throughput.csv", err)) ||
        (rc = csv_open(&c, L->path, err)))
        return rc;
    if ((rc = csv_header(&c, thr_cols, req, T_N, idx, err)))
        goto out;
    while ((rc = csv_row(&c, err)) == 1) {
        char norm[NAME_MAX_LEN];
        long batch, ngpus;
        double thr;
        const char *gname = fld(&c, idx[T_GPU]);
        const char *place = fld(&c, idx[T_PLACE]);
        uint32_t gpu = gpu_find(z, gname);
        if (gpu == SIM_NONE) {
            rc = bad_value(&c, idx[T_GPU], "gpu_type", "not in gpus.csv:", err);
            goto out;
        }
        if ((rc = get_name(&c, idx[T_MODEL], "model", norm, err)))
            goto out;
        uint32_t fam = family_find(L->fam_norm, z->nfamilies, norm);
        if (fam == SIM_NONE) {
            rc = bad_value(&c, idx[T_MODEL], "model", "not in zoo.csv:", err);
            goto out;
        }
        if ((rc = get_int(&c, idx[T_BATCH], "batch_size", true, 1,
                          UINT32_MAX - 1, &batch, err)) ||
            (rc = get_int(&c, idx[T_NGPUS], "num_gpus", true, 1, 1 << 20,
                          &ngpus, err)) ||
            (rc = get_num(&c, idx[T_THR], "throughput", true, 0, 1e12, &thr,
                          err)))
            goto out;
        if (!(thr > 0)) {
            rc = bad_value(&c, idx[T_THR], "throughput", "must be > 0:", err);
            goto out;
        }
        bool spread;
        if (!strcmp(place, "consolidated"))
            spread = false;
        else if (!strcmp(place, "spread"))
            spread = true;
        else {
            rc = bad_value(&c, idx[T_PLACE], "placement",
                           "not 'consolidated' or 'spread':", err);
            goto out;
        }
        if (spread && ngpus == 1) {
            rc = bad_value(&c, idx[T_PLACE], "placement",
                           "one GPU cannot be", err);
            goto out;
        }
        xgrow(&z->thr, &L->thr_cap, z->nthr + 1, sizeof *z->thr);
        z->thr[z->nthr++] = (struct mdl_thr){
            .family = fam, .gpu = gpu, .batch_size = (uint32_t)batch,
            .num_gpus = (uint32_t)ngpus, .spread = spread,
            .throughput = thr, .line = c.lineno,
        };
    }
    if (rc)
        goto out;
    qsort(z->thr, z->nthr, sizeof *z->thr, thr_qcmp);
    for (uint32_t i = 1; i < z->nthr; i++)
        if (!thr_cmp(&z->thr[i - 1], &z->thr[i])) {
            const struct mdl_thr *a = &z->thr[i - 1], *b = &z->thr[i];
            const struct mdl_thr *later = a->line > b->line ? a : b;
            rc = dl_fail(err, c.path, later->line, 0,
                         "same gpu_type, model, batch_size, num_gpus and "
                         "placement as line %ld",
                         a->line > b->line ? b->line : a->line);
            goto out;
        }
out:
    csv_close(&c);
    return rc;
}

int mdl_zoo_load(const char *dir, struct mdl_zoo *z, struct dl_error *err)
{
    struct loader L = { .z = z };
    memset(z, 0, sizeof *z);
    z->arena = arena_new();
    z->dir = arena_strndup(z->arena, dir, strlen(dir));
    int rc = load_models(&L, err);
    if (!rc)
        rc = load_gpus(&L, err);
    if (!rc)
        rc = load_throughput(&L, err);
    if (!rc) {
        z->families = xcalloc(z->nfamilies, sizeof *z->families);
        for (uint32_t m = z->nmodels; m-- > 0;)
            z->families[z->models[m].family] = z->models[m].name;
    }
    z->family_keys = (const char **)L.fam_norm;   /* the zoo owns it now */
    if (rc)
        mdl_zoo_free(z);
    return rc;
}

void mdl_zoo_free(struct mdl_zoo *z)
{
    free(z->models);
    free(z->families);
    free(z->family_keys);
    free(z->gpus);
    free(z->thr);
    if (z->arena)
        arena_free(z->arena);
    memset(z, 0, sizeof *z);
}

/* ------------------------------------------------------------ look-ups */

static bool readable(const char *dir)
{
    char p[4096];
    int n = snprintf(p, sizeof p, "%s/zoo.csv", dir);
    return n > 0 && (size_t)n < sizeof p && access(p, R_OK) == 0;
}

int mdl_zoo_default_dir(char *buf, size_t n)
{
    const char *env = getenv("DLSIM_MODELS");
    if (env && *env) {
        if (strlen(env) >= n)
            return -1;
        strcpy(buf, env);
        return 0;
    }
    char cand[4096];
    if (readable("models") && n > strlen("models")) {
        strcpy(buf, "models");
        return 0;
    }
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    static const char *const rel[] = { "/../models", "/models",
                                       "/../share/dlsim/models" };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        int k = snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
        if (k > 0 && (size_t)k < sizeof cand && (size_t)k < n &&
            readable(cand)) {
            strcpy(buf, cand);
            return 0;
        }
    }
    return -1;
}

/* Splits "name[@batch]" into a family and a batch (0 = none given).
 * SIM_NONE when the name is unknown or the batch is malformed. */
static uint32_t parse_ref(const struct mdl_zoo *z, const char *ref,
                          uint32_t *batch)
{
    const char *at = strchr(ref, '@');
    size_t len = at ? (size_t)(at - ref) : strlen(ref);
    char norm[NAME_MAX_LEN];
    *batch = 0;
    if (at) {
        long b;
        if (sim_parse_long(at + 1, &b) || b < 1 || b > (long)UINT32_MAX - 1)
            return SIM_NONE;
        *batch = (uint32_t)b;
    }
    if (norm_name(ref, len, norm))
        return SIM_NONE;
    for (uint32_t f = 0; f < z->nfamilies; f++)
        if (!strcmp(norm, z->family_keys[f]))
            return f;
    return SIM_NONE;
}

const struct mdl_model *mdl_zoo_find(const struct mdl_zoo *z, const char *model)
{
    uint32_t batch;
    uint32_t fam = parse_ref(z, model, &batch);
    if (fam == SIM_NONE)
        return NULL;
    for (uint32_t m = 0; m < z->nmodels; m++)
        if (z->models[m].family == fam &&
            (!batch || z->models[m].batch_size == batch))
            return &z->models[m];
    return NULL;
}

const struct mdl_gpu *mdl_zoo_gpu(const struct mdl_zoo *z, const char *name)
{
    uint32_t g = gpu_find(z, name);
    return g == SIM_NONE ? NULL : &z->gpus[g];
}

double mdl_zoo_throughput(const struct mdl_zoo *z, const char *model,
                          uint32_t batch, const char *gpu_type,
                          uint32_t num_gpus, bool spread)
{
    uint32_t given;
    uint32_t fam = parse_ref(z, model, &given);
    uint32_t gpu = gpu_find(z, gpu_type);
    if (fam == SIM_NONE || gpu == SIM_NONE || (given && given != batch) ||
        num_gpus == 0)
        return -1;
    struct mdl_thr key = { .family = fam, .gpu = gpu, .batch_size = batch,
                           .num_gpus = num_gpus,
                           .spread = num_gpus > 1 && spread };
    const struct mdl_thr *hit = bsearch(&key, z->thr, z->nthr, sizeof key,
                                        thr_qcmp);
    return hit ? hit->throughput : -1;
}
