/*
 * policies/args.c - the typed option getters of the policy kit (pol_arg_):
 * a policy's create() reads its validated "key=value" options through
 * them.  Pure functions of struct pol_args; part of libdlsim-policykit.
 */
#include "policies/kit.h"

#include <stdio.h>
#include <string.h>

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


void pol_arg_variant(struct pol_args *a, const char *key, const char *val)
{
    for (uint32_t i = 0; i < a->n; i++)
        if (!strcmp(a->key[i], key) && !strcmp(a->val[i], "variant")) {
            DL_ASSERT(strlen(val) < sizeof a->val[i]);
            strcpy(a->val[i], val);
        }
}

int pol_arg_enum(const struct pol_args *a, const char *key,
                 const char *const *names, int *out, struct dl_error *err)
{
    const char *v = pol_arg_str(a, key);
    DL_ASSERT(v && names[0]);
    char list[256];
    size_t off = 0;
    int n = 0;
    for (; names[n]; n++)
        if (!strcmp(v, names[n])) {
            *out = n;
            return 0;
        }
    for (int i = 0; i < n && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
                                i == 0 ? "" : i == n - 1 ? " or " : ", ",
                                names[i]);
    return dl_fail(err, "--policy", 0, 0, "%s=%s: expected %s", key, v, list);
}
