/*
 * sim/report/report.h - `dlsim report` (sim/report/report.c, prefix rpt_); private to
 * sim/ (cli.c dispatches to it) and the tests.
 *
 * A report reads a run directory (what `dlsim run --out DIR` writes), a
 * sweep directory (DIR/summary.csv and DIR/runs/<run_id>/) or a demo
 * directory (DIR/<policy>/, dlsim demo --out), computes every
 * number itself (means and sample standard deviations over seeds, CDF
 * points, binned time series), has gnuplot draw SVGs from a generated
 * script, and writes one self-contained HTML page and a Markdown table.
 */
#ifndef DLSIM_REPORT_H
#define DLSIM_REPORT_H

#include "sim/sim.h"

/* Writes the report of the run, sweep or demo directory dir: the HTML
 * page and the Markdown tables to out (NULL: DIR/report.html and
 * DIR/report.md), the gnuplot script and the page's SVGs also into plots
 * when not NULL.  formats (NULL: "html") lists html, svg, pdf, png: the
 * page, and each figure exported as SVG, PDF, PNG into figdir (NULL: plots,
 * else OUT without .html plus "-figures").  0, or a DL_ code with err
 * (err->msg empty when the failure was already reported on stderr). */
int rpt_write(const char *dir, const char *out, const char *plots,
              const char *formats, const char *figdir, struct dl_error *err);

/* The bits of a --format list ("html,pdf"); DL_EINPUT for a word that is
 * not html, svg, pdf or png. */
int rpt_formats(const char *list, unsigned *bits);

/* Mean and sample standard deviation (n - 1 in the denominator; 0 when
 * n < 2) of x[0..n); NaN mean when n == 0. */
void rpt_mean_std(const double *x, size_t n, double *mean, double *std);

/* The 0.975 quantile of Student's t distribution with df >= 1 degrees of
 * freedom (GSL's gsl_cdf_tdist_Pinv): 12.706 for 1, 4.303 for 2, ... */
double rpt_t975(unsigned df);

/* The 95 % confidence interval of the mean of x[0..n): mean +-
 * rpt_t975(n - 1) * s / sqrt(n), s the sample standard deviation; both
 * bounds NaN when n < 2. */
void rpt_ci95(const double *x, size_t n, double *lo, double *hi);

/* The points of the empirical CDF of sorted x[0..n) drawn by the report:
 * at most k of them, point i = 1..m (m = min(n, k)) at nearest rank
 * r_i = ceil(i * n / m): px[i-1] = x[r_i - 1], pf[i-1] = r_i / n.  So the
 * last point is (max, 1) and, with n <= k, every sample is a point.
 * Returns m. */
size_t rpt_cdf_points(const double *x, size_t n, size_t k, double *px,
                      double *pf);

#endif
