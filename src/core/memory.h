/* memory.h -- per-GPU and per-host memory by labelled component, and the shared formulas. */
#ifndef ZS_MEMORY_H
#define ZS_MEMORY_H

#include <stdbool.h>

struct sim_input;
struct strategy;

/* Which model states a strategy partitions over the data-parallel group (the rest every
 * rank keeps whole). ZeRO stage k shards the first k (Rajbhandari et al. 2020, figure 1). */
typedef struct shard_set {
    bool optimizer; /* fp32 master and moments */
    bool gradients;
    bool parameters; /* the 16-bit working copy */
} shard_set;

typedef struct memory {
    double parameters;       /* bytes on the GPU: working copy (sharded by ZeRO-3) */
    double gradients;        /* bytes: gradients kept between backward and step */
    double optimizer_states; /* bytes: fp32 master + moments on the GPU */
    double model_states;     /* parameters + gradients + optimizer_states */
    double activations;      /* bytes: saved for backward by the blocks, embedding and head, with
                                the pipeline's in-flight micro-batches */
    double logits;           /* bytes: fp32 logits for the loss on the last stage */
    double cp_kv_buffers;    /* bytes: ring attention's K/V receive buffers (context parallel) */
    double comm_buffers;     /* bytes: DDP buckets, DeepSpeed reduce/all-gather buckets */
    double gathered_params;  /* bytes: ZeRO-3 gathered + prefetched + persistent parameters */
    double dequantized;      /* bytes: QLoRA's one linear weight dequantized to 16 bits in flight */
    double paged_to_host;    /* bytes: paged optimizer states evicted to host RAM (not in total;
                                counted in host_per_gpu) */
    double cuda_context;     /* bytes: CUDA context and library workspaces */
    double allocator;        /* bytes: allocator fragmentation and reserve */
    double total;            /* bytes: the sum, the GPU's peak */
    double host_per_gpu;     /* bytes of host RAM per GPU: offloaded states, pinned buffers */
    double host_per_node;    /* host_per_gpu x GPUs per node */
    double nvme_per_gpu;     /* bytes on NVMe per GPU (ZeRO-Infinity) */
    bool fits_gpu;           /* total <= HBM */
    bool fits_host;          /* host_per_node <= host RAM (true when the profile gives none) */
} memory;

/* The ranks one rank's routed experts shard over when parameters are sharded with expert
 * parallelism: the expert-data-parallel group, divided by the replicas of hybrid sharding;
 * at least 1. Pure; never fails. */
double memory_expert_shards(const struct sim_input *in);

/* Parameters of one MoE block's experts on this rank (E / EP of them), 0 without expert
 * parallelism. Never fails. */
double memory_expert_unit(const struct sim_input *in);

/* Model states with `shards` partitioned over the data-parallel degree, offload applied.
 * Writes parameters, gradients, optimizer_states, model_states and the host/NVMe shares. Pure. */
void memory_states(const struct sim_input *in, shard_set shards, memory *mem);

/* The loss's bytes per logit at its peak, with every activation still saved, for the run's
 * loss implementation (--loss, else the framework's): eager fp32 upcast 12 (its fp32 log-softmax
 * output and, in backward, the incoming and outgoing fp32 gradients), chunked 8 (LitGPT: fp32
 * chunks and log-softmax), chunked-fp32 e + 4 (torchtune), fused 4 (Megatron, in place), fused-linear 0
 * (no whole logits; memory_activations adds its chunk); e = act_bytes. Pure; never fails. */
struct training;
struct framework;
double memory_loss_bytes(const struct training *t, const struct framework *fw, double act_bytes);

/* Buffers beyond the model states, as the framework keeps them: the strategy's own
 * (DeepSpeed buckets), none (Megatron's views of one gradient buffer) or FSDP's unsharded
 * units. Writes comm_buffers and gathered_params. Pure. */
void memory_buffers(const struct sim_input *in, const struct strategy *s, memory *mem);

/* Micro-batches whose activations the stage in force (in->stage) holds at its peak under 1F1B:
 * min(p - i, m) for stage i, times the interleaving factor. Pure; 1 without pipelining. */
double memory_inflight(const struct sim_input *in);

/* Activations and logits of the pipeline stage in force, in->stage (Korthikanti et al. 2022,
 * arXiv 2205.05198, section 4, generalised to GQA, gated MLPs, MoE top-k and flash
 * attention). Pure. */
void memory_activations(const struct sim_input *in, memory *mem);

/* Parameters of the blocks one TP rank of the stage in force holds, their norms excluded: the
 * stage's parameters (local_params, EP's share of the experts included) less the embedding, the
 * final norm and the head where the stage holds them. layers: the stage's. Pure; never fails. */
double memory_block_params(const struct sim_input *in, double layers);

/* Autocast's saved 16-bit weight casts (memory.c memory_autocast) for s into mem->activations:
 * nothing unless s runs autocast over fp32 parameters. Pure; never fails. */
void memory_autocast(const struct sim_input *in, const struct strategy *s, memory *mem);

/* Bytes of block inputs one micro-batch stores on a stage under full recomputation (what
 * activation offload copies to the host and back); 0 without it. Never fails. */
double memory_ckpt_inputs(const struct sim_input *in);

/* Bytes of activations one transformer block saves for one micro-batch on one GPU, with the
 * run's tensor/sequence parallelism, attention kind and checkpointing; the mean over the
 * model's blocks (dense and MoE, local and global, encoder and decoder). Pure. */
double memory_layer_activations(const struct sim_input *in, bool keep_attention_matrix);

/* One term of what a block saves for backward: what it is, bytes on one GPU. */
typedef struct act_term {
    const char *what; /* e.g. "Q, K, V (attention inputs)" */
    double bytes;     /* for one micro-batch, after tensor/sequence parallelism */
} act_term;
#define ACT_TERMS_MAX 16

/* The terms (Korthikanti et al. Table 2, generalised) of one block of class `c` (an index into
 * param_counts' classes: norms, its mixers' terms from mixer_ops, its MLP or experts), `local`
 * for a sliding-window or chunked layer, into out (ACT_TERMS_MAX). Returns how many.
 * memory_layer_activations sums them over the model's blocks. Pure. */
int memory_block_terms(
    const struct sim_input *in, int c, bool local, bool keep_attention_matrix, act_term *out);

/* Add context and allocator overhead, sum the total and decide fits. Pure. */
void memory_finish(const struct sim_input *in, memory *mem);

#endif
