/* report_explain.c -- --explain: the formulas and the byte table a run actually uses. */
#include "report/report.h"

#include "core/finetune.h"
#include "core/framework.h"
#include "core/gemm.h"
#include "core/kernels.h"
#include "core/mixer.h"
#include "core/sim.h"
#include "core/tpoverlap.h"
#include "core/strategy.h"
#include "core/units.h"
#include "report/model_explain.h"

/* "(2 + 2) P" or "12 P / N": the listed byte counts, in parentheses when more than one. */
static void states_terms(FILE *o, const double *b, int n, const char *unit)
{
    if (n == 0) return;
    fprintf(o, n > 1 ? "(" : "");
    for (int i = 0; i < n; i++) fprintf(o, "%s%.0f", i ? " + " : "", b[i]);
    fprintf(o, "%s %s", n > 1 ? ")" : "", unit);
}

/* The byte table and each strategy's model states per GPU; flat: FSDP's own-dtype parameter
 * shards (sim_input.flat_params), whose unsharded copy is in bt->gather bytes. */
static void explain_states(FILE *o, const byte_table *bt, bool flat)
{
    fprintf(o,
        "Byte table (%s): param %.0f B, grad %.0f B (reduced in %.0f B), fp32 master %.0f B, moments %.0f B; "
        "K = %.0f\n",
        bt->what, bt->param, bt->grad, bt->reduce, bt->master, bt->moments, bt->master + bt->moments);
    if (flat) {
        /* FSDP (fw_fsdp.c): the shard is the master; the strategies differ in the copy. */
        fprintf(o,
            "Model states per GPU, P local params, N = DP: FSDP keeps (%.0f + %.0f + %.0f) P, its parameter "
            "and "
            "gradient in the model's dtype, sharded by ZeRO-2 and ZeRO-3 (/ N), and gathers a %.0f-byte "
            "copy:\n"
            "  DDP    (%.0f + %.0f + %.0f) P, a copy of the units in flight\n"
            "  ZeRO-2 %.0f P + (%.0f + %.0f + %.0f) P / N, the copy whole from forward to the end of "
            "backward\n"
            "  ZeRO-3 (%.0f + %.0f + %.0f) P / N, a copy of the units in flight\n",
            bt->param, bt->grad, bt->moments, bt->gather, bt->param, bt->grad, bt->moments, bt->gather,
            bt->param, bt->grad, bt->moments, bt->param, bt->grad, bt->moments);
        return;
    }
    fprintf(o, "Model states per GPU, P local params, N = DP (ZeRO paper, arXiv 1910.02054, section 5):\n");
    for (int i = 0; strategies[i]; i++) {
        /* Each strategy's bytes: parameters, gradients, optimizer states, whole or / N. */
        const strategy *st = strategies[i];
        const double bytes[3] = {bt->param, bt->grad, bt->master + bt->moments};
        const bool sharded[3] = {st->shards.parameters, st->shards.gradients, st->shards.optimizer};
        double whole[3], split[3];
        int nw = 0, ns = 0;
        for (int k = 0; k < 3; k++) {
            if (sharded[k])
                split[ns++] = bytes[k];
            else
                whole[nw++] = bytes[k];
        }
        fprintf(o, "  %-6s ", st->label);
        states_terms(o, whole, nw, "P");
        fprintf(o, nw && ns ? " + " : "");
        states_terms(o, split, ns, "P / N");
        fprintf(o, "%s\n", st->shards.parameters ? "   (+ tensors < persistence threshold kept whole)" : "");
    }
}

/* The activation, logit and bucket terms, the collectives and the step as simulated. */
static void explain_formulas(FILE *o, const scenario *s)
{
    fprintf(o,
        "Activations per block per micro-batch (Korthikanti et al. 2022, arXiv 2205.05198, Table 2,\n"
        "generalised; e = bytes/element, q = a*head_dim, kv = kv_heads*head_dim, i = FFN width):\n"
        "  [s b h (4e + 2 dropout)] / (t if sequence parallel)\n"
        "  + [e s b (2q + 2kv) + k e s b i (4 gated | 2 plain) + scores] / t\n"
        "  scores: eager a s^2 b (2e+1 with dropout | e), selective recompute 0, flash 4 a s b\n"
        "  full recompute keeps e s b h per block (+ one block's full set while recomputing)\n"
        "  1F1B keeps min(p - i, m) micro-batches on stage i; interleaving x (1 + (p-1)/(p v))\n"
        "Logits: L s b V / t, L = %g bytes per logit as the loss keeps them (--loss %s; 12 fp32\n"
        "upcast, 4 fused in place, 8 chunked, e + 4 chunked fp32, 0 fused with the head).\n"
        "%s"
        "Buckets: DDP copies grads unless\n"
        "gradient_as_bucket_view; ZeRO-1/2 reduce + all-gather buckets (x4.5 with overlap_comm, DeepSpeed\n"
        "docs); ZeRO-3 one reduce bucket + gathered min(max_live, largest layer + prefetch bucket).\n"
        "Overhead: CUDA context %.2f GiB + allocator %.0f%% of allocated (hardware profile).\n",
        memory_loss_bytes(s->t, framework_of(s->t), training_bytes(s->t).act),
        loss_name((loss_kind)(s->t->loss ? s->t->loss : framework_of(s->t)->loss)),
        s->t->param_bytes == 4 || framework_of(s->t)->ddp_autocast
            ? "Autocast (fp32 parameters; torchtitan's DDP): + e x each block's matrices (unsharded) per\n"
              "  block kept with grad, and e x the LM head, saved casts for backward (full recompute:\n"
              "  one block's while recomputing).\n"
            : "",
        s->hw->cuda_context_bytes / GiB, s->hw->allocator_fraction * 100);
    /* The links exactly as the simulation sees them: the run's GPUs per node share the NICs. */
    coll_link links[LEVEL_COUNT];
    coll_links(s->hw, scenario_gpus_per_node(s->hw, s->t), links);
    fprintf(o,
        "Collectives (Thakur et al. 2005; a = latency per step, B = achieved bandwidth per GPU):\n"
        "  all-reduce min(ring 2(n-1)a + 2(n-1)/n S/B, tree 2 log2(n) a + 2 S/B); reduce-scatter and\n"
        "  all-gather (n-1)a + (n-1)/n S/B; across nodes NVLink inside, the GPU's NIC share between.\n"
        "  NVLink a = %.2f us, B = %.1f GB/s; network a = %.2f us, B = %.1f GB/s per GPU.\n"
        "Step: FLOPs at peak %.0f TFLOP/s x %.3f x W/(W + %.3g) for GEMMs of W FLOPs, attention scores\n"
        "  at the attention kernel's rate (below), memory-bound traffic at %.0f GB/s; backward = 2 x\n"
        "  forward (a flash kernel's attention 2.5 x: it recomputes the scores); overlapped collectives\n"
        "  hide under each micro-batch's compute, the rest and the last bucket are exposed; Adam moves\n"
        "  28 B per local parameter; bubble (p-pace)/v micro-batch slots.\n",
        links[LEVEL_INTRA].alpha * 1e6, links[LEVEL_INTRA].bandwidth / 1e9, links[LEVEL_INTER].alpha * 1e6,
        links[LEVEL_INTER].bandwidth / 1e9, compute_peak(s->hw, s->t) / 1e12, s->hw->matmul_max_fraction,
        s->hw->matmul_half_flops, s->hw->hbm_bandwidth * s->hw->hbm_fraction / 1e9);
    int v = links[LEVEL_INTRA].nccl_version, tv = nccl_table_version(v);
    if (v > 0) /* the profile's NCCL release replaces the rings above (core/nccl.c) */
        fprintf(o,
            "  NCCL %d.%d.%d (profile; constants of tuning.cc %d.%d.%d): all-reduce, reduce-scatter and\n"
            "  all-gather cost as NCCL's model, one ring/tree/PAT through all ranks x LL/LL128/Simple,\n"
            "  baseLat + intra steps + network steps + S/busbw, the fastest taken.\n",
            v / 10000, v / 100 % 100, v % 100, tv / 10000, tv / 100 % 100, tv % 100);
    if (s->hw->nccl_channels > 0 && s->hw->sm_count > 0)
        fprintf(o, "  Compute beside collectives runs x 1/(1 - %lld channels / %lld SMs) while both run.\n",
            (long long)s->hw->nccl_channels, (long long)s->hw->sm_count);
}

/* The attention kernel, why it was chosen and its rate in each pass (kernels.c). */
static void explain_kernel(FILE *o, const scenario *s)
{
    const training *t = s->t;
    bool shape = !s->m->params_only && s->m->nclass == 0;
    double hd = shape ? (double)s->m->head_dim : 0;
    double span = t->doc_len > 0 && t->doc_len < t->seq_len ? (double)t->doc_len : (double)t->seq_len;
    kernel_rate r = kernel_attention(s->hw, t, hd, span);
    const char *why = !t->flash_attention ? "--eager-attention"
        : t->attention_kernel             ? "--attention-kernel"
                                          : framework_of(t)->label;
    /* Scans (Mamba, DeltaNet) keep a 2x backward beside softmax attention's kernel (compute.c). */
    bool scans = false;
    for (int c = 0; c < s->pc->nclass; c++) {
        const mixer_kind mk[2] = {s->pc->mixer[c], s->pc->mixer2[c]};
        for (int k = 0; k < 2; k++)
            scans |= s->pc->nblocks[c] > 0 && mk[k] != MIX_NONE && !mixer_table[mk[k]]->softmax;
    }
    fprintf(o,
        "Attention kernel: %s (%s), forward %.3f and backward %.3f of peak (backward %.1fx the forward's "
        "FLOPs%s)",
        kernel_name(r.kernel), why, r.fwd, r.bwd, r.bwd_work, scans ? "; the scans 2x" : "");
    double padded = kernel_head_dim(r.kernel, hd);
    if (padded != hd && hd > 0)
        fprintf(o, " (head dim %.0f runs the %.0f-wide kernel: x %.3f)", hd, padded, hd / padded);
    if (r.measured)
        fprintf(o,
            ":\n  the profile's FlashAttention-2 fraction %.3f x the kernel's H100 rate over FA2's at 16k\n"
            "  (FlashAttention-3 paper, figures 5-6), head dim %.0f, span %.0f tokens.\n",
            compute_attention_fraction(s->hw), padded, span);
    else if (kernel_hopper(s->hw) && r.kernel != KERNEL_EAGER)
        fprintf(o, ": the profile's attention_fraction (%s).\n",
            s->m->params_only ? "a parameter count has no attention shape"
                              : "a per-layer pattern's mixers have no measured kernel shape");
    else
        fprintf(o, ": the profile's attention_fraction (no measured kernel table for %s%s).\n", s->hw->name,
            r.kernel == KERNEL_EAGER ? "; the s^2 scores move through HBM" : "");
}

/* The GEMMs by shape and their measured rates (gemm.c), or the single-W formula they replace. */
static void explain_gemm(FILE *o, const scenario *s)
{
    sim_input in;
    zs_error err = {.quiet = true};
    if (!gemm_measured(s->hw, s->t) || s->m->params_only ||
        sim_prepare(&in, s->m, s->pc, s->hw, s->t, &err)) {
        const char *why = !kernel_hopper(s->hw) ? "no measured shape table for this GPU"
            : s->t->precision == PREC_FP32      ? "no fp32 shape table"
            : s->t->gemm_shapes != 1            ? "--gemm-shapes on uses Hopper's measured table"
                                                : "no shapes for a parameter count";
        fprintf(o, "GEMMs: one efficiency for all, at the MLP up-projection's W (%s).\n", why);
        return;
    }
    gemm_shape g[GEMM_SHAPES_MAX];
    int n = gemm_list(s->m, s->pc, s->t, in.etp, g);
    gemm_rates r = gemm_step(s->m, s->pc, s->hw, s->t, in.etp);
    double top = in.gemm_efficiency / r.fwd; /* matmul_max_fraction x the framework's factor */
    fprintf(o,
        "GEMMs by shape (XLA's measured sm_90 cuBLAS table, tensorflow@372d578b): each at its rate\n"
        "  over the 4096^3 one (%.1f TFLOP/s) x %.3f (the profile's matmul_max_fraction x the\n"
        "  framework's); fraction of peak per GEMM, T x N contracting K (forward), dgrad contracts N,\n"
        "  wgrad contracts T:\n",
        gemm_tflops(4096, 4096, 4096), top);
    static const char *const head[8] = {"GEMM", "T", "K", "N", "count", "fwd", "dgrad", "wgrad"};
    fprintf(o, "  %-12s %8s %8s %8s %8s %8s %8s %8s\n", head[0], head[1], head[2], head[3], head[4],
        head[5], head[6], head[7]);
    for (int i = 0; i < n; i++)
        fprintf(o, "  %-12s %8.0f %8.0f %8.0f %8.4g %8.3f %8.3f %8.3f\n", g[i].name, g[i].tokens, g[i].k,
            g[i].n, g[i].count, top * g[i].fwd, top * g[i].dgrad, top * g[i].wgrad);
    fprintf(o, "  step (FLOP-weighted harmonic means): forward %.3f, backward %.3f, LM head %.3f of peak.\n",
        top * r.fwd, top * r.bwd, top * r.head);
}

/* Pipeline stages: the split, the pace the slowest stage sets, which stage is the memory peak. */
static void explain_pipeline(FILE *o, const scenario *s)
{
    sim_input in;
    zs_error err = {.quiet = true};
    if (s->t->pp <= 1 || s->m->params_only || sim_prepare(&in, s->m, s->pc, s->hw, s->t, &err)) return;
    const pipe_split *ps = &in.pipe;
    bool uneven = s->t->pp_first_layers > 0 || s->t->pp_last_layers > 0;
    fprintf(o,
        "Pipeline (p = %lld, v = %lld): layers first %lld, middle %lld, last %lld (%s);\n"
        "  a stage's time is its layers x one layer's, + the LM head and loss on the last: the slowest\n"
        "  sets the pace, %.4f x the mean stage; step = (m-1) T_max + sum T_i (DAPPLE, arXiv 2007.01045),\n"
        "  bubble (p - pace)/v. Memory peak: the heaviest of the first (embedding, min(p, m) in flight),\n"
        "  stage 1 and the last (head, logits).\n",
        (long long)s->t->pp, (long long)s->t->virtual_stages, (long long)ps->first, (long long)ps->mid,
        (long long)ps->last,
        uneven ? "Megatron-Core's uneven split, the rest even over the middle"
            : in.fw->exact_layer_split ? "even, as Megatron requires"
                                       : "DeepSpeed's partition_uniform: the first L mod p get one more",
        in.pipe_pace);
}

/* TP communication overlap: the chunking Transformer Engine uses and the fraction it hides. */
static void explain_tp_overlap(FILE *o, const scenario *s)
{
    sim_input in;
    zs_error err = {.quiet = true};
    if (s->t->tp <= 1 || !s->t->sequence_parallel || s->m->params_only ||
        sim_prepare(&in, s->m, s->pc, s->hw, s->t, &err))
        return;
    if (!tpoverlap_on(&in)) {
        fprintf(o, "TP communication: exposed (no --tp-comm-overlap; %s's default is off).\n", in.fw->label);
        return;
    }
    double act = in.bt.act * (double)(s->t->seq_len / s->t->cp * s->t->micro_batch * s->m->hidden_size);
    coll_cost ag, rs;
    coll_cost_of(COLL_ALL_GATHER, act, in.groups[GROUP_TP], in.links, &ag);
    coll_cost_of(COLL_REDUCE_SCATTER, act, in.groups[GROUP_TP], in.links, &rs);
    tp_hidden h = tpoverlap_hidden(&in, ag.seconds, rs.seconds);
    fprintf(o,
        "TP comm overlap (Transformer Engine userbuffers): all-gathers ring-exchanged in %d chunks under\n"
        "  QKV / MLP-up (forward) and projection / MLP-down dgrad; reduce-scatters pipelined in %d chunks\n"
        "  after projection / MLP-down, bulk under the wgrad GEMMs backward. Per chunked pair exposed =\n"
        "  c/n + (n-1)/n max(0, c - g): AG %.0f us, RS %.0f us per call; hidden AG %.1f%%, RS %.1f%%.\n",
        h.ring_splits, h.pipe_splits, ag.seconds * 1e6, rs.seconds * 1e6, 100 * h.ag, 100 * h.rs);
}

/* The framework's section: its fitted parameters, what its version does around each ZeRO-3
 * fetch, and how its optimizer offload moves gradients and parameters. */
static void explain_framework(FILE *o, const training *t)
{
    const framework *fw = framework_of(t);
    if (t->framework)
        fprintf(o,
            "Framework %s: GEMM efficiency x %.3f of the profile's; %.3f s of host work per step (fitted);\n"
            "  TP comm overlap %s by default; gradients reduced in %s;\n"
            "  selective recompute = %s.\n",
            fw->label, fw->gemm_efficiency, fw->step_overhead, fw->tp_comm_overlap ? "on" : "off",
            fw->fp32_grads || fw->reduce_fp32 ? "fp32" : "the training's gradient dtype",
            fw->selective == SELECTIVE_ATTENTION ? "attention core (Korthikanti)"
                : fw->selective == SELECTIVE_OPS ? "op-level (matmul outputs kept)"
                                                 : "not offered");
    /* What the version's code does around each ZeRO-3 fetch and reduce-scatter (fw_*.c). */
    if (t->framework && (fw->sync_fetch || fw->gather_overhead > 0 || fw->gather_per_rank > 0 ||
                            fw->gather_per_rank_param > 0 || fw->fetch_hbm_passes > 0 ||
                            fw->reduce_per_rank > 0 || fw->reduce_per_rank_param > 0))
        fprintf(o,
            "  ZeRO-3 fetch (%s%s%s): %s, one all-gather a %s;\n"
            "  host work a call %.1f us + %.1f us a rank + %.1f us a rank a parameter, and %g HBM\n"
            "  passes over the gathered bytes; gradient reduce-scatter %s: %.1f us + %.1f us a rank\n"
            "  + %.1f us a rank a gradient.\n",
            fw->label, fw->version ? " " : "", fw->version ? fw->version : "",
            fw->sync_fetch ? "synchronous (no gather hides)" : "prefetched",
            fw->gathers_per_module > 0 ? "parameter" : "module", fw->gather_overhead * 1e6,
            fw->gather_per_rank * 1e6, fw->gather_per_rank_param * 1e6, fw->fetch_hbm_passes,
            fw->reduces_per_module > 0 ? "one a parameter" : "in buckets", fw->reduce_overhead * 1e6,
            fw->reduce_per_rank * 1e6, fw->reduce_per_rank_param * 1e6);
    if (t->framework && fw->unshard_copy_passes > 0)
        fprintf(o,
            "  After each unshard it copies the gathered bytes into the parameters on the compute\n"
            "  stream (%g HBM passes, forward and backward), charged with compute.\n",
            fw->unshard_copy_passes);
    if (t->checkpointing == CKPT_FULL) {
        bool in = framework_recompute_in_unit(fw, t);
        fprintf(o,
            "Full recompute under sharded parameters (ZeRO-3): the checkpoint sits %s the sharding\n"
            "  unit (%s), so %s.\n",
            in ? "inside" : "outside",
            t->ckpt_in_unit >= 0 ? "--checkpoint-placement"
                : fw->fetch_by_module_hooks ? "the framework fetches in module hooks"
                                            : "the framework's recipes",
            in ? "the unit's backward gather serves the recomputed forward"
               : "the recomputed forward gathers the parameters again: two backward gathers");
    }
    if (t->offload_optimizer != OFFLOAD_NONE) {
        /* framework.h offload_copy_kind, in its order */
        static const char *const copy[] = {"a pinned 16-bit copy",
            "the pinned fp32 partition, converted on the GPU",
            "a pageable copy converted on the CPU: 6 x the pinned fp32 copy (DeepSpeed #5301)",
            "written by CPU Adam tile by tile beside its step: exposed only past it"};
        fprintf(o,
            "Optimizer offload: gradients go down over PCIe as they are reduced, in %s; after the\n"
            "  CPU step the parameters come back as the framework's code copies them (%s%s%s):\n"
            "  whole parameters (ZeRO-1/2): %s\n"
            "  sharded parameters (ZeRO-3): %s\n",
            fw->offload_grads_fp32 ? "fp32" : "the gradient dtype", fw->label, fw->version ? " " : "",
            fw->version ? fw->version : "", copy[fw->offload_copy[0]], copy[fw->offload_copy[1]]);
        if (fw->z3_grads_host_accum)
            fprintf(o,
                "  ZeRO-3's gradients instead accumulate in a host buffer of the gradient dtype: each\n"
                "  micro-batch's partition goes down and straight back, and at the accumulation\n"
                "  boundary it goes down once more, in %s, the host waiting for it.\n",
                fw->z3_boundary_fp32 ? "fp32" : "the gradient dtype (converted on the CPU)");
    }
}

/* The sections only some runs need: hybrid sharding, NVMe, a framework, CP, FP8, fine-tuning. */
static void explain_options(FILE *o, const scenario *s)
{
    const training *t = s->t;
    if (t->shard_group > 0 || t->hpz_group > 1 || t->quant_weights || t->quant_grads)
        fprintf(o,
            "Hybrid sharding and ZeRO++ (S = shard group %lld, R = DP / S replicas, H = hpZ group %lld):\n"
            "  states / S instead of / DP; gathers and reduce-scatters inside the shard group, then an\n"
            "  all-reduce of each rank's gradient shard (G / S bytes) across R replicas: 2 (R-1)/R G/S on "
            "the\n"
            "  network instead of (DP-1)/DP G (HSDP, MiCS: Zhang et al. 2022). ZeRO++ (Wang et al. 2023):\n"
            "  qwZ forward gathers int8 (x 0.5), hpZ backward gathers from a secondary partition over H "
            "ranks\n"
            "  (P / H more parameter memory), qgZ reduce-scatters int4 gradients (x 0.25).\n",
            (long long)t->shard_group, (long long)t->hpz_group);
    if (t->offload_optimizer == OFFLOAD_NVME) {
        int64_t gpn = scenario_gpus_per_node(s->hw, t);
        fprintf(o,
            "NVMe optimizer offload (ZeRO-Infinity, arXiv 2104.07857): per step each GPU reads (K + 4) P' B "
            "(fp32\n"
            "  master, moments, fp32 gradient) and writes K P' B at the node's NVMe %.1f GB/s / %lld GPUs, "
            "P' = local\n"
            "  optimizer shard; in k = ceil(P' / sub_group_size %.3g) sub-groups, pipelined I/O "
            "(pipeline_read %s,\n"
            "  pipeline_write %s) overlaps the CPU step: T = ov/k + cpu/k + (k-1)/k max(cpu, ov) + "
            "unpipelined I/O.\n",
            s->hw->nvme_bandwidth / 1e9, (long long)gpn, t->sub_group_size,
            t->nvme_pipeline_read ? "on" : "off", t->nvme_pipeline_write ? "on" : "off");
    }
    explain_framework(o, t);
    if (t->cp > 1)
        fprintf(o,
            "Context parallelism (CP = %lld): each rank holds s/CP tokens: activations, logits, FLOPs, TP "
            "and PP\n"
            "  traffic / CP; not split: two K/V receive buffers 2 x 2 e (s/CP) b kv / t. Ring attention "
            "sends\n"
            "  the K/V chunk 2 e (s/CP) b kv / t to the next CP rank CP-1 times per layer forward (2x "
            "backward),\n"
            "  hidden only under that layer's attention; gradients reduce over DP x CP.\n",
            (long long)t->cp);
    if (t->precision == PREC_FP8)
        fprintf(o,
            "FP8 (Transformer Engine): GEMMs at the FP8 peak x fp8_matmul_ratio %.3f (the best FP8 matmul's\n"
            "  fraction of its peak over the best 16-bit one's; half-efficiency size x peak_fp8/peak_bf16),\n"
            "  attention at bf16; per linear input 2+1+2 bytes of cast and amax traffic each way; linear "
            "inputs\n"
            "  saved in 1 byte; cached FP8 weights and transposes 2 bytes per linear weight.\n",
            s->hw->fp8_matmul_ratio > 0 ? s->hw->fp8_matmul_ratio : 1.0);
    if (t->finetune != FT_FULL)
        fprintf(o,
            "Fine-tuning (%s, r = %lld): adapters r (d_in + d_out) per adapted linear are the only "
            "trainable\n"
            "  parameters (gradients, optimizer, reductions); the frozen base is %s; backward skips the\n"
            "  frozen weights' gradient GEMMs (2 x instead of 3 x forward FLOPs for them). Adapters keep\n"
            "  their dtype and no fp32 master; paged optimizer states leave for host RAM when the GPU is\n"
            "  full; the allocator fraction skips the frozen base; QLoRA dequantizes one linear at a time.\n",
            finetune_name((finetune_kind)t->finetune), (long long)t->lora_rank,
            t->finetune != FT_QLORA ? "16-bit"
            : t->qlora_stack == QLORA_LITGPT
                ? "NF4 with lm_head, 4 + 32/64 bits per weight, dequantized per use"
                : "NF4, (4 + 8/64 + 32/(64 x 256)) bits per weight, dequantized per use");
}

void report_explain(FILE *f, const scenario *s, const report_options *op)
{
    /* The byte table as the run is costed: the framework's gradient and reduce dtypes applied. */
    sim_input in;
    zs_error quiet = {.quiet = true};
    bool prepared = sim_prepare_lazy(&in, s->m, s->pc, s->hw, s->t, &quiet) == ZS_OK;
    byte_table bt = prepared ? in.bt : training_bytes(s->t);
    /* With --format json the explanation would break the JSON: it goes to stderr (or
     * op->notes) then. */
    FILE *o = op->format == FMT_TABLE ? f : op->notes ? op->notes : stderr;
    explain_states(o, &bt, prepared && in.flat_params);
    explain_formulas(o, s);
    explain_kernel(o, s);
    explain_gemm(o, s);
    explain_pipeline(o, s);
    explain_tp_overlap(o, s);
    explain_options(o, s);
    model_explain(o, s);
    fputc('\n', o);
}
