/*
 * policies/policy.h - the policies layer (prefix pol_): the table of
 * built-in policies, plug-ins registered at run time, and the parsing of
 * "NAME:key=value,..." against them.  The contract every policy implements
 * is sim/policy.h; what they build on is policies/kit.h.
 */
#ifndef DLSIM_POLICY_H
#define DLSIM_POLICY_H

#include "sim/policy.h"
#include "policies/kit.h"

/* The static table of built-in policies, NULL-terminated. */
extern const struct policy *const pol_table[];
/* The options every policy takes (placement=), NULL-key terminated. */
extern const struct pol_opt pol_common_opts[];
/* A policy by name: the built-ins, then the registered plug-ins' (a
 * plug-in's policy of a built-in's name is refused at registration). */
const struct policy *pol_find(const char *name);
/* Registers a plug-in's policies (the loader has checked its ABI) under
 * origin (its path, for `dlsim policies`; copied).  0, or DL_EINPUT when a name is
 * taken, empty or a policy lacks a required hook. */
int pol_register(const struct pol_plugin *pl, const char *origin,
                 struct dl_error *err);
/* Whether the name part of a --policy (name[0..len)) names a plug-in: it
 * holds a '/' or ends in ".so". */
bool pol_is_plugin(const char *name, size_t len);
/* Loads the plug-in at path (policies/plugin.c) and registers its
 * policies; *out is its table.  0, or DL_EINPUT with err: the file is
 * missing, not a shared object, lacks DLSIM_POLICY_SYMBOL, was built for
 * another contract version, or its policies are malformed. */
int pol_load(const char *path, const struct pol_plugin **out,
             struct dl_error *err);
/* Parses "NAME" or "NAME:k=v,k=v"; checks names and keys (listing the
 * valid ones on error) and fills in defaults.  NAME may be a plug-in,
 * "PATH.so" (its first policy) or "PATH.so@NAME": it is loaded first.  0
 * or DL_EINPUT. */
int pol_parse(const char *spec, const struct policy **p, struct pol_args *a,
              struct dl_error *err);
/* `dlsim policies`: the built-ins and the registered plug-ins'
 * (plugins_only: only those). */
void pol_print_list(FILE *to, bool plugins_only);

#endif
