#include "models/flash/flash_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int flash_err_set(struct flash_err *e, int code, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

int flash_err_prefix(struct flash_err *e, int code, const char *fmt, ...)
{
    char old[FLASH_ERR_LEN];
    char pre[FLASH_ERR_LEN];
    size_t n, m;
    va_list ap;

    if (!e)
        return code;
    memcpy(old, e->msg, sizeof(old));
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

void flash_err_clear(struct flash_err *e)
{
    if (e)
        e->msg[0] = '\0';
}
