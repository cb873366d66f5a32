/*
 * dnn_err: error messages for people, shared by the models/dnn modules.
 *
 * Contract
 * --------
 * Modelled: nothing; a fixed-size message buffer. Functions of models/dnn that act return 0 or a
 * negative errno code and, on error, write one line into a caller-owned struct dnn_err saying
 * what was wrong, where (file, spec position, layer, row) and what would be accepted.
 * Not modelled: logging (the caller prints the message).
 * Units: none.
 */
#ifndef MODELS_DNN_DNN_ERR_H
#define MODELS_DNN_DNN_ERR_H

#define DNN_ERR_LEN 512

struct dnn_err {
    char msg[DNN_ERR_LEN];
};

/* Format a message into e (NULL: dropped) and return code, so `return dnn_err_set(...)`. */
int dnn_err_set(struct dnn_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void dnn_err_clear(struct dnn_err *e);

#endif
