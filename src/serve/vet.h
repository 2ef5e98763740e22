/* vet.h -- what a served request may ask: the request API's commands and settings, less
 * anything that names a file on the server; uploaded contents become temporary files. */
#ifndef ZS_SERVE_VET_H
#define ZS_SERVE_VET_H

#include <stdbool.h>
#include <stddef.h>

/* The largest body a request may have (uploaded configs included): 1 MiB. */
#define SERVE_BODY_MAX ((size_t)1 << 20)
/* Bounds on the work one request asks for (the searches and grids grow with them): the
 * largest cluster searched and the most rows a sweep may have. */
#define SERVE_MAX_GPUS 4096
#define SERVE_MAX_ROWS 10000

typedef struct serve_upload {
    char dir[512]; /* the request's own temporary directory; "" when it has none */
} serve_upload;

/* Read body (len bytes, not NUL-terminated) as a request for zs_call and make it safe to
 * serve: validate (which reads runs files) is refused, and so is every setting that names a
 * file (args, weights, config, deepspeed, output); model and hardware must be catalog names
 * (letters, digits, . _ -); the searches are bounded (SERVE_MAX_GPUS, SERVE_MAX_ROWS). The
 * contents in "files" ({"model": config.json text, "deepspeed": ds_config text, "config":
 * Axolotl/LLaMA-Factory/accelerate YAML}) are written into a new directory under base (up)
 * and named by the request. On success *json is the request to pass on (cJSON_free it) and
 * *command its command. Fails with ZS_ERR_USAGE and one line in msg, or ZS_ERR_IO when a
 * temporary file cannot be written; either way call serve_vet_done. */
int serve_vet(const char *body, size_t len, const char *base, char **json, char *command, size_t clen,
    serve_upload *up, char *msg, size_t mlen);

/* Remove the request's temporary files and directory (none: nothing). Never fails. */
void serve_vet_done(serve_upload *up);

/* Remove each occurrence of dir and "/" from text (an answer), so a message names an upload as
 * "config.json" and a catalog as "models", not by the server's temporary paths. In place (text
 * may be NULL; dir "" does nothing); never fails. */
void serve_vet_unpath(const char *dir, char *text);

#endif
