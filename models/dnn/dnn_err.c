#include "models/dnn/dnn_err.h"

#include <stdarg.h>
#include <stdio.h>

int dnn_err_set(struct dnn_err *e, int code, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

void dnn_err_clear(struct dnn_err *e)
{
    if (e)
        e->msg[0] = '\0';
}
