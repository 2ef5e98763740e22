/* cache.c -- a fixed table of answers by request hash, under one mutex. */
#include "serve/cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint64_t hash;
    char *request, *answer;
    int rc;
} slot;

struct serve_cache {
    pthread_mutex_t lock;
    size_t n;
    slot *slots;
};

/* FNV-1a, 64 bits (Fowler, Noll, Vo: the offset basis and prime of the 64-bit variant). */
static uint64_t hash_of(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

serve_cache *serve_cache_new(size_t entries)
{
    if (entries == 0) return NULL;
    serve_cache *c = calloc(1, sizeof *c);
    if (c && !(c->slots = calloc(entries, sizeof *c->slots))) {
        free(c);
        return NULL;
    }
    if (!c) return NULL;
    c->n = entries;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

char *serve_cache_get(serve_cache *c, const char *request, int *rc)
{
    if (!c) return NULL;
    uint64_t h = hash_of(request);
    slot *s = &c->slots[h % c->n];
    char *copy = NULL;
    pthread_mutex_lock(&c->lock);
    if (s->request && s->hash == h && strcmp(s->request, request) == 0 && (copy = strdup(s->answer)))
        *rc = s->rc;
    pthread_mutex_unlock(&c->lock);
    return copy;
}

void serve_cache_put(serve_cache *c, const char *request, const char *answer, int rc)
{
    if (!c || strlen(answer) > SERVE_CACHE_MAX_ANSWER) return;
    uint64_t h = hash_of(request);
    char *r = strdup(request), *a = strdup(answer);
    if (!r || !a) {
        free(r);
        free(a);
        return;
    }
    slot *s = &c->slots[h % c->n];
    pthread_mutex_lock(&c->lock);
    char *old_r = s->request, *old_a = s->answer;
    *s = (slot){h, r, a, rc};
    pthread_mutex_unlock(&c->lock);
    free(old_r);
    free(old_a);
}

void serve_cache_free(serve_cache *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->slots[i].request);
        free(c->slots[i].answer);
    }
    free(c->slots);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
