/*
 * tests/test_queueing.c - validation against queueing theory.
 *
 *  - FIFO on a pool of c identical GPUs fed by a Poisson stream of 1-GPU
 *    jobs with exponential durations is an M/M/c queue: its mean wait is
 *    Erlang C: Wq = C(c, a) / (c mu - lambda), a = lambda / mu.
 *  - SRTF with no preemption cost on one GPU is SRPT on an M/M/1 queue:
 *    its mean response time is (Schrage and Miller, 1966; see also
 *    Harchol-Balter, "Performance Modeling and Design of Computer Systems",
 *    2013, ch. 33)
 *      E[T] = int_0^inf f(x) [ lambda (m2(x) + x^2 (1 - F(x)))
 *                                / (2 (1 - rho(x))^2)
 *                              + int_0^x dt / (1 - rho(t)) ] dx,
 *      rho(x) = lambda m1(x), mk(x) = int_0^x t^k f(t) dt.
 *
 * The statistical error is computed from the run itself by batch means:
 * jobs (after a warm-up) are cut into B consecutive batches; the batch
 * averages are nearly independent, so their standard deviation over
 * sqrt(B) is the standard error of the overall mean.  The test accepts
 * |simulated - theory| < 4 standard errors (a false alarm about 1 in
 * 16,000 runs -- and the runs are seeded, so the verdict is reproducible).
 */
#include "testutil.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

/* A Poisson stream of n one-GPU jobs: rate lambda (1/s), exponential
 * durations of mean 1/mu seconds. */
static void mm_trace(struct trace *t, uint32_t n, double lambda, double mu,
                     unsigned long seed)
{
    trc_init(t, "mm", n);
    gsl_rng *arr = gsl_rng_alloc(gsl_rng_mt19937), *dur = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(arr, seed);
    gsl_rng_set(dur, seed + 1000);
    double now = 0;
    for (uint32_t j = 0; j < n; j++) {
        char id[16];
        snprintf(id, sizeof id, "j%u", j);
        now += gsl_ran_exponential(arr, 1 / lambda);
        t->jobs[j].id = arena_strndup(t->arena, id, strlen(id));
        t->jobs[j].submit = (simtime_t)llround(now * SIM_US_PER_S);
        simtime_t d = (simtime_t)llround(gsl_ran_exponential(dur, 1 / mu) * SIM_US_PER_S);
        t->jobs[j].duration = d > 0 ? d : 1;
        t->jobs[j].line = j + 2;
    }
    gsl_rng_free(arr);
    gsl_rng_free(dur);
}

struct bm { double mean, se; };

/* Batch means of per-job values (seconds), after dropping warm-up. */
static struct bm batch_means(const struct eng *e, bool response)
{
    const uint32_t B = 25;
    uint32_t n = e->tr->njobs, skip = n / 50, per = (n - skip) / B;
    double sum = 0, sum2 = 0;
    for (uint32_t b = 0; b < B; b++) {
        double s = 0;
        for (uint32_t j = skip + b * per; j < skip + (b + 1) * per; j++) {
            const struct job_end *r = &e->end[j];
            cr_assert_eq(e->state[j], JOB_DONE);
            s += response ? (double)(r->finish - e->tr->jobs[j].submit) / SIM_US_PER_S
                          : (double)r->wait / SIM_US_PER_S;
        }
        s /= per;
        sum += s;
        sum2 += s * s;
    }
    double mean = sum / B, var = (sum2 - B * mean * mean) / (B - 1);
    return (struct bm){ mean, sqrt(var / B) };
}

static double erlang_c_wait(unsigned c, double lambda, double mu)
{
    double a = lambda / mu, rho = a / c, term = 1, sum = 0;
    for (unsigned k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    /* term = a^c / c! now */
    double top = term / (1 - rho);
    return top / (sum + top) / (c * mu - lambda);
}

static void check_mmc(unsigned c, double rho, const char *policy, unsigned long seed)
{
    const double mu = 1.0 / 100;      /* mean job 100 s */
    double lambda = rho * c * mu;
    struct trace t;
    struct cluster cl;
    mm_trace(&t, 200000, lambda, mu, seed);
    tu_simple_cluster(&cl, 1, c);
    struct eng *e = tu_run(&t, &cl, policy);
    struct bm w = batch_means(e, false);
    double theory = erlang_c_wait(c, lambda, mu);
    cr_log_info("M/M/%u rho=%.2f %s: Wq sim %.3f +- %.3f s, Erlang C %.3f s",
                c, rho, policy, w.mean, w.se, theory);
    cr_expect_lt(fabs(w.mean - theory), 4 * w.se,
                 "M/M/%u rho=%.2f: Wq %.3f (se %.3f) vs Erlang C %.3f", c, rho,
                 w.mean, w.se, theory);
    /* the standard error must be small enough for the test to bite */
    cr_expect_lt(w.se, 0.1 * theory);
    eng_free(e);
    trc_free(&t);
    clu_free(&cl);
}

Test(queueing, mm1_fifo, .timeout = 300)
{
    check_mmc(1, 0.7, "fifo", 11);
}

Test(queueing, mm4_fifo_pool, .timeout = 300)
{
    check_mmc(4, 0.8, "fifo:placement=pool", 12);
}

Test(queueing, mm8_fifo_consolidated, .timeout = 300)
{
    check_mmc(8, 0.85, "fifo", 13);
}

/* ------------------------------------------------------------- SRPT */

struct srpt { double lambda, mu; gsl_integration_workspace *w_in; };

static double m1(double x, double mu)
{
    return (1 - exp(-mu * x) * (1 + mu * x)) / mu;
}

static double m2(double x, double mu)
{
    return (2 - exp(-mu * x) * (mu * mu * x * x + 2 * mu * x + 2)) / (mu * mu);
}

static double inv_one_minus_rho(double t, void *p)
{
    const struct srpt *s = p;
    return 1 / (1 - s->lambda * m1(t, s->mu));
}

static double response_at(double x, void *p)
{
    struct srpt *s = p;
    double rho = s->lambda * m1(x, s->mu);
    double wait = s->lambda * (m2(x, s->mu) + x * x * exp(-s->mu * x)) /
                  (2 * (1 - rho) * (1 - rho));
    gsl_function f = { inv_one_minus_rho, s };
    double res = 0, err;
    int rc = gsl_integration_qag(&f, 0, x, 0, 1e-10, 1000, GSL_INTEG_GAUSS41,
                                 s->w_in, &res, &err);
    cr_assert_eq(rc, GSL_SUCCESS);
    return (wait + res) * s->mu * exp(-s->mu * x);
}

static double srpt_mean_response(double lambda, double mu)
{
    gsl_set_error_handler_off();
    struct srpt s = { lambda, mu, gsl_integration_workspace_alloc(1000) };
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    gsl_function f = { response_at, &s };
    double res, err;
    int rc = gsl_integration_qagiu(&f, 0, 0, 1e-9, 1000, w, &res, &err);
    cr_assert_eq(rc, GSL_SUCCESS);
    gsl_integration_workspace_free(w);
    gsl_integration_workspace_free(s.w_in);
    return res;
}

Test(queueing, srpt_formula_limits)
{
    /* light load: response -> job size; and SRPT beats FCFS/PS 1/(mu-lambda) */
    cr_expect_float_eq(srpt_mean_response(1e-9, 0.01), 100, 1e-3);
    double t = srpt_mean_response(0.007, 0.01);
    cr_expect_lt(t, 1 / (0.01 - 0.007));
    cr_expect_gt(t, 100);
}

Test(queueing, mm1_srtf_is_srpt, .timeout = 300)
{
    const double mu = 1.0 / 100, rho = 0.7, lambda = rho * mu;
    struct trace t;
    struct cluster cl;
    mm_trace(&t, 200000, lambda, mu, 21);
    tu_simple_cluster(&cl, 1, 1);
    struct eng *e = tu_run(&t, &cl, "srtf:preempt_cost=0");
    struct bm r = batch_means(e, true);
    double theory = srpt_mean_response(lambda, mu);
    cr_log_info("M/M/1 SRPT rho=%.2f: E[T] sim %.3f +- %.3f s, theory %.3f s "
                "(FCFS would be %.1f)", rho, r.mean, r.se, theory, 1 / (mu - lambda));
    cr_expect_lt(fabs(r.mean - theory), 4 * r.se,
                 "SRPT E[T] %.3f (se %.3f) vs theory %.3f", r.mean, r.se, theory);
    cr_expect_lt(r.se, 0.05 * theory);
    cr_expect_gt(e->preemptions, 1000);
    eng_free(e);
    trc_free(&t);
    clu_free(&cl);
}
