/* runs.h -- measured training runs (CSV or JSON) that validate and calibrate compare against. */
#ifndef ZS_RUNS_H
#define ZS_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/hwvariant.h"
#include "core/training.h"

typedef struct run_record {
    int line; /* CSV line where the record starts, or JSON array index + 1 */
    char name[96];
    char model[1024];       /* catalog name or path (a relative path resolved: runs_load) */
    char hardware[1024];    /* catalog name or path (likewise) */
    char strategy[16];      /* ddp|zero1|zero2|zero3 */
    char precision[16];     /* bf16|fp16|fp32 */
    char checkpointing[16]; /* none|selective|full */
    char source[512];
    char framework[32];        /* generic|deepspeed|fsdp|fsdp2|megatron, or NAME@RELEASE
                                  ("deepspeed@0.12.6"); "generic" when absent */
    char offload_optimizer[8]; /* none|cpu|nvme */
    char offload_params[8];    /* none|cpu|nvme */
    char grad_dtype[8];        /* "" (the framework's), 16-bit or fp32 */
    int64_t shard_group;       /* hybrid sharding group (HSDP, MiCS); 0 = all of DP */
    int64_t zero_hpz;          /* ZeRO++ hpZ group; 0 = off */
    bool quantized_weights, quantized_gradients; /* ZeRO++ qwZ, qgZ */
    int overlap_comm;       /* -1: the framework's default; 0/1 as the run was configured */
    double gemm_efficiency; /* not a column: a fit's trial value (0 = the framework's) */
    double step_overhead;   /* not a column: a fit's trial value (< 0 = the framework's) */
    bool flash_attention;   /* column flash_attention: false for runs before FlashAttention */
    char excluded[160];     /* why the run is kept out of fits and bounds ("" = it is not) */
    int64_t gpus, gpus_per_node, tp, pp, virtual_stages, micro_batch, global_batch, seq_len;
    bool sequence_parallel;
    double step_seconds;      /* measured; 0 when absent */
    double tokens_per_second; /* measured; 0 when absent */
    double tflops_per_gpu;    /* measured; 0 when absent */
    double mfu, hfu;          /* measured fractions; 0 when absent */
    double peak_memory_bytes; /* measured; 0 when absent */
    /* Every other estimate flag as a column named like the flag with _ for - (cp, ep,
     * finetune, lora_rank, optimizer, tp_comm_overlap, pp_first_layers, ...), read through the
     * same training_flags rows: the values in flags, the rows given as bits (row index) in
     * flag_given. */
    training flags;
    uint64_t flag_given;
    hw_variant variant; /* columns network_bandwidth, nics_per_node, power_cap (0 = profile's) */
} run_record;

/* Load runs from a CSV file (RFC 4180: quoted fields may hold commas, quotes and line breaks;
 * a UTF-8 byte-order mark, CRLF, blank lines and '#' comment lines are allowed; a header row
 * with the column names above: name, model, hardware, gpus, gpus_per_node, strategy, tp, pp,
 * virtual_stages, micro_batch, global_batch, seq_len, precision, checkpointing,
 * sequence_parallel, measured_step_seconds, measured_tokens_per_second,
 * measured_tflops_per_gpu, measured_mfu, measured_hfu, peak_memory_bytes, source; optional:
 * framework, offload_optimizer, offload_params, grad_dtype, shard_group, zero_hpz,
 * quantized_weights, quantized_gradients, overlap_comm, flash_attention, excluded; and every
 * other estimate flag, named like the flag with _ for -, and the cluster variants
 * network_bandwidth, nics_per_node, power_cap) or a JSON
 * array of objects with the same keys (any number of other keys). Each run needs model,
 * hardware, gpus, global_batch, seq_len and a measured step time or throughput; MFU and HFU
 * are fractions (0.45, not 45). A relative model or hardware path is resolved beside the runs
 * file, then in the repository (the directory of the models/ catalog), then in the working
 * directory. *out is heap-allocated (caller frees). Fails with ZS_ERR_INPUT naming file, line
 * (where the record starts, blank lines counted) and column: an empty file, a missing column,
 * a bad number, an unknown strategy. */
int runs_load(const char *path, run_record **out, int *n, zs_error *err);

/* runs_load, and when note is not NULL (room for note_len bytes) a warning for the command to
 * print: "" or "PATH: unknown column(s) "a", "b" (ignored; ...)" naming the keys no reader
 * knows (a misspelt column is otherwise silently absent). A boolean column other than
 * true/false/1/0 and a CSV record whose field count differs from the header's (extra empty
 * fields aside) are refused (ZS_ERR_INPUT, file:line and column). */
int runs_load_noted(const char *path, run_record **out, int *n, char *note, size_t note_len, zs_error *err);

/* The same from text in memory (NUL-terminated; not modified); origin names it in messages
 * (NULL: "(runs)"). Relative paths are resolved in the repository, then the working directory. */
int runs_load_text(const char *text, const char *origin, run_record **out, int *n, zs_error *err);

/* The measured step time of a run: step_seconds, else global_batch * seq_len /
 * tokens_per_second. 0 when neither is known. */
double runs_measured_step(const run_record *r);

#endif
