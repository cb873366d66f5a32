/*
 * ssd_wa: analytic models of the write amplification of garbage collection under uniformly
 * random single-page writes, to validate the SSD model against.
 *
 * Contract
 * --------
 * Modelled:
 *   - ssd_wa_greedy: the mean-field fixed point of greedy GC (B. Van Houdt, "A mean field model
 *     for a class of garbage collection algorithms in flash-based solid state drives",
 *     SIGMETRICS 2013; the greedy case). N units of b pages hold U valid pages; utilisation
 *     rho = U / (N b). Each host write invalidates a uniformly random valid page, so a unit with
 *     i valid pages loses one at rate i / U per host write; units enter full (b valid) and greedy
 *     collects them at the lowest level, j valid pages on average. In steady state the flow of
 *     units down through every level i > j is one per collection, (b - j) host writes, so level
 *     i holds U / ((b - j) i) units; they add up to N:
 *         (b - j) / b = rho (H(b) - H(j))            H(n) = 1 + 1/2 + ... + 1/n,
 *     with H interpolated linearly between integers (the collected level is a mix of two). The
 *     root j in (0, b) gives  WA = b / (b - j)  (pages programmed per host page).
 *   - ssd_wa_lru: its limit for large b, the closed form of P. Desnoyers ("Analytic modeling of
 *     SSD write performance", SYSTOR 2012) for LRU (FIFO) cleaning, which greedy approaches as b
 *     grows: with alpha = 1 / rho, the collected fraction x solves x = exp(-alpha (1 - x)), i.e.
 *     x = -W(-alpha e^-alpha) / alpha with W the Lambert function, and WA = 1 / (1 - x).
 *   - ssd_wa_util: the utilisation of an SSD for these models: the units that hold data are all
 *     units less the free pool (its mean over the run: free units are dead space to the model).
 * Not modelled: non-uniform traffic, finite-N effects (the models are N -> infinity limits).
 * Units: pages.
 */
#ifndef MODELS_SSD_SSD_WA_H
#define MODELS_SSD_SSD_WA_H

#include <stdint.h>

#include "models/ssd/ssd_cfg.h"

double ssd_wa_greedy(uint32_t b, double rho);
double ssd_wa_lru(double rho);
/* rho = user pages / ((units - mean_free_units) x unit pages). */
double ssd_wa_util(const struct ssd_geom *g, double mean_free_units);

#endif
