/* tests/plugins/badabi.c - a plug-in built for another contract version
 * (test_plugin checks that dlsim names both versions and refuses it). */
#include "sim/policy.h"

const struct pol_plugin dlsim_policy_plugin = {
    DLSIM_POLICY_ABI + 998,
    (const struct policy *const[]){ NULL },
};
