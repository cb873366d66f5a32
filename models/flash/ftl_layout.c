#include "models/flash/ftl_layout.h"

#include <errno.h>
#include <string.h>

static void add(struct ftl_layout *l, const char *name, const char *contents,
                enum ftl_region_kind kind, uint32_t first, uint32_t last, uint32_t pe,
                uint64_t retention_s, bool nv)
{
    struct ftl_region *r = &l->r[l->n++];

    r->name = name;
    r->contents = contents;
    r->kind = kind;
    r->first = first;
    r->count = last - first + 1;
    r->pe_budget = pe;
    r->retention_s = retention_s;
    r->nonvolatile = nv;
}

void ftl_layout_an(struct ftl_layout *l)
{
    memset(l, 0, sizeof(*l));
    l->node = "AN";
    /* (paper) Table 2: block layout per plane on an Activation Node. */
    add(l, "meta", "FTL metadata (LBN2PBN map, PB metadata)", FTL_REGION_META, 0, 9, 0, 0, true);
    /* (paper) Table 2 / Table 1 stream 1: 249 GiB, 50K P/E at 1-year retention. */
    add(l, "NV", "training inputs", FTL_REGION_STREAM, 10, 92, 50000, FTL_SEC_PER_YEAR, true);
    /* (paper) Table 2 / Table 1 stream 2: 1737 GiB, 2M P/E at 1-day retention. */
    add(l, "V", "activations", FTL_REGION_STREAM, 93, 671, 2000000, FTL_SEC_PER_DAY, false);
    /* (paper) Table 2: reserved for bad-block replacement. */
    add(l, "spare", "bad-block replacement", FTL_REGION_SPARE, 672, 682, 0, 0, false);
}

void ftl_layout_wn(struct ftl_layout *l)
{
    memset(l, 0, sizeof(*l));
    l->node = "WN";
    /* (ours) The paper gives no Weight Node layout. Same metadata, spare and NV ranges as the
     * AN; the AN's V range (579 blocks) is split 1:2:4 between the bf16 weights, the fp32
     * master copy and the optimizer state (Adam m and v, fp32), all rewritten every
     * iteration, so V-class (Table 1 stream 2, "interm. weights": 2M P/E, 1 day). The trained
     * weights (Table 1 stream 3) are written once at the end: NV-class, 50K P/E, 1 year. */
    add(l, "meta", "FTL metadata", FTL_REGION_META, 0, 9, 0, 0, true);
    add(l, "T", "trained weights (output)", FTL_REGION_STREAM, 10, 92, 50000, FTL_SEC_PER_YEAR,
        true);
    add(l, "W", "weights, bf16 (broadcast copy)", FTL_REGION_STREAM, 93, 174, 2000000,
        FTL_SEC_PER_DAY, false);
    add(l, "M", "master weights, fp32", FTL_REGION_STREAM, 175, 337, 2000000, FTL_SEC_PER_DAY,
        false);
    add(l, "O", "optimizer state, fp32 (Adam m, v)", FTL_REGION_STREAM, 338, 671, 2000000,
        FTL_SEC_PER_DAY, false);
    add(l, "spare", "bad-block replacement", FTL_REGION_SPARE, 672, 682, 0, 0, false);
}

int ftl_layout_validate(const struct ftl_layout *l, const struct flash_geom *g, struct err *e)
{
    uint32_t spares = 0;

    if (l->n > FTL_LAYOUT_MAX)
        return err_set(e, -EINVAL, "ftl layout %s: %u regions; accepted at most %u", l->node, l->n,
                       FTL_LAYOUT_MAX);
    for (uint32_t i = 0; i < l->n; i++) {
        const struct ftl_region *r = &l->r[i];

        if (!r->name || !r->name[0])
            return err_set(e, -EINVAL, "ftl layout %s: region %u has no name", l->node, i);
        if (!r->count || (uint64_t)r->first + r->count > g->blocks_per_plane)
            return err_set(e, -EINVAL,
                           "ftl layout %s: region '%s' blocks %u..%u do not fit in a "
                           "plane of %u blocks; accepted a non-empty range inside 0..%u",
                           l->node, r->name, r->first, r->first + r->count - 1, g->blocks_per_plane,
                           g->blocks_per_plane - 1);
        if (r->kind == FTL_REGION_STREAM && !r->pe_budget)
            return err_set(e, -EINVAL,
                           "ftl layout %s: stream '%s' has a P/E budget of 0; accepted "
                           ">= 1",
                           l->node, r->name);
        if (r->kind == FTL_REGION_SPARE && ++spares > 1)
            return err_set(e, -EINVAL,
                           "ftl layout %s: region '%s' is a second spare range; accepted "
                           "at most one",
                           l->node, r->name);
        for (uint32_t j = 0; j < i; j++) {
            const struct ftl_region *o = &l->r[j];

            if (r->first < o->first + o->count && o->first < r->first + r->count)
                return err_set(e, -EINVAL,
                               "ftl layout %s: region '%s' (blocks %u..%u) overlaps '%s' "
                               "(blocks %u..%u); accepted disjoint ranges",
                               l->node, r->name, r->first, r->first + r->count - 1, o->name,
                               o->first, o->first + o->count - 1);
            if (!strcmp(r->name, o->name))
                return err_set(e, -EINVAL,
                               "ftl layout %s: two regions are named '%s'; accepted "
                               "unique names",
                               l->node, r->name);
        }
    }
    return 0;
}

const struct ftl_region *ftl_layout_find(const struct ftl_layout *l, const char *name)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (!strcmp(l->r[i].name, name))
            return &l->r[i];
    return NULL;
}

const struct ftl_region *ftl_layout_spare(const struct ftl_layout *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->r[i].kind == FTL_REGION_SPARE)
            return &l->r[i];
    return NULL;
}

void ftl_layout_fprint(FILE *f, const struct ftl_layout *l, const struct flash_geom *g)
{
    double per_block = (double)flash_geom_dies(g) * g->planes_per_die * g->pages_per_block *
                       g->page_bytes / (double)(1ull << 30);

    for (uint32_t i = 0; i < l->n; i++) {
        const struct ftl_region *r = &l->r[i];

        fprintf(f, "%s %-6s blocks %4u..%-4u (%4u) %8.1f GiB", l->node, r->name, r->first,
                r->first + r->count - 1, r->count, r->count * per_block);
        if (r->kind == FTL_REGION_STREAM)
            fprintf(f, "  %s, %u P/E, retention %.1f days", r->nonvolatile ? "NV" : "V",
                    r->pe_budget, (double)r->retention_s / FTL_SEC_PER_DAY);
        fprintf(f, "  %s\n", r->contents);
    }
}
