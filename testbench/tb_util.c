#include "testbench/tb_util.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *prog, const char *why, const char *arg)
{
    fprintf(stderr, "%s: %s '%s'\nusage: %s [--seed N] [--waves FILE.fst]\n", prog, why, arg, prog);
    return -1;
}

int tb_parse_args(int argc, char **argv, struct tb_args *out)
{
    out->seed = 1;
    out->waves = NULL;
    out->scopes = NULL;
    out->first_cycle = 0;
    out->last_cycle = 2000;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            return usage(argv[0], "missing value after", argv[i]);
        if (strcmp(argv[i], "--seed") == 0) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(argv[i + 1], &end, 0);
            if (errno || *end || !*argv[i + 1] || argv[i + 1][0] == '-')
                return usage(argv[0], "seed must be an unsigned integer, got", argv[i + 1]);
            out->seed = v;
        } else if (strcmp(argv[i], "--waves") == 0) {
            out->waves = argv[i + 1];
        } else if (strcmp(argv[i], "--scopes") == 0) {
            out->scopes = argv[i + 1];
        } else if (strcmp(argv[i], "--window") == 0) {
            unsigned long long a, b;
            char tail;
            if (sscanf(argv[i + 1], "%llu:%llu%c", &a, &b, &tail) != 2 || b < a)
                return usage(argv[0], "window must be FIRST:LAST cycles with FIRST <= LAST, got",
                             argv[i + 1]);
            out->first_cycle = a;
            out->last_cycle = b;
        } else {
            return usage(argv[0], "unknown option", argv[i]);
        }
        i++;
    }
    return 0;
}

void tb_ring_init(struct tb_ring *r, size_t cap)
{
    r->v = calloc(cap, sizeof(*r->v));
    assert(r->v);
    r->cap = cap;
    r->head = r->len = 0;
}

void tb_ring_fini(struct tb_ring *r)
{
    free(r->v);
    r->v = NULL;
}

void tb_ring_push(struct tb_ring *r, uint64_t x)
{
    assert(r->len < r->cap);
    r->v[(r->head + r->len++) % r->cap] = x;
}

uint64_t tb_ring_pop(struct tb_ring *r)
{
    assert(r->len > 0);
    uint64_t x = r->v[r->head];
    r->head = (r->head + 1) % r->cap;
    r->len--;
    return x;
}
