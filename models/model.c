/*
 * models/model.c - the speed-ratio runtime model (see model.h).
 */
#include "models/model.h"

double mdl_rate(const struct cluster *c, const struct trc_job *j, uint32_t t)
{
    (void)j;
    return c->types[t].speed;
}

double mdl_util(const struct trc_job *j)
{
    if (j->util < 0)
        return 1.0;
    return j->util > 1 ? 1.0 : j->util;
}
