/* mix_mamba.c -- Mamba-2 (SSD) and Mamba-1 selective state spaces as token mixers. */
#include <math.h>

#include "core/mixer.h"

/* Mamba-2 (HF Mamba2Mixer, NemotronHMamba2Mixer, BambaMixer, FalconH1Mixer): in_proj
 * h -> z (d_inner) + x, B, C (conv_dim = d_inner + 2 G N) + dt (H), a depthwise conv over x, B,
 * C, per-head dt_bias, A_log and D, a gated RMSNorm over d_inner, out_proj d_inner -> h. */
static void mamba2_tensors(const model *m, tensor_list *l, int base)
{
    double h = (double)m->hidden_size, di = (double)m->ssm_inner, nh = (double)m->ssm_heads;
    double conv = di + 2 * (double)(m->ssm_groups * m->ssm_state);
    tensor_add_linear(l, "ssm.in_proj.weight", h, di + conv + nh, 1, base, true, TENSOR_LORA_MIXER);
    if (m->ssm_proj_bias) tensor_add(l, "ssm.in_proj.bias", di + conv + nh, 1, base, true);
    tensor_add(l, "ssm.conv1d.weight", conv * (double)m->ssm_conv, 1, base + 1, true);
    if (m->ssm_conv_bias) tensor_add(l, "ssm.conv1d.bias", conv, 1, base + 1, true);
    tensor_add(l, "ssm.dt_bias", nh, 1, base + 2, true);
    tensor_add(l, "ssm.A_log", nh, 1, base + 2, true);
    tensor_add(l, "ssm.D", nh, 1, base + 2, true);
    if (m->ssm_norm) tensor_add(l, "ssm.norm.weight", di, 1, base + 3, true);
    tensor_add_linear(l, "ssm.out_proj.weight", di, h, 1, base + 4, true, TENSOR_LORA_MIXER);
    if (m->ssm_proj_bias) tensor_add(l, "ssm.out_proj.bias", h, 1, base + 4, true);
}

/* SSD (Dao and Gu 2024, arXiv 2405.21060, section 6: the chunked algorithm, chunk Q): per
 * token, the intra-chunk C B^T per group (2 Q N) and its product with x per head (2 Q P), the
 * chunk state B^T x and its read-out C h per head (2 N P each), and the conv (2 d_conv per
 * channel). Causal within the chunk, so the intra-chunk part runs half as executed. */
static void mamba2_flops(const model *m, const training *t, const mix_dims *d, double *mf, double *ef)
{
    (void)t;
    (void)d;
    double nh = (double)m->ssm_heads, ng = (double)m->ssm_groups, N = (double)m->ssm_state;
    double P = nh > 0 ? (double)m->ssm_inner / nh : 0, Q = (double)m->ssm_chunk;
    double conv = 2 * (double)m->ssm_conv * ((double)m->ssm_inner + 2 * ng * N);
    double intra = 2 * Q * N * ng + 2 * Q * P * nh, state = 4 * N * P * nh;
    *mf = intra + state + conv;
    *ef = intra / 2 + state + conv;
}

/* What a Mamba-2 layer keeps for backward: the fused training path (state-spaces/mamba
 * mamba_ssm/ops/triton/ssd_combined.py, MambaSplitConv1dScanCombinedFn.forward:
 * save_for_backward(zxbcdt, conv1d_weight, conv1d_bias, out_x, A, D, dt_bias, ..., rstd, ...))
 * keeps in_proj's output (z, x, B, C, dt), the scan's output before the gated norm and the
 * norm's fp32 statistics per group, and recomputes the conv, dt, the chunk states and the
 * norm's output (out_proj's input) in backward. */
static int mamba2_terms(const model *m, const mix_dims *d, act_term *out, int n)
{
    double s = d->s, b = d->b, e = d->e, tp = d->tp;
    double di = (double)m->ssm_inner, nh = (double)m->ssm_heads, N = (double)m->ssm_state;
    double conv = di + 2 * (double)m->ssm_groups * N;
    n = mix_term(out, n, "Mamba-2 in_proj output z, x, B, C, dt: e s b (d_inner + conv + H) / t",
        e * s * b * (di + conv + nh) / tp);
    n = mix_term(out, n, "Mamba-2 scan output (gated norm input): e s b d_inner / t", e * s * b * di / tp);
    n = mix_term(
        out, n, "Mamba-2 gated norm statistics: 4 s b G / t (fp32)", 4 * s * b * (double)m->ssm_groups / tp);
    return n;
}

static double mamba2_traffic(const model *m, double e)
{
    double di = (double)m->ssm_inner, conv = di + 2 * (double)(m->ssm_groups * m->ssm_state);
    return e * (2 * conv + 4 * di);
}

const mixer_ops mix_mamba2 = {
    .name = "Mamba-2",
    .tensors = mamba2_tensors,
    .flops = mamba2_flops,
    .act_terms = mamba2_terms,
    .traffic = mamba2_traffic,
    .formula = "Mamba-2 (SSD): a P x N state per head and a (d_conv - 1)-token conv window, nothing "
               "that\n    grows with the sequence; 2 Q (N G + P H) + 4 N P H FLOPs a token, chunk Q "
               "(Dao and Gu 2024, arXiv 2405.21060)",
};

/* Mamba-1 as Jamba has it (HF JambaMambaMixer): in_proj h -> 2 d_inner (x and the gate z), a
 * depthwise conv, x_proj d_inner -> dt_rank + 2 N, dt_proj dt_rank -> d_inner with bias,
 * A_log (d_inner x N), D (d_inner), out_proj, and Jamba's RMS norms on dt, B and C. */
static void mamba1_tensors(const model *m, tensor_list *l, int base)
{
    double h = (double)m->hidden_size, di = (double)m->ssm_inner, N = (double)m->ssm_state;
    double r = (double)m->ssm_dt_rank;
    tensor_add_linear(l, "ssm.in_proj.weight", h, 2 * di, 1, base, true, TENSOR_LORA_MIXER);
    if (m->ssm_proj_bias) tensor_add(l, "ssm.in_proj.bias", 2 * di, 1, base, true);
    tensor_add(l, "ssm.conv1d.weight", di * (double)m->ssm_conv, 1, base + 1, true);
    if (m->ssm_conv_bias) tensor_add(l, "ssm.conv1d.bias", di, 1, base + 1, true);
    tensor_add_linear(l, "ssm.x_proj.weight", di, r + 2 * N, 1, base + 2, true, TENSOR_LORA_MIXER);
    tensor_add_linear(l, "ssm.dt_proj.weight", r, di, 1, base + 3, true, TENSOR_LORA_MIXER);
    tensor_add(l, "ssm.dt_proj.bias", di, 1, base + 3, true);
    tensor_add(l, "ssm.A_log", di * N, 1, base + 4, true);
    tensor_add(l, "ssm.D", di, 1, base + 4, true);
    if (m->ssm_norm) tensor_add(l, "ssm.dt_b_c_norms", r + 2 * N, 1, base + 5, true);
    tensor_add_linear(l, "ssm.out_proj.weight", di, h, 1, base + 6, true, TENSOR_LORA_MIXER);
    if (m->ssm_proj_bias) tensor_add(l, "ssm.out_proj.bias", h, 1, base + 6, true);
}

/* The selective scan (Gu and Dao 2023, arXiv 2312.00752, section 3.3): per token and channel,
 * discretise and update an N-wide state and read it out, about 9 N FLOPs (exp, two products
 * and sums), all executed; the conv 2 d_conv per channel. */
static void mamba1_flops(const model *m, const training *t, const mix_dims *d, double *mf, double *ef)
{
    (void)t;
    (void)d;
    double di = (double)m->ssm_inner;
    *mf = *ef = di * (9 * (double)m->ssm_state + 2 * (double)m->ssm_conv);
}

/* The fused selective-scan kernel saves its inputs (x after conv, dt, B, C, z) and recomputes
 * the states in backward (Gu and Dao 2023, section 3.3.2); plus in_proj's output and
 * out_proj's input. */
static int mamba1_terms(const model *m, const mix_dims *d, act_term *out, int n)
{
    double s = d->s, b = d->b, e = d->e, e8 = d->e8, tp = d->tp;
    double di = (double)m->ssm_inner, N = (double)m->ssm_state, r = (double)m->ssm_dt_rank;
    n = mix_term(out, n, "Mamba in_proj output x, z: 2 e s b d_inner / t", 2 * e * s * b * di / tp);
    n = mix_term(out, n, "Mamba conv output, x_proj output dt, B, C: e s b (d_inner + r + 2 N) / t",
        e * s * b * (di + r + 2 * N) / tp);
    n = mix_term(out, n, "Mamba dt (d_inner, fp32): 4 s b d_inner / t", 4 * s * b * di / tp);
    n = mix_term(
        out, n, "Mamba scan output, out_proj input: (e + e8) s b d_inner / t", (e + e8) * s * b * di / tp);
    return n;
}

static double mamba1_traffic(const model *m, double e)
{
    return e * 6 * (double)m->ssm_inner;
}

const mixer_ops mix_mamba1 = {
    .name = "Mamba-1",
    .tensors = mamba1_tensors,
    .flops = mamba1_flops,
    .act_terms = mamba1_terms,
    .traffic = mamba1_traffic,
    .formula = "Mamba-1 selective scan: an N-wide state per channel, nothing that grows with the "
               "sequence;\n    about 9 N FLOPs a channel and token (Gu and Dao 2023, arXiv 2312.00752)",
};
