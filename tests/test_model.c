/* test_model.c -- exact parameter counts of real configs against independently published counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/catalog.h"
#include "core/memory.h"
#include "report/model_explain.h"
#include "io/model_json.h"
#include "core/sim.h"
#include "fixture_hw.h"
#include "test.h"

static int load(const char *name, model *m, param_counts *pc)
{
    char path[4096];
    zs_error e = {0};
    if (catalog_resolve("models", name, path, sizeof path, &e) || model_load(path, m, &e) ||
        model_count(m, 1e5, pc, &e)) {
        fprintf(stderr, "  load %s: %s\n", name, e.msg);
        return -1;
    }
    return 0;
}

/* Every row of tests/data/param_counts.tsv: counts published outside this project. */
static void counts_from_tsv(void)
{
    FILE *f = fopen("tests/data/param_counts.tsv", "r");
    CHECK(f != NULL);
    if (!f) return;
    char line[2048];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char name[64], active[32];
        double total;
        if (sscanf(line, "%63s %lf %31s", name, &total, active) != 3) continue; /* header */
        model m;
        param_counts pc;
        test_current = name;
        CHECK(load(name, &m, &pc) == 0);
        CHECK_EQ_INT(pc.total, total);
        /* "-": no exact active count is published (the source column says so). */
        if (strcmp(active, "-") != 0) CHECK_EQ_INT(pc.active, strtod(active, NULL));
        rows++;
    }
    fclose(f);
    CHECK(rows >= 10);
}

/* Counts from model cards and papers not in the TSV (each line names its source). */
static void counts_published(void)
{
    static const struct { const char *name; double total; const char *source; } t[] = {
        /* Meta's Llama 2 paper (arXiv 2307.09288) rounds; exact: HF Hub safetensors metadata
         * of meta-llama/Llama-2-13b-hf and -70b-hf ("Model size" on the model page). */
        {"llama-2-13b", 13015864320.0, "HF meta-llama/Llama-2-13b-hf safetensors total"},
        {"llama-2-70b", 68976648192.0, "HF meta-llama/Llama-2-70b-hf safetensors total"},
        {"llama-3-70b", 70553706496.0, "HF meta-llama/Meta-Llama-3-70B safetensors total"},
        {"llama-3.1-405b", 405853388800.0, "HF meta-llama/Llama-3.1-405B safetensors total"},
        {"qwen2-7b", 7615616512.0, "HF Qwen/Qwen2-7B safetensors total"},
        /* Black et al. 2022, GPT-NeoX-20B (arXiv 2204.06745), Table 1 footnote / section 2. */
        {"gpt-neox-20b", 20554567680.0, "GPT-NeoX-20B paper"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        model m;
        param_counts pc;
        test_current = t[i].source;
        CHECK(load(t[i].name, &m, &pc) == 0);
        CHECK_EQ_INT(pc.total, t[i].total);
    }
}

/* The families added for issue 12, each against a count published outside this project.
 * "keras-hub@71453d0" is https://github.com/keras-team/keras-hub at commit
 * 71453d08f59edc90d276e999319fc51e61cbf82c, keras_hub/src/models/<family>/<family>_presets.py,
 * field metadata.params of the named preset (a peer tool's own count of the same checkpoint).
 * "HF safetensors" is the Hugging Face Hub API's safetensors.total of the repository
 * (the checkpoint's tensors, each stored once). */
static void counts_families(void)
{
    static const struct { const char *name; double total; const char *source; } t[] = {
        {"gemma-7b", 8537680896.0, "keras-hub@71453d0 gemma_7b_en"},
        {"gemma-2-9b", 9241705984.0, "keras-hub@71453d0 gemma2_9b_en"},
        {"gemma-2-27b", 27227128320.0, "keras-hub@71453d0 gemma2_27b_en"},
        {"gemma-3-1b", 999885952.0, "keras-hub@71453d0 gemma3_1b"},
        {"phi-3-mini", 3821079552.0, "keras-hub@71453d0 phi3_mini_4k_instruct_en"},
        {"qwen3-8b", 8190735360.0, "keras-hub@71453d0 qwen3_8b_en"},
        {"qwen3-32b", 32762123264.0, "keras-hub@71453d0 qwen3_32b_en"},
        {"qwen2.5-72b", 72706203648.0, "keras-hub@71453d0 qwen2.5_instruct_72b_en"},
        {"t5-base", 222903552.0, "keras-hub@71453d0 t5_base_multi"},
        {"flan-t5-xxl", 11135332352.0, "keras-hub@71453d0 t5_1.1_xxl (Flan-T5-XXL is T5 v1.1 XXL fine-tuned)"},
        {"phi-2", 2779683840.0, "HF safetensors microsoft/phi-2 (F16 2779683840)"},
        {"olmo-7b", 6888095744.0, "HF safetensors allenai/OLMo-7B-hf"},
        {"olmo-2-7b", 7298617344.0, "HF safetensors allenai/OLMo-2-1124-7B (F32 7298617344)"},
        {"deepseek-v2-lite", 15706484224.0, "HF safetensors deepseek-ai/DeepSeek-V2-Lite"},
        {"deepseek-v2", 235741434880.0, "HF safetensors deepseek-ai/DeepSeek-V2"},
        /* The FP8 checkpoint's tensors, FP8 scale_inv tensors excluded, layers 0-60 (the MTP
         * layer 61 apart): DeepSeek-V3 README_WEIGHTS.md "671B"; exact sum of the checkpoint
         * headers' shapes. It includes the 58 x 256 e_score_correction_bias entries. */
        {"deepseek-v3", 671026419200.0, "DeepSeek-V3 checkpoint headers (README_WEIGHTS.md: 671B)"},
        {"qwen1.5-moe-a2.7b", 14315784192.0, "keras-hub@71453d0 qwen1.5_moe_2.7b_en"},
        {"qwen3-30b-a3b", 30532122624.0, "keras-hub@71453d0 qwen3_moe_30b_a3b_en"},
        {"qwen3-235b-a22b", 235093634560.0, "keras-hub@71453d0 qwen3_moe_235b_a22b_en"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        model m;
        param_counts pc;
        test_current = t[i].source;
        CHECK(load(t[i].name, &m, &pc) == 0);
        CHECK_EQ_INT(pc.total, t[i].total);
    }
}

/* Active parameters per token of the MoE families against the model cards' rounded figures
 * (no card states an exact one), and the sparse layout read from the configs. */
static void moe_active(void)
{
    static const struct { const char *name; double active, tol; bool minus_embedding; const char *source; } t[] = {
        {"qwen1.5-moe-a2.7b", 2.7e9, 0.05e9, false, "HF Qwen/Qwen1.5-MoE-A2.7B card: 2.7B activated"},
        {"qwen3-30b-a3b", 3.3e9, 0.06e9, false, "HF Qwen/Qwen3-30B-A3B card: 3.3B activated"},
        {"qwen3-235b-a22b", 22e9, 0.25e9, false, "HF Qwen/Qwen3-235B-A22B card: 22B activated"},
        {"deepseek-v2", 21e9, 0.5e9, true, "DeepSeek-V2 paper (arXiv 2405.04434) abstract: 21B activated"},
        {"deepseek-v2-lite", 2.4e9, 0.06e9, true, "HF deepseek-ai/DeepSeek-V2-Lite card: 2.4B activated"},
        {"deepseek-v3", 36.7e9, 0.1e9, true, "DeepSeek-V3 README_WEIGHTS.md: 36.7B activated"},
        {"olmoe-1b-7b", 1.3e9, 0.05e9, false, "OLMoE paper (arXiv 2409.02060) section 2: 1.3B active of 6.9B"},
        {"phi-3.5-moe", 6.6e9, 0.05e9, false, "HF microsoft/Phi-3.5-MoE-instruct card: 6.6B active parameters"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        model m;
        param_counts pc;
        test_current = t[i].source;
        CHECK(load(t[i].name, &m, &pc) == 0);
        double a = pc.active - (t[i].minus_embedding ? pc.embedding : 0);
        CHECK(fabs(a - t[i].active) <= t[i].tol);
    }
    model m;
    param_counts pc;
    /* DeepSeek-V3: first_k_dense_replace 3 of 61 layers dense; 1 shared + top-8 of 256. */
    CHECK(load("deepseek-v3", &m, &pc) == 0);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_DENSE), 3);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_MOE), 58);
    CHECK_EQ_INT(m.shared_intermediate_size, 2048);
    CHECK(m.router_bias && m.q_lora_rank == 1536 && m.kv_lora_rank == 512);
    /* The MTP module: README_WEIGHTS.md "11.5B unique parameters" (embedding and head shared);
     * zerosim offers it apart from the 671B total. */
    CHECK(pc.mtp > 11.5e9 && pc.mtp < 11.7e9);
    /* V2-Lite: q_lora_rank null means one q projection, not the class default 1536. */
    CHECK(load("deepseek-v2-lite", &m, &pc) == 0);
    CHECK_EQ_INT(m.q_lora_rank, 0);
}

/* Layouts whose counts rest on family rules: by hand from each config and HF's modeling file. */
static void family_shapes(void)
{
    model m;
    param_counts pc;
    /* Falcon-RW-1B (old decoder, ALiBi, not parallel, biases): keras-hub@71453d0
     * falcon_refinedweb_1b_en 1311625216; its config.json names it by _name_or_path. */
    test_current = "falcon-rw-1b";
    CHECK(load("tests/data/models/falcon-rw-1b/config.json", &m, &pc) == 0);
    CHECK_EQ_INT(pc.total, 1311625216.0);
    CHECK(strcmp(m.name, "falcon-rw-1b") == 0 && m.pos == POS_ALIBI && m.num_kv_heads == 32);
    /* Not parallel: Megatron's two TP all-reduces a block (Shoeybi et al. 2019, section 3). */
    CHECK_EQ_INT(model_tp_allreduces(&m), 2);
    /* The original OLMo format (hf_olmo: d_model, fused mlp_hidden_size, embedding_size 50304):
     * the same weights as OLMo-7B-hf, HF safetensors allenai/OLMo-7B-hf 6888095744; named
     * after its folder. */
    test_current = "OLMo-7B original config";
    CHECK(load("tests/data/models/OLMo-7B/config.json", &m, &pc) == 0);
    CHECK_EQ_INT(pc.total, 6888095744.0);
    CHECK(strcmp(m.name, "OLMo-7B") == 0 && m.norm_weightless);
    /* Original OLMo-1B (hf_olmo: mlp_hidden_size null, so mlp_ratio 8 x d_model for both
     * SwiGLU halves; weight_tying true): allenai/OLMo-1B's parameter count 1176764416, the
     * sum of its parameters' sizes as published OLMo reference-model tests assert it. */
    test_current = "OLMo-1B original config";
    cJSON *j = cJSON_Parse("{\"activation_type\": \"swiglu\", \"d_model\": 2048, \"embedding_size\": 50304,"
                           " \"include_bias\": false, \"layer_norm_with_affine\": false, \"max_sequence_length\": 2048,"
                           " \"mlp_hidden_size\": null, \"mlp_ratio\": 8, \"model_type\": \"olmo\", \"n_heads\": 16,"
                           " \"n_layers\": 16, \"vocab_size\": 50280, \"weight_tying\": true}");
    zs_error e = {0};
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    CHECK_EQ_INT(pc.total, 1176764416.0);
    cJSON_Delete(j);
    /* Falcon-7B: MQA, one LayerNorm per parallel block, tied head (FalconConfig default).
     * HF modeling_falcon.py: qkv h x (h + 2 x 64), dense h x h, 4h MLP, LayerNorm w + b. */
    test_current = "falcon-7b";
    CHECK(load("falcon-7b", &m, &pc) == 0);
    double h = 4544;
    double block = h * (h + 128) + h * h + 2 * h * 4 * h + 2 * h;
    CHECK_EQ_INT(pc.total, 32 * block + 65024 * h + 2 * h);
    /* Parallel attention + MLP: one all-reduce of their sum. */
    CHECK_EQ_INT(model_tp_allreduces(&m), 1);
    /* Falcon-40B (new_decoder_architecture): 8 KV groups, ln_attn and ln_mlp. */
    test_current = "falcon-40b";
    CHECK(load("falcon-40b", &m, &pc) == 0);
    h = 8192;
    block = h * (h + 2 * 8 * 64) + h * h + 2 * h * 4 * h + 4 * h;
    CHECK_EQ_INT(pc.total, 60 * block + 65024 * h + 2 * h);
    /* Gemma-3-27B's text_config: keras-hub@71453d0 gemma3_27b_text (27009002240) keeps 262144 rows of
     * the embedding; the HF language model has Gemma3TextConfig's default 262208 (64 image
     * tokens more), 64 x 5376 parameters. The SigLIP tower is not counted. */
    test_current = "gemma-3-27b";
    CHECK(load("gemma-3-27b", &m, &pc) == 0);
    CHECK_EQ_INT(pc.total, 27009002240.0 + 64.0 * 5376);
    CHECK_EQ_INT(m.vocab_size, 262208);
    CHECK_EQ_INT(m.sliding_layers, 62 - 62 / 6);
    /* A sparse text_config takes Gemma3TextConfig's defaults (8 heads, 4 KV heads of 256,
     * vocab 262208): Gemma-3-4B's language model, keras-hub@71453d0 gemma3_4b_text
     * 3880099328 with 262144 embedding rows, plus 64 x 2560. */
    test_current = "gemma-3-4b text_config defaults";
    {
        cJSON *tj = cJSON_Parse("{\"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 2560,"
                               " \"intermediate_size\": 10240, \"model_type\": \"gemma3_text\","
                               " \"num_hidden_layers\": 34, \"sliding_window\": 1024}}");
        zs_error te = {0};
        CHECK(model_from_json(tj, "inline", &m, &te) == 0 && model_count(&m, 0, &pc, &te) == 0);
        CHECK_EQ_INT(pc.total, 3880099328.0 + 64.0 * 2560);
        CHECK(m.num_heads == 8 && m.num_kv_heads == 4 && m.head_dim == 256 && m.sliding_layers == 34 - 34 / 6);
        cJSON_Delete(tj);
    }
    /* Gemma-2: four norms a block, every other layer local; soft-caps 50 and 30. */
    CHECK(load("gemma-2-9b", &m, &pc) == 0);
    CHECK(m.block_norms == 4 && m.sliding_layers == 21 && m.sliding_window == 4096);
    CHECK(m.attn_softcap == 50 && m.final_softcap == 30);
    /* Command-R (cohere): one weight-only LayerNorm a block, tied head; HF
     * modeling_cohere.py shapes: 4 h^2 attention, 3 h i MLP. */
    test_current = "command-r";
    CHECK(load("command-r", &m, &pc) == 0);
    h = 8192;
    CHECK_EQ_INT(pc.total, 40 * (4 * h * h + 3 * h * 22528 + h) + 256000 * h + h);
    /* StarCoder2-15B: biases on every linear and LayerNorm, GQA 4, plain GELU MLP, its own
     * head (tie_word_embeddings false; the 3B and 7B tie theirs: bigcode-project/starcoder2
     * issue 18); no dropout (Starcoder2Config defaults residual/embedding dropout to 0). */
    test_current = "starcoder2-15b";
    CHECK(load("starcoder2-15b", &m, &pc) == 0);
    h = 6144;
    double kv = 4 * 128;
    block = h * h * 2 + 2 * h * kv + (2 * h + 2 * kv) + 2 * h * 24576 + 24576 + h + 4 * h;
    CHECK_EQ_INT(pc.total, 40 * block + 2 * 49152 * h + 2 * h);
    CHECK(!m.dropout && m.sliding_layers == 40);
    /* Granite-3.3-8B: llama-shaped, tied; its multipliers change no shape. */
    test_current = "granite-3.3-8b";
    CHECK(load("granite-3.3-8b", &m, &pc) == 0);
    h = 4096;
    CHECK_EQ_INT(pc.total, 40 * (2 * h * h + 2 * h * 1024 + 3 * h * 12800 + 2 * h) + 49159 * h + h);
    /* mT5-XXL and UMT5-XXL: Flan-T5-XXL's blocks (keras-hub 11135332352) with their own
     * untied vocabularies; UMT5 has a relative-bias table (32 x 64) in each of 48 blocks
     * instead of two. flan = keras-hub@71453d0 t5_1.1_xxl. */
    test_current = "mt5-xxl";
    CHECK(load("mt5-xxl", &m, &pc) == 0);
    double flan = 11135332352.0, d = 4096;
    CHECK_EQ_INT(pc.total, flan + 2 * (250112.0 - 32128) * d);
    CHECK(load("umt5-xxl", &m, &pc) == 0);
    CHECK_EQ_INT(pc.total, flan + 2 * (256384.0 - 32128) * d + (48 - 2) * 32 * 64);
    CHECK_EQ_INT(m.encoder_layers, 24);
    /* 24 encoder blocks with 2 all-reduces, 24 decoder blocks with 3 (cross-attention). */
    CHECK(fabs(model_tp_allreduces(&m) - 2.5) < 1e-15);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_DENSE), 24);
}

/* OLMoE, GraniteMoE and PhiMoE: Mixtral-shaped MoE blocks (HF modeling_olmoe.py,
 * modeling_granitemoe.py, modeling_phimoe.py: every decoder layer's MLP is top-k of E SwiGLU
 * experts behind a bias-free h x E router; no shared expert), each family's own parts by hand. */
static void moe_families(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    /* OLMoE-1B-7B: q_norm RMSNorm(h) and k_norm RMSNorm(kv heads x head_dim) on the whole
     * projections (OlmoeAttention), two RMSNorms a block, untied head. */
    test_current = "olmoe-1b-7b layout";
    CHECK(load("olmoe-1b-7b", &m, &pc) == 0);
    double h = 2048, v = 50304;
    double block = 4 * h * h + 2 * h + 2 * h + 64 * h + 64 * 3 * h * 1024;
    CHECK_EQ_INT(pc.total, 16 * block + 2 * v * h + h);
    CHECK(m.qk_norm == QKNORM_FULL && m.num_experts == 64 && m.experts_per_token == 8 && !m.tied_embeddings);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_MOE), 16);
    /* GQA: k_norm is as wide as k (2 heads of 16), q_norm as wide as q; the config class's
     * attribute_map also accepts num_local_experts, and absent keys take OlmoeConfig's
     * defaults (64 experts, top-8). */
    cJSON *j = cJSON_Parse("{\"model_type\": \"olmoe\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                           " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"intermediate_size\": 32,"
                           " \"vocab_size\": 100, \"num_experts_per_tok\": 2, \"num_local_experts\": 4}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    cJSON_Delete(j);
    block = 64.0 * 64 * 2 + 2 * 64.0 * 32 + (64 + 32) + 2 * 64 + 4 * 64 + 4 * 3 * 64.0 * 32;
    CHECK_EQ_INT(pc.total, 2 * block + 2 * 100 * 64 + 64);
    j = cJSON_Parse("{\"model_type\": \"olmoe\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                    " \"num_attention_heads\": 4, \"intermediate_size\": 32, \"vocab_size\": 100}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && m.num_experts == 64 && m.experts_per_token == 8);
    cJSON_Delete(j);
    /* Granite-3.1-3B-A800M (its config.json's shape keys: h 1536, 32 layers, 24 heads, 8 KV
     * heads, 40 experts of 512, top-8, vocab 49155, tied): 3,298,793,472 as llama.cpp's GGUF
     * loader prints it for granite-3.1-3b-a800m-instruct (general.architecture granitemoe, 40
     * experts, 8 used), the same as PyTorch's count of the instruct checkpoint in a public
     * LoRA fine-tuning log. By hand: 2 h^2 + 2 h 512 attention, 2 norms, router, experts. */
    test_current = "granite-3.1-3b-a800m";
    j = cJSON_Parse("{\"model_type\": \"granitemoe\", \"hidden_size\": 1536, \"intermediate_size\": 512,"
                    " \"max_position_embeddings\": 131072, \"num_attention_heads\": 24, \"num_experts_per_tok\": 8,"
                    " \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, \"num_local_experts\": 40,"
                    " \"embedding_multiplier\": 12.0, \"attention_multiplier\": 0.015625, \"residual_multiplier\": 0.22,"
                    " \"logits_scaling\": 6.0, \"tie_word_embeddings\": true, \"vocab_size\": 49155}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    cJSON_Delete(j);
    CHECK_EQ_INT(pc.total, 3298793472.0);
    h = 1536;
    CHECK_EQ_INT(pc.total, 32 * (2 * h * h + 2 * h * 512 + 2 * h + 40 * h + 40 * 3 * h * 512) + 49155 * h + h);
    CHECK(m.tied_embeddings && m.num_experts == 40 && m.experts_per_token == 8);
    /* Phi-3.5-MoE: LayerNorms with bias (two a block and the final one), q/k/v/o biases, and
     * an LM head with its bias. The r/LocalLLaMA breakdown that gives the 41,873,153,344
     * total (tests/data/param_counts.tsv) gives its feed-forward part as 40,267,415,552:
     * 32 x (16 experts + router). */
    test_current = "phi-3.5-moe layout";
    CHECK(load("phi-3.5-moe", &m, &pc) == 0);
    CHECK_EQ_INT(32 * pc.mlp_per_layer, 40267415552.0);
    h = 4096;
    double kv = 1024;
    block = 2 * h * h + 2 * h * kv + (2 * h + 2 * kv) + 4 * h + 16 * h + 16 * 3 * h * 6400;
    CHECK_EQ_INT(pc.total, 32 * block + 2 * 32064 * h + 32064 + 2 * h);
    CHECK(m.norm == NORM_LAYERNORM && m.norm_bias && m.qkv_bias && m.out_bias && m.lm_head_bias);
    CHECK(m.sliding_layers == 32 && !m.dropout);
    /* PhimoeConfig defaults: 16 experts, top-2, no attention or head bias. */
    j = cJSON_Parse("{\"model_type\": \"phimoe\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                    " \"num_attention_heads\": 4, \"intermediate_size\": 32, \"vocab_size\": 100}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0);
    CHECK(m.num_experts == 16 && m.experts_per_token == 2 && !m.lm_head_bias && !m.qkv_bias);
    cJSON_Delete(j);
}

/* Class defaults for absent keys, and names that keep their dots. */
static void defaults_and_names(void)
{
    /* GPT2Config: attn_pdrop, resid_pdrop, embd_pdrop default to 0.1, so a config without
     * them trains with dropout (before issue 12 zerosim read it as dropout 0). */
    cJSON *j = cJSON_Parse("{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12,"
                           " \"vocab_size\": 50257, \"n_positions\": 1024}");
    model m;
    zs_error e = {0};
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && m.dropout);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12,"
                    " \"vocab_size\": 50257, \"attn_pdrop\": 0, \"resid_pdrop\": 0, \"embd_pdrop\": 0}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && !m.dropout && m.max_positions == 1024);
    cJSON_Delete(j);
    /* T5Config: a bare config is t5-small (keras-hub@71453d0 t5_small_multi 60506624). */
    j = cJSON_Parse("{\"model_type\": \"t5\"}");
    param_counts pc;
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    CHECK_EQ_INT(pc.total, 60506624.0);
    CHECK(m.dropout);
    cJSON_Delete(j);
    /* An unknown family without the standard decoder keys is refused, naming what it lacks. */
    j = cJSON_Parse("{\"model_type\": \"mamba\", \"hidden_size\": 8}");
    CHECK(model_from_json(j, "x.json", &m, &e) == ZS_ERR_INPUT && strstr(e.msg, "\"mamba\"") &&
        strstr(e.msg, "num_hidden_layers") && strstr(e.msg, "x.json"));
    cJSON_Delete(j);
    /* Falcon-40B's config as first published (model_type RefinedWeb, n_head_kv): the same
     * model as models/falcon-40b.json, so the same count. */
    j = cJSON_Parse("{\"model_type\": \"RefinedWeb\", \"alibi\": false, \"bias\": false, \"hidden_size\": 8192,"
                    " \"n_head\": 128, \"n_head_kv\": 8, \"n_layer\": 60, \"parallel_attn\": true, \"vocab_size\": 65024}");
    model m40;
    param_counts pc40;
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    CHECK(load("falcon-40b", &m40, &pc40) == 0);
    CHECK_EQ_INT(pc.total, pc40.total);
    cJSON_Delete(j);
    /* Qwen2-MoE sparse layout: with decoder_sparse_step 2 layers 1, 3, 5, 7 have experts;
     * mlp_only_layers [3, 3, 4, 99] makes layer 3 dense (4 already is; 99 is beyond). */
    j = cJSON_Parse("{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 8,"
                    " \"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100,"
                    " \"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32,"
                    " \"shared_expert_intermediate_size\": 64, \"decoder_sparse_step\": 2,"
                    " \"mlp_only_layers\": [3, 3, 4, 99]}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_MOE), 3);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_DENSE), 5);
    /* By hand (HF modeling_qwen2_moe.py): attention 4 x 64^2 + q, k, v biases; norms 2 x 64;
     * dense MLP 3 x 64 x 128; MoE: router 4 x 64, 4 experts 3 x 64 x 32, shared 3 x 64 x 64,
     * shared gate 64; embedding and untied head 100 x 64 each, final norm 64. */
    double attn = 4.0 * 64 * 64 + 3 * 64 + 2 * 64;
    double dense_b = attn + 3.0 * 64 * 128, moe_b = attn + 4 * 64 + 4 * 3.0 * 64 * 32 + 3.0 * 64 * 64 + 64;
    CHECK_EQ_INT(pc.total, 5 * dense_b + 3 * moe_b + 2 * 100 * 64 + 64);
    CHECK_EQ_INT(pc.active, 5 * dense_b + 3 * (moe_b - 2 * 3.0 * 64 * 32) + 2 * 100 * 64 + 64);
    cJSON_Delete(j);
    char name[64];
    model_name_from_path("models/qwen2.5-72b.json", NULL, name, sizeof name);
    CHECK(strcmp(name, "qwen2.5-72b") == 0);
    model_name_from_path("/ckpt/Qwen2.5-72B/config.json", NULL, name, sizeof name);
    CHECK(strcmp(name, "Qwen2.5-72B") == 0);
    model_name_from_path("/ckpt/x/config.json", "meta-llama/Llama-3.2-1B", name, sizeof name);
    CHECK(strcmp(name, "Llama-3.2-1B") == 0);
    model_name_from_path("a/config.json", "/aot/checkpoints/15b/config.json", name, sizeof name);
    CHECK(strcmp(name, "15b") == 0);
    model_name_from_path("config.json", NULL, name, sizeof name);
    CHECK(strcmp(name, "config") == 0);
    model_name_from_path("llama.3", NULL, name, sizeof name);
    CHECK(strcmp(name, "llama.3") == 0);
}

/* A reference GPU for the activation and FLOP checks (only shapes matter there). */
static int prepare(sim_input *in, const model *m, const param_counts *pc, training *t)
{
    static hardware hw;
    hw = fixture_hw(FIXTURE_H100_NODE);
    zs_error e = {0};
    int rc = sim_prepare(in, m, pc, &hw, t, &e);
    if (rc) fprintf(stderr, "  sim_prepare: %s\n", e.msg);
    return rc;
}

/* Multi-head Latent Attention activations, derived term by term as Korthikanti et al. 2022
 * (arXiv 2205.05198) Table 2 does for MHA, from the shapes of DeepSeek-V2 (arXiv 2405.04434)
 * section 2.1 with DeepSeek-V3's config (h 7168, 128 heads, q_lora 1536, kv_lora 512, nope
 * 128, rope 64, v 128; 3 dense blocks of 18432, 58 MoE blocks: 256 experts of 2048, top-8, one
 * shared). bf16 (2 bytes), flash attention, no dropout, no parallelism, s = 4096, b = 1. */
static void mla_activations(void)
{
    model m;
    param_counts pc;
    CHECK(load("deepseek-v3", &m, &pc) == 0);
    training t;
    training_init(&t);
    t.gpus = 1;
    t.seq_len = 4096;
    sim_input in;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    double s = 4096, h = 7168, a = 128, e = 2;
    double attn = 4 * e * s * h                  /* norm1, q_a/kv_a input, norm2, MLP input */
                  + 2 * e * s * 1536             /* q latent: q_a_norm input, q_b input */
                  + e * s * (2 * 512 + 64)       /* kv latent: kv_a_norm, kv_b inputs; rope key */
                  + e * s * a * (2 * 192 + 128)  /* per-head Q and K (nope + rope), V */
                  + e * s * a * 128              /* o_proj input */
                  + 4 * a * s;                   /* flash log-sum-exp, fp32 */
    double dense = attn + 4 * e * s * 18432;     /* SwiGLU: gate, up, act(gate), product */
    double moe = attn + 4 * s * 256              /* router probabilities, fp32 */
                 + 8 * e * s * h                 /* top-8 dispatched copies of the hidden state */
                 + 8 * 4 * e * s * 2048          /* eight routed experts' SwiGLU */
                 + 4 * e * s * 2048;             /* the shared expert */
    CHECK_NEAR(memory_layer_activations(&in, true), (3 * dense + 58 * moe) / 61, 1e-12);
    /* The KV part an MHA of the same heads would keep instead: K and V of 128 x 128 each
     * per head and no latent; MLA's per-head K is nope + rope wide. Attention FLOPs per token
     * and layer: QK^T over nope + rope, AV over v (2 x s x width each), causal flash half. */
    CHECK_NEAR(in.fl.attention, 61 * 2 * s * (a * 192 + a * 128), 1e-12);
    CHECK_NEAR(in.fl.attn_fwd_mb, 0.5 * 61 * 2 * s * (a * 192 + a * 128) * s, 1e-12);
    /* A fixed expert capacity pads each token's k slots by the capacity factor (Switch
     * Transformer, arXiv 2101.03961, section 2.2): cf 1.25 adds 0.25 x 8 slots. */
    m.capacity_factor = 1.25;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    double slots = 0.25 * 8 * (e * s * h + 4 * e * s * 2048);
    CHECK_NEAR(memory_layer_activations(&in, true), (3 * dense + 58 * (moe + slots)) / 61, 1e-12);
}

/* A Mixtral-shaped MoE family through the MoE block kind: Phi-3.5-MoE (h 4096, 32 heads, 8
 * KV heads of 128, 16 experts of 6400, top-2, LayerNorms, biased q/k/v/o, window 131072 > s),
 * bf16, flash, no dropout, s = 4096, b = 1; activations term by term as mla_activations. */
static void moe_family_activations(void)
{
    model m;
    param_counts pc;
    CHECK(load("phi-3.5-moe", &m, &pc) == 0);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_MOE), 32);
    CHECK_EQ_INT(model_blocks(&m, BLOCK_DENSE), 0);
    training t;
    training_init(&t);
    t.gpus = 1;
    t.seq_len = 4096;
    sim_input in;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    double s = 4096, h = 4096, a = 32, e = 2, q = 4096, kv = 1024;
    double block = 4 * e * s * h                 /* norm1, QKV input, norm2, router/experts input */
                   + e * s * (q + 2 * kv)        /* Q, K, V */
                   + e * s * q                   /* o_proj input */
                   + 4 * a * s                   /* flash log-sum-exp, fp32 */
                   + 4 * s * 16                  /* router probabilities, fp32 */
                   + 2 * e * s * h               /* top-2 dispatched copies of the hidden state */
                   + 2 * 4 * e * s * 6400;       /* two experts' SwiGLU */
    CHECK_NEAR(memory_layer_activations(&in, true), block, 1e-12);
    /* Matmul FLOPs per token: 2 x (q/k/v/o weights and biases, router, two experts) per
     * block plus the V x h head (norms and the head's bias are not matmuls). */
    double lin = 2 * h * q + 2 * h * kv + 2 * q + 2 * kv + 16 * h + 2 * 3 * h * 6400;
    CHECK_NEAR(in.fl.matmul, 2 * (32 * lin + 32064 * h), 1e-12);
}

/* Sliding-window layers (Gemma-2-9B: 42 layers, every other one local over w = 4096; four
 * norms a block; attention soft-cap keeps its tanh input): eager attention with s = 8192
 * keeps a s w scores in a local layer and a s^2 in a global one, each with the softmax output
 * and the soft-cap input (2 + 2 bytes; no dropout). Term by term as Korthikanti Table 2. */
static void sliding_window_activations(void)
{
    model m;
    param_counts pc;
    CHECK(load("gemma-2-9b", &m, &pc) == 0);
    training t;
    training_init(&t);
    t.gpus = 1;
    t.seq_len = 8192;
    t.flash_attention = false;
    sim_input in;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    double s = 8192, h = 3584, a = 16, e = 2, q = 16 * 256, kv = 8 * 256, w = 4096;
    double block = 6 * e * s * h                 /* pre- and post-norm inputs, QKV and MLP inputs */
                   + e * s * (q + 2 * kv) + e * s * q /* Q, K, V and o_proj input */
                   + 4 * e * s * 14336;          /* GeGLU */
    double local = block + a * s * w * (e + e), global = block + a * s * s * (e + e);
    CHECK_NEAR(memory_layer_activations(&in, true), (21 * local + 21 * global) / 42, 1e-12);
    /* FLOPs: a local layer scores w keys per query (model convention 4 w q), a global s. */
    CHECK_NEAR(in.fl.attention, 21 * 4 * w * q + 21 * 4 * s * q, 1e-12);
    /* The loss's fp32 logits (4 s b V) plus the final soft-cap's tanh output (e s b V). */
    memory mem;
    memory_activations(&in, &mem);
    CHECK_NEAR(mem.logits, (4 + e) * s * 256000, 1e-12);
    /* Flash: a causal band of w over s skips w / 2s of the band; a global layer half. */
    t.flash_attention = true;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    CHECK_NEAR(in.fl.attn_fwd_mb, (21 * 4 * w * q * (1 - w / (2 * s)) + 21 * 4 * s * q * 0.5) * s, 1e-12);
}

/* Cohere2 (HF modeling_cohere2.py): Cohere's parallel block (one weight-only LayerNorm h,
 * q/k/v/o, gate/up/down, no biases, no q/k norms), tied head, final weight-only LayerNorm;
 * layer i slides when (i + 1) % sliding_window_pattern != 0 (Cohere2DecoderLayer.is_sliding),
 * layer_types naming each layer when given. Counts by hand from those shapes. */
static void cohere2_layout(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    /* Command R7B: h 4096, 32 heads and 8 KV heads of 128, i 14336, V 256000, 32 layers of
     * which 24 slide. No exact count of the R7B checkpoint itself was found (its card says
     * "7 billion"), so it has no row in tests/data/param_counts.tsv; the hand count,
     * 8,028,033,024, equals the HF Hub safetensors BF16 count of CohereForAI/aya-expanse-8b
     * (a cohere checkpoint of the same tensor shapes) as a public benchmark's model-size
     * table quotes it (HfApi.get_safetensors_metadata parameter_count). */
    test_current = "command-r7b";
    CHECK(load("command-r7b", &m, &pc) == 0);
    double h = 4096, kv = 8 * 128, i = 14336;
    CHECK_EQ_INT(pc.total, 32 * (2 * h * h + 2 * h * kv + 3 * h * i + h) + 256000 * h + h);
    CHECK_EQ_INT(pc.total, 8028033024.0);
    CHECK(m.parallel_block && m.block_norms == 1 && m.tied_embeddings && m.norm == NORM_LAYERNORM);
    CHECK(!m.norm_bias && !m.qkv_bias && !m.mlp_bias && m.qk_norm == QKNORM_NONE && !m.dropout);
    CHECK(m.num_kv_heads == 8 && m.head_dim == 128 && m.sliding_window == 4096);
    CHECK_EQ_INT(m.sliding_layers, 24);
    CHECK_NEAR(model_blocks_local(&m, BLOCK_DENSE), 24, 0);
    /* Command A: h 12288, 96 heads and 8 KV heads of 128, i 36864, 64 layers, 48 sliding. */
    test_current = "command-a";
    CHECK(load("command-a", &m, &pc) == 0);
    h = 12288;
    i = 36864;
    CHECK_EQ_INT(pc.total, 64 * (2 * h * h + 2 * h * kv + 3 * h * i + h) + 256000 * h + h);
    CHECK_EQ_INT(m.sliding_layers, 48);
    /* Cohere2Config defaults: window 4096, pattern 4 (10 layers: 3 and 7 global, 8 slide);
     * layer_types wins over the pattern; a null window makes every layer global, and
     * pattern 1 too ((i + 1) % 1 is always 0); attention_bias adds q/k/v/o biases. */
    static const struct { const char *extra; int64_t window, sliding; } v[] = {
        {"", 4096, 8},
        {", \"sliding_window\": 512, \"sliding_window_pattern\": 2", 512, 5},
        {", \"layer_types\": [\"sliding_attention\", \"full_attention\", \"full_attention\"]", 4096, 1},
        {", \"sliding_window\": null", 0, 0},
        {", \"sliding_window_pattern\": 1", 4096, 0},
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, "{\"model_type\": \"cohere2\", \"hidden_size\": 64, \"num_hidden_layers\": 10,"
                 " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"intermediate_size\": 96,"
                 " \"vocab_size\": 100%s}", v[k].extra);
        test_current = text;
        cJSON *j = cJSON_Parse(text);
        CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
        cJSON_Delete(j);
        CHECK(m.sliding_window == v[k].window && m.sliding_layers == v[k].sliding);
        CHECK_EQ_INT(pc.total, 10 * (2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 96 + 64) + 100 * 64 + 64);
    }
    cJSON *j = cJSON_Parse("{\"model_type\": \"cohere2\", \"hidden_size\": 64, \"num_hidden_layers\": 4,"
                           " \"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100,"
                           " \"attention_bias\": true}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0 && model_count(&m, 0, &pc, &e) == 0);
    cJSON_Delete(j);
    CHECK_EQ_INT(pc.total, 4 * (4 * 64 * 64 + 4 * 64 + 3 * 64 * 96 + 64) + 100 * 64 + 64);
}

/* Command R7B at s = 8192 > w = 4096, bf16, b = 1, no dropout: 24 sliding and 8 global
 * layers of a parallel block. Per layer (Korthikanti Table 2 term by term): the one norm's
 * input and the projections' shared input (2 e s h), Q, K, V (e s (q + 2 kv)), the o_proj
 * input (e s q), the SwiGLU's gate, up, act(gate) and product (4 e s i); eager attention
 * keeps each score's softmax output (e): a s w in a sliding layer, a s^2 in a global one. */
static void cohere2_sliding_flops(void)
{
    model m;
    param_counts pc;
    CHECK(load("command-r7b", &m, &pc) == 0);
    training t;
    training_init(&t);
    t.gpus = 1;
    t.seq_len = 8192;
    t.flash_attention = false;
    sim_input in;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    double s = 8192, h = 4096, a = 32, e = 2, q = 4096, kv = 1024, i = 14336, w = 4096;
    double block = 2 * e * s * h + e * s * (q + 2 * kv) + e * s * q + 4 * e * s * i;
    double local = block + a * s * w * e, global = block + a * s * s * e;
    CHECK_NEAR(memory_layer_activations(&in, true), (24 * local + 8 * global) / 32, 1e-12);
    /* Score FLOPs per token (model convention, QK^T and AV: 2 x keys x q each): w keys in a
     * sliding layer, s in a global one. Linear FLOPs: 2 x the block's weights (norm aside)
     * per layer plus the tied V x h head. */
    CHECK_NEAR(in.fl.attention, 24 * 4 * w * q + 8 * 4 * s * q, 1e-12);
    CHECK_NEAR(in.fl.matmul, 2 * (32 * (2 * h * q + 2 * h * kv + 3 * h * i) + 256000 * h), 1e-12);
    /* Flash, causal: a band of w keys over s skips w / 2s of it; a global layer half. */
    t.flash_attention = true;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    CHECK_NEAR(in.fl.attn_fwd_mb, (24 * 4 * w * q * (1 - w / (2 * s)) + 8 * 4 * s * q * 0.5) * s, 1e-12);
    /* Within the window (s = 4096 = w) every layer sees all s keys: no saving. */
    t.seq_len = 4096;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    CHECK_NEAR(in.fl.attention, 32 * 4 * 4096 * q, 1e-12);
}

/* Encoder-decoder (Flan-T5-XXL: 24 + 24 blocks, 64 heads of 64, d_ff 10240 gated, dropout
 * 0.1): a decoder block keeps a third norm's and cross-attention's inputs and a third dropout
 * mask, cross Q, K, V over the encoder's tokens and its output. Flash, s = 512, b = 1. */
static void encoder_decoder_activations(void)
{
    model m;
    param_counts pc;
    CHECK(load("flan-t5-xxl", &m, &pc) == 0);
    training t;
    training_init(&t);
    t.gpus = 1;
    t.seq_len = 512;
    sim_input in;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    double s = 512, h = 4096, a = 64, e = 2, q = 4096;
    double enc = 4 * e * s * h + 2 * s * h + e * s * 3 * q + e * s * q + 4 * a * s + 4 * e * s * 10240;
    double dec = enc + 2 * e * s * h + s * h     /* cross norm and Q inputs, third dropout mask */
                 + e * s * 3 * q + e * s * q     /* cross Q, K, V and output */
                 + 4 * a * s;                    /* cross log-sum-exp */
    CHECK_NEAR(memory_layer_activations(&in, true), (24 * enc + 24 * dec) / 48, 1e-12);
    /* Encoder self-attention and cross-attention are not causal: flash computes all of them. */
    CHECK_NEAR(in.fl.attn_fwd_mb, (24 * 4 * s * q + 24 * (0.5 * 4 * s * q + 4 * s * q)) * s, 1e-12);
}

/* --explain's model section names each block kind's terms and formulas. */
static void explain_text(void)
{
    model m;
    param_counts pc;
    CHECK(load("deepseek-v3", &m, &pc) == 0);
    training t;
    training_init(&t);
    t.gpus = 8;
    sim_input in;
    CHECK(prepare(&in, &m, &pc, &t) == 0);
    scenario sc = {&m, &pc, in.hw, &t, NULL, 0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f) return;
    model_explain(f, &sc);
    fclose(f);
    CHECK(text && strstr(text, "58 x MoE block") && strstr(text, "MLA kv latent and rotary key") &&
          strstr(text, "671,026,419,200") && strstr(text, "multi-token prediction"));
    free(text);
}

static void shape_details(void)
{
    model m;
    param_counts pc;
    /* Llama-2-7B: the largest module is the 32000 x 4096 embedding (= the untied head);
     * a block is 4 h^2 + 3 h i + 2 h = 202,383,360. */
    CHECK(load("llama-2-7b", &m, &pc) == 0);
    CHECK_EQ_INT(pc.largest_module, 32000.0 * 4096);
    CHECK_EQ_INT(pc.per_layer, 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096);
    CHECK_EQ_INT(pc.layer_small_params, 2 * 4096); /* the two RMSNorm weights */
    /* GPT-2: fused c_attn module of 768 x 2304 + 2304; tied head. */
    CHECK(load("gpt2", &m, &pc) == 0);
    CHECK(m.tied_embeddings && m.pos == POS_LEARNED && m.dropout);
    CHECK_EQ_INT(pc.lm_head, 0);
    CHECK_EQ_INT(pc.largest_module, 50257.0 * 768);
    /* Mixtral: 8 experts, 2 active; one expert's w1 is the largest module after embeddings. */
    CHECK(load("mixtral-8x7b", &m, &pc) == 0);
    CHECK_EQ_INT(m.num_experts, 8);
    CHECK_EQ_INT(m.experts_per_token, 2);
    CHECK_EQ_INT(m.num_kv_heads, 8);
    /* GQA: Llama-3-8B has 8 KV heads of 128. */
    CHECK(load("llama-3-8b", &m, &pc) == 0);
    CHECK_EQ_INT(m.num_kv_heads, 8);
    CHECK_EQ_INT(m.head_dim, 128);
    /* Qwen2: q/k/v biases but none on o_proj. */
    CHECK(load("qwen2-7b", &m, &pc) == 0);
    CHECK(m.qkv_bias && !m.out_bias);
}

static void whole_catalog_loads(void)
{
    char **names;
    zs_error e = {0};
    CHECK(catalog_list("models", &names, &e) == 0);
    int n = 0;
    for (char **p = names; p && *p; p++, n++) {
        model m;
        param_counts pc;
        test_current = *p;
        CHECK(load(*p, &m, &pc) == 0);
        CHECK(pc.total > 1e8 && pc.active <= pc.total && pc.largest_module > 0);
    }
    catalog_free(names);
    CHECK(n >= 14);
}

static void validation(void)
{
    model m = {0};
    zs_error e = {0};
    snprintf(m.model_type, sizeof m.model_type, "transformer");
    m.hidden_size = 4096; m.num_layers = 32; m.num_heads = 32; m.num_kv_heads = 5;
    m.head_dim = 128; m.intermediate_size = 11008; m.vocab_size = 32000; m.max_positions = 2048;
    CHECK(model_validate(&m, &e) == ZS_ERR_INPUT && strstr(e.msg, "num_key_value_heads"));
    m.num_kv_heads = 8;
    m.num_layers = 0;
    CHECK(model_validate(&m, &e) == ZS_ERR_INPUT && strstr(e.msg, "num_hidden_layers"));
    m.num_layers = 32;
    m.num_experts = 8; m.experts_per_token = 9;
    CHECK(model_validate(&m, &e) == ZS_ERR_INPUT && strstr(e.msg, "num_experts_per_tok"));
    m.experts_per_token = 2;
    CHECK(model_validate(&m, &e) == ZS_OK);
}

/* HF keys that change the shape: an explicit head_dim wider than hidden / heads (Gemma-style),
 * MQA through multi_query, and attention_bias/mlp_bias on a llama config. Counts by hand. */
static void hf_shape_keys(void)
{
    const char *text = "{\"model_type\": \"llama\", \"hidden_size\": 2048, \"num_hidden_layers\": 2,"
                       " \"num_attention_heads\": 8, \"num_key_value_heads\": 1, \"head_dim\": 256,"
                       " \"intermediate_size\": 8192, \"vocab_size\": 1000, \"tie_word_embeddings\": true,"
                       " \"attention_bias\": true, \"mlp_bias\": true}";
    cJSON *j = cJSON_Parse(text);
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(model_from_json(j, "inline", &m, &e) == 0);
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    cJSON_Delete(j);
    double h = 2048, q = 8 * 256, kv = 256, i = 8192;
    double attn = h * q + 2 * h * kv + q * h + (q + 2 * kv) + h; /* q, k, v, o + biases */
    double mlp = 3 * h * i + 2 * i + h;                          /* gate, up, down + biases */
    double block = attn + mlp + 2 * h;                            /* two RMSNorm weights */
    CHECK_EQ_INT(pc.per_layer, block);
    CHECK_EQ_INT(pc.total, 2 * block + 1000 * h + h);             /* tied embedding, final norm */
    j = cJSON_Parse("{\"model_type\": \"transformer\", \"hidden_size\": 512, \"num_hidden_layers\": 2,"
                    " \"num_attention_heads\": 8, \"multi_query\": true, \"vocab_size\": 100,"
                    " \"max_position_embeddings\": 64}");
    CHECK(model_from_json(j, "inline", &m, &e) == 0);
    CHECK_EQ_INT(m.num_kv_heads, 1);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"model_type\": \"transformer\", \"hidden_size\": 512, \"num_hidden_layers\": 2,"
                    " \"num_attention_heads\": 8, \"vocab_size\": 100, \"norm_type\": \"batchnorm\","
                    " \"max_position_embeddings\": 64}");
    CHECK(model_from_json(j, "x.json", &m, &e) == ZS_ERR_INPUT && strstr(e.msg, "norm_type"));
    cJSON_Delete(j);
}

void suite_model(void)
{
    RUN_TEST(hf_shape_keys);
    RUN_TEST(counts_from_tsv);
    RUN_TEST(counts_published);
    RUN_TEST(shape_details);
    RUN_TEST(whole_catalog_loads);
    RUN_TEST(validation);
    RUN_TEST(counts_families);
    RUN_TEST(moe_active);
    RUN_TEST(moe_families);
    RUN_TEST(family_shapes);
    RUN_TEST(defaults_and_names);
    RUN_TEST(mla_activations);
    RUN_TEST(moe_family_activations);
    RUN_TEST(sliding_window_activations);
    RUN_TEST(cohere2_layout);
    RUN_TEST(cohere2_sliding_flops);
    RUN_TEST(encoder_decoder_activations);
    RUN_TEST(explain_text);
}
