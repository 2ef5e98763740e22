/* cache.h -- answers kept by request: the page asks the same settings again and again (typing
 * back, a shared link), and an answer depends only on its request and the catalogs. */
#ifndef ZS_SERVE_CACHE_H
#define ZS_SERVE_CACHE_H

#include <stddef.h>

/* The default number of answers kept, and the largest answer kept. */
#define SERVE_CACHE_ENTRIES 256
#define SERVE_CACHE_MAX_ANSWER ((size_t)1 << 18)

typedef struct serve_cache serve_cache;

/* A cache of at most entries answers (each slot chosen by the request's hash; a newer answer
 * replaces an older one in its slot). Returns NULL when entries is 0 (no cache: the other
 * functions then do nothing) or memory runs out. Safe from several threads at once. */
serve_cache *serve_cache_new(size_t entries);

/* A copy (free it) of the answer kept for request, its exit status in *rc; NULL when none. */
char *serve_cache_get(serve_cache *c, const char *request, int *rc);

/* Keep answer (copied) for request; one larger than SERVE_CACHE_MAX_ANSWER, or out of memory,
 * keeps nothing. Never fails. */
void serve_cache_put(serve_cache *c, const char *request, const char *answer, int rc);

/* Free the cache and its answers (NULL is ignored). */
void serve_cache_free(serve_cache *c);

#endif
