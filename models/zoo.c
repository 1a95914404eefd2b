/*
 * models/zoo.c - the model zoo: loads zoo.csv, gpus.csv, throughput.csv and
 * util.csv from a directory and answers look-ups by name (see perf.h; the
 * data and its citations are documented in models/ZOO.md).
 *
 * The four files are read by the strict CSV reader of sim/base/csv.c
 * (comments, header by column name, no quoting, file:line:col errors;
 * rules listed there), and names are compared through its normal form
 * (dl_csv_norm_name: "ResNet-50", "resnet_50" and "RESNET50" are one
 * model).  Every distinct normal form of zoo.csv is a
 * "family" (a model at any batch size); throughput rows refer to families
 * and GPU types by index and are sorted, so a look-up costs a scan of the
 * (few) names and a binary search of the rows.
 *
 * Ownership: every string lives in the zoo's arena; the row arrays are
 * malloc'd; mdl_zoo_free releases both.  Invariants after a successful
 * load: no two zoo rows share (family, batch); no two GPU types share a
 * name; no two throughput rows share a key; every throughput row names a
 * zoo family and a GPU type of gpus.csv, and its throughput is > 0; every
 * utilization row names a zoo row (model and batch) and a GPU type, no pair
 * twice, util in (0, 1], sorted by (row, GPU type).
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <limits.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ------------------------------------------------------------ names */

static int get_name(const struct dl_csv *c, int i, const char *name, char *norm,
                    struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    if (!*s)
        return dl_fail(err, c->path, c->line, c->fcol[i],
                       "column '%s': empty", name);
    if (dl_csv_norm_name(s, strlen(s), norm))
        return dl_csv_bad_value(c, i, name, "not a usable name:", err);
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
       Z_ACT, Z_OTHER, Z_SOURCE, Z_OLD_UTIL, Z_N };
static const char *const zoo_cols[Z_N] = {
    "model", "batch_size", "task", "mem_gb", "flops", "params",
    "conv_layers", "linear_layers", "activation_layers", "other_layers",
    "source", "util_a100",
};

static int load_models(struct loader *L, struct dl_error *err)
{
    struct mdl_zoo *z = L->z;
    struct dl_csv c;
    bool req[Z_N];
    int idx[Z_N];
    int rc;
    for (int i = 0; i < Z_N; i++)
        req[i] = i != Z_OLD_UTIL;
    if ((rc = set_path(L, "zoo.csv", err)) ||
        (rc = dl_csv_open(&c, L->path, &dl_csv_model_files, err)))
        return rc;
    if ((rc = dl_csv_header(&c, zoo_cols, req, Z_N, idx, err)))
        goto out;
    if (idx[Z_OLD_UTIL] >= 0) {    /* an older zoo.csv: never drop it */
        rc = dl_fail(err, c.path, c.line, c.fcol[idx[Z_OLD_UTIL]],
                     "column 'util_a100': measured utilizations are in "
                     "util.csv now (gpu_type,model,batch_size,util,source)");
        goto out;
    }
    while ((rc = dl_csv_row(&c, err)) == 1) {
        char norm[DL_CSV_NAME_MAX];
        long batch, layers[4];
        double mem, flops, params;
        if ((rc = get_name(&c, idx[Z_MODEL], "model", norm, err)) ||
            (rc = dl_csv_int(&c, idx[Z_BATCH], "batch_size", true, 1, UINT32_MAX - 1,
                          &batch, err)) ||
            (rc = dl_csv_num(&c, idx[Z_MEM], "mem_gb", false, 0, 1e6, &mem, err)) ||
            (rc = dl_csv_num(&c, idx[Z_FLOPS], "flops", false, 0, 1e30, &flops, err)) ||
            (rc = dl_csv_num(&c, idx[Z_PARAMS], "params", false, 0, 1e30, &params, err)))
            goto out;
        for (int k = 0; k < 4; k++)
            if ((rc = dl_csv_int(&c, idx[Z_CONV + k], zoo_cols[Z_CONV + k], false,
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
                rc = dl_fail(err, c.path, c.line, c.fcol[idx[Z_MODEL]],
                             "model '%s' at batch size %ld already on line %ld",
                             dl_csv_fld(&c, idx[Z_MODEL]), batch, z->models[m].line);
                goto out;
            }
        xgrow(&z->models, &L->model_cap, z->nmodels + 1, sizeof *z->models);
        struct mdl_model *md = &z->models[z->nmodels++];
        const char *name = dl_csv_fld(&c, idx[Z_MODEL]);
        md->name = arena_strndup(z->arena, name, strlen(name));
        md->family = fam;
        md->batch_size = (uint32_t)batch;
        md->task = arena_strndup(z->arena, dl_csv_fld(&c, idx[Z_TASK]),
                                 strlen(dl_csv_fld(&c, idx[Z_TASK])));
        md->mem_gb = mem;
        md->flops = flops;
        md->params = params;
        md->conv_layers = (int32_t)layers[0];
        md->linear_layers = (int32_t)layers[1];
        md->activation_layers = (int32_t)layers[2];
        md->other_layers = (int32_t)layers[3];
        md->source = arena_strndup(z->arena, dl_csv_fld(&c, idx[Z_SOURCE]),
                                   strlen(dl_csv_fld(&c, idx[Z_SOURCE])));
        md->line = c.line;
    }
    if (rc == 0 && z->nmodels == 0)
        rc = dl_fail(err, c.path, c.line, 0, "no models");
out:
    dl_csv_close(&c);
    return rc;
}

enum { G_NAME, G_MEM, G_FP32, G_FP16, G_BW, G_SOURCE, G_N };
static const char *const gpu_cols[G_N] = {
    "name", "memory_gb", "fp32_tflops", "fp16_tflops", "mem_bw_gbs", "source",
};

static int load_gpus(struct loader *L, struct dl_error *err)
{
    struct mdl_zoo *z = L->z;
    struct dl_csv c;
    bool req[G_N] = { true, true, true, true, true, true };
    int idx[G_N];
    int rc;
    if ((rc = set_path(L, "gpus.csv", err)) ||
        (rc = dl_csv_open(&c, L->path, &dl_csv_model_files, err)))
        return rc;
    if ((rc = dl_csv_header(&c, gpu_cols, req, G_N, idx, err)))
        goto out;
    while ((rc = dl_csv_row(&c, err)) == 1) {
        double v[4];
        const char *name = dl_csv_fld(&c, idx[G_NAME]);
        if (!*name) {
            rc = dl_fail(err, c.path, c.line, c.fcol[idx[G_NAME]],
                         "column 'name': empty");
            goto out;
        }
        for (int k = 0; k < 4; k++)
            if ((rc = dl_csv_num(&c, idx[G_MEM + k], gpu_cols[G_MEM + k], true,
                              1e-9, 1e9, &v[k], err)))
                goto out;
        for (uint32_t g = 0; g < z->ngpus; g++)
            if (!strcasecmp(z->gpus[g].name, name)) {
                rc = dl_fail(err, c.path, c.line, c.fcol[idx[G_NAME]],
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
        g->source = arena_strndup(z->arena, dl_csv_fld(&c, idx[G_SOURCE]),
                                  strlen(dl_csv_fld(&c, idx[G_SOURCE])));
    }
    if (rc == 0 && z->ngpus == 0)
        rc = dl_fail(err, c.path, c.line, 0, "no GPU types");
out:
    dl_csv_close(&c);
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
    struct dl_csv c;
    bool req[T_N] = { true, true, true, true, true, true };
    int idx[T_N];
    int rc;
    if ((rc = set_path(L, "throughput.csv", err)) ||
        (rc = dl_csv_open(&c, L->path, &dl_csv_model_files, err)))
        return rc;
    if ((rc = dl_csv_header(&c, thr_cols, req, T_N, idx, err)))
        goto out;
    while ((rc = dl_csv_row(&c, err)) == 1) {
        char norm[DL_CSV_NAME_MAX];
        long batch, ngpus;
        double thr;
        const char *gname = dl_csv_fld(&c, idx[T_GPU]);
        const char *place = dl_csv_fld(&c, idx[T_PLACE]);
        uint32_t gpu = gpu_find(z, gname);
        if (gpu == SIM_NONE) {
            rc = dl_csv_bad_value(&c, idx[T_GPU], "gpu_type", "not in gpus.csv:", err);
            goto out;
        }
        if ((rc = get_name(&c, idx[T_MODEL], "model", norm, err)))
            goto out;
        uint32_t fam = family_find(L->fam_norm, z->nfamilies, norm);
        if (fam == SIM_NONE) {
            rc = dl_csv_bad_value(&c, idx[T_MODEL], "model", "not in zoo.csv:", err);
            goto out;
        }
        if ((rc = dl_csv_int(&c, idx[T_BATCH], "batch_size", true, 1,
                          UINT32_MAX - 1, &batch, err)) ||
            (rc = dl_csv_int(&c, idx[T_NGPUS], "num_gpus", true, 1, 1 << 20,
                          &ngpus, err)) ||
            (rc = dl_csv_num(&c, idx[T_THR], "throughput", true, 0, 1e12, &thr,
                          err)))
            goto out;
        if (!(thr > 0)) {
            rc = dl_csv_bad_value(&c, idx[T_THR], "throughput", "must be > 0:", err);
            goto out;
        }
        bool spread;
        if (!strcmp(place, "consolidated"))
            spread = false;
        else if (!strcmp(place, "spread"))
            spread = true;
        else {
            rc = dl_csv_bad_value(&c, idx[T_PLACE], "placement",
                           "not 'consolidated' or 'spread':", err);
            goto out;
        }
        if (spread && ngpus == 1) {
            rc = dl_csv_bad_value(&c, idx[T_PLACE], "placement",
                           "one GPU cannot be", err);
            goto out;
        }
        xgrow(&z->thr, &L->thr_cap, z->nthr + 1, sizeof *z->thr);
        z->thr[z->nthr++] = (struct mdl_thr){
            .family = fam, .gpu = gpu, .batch_size = (uint32_t)batch,
            .num_gpus = (uint32_t)ngpus, .spread = spread,
            .throughput = thr, .line = c.line,
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
    dl_csv_close(&c);
    return rc;
}

static int util_qcmp(const void *a, const void *b)
{
    const struct mdl_util_meas *x = a, *y = b;
    if (x->model != y->model)
        return x->model < y->model ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

enum { U_GPU, U_MODEL, U_BATCH, U_UTIL, U_SOURCE, U_N };
static const char *const util_cols[U_N] = {
    "gpu_type", "model", "batch_size", "util", "source",
};

/* util.csv: measured solo utilization of zoo rows per GPU type.  Each row
 * names a zoo row (model and batch) and a GPU type of gpus.csv, at most
 * once; util in (0, 1]. */
static int load_util(struct loader *L, struct dl_error *err)
{
    struct mdl_zoo *z = L->z;
    struct dl_csv c;
    bool req[U_N] = { true, true, true, true, true };
    int idx[U_N];
    size_t cap = 0;
    int rc;
    if ((rc = set_path(L, "util.csv", err)) || (rc = dl_csv_open(&c, L->path, &dl_csv_model_files, err)))
        return rc;
    if ((rc = dl_csv_header(&c, util_cols, req, U_N, idx, err)))
        goto out;
    while ((rc = dl_csv_row(&c, err)) == 1) {
        char norm[DL_CSV_NAME_MAX];
        long batch;
        double u;
        uint32_t gpu = gpu_find(z, dl_csv_fld(&c, idx[U_GPU]));
        if (gpu == SIM_NONE) {
            rc = dl_csv_bad_value(&c, idx[U_GPU], "gpu_type", "not in gpus.csv:", err);
            goto out;
        }
        if ((rc = get_name(&c, idx[U_MODEL], "model", norm, err)) ||
            (rc = dl_csv_int(&c, idx[U_BATCH], "batch_size", true, 1,
                          UINT32_MAX - 1, &batch, err)) ||
            (rc = dl_csv_range(&c, idx[U_UTIL], "util", true, 0, 1, true, &u, err)))
            goto out;
        uint32_t fam = family_find(L->fam_norm, z->nfamilies, norm), row = SIM_NONE;
        for (uint32_t m = 0; fam != SIM_NONE && m < z->nmodels; m++)
            if (z->models[m].family == fam && z->models[m].batch_size == batch)
                row = m;
        if (row == SIM_NONE) {
            rc = dl_fail(err, c.path, c.line, c.fcol[idx[U_MODEL]],
                         "no zoo.csv row for model '%s' at batch size %ld",
                         dl_csv_fld(&c, idx[U_MODEL]), batch);
            goto out;
        }
        for (uint32_t i = 0; i < z->nutils; i++)
            if (z->utils[i].model == row && z->utils[i].gpu == gpu) {
                rc = dl_fail(err, c.path, c.line, c.fcol[idx[U_MODEL]],
                             "model '%s' at batch size %ld on %s already on "
                             "line %ld", dl_csv_fld(&c, idx[U_MODEL]), batch,
                             z->gpus[gpu].name, z->utils[i].line);
                goto out;
            }
        xgrow(&z->utils, &cap, z->nutils + 1, sizeof *z->utils);
        z->utils[z->nutils++] = (struct mdl_util_meas){
            .model = row, .gpu = gpu, .util = u, .line = c.line,
        };
    }
    if (!rc)
        qsort(z->utils, z->nutils, sizeof *z->utils, util_qcmp);
out:
    dl_csv_close(&c);
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
    if (!rc)
        rc = load_util(&L, err);
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
    free(z->utils);
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
    char norm[DL_CSV_NAME_MAX];
    *batch = 0;
    if (at) {
        long b;
        if (sim_parse_long(at + 1, &b) || b < 1 || b > (long)UINT32_MAX - 1)
            return SIM_NONE;
        *batch = (uint32_t)b;
    }
    if (dl_csv_norm_name(ref, len, norm))
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

/* Spellings of GPU types in public traces and machine lists.  Sources:
 * Alibaba cluster-trace-gpu-v2020 (PAI: V100, V100M32, P100, T4, MISC),
 * cluster-trace-gpu-v2023 (openb: V100M16, V100M32, P100, T4, A10),
 * cluster-trace-v2026-spot-gpu (A100-SXM4-80GB, A800-SXM4-80GB, H800,
 * A10), Gavel's cluster specs (k80, p100, v100).  Undisclosed types
 * (openb G1..G3, spot GPU-series-1/2) have no alias on purpose. */
static const char *const gpu_alias[][2] = {
    {"V100M16", "V100"},
    {"V100M32", "V100-32GB"},
    {"V100-SXM2-32GB", "V100-32GB"},
    {"V100-SXM2-16GB", "V100"},
    {"A100-SXM4-80GB", "A100-80GB"},
    {"A100-SXM4-40GB", "A100"},
    {"A800-SXM4-80GB", "A800-80GB"},
    {"H100-SXM5-80GB", "H100"},
    {"MISC", "K80"},
};

const char *mdl_gpu_alias(const char *name)
{
    for (size_t i = 0; i < sizeof gpu_alias / sizeof gpu_alias[0]; i++)
        if (!strcasecmp(name, gpu_alias[i][0]))
            return gpu_alias[i][1];
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

const struct mdl_util_meas *mdl_zoo_utils(const struct mdl_zoo *z, uint32_t row,
                                          uint32_t *n)
{
    uint32_t lo = 0, hi = z->nutils;
    while (lo < hi) {               /* first entry of row */
        uint32_t mid = lo + (hi - lo) / 2;
        if (z->utils[mid].model < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t k = lo;
    while (k < z->nutils && z->utils[k].model == row)
        k++;
    *n = k - lo;
    return z->utils + lo;
}

double mdl_zoo_util(const struct mdl_zoo *z, uint32_t row, uint32_t gpu)
{
    uint32_t n;
    const struct mdl_util_meas *u = mdl_zoo_utils(z, row, &n);
    for (uint32_t i = 0; i < n; i++)
        if (u[i].gpu == gpu)
            return u[i].util;
    return -1;
}

/* ------------------------------------------------------------ Gavel's names */

int mdl_gavel_key(const char *key, struct mdl_gavel_job *g, size_t *at,
                  const char **why)
{
    const char *k = key, *p = k;
#define KEYFAIL(q, what) (*at = (size_t)((q) - k), *why = (what), -1)
    memset(g, 0, sizeof *g);
    if (*p++ != '(')
        return KEYFAIL(k, "no '('");
    char quote = *p;
    if (quote != '\'' && quote != '"')
        return KEYFAIL(p, "no quoted job type");
    const char *lab = ++p;
    const char *endq = strchr(lab, quote);
    if (!endq)
        return KEYFAIL(lab, "unterminated job type");
    if ((size_t)(endq - lab) >= sizeof g->type)
        return KEYFAIL(lab, "job type too long");
    memcpy(g->type, lab, (size_t)(endq - lab));
    g->type[endq - lab] = 0;
    size_t bad;
    if (mdl_gavel_type(g->type, strlen(g->type), g->model, &g->batch, &bad, why))
        return *at = (size_t)(lab - k) + bad, -1;
    p = endq + 1;
    while (*p == ' ')
        p++;
    if (*p++ != ',')
        return KEYFAIL(p - 1, "no ',' after the job type");
    while (*p == ' ')
        p++;
    const char *d0 = p;
    unsigned long v = 0;
    while (isdigit((unsigned char)*p) && v < 100000)
        v = v * 10 + (unsigned long)(*p++ - '0');
    if (p == d0 || v == 0 || v >= 100000)
        return KEYFAIL(d0, "bad GPU count");
    while (*p == ' ')
        p++;
    if (*p != ')' || p[1])
        return KEYFAIL(p, "junk after the GPU count");
    g->scale = (uint32_t)v;
    return 0;
#undef KEYFAIL
}

int mdl_gavel_type(const char *type, size_t len, char *model, uint32_t *batch,
                   size_t *at, const char **why)
{
    static const char bs[] = " (batch size ";
    const char *end = type + len, *b = NULL;
    *batch = 1;
    for (const char *q = type; q + sizeof bs - 1 <= end; q++)
        if (!memcmp(q, bs, sizeof bs - 1)) {
            b = q;
            break;
        }
    size_t llen = len;
    if (b) {
        const char *d = b + sizeof bs - 1, *d0 = d;
        unsigned long v = 0;
        while (d < end && isdigit((unsigned char)*d) && v < 100000000)
            v = v * 10 + (unsigned long)(*d++ - '0');
        if (d == d0 || d + 1 != end || *d != ')' || v == 0 || v >= 100000000) {
            *at = (size_t)(d0 - type);
            *why = "bad batch size";
            return -1;
        }
        *batch = (uint32_t)v;
        llen = (size_t)(b - type);
    }
    if (dl_csv_norm_name(type, llen, model)) {
        *at = 0;
        *why = "bad job type name";
        return -1;
    }
    return 0;
}

char *mdl_zoo_names(struct dl_error *err)
{
    char dir[4096];
    if (mdl_zoo_default_dir(dir, sizeof dir) < 0) {
        dl_fail(err, NULL, 0, 0, "no model zoo found (set DLSIM_MODELS to "
                "the directory holding zoo.csv)");
        return NULL;
    }
    struct mdl_zoo z;
    if (mdl_zoo_load(dir, &z, err)) {
        mdl_zoo_free(&z);
        return NULL;
    }
    size_t len = 1;
    for (uint32_t i = 0; i < z.nfamilies; i++)
        len += strlen(z.families[i]) + 1;
    char *s = xmalloc(len), *p = s;
    *p = '\0';
    for (uint32_t i = 0; i < z.nfamilies; i++)
        p += sprintf(p, "%s%s", i ? "," : "", z.families[i]);
    mdl_zoo_free(&z);
    return s;
}
