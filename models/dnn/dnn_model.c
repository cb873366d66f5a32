#include "models/dnn/dnn_model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ACCEPTED                                                                                   \
    "accepted: \"fc-mnist\" (784-256-128-10) or \"mlp:W0-W1-...-WL\" with 2..17 decimal "          \
    "widths, each 1..65536, the last (classes) >= 2, e.g. \"mlp:784-128-10\""

_Static_assert(DNN_MAX_LAYERS + 1 == 17 && DNN_MAX_WIDTH == 65536, "update ACCEPTED");

static void build(struct dnn_model *m, const uint32_t *w, uint32_t n_widths)
{
    memset(m, 0, sizeof(*m));
    m->n_layers = n_widths - 1;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        m->layer[l].in = w[l];
        m->layer[l].out = w[l + 1];
        m->layer[l].act = l + 1 < m->n_layers ? DNN_ACT_RELU : DNN_ACT_NONE;
    }
}

/* Parse "W0-W1-...": decimal digits only, separated by single '-'. */
static int parse_widths(struct dnn_model *m, const char *spec, const char *list, struct err *e)
{
    uint32_t w[DNN_MAX_LAYERS + 1];
    uint32_t n = 0;
    const char *s = list;

    for (;;) {
        size_t pos = (size_t)(s - spec);
        uint64_t v = 0;
        const char *d = s;

        while (*d >= '0' && *d <= '9') {
            v = v * 10 + (uint64_t)(*d - '0');
            if (v > DNN_MAX_WIDTH)
                return err_set(e, -EINVAL,
                               "model spec \"%s\": width at position %zu exceeds %u; " ACCEPTED,
                               spec, pos, DNN_MAX_WIDTH);
            d++;
        }
        if (d == s && *s)
            return err_set(e, -EINVAL,
                           "model spec \"%s\": expected a decimal width at position %zu, "
                           "found '%c'; " ACCEPTED,
                           spec, pos, *s);
        if (d == s)
            return err_set(e, -EINVAL,
                           "model spec \"%s\": expected a decimal width at position %zu, "
                           "found the end of the spec; " ACCEPTED,
                           spec, pos);
        if (v == 0)
            return err_set(e, -EINVAL, "model spec \"%s\": width 0 at position %zu; " ACCEPTED,
                           spec, pos);
        if (n == DNN_MAX_LAYERS + 1)
            return err_set(e, -EINVAL,
                           "model spec \"%s\": more than %u layers (%u widths); " ACCEPTED, spec,
                           DNN_MAX_LAYERS, DNN_MAX_LAYERS + 1);
        w[n++] = (uint32_t)v;
        s = d;
        if (*s == '\0')
            break;
        if (*s != '-')
            return err_set(e, -EINVAL,
                           "model spec \"%s\": unexpected '%c' at position %zu, widths are "
                           "separated by '-'; " ACCEPTED,
                           spec, *s, (size_t)(s - spec));
        s++;
    }
    if (n < 2)
        return err_set(e, -EINVAL,
                       "model spec \"%s\": %u width given, a model needs inputs and classes "
                       "(at least 2 widths); " ACCEPTED,
                       spec, n);
    if (w[n - 1] < 2)
        return err_set(
            e, -EINVAL,
            "model spec \"%s\": %u class, softmax-cross-entropy needs at least 2; " ACCEPTED, spec,
            w[n - 1]);
    build(m, w, n);
    return 0;
}

int dnn_model_parse(struct dnn_model *m, const char *spec, struct err *e)
{
    static const uint32_t fc_mnist[] = {784, 256, 128, 10};
    int rc;

    memset(m, 0, sizeof(*m));
    if (!spec || !*spec)
        return err_set(e, -EINVAL, "model spec is empty; " ACCEPTED);
    if (strcmp(spec, "fc-mnist") == 0) {
        build(m, fc_mnist, 4);
        return 0;
    }
    if (strncmp(spec, "mlp:", 4) != 0)
        return err_set(e, -EINVAL, "model spec \"%s\": unknown model; " ACCEPTED, spec);
    rc = parse_widths(m, spec, spec + 4, e);
    if (rc)
        memset(m, 0, sizeof(*m));
    return rc;
}

int dnn_model_format(const struct dnn_model *m, char *buf, size_t len)
{
    int n = 0;

    if (len)
        buf[0] = '\0';
    for (uint32_t l = 0; l <= m->n_layers && m->n_layers; l++) {
        uint32_t w = l < m->n_layers ? m->layer[l].in : m->layer[l - 1].out;
        size_t off = (size_t)n < len ? (size_t)n : len;
        int k = snprintf(len > off ? buf + off : NULL, len > off ? len - off : 0, "%s%u",
                         l ? "-" : "", w);

        if (k < 0)
            return k;
        n += k;
    }
    return n;
}

uint32_t dnn_model_inputs(const struct dnn_model *m)
{
    return m->n_layers ? m->layer[0].in : 0;
}

uint32_t dnn_model_classes(const struct dnn_model *m)
{
    return m->n_layers ? m->layer[m->n_layers - 1].out : 0;
}

uint32_t dnn_model_max_width(const struct dnn_model *m)
{
    uint32_t w = 0;

    for (uint32_t l = 0; l < m->n_layers; l++) {
        w = m->layer[l].in > w ? m->layer[l].in : w;
        w = m->layer[l].out > w ? m->layer[l].out : w;
    }
    return w;
}

uint64_t dnn_model_layer_weights(const struct dnn_model *m, uint32_t l)
{
    return (uint64_t)m->layer[l].in * m->layer[l].out;
}

uint64_t dnn_model_layer_params(const struct dnn_model *m, uint32_t l)
{
    return dnn_model_layer_weights(m, l) + m->layer[l].out;
}

uint64_t dnn_model_params(const struct dnn_model *m)
{
    uint64_t n = 0;

    for (uint32_t l = 0; l < m->n_layers; l++)
        n += dnn_model_layer_params(m, l);
    return n;
}

uint64_t dnn_model_layer_stream_bytes(const struct dnn_model *m, uint32_t l)
{
    return 2 * dnn_model_layer_weights(m, l) + 4 * (uint64_t)m->layer[l].out;
}

uint64_t dnn_model_layer_grad_bytes(const struct dnn_model *m, uint32_t l)
{
    return 4 * dnn_model_layer_params(m, l);
}

uint64_t dnn_model_master_bytes(const struct dnn_model *m)
{
    return 4 * dnn_model_params(m);
}

uint64_t dnn_model_act_bytes_per_sample(const struct dnn_model *m)
{
    uint64_t n = 0;

    for (uint32_t l = 0; l < m->n_layers; l++)
        n += 2 * (uint64_t)m->layer[l].in;
    return n;
}
