/* assets.c -- finding the embedded page files by URL path. */
#include "serve/assets.h"

#include <string.h>

const serve_asset *serve_asset_find(const char *path)
{
    if (strcmp(path, "/") == 0) path = "/index.html";
    for (const serve_asset *a = serve_assets; a->path; a++)
        if (strcmp(a->path, path) == 0) return a;
    return NULL;
}
