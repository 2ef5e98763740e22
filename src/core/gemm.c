/* gemm.c -- a step's GEMMs by shape (XLA's measured sm_90 cuBLAS table) and their rates. */
#include "core/gemm.h"

#include <string.h>

#include "core/kernels.h"

/* Measured TFLOP/s of one BF16 GEMM (bf16 x bf16 -> bf16, batch 1) on an sm_90 GPU: XLA's
 * default matmul table, tensorflow/tensorflow@372d578b
 * third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h, key "sm_90", the b: 1
 * entries' "bf16xbf16->bf16" values (FLOP/s = 2 m n k / time, as its matmul_interpolator.cc
 * reads them), rounded to 0.1 TFLOP/s. They were timed by XLA's matmul_perf_table_gen (HLO dots,
 * "[b,n,k] @ [b,k,m] -> [b,n,m]", clock cycles of each on the device) over m, n, k in 256 ..
 * 4096 by powers of two; the file names the architecture only. Here rows = XLA's n (the
 * tokens of a forward GEMM), cols = XLA's m, k contracted. Layout [k][rows][cols]. One table for
 * every framework: no published measurement found puts Transformer Engine's GEMMs (cuBLASLt,
 * Megatron-Core/NeMo) above or below PyTorch's cuBLAS path at the same shape. */
#define GEMM_POINTS 5
#define GEMM_LOG2_MIN 8 /* 256 */
#define GEMM_MIN 256.0
#define GEMM_MAX 4096.0
/* clang-format off */
static const double gemm_table[GEMM_POINTS * GEMM_POINTS * GEMM_POINTS] = {
    /* k = 256; rows 256 .. 4096 down, cols 256 .. 4096 across */
    6.5, 11.5, 22.0, 43.6, 82.2,
    11.5, 21.6, 42.9, 83.9, 142.5,
    22.7, 43.5, 82.0, 141.6, 216.5,
    41.8, 79.3, 139.5, 213.0, 304.0,
    78.0, 134.2, 209.7, 299.3, 392.2,
    /* k = 512; rows 256 .. 4096 down, cols 256 .. 4096 across */
    11.5, 21.8, 40.9, 77.3, 137.2,
    22.0, 40.7, 82.2, 142.8, 238.8,
    41.8, 80.5, 145.6, 238.4, 343.7,
    78.2, 143.4, 237.6, 345.5, 447.0,
    138.1, 236.3, 338.9, 450.4, 543.1,
    /* k = 1024; rows 256 .. 4096 down, cols 256 .. 4096 across */
    19.5, 39.3, 68.3, 135.8, 217.2,
    39.1, 71.2, 141.3, 235.9, 370.8,
    72.5, 138.7, 236.3, 373.3, 488.1,
    138.1, 232.6, 373.3, 493.9, 593.2,
    225.2, 373.3, 490.3, 594.2, 677.4,
    /* k = 2048; rows 256 .. 4096 down, cols 256 .. 4096 across */
    31.1, 60.1, 113.2, 216.1, 304.7,
    62.4, 114.7, 220.0, 347.7, 521.7,
    119.0, 216.5, 350.0, 523.3, 632.0,
    215.8, 342.4, 524.3, 632.0, 716.1,
    324.6, 522.2, 634.2, 715.4, 738.7,
    /* k = 4096; rows 256 .. 4096 down, cols 256 .. 4096 across */
    84.3, 91.1, 169.7, 307.5, 376.2,
    91.7, 174.5, 298.9, 451.2, 650.0,
    172.3, 309.6, 470.1, 653.1, 738.5,
    285.9, 430.5, 653.5, 738.0, 758.4,
    412.0, 644.1, 738.5, 753.6, 783.3,
};
/* clang-format on */
/* The largest shape's rate, 4096^3 (the table's maximum: the rates rise along every axis). The
 * same file's batch 2 and 4 entries at 4096^3, 807.7 and 793.1 TFLOP/s, show it saturated, so
 * larger sizes are held at 4096's; and it is 0.99 of the H100's best BF16 matmul, 794.5
 * TFLOP/s (stas00/ml-engineering@744d01e compute/accelerator/README.md, MAMF table). */
#define GEMM_REF gemm_table[GEMM_POINTS * GEMM_POINTS * GEMM_POINTS - 1]

/* Where one size falls in the table: point i (0 .. 4), the fraction f of the way to the next
 * one (linear in size within the octave) and d = 1 when there is a next one (0 at 4096 and
 * above, held there); s scales the rate below 256. */
typedef struct gemm_axis {
    int i, d;
    double f;
    double s;
} gemm_axis;

/* From the double's bits: the exponent is the octave, the mantissa the fraction (no libm). */
static gemm_axis axis_of(double x)
{
    if (x >= GEMM_MAX) return (gemm_axis){GEMM_POINTS - 1, 0, 0, 1};
    /* Below the table the kernel takes at least the time of the 256 one (256^3 runs in 5.2
     * us, 512 x 256 x 256 in 5.9 us: launch- and latency-bound), so the rate scales with size.
     * ESTIMATE: an extrapolation. */
    if (!(x >= GEMM_MIN)) return (gemm_axis){0, 0, 0, x > 0 ? x / GEMM_MIN : 0};
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int e = (int)(b >> 52) - 1023 - GEMM_LOG2_MIN;
    b = (b & 0xfffffffffffffULL) | 0x3ff0000000000000ULL;
    double m;
    memcpy(&m, &b, sizeof m);
    return (gemm_axis){e, 1, m - 1, 1};
}

/* a at f = 0 exactly, so the measured points come back as stored. */
static double lerp(double a, double b, double f)
{
    return a + (b - a) * f;
}

enum { ROW = GEMM_POINTS, SLAB = GEMM_POINTS * GEMM_POINTS }; /* strides of rows and k */

/* Bilinear in one k slab at p (rows r, cols c); an axis on a point costs no interpolation. */
static double plane(const double *p, gemm_axis r, gemm_axis c)
{
    double a = c.f == 0 ? p[0] : lerp(p[0], p[c.d], c.f);
    if (r.f == 0) return a;
    const double *q = p + r.d * ROW;
    return lerp(a, c.f == 0 ? q[0] : lerp(q[0], q[c.d], c.f), r.f);
}

/* Trilinear in the table at (rows, cols, k), without the below-256 scales. */
static double lookup(gemm_axis r, gemm_axis c, gemm_axis k)
{
    const double *p = gemm_table + (k.i * SLAB + r.i * ROW + c.i);
    double a = plane(p, r, c);
    return k.f == 0 ? a : lerp(a, plane(p + k.d * SLAB, r, c), k.f);
}

/* The rate at the three axes, with the below-256 scales. */
static double rate(gemm_axis r, gemm_axis c, gemm_axis k)
{
    return lookup(r, c, k) * (r.s * c.s * k.s);
}

double gemm_tflops(double rows, double cols, double k)
{
    gemm_axis r = axis_of(rows), c = axis_of(cols), kk = axis_of(k);
    return rate(r, c, kk);
}

bool gemm_measured(const hardware *hw, const training *t)
{
    /* The table is BF16; FP16 runs the same tensor-core rate on Hopper (the H100 datasheet's
     * BF16 and FP16 columns agree); FP8 reads it at half its contraction (acc_add). Its f32 rows
     * are XLA's TF32 dots, not zerosim's fp32 peak: fp32 keeps the single-W formula. */
    return t->gemm_shapes == 1 && t->precision != PREC_FP32 && kernel_hopper(hw);
}

/* The running sums of gemm_step: weights are FLOPs / 2 (count T K N), times at 1 TFLOP/s. */
typedef struct gemm_acc {
    double kscale;       /* the BF16 GEMM an FP8 one times like contracts kscale of its length */
    double w, fwd, bwd;  /* blocks and head: weight, forward time, dgrad + wgrad time */
    double head_w, head; /* the LM head alone: weight, time over its three GEMMs */
    gemm_shape *list;    /* where gemm_list wants the shapes; NULL on the evaluation path */
    int n;
} gemm_acc;

/* Weigh one shape: count GEMMs of T x N contracting K (at: T's axis); head: the LM head's. */
static void acc_add(
    gemm_acc *a, const char *name, double t, gemm_axis at, double k, double n, double count, bool head)
{
    if (!(count > 0 && k > 0 && n > 0 && t > 0)) return;
    gemm_axis ak = axis_of(k), an = axis_of(n), ct = at, ck = ak, cn = an; /* c*: as contracted */
    if (a->kscale != 1) {
        ct = axis_of(t * a->kscale);
        ck = axis_of(k * a->kscale);
        cn = axis_of(n * a->kscale);
    }
    double w = count * t * k * n;
    double fwd = rate(at, an, ck), dgrad = rate(at, ak, cn), wgrad = rate(ak, an, ct);
    double tf = w / fwd, tb = w / dgrad + w / wgrad;
    a->w += w;
    a->fwd += tf;
    a->bwd += tb;
    if (head) {
        a->head_w += w;
        a->head += tf + tb;
    }
    if (a->list && a->n < GEMM_SHAPES_MAX)
        a->list[a->n++] =
            (gemm_shape){name, t, k, n, count, fwd / GEMM_REF, dgrad / GEMM_REF, wgrad / GEMM_REF};
}

/* Softmax attention's projections in nb blocks of T tokens: q, k, v (fused or not, as the
 * model's modules are; Qwen3-Next's output gate doubles q; a KV-shared layer has no k or v)
 * and the output projection, split by TP (columns for q/k/v, rows for o). */
static void walk_attention(
    gemm_acc *a, const model *m, bool kv_shared, double tp, double t, gemm_axis at, double nb)
{
    double h = (double)m->hidden_size, hd = (double)m->head_dim;
    double vd = m->v_head_dim > 0 ? (double)m->v_head_dim : hd;
    double q = (double)m->num_heads * hd, vo = (double)m->num_heads * vd;
    double kv = kv_shared ? 0 : (double)m->num_kv_heads * hd;
    double v = kv_shared || m->attn_k_eq_v ? 0 : (double)m->num_kv_heads * vd;
    double qp = m->attn_output_gate ? 2 * q : q;
    if (m->fused_qkv) {
        acc_add(a, "qkv", t, at, h, (qp + kv + v) / tp, nb, false);
    } else {
        acc_add(a, "q", t, at, h, qp / tp, nb, false);
        if (kv == v) {
            acc_add(a, "k, v", t, at, h, kv / tp, 2 * nb, false);
        } else {
            acc_add(a, "k", t, at, h, kv / tp, nb, false);
            acc_add(a, "v", t, at, h, v / tp, nb, false);
        }
    }
    acc_add(a, "attn_out", t, at, vo / tp, h, nb, false);
}

/* Multi-head latent attention (DeepSeek-V2/V3, mix_attention.c's shapes): the down projections
 * are not split by TP (Megatron-Core builds them as TELinear with parallel_mode 'duplicated'
 * and runs them on the sequence-parallel shard, NVIDIA/Megatron-LM@003b4ce2
 * megatron/core/transformer/multi_latent_attention.py); the up and output projections are. */
static void walk_mla(gemm_acc *a, const model *m, const training *t, double tokens, gemm_axis at, double nb)
{
    double tp = (double)t->tp, h = (double)m->hidden_size, heads = (double)m->num_heads;
    double qk = (double)(m->qk_nope_dim + m->qk_rope_dim), v = (double)m->v_head_dim;
    double qr = (double)m->q_lora_rank, kvr = (double)m->kv_lora_rank, rope = (double)m->qk_rope_dim;
    double down = t->sequence_parallel ? tokens / tp : tokens;
    gemm_axis ad = axis_of(down);
    if (m->q_lora_rank > 0) {
        acc_add(a, "q_down", down, ad, h, qr, nb, false);
        acc_add(a, "q_up", tokens, at, qr, heads * qk / tp, nb, false);
    } else {
        acc_add(a, "q", tokens, at, h, heads * qk / tp, nb, false);
    }
    acc_add(a, "kv_down", down, ad, h, kvr + rope, nb, false);
    acc_add(a, "kv_up", tokens, at, kvr, heads * ((double)m->qk_nope_dim + v) / tp, nb, false);
    acc_add(a, "attn_out", tokens, at, heads * v / tp, h, nb, false);
}

/* One MLP of width i split over `split` ranks: up (gate and up when gated) and down. */
static void walk_mlp(gemm_acc *a, const model *m, const char *const name[2], double t, gemm_axis at, double i,
    double split, double count)
{
    double h = (double)m->hidden_size;
    if (m->gated_mlp && m->fused_gate_up) /* one GEMM of both widths (Phi-3's gate_up_proj) */
        acc_add(a, name[0], t, at, h, 2 * i / split, count, false);
    else
        acc_add(a, name[0], t, at, h, i / split, (m->gated_mlp ? 2 : 1) * count, false);
    acc_add(a, name[1], t, at, i / split, h, count, false);
}

/* Block class c's MLP: dense, or routed experts (each at its share of the tokens: an EP group
 * sends its T x EP tokens' top-k picks over E experts, so one expert runs T k EP / E of them,
 * E / EP experts per rank, each split over ETP) and shared experts split as dense weights. */
static void walk_ffn(gemm_acc *a, const model *m, const param_counts *pc, int c, const training *t,
    int64_t etp, double tokens, gemm_axis at)
{
    static const char *const dense[2] = {"mlp_up", "mlp_down"},
                             *const routed[2] = {"expert_up", "expert_down"},
                             *const shared[2] = {"shared_up", "shared_down"};
    double nb = pc->nblocks[c], tp = (double)t->tp;
    if (pc->kind[c] == BLOCK_DENSE || pc->kind[c] == BLOCK_ENCODER) {
        double i = m->dense_intermediate_size > 0 ? (double)m->dense_intermediate_size
                                                  : (double)m->intermediate_size;
        if (pc->kv_shared[c] && m->kv_shared_intermediate_size > 0)
            i = (double)m->kv_shared_intermediate_size;
        walk_mlp(a, m, dense, tokens, at, i, tp, nb);
    } else if (pc->kind[c] == BLOCK_MOE && m->num_experts > 0) {
        double ep = (double)t->ep, e = (double)m->num_experts;
        double te = tokens * (double)m->experts_per_token * ep / e;
        gemm_axis ae = axis_of(te);
        walk_mlp(a, m, routed, te, ae, (double)model_expert_width(m), (double)etp, nb * e / ep);
        walk_mlp(a, m, shared, tokens, at, (double)m->shared_intermediate_size, tp, nb);
    }
}

/* Every block class's GEMMs and the LM head, weighed into a. */
static void walk(gemm_acc *a, const model *m, const param_counts *pc, const training *t, int64_t etp)
{
    /* An FP8 GEMM loads the bytes and spends the tensor-core cycles of a BF16 one of half its
     * contraction: Hopper's FP8 wgmma consumes k = 32 per instruction where BF16's takes 16
     * (NVIDIA PTX ISA, wgmma.mma_async shapes .m64nNk32 for .e4m3/.e5m2, .m64nNk16 for
     * .bf16), at one byte an element instead of two, and writes the same 16-bit output. So it
     * reads the table at K / 2 (and its rate over the 4096^3 one is that BF16 GEMM's). ESTIMATE:
     * the table has no FP8 rows; the formula it replaces halved W the same way. */
    a->kscale = t->precision == PREC_FP8 ? 0.5 : 1;
    double tokens = (double)t->micro_batch * (double)t->seq_len / (double)t->cp, tp = (double)t->tp;
    for (int c = 0; c < pc->nclass; c++) {
        double nb = pc->nblocks[c];
        if (nb <= 0) continue;
        double tc = tokens * pc->seq_scale[c];
        gemm_axis at = axis_of(tc);
        /* Other mixers (linear attention, state spaces, a separate sliding shape) are not
         * listed: their FLOPs run at the listed GEMMs' mean rate. */
        if (pc->mixer[c] == MIX_ATTENTION || pc->mixer2[c] == MIX_ATTENTION) {
            if (m->kv_lora_rank > 0)
                walk_mla(a, m, t, tc, at, nb);
            else
                walk_attention(a, m, pc->kv_shared[c], tp, tc, at, nb);
        }
        walk_ffn(a, m, pc, c, t, etp, tc, at);
    }
    double th = tokens * pc->seq_scale[BLOCK_DENSE];
    gemm_axis ah = axis_of(th);
    acc_add(a, "lm_head", th, ah, (double)m->hidden_size, (double)m->vocab_size / tp, 1, true);
}

gemm_rates gemm_step(
    const model *m, const param_counts *pc, const hardware *hw, const training *t, int64_t etp)
{
    gemm_rates r = {false, 1, 1, 1};
    if (!gemm_measured(hw, t)) return r;
    r.measured = true;
    if (m->params_only) return r; /* no shapes: the saturated rate, as the formula's W = infinity */
    gemm_acc a = {0};
    walk(&a, m, pc, t, etp);
    if (a.w > 0) {
        r.fwd = a.w / (a.fwd * GEMM_REF);
        r.bwd = 2 * a.w / (a.bwd * GEMM_REF);
    }
    if (a.head_w > 0) r.head = 3 * a.head_w / (a.head * GEMM_REF);
    return r;
}

int gemm_list(const model *m, const param_counts *pc, const training *t, int64_t etp, gemm_shape *out)
{
    if (m->params_only) return 0;
    gemm_acc a = {.list = out};
    walk(&a, m, pc, t, etp);
    return a.n;
}
