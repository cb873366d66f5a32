#include "models/ssd/ssd_wa.h"

#include <math.h>

/* H(x) for real x >= 0: the harmonic numbers, linear between integers. */
static double harmonic(double x)
{
    double n = floor(x), h = 0.0;

    if (n < 32.0) {
        for (int k = 1; k <= (int)n; k++)
            h += 1.0 / k;
    } else { /* Euler-Maclaurin: error below 1e-12 from n = 32 on */
        h = log(n) + 0.57721566490153286 + 1.0 / (2.0 * n) - 1.0 / (12.0 * n * n) +
            1.0 / (120.0 * n * n * n * n);
    }
    return h + (x - n) / (n + 1.0);
}

double ssd_wa_greedy(uint32_t b, double rho)
{
    double hb = harmonic(b), lo = 0.0, hi = rho * b;
#define F(j) (((double)b - (j)) - rho * (double)b * (hb - harmonic(j)))

    /* F rises on [0, rho b] and falls back to F(b) = 0 after it: its root below rho b is the
     * fixed point; F(0) >= 0 means units die empty (no copies). */
    if (rho <= 0.0 || F(0.0) >= 0.0)
        return 1.0;
    if (hi >= b)
        return INFINITY;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);

        if (F(mid) < 0.0)
            lo = mid;
        else
            hi = mid;
    }
#undef F
    return (double)b / ((double)b - 0.5 * (lo + hi));
}

double ssd_wa_lru(double rho)
{
    double alpha = 1.0 / rho, lo = 0.0, hi = 1.0 - 1e-12;

    if (alpha <= 1.0)
        return INFINITY;
    /* g(x) = x - exp(-alpha (1 - x)) is concave, g(0) < 0, g(1) = 0 and g'(1) = 1 - alpha < 0:
     * one root in (0, 1). */
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);

        if (mid - exp(-alpha * (1.0 - mid)) < 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 1.0 / (1.0 - 0.5 * (lo + hi));
}

double ssd_wa_util(const struct ssd_geom *g, double mean_free_units)
{
    return (double)g->user_pages / (((double)g->units - mean_free_units) * g->unit_pages);
}
