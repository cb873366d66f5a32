/*
 * stats_priv: what the counter registry's files share (not a public interface): the registry's
 * state, read by the stats.json writer.
 *   stats.c       the registry: counters, their path table, meta and configuration values
 *   stats_json.c  stats.json: the counters sorted and nested by group, meta, configuration
 * (stats_csv.c, the CSV tables, shares nothing with them.)
 */
#ifndef CSIM_STATS_PRIV_H
#define CSIM_STATS_PRIV_H

#include "csim/stats.h"

#define COMP_MAX 63 /* characters of one path component, and of a meta key */

struct stats_ctr {
    char *name;
    char *unit;
    char *desc;
    enum stats_type type;
    union {
        uint64_t u;
        double d;
    } v;
};

/* A slot of the path table: a counter, or a group (ctr == NULL). */
struct slot {
    char *path;
    struct stats_ctr *ctr;
};

struct meta {
    char *key;
    char *value;
};

/* One value of the run's configuration ("config" in the JSON). */
struct cfgval {
    char *section, *key, *value;
    enum stats_cfg_kind kind;
};

struct stats {
    struct stats_ctr **ctrs; /* in definition order */
    size_t n_ctrs, cap_ctrs;
    struct slot *tab; /* open addressing, power-of-two size, at most half full */
    size_t n_tab, cap_tab;
    struct meta *meta;
    size_t n_meta, cap_meta;
    struct cfgval *cfg; /* in insertion order */
    size_t n_cfg, cap_cfg;
};

#endif
