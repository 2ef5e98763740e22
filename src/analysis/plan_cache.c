/* plan_cache.c -- what one search worker keeps between configurations: inputs and batch rates. */
#include "analysis/plan_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "core/steptime.h"

/* A prepared input kept for the next configuration that differs from it only in the
 * micro-batch, the accumulation or the recomputation: the search's inner loops. Slotted by
 * what else the inner loops vary (offload, EP, framework), so each keeps its own; a collision
 * only prepares afresh. */
enum { PREP_SLOTS = 16 };
typedef struct prep_slot {
    bool ok;     /* in holds t's preparation */
    training t;  /* the training in was prepared for */
    sim_input in;
} prep_slot;

/* The searched dimensions the batch rates read (sim_batch: not the GPU count, the
 * accumulation, offload or EP), packed into two words; a configuration whose values do not
 * fit the fields is not kept. */
typedef plan_key rates_key;

typedef struct rates_entry {
    rates_key k;
    sim_batch b;
    double overhead; /* the input's step_overhead (the framework's, fixed for the key) */
} rates_entry;

enum { INDEX_MIN = 8192, RATES_MAX = 1 << 14 };

struct plan_cache {
    prep_slot prep[PREP_SLOTS];
    uint32_t *index;       /* open addressing over the entries: 0 empty, else entry + 1 */
    size_t cap;            /* index slots, a power of two, at least twice the entries */
    rates_entry *entries;  /* in the order kept */
    size_t n, room;        /* entries kept, allocated */
};

plan_cache *plan_cache_new(void)
{
    plan_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cap = INDEX_MIN;
    c->index = calloc(c->cap, sizeof *c->index);
    if (!c->index) {
        free(c);
        return NULL;
    }
    return c;
}

void plan_cache_free(plan_cache *c)
{
    if (!c) return;
    free(c->index);
    free(c->entries);
    free(c);
}

/* Whether a and b differ at most in the fields sim_prepare_batch redoes. Bytes compared, so a
 * difference in padding only prepares afresh. */
static bool same_but_batch(const training *a, const training *b)
{
    training x = *b;
    x.micro_batch = a->micro_batch;
    x.grad_accum = a->grad_accum;
    x.checkpointing = a->checkpointing;
    return memcmp(&x, a, sizeof x) == 0;
}

bool plan_cache_key(const training *t, int fi, plan_key *k)
{
    /* Each field's width; a negative value is huge as unsigned, so it fails the test too. */
    uint64_t tp = (uint64_t)t->tp, cp = (uint64_t)t->cp, pp = (uint64_t)t->pp;
    uint64_t v = (uint64_t)t->virtual_stages, ck = (uint64_t)t->checkpointing;
    uint64_t sp = (uint64_t)t->sequence_parallel, f = (uint64_t)fi, mb = (uint64_t)t->micro_batch;
    uint64_t first = (uint64_t)t->pp_first_layers, last = (uint64_t)t->pp_last_layers;
    /* GEMMs by shape (gemm.c) run the routed experts at T k EP / E rows, split over ETP: the
     * rates then read EP and ETP too. (Without them a plan ranked Qwen3-Next at EP 8 with
     * EP 1's expert GEMMs, 3.4x its compute; fuzz_flags.) */
    bool shapes = t->gemm_shapes != 0;
    uint64_t ep = shapes ? (uint64_t)t->ep : 0, etp = shapes ? (uint64_t)t->etp : 0;
    if ((tp >> 16 | cp >> 8 | pp >> 12 | v >> 8 | ck >> 2 | sp >> 1 | f >> 4 | mb >> 24 | first >> 12 |
            last >> 12 | ep >> 8 | etp >> 8) != 0)
        return false;
    k->w[0] = tp | cp << 16 | pp << 24 | v << 36 | ck << 44 | sp << 46 | f << 47;
    k->w[1] = mb | first << 24 | last << 36 | ep << 48 | etp << 56;
    return true;
}

static size_t hash_of(const rates_key *k)
{
    uint64_t h = (k->w[0] ^ 0x9E3779B97F4A7C15u) * 0xBF58476D1CE4E5B9u;
    h = (h ^ k->w[1] ^ (h >> 29)) * 0x94D049BB133111EBu;
    return (size_t)(h ^ (h >> 32));
}

/* The index slot of k: its entry's, or the empty one where it would go. */
static uint32_t *slot_of(const plan_cache *c, const rates_key *k)
{
    for (size_t i = hash_of(k) & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        uint32_t *s = &c->index[i];
        if (!*s) return s;
        const rates_key *o = &c->entries[*s - 1].k;
        if (o->w[0] == k->w[0] && o->w[1] == k->w[1]) return s;
    }
}

/* Keep b under k (not kept: k is; past the limit or out of memory nothing is kept). */
static void keep(plan_cache *c, const rates_key *k, const sim_batch *b, double overhead)
{
    if (c->n >= RATES_MAX) return;
    if (c->n == c->room) {
        size_t room = c->room ? 2 * c->room : 1024;
        rates_entry *e = realloc(c->entries, room * sizeof *e);
        if (!e) return;
        c->entries = e;
        c->room = room;
    }
    if (2 * (c->n + 1) > c->cap) {
        uint32_t *old = c->index, *grown = calloc(2 * c->cap, sizeof *grown);
        if (!grown) return;
        c->index = grown;
        c->cap *= 2;
        for (size_t i = 0; i < c->n; i++) *slot_of(c, &c->entries[i].k) = (uint32_t)(i + 1);
        free(old);
    }
    c->entries[c->n] = (rates_entry){*k, *b, overhead};
    *slot_of(c, k) = (uint32_t)++c->n;
}

/* The batch part of p's input for t: from the rates kept for t's configuration, else computed
 * and kept. */
static int batch(plan_cache *c, prep_slot *p, const plan_key *k, const sim_batch *kept, const training *t,
    zs_error *err)
{
    if (kept) return sim_prepare_batch_from(&p->in, t, kept, err);
    if (sim_prepare_batch(&p->in, t, err)) return err->code;
    if (k) {
        sim_batch b = sim_batch_of(&p->in);
        keep(c, k, &b, p->in.step_overhead);
    }
    return ZS_OK;
}

bool plan_cache_bound(const plan_cache *c, const plan_key *k, const training *t, double *bound)
{
    if (!c) return false;
    const uint32_t *s = slot_of(c, k);
    if (!*s) return false;
    const rates_entry *e = &c->entries[*s - 1];
    *bound = steptime_batch_bound(t, e->b.mb, e->b.pipe_pace, e->overhead);
    return true;
}

sim_input *plan_cache_prepare(plan_cache *c, const scenario *sc, const plan_key *k, int fi, const training *t,
    sim_input *scratch, zs_error *err)
{
    if (!c) return sim_prepare_lazy(scratch, sc->m, sc->pc, sc->hw, t, err) ? NULL : scratch;
    unsigned ep = t->ep > 1 ? (unsigned)__builtin_ctzll((unsigned long long)t->ep) : 0;
    unsigned slot = ((unsigned)fi * 5u + (unsigned)t->offload_optimizer * 3u + (unsigned)t->offload_params +
                        ep * 7u) % PREP_SLOTS;
    prep_slot *p = &c->prep[slot];
    const uint32_t *s = k ? slot_of(c, k) : NULL;
    const sim_batch *kept = s && *s ? &c->entries[*s - 1].b : NULL;
    if (p->ok && same_but_batch(&p->t, t)) {
        if (batch(c, p, k, kept, t, err)) return NULL; /* p->in still p->t's */
    } else {
        p->ok = (kept ? sim_prepare_lazy_from(&p->in, sc->m, sc->pc, sc->hw, t, kept, err)
                      : sim_prepare_lazy(&p->in, sc->m, sc->pc, sc->hw, t, err)) == ZS_OK;
        if (!p->ok) return NULL;
        if (k && !kept) {
            sim_batch b = sim_batch_of(&p->in);
            keep(c, k, &b, p->in.step_overhead);
        }
    }
    p->t = *t;
    return &p->in;
}
