/* tpoverlap.c -- TP comm / GEMM overlap as Transformer Engine's userbuffers chunk it. */
#include "core/tpoverlap.h"

#include <math.h>

#include "core/framework.h"
#include "core/minmax.h"
#include "core/scenario.h"

/* Transformer Engine's default userbuffers configuration (NVIDIA/TransformerEngine@d0067d0d
 * transformer_engine/pytorch/module/base.py, initialize_ub / get_default_config): the
 * all-gather before QKV and MLP-up forward and before the output projection's and MLP-down's
 * dgrad is a "ring_exchange" in num_splits = tp chunks, each chunk's GEMM running while the
 * next chunk arrives; the reduce-scatter after the output projection and MLP-down forward is
 * "pipeline" with num_splits 4; the backward reduce-scatter of QKV's and MLP-up's dgrad is
 * "bulk", overlapped whole with the weight-gradient GEMM. */
#define TE_PIPELINE_SPLITS 4

bool tpoverlap_on(const sim_input *in)
{
    const training *t = in->t;
    bool on = t->tp_comm_overlap >= 0 ? t->tp_comm_overlap != 0 : in->fw->tp_comm_overlap;
    return on && t->tp > 1 && t->sequence_parallel;
}

/* Exposed seconds of a collective of c seconds chunked into n with a GEMM of g seconds: chunk
 * i's comm overlaps chunk i+1's GEMM (or i-1's), so the first (or last) chunk's comm shows and
 * each other chunk only what its comm exceeds its GEMM by: c/n + (n-1)/n max(0, c - g). */
static double chunked(double c, double g, double n)
{
    return c / n + (n - 1) / n * zs_fmax(0, c - g);
}

tp_hidden tpoverlap_hidden(const sim_input *in, double ag, double rs)
{
    tp_hidden out = {0, 0, (int)in->t->tp, TE_PIPELINE_SPLITS};
    if (!tpoverlap_on(in) || ag + rs <= 0 || in->m->params_only) return out;
    const training *t = in->t;
    const model *m = in->m;
    const hardware *hw = in->hw;
    /* One block's GEMMs on one TP rank per micro-batch at the rate compute_time charges. */
    double fp8 = t->precision == PREC_FP8 && hw->fp8_matmul_ratio > 0 ? hw->fp8_matmul_ratio : 1;
    double rate = in->peak * in->gemm_efficiency * fp8;
    double tok = (double)t->micro_batch * (double)t->seq_len / (double)t->cp, h = (double)m->hidden_size;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double width = m->num_experts > 0
        ? (double)m->experts_per_token * (double)model_expert_width(m) + (double)m->shared_intermediate_size
        : (double)m->intermediate_size;
    double per = 2 * tok / (double)t->tp / rate;
    double qkv = per * h * (q + 2 * kv), proj = per * q * h;
    double up = per * h * width * (m->gated_mlp ? 2 : 1), down = per * width * h;
    double n = (double)t->tp, f = t->checkpointing == CKPT_FULL ? 2 : 1; /* forward passes */
    /* Forward: AG ring into QKV and MLP-up, GEMM then pipelined RS out of the projection and
     * MLP-down. Backward: AG ring of the output gradient into the projection's and MLP-down's
     * dgrad (each the size of its forward GEMM); bulk RS of QKV's and MLP-up's dgrad under
     * their wgrad GEMMs (exposed: what exceeds the GEMM). */
    double ag_exp =
        f * (chunked(ag, qkv, n) + chunked(ag, up, n)) + chunked(ag, proj, n) + chunked(ag, down, n);
    double rs_exp = f * (chunked(rs, proj, TE_PIPELINE_SPLITS) + chunked(rs, down, TE_PIPELINE_SPLITS)) +
        zs_fmax(0, rs - qkv) + zs_fmax(0, rs - up);
    double calls = 2 * f + 2; /* of each kind per block, as comm_tp counts them */
    if (ag > 0) out.ag = zs_fmin(1, zs_fmax(0, 1 - ag_exp / (calls * ag)));
    if (rs > 0) out.rs = zs_fmin(1, zs_fmax(0, 1 - rs_exp / (calls * rs)));
    return out;
}
