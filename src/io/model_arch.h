/* model_arch.h -- the model_type table: what each HF family implies, and its own keys' hook. */
#ifndef ZS_MODEL_ARCH_H
#define ZS_MODEL_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/model.h"

#define JSON_BIG ((int64_t)1 << 53) /* wide bounds; model_validate applies the real ones */

typedef struct arch arch;
/* A family's own keys, read after the common ones (MoE layout, MLA, Falcon's variants). */
typedef int (*family_fn)(const cJSON *j, const arch *a, model *m, zs_error *err);

/* What each HF model_type implies; the config's own keys may override the *_default fields.
 * Sources: the HF transformers configuration_*.py (defaults) and modeling_*.py (tensor
 * shapes) of each type, read at v4.57. */
struct arch {
    const char *type;
    bool gated_mlp;
    norm_kind norm;
    bool norm_bias;
    pos_kind pos;
    bool fused_qkv;
    bool fused_gate_up;
    bool qkv_bias, out_bias, mlp_bias; /* defaults; llama-family configs override with
                                          attention_bias / mlp_bias */
    bool tied_default;                 /* the config class's tie_word_embeddings default */
    bool embedding_norm;
    bool moe;        /* reads num_local_experts / num_experts_per_tok */
    bool bias_keys;  /* honours attention_bias and mlp_bias keys */
    int block_norms; /* h-wide norms per block (0: 2) */
    qknorm_kind qk_norm;
    family_fn family;     /* the family's own keys; NULL for none */
    const char *text;     /* a wrapper (vision-language): the row its text_config is read with
                             when text_config does not name a known model_type; NULL: none */
    const char *defaults; /* JSON object: the config class's defaults for keys a
                             published config may leave out */
};

/* Row i of the table, or NULL past its end. Never fails. */
const arch *model_arch_at(size_t i);

/* The row of model_type `type`, or NULL. Never fails. */
const arch *model_arch_find(const char *type);

/* The supported model_type values, "a, b or c", into list (len bytes); returns list. */
const char *model_arch_types(char *list, size_t len);

/* Families' own keys (model_family.c, model_hybrid.c). Each reads what its HF configuration
 * class adds to the common keys and fails with ZS_ERR_INPUT naming the field. */
int fam_sliding(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_qwen2(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_gemma2(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_gemma3(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_phi(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_falcon(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_olmo(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_cohere(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_cohere2(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_qwen_moe(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_deepseek(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_t5(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_olmoe(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_phimoe(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_gpt_oss(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_llama4(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_qwen3_next(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_glm4_moe(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_minimax_m2(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_ernie(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_smollm3(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_exaone4(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_olmo3(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_nemotron_h(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_falcon_h1(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_bamba(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_granite_hybrid(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_jamba(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_mimo_v2(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_gemma3n(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_gemma4(const cJSON *j, const arch *a, model *m, zs_error *err);
int fam_generic(const cJSON *j, const arch *a, model *m, zs_error *err);

/* Helpers the family hooks share (model_family.c). */
/* A whole number at key, read with wide bounds (model_validate checks the real ones); a value
 * past them fails naming key, the value as written and field's range (model_field_bounds;
 * read_int: key's own). */
int read_int(const cJSON *j, const char *key, int64_t *out, zs_error *err);
int read_int_as(const cJSON *j, const char *key, const char *field, int64_t *out, zs_error *err);
int64_t count_layer_types(const cJSON *j, const char *what);
int read_pattern(const cJSON *j, model *m, int64_t pattern, zs_error *err);

#endif
