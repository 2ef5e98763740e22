/* mix_deltanet.c -- gated DeltaNet linear attention as a token mixer (Qwen3-Next, Qwen3.5). */
#include <math.h>

#include "core/mixer.h"

/* Chunk length of the chunked gated-delta-rule kernel (flash-linear-attention's
 * chunk_gated_delta_rule, BT = 64, which HF Qwen3NextGatedDeltaNet calls). */
#define DELTANET_CHUNK 64.0

/* HF Qwen3NextGatedDeltaNet: in_proj_qkvz (h -> 2 nk dk + 2 nv dv: q, k, v and the output
 * gate z), in_proj_ba (h -> 2 nv: the write strength beta and the decay a), a depthwise
 * causal conv over q, k, v without bias, per-head dt_bias and A_log, a gated RMSNorm of dv
 * shared by the heads, and out_proj (nv dv -> h). */
static void deltanet_tensors(const model *m, tensor_list *l, int base)
{
    double h = (double)m->hidden_size;
    double kd = (double)(m->lin_k_heads * m->lin_k_dim), vd = (double)(m->lin_v_heads * m->lin_v_dim);
    double nv = (double)m->lin_v_heads;
    tensor_add_linear(l, "linattn.in_proj_qkvz.weight", h, 2 * kd + 2 * vd, 1, base, true, TENSOR_LORA_MIXER);
    tensor_add_linear(l, "linattn.in_proj_ba.weight", h, 2 * nv, 1, base + 1, true, TENSOR_LORA_MIXER);
    tensor_add(l, "linattn.conv1d.weight", (2 * kd + vd) * (double)m->lin_conv, 1, base + 2, true);
    tensor_add(l, "linattn.dt_bias", nv, 1, base + 3, true);
    tensor_add(l, "linattn.A_log", nv, 1, base + 3, true);
    tensor_add(l, "linattn.norm.weight", (double)m->lin_v_dim, 1, base + 4, true);
    tensor_add_linear(l, "linattn.out_proj.weight", vd, h, 1, base + 5, true, TENSOR_LORA_MIXER);
}

/* Per token and value head, the chunked delta rule (Yang et al. 2024, arXiv 2412.06464,
 * section 3.3, chunk C): within the chunk, Q K^T and its product with the values (2 C dk +
 * 2 C dv), the UT/WY transform's K K^T and its products with K and V (2 C dk + 2 C dk +
 * 2 C dv); across chunks, reading the dk x dv state with q, correcting with w and updating
 * it (3 x 2 dk dv); the conv 2 d_conv per channel. Causal within a chunk as run, so the
 * intra-chunk part counts half as executed. No growth with the sequence. */
static void deltanet_flops(const model *m, const training *t, const mix_dims *d, double *mf, double *ef)
{
    (void)t;
    (void)d;
    double nv = (double)m->lin_v_heads, dk = (double)m->lin_k_dim, dv = (double)m->lin_v_dim;
    double c = DELTANET_CHUNK;
    double intra = nv * 2 * c * (3 * dk + 2 * dv), state = nv * 6 * dk * dv;
    double conv = 2 * (double)m->lin_conv *
        (2 * (double)(m->lin_k_heads * m->lin_k_dim) + (double)(m->lin_v_heads * m->lin_v_dim));
    *mf = intra + state + conv;
    *ef = intra / 2 + state + conv;
}

/* What the layer keeps for backward. The kernel (flash-linear-attention
 * fla/ops/gated_delta_rule/chunk.py, ChunkGatedDeltaRuleFunction.forward: save_for_backward(q,
 * q_rstd, k, k_rstd, v, g, beta, A, ...)) keeps its inputs, the fp32 decay, the q/k L2-norm
 * statistics and the WY transform A (C values a token and head), and recomputes the chunk
 * states in backward; around it the causal conv keeps its input (in_proj's q, k, v), the gate
 * z, a and b feed the decay and beta, the gated norm keeps the kernel output, out_proj its
 * input. Nothing grows with the sequence: no KV cache, no scores. */
static int deltanet_terms(const model *m, const mix_dims *d, act_term *out, int n)
{
    double s = d->s, b = d->b, e = d->e, e8 = d->e8, tp = d->tp;
    double kd = (double)(m->lin_k_heads * m->lin_k_dim), vd = (double)(m->lin_v_heads * m->lin_v_dim);
    double nv = (double)m->lin_v_heads, nk = (double)m->lin_k_heads;
    n = mix_term(out, n, "DeltaNet conv input q, k, v (in_proj output): e s b (2 kd + vd) / t",
        e * s * b * (2 * kd + vd) / tp);
    n = mix_term(out, n, "DeltaNet kernel inputs q, k, v (after conv): e s b (2 kd + vd) / t",
        e * s * b * (2 * kd + vd) / tp);
    n = mix_term(out, n, "DeltaNet gate z, a and b: e s b (vd + 2 nv) / t", e * s * b * (vd + 2 * nv) / tp);
    n = mix_term(out, n,
        "DeltaNet decay (fp32), beta, q/k norm statistics (fp32): s b ((4 + e) nv + 8 nk) / t",
        s * b * ((4 + e) * nv + 8 * nk) / tp);
    n = mix_term(
        out, n, "DeltaNet WY transform A: e s b nv C / t (C = 64)", e * s * b * nv * DELTANET_CHUNK / tp);
    n = mix_term(out, n, "DeltaNet output (gated norm input): e s b vd / t", e * s * b * vd / tp);
    n = mix_term(out, n, "DeltaNet out_proj input: e8 s b vd / t", e8 * s * b * vd / tp);
    return n;
}

/* Elementwise work per token: conv (read + write), SiLU, the gate and norm over the values. */
static double deltanet_traffic(const model *m, double e)
{
    double kd = (double)(m->lin_k_heads * m->lin_k_dim), vd = (double)(m->lin_v_heads * m->lin_v_dim);
    return e * (2 * (2 * kd + vd) + 4 * vd);
}

const mixer_ops mix_deltanet = {
    .name = "gated DeltaNet",
    .tensors = deltanet_tensors,
    .flops = deltanet_flops,
    .act_terms = deltanet_terms,
    .traffic = deltanet_traffic,
    .formula = "gated DeltaNet: a dk x dv state per value head, nothing that grows with the sequence;\n    "
               "chunked delta rule 2 C (3 dk + 2 dv) + 6 dk dv FLOPs a head and token, C = 64 "
               "(Yang et al. 2024, arXiv 2412.06464)",
};
