/* memory.c -- the memory formulas every strategy shares: states, activations, overhead. */
#include "core/memory.h"

#include <math.h>

#include "core/finetune.h"
#include "core/framework.h"
#include "core/minmax.h"
#include "core/mixer.h"
#include "core/scenario.h"
#include "core/strategy.h"

/* DeepSpeed's pinned swap buffers for NVMe offload (deepspeed/runtime/swap_tensor/
 * aio_config and zero offload config): buffer_count 4 (optimizer) / 5 (params) of
 * buffer_size 1e8 elements. Held in host RAM per GPU. */
#define NVME_OPT_BUFFERS (4 * 1e8)
#define NVME_PARAM_BUFFERS (5 * 1e8)

void memory_states(const sim_input *in, shard_set shards, memory *mem)
{
    /* Hybrid sharding divides the states over the shard group, not all of DP. */
    double n = (double)in->shard_dp;
    double opt_div = shards.optimizer ? n : 1, grad_div = shards.gradients ? n : 1;
    double param_div = shards.parameters ? n : 1;
    const training *t = in->t;
    const byte_table *bt = &in->bt;
    double p = in->local_params, g = in->trainable;
    /* Fine-tuning: the trainable parameters are the adapters, with their own byte table. */
    const byte_table abt = t->finetune != FT_FULL ? finetune_adapter_bytes(t, bt) : *bt;
    double opt = abt.master + abt.moments;
    /* Bytes per stored parameter on average (16-bit; QLoRA mixes NF4 and 16-bit). */
    double w = t->finetune != FT_FULL && p > 0 ? in->param_bytes / p : bt->param;

    /* ZeRO-3 keeps tensors below the persistence threshold whole on every rank (at most the
     * rank's non-expert parameters: sim.c sim_stages bounds local_small). Only the trainable
     * parameters (all; LoRA: the adapters) have gradients and optimizer states. */
    double small = shards.parameters ? in->local_small : 0;
    /* Expert parallelism with parameter sharding (torchtitan's FSDP2): the rank's experts
     * shard over the expert-data-parallel group (over its shard part under hybrid sharding),
     * the rest over DP. */
    double experts = shards.parameters ? in->local_expert : 0;
    double expert_div = memory_expert_shards(in);
    mem->parameters = w * ((p - small - experts) / param_div + small + experts / expert_div);
    if (in->flat_params && shards.gradients && !shards.parameters) {
        /* FSDP's SHARD_GRAD_OP: the flat parameter's shard (fp32 under mixed precision) as
         * the gradients are sharded, and its unsharded copy whole from forward to the end of
         * backward (fw_fsdp.c). */
        double ne = in->local_expert > 0 ? memory_expert_shards(in) : 1;
        mem->parameters = bt->param * ((p - in->local_expert) / n + in->local_expert / ne) + bt->gather * p;
    }
    mem->gradients = abt.grad * g / grad_div;
    /* BF16_Optimizer: the bf16 .grad of every parameter, in its dtype, beside the fp32 buffer
     * (fw_deepspeed.c). */
    if (t->bf16_optimizer) mem->gradients += bt->param * g;
    mem->optimizer_states = opt * g / opt_div;
    if (in->local_expert > 0) {
        /* Expert parallelism: the experts' gradients and optimizer states are sharded over
         * the expert-data-parallel group, not DP (Megatron-Core's distributed optimizer). */
        double ne = memory_expert_shards(in);
        mem->gradients += bt->grad * in->local_expert / (shards.gradients ? ne : 1);
        mem->optimizer_states += opt * in->local_expert / (shards.optimizer ? ne : 1);
    }

    double host = 0, nvme = 0;
    if (t->offload_optimizer != OFFLOAD_NONE) {
        /* ZeRO-Offload (arXiv 2101.06840 section 4): fp32 master, moments and an fp32 copy of
         * the gradient partition live with the CPU Adam; the GPU keeps 16-bit parameters and
         * only the buckets for gradients on their way down. Without gradient sharding (stage
         * 1) the unpartitioned 16-bit gradients stay on the GPU. */
        double states = (opt + 4) * g / opt_div;
        mem->optimizer_states = 0;
        if (shards.gradients) mem->gradients = 0;
        if (t->offload_optimizer == OFFLOAD_NVME) {
            nvme += states;
            host += NVME_OPT_BUFFERS * 4;
        } else
            host += states;
    }
    if (t->offload_params != OFFLOAD_NONE) {
        /* ZeRO-Infinity (arXiv 2104.07857): the 16-bit parameter partition leaves the GPU;
         * persistent small tensors stay. */
        double part = w * (p - small) / param_div;
        /* What stays is the persistent tensors: a difference of nearly equal sums, which
         * rounding could take below zero (-2.4e-7 B under QLoRA, fuzz_flags). */
        mem->parameters = zs_fmax(0, mem->parameters - part);
        if (t->offload_params == OFFLOAD_NVME) {
            nvme += part;
            host += NVME_PARAM_BUFFERS * bt->param;
        } else
            host += part;
    }
    /* FP8: Transformer Engine keeps each linear weight cast to FP8 and its transpose (Hopper's
     * FP8 GEMMs take the transposed operand for dgrad/wgrad) across micro-batches: 2 bytes per
     * linear weight on the rank, not sharded. With expert parallelism the rank holds E / EP
     * whole experts, not E / TP (sim.c), and casts only those. */
    if (t->precision == PREC_FP8 && !in->m->params_only) {
        double linear =
            (in->pc->per_layer - in->pc->norm_per_layer) * (double)in->stage_layers / (double)t->tp;
        linear += in->local_expert - in->local_expert * (double)(t->ep * in->etp) / (double)t->tp;
        mem->parameters += 2 * linear;
    }
    /* ZeRO++ hpZ keeps a secondary copy of the parameters partitioned over the hpZ group
     * (a node), so backward gathers stay on NVLink (Wang et al. 2023, section 4.2). */
    if (shards.parameters && t->hpz_group > 1 && t->offload_params == OFFLOAD_NONE)
        mem->parameters += w * (p - small) / (double)in->groups[GROUP_HPZ].n;
    mem->model_states = mem->parameters + mem->gradients + mem->optimizer_states;
    mem->host_per_gpu = host;
    mem->nvme_per_gpu = nvme;
}

double memory_expert_unit(const sim_input *in)
{
    if (in->local_expert <= 0 || in->m->params_only) return 0;
    return in->local_expert /
        zs_fmax(
            1, (double)model_blocks(in->m, BLOCK_MOE) * (double)in->stage_layers / (double)in->m->num_layers);
}

double memory_expert_shards(const sim_input *in)
{
    /* Hybrid sharding replicates (DP x CP) / shard_dp times (the shard group is carved from
     * DP x CP, sim.c); the experts' shards shrink with it. */
    double replicas = (double)(in->dp * in->t->cp) / (double)in->shard_dp;
    return zs_fmax(1, (double)in->edp / replicas);
}

/* Append one term when it is not zero. */
static void term(act_term *out, int *n, const char *what, double bytes)
{
    if (bytes != 0 && *n < ACT_TERMS_MAX) out[(*n)++] = (act_term){what, bytes};
}

/* The token sizes a block's terms scale with: tokens (s / cp), micro-batch, hidden width, and
 * the TP and sequence-parallel divisors. */
typedef struct act_dims {
    double s, b, h, tp, sp;
} act_dims;

/* A MoE block's terms after the attention's (memory_block_terms), appended to out[n..];
 * returns the new count. */
static int moe_terms(const model *m, act_dims d, double e8, double per_width, act_term *out, int n)
{
    double s = d.s, b = d.b, h = d.h, tp = d.tp, sp = d.sp;
    /* MoE: the router's fp32 probabilities over E experts; each token's hidden state copied
     * to its k experts (dispatch), padded to capacity_factor x k slots per token when the
     * capacity is fixed (Switch Transformer section 2.2: capacity = cf x tokens x k / E);
     * the experts' MLP terms for those slots; shared experts for every token. */
    double k = (double)m->experts_per_token;
    double slots = m->capacity_factor > 0 ? m->capacity_factor * k : k;
    term(out, &n, "router probabilities: 4 s b E / sp (fp32)", 4 * s * b * (double)m->num_experts / sp);
    term(out, &n, "dispatched token copies: k' e8 s b h / sp (k' = k, or cf x k with a capacity)",
        slots * e8 * s * b * h / sp);
    term(out, &n, "routed experts' MLP: k' s b i_expert (3 e + e8 | e + e8) / t",
        slots * per_width * s * b * (double)model_expert_width(m) / tp);
    term(out, &n, "shared experts' MLP: s b i_shared (3 e + e8 | e + e8) / t",
        per_width * s * b * (double)m->shared_intermediate_size / tp);
    return n;
}

int memory_block_terms(const sim_input *in, int c, bool local, bool keep_attention_matrix, act_term *out)
{
    const model *m = in->m;
    const training *t = in->t;
    const param_counts *pc = in->pc;
    int n = 0;
    double scale = pc->seq_scale[c];
    block_kind kind = pc->kind[c];
    /* Context parallelism: each rank keeps the activations of its s / cp tokens. */
    double s = (double)t->seq_len * scale / (double)t->cp, b = (double)t->micro_batch,
           h = (double)m->hidden_size;
    double e = in->bt.act;
    double tp = (double)t->tp, sp = t->sequence_parallel ? tp : 1;
    double drop = m->dropout ? 1 : 0; /* dropout masks are 1 byte per element */
    /* FP8 (Transformer Engine): each linear saves its FP8-cast input for the weight gradient,
     * 1 byte instead of e (the QKV and first MLP inputs come from TE's fused LayerNormLinear). */
    double e8 = t->precision == PREC_FP8 ? 1 : e;
    bool cross = pc->mixer2[c] == MIX_CROSS;

    /* Korthikanti et al. Table 2 derivation, term by term (with e = 2, q = kv = h, i = 4h and
     * dropout it is exactly s b h (34 + 5 a s / h)). Replicated across TP ranks unless
     * sequence parallel: the inputs of the norms and of the projections they feed (pre-norm:
     * norm1, QKV, norm2, MLP = 4 e s b h; a parallel block's one norm feeds both = 2; Gemma's
     * post-norms add 2; a decoder's cross-attention adds its norm and Q input; a hybrid
     * layer one of each per sub-block), and the dropout masks after attention and MLP (and
     * cross-attention). */
    double norms = m->parallel_block ? 1 : 2, projections = norms;
    if (m->block_norms == 4) norms += 2;
    if (cross) norms += 1, projections += 1;
    if (m->nclass > 0) norms = projections = pc->cls_norms[c];
    n = mix_term(out, n,
        "norm, projection inputs: s b h (e N + e8 P) / sp; N = P = 2 (parallel 1), post-norms N+2, cross +1",
        s * b * h * (e * norms + e8 * projections) / sp);
    n = mix_term(out, n, "dropout masks: 2 s b h / sp (3 with cross-attention), 1 byte each",
        s * b * h * drop * (cross ? 3 : 2) / sp);
    /* The block's mixers (mixer_ops.act_terms): attention's Q, K, V, scores or log-sum-exp;
     * a linear-attention or SSM layer's projections, conv and chunk states. */
    mix_dims d = {.s = s,
        .b = b,
        .h = h,
        .e = e,
        .e8 = e8,
        .tp = tp,
        .sp = sp,
        .drop = drop,
        .s_enc = (double)t->seq_len / (double)t->cp,
        .local = local,
        .keep_scores = keep_attention_matrix,
        .flash = t->flash_attention,
        .cross = cross,
        .encoder = kind == BLOCK_ENCODER};
    if (pc->mixer[c] != MIX_NONE) n = mixer_table[pc->mixer[c]]->act_terms(m, &d, out, n);
    if (pc->mixer2[c] != MIX_NONE) n = mixer_table[pc->mixer2[c]]->act_terms(m, &d, out, n);
    /* MLP: fc output and activation output (2 x e s b i); gated MLPs keep gate, up, act(gate)
     * and their product (4 x e s b i), the last being the down projection's input (e8). */
    double per_width = (m->gated_mlp ? 3 : 1) * e + e8;
    if (kind == BLOCK_NOFFN) return n;
    if (kind != BLOCK_MOE) {
        double w = m->dense_intermediate_size > 0 ? (double)m->dense_intermediate_size
                                                  : (double)m->intermediate_size;
        n = mix_term(out, n, "MLP: s b i (3 e + e8 gated | e + e8 plain) / t", per_width * s * b * w / tp);
        return n;
    }
    return moe_terms(m, (act_dims){s, b, h, tp, sp}, e8, per_width, out, n);
}

/* Sum of one block's terms. */
static double block_activations(const sim_input *in, int kind, bool local, bool keep)
{
    act_term terms[ACT_TERMS_MAX];
    int n = memory_block_terms(in, kind, local, keep, terms);
    double sum = 0;
    for (int j = 0; j < n; j++) sum += terms[j].bytes;
    return sum;
}

double memory_layer_activations(const sim_input *in, bool keep_attention_matrix)
{
    const model *m = in->m;
    /* A uniform model is one kind of block: return it exactly, not a mean of L equal terms
     * (and without the loop: this is on plan's evaluation path). */
    const param_counts *pc = in->pc;
    if (m->nclass <= 0 && m->encoder_layers <= 0 && m->num_experts <= 0 &&
        (m->sliding_window <= 0 || m->sliding_layers <= 0))
        return block_activations(in, BLOCK_DENSE, false, keep_attention_matrix);
    double total = 0, L = (double)m->num_layers;
    for (int kind = 0; kind < pc->nclass; kind++) {
        double blocks = pc->nblocks[kind];
        if (blocks <= 0) continue;
        double local = pc->nlocal[kind];
        if (blocks - local > 0)
            total += (blocks - local) * block_activations(in, kind, false, keep_attention_matrix);
        if (local > 0) total += local * block_activations(in, kind, true, keep_attention_matrix);
    }
    return total / L;
}

/* torchtitan's op-level selective checkpointing (torchtitan parallelize_llama.py, _save_list:
 * aten.mm, scaled-dot-product attention and reduce_scatter outputs are saved, "except every
 * second mm"; everything else is recomputed from the block's input). Of a block's matmul
 * outputs in order (q, k, v, out; gate, up, down or fc1, fc2) the 1st, 3rd, .. are kept:
 * q, v, gate (or fc1) and down; plus the attention output and its log-sum-exp, and the
 * block input the recomputation starts from. */
static double memory_layer_ops_sac(const sim_input *in)
{
    const model *m = in->m;
    const training *t = in->t;
    double s = (double)t->seq_len / (double)t->cp, b = (double)t->micro_batch, h = (double)m->hidden_size;
    double a = (double)m->num_heads, e = in->bt.act;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double tp = (double)t->tp, sp = t->sequence_parallel ? tp : 1;
    /* The MLP's first matmul output a token passes, mean over the blocks: a dense block's
     * width, an MoE block's k routed experts' and its shared experts' (not k dense widths). */
    const param_counts *pc = in->pc;
    double i = 0, L = (double)m->num_layers;
    for (int c = 0; c < pc->nclass; c++)
        i += pc->nblocks[c] / L *
            (pc->kind[c] == BLOCK_MOE ? (double)m->experts_per_token * (double)model_expert_width(m) +
                        (double)m->shared_intermediate_size
                                      : (double)m->intermediate_size);
    double mm = q + kv + i + (m->gated_mlp ? h : 0);
    return e * s * b * h / sp + (e * s * b * (mm + q) + 4 * a * s * b) / tp;
}

/* The fused linear loss's chunk (with the loss terms below memory_finish). */
static double memory_loss_chunk(const sim_input *in, double tokens_h);
/* Full recomputation over a stage (each of its virtual chunks) as Megatron-Core runs it
 * (NVIDIA/Megatron-LM@d98e8a64 megatron/core/recompute.py): --recompute-method uniform
 * checkpoints chunks of N blocks, one input stored per chunk, and reruns a whole chunk in
 * backward; block checkpoints the first N blocks (one input each) and keeps the others whole.
 * N = 0: every block checkpointed alone. Returns what one micro-batch keeps on the stage (kept:
 * one block input, full: one block's activations); *inputs the block inputs stored, *transient
 * what a recomputation holds at once beyond them. Without full recompute: kept x layers. */
static double memory_ckpt_stage(
    const sim_input *in, double kept, double full, double *inputs, double *transient)
{
    const training *t = in->t;
    double layers = (double)in->stage_layers;
    *inputs = layers;
    *transient = 0;
    if (t->checkpointing != CKPT_FULL) return kept * layers;
    /* v chunks of the stage's layers: r of them q + 1 layers, the others q (a split v does not
     * divide; 32 layers in 6 chunks once stored 36 block inputs, and -4 blocks whole). */
    double v = t->virtual_stages > 1 ? zs_fmin((double)t->virtual_stages, zs_fmax(1, layers)) : 1;
    double q = floor(layers / v), r = layers - q * v, chunk = zs_fmax(1, q + (r > 0));
    double n = t->recompute_layers > 0 ? zs_fmin((double)t->recompute_layers, chunk) : 1;
    *transient = full - kept;
    if (t->recompute_layers > 0 && t->recompute_method == RECOMPUTE_BLOCK) {
        *inputs = r * zs_fmin(n, q + 1) + (v - r) * zs_fmin(n, q);
        return kept * *inputs + full * (layers - *inputs);
    }
    *inputs = r * ceil((q + 1) / n) + (v - r) * ceil(q / n);
    *transient = n * full - kept;
    return kept * *inputs;
}

/* Activation offload (Axolotl gradient_checkpointing: offload, torchtitan's): the stored block
 * inputs of a full recompute wait in host memory; the GPU keeps two in flight (one copying
 * out or in while the next computes). Returns the host bytes per micro-batch; *per_mb loses
 * them. Nothing without full recompute. */
static double memory_act_offload(const sim_input *in, double kept, double inputs, double *per_mb)
{
    if (!in->t->offload_activations || in->t->checkpointing != CKPT_FULL || inputs <= 2) return 0;
    double host = kept * (inputs - 2);
    *per_mb -= host;
    return host;
}

double memory_ckpt_inputs(const sim_input *in)
{
    const model *m = in->m;
    const training *t = in->t;
    if (m->params_only || t->checkpointing != CKPT_FULL) return 0;
    double kept = in->bt.act * (double)t->seq_len / (double)t->cp * (double)t->micro_batch *
        (double)m->hidden_size / (t->sequence_parallel ? (double)t->tp : 1);
    double inputs, transient;
    memory_ckpt_stage(in, kept, kept, &inputs, &transient);
    return kept * inputs;
}

/* Interleaved: Megatron-Core's warm-up on stage i is 2 (p - i - 1) + (v - 1) N chunk
 * micro-batches, at most the m v there are, and one more is in flight at the first 1F1B step,
 * for N micro-batches per virtual stage group (--microbatch-group, default p;
 * NVIDIA/Megatron-LM@d98e8a64 megatron/core/pipeline_parallel/schedules.py
 * get_pp_rank_microbatches). A chunk holds 1/v of the stage's layers, so the stage holds
 * (warm-up + 1) / v micro-batches of its layers: at i = 0 and N = p that is p + (p - 1) / v,
 * Korthikanti et al.'s 1 + (p - 1) / (p v) factor on p. Plain 1F1B: min(p - i, m). For
 * frameworks that do not require m to be a multiple of N (generic, fsdp2) it is an
 * approximation. */
double memory_inflight(const sim_input *in)
{
    const training *t = in->t;
    double p = (double)t->pp, i = p > 1 ? (double)in->stage.index : 0, m = (double)t->grad_accum;
    if (p <= 1 || t->virtual_stages <= 1) return zs_fmin(p - i, m);
    double v = (double)t->virtual_stages, n = t->microbatch_group > 0 ? (double)t->microbatch_group : p;
    return zs_fmin(2 * (p - i - 1) + (v - 1) * n + 1, m * v) / v;
}

void memory_activations(const sim_input *in, memory *mem)
{
    const model *m = in->m;
    const training *t = in->t;
    mem->activations = mem->logits = mem->cp_kv_buffers = 0;
    if (m->params_only) return;
    double s = (double)t->seq_len / (double)t->cp, b = (double)t->micro_batch, h = (double)m->hidden_size;
    double v = (double)m->vocab_size, e = in->bt.act, tp = (double)t->tp;
    double sp = t->sequence_parallel ? tp : 1, p = (double)t->pp;

    /* What one block keeps per micro-batch: everything, everything but the attention matrix
     * (selective recompute), or just its input (full recompute, Korthikanti section 5). */
    double full = in->layer_act[1] > 0 ? in->layer_act[1] : memory_layer_activations(in, true), kept;
    switch (t->checkpointing) {
    case CKPT_SELECTIVE:
        /* Flash attention keeps no score matrix, so dropping it changes nothing. */
        if (t->flash_attention && in->fw->selective != SELECTIVE_OPS) {
            kept = full;
            break;
        }
        /* torchtitan's op list is written for attention blocks; a hybrid stack keeps what
         * drops only the attention scores. */
        kept = in->fw->selective == SELECTIVE_OPS && m->nclass <= 0 ? memory_layer_ops_sac(in)
            : in->layer_act[0] > 0                                  ? in->layer_act[0]
                                                                    : memory_layer_activations(in, false);
        /* A policy that saves a subset never holds more than saving everything. */
        kept = zs_fmin(kept, full);
        break;
    case CKPT_FULL: kept = e * s * b * h / sp; break;
    default: kept = full; break;
    }
    /* The stage in force (in->stage, one view of the pipeline split; sim_run_memory takes the
     * heaviest). 1F1B: stage i holds min(p - i, m) micro-batches in flight (Narayanan et al.
     * 2021 section 2.2: the first stage p, the last one); interleaving with v chunks holds
     * Megatron-Core's warm-up (memory_inflight; Korthikanti section 4.2.3's 1 + (p - 1) / (p v)
     * on the first stage). Full recompute of
     * N layers (memory_ckpt_stage) decides what each micro-batch keeps on the stage; activation
     * offload moves the stored inputs to the host. */
    double inflight = memory_inflight(in);
    double inputs, transient;
    double per_mb = memory_ckpt_stage(in, kept, full, &inputs, &transient);
    mem->host_per_gpu += memory_act_offload(in, kept, inputs, &per_mb) * inflight;
    double stage = per_mb * inflight;
    /* The blocks being recomputed hold their full activations for a moment. */
    stage += transient;
    if (t->cp > 1) {
        /* Ring attention's two K/V receive buffers, one chunk's K and V each (double
         * buffering: the next chunk arrives while the one in hand is attended to), for the
         * block being computed on every stage; they shrink only as the local chunk does. */
        double kvd = (double)(m->num_kv_heads * m->head_dim);
        mem->cp_kv_buffers = 2 * 2 * e * s * b * kvd / tp;
    }
    /* Embedding dropout mask on the first stage; final norm and LM head inputs on the last
     * (e s b h each); the loss's logits (one fp32 copy, or what the framework's loss keeps at
     * its peak), split over the vocabulary by TP. */
    if (in->stage.embedding || p == 1) stage += (m->dropout ? s * b * h : 0) / sp * inflight;
    /* An encoder-decoder's head sees the decoder's tokens. */
    double sd = s * in->pc->seq_scale[BLOCK_DENSE];
    double head = 2 * e * sd * b * h / sp;
    double logits =
        memory_loss_bytes(t, in->fw, e) * sd * b * v / tp + memory_loss_chunk(in, sd * b * h / sp);
    /* A final logit soft-cap (Gemma-2: cap x tanh(logits / cap)) keeps the tanh output for its
     * backward: one more V-wide tensor per token in the compute dtype. */
    if (m->final_softcap > 0) logits += e * sd * b * v / tp;
    mem->activations = stage;
    if (in->stage.head || p == 1) {
        mem->activations += head;
        mem->logits = logits;
    }
}

double memory_block_params(const sim_input *in, double layers)
{
    const training *t = in->t;
    const param_counts *pc = in->pc;
    bool first = in->stage.embedding || t->pp == 1, last = in->stage.head || t->pp == 1;
    /* The stage's parameters (sim.c sim_stage_params) hold the embedding on the first stage and
     * the final norm and the head (a tied one a second copy) on the last. */
    double outside = (first ? pc->embedding : 0) + (last ? pc->final_norm + pc->lm_head : 0) +
        (last && t->pp > 1 && in->m->tied_embeddings ? pc->embedding : 0);
    double tp = (double)t->tp;
    return zs_fmax(0, in->local_params - outside / tp - pc->norm_per_layer * layers / tp);
}

/* Autocast over fp32 parameters (framework_autocast): each matmul's weight is cast to 16 bits
 * where it is used (ATen's cached_cast, aten/src/ATen/autocast_mode.cpp) and autograd saves
 * that cast for the input's gradient (tools/autograd/derivatives.yaml: mm's mat1 gradient is
 * grad.mm(mat2.t()), so mat2, the cast, is saved), so each block run with grad keeps a 16-bit
 * copy of its matrices until its backward (under FSDP of the gathered, unsharded ones: the
 * reshard frees the fp32 unit, not its cast), for each micro-batch in flight, and the LM head
 * one of its weight. Full recompute runs the blocks without grad and casts again as it
 * recomputes, holding what memory_ckpt_stage says one recomputation holds; torchtitan's
 * op-level SAC recomputes the cast (aten._to_copy is not in its save list). Norms run in fp32
 * (autocast's fp32 ops) and the embedding is a lookup: neither is cast. */
void memory_autocast(const sim_input *in, const strategy *s, memory *mem)
{
    const model *m = in->m;
    const training *t = in->t;
    const param_counts *pc = in->pc;
    if (m->params_only || in->stage_layers <= 0 || !framework_autocast(in->fw, s, t)) return;
    double layers = (double)in->stage_layers, e = in->bt.act;
    bool last = in->stage.head || t->pp == 1;
    double head = last ? (m->tied_embeddings ? pc->embedding : pc->lm_head) / (double)t->tp : 0;
    double block = e * memory_block_params(in, layers) / layers;
    double kept, transient = 0, inputs;
    if (t->checkpointing == CKPT_FULL)
        kept = memory_ckpt_stage(in, 0, block, &inputs, &transient);
    else if (t->checkpointing == CKPT_SELECTIVE && in->fw->selective == SELECTIVE_OPS)
        kept = 0, transient = block;
    else
        kept = block * layers;
    mem->activations += (kept + e * head) * memory_inflight(in) + transient;
}

/* ---- Loss and fine-tuning terms (issue 23: the loss as the framework's code keeps it; the
 * fine-tuning recipes' transients, static tensors and paged optimizer states). ---- */

double memory_loss_bytes(const training *t, const framework *fw, double act_bytes)
{
    int kind = t->loss != LOSS_DEFAULT ? t->loss : fw->loss;
    double e = act_bytes;
    switch (kind) {
    /* HF transformers' ForCausalLMLoss upcasts (logits.float()) and calls F.cross_entropy
     * (huggingface/transformers@0114da07 src/transformers/loss/loss_utils.py); torchtitan's
     * cross_entropy_loss the same on pred.float(). log_softmax saves its fp32 output; its
     * backward holds that, the incoming fp32 gradient and the one it writes: 12 bytes. */
    case LOSS_EAGER: return 12;
    /* LitGPT's chunked_cross_entropy on the LM head's 128-token chunks (Lightning-AI/litgpt@26857050
     * litgpt/utils.py), which Fabric's precision plugins hand back in the default dtype, fp32
     * (lightning.fabric HalfPrecision.convert_output: dst_type=torch.get_default_dtype()): the
     * fp32 chunks and their fp32 log-softmax, 4 + 4; a chunk's gradient is transient. */
    case LOSS_CHUNKED: return 8;
    /* torchtune's CEWithChunkedOutputLoss (pytorch/torchtune@30b8519e
     * torchtune/modules/loss/ce_chunked_output_loss.py: num_output_chunks 8, each chunk's
     * logits.float() into F.cross_entropy): the chunks in e and the saved fp32 log-softmax, at
     * the end of forward with every activation saved. */
    case LOSS_CHUNKED_FP32: return e + 4;
    /* Liger's fused linear cross entropy: the head and the loss run chunk by chunk, no whole
     * logits (memory_loss_chunk counts what it holds). */
    case LOSS_FUSED_LINEAR: return 0;
    /* torchtune's chunked loss with compile=True: AOTAutograd's min-cut partitioner
     * (torch/_functorch/partitioners.py, min_cut_rematerialization_partition) saves the graph's
     * input, the chunk's logits in e, and the per-token log-sum-exp, and recomputes the softmax
     * in backward instead of saving fp32 copies; one chunk's gradient (1 of torchtune's 8) is
     * live at a time. */
    case LOSS_COMPILED: return e * (1 + 1.0 / 8);
    /* flash-attn's CrossEntropyLoss (Dao-AILab/flash-attention@900b3793
     * flash_attn/losses/cross_entropy.py; the xentropy kernel of v1.0.3 before it), LLM Foundry's
     * default loss_fn fused_crossentropy for MPT (mosaicml/llm-foundry@b2a43a14
     * llmfoundry/models/mpt/modeling_mpt.py, ComposerMPTCausalLM): one kernel on the logits in
     * their own dtype, a log-sum-exp per token saved beside them, and with inplace_backward
     * False (its default) a new gradient of their size: 2 e. */
    case LOSS_FLASH: return 2 * e;
    /* Megatron's vocab-parallel cross entropy (NVIDIA/Megatron-LM@d98e8a64
     * megatron/core/tensor_parallel/cross_entropy.py: logits.float(), torch.exp(out=), div_,
     * save_for_backward(exp_logits), grad_input.mul_) turns the fp32 logits into the softmax
     * in place, saves it, and writes the gradient into it in backward: one fp32 copy. Also
     * a framework that names no loss. */
    default: return 4;
    }
}

/* What a fused linear cross entropy holds instead of the logits, for `tokens_h` = tokens x
 * hidden elements: the gradient of the head's input it computes in forward and one chunk of
 * logits, sized by Liger to about tokens x hidden elements (linkedin/Liger-Kernel
 * src/liger_kernel/ops/fused_linear_cross_entropy.py: chunk_size = next power of 2 of
 * BT / ceil(V / H)), both in the compute dtype. 0 for every other loss. */
static double memory_loss_chunk(const sim_input *in, double tokens_h)
{
    int kind = in->t->loss != LOSS_DEFAULT ? in->t->loss : in->fw->loss;
    return kind == LOSS_FUSED_LINEAR ? 2 * in->bt.act * tokens_h : 0;
}

/* QLoRA: bitsandbytes dequantizes a 4-bit weight to the compute dtype for each matmul, forward
 * and backward (bitsandbytes@95f9af30 bitsandbytes/autograd/_functions.py, MatMul4Bit:
 * F.dequantize_4bit(B, quant_state).to(A.dtype)), one linear at a time: the largest one's
 * copy (and the dequantized tensor, when its dtype is not the compute dtype), split by TP. */
static double memory_dequantized(const sim_input *in)
{
    const training *t = in->t;
    if (t->finetune != FT_QLORA || in->stage_layers <= 0) return 0;
    double largest = finetune_largest_linear(in->m);
    /* A 4-bit LM head (LitGPT) is dequantized whole for each of its chunks. */
    if (finetune_quantized_head(t) && (t->pp == 1 || in->stage.head))
        largest = zs_fmax(largest, in->pc->lm_head);
    return finetune_dequant_bytes(t, in->bt.act) * largest / (double)t->tp;
}

/* QLoRA without full recompute: bitsandbytes' 4-bit matmul before 0.43.2 keeps its input A for
 * backward in every 4-bit linear whose input needs a gradient (bitsandbytes@0.42.0
 * bitsandbytes/autograd/_functions.py MatMul4Bit.forward: "ctx.tensors = (A, B)"; removed by
 * 9e753741, "fix QLoRA mem bug: delete useless buffered activation", first in 0.43.2), which a
 * frozen torch linear does not (autograd saves mm's input only for the weight's gradient: the
 * inputs of the frozen layers are a set LoRA does not hold). As a ctx attribute, not
 * save_for_backward, it is not released by backward but with the graph, when the loop
 * rebinds `loss` after the next micro-batch's forward (Lightning-AI/litgpt@5895df10
 * litgpt/finetune/lora.py fit: "loss = chunked_cross_entropy(...)"): the previous
 * micro-batch's set is held too. Two sets of the block's linear inputs (finetune_linear_inputs)
 * per stage layer, in the compute dtype. LitGPT pins bitsandbytes==0.42.0 (@5895df10
 * pyproject.toml), artidoro/qlora 0.40.0. Under full recompute (the QLoRA paper's recipe) the
 * blocks run forward without grad and the recomputed block's graph is freed after its
 * backward: nothing is held; nor with bitsandbytes 0.43.2 or later (--qlora-stack hf, the default). */
static double memory_held_inputs(const sim_input *in)
{
    const training *t = in->t;
    if (t->finetune != FT_QLORA || t->qlora_stack == QLORA_HF || t->checkpointing == CKPT_FULL ||
        in->stage_layers <= 0)
        return 0;
    double tokens = (double)t->seq_len / (double)t->cp * (double)t->micro_batch;
    return 2 * in->bt.act * tokens * finetune_linear_inputs(in->m) / (double)t->tp * (double)in->stage_layers;
}

/* Bytes the caching allocator never frees or resizes, which leave it no cached-but-free blocks:
 * a fine-tuning run's frozen base (loaded once; only the adapters' tensors and the
 * activations come and go), and paged optimizer states (bitsandbytes allocates them with
 * cudaMallocManaged, outside PyTorch's allocator). A full-training run keeps the profile's
 * fraction on everything, as its allocator_fraction was set. */
static double memory_static(const sim_input *in, const memory *mem)
{
    const training *t = in->t;
    double fixed = 0;
    if (t->finetune != FT_FULL) {
        double adapters = finetune_adapter_bytes(t, &in->bt).param * in->trainable;
        fixed += zs_fmax(0, mem->parameters - adapters);
    }
    if (t->optimizer == OPT_PAGED_ADAMW || t->optimizer == OPT_PAGED_ADAM8BIT) fixed += mem->optimizer_states;
    return fixed;
}

/* Paged optimizers (bitsandbytes' paged_adamw_32bit, paged_adamw_8bit: QLoRA section 3, "Paged
 * Optimizers") put their states in CUDA unified memory (bitsandbytes@95f9af30
 * bitsandbytes/optim/optimizer.py get_state_buffer -> F.get_paged for tensors of 1e5 elements
 * or more), which the driver evicts to host RAM when the GPU runs out: they never make a run
 * run out of memory. They count on the GPU only as far as room remains under the HBM; the
 * rest moves to host RAM (paged_to_host, in host_per_gpu). */
static void memory_page_optimizer(const sim_input *in, memory *mem)
{
    mem->paged_to_host = 0;
    const training *t = in->t;
    if (t->optimizer != OPT_PAGED_ADAMW && t->optimizer != OPT_PAGED_ADAM8BIT) return;
    double hbm = in->hw->hbm_bytes, states = mem->optimizer_states;
    if (hbm <= 0 || states <= 0) return;
    /* Adapters smaller than bitsandbytes' 1e5-element paging threshold keep plain buffers. */
    double pageable = t->finetune != FT_FULL
        ? states * finetune_pageable_fraction(in->m, t->lora_rank, t->lora_targets)
        : states;
    double evicted = zs_fmin(pageable, zs_fmax(0, mem->total - hbm));
    mem->paged_to_host = evicted;
    mem->optimizer_states -= evicted;
    mem->model_states -= evicted;
    mem->total -= evicted;
    mem->host_per_gpu += evicted;
}

void memory_finish(const sim_input *in, memory *mem)
{
    const hardware *hw = in->hw;
    mem->dequantized = memory_dequantized(in);
    mem->activations += memory_held_inputs(in);
    double allocated = mem->model_states + mem->activations + mem->logits + mem->cp_kv_buffers +
        mem->comm_buffers + mem->gathered_params + mem->dequantized;
    mem->cuda_context = hw->cuda_context_bytes;
    mem->allocator = hw->allocator_fraction * (allocated - memory_static(in, mem));
    mem->total = allocated + mem->cuda_context + mem->allocator;
    memory_page_optimizer(in, mem);
    mem->host_per_node = mem->host_per_gpu * (double)in->gpus_per_node;
    mem->fits_gpu = mem->total <= hw->hbm_bytes;
    /* Host RAM and, for ZeRO-Infinity, the node's NVMe must hold their shares too. */
    mem->fits_host = (hw->host_memory_bytes <= 0 || mem->host_per_node <= hw->host_memory_bytes) &&
        (hw->nvme_bytes <= 0 || mem->nvme_per_gpu * (double)in->gpus_per_node <= hw->nvme_bytes);
}

void memory_buffers(const sim_input *in, const strategy *s, memory *mem)
{
    const framework *fw = in->fw;
    switch (fw->buffers) {
    case BUFFERS_STRATEGY: s->buffers(s, in, mem); break;
    case BUFFERS_VIEWS:
        /* Buckets are views of the contiguous gradient buffer counted in the states. */
        mem->comm_buffers = mem->gathered_params = 0;
        break;
    case BUFFERS_UNITS: {
        /* FSDP: a unit is a transformer block; units_in_flight are unsharded at once, and a
         * unit's full gradients exist until their reduce-scatter. */
        double unit = in->m->params_only ? in->local_largest : in->pc->per_layer / (double)in->t->tp;
        /* Expert parallelism: a block's unit holds the rank's E / EP experts, not E / TP
         * (per_layer counts every expert of the block). The block's own share first, then the
         * stage's bound: a one-layer stage's local_params already holds E / EP experts, and
         * taking E / TP off it left -0.28 GB of buffers (DeepSeek-V2-Lite at PP 16, fuzz_flags). */
        double eu = memory_expert_unit(in);
        if (eu > 0) unit = zs_fmax(0, unit - eu * (double)(in->t->ep * in->etp) / (double)in->t->tp) + eu;
        if (!in->m->params_only) unit = zs_fmin(unit, in->local_params);
        /* The unsharded copy (the compute dtype, bt.gather) and each unit's full gradients as
         * backward writes them, in that dtype. FSDP's NO_SHARD over fp32 flat parameters
         * casts a 16-bit copy per unit too, freed after its forward and cast again for its
         * backward (fw_fsdp.c), and reduces each unit's 16-bit gradient before the cast back. */
        bool copy = in->flat_params && fw->no_shard_unit_copies && in->bt.gather != in->bt.param &&
            !s->shards.gradients;
        mem->gathered_params = s->shards.parameters || copy ? in->bt.gather * unit * fw->units_in_flight : 0;
        mem->comm_buffers = s->shards.gradients || copy ? in->bt.gather * unit : 0;
        break;
    }
    }
}
