/* compute.c -- FLOP counts (Narayanan et al. 2021; PaLM appendix B) and achieved rates. */
#include "core/compute.h"

#include <math.h>

#include "core/finetune.h"
#include "core/framework.h"
#include "core/kernels.h"
#include "core/minmax.h"
#include "core/mixer.h"

/* The mixing FLOPs per input token of one block of class c (its mixers' scores or scans,
 * mixer_ops.flops), model convention and as executed; `local` for its sliding or chunked
 * layers. A block of an encoder-decoder's decoder runs scale tokens per input token. */
static void block_mixing(const model *m, const param_counts *pc, const training *t, int c, bool local,
    double *model_flops, double *exec_flops, double *softmax_flops)
{
    double scale = pc->seq_scale[c];
    mix_dims d = {.s = (double)t->seq_len * scale,
        .s_enc = (double)t->seq_len,
        .local = local,
        .encoder = pc->kind[c] == BLOCK_ENCODER};
    double mf = 0, ef = 0, sf = 0, a, b;
    const mixer_kind mk[2] = {pc->mixer[c], pc->mixer2[c]};
    for (int k = 0; k < 2; k++) {
        if (mk[k] == MIX_NONE) continue;
        mixer_table[mk[k]]->flops(m, t, &d, &a, &b);
        mf += a;
        ef += b;
        if (mixer_table[mk[k]]->softmax) sf += b;
    }
    *model_flops = mf * scale;
    *exec_flops = ef * scale;
    *softmax_flops = sf * scale;
}

/* What activation checkpointing reruns in backward: the one statement of the rule, which the
 * FLOP counts (recompute_mb, hw_step) and the times (compute_time) follow. */
typedef enum recompute_kind {
    RECOMPUTE_NONE,      /* nothing is rerun */
    RECOMPUTE_FULL,      /* every block's forward, not the LM head (Narayanan et al. 2021, eq. 3:
                            96 B s l h^2 (1 + s/6h + V/16lh)) */
    RECOMPUTE_OPS,       /* op-level selective (torchtitan): every other matmul's output is kept,
                            so half the blocks' matmul FLOPs and every memory-bound op again,
                            no attention */
    RECOMPUTE_ATTENTION, /* selective (Megatron, Korthikanti et al. 2022): the attention scores
                            and their memory traffic */
} recompute_kind;

static recompute_kind recompute_of(const training *t)
{
    if (t->checkpointing == CKPT_FULL) return RECOMPUTE_FULL;
    if (t->checkpointing != CKPT_SELECTIVE) return RECOMPUTE_NONE;
    return framework_of(t)->selective == SELECTIVE_OPS ? RECOMPUTE_OPS : RECOMPUTE_ATTENTION;
}

/* f->matmul and f->attention per token (model convention) and, returned, the mixers' FLOPs
 * per token as executed; *softmax gets the softmax-attention mixers' part of it. */
static double flops_per_token(
    const model *m, const param_counts *pc, const training *t, flops *f, double *softmax)
{
    *softmax = 0;
    if (m->params_only) {
        f->matmul = 2 * pc->active;
        f->attention = 0;
        return 0;
    }
    /* Linear layers a token passes through: block parameters minus norms (biases are
     * counted; they are 1e-4 of the total), plus the LM head's V x h, tied or not. Per
     * kind of block (dense, MoE with top-k and shared experts, encoder), and an
     * encoder-decoder's decoder blocks and head once per decoder token. */
    double lin = 0, attn_exec = 0, L = (double)m->num_layers;
    f->attention = 0;
    for (int kind = 0; kind < pc->nclass; kind++) {
        double n = pc->nblocks[kind];
        if (n <= 0) continue;
        double local = pc->nlocal[kind], scale = pc->seq_scale[kind], am, ae, as, gm, ge, gs;
        lin += n * scale * pc->blocks_active[kind];
        am = ae = as = 0;
        if (local > 0) block_mixing(m, pc, t, kind, true, &am, &ae, &as);
        block_mixing(m, pc, t, kind, false, &gm, &ge, &gs);
        f->attention += local * am + (n - local) * gm;
        attn_exec += local * ae + (n - local) * ge;
        *softmax += local * as + (n - local) * gs;
    }
    double block = lin / L - pc->norm_per_layer;
    f->matmul = 2 * (block * L + pc->seq_scale[BLOCK_DENSE] * (double)m->vocab_size * (double)m->hidden_size);
    return attn_exec;
}

/* Memory-bound traffic per token, forward (bytes; e per element). Each op reads its
 * inputs and writes its output once: two norms (2h each), two residual adds (3h each),
 * Gemma's two post-norms (2h each more), the MLP activation (gated: read 2i, write i;
 * plain: read i, write i; MoE: k experts' and the shared experts' widths), rotary
 * embedding on q and k (read + write), dropout (read + write + 1-byte mask, twice). The h
 * terms are replicated across TP ranks unless sequence parallel; the rest is split. The
 * loss reads and writes fp32 logits about four times (upcast, softmax, gradient): 16 V
 * bytes per token, split by TP over the vocabulary. Eager attention writes and re-reads
 * the a s^2 score matrix (softmax in and out, dropout): 4 e bytes per score. */
static void flops_memory(
    const model *m, const param_counts *pc, const training *t, double tokens_mb, flops *f)
{
    f->mem_fwd_mb = f->attn_mem_fwd_mb = f->fp8_kernels_mb = 0;
    if (m->params_only) return;
    double s = (double)t->seq_len, b = (double)t->micro_batch, L = (double)m->num_layers;
    double mp = (double)(t->tp * t->pp);
    double e = t->precision == PREC_FP32 ? 4 : 2, h = (double)m->hidden_size;
    double tp = (double)t->tp;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double repl = e * (m->block_norms == 4 ? 14 : 10) * h + (m->dropout ? 2 * (2 * e + 1) * h : 0);
    double act = m->gated_mlp ? 3 : 2, width = 0;
    for (int kind = 0; kind < pc->nclass; kind++) {
        double n = pc->nblocks[kind];
        double dense = m->dense_intermediate_size > 0 ? (double)m->dense_intermediate_size
                                                      : (double)m->intermediate_size;
        double w = pc->kind[kind] == BLOCK_MOE
            ? (double)m->experts_per_token * (double)model_expert_width(m) +
                (double)m->shared_intermediate_size
            : pc->kind[kind] == BLOCK_NOFFN ? 0
                                            : dense;
        width += n * w / L;
    }
    double split = e * width * act + (m->pos == POS_ROTARY ? 2 * e * (q + kv) : 0);
    double attn_layers = L;
    if (m->nclass > 0 || m->nope_layers > 0) {
        /* A hybrid stack's mixers each move their own elementwise bytes (mixer_ops.traffic);
         * NoPE layers rotate nothing. */
        double mixing = 0;
        attn_layers = 0;
        for (int c = 0; c < pc->nclass; c++) {
            const mixer_kind mk[2] = {pc->mixer[c], pc->mixer2[c]};
            for (int k = 0; k < 2; k++)
                if (mk[k] != MIX_NONE) mixing += pc->nblocks[c] * mixer_table[mk[k]]->traffic(m, e);
            if (pc->mixer[c] == MIX_ATTENTION || pc->mixer2[c] == MIX_ATTENTION)
                attn_layers += pc->nblocks[c];
        }
        double nope = zs_fmin((double)m->nope_layers, attn_layers);
        mixing -= nope * mix_attention.traffic(m, e);
        split = e * width * act + mixing / L;
    }
    double per_tok = (repl / (t->sequence_parallel ? tp : 1) + split / tp) * L / (double)t->pp;
    double loss = 16 * (double)m->vocab_size / tp / (double)t->pp;
    f->attn_mem_fwd_mb = t->flash_attention ? 0 : 4 * e * (double)m->num_heads * s * s * b * attn_layers / mp;
    f->mem_fwd_mb = (per_tok + loss) * tokens_mb + f->attn_mem_fwd_mb;
    if (t->precision == PREC_FP8) {
        /* Each linear casts its input to FP8 forward and its output gradient backward,
         * after an amax pass: read 2 + write 1 + amax read 2 bytes per element (Transformer
         * Engine's current/delayed scaling); the bf16 weights are cast once per step when
         * cached (ignored). Per token forward: the inputs of QKV, the output projection,
         * the MLP's first and last GEMMs. Small models pay these as much as they save. */
        double hq = (double)(m->num_heads * m->head_dim);
        double ins = 2 * h + hq + width; /* width: the mean MLP width a token passes */
        f->mem_fwd_mb += 5 * ins * L / (double)t->tp / (double)t->pp * tokens_mb;
        /* Each of a block's four linears (fused QKV, output projection, fc1, fc2) launches
         * one fused cast-transpose forward (its input) and one backward (its output
         * gradient): NVIDIA/TransformerEngine transformer_engine/pytorch/module/linear.py,
         * fp8_cast_transpose_fused / fp8_cast_transpose_bgrad_fused. The LM head stays
         * 16-bit. At small sizes these fixed costs eat the FP8 GEMM saving. */
        f->fp8_kernels_mb = 4 * L / (double)t->pp;
    }
    if (t->finetune == FT_QLORA) {
        /* QLoRA dequantizes each NF4 block weight to bf16 before its GEMM: read the NF4
         * bytes, write 2 per parameter, per micro-batch (backward repeats it: 2x fwd). */
        double blocks = 0; /* every block's parameters, each kind counted by its number */
        for (int kind = 0; kind < pc->nclass; kind++) blocks += pc->nblocks[kind] * pc->blocks[kind];
        double linear = (blocks - pc->norm_per_layer * L) / mp;
        f->mem_fwd_mb += linear * (finetune_nf4_bytes() + 2);
    }
}

/* The share of a stage's blocks full recomputation reruns: all of them, but under Megatron's
 * --recompute-method block only the first N of each chunk (megatron/core/recompute.py). */
static double recompute_share(const model *m, const training *t)
{
    if (t->recompute_layers <= 0 || t->recompute_method != RECOMPUTE_BLOCK || m->params_only) return 1;
    double v = t->virtual_stages > 1 ? (double)t->virtual_stages : 1;
    double stage = ceil((double)m->num_layers / (double)t->pp), chunk = zs_fmax(1, ceil(stage / v));
    return zs_fmin(1, zs_fmin((double)t->recompute_layers, chunk) * v / stage);
}

/* The recomputed forward FLOPs of a micro-batch (executed) and the step's MFU and HFU
 * numerators; frozen: the per-token matmul FLOPs of frozen weights. */
static void flops_step(
    const model *m, const training *t, double tokens_mb, double frozen, double attn_exec, flops *f)
{
    double mp = (double)(t->tp * t->pp);
    /* The LM head, which no recompute reruns, per token. */
    double head_tok = m->params_only ? 0 : 2 * (double)m->vocab_size * (double)m->hidden_size;
    double head = head_tok * tokens_mb / mp;
    double blocks_mm = f->fwd_mb - head - f->attn_fwd_mb;
    /* MFU's and HFU's numerators count attention as it is computed (causal flash attention:
     * half the score matrix), as the compute time does: counting the full matrix (PaLM's 12 L H
     * Q T) while timing half of it would put MFU above 1 when attention dominates (a 1M-token
     * context). HFU adds the recomputed FLOPs in the same convention, so HFU >= MFU. */
    double again, again_full;
    switch (recompute_of(t)) {
    case RECOMPUTE_FULL: {
        double share = recompute_share(m, t);
        f->recompute_mb = (f->fwd_mb - head) * share;
        again = (f->matmul + attn_exec - head_tok) * share;
        again_full = (f->matmul + f->attention - head_tok) * share;
        break;
    }
    case RECOMPUTE_OPS:
        f->recompute_mb = 0.5 * blocks_mm;
        again = again_full = 0.5 * (f->matmul - head_tok);
        break;
    case RECOMPUTE_ATTENTION:
        f->recompute_mb = f->attn_fwd_mb;
        again = attn_exec;
        again_full = f->attention;
        break;
    default: f->recompute_mb = again = again_full = 0; break;
    }
    /* Frozen weights have no weight-gradient GEMM: their FLOPs count twice, not three times. */
    f->model_mb = (3 * (f->matmul + attn_exec) - frozen) * tokens_mb;
    f->model_mb_full = (3 * (f->matmul + f->attention) - frozen) * tokens_mb;
    f->again_mb = again * tokens_mb;
    f->again_mb_full = again_full * tokens_mb;
    compute_flops_accumulate(t, f);
}

void compute_flops_accumulate(const training *t, flops *f)
{
    double m_acc = (double)t->grad_accum, mp = (double)(t->tp * t->pp);
    f->model_step = f->model_mb * m_acc / mp;
    f->model_step_full = f->model_mb_full * m_acc / mp;
    f->hw_step = f->model_step + f->again_mb * m_acc / mp;
    f->hw_step_full = f->model_step_full + f->again_mb_full * m_acc / mp;
}

flops_tokens compute_flops_tokens(const model *m, const param_counts *pc, const training *t)
{
    flops f;
    double softmax;
    double attn_exec = flops_per_token(m, pc, t, &f, &softmax);
    return (flops_tokens){f.matmul, f.attention, attn_exec, softmax};
}

void compute_flops(const model *m, const param_counts *pc, const training *t, flops *f)
{
    flops_tokens tk = compute_flops_tokens(m, pc, t);
    compute_flops_with(m, pc, t, &tk, f);
}

void compute_flops_with(
    const model *m, const param_counts *pc, const training *t, const flops_tokens *tk, flops *f)
{
    double s = (double)t->seq_len, b = (double)t->micro_batch, L = (double)m->num_layers;
    double mp = (double)(t->tp * t->pp);
    f->matmul = tk->matmul;
    f->attention = tk->attention;
    double attn_exec = tk->attn_exec;
    /* LoRA/QLoRA: the adapters add 2 r (d_in + d_out) FLOPs per token per adapted linear; the
     * base weights are frozen, so backward computes only their input gradients. */
    double frozen = 0;
    if (t->finetune != FT_FULL && !m->params_only) {
        frozen = f->matmul;
        f->matmul += 2 * finetune_adapters_per_layer(m, pc, t->lora_rank, t->lora_targets) * L;
    }
    /* Context parallelism: a rank runs s / cp tokens of each sequence, each attending over
     * the whole sequence; load-balanced causal chunks give every rank 1/cp of the work. */
    double tokens_mb = b * s / (double)t->cp;
    f->fwd_mb = (f->matmul + attn_exec) * tokens_mb / mp;
    f->attn_fwd_mb = attn_exec * tokens_mb / mp;
    f->softmax_fwd_mb = tk->attn_softmax * tokens_mb / mp;
    f->frozen_fwd_mb = frozen * tokens_mb / mp;
    f->bwd_mb = 2 * f->fwd_mb;
    /* The attention kernel's shape: the head dim of a plain attention stack (a hybrid's mixers
     * have no measured kernel table) and the span a query attends over (a packed document). */
    f->attn_head_dim = m->params_only || m->nclass > 0 ? 0 : (double)m->head_dim;
    f->attn_span = t->doc_len > 0 && t->doc_len < t->seq_len ? (double)t->doc_len : s;
    f->gemm_bwd = 1;
    flops_memory(m, pc, t, tokens_mb, f);
    flops_step(m, t, tokens_mb, frozen, attn_exec, f);
}

double compute_peak(const hardware *hw, const training *t)
{
    switch (t->precision) {
    case PREC_FP16: return hw->peak_fp16;
    case PREC_FP32: return hw->peak_fp32;
    case PREC_FP8: return hw->peak_fp8;
    default: return hw->peak_bf16;
    }
}

double compute_attention_fraction(const hardware *hw)
{
    return kernel_fa2_fraction(hw);
}

mb_time compute_time(
    const hardware *hw, const training *t, const flops *f, double peak, double gemm_efficiency)
{
    kernel_rate kr = kernel_attention(hw, t, f->attn_head_dim, f->attn_span);
    /* FP8 runs the GEMMs at the FP8 peak, but cuBLAS reaches a smaller fraction of it than of
     * the 16-bit peak (fp8_matmul_ratio, the profile's MAMF ratio); attention (flash, bf16)
     * stays at the bf16 peak. */
    bool fp8 = t->precision == PREC_FP8;
    double attn_peak = fp8 ? hw->peak_bf16 : peak;
    double fp8_ratio = fp8 && hw->fp8_matmul_ratio > 0 ? hw->fp8_matmul_ratio : 1;
    double mm_rate = peak * gemm_efficiency * fp8_ratio, attn_rate = attn_peak * kr.fwd;
    double mem_rate = hw->hbm_bandwidth * hw->hbm_fraction;
    double mm = f->fwd_mb - f->attn_fwd_mb;
    /* A kernel's fixed cost (launch, ramp, tail) as the model charges a GEMM: W_half at the
     * profile's 16-bit GEMM rate. */
    double kernel_s = hw->matmul_half_flops / (hw->peak_bf16 * hw->matmul_max_fraction);
    double casts = f->fp8_kernels_mb > 0 && isfinite(kernel_s) ? f->fp8_kernels_mb * kernel_s : 0;
    mb_time tm;
    tm.fwd = mm / mm_rate + f->attn_fwd_mb / attn_rate + f->mem_fwd_mb / mem_rate + casts;
    tm.attn = f->attn_fwd_mb / attn_rate;
    double rec = 0;
    switch (recompute_of(t)) {
    case RECOMPUTE_FULL: rec = f->fwd_mb > 0 ? tm.fwd * f->recompute_mb / f->fwd_mb : 0; break;
    case RECOMPUTE_OPS:
        rec = f->recompute_mb / mm_rate + (f->mem_fwd_mb - f->attn_mem_fwd_mb) / mem_rate;
        break;
    case RECOMPUTE_ATTENTION: rec = f->attn_fwd_mb / attn_rate + f->attn_mem_fwd_mb / mem_rate; break;
    default: break;
    }
    tm.bwd = 2 * tm.fwd - casts - f->frozen_fwd_mb / mm_rate + rec; /* one cast per linear backward */
    /* The backward GEMMs at their own (transposed) shapes' rate (gemm.c). */
    if (f->gemm_bwd != 1) tm.bwd += (2 * mm - f->frozen_fwd_mb) / mm_rate * (f->gemm_bwd - 1);
    /* Attention's backward: the kernel's backward work (2.5x the forward's FLOPs for a flash
     * kernel, which recomputes the scores; kernels.c) on the softmax-attention mixers, 2x on
     * scans (Mamba, DeltaNet), at the backward rate, in place of the 2x at the forward rate
     * charged above. */
    double scans = f->attn_fwd_mb - f->softmax_fwd_mb;
    tm.attn_bwd = (f->softmax_fwd_mb * kr.bwd_work + scans * 2) / (attn_peak * kr.bwd);
    tm.bwd += tm.attn_bwd - 2 * tm.attn;
    return tm;
}

double compute_head_seconds(
    const model *m, const hardware *hw, const training *t, double peak, double gemm_efficiency)
{
    if (m->params_only) return 0;
    /* The rates compute_time charges: GEMMs at the precision's matmul rate, the loss's fp32
     * logit traffic (16 V bytes per token, flops_memory) at the HBM rate. */
    double fp8_ratio = t->precision == PREC_FP8 && hw->fp8_matmul_ratio > 0 ? hw->fp8_matmul_ratio : 1;
    double mm_rate = peak * gemm_efficiency * fp8_ratio, mem_rate = hw->hbm_bandwidth * hw->hbm_fraction;
    double tokens = (double)t->micro_batch * (double)t->seq_len / (double)t->cp;
    double v = (double)m->vocab_size / (double)t->tp, h = (double)m->hidden_size;
    double gemm = 2 * v * h * tokens / mm_rate, fwd = gemm + 16 * v * tokens / mem_rate;
    /* Backward twice the forward, as compute_time charges it (input and weight gradients); a
     * frozen head (LoRA) has no weight gradient. */
    return 3 * fwd - (t->finetune != FT_FULL ? gemm : 0);
}

double compute_efficiency(const hardware *hw, double w)
{
    if (!isfinite(w)) return hw->matmul_max_fraction;
    return hw->matmul_max_fraction * w / (w + hw->matmul_half_flops);
}

double compute_gemm_flops(const model *m, const training *t)
{
    if (m->params_only) return INFINITY;
    return 2 * (double)(t->micro_batch * t->seq_len / t->cp) * (double)m->hidden_size *
        (double)m->intermediate_size / (double)t->tp;
}
