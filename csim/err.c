/*
 * err.c - format and prefix a message for people; see err.h.
 */
#include "csim/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, int code, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

int err_prefix(struct err *e, int code, const char *fmt, ...)
{
    char old[ERR_MSG_LEN];
    char pre[ERR_MSG_LEN];
    size_t n, m;
    va_list ap;

    if (!e)
        return code;
    memcpy(old, e->msg, sizeof(old));
    old[sizeof(old) - 1] = '\0';
    va_start(ap, fmt);
    vsnprintf(pre, sizeof(pre), fmt, ap);
    va_end(ap);
    n = strlen(pre);
    if (n > sizeof(e->msg) - 3)
        n = sizeof(e->msg) - 3;
    memcpy(e->msg, pre, n);
    memcpy(e->msg + n, ": ", 2);
    n += 2;
    m = strlen(old);
    if (m > sizeof(e->msg) - 1 - n)
        m = sizeof(e->msg) - 1 - n;
    memcpy(e->msg + n, old, m);
    e->msg[n + m] = '\0';
    return code;
}

void err_clear(struct err *e)
{
    if (e)
        e->msg[0] = '\0';
}
