/*
 * ssd_raid0: RAID 0 of N identical SSDs (the paper's baseline: four in RAID 0).
 *
 * Contract
 * --------
 * Modelled: striping. Logical page p of the array is in stripe unit s = p / S (S = stripe unit
 * in pages), on member s % N at member page (s / N) x S + p % S. A request is split at stripe
 * unit boundaries; each piece goes to its member at the request's time, and the request
 * completes with its last piece. Capacity: N x the members' user pages rounded down to whole
 * stripe units. Preconditioning preconditions every member (seed + member index).
 * Not modelled: the host's RAID software (no time), parity (RAID 0 has none), the host link.
 * Units: picoseconds, logical pages of the array.
 */
#ifndef MODELS_SSD_SSD_RAID0_H
#define MODELS_SSD_SSD_RAID0_H

#include <stdint.h>

#include "csim/err.h"
#include "models/ssd/ssd.h"
#include "models/ssd/ssd_cfg.h"

struct ssd_raid0;

/* cfg->raid_ssds members, each an ssd of cfg. 0, -EINVAL, -ENOMEM. */
int ssd_raid0_create(const struct ssd_cfg *cfg, struct ssd_raid0 **out, struct err *e);
void ssd_raid0_destroy(struct ssd_raid0 *r);

uint32_t ssd_raid0_members(const struct ssd_raid0 *r);
struct ssd *ssd_raid0_member(struct ssd_raid0 *r, uint32_t i);
uint64_t ssd_raid0_user_pages(const struct ssd_raid0 *r);

/* As ssd_write / ssd_read / ssd_flush, over the array. */
int ssd_raid0_write(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages,
                    const void *data, uint64_t *done, struct err *e);
int ssd_raid0_read(struct ssd_raid0 *r, uint64_t t, uint64_t lpn, uint32_t npages, void *buf,
                   uint64_t *done, struct err *e);
int ssd_raid0_flush(struct ssd_raid0 *r, uint64_t t, uint64_t *done, struct err *e);

/* The members' statistics added up. */
void ssd_raid0_stats(const struct ssd_raid0 *r, struct ssd_stats *st);

/* Every member preconditioned (ssd_precondition, seed + member); res: the last member's
 * result with the pages of all; steady only if every member reached it. t_end: the latest. */
int ssd_raid0_precondition(struct ssd_raid0 *r, uint64_t t, const struct ssd_precond *p,
                           struct ssd_precond_result *res, struct err *e);

#endif
