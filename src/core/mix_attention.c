/* mix_attention.c -- softmax attention as a token mixer: MHA/GQA/MQA or MLA; global, sliding or chunked. */
#include <math.h>

#include "core/minmax.h"
#include "core/mixer.h"

/* What --lora-targets adapts (model_tensor.h): a query or value projection, qv and attn. */
#define QV_LINEAR (TENSOR_LORA_MIXER | TENSOR_LORA_QV)
#define MIX_LINEAR TENSOR_LORA_MIXER /* every other attention linear */

/* The widths one softmax attention works with: the full layers' (the model's heads and
 * head_dim), or the sliding layers' own (swa_*: MiMo-V2-Flash; Gemma 4, whose full layers
 * have global_head_dim and, with attention_k_eq_v, their own key heads and no v_proj). */
typedef struct attn_shape {
    double heads, q, kv, vkv, vo; /* heads; q, k and v widths (heads x width), o_proj's input */
    bool sinks;
    bool k_eq_v; /* no v_proj: the values are the keys (Gemma 4's full layers) */
} attn_shape;

static attn_shape shape_of(const model *m, bool swa)
{
    if (swa && m->swa_heads > 0) {
        double hd = (double)m->swa_head_dim, vd = (double)(m->swa_v_dim > 0 ? m->swa_v_dim : m->swa_head_dim);
        return (attn_shape){(double)m->swa_heads, (double)m->swa_heads * hd, (double)m->swa_kv_heads * hd,
            (double)m->swa_kv_heads * vd, (double)m->swa_heads * vd, m->swa_sinks, false};
    }
    double hd = (double)m->head_dim,
           vd = m->v_head_dim > 0 && m->kv_lora_rank <= 0 ? (double)m->v_head_dim : hd;
    return (attn_shape){(double)m->num_heads, (double)m->num_heads * hd, (double)m->num_kv_heads * hd,
        (double)m->num_kv_heads * vd, (double)m->num_heads * vd, m->attn_sinks, m->attn_k_eq_v};
}

/* q, k, v, o (fused or not); Qwen3-Next's gated attention doubles q_proj (query and gate). A
 * KV-shared layer (l->kv_shared) has no k or v, a k_eq_v one no v (zero widths, no tensor). */
static void add_qkvo(const model *m, const attn_shape *a, tensor_list *l, bool cross, int base)
{
    double h = (double)m->hidden_size;
    bool shared = l->kv_shared && !cross;
    double q = a->q, kv = shared ? 0 : a->kv, vkv = shared || (a->k_eq_v && !cross) ? 0 : a->vkv;
    double qp = !cross && m->attn_output_gate ? 2 * q : q;
    if (m->fused_qkv && !cross) {
        tensor_add_linear(l, "attn.qkv.weight", h, qp + kv + vkv, 1, base, true, QV_LINEAR);
        if (m->qkv_bias) tensor_add(l, "attn.qkv.bias", qp + kv + vkv, 1, base, true);
    } else {
        tensor_add_linear(l, cross ? "xattn.q.weight" : "attn.q.weight", h, qp, 1, base, true, QV_LINEAR);
        if (kv > 0)
            tensor_add_linear(
                l, cross ? "xattn.k.weight" : "attn.k.weight", h, kv, 1, base + 1, true, MIX_LINEAR);
        if (vkv > 0)
            tensor_add_linear(
                l, cross ? "xattn.v.weight" : "attn.v.weight", h, vkv, 1, base + 2, true, QV_LINEAR);
        if (m->qkv_bias) {
            tensor_add(l, cross ? "xattn.q.bias" : "attn.q.bias", qp, 1, base, true);
            if (kv > 0) tensor_add(l, cross ? "xattn.k.bias" : "attn.k.bias", kv, 1, base + 1, true);
            if (vkv > 0) tensor_add(l, cross ? "xattn.v.bias" : "attn.v.bias", vkv, 1, base + 2, true);
        }
    }
    tensor_add_linear(l, cross ? "xattn.o.weight" : "attn.o.weight", a->vo, h, 1, base + 3, true, MIX_LINEAR);
    if (m->out_bias) tensor_add(l, cross ? "xattn.o.bias" : "attn.o.bias", h, 1, base + 3, true);
}

/* Multi-head Latent Attention (DeepSeek-V2 section 2.1; HF modeling_deepseek_v3.py shapes):
 * q through a q_lora_rank bottleneck (or one projection), a shared latent of kv_lora_rank plus
 * one rotary key, expanded per head to keys (nope) and values. */
static void add_mla(const model *m, tensor_list *l)
{
    double h = (double)m->hidden_size, a = (double)m->num_heads;
    double qk = (double)(m->qk_nope_dim + m->qk_rope_dim), qr = (double)m->q_lora_rank;
    double kvr = (double)m->kv_lora_rank, rope = (double)m->qk_rope_dim, v = (double)m->v_head_dim;
    if (m->q_lora_rank > 0) {
        tensor_add_linear(l, "attn.q_a.weight", h, qr, 1, 2, true, QV_LINEAR);
        if (m->qkv_bias) tensor_add(l, "attn.q_a.bias", qr, 1, 2, true);
        tensor_add(l, "attn.q_a_norm.weight", qr, 1, 3, true);
        tensor_add_linear(l, "attn.q_b.weight", qr, a * qk, 1, 4, true, QV_LINEAR);
    } else {
        tensor_add_linear(l, "attn.q.weight", h, a * qk, 1, 2, true, QV_LINEAR);
    }
    tensor_add_linear(l, "attn.kv_a.weight", h, kvr + rope, 1, 5, true, QV_LINEAR);
    if (m->qkv_bias) tensor_add(l, "attn.kv_a.bias", kvr + rope, 1, 5, true);
    tensor_add(l, "attn.kv_a_norm.weight", kvr, 1, 6, true);
    tensor_add_linear(l, "attn.kv_b.weight", kvr, a * ((double)m->qk_nope_dim + v), 1, 7, true, QV_LINEAR);
    tensor_add_linear(l, "attn.o.weight", a * v, h, 1, 8, true, MIX_LINEAR);
    if (m->out_bias) tensor_add(l, "attn.o.bias", h, 1, 8, true);
}

/* Self-attention's tensors. Module ids are fixed (2..15) whatever `base`: the counts of the
 * classic families, and what ZeRO-3 gathers as one module, stay as they were. */
static void self_tensors(const model *m, tensor_list *l, bool swa)
{
    attn_shape a = shape_of(m, swa);
    if (m->kv_lora_rank > 0)
        add_mla(m, l);
    else
        add_qkvo(m, &a, l, false, 4);
    double q = a.q, kv = a.kv;
    double hd = swa && m->swa_heads > 0 ? (double)m->swa_head_dim : (double)m->head_dim;
    if (m->qk_norm != QKNORM_NONE && !m->qk_norm_weightless) {
        /* LayerNorm q/k norms (Phi's qk_layernorm) carry a bias of the same width. */
        double qw = m->qk_norm == QKNORM_HEAD ? hd : q, kw = m->qk_norm == QKNORM_HEAD ? hd : kv;
        double copies = m->norm == NORM_LAYERNORM && m->norm_bias ? 2 : 1;
        tensor_add(l, "attn.q_norm", qw, copies, 9, true);
        if (!l->kv_shared) tensor_add(l, "attn.k_norm", kw, copies, 10, true);
    }
    if (m->pos == POS_RELATIVE && m->rel_bias_every_layer)
        tensor_add(l, "attn.rel_bias", (double)(m->rel_buckets * m->num_heads), 1, 11, true);
    /* DeepSeek-V3.2's indexer (HF DeepseekV32Indexer): wq_b from the q latent, wk and its
     * LayerNorm, and the per-head weights. */
    if (m->idx_heads > 0) {
        double h = (double)m->hidden_size, ih = (double)m->idx_heads, id = (double)m->idx_head_dim;
        tensor_add_linear(
            l, "attn.indexer.wq_b.weight", (double)m->q_lora_rank, ih * id, 1, 12, true, MIX_LINEAR);
        tensor_add_linear(l, "attn.indexer.wk.weight", h, id, 1, 13, true, MIX_LINEAR);
        tensor_add(l, "attn.indexer.k_norm", 2 * id, 1, 13, true);
        tensor_add_linear(l, "attn.indexer.weights_proj.weight", h, ih, 1, 15, true, MIX_LINEAR);
    }
    /* gpt-oss: one learned sink logit per head joins each softmax (HF GptOssAttention.sinks). */
    if (a.sinks) tensor_add(l, "attn.sinks", a.heads, 1, 14, true);
}

static void attention_tensors(const model *m, tensor_list *l, int base)
{
    (void)base;
    self_tensors(m, l, false);
}

static void swa_tensors(const model *m, tensor_list *l, int base)
{
    (void)base;
    self_tensors(m, l, true);
}

/* Packed sequences (--doc-len d < s) under flash-attention varlen (cu_seqlens): each token
 * attends only within its document, so a causal document of d tokens is a d x d triangle and
 * the sequence's scores scale with the sum of d^2, not s^2 (Dao 2023, FlashAttention-2,
 * section 3.1, variable-length batches). Eager attention masks the s x s matrix instead and
 * computes all of it; an encoder's bidirectional attention is left as it is. */
static void packed_span(const training *t, const mix_dims *d, double *keys, double *span)
{
    if (t->doc_len <= 0 || !t->flash_attention || d->encoder) return;
    double doc = (double)t->doc_len;
    *keys = zs_fmin(*keys, doc);
    *span = zs_fmin(*span, doc);
}

/* Attention-score FLOPs per token, model convention (full, non-causal: QK^T and attention x V,
 * 2 x keys x width each) and as executed: causal flash attention skips the masked upper
 * triangle (half; a causal band of w keys over s skips w / 2s of it; a chunk of c keys is a
 * triangle, half of it), eager attention computes every score of the s x s matrix even where a
 * window masks it, and bidirectional (encoder) attention computes all of its. */
static void self_flops(const model *m, const training *t, const mix_dims *d, bool swa, double *mf, double *ef)
{
    double s = d->s;
    attn_shape sh = shape_of(m, swa);
    double wqk = sh.q, wv = sh.vo;
    if (m->kv_lora_rank > 0) {
        /* MLA: scores over nope + rope per head, values of v_head_dim (DeepSeek-V2 2.1.2). */
        wqk = (double)(m->num_heads * (m->qk_nope_dim + m->qk_rope_dim));
        wv = (double)(m->num_heads * m->v_head_dim);
    }
    double keys = d->local ? zs_fmin(s, (double)m->sliding_window) : s;
    double span = d->local && m->window_chunked ? keys : s;
    packed_span(t, d, &keys, &span);
    double full = 2 * keys * (wqk + wv);
    if (d->encoder)
        *ef = full;
    else if (!t->flash_attention)
        *ef = 2 * s * (wqk + wv);
    else
        *ef = full * (1 - keys / (2 * span));
    *mf = full;
    if (m->idx_heads > 0 && m->idx_topk > 0 && m->idx_topk < s) {
        /* Sparse attention over idx_topk keys per query, all computed, after the indexer's
         * causal scores over every earlier key (2 x heads x width a key). */
        double sparse = 2 * (double)m->idx_topk * (wqk + wv);
        double index = 2 * s * (double)(m->idx_heads * m->idx_head_dim);
        *mf = sparse + index;
        *ef = sparse + index / 2;
    }
}

static void attention_flops(const model *m, const training *t, const mix_dims *d, double *mf, double *ef)
{
    self_flops(m, t, d, false, mf, ef);
}

static void swa_flops(const model *m, const training *t, const mix_dims *d, double *mf, double *ef)
{
    mix_dims local = *d;
    local.local = true;
    self_flops(m, t, &local, true, mf, ef);
}

/* The attention part of Korthikanti et al. Table 2, generalised: Q, K, V and the output
 * projection's input (or MLA's latents), q/k norm inputs, and the scores (eager) or the
 * log-sum-exp (flash). */
static int self_terms(const model *m, const mix_dims *d, bool swa, act_term *out, int n)
{
    double s = d->s, b = d->b, e = d->e, e8 = d->e8, tp = d->tp, sp = d->sp;
    attn_shape sh = shape_of(m, swa);
    double a = sh.heads, q = sh.q, kv = sh.kv;
    if (m->kv_lora_rank > 0) {
        /* Multi-head Latent Attention (DeepSeek-V2 section 2.1): the q latent enters its norm
         * and q_b; the kv latent enters its norm and kv_b, with the one rotary key (shared by
         * all heads); both down-projections are replicated across TP ranks. Per head: Q and
         * K of nope + rope, V of v_head_dim, and the attention output (o_proj input). */
        double qr = (double)m->q_lora_rank, kvr = (double)m->kv_lora_rank;
        double qk = (double)(m->qk_nope_dim + m->qk_rope_dim), vh = (double)m->v_head_dim;
        n = mix_term(out, n, "MLA q latent, q_a_norm and q_b inputs: (e + e8) s b q_lora / sp",
            (e + e8) * s * b * qr / sp);
        n = mix_term(out, n, "MLA kv latent and rotary key: s b ((e + e8) kv_lora + e rope) / sp",
            s * b * ((e + e8) * kvr + e * (double)m->qk_rope_dim) / sp);
        n = mix_term(out, n, "MLA per-head Q, K (nope + rope) and V: e s b a (2 (nope + rope) + v) / t",
            e * s * b * a * (2 * qk + vh) / tp);
        n = mix_term(out, n, "attention output (o_proj input): e8 s b a v / t", e8 * s * b * a * vh / tp);
    } else {
        /* Q, K, V (GQA shrinks K and V) and the output projection's input. */
        n = mix_term(out, n, "Q, K, V: e s b (q + 2 kv) / t", e * s * b * (q + kv + sh.vkv) / tp);
        n = mix_term(out, n, "attention output (o_proj input): e8 s b q / t", e8 * s * b * sh.vo / tp);
    }
    /* Gated attention (Qwen3-Next): the sigmoid gate and the pre-gate output it multiplies. */
    if (m->attn_output_gate)
        n = mix_term(out, n, "output gate and pre-gate output: 2 e s b q / t", 2 * e * s * b * q / tp);
    /* q/k norms (Qwen3, OLMo-2, Gemma-3) keep their inputs: the projections' outputs. */
    if (m->qk_norm != QKNORM_NONE)
        n = mix_term(out, n, "q/k norm inputs: e s b (q + kv) / t", e * s * b * (q + kv) / tp);
    /* Eager attention stores softmax output (e), dropout mask (1) and dropout output (e) per
     * score: 5 a s^2 b with dropout; Gemma-2's tanh soft-cap keeps its input (e) too. A local
     * layer keeps the band of w keys per query. Flash attention stores only the log-sum-exp
     * (fp32). */
    double ctx = d->local ? zs_fmin(s, (double)m->sliding_window) : s;
    double per_score = (d->drop ? 1 + 2 * e : e) + (m->attn_softcap > 0 ? e : 0);
    if (!d->flash && d->keep_scores)
        n = mix_term(out, n,
            d->local ? "attention scores, sliding window: a s w b (softmax e, dropout 1 + e, soft-cap e) / t"
                     : "attention scores: a s^2 b (softmax e, dropout 1 + e, soft-cap e) / t",
            a * s * ctx * b * per_score / tp);
    if (d->flash) n = mix_term(out, n, "flash attention log-sum-exp: 4 a s b / t (fp32)", 4 * a * s * b / tp);
    return n;
}

static int attention_terms(const model *m, const mix_dims *d, act_term *out, int n)
{
    return self_terms(m, d, false, out, n);
}

static int swa_terms(const model *m, const mix_dims *d, act_term *out, int n)
{
    mix_dims local = *d;
    local.local = true;
    return self_terms(m, &local, true, out, n);
}

/* Rotary embedding on q and k (read + write), on the layers that rotate (not NoPE ones). */
static double attention_traffic(const model *m, double e)
{
    attn_shape a = shape_of(m, false);
    return m->pos == POS_ROTARY ? 2 * e * (a.q + a.kv) : 0;
}

static double swa_traffic(const model *m, double e)
{
    attn_shape a = shape_of(m, true);
    return m->pos == POS_ROTARY ? 2 * e * (a.q + a.kv) : 0;
}

const mixer_ops mix_swa = {
    .name = "sliding attention",
    .tensors = swa_tensors,
    .flops = swa_flops,
    .act_terms = swa_terms,
    .traffic = swa_traffic,
    .formula = "sliding-window attention with its own heads and widths: KV of the last w tokens only; "
               "scores 2 x w x (q/k + v width) per token",
    .softmax = true,
};

const mixer_ops mix_attention = {
    .name = "attention",
    .tensors = attention_tensors,
    .flops = attention_flops,
    .act_terms = attention_terms,
    .traffic = attention_traffic,
    .formula = "softmax attention: KV grows with the sequence; scores 2 x keys x (q/k + v width) per token "
               "(Vaswani et al. 2017; flash: Dao 2023)",
    .softmax = true,
};

/* Cross-attention of an encoder-decoder's decoder block: Q from the decoder's tokens, K and V
 * over the encoder's s_enc, every score computed. */
static void cross_tensors(const model *m, tensor_list *l, int base)
{
    (void)base;
    attn_shape a = shape_of(m, false);
    add_qkvo(m, &a, l, true, 12);
}

static void cross_flops(const model *m, const training *t, const mix_dims *d, double *mf, double *ef)
{
    (void)t;
    *mf = *ef = 4 * d->s_enc * (double)(m->num_heads * m->head_dim);
}

static int cross_terms(const model *m, const mix_dims *d, act_term *out, int n)
{
    double s = d->s, b = d->b, e = d->e, tp = d->tp, s_enc = d->s_enc;
    double a = (double)m->num_heads;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double per_score = (d->drop ? 1 + 2 * e : e) + (m->attn_softcap > 0 ? e : 0);
    n = mix_term(
        out, n, "cross-attention Q, K, V: e b (s q + 2 s_enc kv) / t", e * b * (s * q + 2 * s_enc * kv) / tp);
    n = mix_term(out, n, "cross-attention output: e8 s b q / t", d->e8 * s * b * q / tp);
    if (!d->flash && d->keep_scores)
        n = mix_term(out, n, "cross-attention scores: a s s_enc b (e, dropout 1 + e) / t",
            a * s * s_enc * b * per_score / tp);
    if (d->flash) n = mix_term(out, n, "cross-attention log-sum-exp: 4 a s b / t (fp32)", 4 * a * s * b / tp);
    return n;
}

static double cross_traffic(const model *m, double e)
{
    (void)m;
    (void)e;
    return 0;
}

const mixer_ops mix_cross = {
    .name = "cross-attention",
    .tensors = cross_tensors,
    .flops = cross_flops,
    .act_terms = cross_terms,
    .traffic = cross_traffic,
    .formula = "cross-attention: every decoder token attends to all encoder tokens (4 s_enc q FLOPs a token)",
    .softmax = true,
};
