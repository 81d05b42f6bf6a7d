/*
 * stats.c - what validate says about two sets of benchmark runs: each variant's median and
 * spread, a percentile-bootstrap interval for the ratio of the medians, and a two-sided
 * Mann-Whitney U test. Both are distribution-free (benchmark times are skewed, with outliers
 * from a loaded machine); the bootstrap uses a fixed seed so one set of runs always gives one
 * answer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hotscan/validate.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Quantile of a sorted sample (linear interpolation). */
static double quantile(const double *s, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    double f = pos - (double)i;
    return i + 1 < n ? s[i] * (1 - f) + s[i + 1] * f : s[i];
}

static double median_of(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    return quantile(x, n, 0.5);
}

void hs_summarize(const double *x, size_t n, hs_sample_summary *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    double *s = hs_xmalloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    out->median = quantile(s, n, 0.5);
    out->q1 = quantile(s, n, 0.25);
    out->q3 = quantile(s, n, 0.75);
    out->min = s[0];
    out->max = s[n - 1];
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(s[i] - out->median);
    double mad = median_of(s, n);
    out->mad_rel = out->median != 0 ? mad / fabs(out->median) : 0;
    free(s);
}

double hs_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    if (na == 0 || nb == 0)
        return 1.0;
    struct item { double v; int group; } *all = hs_xmalloc(n * sizeof *all);
    for (size_t i = 0; i < na; i++)
        all[i] = (struct item){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        all[na + i] = (struct item){b[i], 1};
    /* insertion sort: n is a few dozen runs */
    for (size_t i = 1; i < n; i++) {
        struct item t = all[i];
        size_t j = i;
        while (j > 0 && all[j - 1].v > t.v) {
            all[j] = all[j - 1];
            j--;
        }
        all[j] = t;
    }
    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && all[j + 1].v == all[i].v)
            j++;
        double rank = (double)(i + j) / 2.0 + 1.0, t = (double)(j - i + 1);
        for (size_t k = i; k <= j; k++)
            if (all[k].group == 0)
                rank_sum_a += rank;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    free(all);
    double u = rank_sum_a - (double)na * (double)(na + 1) / 2.0;
    double mu = (double)na * (double)nb / 2.0;
    double var = (double)na * (double)nb / 12.0 *
                 ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
    if (var <= 0)
        return 1.0;
    double z = (fabs(u - mu) - 0.5) / sqrt(var); /* continuity correction */
    if (z < 0)
        z = 0;
    return erfc(z / sqrt(2.0));
}

/* xorshift64*: a small generator with a fixed seed, for reproducible resamples. */
static unsigned long long next_random(unsigned long long *state)
{
    unsigned long long x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}

void hs_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb, double level,
                        int resamples, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (na == 0 || nb == 0 || resamples < 10)
        return;
    double *ratios = hs_xmalloc((size_t)resamples * sizeof *ratios);
    double *ra = hs_xmalloc(na * sizeof *ra), *rb = hs_xmalloc(nb * sizeof *rb);
    unsigned long long state = 0x9e3779b97f4a7c15ull;
    for (int r = 0; r < resamples; r++) {
        for (size_t i = 0; i < na; i++)
            ra[i] = a[next_random(&state) % na];
        for (size_t i = 0; i < nb; i++)
            rb[i] = b[next_random(&state) % nb];
        double ma = median_of(ra, na), mb = median_of(rb, nb);
        ratios[r] = ma != 0 ? mb / ma : NAN;
    }
    qsort(ratios, (size_t)resamples, sizeof *ratios, cmp_double);
    double tail = (1.0 - level) / 2.0;
    *lo = quantile(ratios, (size_t)resamples, tail);
    *hi = quantile(ratios, (size_t)resamples, 1.0 - tail);
    free(ratios);
    free(ra);
    free(rb);
}
