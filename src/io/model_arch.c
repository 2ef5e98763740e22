/* model_arch.c -- one row per HF model_type: block shape defaults, config-class defaults, hook. */
#include "io/model_arch.h"

#include <string.h>

/* Rows name their fields; one left out is false (flags), QKNORM_NONE or NULL. */
#define RMS NORM_RMSNORM
#define LN NORM_LAYERNORM
/* One row per model type, as written (clang-format keeps them). */
/* clang-format off */
static const arch archs[] = {
    /* LlamaConfig: intermediate_size 11008 when a config leaves it out (not 4 h). */
    {.type = "llama", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .defaults = "{\"intermediate_size\":11008}"},
    {.type = "mistral", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2, .family = fam_sliding, .defaults = "{\"intermediate_size\":14336}"},
    {.type = "mixtral", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_sliding},
    {.type = "qwen2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .qkv_bias = true, .block_norms = 2,
     .family = fam_qwen2},
    /* GPT2Config: dropout probabilities default to 0.1 */
    {.type = "gpt2", .norm = LN, .norm_bias = true, .pos = POS_LEARNED, .fused_qkv = true, .qkv_bias = true,
     .out_bias = true, .mlp_bias = true, .tied_default = true, .block_norms = 2,
     .defaults = "{\"attn_pdrop\":0.1,\"resid_pdrop\":0.1,\"embd_pdrop\":0.1,\"n_positions\":1024}"},
    {.type = "gpt_neox", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .qkv_bias = true, .out_bias = true, .mlp_bias = true, .block_norms = 2},
    {.type = "bloom", .norm = LN, .norm_bias = true, .pos = POS_ALIBI, .fused_qkv = true, .qkv_bias = true,
     .out_bias = true, .mlp_bias = true, .tied_default = true, .embedding_norm = true, .block_norms = 2},
    {.type = "transformer", .norm = LN, .norm_bias = true, .pos = POS_LEARNED, .fused_qkv = true,
     .tied_default = true, .moe = true, .bias_keys = true, .block_norms = 2},
    /* Llama-shaped families: the same tensors, plus q/k norms (Qwen3) or Granite's multipliers
     * (which change no shape). Phi-3 fuses qkv_proj (one module; the count is the same). */
    {.type = "granite", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2},
    {.type = "qwen3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .qk_norm = QKNORM_HEAD, .family = fam_qwen2, .defaults = "{\"head_dim\":128}"},
    /* HF modeling_phi3.py: qkv_proj and gate_up_proj, one nn.Linear each. */
    {.type = "phi3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .fused_qkv = true,
     .fused_gate_up = true, .block_norms = 2, .family = fam_sliding},
    {.type = "starcoder2", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .qkv_bias = true,
     .out_bias = true, .mlp_bias = true, .tied_default = true, .block_norms = 2, .family = fam_sliding},
    {.type = "olmo", .gated_mlp = true, .norm = LN, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .family = fam_olmo},
    {.type = "olmo2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .qk_norm = QKNORM_FULL},
    {.type = "gemma", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 2, .defaults = "{\"head_dim\":256}"},
    {.type = "gemma2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .family = fam_gemma2,
     .defaults = "{\"head_dim\":256,\"sliding_window\":4096,\"attn_logit_softcapping\":50.0,"
                 "\"final_logit_softcapping\":30.0}"},
    /* Gemma3TextConfig defaults: the multimodal configs' text_config leaves most keys out. */
    {.type = "gemma3_text", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .qk_norm = QKNORM_HEAD, .family = fam_gemma3,
     .defaults = "{\"vocab_size\":262208,\"hidden_size\":2304,\"intermediate_size\":9216,"
                 "\"num_hidden_layers\":26,\"num_attention_heads\":8,\"num_key_value_heads\":4,"
                 "\"head_dim\":256,\"max_position_embeddings\":131072,\"sliding_window\":4096,"
                 "\"sliding_window_pattern\":6}"},
    {.type = "gemma3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .qk_norm = QKNORM_HEAD, .family = fam_gemma3},
    /* Gemma 3n and Gemma 4 (model_gemma.c): the multimodal configs nest the language model in
     * text_config; defaults are Gemma3nTextConfig's and Gemma4TextConfig's. */
    {.type = "gemma3n", .text = "gemma3n_text"},
    {.type = "gemma3n_text", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .qk_norm = QKNORM_HEAD, .family = fam_gemma3n,
     .defaults = "{\"vocab_size\":262400,\"hidden_size\":2048,\"intermediate_size\":16384,"
                 "\"num_hidden_layers\":35,\"num_attention_heads\":8,\"num_key_value_heads\":2,"
                 "\"head_dim\":256,\"max_position_embeddings\":32768,\"sliding_window\":512,"
                 "\"vocab_size_per_layer_input\":262144,\"hidden_size_per_layer_input\":256,"
                 "\"altup_num_inputs\":4,\"laurel_rank\":64,\"final_logit_softcapping\":30.0}"},
    {.type = "gemma4", .text = "gemma4_text"},
    {.type = "gemma4_text", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .qk_norm = QKNORM_HEAD, .family = fam_gemma4,
     .defaults = "{\"vocab_size\":262144,\"hidden_size\":2304,\"intermediate_size\":9216,"
                 "\"num_hidden_layers\":30,\"num_attention_heads\":8,\"num_key_value_heads\":4,"
                 "\"head_dim\":256,\"global_head_dim\":512,\"max_position_embeddings\":131072,"
                 "\"sliding_window\":512,\"vocab_size_per_layer_input\":262144,"
                 "\"hidden_size_per_layer_input\":256}"},
    {.type = "phi", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .qkv_bias = true, .out_bias = true,
     .mlp_bias = true, .block_norms = 1, .family = fam_phi},
    {.type = "falcon", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .tied_default = true, .block_norms = 1, .family = fam_falcon},
    /* Falcon's configs before its transformers port: RefinedWebModel (7B) and RefinedWeb
     * (40B, the new decoder architecture; FalconConfig maps it so). */
    {.type = "RefinedWebModel", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .tied_default = true, .block_norms = 1, .family = fam_falcon},
    {.type = "RefinedWeb", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .tied_default = true, .block_norms = 1, .family = fam_falcon,
     .defaults = "{\"new_decoder_architecture\":true}"},
    {.type = "cohere", .gated_mlp = true, .norm = LN, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 1, .family = fam_cohere},
    /* Cohere2Config defaults: a 4096-token window on three layers of every four. */
    {.type = "cohere2", .gated_mlp = true, .norm = LN, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 1, .family = fam_cohere2,
     .defaults = "{\"sliding_window\":4096,\"sliding_window_pattern\":4}"},
    {.type = "qwen2_moe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .qkv_bias = true, .moe = true,
     .block_norms = 2, .family = fam_qwen_moe},
    {.type = "qwen3_moe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .qk_norm = QKNORM_HEAD, .family = fam_qwen_moe, .defaults = "{\"head_dim\":128}"},
    {.type = "deepseek_v2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_deepseek,
     .defaults = "{\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,"
                 "\"kv_lora_rank\":512,\"q_lora_rank\":1536}"},
    {.type = "deepseek_v3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_deepseek,
     .defaults = "{\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,"
                 "\"kv_lora_rank\":512,\"q_lora_rank\":1536,\"first_k_dense_replace\":3,"
                 "\"moe_layer_freq\":1,\"n_shared_experts\":1,\"n_routed_experts\":256,"
                 "\"num_experts_per_tok\":8}"},
    /* Mixtral-shaped MoE families (every MLP top-k of E SwiGLU experts, a bias-free h x E router,
     * no shared experts). OLMoE: OLMo-2's RMS q/k norms over the whole q and k projections,
     * experts keyed num_experts. GraniteMoE: Granite's multipliers change no shape; its fused
     * input_linear (E x 2i x h) and output_linear (E x h x i) hold the same numbers as E gated
     * MLPs. PhiMoE: LayerNorms with bias, attention_bias and lm_head_bias keys. Defaults: the
     * OlmoeConfig / GraniteMoeConfig / PhimoeConfig class defaults. */
    {.type = "olmoe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .qk_norm = QKNORM_FULL, .family = fam_olmoe,
     .defaults = "{\"num_local_experts\":64,\"num_experts_per_tok\":8}"},
    {.type = "granitemoe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .defaults = "{\"num_local_experts\":8,\"num_experts_per_tok\":2}"},
    {.type = "phimoe", .gated_mlp = true, .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_phimoe,
     .defaults = "{\"num_local_experts\":16,\"num_experts_per_tok\":2}"},
    /* T5Config / MT5Config / UMT5Config defaults (t5-small's shape; dropout_rate 0.1). */
    {.type = "t5", .norm = RMS, .pos = POS_RELATIVE, .tied_default = true, .block_norms = 2,
     .family = fam_t5,
     .defaults = "{\"vocab_size\":32128,\"d_model\":512,\"d_kv\":64,\"d_ff\":2048,\"num_layers\":6,"
                 "\"num_heads\":8,\"relative_attention_num_buckets\":32,\"dropout_rate\":0.1,"
                 "\"feed_forward_proj\":\"relu\",\"n_positions\":512}"},
    {.type = "mt5", .norm = RMS, .pos = POS_RELATIVE, .block_norms = 2, .family = fam_t5,
     .defaults = "{\"vocab_size\":250112,\"d_model\":512,\"d_kv\":64,\"d_ff\":1024,\"num_layers\":8,"
                 "\"num_heads\":6,\"relative_attention_num_buckets\":32,\"dropout_rate\":0.1,"
                 "\"feed_forward_proj\":\"gated-gelu\",\"n_positions\":512}"},
    {.type = "umt5", .norm = RMS, .pos = POS_RELATIVE, .tied_default = true, .block_norms = 2,
     .family = fam_t5,
     .defaults = "{\"vocab_size\":250112,\"d_model\":512,\"d_kv\":64,\"d_ff\":1024,\"num_layers\":8,"
                 "\"num_heads\":6,\"relative_attention_num_buckets\":32,\"dropout_rate\":0.1,"
                 "\"feed_forward_proj\":\"gated-gelu\",\"n_positions\":512}"},
    /* 2025-2026 families (model_hybrid.c, model_ssm.c); defaults are each HF configuration
     * class's (transformers main, 2025-2026), for keys a published config may leave out. */
    {.type = "gpt_oss", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_gpt_oss,
     .defaults = "{\"num_local_experts\":128,\"num_experts_per_tok\":4,\"sliding_window\":128,"
                 "\"head_dim\":64,\"attention_bias\":true,\"intermediate_size\":2880}"},
    /* Llama 4: the multimodal config nests the language model in text_config. */
    {.type = "llama4", .text = "llama4_text"},
    {.type = "llama4_text", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_llama4,
     .defaults = "{\"num_local_experts\":16,\"num_experts_per_tok\":1,\"interleave_moe_layer_step\":1,"
                 "\"attention_chunk_size\":8192,\"intermediate_size\":8192,\"intermediate_size_mlp\":16384,"
                 "\"head_dim\":128}"},
    /* Qwen's published Qwen3-Next and Qwen3.5 checkpoints hold one mtp.* layer the HF class skips
     * (the Hub's 81,324,862,720 for Qwen3-Next-80B-A3B is the class's count plus exactly one
     * such layer): offered apart as pc.mtp, as DeepSeek-V3's. */
    {.type = "qwen3_next", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .qk_norm = QKNORM_HEAD, .family = fam_qwen3_next,
     .defaults = "{\"head_dim\":256,\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,"
                 "\"linear_value_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_value_heads\":32,"
                 "\"num_experts\":512,\"num_experts_per_tok\":10,\"moe_intermediate_size\":512,"
                 "\"shared_expert_intermediate_size\":512,\"intermediate_size\":5632,"
                 "\"mtp_num_hidden_layers\":1}"},
    {.type = "qwen3_5_moe", .text = "qwen3_5_moe_text"},
    {.type = "qwen3_5_moe_text", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true,     .block_norms = 2, .qk_norm = QKNORM_HEAD, .family = fam_qwen3_next,
     .defaults = "{\"head_dim\":256,\"linear_conv_kernel_dim\":4,\"linear_key_head_dim\":128,"
                 "\"linear_value_head_dim\":128,\"linear_num_key_heads\":16,\"linear_num_value_heads\":32,"
                 "\"num_experts\":256,\"num_experts_per_tok\":8,\"moe_intermediate_size\":512,"
                 "\"shared_expert_intermediate_size\":512,\"mtp_num_hidden_layers\":1}"},
    /* DeepSeek-V3 shapes: Kimi K2 (DeepseekV3 class via auto_map), V3.2 (plus its indexer). */
    {.type = "kimi_k2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_deepseek,
     .defaults = "{\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,"
                 "\"kv_lora_rank\":512,\"q_lora_rank\":1536,\"first_k_dense_replace\":1,"
                 "\"moe_layer_freq\":1,\"n_shared_experts\":1,\"n_routed_experts\":384,"
                 "\"num_experts_per_tok\":8}"},
    {.type = "deepseek_v32", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true,     .block_norms = 2, .family = fam_deepseek,
     .defaults = "{\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,"
                 "\"kv_lora_rank\":512,\"q_lora_rank\":1536,\"first_k_dense_replace\":3,"
                 "\"moe_layer_freq\":1,\"n_shared_experts\":1,\"n_routed_experts\":256,"
                 "\"num_experts_per_tok\":8,\"index_n_heads\":64,\"index_head_dim\":128,"
                 "\"index_topk\":2048}"},
    {.type = "glm4_moe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_glm4_moe,
     .defaults = "{\"n_routed_experts\":128,\"moe_intermediate_size\":1408,\"num_experts_per_tok\":8,"
                 "\"first_k_dense_replace\":1,\"n_shared_experts\":1,\"intermediate_size\":10944}"},
    {.type = "minimax_m2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_minimax_m2,
     .defaults = "{\"num_local_experts\":256,\"num_experts_per_tok\":8,\"head_dim\":128,"
                 "\"intermediate_size\":1536}"},
    {.type = "mimo_v2_flash", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_mimo_v2,
     .defaults = "{\"n_routed_experts\":256,\"num_experts_per_tok\":8,\"moe_intermediate_size\":2048,"
                 "\"head_dim\":192,\"v_head_dim\":128,\"sliding_window\":128,\"intermediate_size\":16384}"},
    {.type = "ernie4_5", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .block_norms = 2, .family = fam_ernie},
    {.type = "ernie4_5_moe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .moe = true, .block_norms = 2, .family = fam_ernie},
    {.type = "smollm3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 2, .family = fam_smollm3, .defaults = "{\"intermediate_size\":11008}"},
    {.type = "exaone4", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2,     .qk_norm = QKNORM_HEAD, .family = fam_exaone4},
    {.type = "olmo3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .qk_norm = QKNORM_FULL, .family = fam_olmo3,
     .defaults = "{\"sliding_window\":4096,\"intermediate_size\":11008}"},
    /* Mistral 3 / Devstral: the text model is a Mistral (Ministral 3) decoder. */
    {.type = "ministral3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2, .family = fam_sliding},
    {.type = "mistral3", .text = "mistral"},
    /* Vision-language wrappers: the text model (Qwen2.5-VL's keys sit at the top level). */
    {.type = "qwen2_vl", .text = "qwen2"},
    {.type = "qwen2_5_vl", .text = "qwen2"},
    {.type = "qwen3_vl", .text = "qwen3"},
    {.type = "qwen3_vl_moe", .text = "qwen3_moe"},
    /* Hybrid state-space families (model_ssm.c). */
    {.type = "nemotron_h", .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true, .block_norms = 2,
     .family = fam_nemotron_h},
    {.type = "falcon_h1", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2, .family = fam_falcon_h1},
    {.type = "jamba", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .block_norms = 2,
     .family = fam_jamba,
     .defaults = "{\"num_experts\":16,\"num_experts_per_tok\":2,\"intermediate_size\":14336}"},
    {.type = "bamba", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .family = fam_bamba},
    {.type = "granitemoehybrid", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_granite_hybrid},
};
/* clang-format on */
#undef RMS
#undef LN

/* The supported model_type values, "a, b or c", for messages. */
const char *model_arch_types(char *list, size_t len)
{
    list[0] = '\0';
    size_t n = sizeof archs / sizeof archs[0];
    for (size_t i = 0; i < n; i++) {
        strncat(list, i == 0 ? "" : i + 1 == n ? " or " : ", ", len - strlen(list) - 1);
        strncat(list, archs[i].type, len - strlen(list) - 1);
    }
    return list;
}

const arch *model_arch_at(size_t i)
{
    return i < sizeof archs / sizeof archs[0] ? &archs[i] : NULL;
}

const arch *model_arch_find(const char *type)
{
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(archs[i].type, type) == 0) return &archs[i];
    return NULL;
}
