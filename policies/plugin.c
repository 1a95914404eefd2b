/*
 * policies/plugin.c - policies from outside the tree (prefix pol_): a
 * shared object loaded with dlopen when a --policy names one
 * ("./libmine.so", "/abs/path/x.so", optionally "@NAME" to pick one of
 * several, then ":key=value,..." as for a built-in).
 *
 * The object exports one symbol, DLSIM_POLICY_SYMBOL (a struct
 * pol_plugin, sim/policy.h): the contract version it was built for and
 * its policies.  A different version is refused with both numbers; the
 * policies are registered (policies/registry.c) and from then on found,
 * parsed, validated and listed as built-ins.  The engine validates their
 * actions exactly as a built-in's.  Objects stay loaded for the life of
 * the process (their code and option tables are referenced from
 * everywhere); loading one twice is harmless.
 */
#include "policies/policy.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

bool pol_is_plugin(const char *name, size_t len)
{
    if (memchr(name, '/', len))
        return true;
    return len > 3 && !memcmp(name + len - 3, ".so", 3);
}

int pol_load(const char *path, const struct pol_plugin **out,
             struct dl_error *err)
{
    struct stat st;
    *out = NULL;
    if (stat(path, &st))
        return dl_fail(err, path, 0, 0, "cannot load policy plug-in: %s",
                       strerror(errno));
    if (!S_ISREG(st.st_mode))
        return dl_fail(err, path, 0, 0, "cannot load policy plug-in: not a "
                       "regular file");
    /* RTLD_LOCAL: its symbols stay its own; RTLD_NOW: a missing symbol is
     * an error here, not a crash in the middle of a run */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        return dl_fail(err, path, 0, 0, "not a loadable shared object: %s",
                       why ? why : "dlopen failed");
    }
    const struct pol_plugin *pl = dlsym(h, DLSIM_POLICY_SYMBOL);
    if (!pl) {
        dlclose(h);
        return dl_fail(err, path, 0, 0, "no symbol %s: not a dlsim policy "
                       "plug-in (define it with DLSIM_POLICY_PLUGIN(...), "
                       "sim/policy.h)", DLSIM_POLICY_SYMBOL);
    }
    if (pl->abi != DLSIM_POLICY_ABI) {
        uint32_t abi = pl->abi;
        dlclose(h);
        return dl_fail(err, path, 0, 0, "built for dlsim policy contract "
                       "version %u, this dlsim provides version %u: rebuild it "
                       "against this dlsim's headers (pkg-config dlsim-policy)",
                       abi, DLSIM_POLICY_ABI);
    }
    int rc = pol_register(pl, path, err);
    if (rc)
        return rc;
    *out = pl;
    return 0;
}
