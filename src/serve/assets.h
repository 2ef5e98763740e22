/* assets.h -- the page's files (src/serve/web/), embedded in the binary at build time. */
#ifndef ZS_SERVE_ASSETS_H
#define ZS_SERVE_ASSETS_H

#include <stddef.h>

typedef struct serve_asset {
    const char *path;          /* "/app.js": the URL path it is served at */
    const char *type;          /* its Content-Type */
    const unsigned char *data; /* its bytes (not NUL-terminated) */
    size_t len;
} serve_asset;

/* The table src/serve/embed.sh generates, ended by an entry whose path is NULL. */
extern const serve_asset serve_assets[];

/* The asset served at path ("/" is "/index.html"), or NULL: nothing else is served, so there
 * is no file system behind the URLs and no directory listing. Never fails. */
const serve_asset *serve_asset_find(const char *path);

#endif
