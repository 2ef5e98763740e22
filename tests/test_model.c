/* test_model.c -- exact parameter counts of real configs against independently published counts. */
#include <stdlib.h>

#include "catalog.h"
#include "model_json.h"
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
        char name[64];
        double total, active;
        if (sscanf(line, "%63s %lf %lf", name, &total, &active) != 3) continue; /* header */
        model m;
        param_counts pc;
        test_current = name;
        CHECK(load(name, &m, &pc) == 0);
        CHECK_EQ_INT(pc.total, total);
        CHECK_EQ_INT(pc.active, active);
        rows++;
    }
    fclose(f);
    CHECK(rows >= 7);
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
}
