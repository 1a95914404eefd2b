/*
 * policies/registry.c - the static table of policies and the parsing of
 * "NAME:key=value,..." (prefix pol_).
 *
 * Adding a policy: write its `const struct policy` in its own file, declare
 * it below and add it to pol_table.  No self-registration.
 */
#include "policies/policy.h"

#include <string.h>

extern const struct policy pol_fifo, pol_sjf, pol_srtf;
extern const struct policy pol_qos;
extern const struct policy pol_horus;
extern const struct policy pol_edf, pol_tiresias, pol_gandiva;

const struct policy *const pol_table[] = {
    &pol_fifo,
    &pol_sjf,
    &pol_srtf,
    &pol_qos,
    &pol_horus,
    &pol_edf,
    &pol_tiresias,
    &pol_gandiva,
    NULL,
};

/* Options every policy takes. */
static const struct pol_opt common_opts[] = {
    { "placement", "consolidated",
      "consolidated: a gang of up to one node's GPUs on one node, a larger "
      "one on whole nodes; pool: any free GPUs of one type" },
    { NULL, NULL, NULL },
};

const struct policy *pol_find(const char *name)
{
    for (const struct policy *const *p = pol_table; *p; p++)
        if (!strcmp((*p)->name, name))
            return *p;
    return NULL;
}

static const struct pol_opt *opt_find(const struct policy *p, const char *key)
{
    for (const struct pol_opt *o = common_opts; o->key; o++)
        if (!strcmp(o->key, key))
            return o;
    for (const struct pol_opt *o = p->opts; o && o->key; o++)
        if (!strcmp(o->key, key))
            return o;
    return NULL;
}

static void list_names(char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = 0;
    for (const struct policy *const *p = pol_table; *p && off < n; p++)
        off += snprintf(buf + off, n - off, "%s%s", p == pol_table ? "" : ", ",
                        (*p)->name);
}

static void list_keys(const struct policy *p, char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const struct pol_opt *o = pass ? p->opts : common_opts; o && o->key;
             o++)
            if (off < n)
                off += snprintf(buf + off, n - off, "%s%s", off ? ", " : "", o->key);
}

static int set_arg(struct pol_args *a, const char *key, size_t klen,
                   const char *val, size_t vlen)
{
    uint32_t i;
    for (i = 0; i < a->n; i++)
        if (strlen(a->key[i]) == klen && !strncmp(a->key[i], key, klen))
            break;
    if (i == a->n) {
        if (a->n == POL_MAX_ARGS || klen >= sizeof a->key[0])
            return -1;
        a->n++;
    }
    if (vlen >= sizeof a->val[0])
        return -1;
    memcpy(a->key[i], key, klen);
    a->key[i][klen] = 0;
    memcpy(a->val[i], val, vlen);
    a->val[i][vlen] = 0;
    return 0;
}

int pol_parse(const char *spec, const struct policy **pp, struct pol_args *a,
              struct dl_error *err)
{
    char names[256];
    memset(a, 0, sizeof *a);
    a->spec = spec;
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    char name[64];
    if (nlen >= sizeof name)
        nlen = sizeof name - 1;
    memcpy(name, spec, nlen);
    name[nlen] = 0;
    const struct policy *p = pol_find(name);
    if (!p) {
        list_names(names, sizeof names);
        return dl_fail(err, "--policy", 0, 0,
                       "unknown policy '%s' (valid: %s)", name, names);
    }
    for (int pass = 0; pass < 2; pass++)
        for (const struct pol_opt *o = pass ? p->opts : common_opts; o && o->key;
             o++)
            set_arg(a, o->key, strlen(o->key), o->def, strlen(o->def));
    const char *s = colon ? colon + 1 : NULL;
    const char *given[POL_MAX_ARGS];    /* keys set by spec, in order */
    size_t ngiven = 0;
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (!eq) {
            return dl_fail(err, "--policy", 0, 0,
                           "'%.*s' in '%s' is not key=value", (int)len, s, spec);
        }
        char key[32];
        size_t klen = (size_t)(eq - s);
        snprintf(key, sizeof key, "%.*s", (int)klen, s);
        if (!opt_find(p, key)) {
            list_keys(p, names, sizeof names);
            return dl_fail(err, "--policy", 0, 0,
                           "policy %s has no option '%.*s' (valid: %s)", p->name,
                           (int)klen, s, names);
        }
        /* a key given twice is an error, not "the last one wins": the
         * run would silently not be the one the user thinks */
        for (size_t i = 0; i < ngiven; i++)
            if (!strcmp(given[i], key))
                return dl_fail(err, "--policy", 0, 0, "option '%s' given "
                               "twice in '%s'", key, spec);
        if (ngiven < POL_MAX_ARGS)
            given[ngiven++] = opt_find(p, key)->key;
        if (set_arg(a, s, klen, eq + 1, len - klen - 1))
            return dl_fail(err, "--policy", 0, 0, "option value too long in '%s'",
                           spec);
        s = end ? end + 1 : NULL;
    }
    *pp = p;
    return 0;
}

const char *pol_arg_str(const struct pol_args *a, const char *key)
{
    for (uint32_t i = 0; i < a->n; i++)
        if (!strcmp(a->key[i], key))
            return a->val[i];
    return NULL;
}

int pol_arg_long(const struct pol_args *a, const char *key, long lo, long hi,
                 long *out, struct dl_error *err)
{
    const char *v = pol_arg_str(a, key);
    DL_ASSERT(v);
    if (sim_parse_long(v, out) || *out < lo || *out > hi)
        return dl_fail(err, "--policy", 0, 0,
                       "%s=%s: expected an integer in [%ld, %ld]", key, v, lo, hi);
    return 0;
}

int pol_arg_double(const struct pol_args *a, const char *key, double lo,
                   double hi, double *out, struct dl_error *err)
{
    const char *v = pol_arg_str(a, key);
    DL_ASSERT(v);
    if (sim_parse_double(v, out) || *out < lo || *out > hi)
        return dl_fail(err, "--policy", 0, 0,
                       "%s=%s: expected a number in [%g, %g]", key, v, lo, hi);
    return 0;
}

int pol_arg_placement(const struct pol_args *a, enum plc_mode *out,
                      struct dl_error *err)
{
    const char *v = pol_arg_str(a, "placement");
    DL_ASSERT(v);
    if (!strcmp(v, "consolidated"))
        *out = PLC_CONSOLIDATED;
    else if (!strcmp(v, "pool"))
        *out = PLC_POOL;
    else
        return dl_fail(err, "--policy", 0, 0,
                       "placement=%s: expected consolidated or pool", v);
    return 0;
}

static void print_opts(const struct pol_opt *o, FILE *to)
{
    for (; o && o->key; o++)
        fprintf(to, "    %-14s default %-13s %s\n", o->key, o->def, o->help);
}

void pol_print_list(FILE *to)
{
    fprintf(to, "Policies (use --policy NAME or NAME:key=value,...):\n\n");
    for (const struct policy *const *p = pol_table; *p; p++) {
        fprintf(to, "  %s - %s\n", (*p)->name, (*p)->summary);
        fprintf(to, "    A job next in order that does not fit: %s\n",
                (*p)->blocking);
        print_opts((*p)->opts, to);
        fputc('\n', to);
    }
    fprintf(to, "Options of every policy:\n");
    print_opts(common_opts, to);
}
