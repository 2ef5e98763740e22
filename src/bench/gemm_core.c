/* gemm_core.c -- gemm --model NAME: the model's sizes through zerosim's own loader (models/NAME.json, HF
 * config). */
#include "gemm.h"

#include <stdio.h>
#include <string.h>

#ifdef ZB_HAVE_CORE
#include "../io/catalog.h"
#include "../io/model_json.h"

int gemm_model_lookup(const char *name, struct gemm_model_dims *d, char *err, size_t len)
{
    char path[4096];
    zs_error e = {0};
    model m;
    memset(&e, 0, sizeof e);
    memset(&m, 0, sizeof m);
    if (catalog_resolve("models", name, path, sizeof path, &e) != 0 || model_load(path, &m, &e) != 0) {
        snprintf(err, len, "%s", e.msg);
        return -1;
    }
    if (m.params_only || m.num_experts > 0) {
        snprintf(err, len, "%s is %s: give --hidden, --ffn, --heads and --vocab", path,
            m.params_only ? "a parameter count only"
                          : "a mixture of experts (expert GEMMs depend on routing)");
        return -1;
    }
    d->hidden = m.hidden_size;
    d->ffn = m.intermediate_size;
    d->heads = m.num_heads;
    d->kv_heads = m.num_kv_heads;
    d->head_dim = m.head_dim;
    d->vocab = m.vocab_size;
    d->gated = m.gated_mlp ? 1 : 0;
    return 0;
}
#else
int gemm_model_lookup(const char *name, struct gemm_model_dims *d, char *err, size_t len)
{
    (void)name;
    (void)d;
    snprintf(err, len,
        "this zerobench was built without zerosim's model loader (build it with the "
        "top-level make): give --hidden, --ffn, --heads and --vocab");
    return -1;
}
#endif
