#include "models/flash/flash_fault.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* log10 of the RBERs the decode-failure table covers, and its steps per decade: below the
 * first a codeword fails with the first entry's vanishing probability, above the last it
 * always does (for any t the model accepts). */
#define LOG_MIN (-14.0)
#define LOG_MAX (0.0)
#define STEPS   200

struct flash_fault {
    struct flash_fault_cfg c;
    double k, b;   /* RBER = rber0 + k x pe^a x age^b */
    double rated;  /* the rated RBER */
    double *lfail; /* [(LOG_MAX - LOG_MIN) x STEPS + 1]: log of a codeword's failure prob. */
    uint64_t rng;
    struct flash_fault_stats st;
    /* Fast path of long reads (flash_fault_clean_run): armed, the next clean_left page decodes
     * pass their first decode and the one after fails it. */
    bool armed;
    uint64_t clean_left;
    double run_r; /* the RBER the run was drawn at */
    /* Fast path of long writes (flash_fault_clean_programs): armed, the next prog_left page
     * programs pass and the one after fails. */
    bool prog_armed;
    uint64_t prog_left;
    double eta; /* wear-out: Weibull scale, P/E cycles */
};

void flash_fault_cfg_default(struct flash_fault_cfg *c)
{
    memset(c, 0, sizeof(*c));
    /* (ours) BCH-class ECC of current controllers: 40 bits per 1 KiB codeword, up to 8 read
     * retries with shifted read voltages, each cutting the errors by a fifth (all eight: 6x);
     * rated where one codeword in 10^6 needs a retry */
    c->ecc = (struct flash_ecc_cfg){
        .codeword_bytes = 1024, .t = 40, .max_retries = 8, .retry_gain = 1.25, .rated_fail = 1e-6};
    /* (ours) a fresh page's RBER, and growth quadratic in P/E; (paper) Table 2: the NV stream
     * is rated 50K P/E at 1-year retention, the V stream 2M P/E at 1-day retention */
    c->rber = (struct flash_rber_cfg){.rber0 = 1e-8,
                                      .pe_exp = 2.0,
                                      .pe_nv = 50e3,
                                      .age_nv_s = 365.25 * 86400.0,
                                      .pe_v = 2e6,
                                      .age_v_s = 86400.0};
    c->rber_x = 1.0;
    /* (assumption, docs/sources.md) 2% of the blocks grown bad at the highest rating of
     * Table 2, failures rising as the 4th power of P/E: Weibull shape 4 */
    c->wear_pe = 2e6;
    c->wear_bad = 0.02;
    c->wear_shape = 4.0;
    c->power_ps = UINT64_MAX;
    c->seed = 1;
}

/* ------------------------------------------------------------------ the model */

/* log of P(X > t) for X ~ Binomial(n, p), 0 < p < 1. */
static double log_tail(uint32_t n, uint32_t t, double p)
{
    double lp = log(p), lq = log1p(-p), head = 0.0, tail = 0.0;

    if (t >= n)
        return -INFINITY;
    if ((double)n * p < (double)t) { /* the tail's terms fall fast from k = t + 1 */
        double first = NAN;
        for (uint32_t k = t + 1; k <= n; k++) {
            double l =
                lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) + k * lp + (n - k) * lq;
            if (isnan(first))
                first = l;
            tail += exp(l - first);
            if (l - first < -40.0)
                break;
        }
        return first + log(tail);
    }
    for (uint32_t k = 0; k <= t; k++)
        head +=
            exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) + k * lp + (n - k) * lq);
    return head >= 1.0 ? -INFINITY : log1p(-head);
}

static double cw_lfail(const struct flash_fault *f, double r)
{
    double x, i;
    size_t j;

    if (r <= 0.0)
        return -INFINITY;
    x = (log10(r) - LOG_MIN) * STEPS;
    if (x <= 0.0)
        return f->lfail[0];
    if (x >= (LOG_MAX - LOG_MIN) * STEPS)
        return 0.0;
    j = (size_t)x;
    i = x - (double)j;
    return f->lfail[j] + i * (f->lfail[j + 1] - f->lfail[j]);
}

double flash_fault_cw_fail(const struct flash_fault *f, double r)
{
    return exp(cw_lfail(f, r));
}

double flash_fault_rated_rber(const struct flash_fault *f)
{
    return f->rated;
}

double flash_fault_rber(const struct flash_fault *f, uint32_t pe, double age_s)
{
    double n = (double)pe + f->c.age_pe, a = age_s + f->c.age_s;

    if (a < 1.0)
        a = 1.0;
    double r = f->c.rber_x * (f->c.rber.rber0 + f->k * pow(n, f->c.rber.pe_exp) * pow(a, f->b));
    /* The power law grows without bound; a bit read wrong half the time is noise, the most an
     * RBER can mean. */
    return r < 0.5 ? r : 0.5;
}

static int check_cfg(const struct flash_fault_cfg *c, struct err *e)
{
    const struct flash_rber_cfg *r = &c->rber;

    if (!c->ecc.codeword_bytes || c->ecc.codeword_bytes > 65536 || c->ecc.t == 0 ||
        c->ecc.t >= 8u * c->ecc.codeword_bytes / 4)
        return err_set(e, -EINVAL,
                       "flash faults: ECC of %u bits per %u-byte codeword; accepted 1..65536 "
                       "bytes and 1 <= t < a quarter of its bits",
                       c->ecc.t, c->ecc.codeword_bytes);
    if (!(c->ecc.retry_gain >= 1.0) || !(c->ecc.rated_fail > 0.0 && c->ecc.rated_fail < 1.0))
        return err_set(e, -EINVAL,
                       "flash faults: retry gain %g and rated failure %g; accepted a gain >= 1 "
                       "and a probability in (0, 1)",
                       c->ecc.retry_gain, c->ecc.rated_fail);
    if (!(r->rber0 >= 0.0) || !(r->pe_exp > 0.0) || !(r->pe_v > r->pe_nv && r->pe_nv > 0.0) ||
        !(r->age_nv_s > r->age_v_s && r->age_v_s >= 1.0))
        return err_set(e, -EINVAL,
                       "flash faults: RBER model rber0 %g, P/E exponent %g, ratings %g P/E at "
                       "%g s and %g P/E at %g s; accepted rber0 >= 0, an exponent > 0, and the "
                       "second rating more P/E at a shorter age (>= 1 s)",
                       r->rber0, r->pe_exp, r->pe_nv, r->age_nv_s, r->pe_v, r->age_v_s);
    if (!(c->wear_pe >= 1.0) || !(c->wear_bad > 0.0 && c->wear_bad < 1.0) ||
        !(c->wear_shape >= 1.0 && c->wear_shape <= 100.0))
        return err_set(e, -EINVAL,
                       "flash faults: wear-out of %g blocks failed at %g P/E, shape %g; accepted "
                       "a fraction in (0, 1), P/E >= 1 and a shape in 1..100",
                       c->wear_bad, c->wear_pe, c->wear_shape);
    return 0;
}

/* The rated RBER: where a codeword fails with probability rated_fail (bisection in log r). */
static double find_rated(const struct flash_fault *f)
{
    double lo = LOG_MIN, hi = LOG_MAX, target = log(f->c.ecc.rated_fail);

    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (cw_lfail(f, pow(10.0, mid)) < target)
            lo = mid;
        else
            hi = mid;
    }
    return pow(10.0, 0.5 * (lo + hi));
}

int flash_fault_create(const struct flash_fault_cfg *c, struct flash_fault **out, struct err *e)
{
    const struct flash_rber_cfg *r = &c->rber;
    size_t n = (size_t)((LOG_MAX - LOG_MIN) * STEPS) + 1;
    uint32_t bits = 8u * c->ecc.codeword_bytes;
    struct flash_fault *f;
    int rc;

    *out = NULL;
    if ((rc = check_cfg(c, e)))
        return rc;
    f = calloc(1, sizeof(*f));
    if (!f || !(f->lfail = malloc(n * sizeof(*f->lfail)))) {
        free(f);
        return err_set(e, -ENOMEM, "flash faults: out of memory");
    }
    f->c = *c;
    for (size_t j = 0; j < n; j++) {
        double p = pow(10.0, LOG_MIN + (double)j / STEPS);
        f->lfail[j] = p >= 1.0 ? 0.0 : log_tail(bits, c->ecc.t, p);
    }
    f->rated = find_rated(f);
    /* Both ratings at the rated RBER: pe_nv^a age_nv^b = pe_v^a age_v^b. */
    f->b = r->pe_exp * log(r->pe_v / r->pe_nv) / log(r->age_nv_s / r->age_v_s);
    f->k = (f->rated > r->rber0 ? f->rated - r->rber0 : 0.0) /
           (pow(r->pe_nv, r->pe_exp) * pow(r->age_nv_s, f->b));
    /* F(wear_pe) = 1 - exp(-(wear_pe / eta)^shape) = wear_bad */
    f->eta = c->wear_pe / pow(-log1p(-c->wear_bad), 1.0 / c->wear_shape);
    f->rng = c->seed ? c->seed : 1;
    *out = f;
    return 0;
}

void flash_fault_destroy(struct flash_fault *f)
{
    if (!f)
        return;
    free(f->lfail);
    free(f);
}

/* ------------------------------------------------------------------ draws */

/* A uniform draw in [0, 1): xorshift64*, 53 bits. */
static double uniform(struct flash_fault *f)
{
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return (double)((f->rng * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53;
}

/* The probability that a page of page_bytes fails to decode at RBER r: any of its codewords. */
static double page_fail(const struct flash_fault *f, uint32_t page_bytes, double r)
{
    double cws = (double)((page_bytes + f->c.ecc.codeword_bytes - 1) / f->c.ecc.codeword_bytes);

    return -expm1(cws * log1p(-flash_fault_cw_fail(f, r)));
}

int flash_fault_read(struct flash_fault *f, uint32_t page_bytes, double r)
{
    double cws = (double)((page_bytes + f->c.ecc.codeword_bytes - 1) / f->c.ecc.codeword_bytes);
    uint32_t first = 0;

    f->st.pages_checked++;
    f->st.rber_sum += r;
    if (r > f->st.rber_max)
        f->st.rber_max = r;
    if (f->armed) { /* this page's first decode was drawn by flash_fault_clean_run */
        if (f->clean_left) {
            f->clean_left--;
            return 0;
        }
        f->armed = false;
        r /= f->c.ecc.retry_gain;
        first = 1;
    }
    for (uint32_t i = first; i <= f->c.ecc.max_retries; i++) {
        /* a page fails when any of its codewords does: 1 - (1 - p)^cws */
        double pf = -expm1(cws * log1p(-flash_fault_cw_fail(f, r)));

        if (uniform(f) >= pf) {
            if (i) {
                f->st.pages_retried++;
                f->st.retries += i;
            }
            return (int)i;
        }
        r /= f->c.ecc.retry_gain;
    }
    f->st.pages_retried++;
    f->st.retries += f->c.ecc.max_retries;
    f->st.uncorrectable++;
    return -1;
}

bool flash_fault_fast_ok(const struct flash_fault *f)
{
    return f->c.program_rate <= 0.0 && !f->c.n_dead && f->c.power_ps == UINT64_MAX;
}

uint64_t flash_fault_clean_run(struct flash_fault *f, uint32_t page_bytes, double r, uint64_t max)
{
    if (!f->armed) {
        /* P(the first g decodes pass) = (1 - p)^g: G = floor(log(1 - u) / log(1 - p)) */
        double p = page_fail(f, page_bytes, r), g;

        g = p <= 0.0 ? INFINITY : p >= 1.0 ? 0.0 : floor(log1p(-uniform(f)) / log1p(-p));
        f->armed = true;
        f->clean_left = g >= 1.8e19 ? UINT64_MAX : (uint64_t)g;
        f->run_r = r;
    }
    return f->clean_left < max ? f->clean_left : max;
}

void flash_fault_skip_clean(struct flash_fault *f, uint64_t pages)
{
    f->st.pages_checked += pages;
    f->st.rber_sum += (double)pages * f->run_r;
    if (f->run_r > f->st.rber_max)
        f->st.rber_max = f->run_r;
    if (f->clean_left == UINT64_MAX)
        f->armed = false; /* memoryless: the pages after are drawn afresh */
    else
        f->clean_left -= pages;
}

void flash_fault_end_run(struct flash_fault *f)
{
    f->armed = false;
    f->prog_armed = false;
}

double flash_fault_wear_hazard(const struct flash_fault *f, uint32_t pe)
{
    double n = (double)pe + f->c.age_pe, s = f->c.wear_shape, h;

    if (!f->c.wear)
        return 0.0;
    h = s / f->eta * pow(n / f->eta, s - 1.0);
    return h < 1.0 ? h : 1.0;
}

double flash_fault_wear_failed(const struct flash_fault *f, double pe)
{
    return f->c.wear ? -expm1(-pow(pe / f->eta, f->c.wear_shape)) : 0.0;
}

/* The probability a page program fails by wear-out: half the cycle's hazard over its pages. */
static double wear_program_p(const struct flash_fault *f, uint32_t pe, uint32_t pages_per_block)
{
    return 0.5 * flash_fault_wear_hazard(f, pe) / (pages_per_block ? pages_per_block : 1);
}

bool flash_fault_program_fails(struct flash_fault *f, uint32_t pe, uint32_t pages_per_block)
{
    bool fails = false;

    if (f->prog_armed) { /* this program was drawn by flash_fault_clean_programs */
        if (f->prog_left) {
            f->prog_left--;
            return false;
        }
        f->prog_armed = false;
        fails = true;
    } else if (f->c.program_rate > 0.0 || f->c.wear) {
        double p =
            f->c.program_rate + (1.0 - f->c.program_rate) * wear_program_p(f, pe, pages_per_block);
        fails = uniform(f) < p;
    }
    if (fails)
        f->st.program_failures++;
    return fails;
}

bool flash_fault_worn_out(struct flash_fault *f, uint32_t pe)
{
    if (!f->c.wear || !f->c.age_pe ||
        uniform(f) >= flash_fault_wear_failed(f, (double)pe + f->c.age_pe))
        return false;
    f->st.worn_blocks++;
    return true;
}

bool flash_fault_erase_fails(struct flash_fault *f, uint32_t pe)
{
    if (!f->c.wear || uniform(f) >= 0.5 * flash_fault_wear_hazard(f, pe))
        return false;
    f->st.erase_failures++;
    return true;
}

uint64_t flash_fault_clean_programs(struct flash_fault *f, uint32_t pe, uint32_t pages_per_block,
                                    uint64_t max)
{
    if (!f->prog_armed) {
        double p = wear_program_p(f, pe, pages_per_block), g;

        g = p <= 0.0 ? INFINITY : p >= 1.0 ? 0.0 : floor(log1p(-uniform(f)) / log1p(-p));
        f->prog_armed = true;
        f->prog_left = g >= 1.8e19 ? UINT64_MAX : (uint64_t)g;
    }
    return f->prog_left < max ? f->prog_left : max;
}

void flash_fault_skip_programs(struct flash_fault *f, uint64_t pages)
{
    if (f->prog_left == UINT64_MAX)
        f->prog_armed = false; /* memoryless */
    else
        f->prog_left -= pages;
}

int flash_fault_alive(struct flash_fault *f, uint32_t ch, uint32_t die, uint64_t t, struct err *e)
{
    if (t >= f->c.power_ps) {
        f->st.refused_power++;
        return err_set(e, -EIO,
                       "power lost at %.6f ms (injected fault); the operation at %.6f ms "
                       "was not done",
                       f->c.power_ps / 1e9, t / 1e9);
    }
    for (uint32_t i = 0; i < f->c.n_dead; i++) {
        const struct flash_dead *d = &f->c.dead[i];
        if (t < d->at_ps || d->ch != ch || (!d->channel && d->die != die))
            continue;
        f->st.refused_dead++;
        if (d->channel)
            return err_set(e, -EIO, "channel %u stopped answering at %.6f ms (injected fault)", ch,
                           d->at_ps / 1e9);
        return err_set(e, -EIO,
                       "die %u of channel %u stopped answering at %.6f ms (injected "
                       "fault)",
                       die, ch, d->at_ps / 1e9);
    }
    return 0;
}

void flash_fault_add_retry_time(struct flash_fault *f, uint64_t ps)
{
    f->st.retry_ps += ps;
}

void flash_fault_get_stats(const struct flash_fault *f, struct flash_fault_stats *s)
{
    *s = f->st;
}

/* splitmix64's finaliser: consecutive inputs give unrelated outputs. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void flash_fault_cfg_for_node(struct flash_fault_cfg *c, uint32_t node)
{
    int w = node == FLASH_FAULT_NODE_WN;

    c->seed = flash_fault_node_seed(c->seed, node);
    if (c->age_of[w]) {
        c->age_pe = c->age_pe_of[w];
        c->age_s = c->age_s_of[w];
    }
}

uint64_t flash_fault_node_seed(uint64_t seed, uint32_t node)
{
    uint64_t s = mix64(seed * 0x9E3779B97F4A7C15ull + mix64((uint64_t)node + 1));

    return s ? s : 1;
}

/* ------------------------------------------------------------------ the --fault grammar */

#define KINDS "rber, age, program, wear, die, channel, power, seed"

/* One KEY=VALUE of a spec: its value as a double, or as a time in ps (suffix ns/us/ms/s). */
struct kv {
    char key[16];
    char val[48];
};

static int number(const char *spec, const struct kv *p, double lo, double hi, double *out,
                  struct err *e)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(p->val, &end);
    if (errno || end == p->val || *end || !(v >= lo && v <= hi) ||
        isspace((unsigned char)p->val[0]))
        return err_set(e, -EINVAL, "--fault '%s': %s=%s; accepted a number in %g..%g", spec, p->key,
                       p->val, lo, hi);
    *out = v;
    return 0;
}

static int duration(const char *spec, const struct kv *p, uint64_t *out, struct err *e)
{
    static const struct {
        const char *unit;
        double ps;
    } units[] = {{"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
    char *end;
    double v;

    errno = 0;
    v = strtod(p->val, &end);
    for (size_t i = 0;
         !errno && end != p->val && v >= 0.0 && !isspace((unsigned char)p->val[0]) && i < 4; i++)
        if (!strcmp(end, units[i].unit) && v * units[i].ps < 1.8e19) {
            *out = (uint64_t)llround(v * units[i].ps);
            return 0;
        }
    return err_set(e, -EINVAL,
                   "--fault '%s': %s=%s; accepted a time >= 0 with a unit (ns, us, "
                   "ms or s), e.g. 12ms",
                   spec, p->key, p->val);
}

/* Split "k=v,k=v" into kv[]; *n pairs. */
static int split(const char *spec, const char *args, struct kv *kv, int max, int *n, struct err *e)
{
    *n = 0;
    while (args && *args) {
        const char *eq = strchr(args, '='), *comma = strchr(args, ',');
        size_t klen, vlen;

        if (!comma)
            comma = args + strlen(args);
        if (!eq || eq > comma || *n == max)
            return err_set(e, -EINVAL,
                           "--fault '%s': '%.*s' is not KEY=VALUE; accepted "
                           "KIND[:KEY=VALUE[,KEY=VALUE]...]",
                           spec, (int)(comma - args), args);
        klen = (size_t)(eq - args);
        vlen = (size_t)(comma - eq - 1);
        if (!klen || klen >= sizeof(kv->key) || !vlen || vlen >= sizeof(kv->val))
            return err_set(e, -EINVAL,
                           "--fault '%s': '%.*s': an empty or too long key or "
                           "value",
                           spec, (int)(comma - args), args);
        memcpy(kv[*n].key, args, klen);
        kv[*n].key[klen] = 0;
        memcpy(kv[*n].val, eq + 1, vlen);
        kv[*n].val[vlen] = 0;
        (*n)++;
        args = *comma ? comma + 1 : comma;
    }
    return 0;
}

/* The value of key `want` among kv (required), or -EINVAL naming the keys of the kind. */
static const struct kv *need(const char *spec, const struct kv *kv, int n, const char *want,
                             const char *keys, struct err *e)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(kv[i].key, want))
            return &kv[i];
    err_set(e, -EINVAL, "--fault '%s': no %s=; this kind takes %s", spec, want, keys);
    return NULL;
}

/* Whether keys ("a=A,b=B") names key. */
static bool takes(const char *keys, const char *key)
{
    size_t n = strlen(key);

    for (const char *k = keys; k; k = strchr(k, ',') ? strchr(k, ',') + 1 : NULL)
        if (!strncmp(k, key, n) && k[n] == '=')
            return true;
    return false;
}

static int only(const char *spec, const struct kv *kv, int n, const char *keys, struct err *e)
{
    for (int i = 0; i < n; i++)
        if (!takes(keys, kv[i].key))
            return err_set(e, -EINVAL, "--fault '%s': unknown key '%s'; this kind takes %s", spec,
                           kv[i].key, keys);
    return 0;
}

static int parse_dead(struct flash_fault_cfg *c, const char *spec, bool channel,
                      const struct kv *kv, int n, struct err *e)
{
    const char *keys = channel ? "ch=C,at=T" : "ch=C,die=D,at=T";
    const struct kv *ch, *die = NULL, *at;
    struct flash_dead d = {.channel = channel};
    double x;
    int rc;

    if ((rc = only(spec, kv, n, keys, e)) || !(ch = need(spec, kv, n, "ch", keys, e)) ||
        (!channel && !(die = need(spec, kv, n, "die", keys, e))) ||
        !(at = need(spec, kv, n, "at", keys, e)))
        return rc ? rc : -EINVAL;
    if (c->n_dead == FLASH_FAULT_MAX_DEAD)
        return err_set(e, -EINVAL, "--fault '%s': more than %d dies and channels made to stop",
                       spec, FLASH_FAULT_MAX_DEAD);
    if ((rc = number(spec, ch, 0, 65535, &x, e)) || x != floor(x))
        return rc ? rc
                  : err_set(e, -EINVAL, "--fault '%s': ch=%s; accepted an integer", spec, ch->val);
    d.ch = (uint32_t)x;
    if (die) {
        if ((rc = number(spec, die, 0, 65535, &x, e)) || x != floor(x))
            return rc ? rc
                      : err_set(e, -EINVAL, "--fault '%s': die=%s; accepted an integer", spec,
                                die->val);
        d.die = (uint32_t)x;
    }
    if ((rc = duration(spec, at, &d.at_ps, e)))
        return rc;
    c->dead[c->n_dead++] = d;
    return 0;
}

/* One specification into *c; *c may be changed in part when it is refused (see below). */
static int parse_into(struct flash_fault_cfg *c, const char *spec, struct err *e)
{
    const char *colon = strchr(spec, ':');
    size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
    struct kv kv[4];
    const struct kv *p, *q;
    double x;
    int n, rc;

#define IS(k) (klen == strlen(k) && !strncmp(spec, k, klen))
    if ((rc = split(spec, colon ? colon + 1 : NULL, kv, 4, &n, e)))
        return rc;
    if (IS("rber")) {
        if ((rc = only(spec, kv, n, "x=F", e)) || !(p = need(spec, kv, n, "x", "x=F", e)) ||
            (rc = number(spec, p, 0, 1e12, &c->rber_x, e)))
            return rc ? rc : -EINVAL;
    } else if (IS("age")) {
        static const char keys[] = "pe=N,days=D,node=an|wn";
        const struct kv *nd = NULL;
        uint32_t *pe = &c->age_pe;
        double *age = &c->age_s;
        for (int i = 0; i < n; i++)
            if (!strcmp(kv[i].key, "node"))
                nd = &kv[i];
        if (nd && strcmp(nd->val, "an") && strcmp(nd->val, "wn"))
            return err_set(e, -EINVAL, "--fault '%s': node=%s; accepted an or wn", spec, nd->val);
        if (nd) {
            int w = !strcmp(nd->val, "wn");
            c->age_of[w] = true;
            pe = &c->age_pe_of[w];
            age = &c->age_s_of[w];
        }
        if ((rc = only(spec, kv, n, keys, e)) || !(p = need(spec, kv, n, "pe", keys, e)) ||
            !(q = need(spec, kv, n, "days", keys, e)) || (rc = number(spec, p, 0, 4e9, &x, e)))
            return rc ? rc : -EINVAL;
        *pe = (uint32_t)x;
        if ((rc = number(spec, q, 0, 1e6, &x, e)))
            return rc;
        *age = x * 86400.0;
    } else if (IS("program")) {
        if ((rc = only(spec, kv, n, "rate=P", e)) ||
            !(p = need(spec, kv, n, "rate", "rate=P", e)) ||
            (rc = number(spec, p, 0, 1, &c->program_rate, e)))
            return rc ? rc : -EINVAL;
    } else if (IS("wear")) {
        static const char keys[] = "pe=N,bad=F,shape=B";
        if ((rc = only(spec, kv, n, keys, e)))
            return rc;
        for (int i = 0; i < n; i++) {
            bool pe = !strcmp(kv[i].key, "pe"), bad = !strcmp(kv[i].key, "bad");
            if ((rc = number(spec, &kv[i],
                             pe    ? 1
                             : bad ? 1e-9
                                   : 1,
                             pe    ? 4e9
                             : bad ? 0.999
                                   : 100,
                             &x, e)))
                return rc;
            *(pe ? &c->wear_pe : bad ? &c->wear_bad : &c->wear_shape) = x;
        }
        c->wear = true;
    } else if (IS("die") || IS("channel")) {
        if ((rc = parse_dead(c, spec, IS("channel"), kv, n, e)))
            return rc;
    } else if (IS("power")) {
        if ((rc = only(spec, kv, n, "at=T", e)) || !(p = need(spec, kv, n, "at", "at=T", e)) ||
            (rc = duration(spec, p, &c->power_ps, e)))
            return rc ? rc : -EINVAL;
    } else if (IS("seed")) {
        if ((rc = only(spec, kv, n, "n=S", e)) || !(p = need(spec, kv, n, "n", "n=S", e)))
            return rc ? rc : -EINVAL;
        if ((rc = number(spec, p, 1, 9007199254740992.0, &x, e)) || x != floor(x))
            return rc ? rc
                      : err_set(e, -EINVAL, "--fault '%s': n=%s; accepted an integer >= 1", spec,
                                p->val);
        c->seed = (uint64_t)x;
    } else {
        return err_set(e, -EINVAL, "--fault '%s': unknown kind '%.*s'; accepted " KINDS, spec,
                       (int)klen, spec);
    }
#undef IS
    c->on = true;
    return 0;
}

int flash_fault_parse(struct flash_fault_cfg *c, const char *spec, struct err *e)
{
    struct flash_fault_cfg t = *c; /* a refused specification changes nothing */
    int rc = parse_into(&t, spec, e);

    if (!rc)
        *c = t;
    return rc;
}
