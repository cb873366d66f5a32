/*
 * flash_err: error messages for people, shared by the flash models and the FTLs.
 *
 * Contract
 * --------
 * Modelled: nothing; a fixed-size message buffer. Functions of the flash models that act return
 * 0 or a negative errno code and, on error, write one line saying what was wrong, where (the
 * address or config key) and what would be accepted.
 * Not modelled: error codes of real NAND (status register bits); logging (the caller prints).
 * Units: none.
 */
#ifndef MODELS_FLASH_FLASH_ERR_H
#define MODELS_FLASH_FLASH_ERR_H

#include <stddef.h>

#define FLASH_ERR_LEN 384

struct flash_err {
    char msg[FLASH_ERR_LEN];
};

/* Format a message into e (NULL: dropped) and return code, so `return flash_err_set(...)`. */
int flash_err_set(struct flash_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix the message already in e with "prefix: " (e.g. the stream name). Returns code. */
int flash_err_prefix(struct flash_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void flash_err_clear(struct flash_err *e);

#endif
