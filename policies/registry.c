/*
 * policies/registry.c - the static table of policies, the plug-ins
 * registered at run time, and the parsing of "NAME:key=value,..." (prefix
 * pol_).
 *
 * Adding a built-in policy: write its `const struct policy` in its own
 * file, declare it below and add it to pol_table.  No self-registration.
 * A policy outside the tree is a shared object the command line loads
 * (--policy PATH.so, sim/cli/cli.c) and registers here; from then on it is
 * found, parsed, validated and listed exactly as a built-in.
 */
#include "policies/policy.h"

#include <string.h>

extern const struct policy pol_fifo, pol_sjf, pol_srtf;
extern const struct policy pol_qos;
extern const struct policy pol_horus;
extern const struct policy pol_edf, pol_tiresias, pol_gandiva;
extern const struct policy pol_fairshare;

const struct policy *const pol_table[] = {
    &pol_fifo,
    &pol_sjf,
    &pol_srtf,
    &pol_qos,
    &pol_horus,
    &pol_edf,
    &pol_tiresias,
    &pol_gandiva,
    &pol_fairshare,
    NULL,
};

/* Options every policy takes. */
const struct pol_opt pol_common_opts[] = {
    { "placement", "consolidated",
      "consolidated: a gang of up to one node's GPUs on one node, a larger "
      "one on whole nodes; pool: any free GPUs of one type" },
    { NULL, NULL, NULL },
};

/* Plug-in policies, in registration order.  A process loads a handful. */
#define POL_MAX_PLUGINS 64
static const struct policy *plugin[POL_MAX_PLUGINS];
static const char *plugin_origin[POL_MAX_PLUGINS];
static uint32_t nplugins;

const struct policy *pol_find(const char *name)
{
    for (const struct policy *const *p = pol_table; *p; p++)
        if (!strcmp((*p)->name, name))
            return *p;
    for (uint32_t i = 0; i < nplugins; i++)
        if (!strcmp(plugin[i]->name, name))
            return plugin[i];
    return NULL;
}

int pol_register(const struct pol_plugin *pl, const char *origin,
                 struct dl_error *err)
{
    uint32_t n = 0;
    for (const struct policy *const *p = pl->policies; p && *p; p++, n++) {
        const struct policy *q = *p;
        if (!q->name || !*q->name || strlen(q->name) >= 64 ||
            strpbrk(q->name, ":,= ./"))
            return dl_fail(err, origin, 0, 0, "policy %u has no name, or one "
                           "with ':', ',', '=', ' ', '.' or '/' in it", n + 1);
        if (!q->create || !q->destroy || !q->enqueue || !q->schedule)
            return dl_fail(err, origin, 0, 0, "policy %s lacks create, "
                           "destroy, enqueue or schedule", q->name);
        const struct policy *old = pol_find(q->name);
        if (old == q)
            continue;           /* loaded twice: the same object */
        if (old)
            return dl_fail(err, origin, 0, 0, "policy %s: the name is taken "
                           "(by a built-in or an earlier plug-in)", q->name);
        if (nplugins == POL_MAX_PLUGINS)
            return dl_fail(err, origin, 0, 0, "more than %d plug-in policies",
                           POL_MAX_PLUGINS);
        plugin[nplugins] = q;
        /* a copy that lives as long as the process (listed by dlsim
         * policies; reachable from here, so no leak) */
        plugin_origin[nplugins++] = xstrdup(origin);
    }
    if (!n)
        return dl_fail(err, origin, 0, 0, "the plug-in lists no policy");
    return 0;
}

static const struct pol_opt *opt_find(const struct policy *p, const char *key)
{
    for (const struct pol_opt *o = pol_common_opts; o->key; o++)
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
    for (uint32_t i = 0; i < nplugins && off < n; i++)
        off += snprintf(buf + off, n - off, ", %s", plugin[i]->name);
}

static void list_keys(const struct policy *p, char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const struct pol_opt *o = pass ? p->opts : pol_common_opts; o && o->key;
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
    char name[4096];
    if (nlen >= sizeof name)
        nlen = sizeof name - 1;
    memcpy(name, spec, nlen);
    name[nlen] = 0;
    const struct policy *p;
    if (pol_is_plugin(name, nlen)) {
        char *at = strrchr(name, '@');
        if (at && strchr(at, '/'))
            at = NULL;          /* an '@' in a directory name */
        if (at)
            *at++ = 0;
        const struct pol_plugin *pl;
        int rc = pol_load(name, &pl, err);
        if (rc)
            return rc;
        p = at ? pol_find(at) : pl->policies[0];
        bool ours = false;
        for (const struct policy *const *q = pl->policies; p && *q; q++)
            ours |= *q == p;
        if (!ours)
            return dl_fail(err, name, 0, 0, "the plug-in has no policy '%s'",
                           at);
    } else {
        p = pol_find(name);
    }
    if (!p) {
        list_names(names, sizeof names);
        return dl_fail(err, "--policy", 0, 0,
                       "unknown policy '%s' (valid: %s)", name, names);
    }
    for (int pass = 0; pass < 2; pass++)
        for (const struct pol_opt *o = pass ? p->opts : pol_common_opts; o && o->key;
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

static void print_opts(const struct pol_opt *o, FILE *to)
{
    for (; o && o->key; o++)
        fprintf(to, "    %-16s default %-13s %s\n", o->key, o->def,
                o->help ? o->help : "");
}

static void print_one(const struct policy *p, const char *origin, FILE *to)
{
    fprintf(to, "  %s - %s%s%s%s\n", p->name, p->summary ? p->summary : "",
            origin ? " [" : "", origin ? origin : "", origin ? "]" : "");
    if (p->blocking)
        fprintf(to, "    A job next in order that does not fit: %s\n",
                p->blocking);
    print_opts(p->opts, to);
    fputc('\n', to);
}

void pol_print_list(FILE *to, bool plugins_only)
{
    fprintf(to, "Policies (use --policy NAME or NAME:key=value,...):\n\n");
    for (const struct policy *const *p = pol_table; *p && !plugins_only; p++)
        print_one(*p, NULL, to);
    for (uint32_t i = 0; i < nplugins; i++)
        print_one(plugin[i], plugin_origin[i], to);
    fprintf(to, "Options of every policy:\n");
    print_opts(pol_common_opts, to);
}
