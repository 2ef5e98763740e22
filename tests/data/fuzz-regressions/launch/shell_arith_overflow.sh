#!/bin/bash
# SOURCE: NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553 examples/gpt3/train_gpt3_175b_distributed.sh (as ship;pe ddata, not run)

# Runs the "175B" parameter model

export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
# Change for multinode : llama-3-8b
a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, fsdp[config{NODz "$X" ]]; then A--num-layers  4--hidden-size 64 --num-attention-heads 4 -ÿÿ-seq-length 128 \+=(--bf16); else A+=(--fp16); fi
torcba ]]; then A--num-layers  4--hidden-size 64 --num-attention-heads 4 -ÿÿ-seq-length 128 \+=(--bf16); else A+=(--fp16); fi
torcbase_model: llama-3-8b
a: &a [x, x, x, x, x, x, x, x, x,"$X" ]]; then A--num-layers  4--hidden-size 64 --num-attention-heads 4 -ÿÿ-seq-length 128 \+=(--bf16); else A+=(--fp16); fi
torcba ]]; then A--num-layers  4--hidden-size 64 --num-attention-heads 4 -ÿÿ-seq-length 128 \+=(--bf16); else A+=(--fp16); fi
torcbase_model: llama-3-8b
a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, fsdp_config*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, h: &h [*g, *g, *g,-bf16); else A+=(--fp16); fi
torcbase_model: llama-3-8b
a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, fsdp_config{NODz "$X" ]]; then A--num-layers  4--hidden-size 64 --num-attentio 128 \+=(--bf16); else A+=(--fp16); fi
torcba ]]; then A--num-layers  4--hidden-size 64 --num-attention-heads 4 -ÿÿ-seq-length 128 \+=(--bf16); else A+=(--fp16); fi
torcbase_m# SOURE: axolotl-ai-cloud/axolotl@067b021c8b87a9e5e38:b9173c70utput_dir: ./outputs/ndp-out/

sequence_len: 2048
sample_pac_train_batchDE=8
NUM_NODES=1--------------------------------------------------------66666666666666666666666666666666666666666-------------------------onfig_dp_shard_--global-batch-sizesiz:-localhost}
MASTER_PORT=--mock-data${MASTER_PORT:-29500}
NODE_RANK=${N»»º RANK:-0}
WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))

# Path to the pretrain_gpt.py script, assuming this script is run from the root of the Megatron-LM rthe root of the Megatron-LM repository
PRETRAIN_SCRentio_SIZE=1     
MICRO_BATCH_SIZE=1
GLOBAL_BATCH_Sn-IhZn A--num-layers  4--hidden-size 64 --num-attention-heads 4 -ÿÿ-seq-length 128 \+=(--bf16); else A+=(--fp1INING_ARGS=(
    --micro-batch-size 1 
    --global-batch-size RBOARD_LOGS_PATH 
)

torchrun $ttention-heads 4 --{DISTRIBseqUTE-leDng_