#include "csim/hostmem.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/resource.h>
#include <unistd.h>

uint64_t hostmem_limit(const char **why)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t lim = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    const char *w = "physical memory";
    static const struct {
        int res;
        const char *name;
    } rl[] = {{RLIMIT_AS, "RLIMIT_AS"}, {RLIMIT_DATA, "RLIMIT_DATA"}};

    for (unsigned i = 0; i < sizeof(rl) / sizeof(rl[0]); i++) {
        struct rlimit r;

        if (!getrlimit(rl[i].res, &r) && r.rlim_cur != RLIM_INFINITY &&
            (uint64_t)r.rlim_cur < lim) {
            lim = (uint64_t)r.rlim_cur;
            w = rl[i].name;
        }
    }
    if (why)
        *why = w;
    return lim;
}

int hostmem_check(uint64_t bytes, const char *what, struct err *e)
{
    const char *why;
    uint64_t lim = hostmem_limit(&why);

    if (bytes <= lim)
        return 0;
    return err_set(e, -ENOMEM,
                   "%s needs %" PRIu64 " bytes (%.1f GiB) of host memory; this host holds at "
                   "most %" PRIu64 " bytes (%.1f GiB, its %s)",
                   what, bytes, (double)bytes / (1u << 30), lim, (double)lim / (1u << 30), why);
}
