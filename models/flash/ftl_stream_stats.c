/*
 * ftl_stream_stats.c - the stream FTL's endurance statistics (P/E, write amplification,
 * lifetime) and their printing; see ftl_stream.h.
 */
#include "models/flash/ftl_stream_priv.h"

#include <math.h>
#include <string.h>

void ftl_stream_stats(const struct ftl_stream *s, uint64_t now, struct ftl_stream_stats *st)
{
    double sum = 0.0, cap_bytes, n = 0.0;

    memset(st, 0, sizeof(*st));
    memcpy(st->name, s->cfg.name, sizeof(st->name));
    st->lpages_written = s->lpages_written;
    st->ppages_programmed = s->ppages;
    st->pages_read = s->pages_read;
    st->sb_erases = s->sb_erases;
    st->blocks_replaced = s->replaced;
    st->program_remaps = s->prog_remaps;
    st->remap_pages = s->remap_pages;
    st->remap_ps = s->remap_ps;
    st->sb_total = s->cfg.n_blocks;
    st->sb_live = s->n_live;
    st->sb_retired = s->n_retired;
    st->waf = s->lpages_written ? (double)s->ppages / (double)s->lpages_written : 0.0;
    st->pe_budget = s->cfg.pe_budget;
    st->pe_min = UINT32_MAX;
    for (uint32_t pbn = 0; pbn < s->cfg.n_blocks; pbn++) {
        uint32_t blk = s->cfg.first_block + pbn;

        for (uint32_t d = 0; d < s->dies; d++) {
            for (uint32_t p = 0; p < s->planes; p++) {
                const struct flash_block *b = flash_fms_block(
                    s->fms, d, p, ftl_bbm_resolve(s->bbm, ftl_stream_dp_of(s, d, p), blk));
                uint32_t pe = b->pe;

                if (pe < st->pe_min)
                    st->pe_min = pe;
                if (pe > st->pe_max)
                    st->pe_max = pe;
                sum += pe;
                n += 1.0;
            }
        }
    }
    st->pe_mean = n > 0.0 ? sum / n : 0.0;
    st->pe_used = (double)st->pe_max / st->pe_budget;
    st->retention_s = s->cfg.retention_s;
    st->elapsed_s = s->written && now > s->t_first_write
                        ? (double)(now - s->t_first_write) / FLASH_PS_PER_S
                        : 0.0;
    st->write_bps =
        st->elapsed_s > 0.0 ? (double)s->lpages_written * s->page_bytes / st->elapsed_s : 0.0;
    /* Every write lands on the stream's blocks, spread evenly by the round-robin allocator:
     * P/E per block per second = bytes programmed per second / bytes of the stream. */
    cap_bytes = (double)s->cfg.n_blocks * s->sbp * s->page_bytes;
    st->pe_per_year = st->write_bps * st->waf / cap_bytes * (double)FTL_SEC_PER_YEAR;
    st->lifetime_years = st->pe_per_year > 0.0 ? st->pe_budget / st->pe_per_year : INFINITY;
}

void ftl_stream_stats_fprint(FILE *f, const struct ftl_stream_stats *st)
{
    const char *n = st->name;

    fprintf(f, "stream.%s.lpages_written = %llu pages\n", n,
            (unsigned long long)st->lpages_written);
    fprintf(f, "stream.%s.ppages_programmed = %llu pages\n", n,
            (unsigned long long)st->ppages_programmed);
    fprintf(f, "stream.%s.pages_read = %llu pages\n", n, (unsigned long long)st->pages_read);
    fprintf(f, "stream.%s.sb_erases = %llu superblocks\n", n, (unsigned long long)st->sb_erases);
    fprintf(f, "stream.%s.blocks_replaced = %llu blocks\n", n,
            (unsigned long long)st->blocks_replaced);
    fprintf(f, "stream.%s.program_remaps = %llu blocks (%llu pages copied, %.3f ms)\n", n,
            (unsigned long long)st->program_remaps, (unsigned long long)st->remap_pages,
            (double)st->remap_ps / 1e9);
    fprintf(f, "stream.%s.sb_live = %u of %u superblocks (%u retired)\n", n, st->sb_live,
            st->sb_total, st->sb_retired);
    fprintf(f, "stream.%s.waf = %.3f\n", n, st->waf);
    fprintf(f, "stream.%s.pe = min %u mean %.2f max %u of budget %u cycles (%.6f%% used)\n", n,
            st->pe_min, st->pe_mean, st->pe_max, st->pe_budget, 100.0 * st->pe_used);
    fprintf(f, "stream.%s.write_rate = %.3f GB/s over %.6f s\n", n, st->write_bps / 1e9,
            st->elapsed_s);
    fprintf(f, "stream.%s.pe_per_year = %.1f cycles/year\n", n, st->pe_per_year);
    fprintf(f, "stream.%s.lifetime = %.2f years\n", n, st->lifetime_years);
    fprintf(f, "stream.%s.retention = %llu s\n", n, (unsigned long long)st->retention_s);
}
