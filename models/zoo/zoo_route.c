/*
 * zoo_route.c - a mixture of experts' routing: uniform or skewed (zipf), its experts in groups
 * of alike ones; see zoo.h (zoo_routing_parse) and zoo_priv.h (zoo_route_groups).
 */
#include "models/zoo/zoo_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int zoo_routing_parse(const char *text, double *zipf, struct err *e)
{
    char *end = NULL;
    *zipf = 0;
    if (text && !strcmp(text, "uniform"))
        return 0;
    if (text && !strncmp(text, "zipf:", 5)) {
        errno = 0;
        double v = strtod(text + 5, &end);
        if (end != text + 5 && !*end && !errno && v > 0 && v <= 8) {
            *zipf = v;
            return 0;
        }
    }
    return err_set(e, -EINVAL, "routing '%s': accepted uniform or zipf:S with S in (0, 8]",
                   text ? text : "");
}

bool zoo_routing_ok(const char *text)
{
    double zipf;
    struct err e;
    return !zoo_routing_parse(text, &zipf, &e);
}

/*
 * The experts, got[] tokens each in decreasing order, in up to ZOO_EXPERT_GROUPS groups of
 * consecutive ranks, each group's experts at their mean tokens (rounded up): the split with
 * the least squared deviation from the groups' means (one-dimensional k-means, exact by
 * dynamic programming over the sorted counts), so the FLOP are the routing's to within a token
 * an expert and a group's experts are alike.
 */
static int group_experts(struct zoo_shape *sh, const uint64_t *got)
{
    uint64_t e = sh->experts, n = e + 1;
    uint32_t groups = (uint32_t)(e < ZOO_EXPERT_GROUPS ? e : ZOO_EXPERT_GROUPS);
    double *sum = malloc(n * sizeof(*sum)), *sq = malloc(n * sizeof(*sq));
    double *cost = malloc((groups + 1) * n * sizeof(*cost));
    uint64_t *cut = malloc((groups + 1) * n * sizeof(*cut));
    if (!sum || !sq || !cost || !cut) {
        free(sum), free(sq), free(cost), free(cut);
        return -ENOMEM;
    }
    sum[0] = sq[0] = 0;
    for (uint64_t i = 0; i < e; i++) {
        sum[i + 1] = sum[i] + (double)got[i];
        sq[i + 1] = sq[i] + (double)got[i] * (double)got[i];
    }
    /* the squared deviation of experts [a, b) from their mean; cost[g][j]: of the first j in g */
#define DEV(a, b) (sq[b] - sq[a] - (sum[b] - sum[a]) * (sum[b] - sum[a]) / (double)((b) - (a)))
    for (uint64_t j = 1; j <= e; j++)
        cost[n + j] = DEV(0, j), cut[n + j] = 0;
    for (uint64_t g = 2; g <= groups; g++)
        for (uint64_t j = g; j <= e; j++) {
            cost[g * n + j] = -1;
            for (uint64_t i = g - 1; i < j; i++) {
                double c = cost[(g - 1) * n + i] + DEV(i, j);
                if (cost[g * n + j] < 0 || c < cost[g * n + j])
                    cost[g * n + j] = c, cut[g * n + j] = i;
            }
        }
#undef DEV
    sh->groups = groups;
    for (uint64_t j = e, g = groups; g > 0; g--) {
        uint64_t i = cut[g * n + j];
        sh->group_experts[g - 1] = j - i;
        sh->group_tokens[g - 1] = (uint64_t)ceil((sum[j] - sum[i]) / (double)(j - i));
        j = i;
    }
    free(sum), free(sq), free(cost), free(cut);
    return 0;
}

/*
 * The experts' tokens per core, t tokens each routed to k of them: uniform, t k / e each
 * (rounded up); skewed, the i-th most used expert's share ~ 1 / i^zipf, no expert above t (a
 * token picks an expert once: the surplus goes to the others in proportion), rounded to whole
 * tokens by the largest remainders; then the experts in groups (group_experts). 0 or -ENOMEM.
 */
int zoo_route_groups(struct zoo_shape *sh, uint64_t t)
{
    uint64_t e = sh->experts, tk = t * sh->experts_per_tok;
    if (!e)
        return 0;
    if (sh->zipf == 0) {
        sh->groups = 1;
        sh->group_experts[0] = e;
        sh->group_tokens[0] = (tk + e - 1) / e;
        return 0;
    }
    double *want = malloc(e * sizeof(*want));
    uint64_t *got = malloc(e * sizeof(*got));
    if (!want || !got) {
        free(want);
        free(got);
        return -ENOMEM;
    }
    uint64_t capped = 0; /* the most used experts at t */
    for (;;) {
        double w = 0;
        for (uint64_t i = capped; i < e; i++)
            w += pow((double)(i + 1), -sh->zipf);
        double rest = (double)(tk - capped * t);
        for (uint64_t i = 0; i < e; i++)
            want[i] = i < capped ? (double)t : rest * pow((double)(i + 1), -sh->zipf) / w;
        if (capped == e || want[capped] <= (double)t)
            break;
        capped++;
    }
    uint64_t sum = 0;
    for (uint64_t i = 0; i < e; i++)
        sum += got[i] = (uint64_t)want[i];
    while (sum < tk) { /* the largest remainders, the most used first on a tie */
        uint64_t best = e;
        for (uint64_t i = 0; i < e; i++)
            if (got[i] < t &&
                (best == e || want[i] - (double)got[i] > want[best] - (double)got[best]))
                best = i;
        got[best]++, want[best] = (double)got[best];
        sum++;
    }
    int rc = group_experts(sh, got);
    free(want);
    free(got);
    return rc;
}
