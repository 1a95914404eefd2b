/*
 * traces/import/cluster.c - `dlsim cluster import`: a cluster file (SPEC 3) from
 * the machine lists that public traces publish.
 *
 * Formats (each a list of machines, or a cluster shape):
 *   pai       Alibaba cluster-trace-gpu-v2020 pai_machine_spec.csv, no
 *             header: machine,gpu_type,cap_cpu,cap_mem,cap_gpu (the
 *             published .tar.gz is read as is)
 *   openb     Alibaba cluster-trace-gpu-v2023 openb_node_list_*.csv:
 *             sn,cpu_milli,memory_mib,gpu,model
 *   spot      Alibaba cluster-trace-v2026-spot-gpu node_info_df.csv:
 *             gpu_model,gpu_capacity_num,cpu_num,node_name
 *   philly    msr-fiddle/philly-traces cluster_machine_list:
 *             machineId,number of GPUs,single GPU mem
 *   tiresias  Tiresias simulator cluster_spec.csv (one row):
 *             num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,
 *             mem_p_node; each switch becomes a rack
 *   gavel     Gavel cluster_specs*.json: {"name": ["v100:p100:k80", ...]}
 *             (GPU counts only; nodes of --node-gpus GPUs)
 *
 * What is kept: each machine's GPU count and type, and its rack where the
 * source has one (tiresias) or --rack-nodes groups machines into racks in
 * input order.  CPU, memory and machine names are dropped (dlsim does not
 * model them); machines without GPUs are skipped and counted.
 *
 * GPU types.  A type's name goes through mdl_gpu_alias (the table shared
 * with `trace import`, so a trace's gpu_type and its cluster agree), then
 * its memory and datasheet peaks come from the zoo's gpus.csv.  `--map
 * FROM=TYPE` gives an undisclosed type (openb G1..G3, spot GPU-series-N,
 * Philly's 12GB/24GB) the figures of a known one while keeping its name.
 * A type the zoo does not know, and that is not mapped, gets the
 * placeholders memory_gb 16 and speed 1 (relative to the reference), with
 * a warning naming --map.  The zoo itself is required (found through
 * DLSIM_MODELS, see mdl_zoo_default_dir): without it every type would be
 * a placeholder, so that is an error (exit 1), as is a --map whose TYPE
 * the zoo lacks or whose FROM the input lacks (exit 2).  The input is
 * parsed before the zoo is loaded, so its errors come first.
 *
 * Speeds (only used for jobs without per-model data, SPEC 3) follow the
 * rule of examples/clusters/hetero.yaml, relative to the reference type R:
 * the FP32 peak ratio for a GPU without tensor cores (fp16 peak < 4 x
 * fp32 peak), else the geometric mean of the FP32 and 16-bit ratios.
 * The reference is --reference, else V100 when the cluster has it (the
 * usual reference of Philly-derived traces), else the type with the most
 * GPUs.
 *
 * Output: identical machines (type, GPUs, rack) are merged into one
 * `count` entry, in order of first appearance; the file is written
 * atomically and loaded back with cfg_load_cluster before the command
 * succeeds, so it is always a valid cluster.
 */
#include "sim/simint.h"
#include "models/perf.h"
#include "sim/base/formats.h"
#include "traces/import/import.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest public machine list (PAI's pai_machine_spec) is 30 KB
 * compressed and under 1 MB as text; 64 MiB is ample. */
#define CI_MAX_BYTES ((size_t)64 << 20)
#define CI_MAX_TYPES 64
#define CI_MAX_MAPS CLU_IMPORT_MAX_MAPS
#define CI_MAX_NODE_GPUS CLU_IMPORT_MAX_NODE_GPUS

struct ci_type {
    char name[64];              /* as in the output */
    char from[64];              /* as written in the input */
    uint64_t gpus;
    double memory_gb, fp32, fp16; /* 0 = unknown */
    bool known;
};

struct ci_group {
    uint32_t type, gpus, rack;  /* rack: UINT32_MAX = none */
    uint64_t count;
};

struct ci {
    const char *path;
    struct ci_type types[CI_MAX_TYPES];
    uint32_t ntypes;
    struct ci_group *groups;
    size_t ngroups, cap;
    uint64_t machines, skipped_cpu;
    uint32_t rack_nodes;        /* 0 = no racks unless the format has them */
    uint32_t nracks;
    const char *maps[CI_MAX_MAPS];
    int nmaps;
    struct mdl_zoo zoo;
    bool have_zoo;
};

/* ------------------------------------------------------------ input */

/* The size field of a tar header: octal digits, blank-padded, NUL or
 * blank-terminated.  strtoull would take "-1" as 2^64 - 1, and the member
 * bounds check would wrap around. */
static bool tar_size(const char *f, size_t *out)
{
    size_t v = 0;
    int i = 0, digits = 0;
    while (i < 12 && f[i] == ' ')
        i++;
    for (; i < 12 && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v > SIZE_MAX >> 3)
            return false;
        v = v * 8 + (size_t)(f[i] - '0');
    }
    for (; i < 12; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return false;
    *out = v;
    return digits > 0;
}

/* Reads path whole (plain or gzip, by content) as binary (a tar archive
 * holds NUL bytes); the text is checked by the reader of its format
 * (NUL bytes, line lengths).  A tar archive (the published
 * pai_machine_spec.tar.gz) yields its first regular file. */
static int read_input(const char *path, char **out, size_t *len,
                      struct dl_error *err)
{
    char *buf;
    size_t n;
    int rc = dl_read_file(path, CI_MAX_BYTES, 0, &buf, &n, err);
    if (rc)
        return rc;
    if (n >= 512 && !memcmp(buf + 257, "ustar", 5)) {
        size_t off = 0;
        while (off + 512 <= n && buf[off]) {
            size_t fsz;
            if (!tar_size(buf + off + 124, &fsz) || fsz > n - off - 512) {
                free(buf);
                return dl_fail(err, path, 0, 0, "corrupt tar archive (bad "
                               "member size at byte %zu)", off + 124);
            }
            char flag = buf[off + 156];
            if (flag == '0' || flag == '\0') {
                memmove(buf, buf + off + 512, fsz);
                buf[fsz] = '\0';
                n = fsz;
                goto done;
            }
            off += 512 + (fsz + 511) / 512 * 512;
        }
        free(buf);
        return dl_fail(err, path, 0, 0, "a tar archive without a regular file");
    }
done:;
    *out = buf;
    *len = n;
    return 0;
}

/* Field i of the current row: a whole number in [lo, hi], with an
 * optional unit suffix ("24GB"). */
static int get_uint(const struct dl_csv *c, int i, const char *what,
                    const char *suffix, uint64_t lo, uint64_t hi,
                    uint64_t *out, struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    char num[64];
    size_t n = strlen(s), k = suffix ? strlen(suffix) : 0;
    if (k && n > k && !strcasecmp(s + n - k, suffix))
        n -= k;                 /* "24GB" */
    double v = -1;
    if (n >= sizeof num)
        n = 0;
    memcpy(num, s, n);
    num[n] = '\0';
    if (sim_parse_double(num, &v) || !(v >= (double)lo && v <= (double)hi) ||
        v != floor(v))
        return dl_csv_fail_at(c, i, err, "%s: expected a whole number in "
                              "[%llu, %llu], got '%s'", what,
                              (unsigned long long)lo, (unsigned long long)hi,
                              s);
    *out = (uint64_t)v;
    return 0;
}

/* ------------------------------------------------------------ types */

static uint32_t type_of(struct ci *C, const char *from, long line, long col,
                        struct dl_error *err)
{
    for (uint32_t t = 0; t < C->ntypes; t++)
        if (!strcmp(C->types[t].from, from))
            return t;
    if (C->ntypes == CI_MAX_TYPES) {
        dl_fail(err, C->path, line, col, "more than %d GPU types",
                CI_MAX_TYPES);
        return UINT32_MAX;
    }
    if (!*from || strlen(from) >= sizeof C->types[0].name) {
        dl_fail(err, C->path, line, col, "GPU type: expected a name of 1 to "
                "%zu bytes, got '%s'", sizeof C->types[0].name - 1, from);
        return UINT32_MAX;
    }
    for (const char *p = from; *p; p++)
        if (!isprint((unsigned char)*p) || *p == '#' || *p == ':') {
            dl_fail(err, C->path, line, col, "GPU type: unexpected character "
                    "in '%s'", from);
            return UINT32_MAX;
        }
    struct ci_type *T = &C->types[C->ntypes];
    memset(T, 0, sizeof *T);
    snprintf(T->from, sizeof T->from, "%s", from);
    return C->ntypes++;
}

/* Output names, once the zoo is loaded: the alias table's, else the
 * zoo's spelling ("v100" -> "V100"), else as written; spellings that
 * differ only in case are one type under the first spelling (a cluster
 * file may not declare both). */
static void name_types(struct ci *C)
{
    for (uint32_t i = 0; i < C->ntypes; i++) {
        struct ci_type *T = &C->types[i];
        const char *alias = mdl_gpu_alias(T->from);
        const struct mdl_gpu *g = mdl_zoo_gpu(&C->zoo, T->from);
        const char *name = alias ? alias : g ? g->name : T->from;
        for (uint32_t t = 0; t < i; t++)
            if (!strcasecmp(C->types[t].name, name)) {
                name = C->types[t].name;
                break;
            }
        snprintf(T->name, sizeof T->name, "%s", name);
    }
}

static int add_machines(struct ci *C, uint32_t type, uint64_t gpus,
                        uint64_t count, uint32_t rack)
{
    C->machines += count;
    C->types[type].gpus += gpus * count;
    if (C->ngroups) {
        struct ci_group *g = &C->groups[C->ngroups - 1];
        if (g->type == type && g->gpus == gpus && g->rack == rack) {
            g->count += count;
            return 0;
        }
    }
    for (size_t i = 0; i < C->ngroups && rack == UINT32_MAX; i++) {
        struct ci_group *g = &C->groups[i];
        if (g->type == type && g->gpus == gpus && g->rack == rack) {
            g->count += count;
            return 0;
        }
    }
    if (C->ngroups == C->cap) {
        C->cap = C->cap ? 2 * C->cap : 16;
        C->groups = xrealloc(C->groups, C->cap * sizeof *C->groups);
    }
    C->groups[C->ngroups++] = (struct ci_group){type, (uint32_t)gpus, rack,
                                                count};
    return 0;
}

/* One machine in input order: its rack comes from --rack-nodes. */
static void add_machine(struct ci *C, uint32_t type, uint64_t gpus)
{
    uint32_t rack = UINT32_MAX;
    if (C->rack_nodes) {
        rack = (uint32_t)((C->machines) / C->rack_nodes);
        C->nracks = rack + 1;
    }
    add_machines(C, type, gpus, 1, rack);
}

/* ------------------------------------------------------------ formats */

/* Machine lists: RFC 4180 quoting, blanks around fields trimmed, '#'
 * comment lines; every row as wide as the header (or, headerless, as the
 * columns used). */
static const struct dl_csv_opts ci_rules = {
    .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_TRIM | DL_CSV_COMMENTS,
};

struct colspec {
    const char *const *names;   /* header names, in the order used */
    int n;
    bool header;                /* false: columns by position, no header */
};

/* Calls row(C, c, idx) for each data row; idx[k]: the field of the k-th
 * column of the colspec. */
typedef int (*row_fn)(struct ci *C, const struct dl_csv *c, const int *idx,
                      struct dl_error *err);

static int each_row(struct ci *C, const char *buf, size_t len,
                    const struct colspec *cs, row_fn row,
                    struct dl_error *err)
{
    int idx[8];
    struct dl_csv c;
    dl_csv_open_mem(&c, C->path, buf, len, &ci_rules);
    int rc = 0;
    if (cs->header) {
        rc = dl_csv_header(&c, cs->names, NULL, cs->n, idx, err);
    } else {
        for (int i = 0; i < cs->n; i++)
            idx[i] = i;
        dl_csv_width(&c, cs->n);
    }
    while (!rc && (rc = dl_csv_row(&c, err)) == 1)
        rc = row(C, &c, idx, err);
    dl_csv_close(&c);
    return rc < 0 ? rc : 0;
}

/* GPU count (field icount) and type (the text type, located at field
 * itype) shared by the machine lists. */
static int machine_row(struct ci *C, const struct dl_csv *c, int icount,
                       const char *type, int itype, struct dl_error *err)
{
    uint64_t g = 0;
    int rc = get_uint(c, icount, "GPUs per machine", NULL, 0,
                      CI_MAX_NODE_GPUS, &g, err);
    if (rc)
        return rc;
    if (g == 0) {
        C->skipped_cpu++;
        return 0;
    }
    uint32_t t = type_of(C, type, c->fline[itype], c->fcol[itype], err);
    if (t == UINT32_MAX)
        return DL_EINPUT;
    add_machine(C, t, g);
    return 0;
}

static int pai_row(struct ci *C, const struct dl_csv *c, const int *idx,
                   struct dl_error *err)
{
    if (c->line == 1 && !strcmp(c->f[0], "machine"))
        return 0;               /* a header, if someone added one */
    return machine_row(C, c, idx[4], c->f[idx[1]], idx[1], err);
}

static int openb_row(struct ci *C, const struct dl_csv *c, const int *idx,
                     struct dl_error *err)
{
    return machine_row(C, c, idx[0], c->f[idx[1]], idx[1], err);
}

static int philly_row(struct ci *C, const struct dl_csv *c, const int *idx,
                      struct dl_error *err)
{
    uint64_t mem = 0;
    int rc = get_uint(c, idx[1], "single GPU mem", "GB", 1, 100000, &mem,
                      err);
    if (rc)
        return rc;
    char type[32];
    snprintf(type, sizeof type, "GPU-%lluGB", (unsigned long long)mem);
    rc = machine_row(C, c, idx[0], type, idx[1], err);
    if (!rc) {
        for (uint32_t t = 0; t < C->ntypes; t++)
            if (!strcmp(C->types[t].from, type))
                C->types[t].memory_gb = (double)mem;
    }
    return rc;
}

static const char *tiresias_type = "V100";

static int tiresias_row(struct ci *C, const struct dl_csv *c, const int *idx,
                        struct dl_error *err)
{
    uint64_t sw = 0, nodes = 0, gpus = 0;
    int rc;
    if ((rc = get_uint(c, idx[0], "num_switch", NULL, 1, 1 << 20, &sw,
                       err)) ||
        (rc = get_uint(c, idx[1], "num_node_p_switch", NULL, 1, 1 << 20,
                       &nodes, err)) ||
        (rc = get_uint(c, idx[2], "num_gpu_p_node", NULL, 1,
                       CI_MAX_NODE_GPUS, &gpus, err)))
        return rc;
    if (C->machines)
        return dl_fail(err, C->path, c->line, 1, "a Tiresias cluster spec has "
                       "one row");
    uint32_t t = type_of(C, tiresias_type, c->fline[idx[2]], c->fcol[idx[2]],
                         err);
    if (t == UINT32_MAX)
        return DL_EINPUT;
    for (uint64_t s = 0; s < sw; s++)
        add_machines(C, t, gpus, nodes, (uint32_t)s);
    C->nracks = (uint32_t)sw;
    return 0;
}

static int import_gavel(struct ci *C, const char *buf, size_t len,
                        const char *select, uint64_t node_gpus,
                        struct dl_error *err)
{
    struct dl_json_doc d;
    int rc = dl_json_parse(C->path, buf, len, &d, err);
    if (rc)
        return rc;
    const struct dl_json *root = d.root, *spec = NULL;
    if (!root || root->type != DL_JSON_OBJECT || !root->n) {
        rc = dl_fail(err, C->path, root ? root->line : 1, root ? root->col : 1,
                     "expected an object {\"name\": [\"v100:p100:k80\"]}");
        goto out;
    }
    const struct dl_json *m = &root->kid[0];
    if (select && !(m = dl_json_get(root, select))) {
        rc = dl_fail(err, C->path, root->line, root->col, "no cluster spec "
                     "named '%s'", select);
        goto out;
    }
    if (m->type == DL_JSON_ARRAY && m->n)
        spec = &m->kid[0];
    else if (m->type == DL_JSON_STRING)
        spec = m;
    if (!spec || spec->type != DL_JSON_STRING) {
        rc = dl_fail(err, C->path, m->line, m->col, "expected a list of "
                     "\"v100:p100:k80\" strings");
        goto out;
    }
    static const char *const names[3] = {"v100", "p100", "k80"};
    const char *p = spec->str;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(p, &end, 10);
        if (end == p || errno || n > (1ull << 24) ||
            (i < 2 ? *end != ':' : *end != '\0')) {
            rc = dl_fail(err, C->path, spec->line, spec->col, "expected "
                         "\"V100:P100:K80\" GPU counts, got \"%s\"", spec->str);
            goto out;
        }
        p = end + (i < 2);
        if (!n)
            continue;
        uint32_t t = type_of(C, names[i], spec->line, spec->col, err);
        if (t == UINT32_MAX) {
            rc = DL_EINPUT;
            goto out;
        }
        if (n / node_gpus)
            add_machines(C, t, node_gpus, n / node_gpus, UINT32_MAX);
        if (n % node_gpus)
            add_machines(C, t, n % node_gpus, 1, UINT32_MAX);
    }
out:
    dl_json_free(&d);
    return rc;
}

/* ------------------------------------------------------------ output */

static bool has_tensor(const struct ci_type *t)
{
    return t->fp16 >= 4 * t->fp32;
}

/* Every --map FROM=TYPE names a GPU type of the zoo's gpus.csv: a typo
 * would otherwise leave FROM with placeholder figures, silently. */
static int check_maps(const struct ci *C, struct dl_error *err)
{
    for (int k = 0; k < C->nmaps; k++) {
        const char *to = strchr(C->maps[k], '=') + 1;
        const char *a = mdl_gpu_alias(to);
        if (!mdl_zoo_gpu(&C->zoo, a ? a : to))
            return dl_fail(err, NULL, 0, 0, "--map %s: '%s' is not a GPU "
                           "type of %s/gpus.csv", C->maps[k], to,
                           C->zoo.dir);
    }
    return 0;
}

/* Every --map FROM matches a GPU type of the input. */
static int check_maps_used(const struct ci *C, struct dl_error *err)
{
    for (int k = 0; k < C->nmaps; k++) {
        size_t l = strcspn(C->maps[k], "=");
        bool used = false;
        for (uint32_t i = 0; i < C->ntypes && !used; i++)
            used = l == strlen(C->types[i].from) &&
                   !strncasecmp(C->maps[k], C->types[i].from, l);
        if (!used)
            return dl_fail(err, C->path, 0, 0, "--map %s: no GPU type "
                           "'%.*s' in the input", C->maps[k], (int)l,
                           C->maps[k]);
    }
    return 0;
}

static void resolve_types(struct ci *C, FILE *warn)
{
    for (uint32_t i = 0; i < C->ntypes; i++) {
        struct ci_type *T = &C->types[i];
        const char *fig = T->name;
        for (int k = 0; k < C->nmaps; k++) {
            size_t l = strcspn(C->maps[k], "=");
            if (l == strlen(T->from) && !strncasecmp(C->maps[k], T->from, l))
                fig = C->maps[k] + l + 1;
        }
        const char *a = mdl_gpu_alias(fig);
        const struct mdl_gpu *g = C->have_zoo
            ? mdl_zoo_gpu(&C->zoo, a ? a : fig) : NULL;
        if (g) {
            T->known = true;
            T->memory_gb = g->memory_gb;
            T->fp32 = g->fp32_tflops;
            T->fp16 = g->fp16_tflops;
        } else if (warn) {
            fprintf(warn, "dlsim cluster import: GPU type '%s' is not in the "
                    "zoo's gpus.csv: speed 1 and %g GB are placeholders (give "
                    "it a known type's figures with --map %s=TYPE)\n",
                    T->name, T->memory_gb ? T->memory_gb : 16.0, T->from);
        }
        if (!T->memory_gb)
            T->memory_gb = 16;
    }
}

static uint32_t pick_reference(const struct ci *C, const char *ref)
{
    uint32_t best = 0;
    for (uint32_t i = 0; i < C->ntypes; i++) {
        if (ref && (!strcasecmp(C->types[i].name, ref) ||
                    !strcasecmp(C->types[i].from, ref)))
            return i;
        if (!ref && !strcmp(C->types[i].name, "V100"))
            return i;
    }
    if (ref)
        return UINT32_MAX;
    /* by output name: spellings that become one type (MISC and K80) count
     * together, as in the file written; ties to the first */
    uint64_t most = 0;
    for (uint32_t i = 0; i < C->ntypes; i++) {
        uint64_t n = 0;
        for (uint32_t u = 0; u < C->ntypes; u++)
            if (!strcmp(C->types[u].name, C->types[i].name))
                n += C->types[u].gpus;
        if (n > most) {
            most = n;
            best = i;
        }
    }
    return best;
}

static double speed_of(const struct ci_type *t, const struct ci_type *r)
{
    if (!t->known || !r->known)
        return 1.0;             /* placeholder, warned about */
    double r32 = t->fp32 / r->fp32, r16 = t->fp16 / r->fp16;
    return has_tensor(t) ? sqrt(r32 * r16) : r32;
}

static void write_yaml(const struct ci *C, FILE *f, const char *name,
                       const char *format, const char *src, uint32_t ref)
{
    uint64_t gpus = 0;
    for (uint32_t t = 0; t < C->ntypes; t++)
        gpus += C->types[t].gpus;
    fprintf(f, "# Imported by `dlsim cluster import --format %s` from ",
            format);
    /* printable ASCII only: a newline would end the comment, and a byte
     * that is not UTF-8 would make the whole file unreadable YAML */
    for (const unsigned char *p = (const unsigned char *)src; *p; p++)
        fputc(*p < 0x20 || *p >= 0x7f ? '?' : *p, f);
    fputs(":\n", f);
    fprintf(f, "# %llu machine%s with GPUs, %llu GPU%s; %llu machine%s without "
            "GPUs skipped.\n", (unsigned long long)C->machines,
            DL_PLURAL(C->machines), (unsigned long long)gpus, DL_PLURAL(gpus),
            (unsigned long long)C->skipped_cpu, DL_PLURAL(C->skipped_cpu));
    fprintf(f, "# Memory and peaks from models/gpus.csv; speed (for jobs "
            "without per-model data)\n# = FP32 peak ratio to %s, or its "
            "geometric mean with the 16-bit ratio for\n# tensor-core GPUs.\n",
            C->types[ref].name);
    fprintf(f, "name: ");
    dl_yaml_put_str(f, name, 4);
    fprintf(f, "\nreference_gpu: ");
    dl_yaml_put_str(f, C->types[ref].name, 4);
    fprintf(f, "\ngpu_types:\n");
    for (uint32_t t = 0; t < C->ntypes; t++) {
        const struct ci_type *T = &C->types[t];
        bool dup = false;
        for (uint32_t u = 0; u < t; u++)
            dup |= !strcmp(C->types[u].name, T->name);
        if (dup)
            continue;
        fprintf(f, "  - name: ");
        dl_yaml_put_str(f, T->name, 4);
        fprintf(f, "\n    memory_gb: %g\n    speed: %.4g", T->memory_gb,
                speed_of(T, &C->types[ref]));
        uint64_t n = 0;
        for (uint32_t u = t; u < C->ntypes; u++)
            if (!strcmp(C->types[u].name, T->name))
                n += C->types[u].gpus;
        fprintf(f, "    # %llu GPUs", (unsigned long long)n);
        if (strcmp(T->name, T->from))
            fprintf(f, "; written %s", T->from);
        if (!T->known)
            fprintf(f, "; not in gpus.csv: placeholders");
        fputc('\n', f);
    }
    fprintf(f, "nodes:\n");
    for (size_t i = 0; i < C->ngroups; i++) {
        const struct ci_group *g = &C->groups[i];
        fprintf(f, "  - count: %llu\n    gpus: %u\n    gpu_type: ",
                (unsigned long long)g->count, g->gpus);
        dl_yaml_put_str(f, C->types[g->type].name, 4);
        fputc('\n', f);
        if (g->rack != UINT32_MAX)
            fprintf(f, "    rack: r%u\n", g->rack);
    }
}

/* The rows of format fi (the order of cli_cluster_import's formats[]) into
 * C: the CSV formats by their column table, gavel's JSON on its own. */
static int parse_input(struct ci *C, int fi, char *buf, size_t len,
                       const char *select, uint64_t node_gpus,
                       struct dl_error *err)
{
    static const char *const pai_cols[] = {"machine", "gpu_type", "cap_cpu",
                                           "cap_mem", "cap_gpu"};
    static const char *const openb_cols[] = {"gpu", "model"};
    static const char *const spot_cols[] = {"gpu_capacity_num", "gpu_model"};
    static const char *const philly_cols[] = {"number of GPUs",
                                              "single GPU mem"};
    static const char *const tir_cols[] = {"num_switch", "num_node_p_switch",
                                           "num_gpu_p_node"};
    static const struct {
        struct colspec cols;
        row_fn row;
    } csv[] = {
        { {pai_cols, 5, false}, pai_row },
        { {openb_cols, 2, true}, openb_row },
        { {spot_cols, 2, true}, openb_row },
        { {philly_cols, 2, true}, philly_row },
        { {tir_cols, 3, true}, tiresias_row },
    };
    if (fi < (int)(sizeof csv / sizeof *csv))
        return each_row(C, buf, len, &csv[fi].cols, csv[fi].row, err);
    /* JSON holds no NUL byte and, here, no endless line: checked as text
     * first (the CSV reader checks its own) */
    int rc = dl_text_check(C->path, buf, len, DL_MAX_LINE, err);
    return rc ? rc : import_gavel(C, buf, len, select, node_gpus, err);
}

/* ------------------------------------------------------------ command */


static const char *const import_formats[] = {"pai", "openb", "spot",
                                              "philly", "tiresias", "gavel"};

int clu_import_run(const struct clu_import_opts *o, struct dl_error *err)
{
    int fi = -1;
    for (int i = 0; i < (int)(sizeof import_formats / sizeof *import_formats); i++)
        if (!strcmp(o->format, import_formats[i]))
            fi = i;
    if (fi < 0)
        return dl_fail(err, "dlsim cluster import", 0, 0, "--format: expected "
                       "one of pai, openb, spot, philly, tiresias, gavel, got "
                       "'%s'", o->format);
    struct ci *C = xcalloc(1, sizeof *C);
    int rc;
    tiresias_type = o->gpu_type ? o->gpu_type : "V100";
    for (uint32_t i = 0; i < o->nmaps; i++)
        C->maps[C->nmaps++] = o->maps[i];
    C->path = o->in;
    C->rack_nodes = o->rack_nodes;
    char *buf = NULL;
    size_t len = 0;
    if ((rc = read_input(C->path, &buf, &len, err)))
        goto fail;
    rc = parse_input(C, fi, buf, len, o->select, o->node_gpus, err);
    free(buf);
    if (rc)
        goto fail;
    if (!C->ntypes) {
        rc = dl_fail(err, C->path, 0, 0, "no machine with GPUs%s",
                     C->skipped_cpu ? "" : " (the input lists no machine)");
        goto fail;
    }
    char zdir[4096];
    /* without the zoo every type would get the placeholders speed 1 and
     * 16 GB: a file that looks right and is not, so it is an error */
    if (mdl_zoo_default_dir(zdir, sizeof zdir)) {
        rc = dl_fail_io(err, "dlsim cluster import", "no model zoo found: "
                        "set DLSIM_MODELS to the directory of gpus.csv (the "
                        "source tree's models/)");
        goto done;
    }
    if ((rc = mdl_zoo_load(zdir, &C->zoo, err))) {
        fprintf(stderr, "dlsim cluster import: cannot load the model zoo "
                "from %s (set DLSIM_MODELS to the directory of gpus.csv): ",
                zdir);
        goto fail;
    }
    C->have_zoo = true;
    if ((rc = check_maps(C, err)))
        goto fail;
    name_types(C);

    /* over the cluster limit: say so now rather than write and parse a
     * cluster file of millions of entries only for cfg to refuse it */
    uint64_t total = 0;
    for (uint32_t t = 0; t < C->ntypes; t++)
        total += C->types[t].gpus;
    if (total > CFG_MAX_GPUS) {
        rc = dl_fail(err, C->path, 0, 0, "%llu GPUs, over the cluster limit "
                     "of %llu", (unsigned long long)total,
                     (unsigned long long)CFG_MAX_GPUS);
        goto fail;
    }
    if ((rc = check_maps_used(C, err)))
        goto fail;
    resolve_types(C, stderr);
    uint32_t r = pick_reference(C, o->reference);
    if (r == UINT32_MAX) {
        rc = dl_fail(err, "dlsim cluster import", 0, 0, "--reference: no GPU "
                     "type '%s' in %s", o->reference, C->path);
        goto done;
    }

    /* write to memory, check it loads, then to the output */
    char *text = NULL;
    size_t tlen = 0;
    FILE *m = open_memstream(&text, &tlen);
    DL_ASSERT(m);
    write_yaml(C, m, o->name ? o->name : o->format, o->format, C->path, r);
    fclose(m);
    struct cluster chk;
    if ((rc = cfg_load_cluster_mem(o->out ? o->out : "<output>", text, tlen, &chk,
                                   err))) {
        free(text);
        goto fail;   /* a bug or an absurd input; say what failed */
    }
    fprintf(stderr, "dlsim cluster import: %s: %llu machine%s, %u GPU%s of "
            "%u type%s, %u rack%s; skipped %llu machine%s without GPUs\n",
            C->path, (unsigned long long)C->machines, DL_PLURAL(C->machines),
            chk.ngpus, DL_PLURAL(chk.ngpus), chk.ntypes, DL_PLURAL(chk.ntypes),
            chk.nracks, DL_PLURAL(chk.nracks),
            (unsigned long long)C->skipped_cpu, DL_PLURAL(C->skipped_cpu));
    clu_free(&chk);
    if (!o->out) {
        fwrite(text, 1, tlen, stdout);
        rc = fflush(stdout) ? dl_fail_io(err, "<stdout>", "write error") : 0;
        free(text);
        goto done;
    }
    char *tmp;
    FILE *f = dl_tmp_open(o->out, &tmp, err);
    if (!f) {
        free(text);
        rc = DL_EIO;
        goto fail;
    }
    fwrite(text, 1, tlen, f);
    free(text);
    if ((rc = dl_tmp_commit(f, tmp, o->out, true, err)))
        goto fail;
    rc = 0;
    goto done;
fail:
done:
    if (C->have_zoo)
        mdl_zoo_free(&C->zoo);
    free(C->groups);
    free(C);
    return rc;
}
