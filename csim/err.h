/*
 * err: the error message for people, one type shared by every module outside the verilated
 * models' shims.
 *
 * Contract
 * --------
 * Modelled: nothing; a fixed-size message buffer owned by the caller. The rules of the tree:
 *   - A function that acts and can fail returns 0 or a negative errno code and takes
 *     `struct err *e` as its last parameter. On error it writes ONE line into e saying what was
 *     wrong, where (the address, config key, file, node, stream, event) and what would be
 *     accepted. e may be NULL: the message is dropped, the code is still returned.
 *   - A constructor has one shape: int x_create(const struct x_cfg *cfg, struct x **out,
 *     struct err *e) (without a configuration: x_create(struct x **out, struct err *e)); extra
 *     required arguments, such as the model an object sits on, go between cfg and out.
 *   - A layer that passes a lower layer's failure on adds its own context in front with
 *     err_prefix ("stream 'W': <the lower message>") and returns the lower layer's code
 *     unchanged, also where it copies the text into another err (err_set(e, rc, "%s", ...)).
 *   - A caller that must tell one failure from another tests the code, never the text: the
 *     message is for people and is reworded freely. The module that sets a code someone acts
 *     on says what it means in its contract; the one that crosses the most layers:
 *       -EBADMSG  a flash page failed every read retry, its data are lost (the code Linux's MTD
 *                 layer gives an uncorrectable ECC error). Set by flash_fms's reads only;
 *                 passed up by flash_ctrl, ftl_stream, nflash (or ssd, nssd), the nodes and
 *                 the machine's run; read by flashstream train, whose step falls back to its
 *                 last checkpoint. test_flash_fms checks the flash model sets it and
 *                 test_machine that it reaches machine_step from either kind of node.
 *   - Read e->msg only after a non-zero return: a call that succeeds may have written to it
 *     on the way (a failure it recovered from).
 *   - Functions on hot paths that cannot fail take no err. Accessors that model what a memory
 *     or port answers (dram_read/dram_write and their beats, core_twin_dma_*) return the code
 *     the hardware sees, with no message: their caller says what it was moving.
 * Not modelled: logging (the caller prints e->msg), error codes beyond errno (the code is the
 *   one kind of a failure a program reads), chains of causes.
 * Units: none.
 */
#ifndef CSIM_ERR_H
#define CSIM_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a message, NUL included: longer ones are cut at ERR_MSG_LEN - 1 characters. */
#define ERR_MSG_LEN 1024

struct err {
    char msg[ERR_MSG_LEN];
};

/* Format a message into e (NULL: dropped) and return code, so `return err_set(e, -EINVAL, ...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Put "<prefix>: " in front of the message already in e (e.g. the stream or node name). Returns
 * code. */
int err_prefix(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Empty message (NULL: nothing). */
void err_clear(struct err *e);

#ifdef __cplusplus
}
#endif

#endif
