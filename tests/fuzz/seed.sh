#!/bin/sh
# seed.sh -- fill a fuzz target's corpus directory with the project's real input files.
# usage: sh tests/fuzz/seed.sh TARGET DIR   (run from the repository root)
# Copies (never moves) the files; the corpus lives under build/ so no copy is committed.
set -eu
t=$1
dir=$2
mkdir -p "$dir"

copy() { # copy existing files, keeping what the corpus already holds
    for f in "$@"; do
        [ -f "$f" ] && cp -f "$f" "$dir/seed-$(echo "$f" | tr '/' '_')"
    done
    return 0
}
word() { # one inline seed: file name, content (no trailing newline: the CLI gets argv strings)
    printf '%s' "$2" > "$dir/seed-$1"
}

case $t in
model)
    copy models/*.json tests/data/models/*/config.json tests/data/configs/*/config.json tests/validation/models/*.json tests/data/bad/*.json tests/data/bad/binary.bin ;;
hardware)
    copy hardware/*.json tests/data/bad/*.json ;;
dsconfig)
    copy tests/data/ds_config*.json tests/data/bad/*.json ;;
nccl)
    copy tests/data/nccl/* tests/data/harness/*.txt tests/data/harness/*.json ;;
harness)
    copy tests/data/harness/*.json hardware/measured/*.json tests/data/nccl/*.json ;;
runs)
    copy tests/validation/*.csv tests/data/bad/runs_*.csv
    # no JSON runs file is checked in: write the JSON form of a published row
    word runs.json '[{"name": "r1", "model": "models/gpt2.json", "hardware": "a100-80gb", "gpus": 8, "gpus_per_node": 8, "strategy": "zero2", "tp": 1, "pp": 1, "virtual_stages": 1, "micro_batch": 4, "global_batch": 64, "seq_len": 1024, "precision": "bf16", "checkpointing": "none", "sequence_parallel": false, "measured_step_seconds": 1.5, "measured_tokens_per_second": 43690.7, "measured_mfu": 0.41, "peak_memory_bytes": 3.2e10, "source": "fuzz seed"}]'
    word runs-object.json '{"runs": [{"model": "llama-2-7b", "hardware": "h100-80gb", "gpus": "64", "global_batch": "512", "seq_len": "4096", "measured_tokens_per_second": "1.2e6"}]}' ;;
units)
    word count-exp 7e9; word count-plain 6738415616; word count-B 7B; word count-T 1.5T
    word count-M 25M; word count-k 500k; word bytes-GiB 80GiB; word bytes-GB 80GB
    word bytes-MiB 512MiB; word bytes-G 4G; word bytes-exp 5e8; word bytes-space '80 GiB'
    word int-plain 64; word int-exp 1e3; word int-neg -3; word bad-nan nan; word bad-inf inf
    word bad-hex 0x10; word bad-suffix 7Q; word big 9.3e18 ;;
grid)
    word list 1,2,4; word geometric 8:4096:x2; word star 8:4096:*2; word range 1:8
    word step 0:1:+0.25; word mixed '1,8:64:x2,100'; word float 0.5:2.5:+0.5
    word one 42; word bad-order 8:1; word bad-factor 1:8:x1; word empty-item '1,,2' ;;
safetensors)
    word bf16 '{"__metadata__": {"format": "pt"}, "w": {"dtype": "BF16", "shape": [4, 2], "data_offsets": [0, 16]}}'
    word mxfp4 '{"e_blocks": {"dtype": "U8", "shape": [2, 4, 16], "data_offsets": [0, 128]}, "e_scales": {"dtype": "U8", "shape": [2, 4], "data_offsets": [128, 136]}}'
    word fp8 '{"a.weight": {"dtype": "F8_E4M3", "shape": [128, 128], "data_offsets": [0, 16384]}, "a.weight_scale_inv": {"dtype": "F32", "shape": [1, 1], "data_offsets": [16384, 16388]}}'
    word nf4 '{"l.weight": {"dtype": "U8", "shape": [8, 1], "data_offsets": [0, 8]}, "l.weight.absmax": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}, "l.weight.quant_state.bitsandbytes__nf4": {"dtype": "U8", "shape": [4], "data_offsets": [12, 16]}}'
    word scalar '{"s": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}}   '
    word bad-neg '{"w": {"dtype": "BF16", "shape": [-1], "data_offsets": [0, 2]}}'
    word bad-dtype '{"w": {"dtype": "Q4", "shape": [1], "data_offsets": [0, 1]}}' ;;
flags)
    word dense-recompute '--model
llama-2-70b
--hardware
a100-80gb
--gpus
64
--checkpointing
full'
    word moe-ep '--model
mixtral-8x7b
--gpus
64
--ep
8
--tp
2
--strategy
zero1
--framework
megatron'
    word qlora '--model
llama-2-7b
--gpus
1
--finetune
qlora
--lora-rank
64
--hardware
l4-24gb'
    word offload '--gpus
8
--strategy
zero3
--offload-optimizer
cpu
--offload-params
nvme'
    word long-cp '--model
llama-2-7b
--seq-len
131072
--cp
8
--gpus
64
--tp
8'
    word pipeline '--model
bloom-176b
--gpus
512
--tp
8
--pp
8
--virtual-stages
2
--micro-batch
1
--grad-accum
32
--sequence-parallel
--framework
megatron'
    word fp8 '--precision
fp8
--hardware
h100-80gb
--tp
4
--gpus
16
--tp-comm-overlap
--framework
megatron'
    word params '--params
7e9
--gpus
16
--tokens
1e12'
    word explain '--explain
--model
gpt-oss-20b
--framework
fsdp2
--gpus
16
--shard-group
8'
    word hybrid 'qwen3-next-80b-a3b
--gpus
32
--ep
8
--checkpointing
selective
--loss
chunked'
    word deepspeed-old '--framework
deepspeed@0.3
--strategy
zero3
--gpus
384
--model
gpt2'
    word variant '--hardware
h100-80gb
--network-bandwidth
800Gbps
--nics-per-node
1
--power-cap
500
--gpus
32'
    # the choice form (a first byte 0): pairs of option and value indices
    printf '\000\000\006\120\003\001\002\045\001' > "$dir/seed-choices-1"
    printf '\000\010\004\011\002\024\001\052\002\121\005\113\000' > "$dir/seed-choices-2"
    printf '\000\033\002\034\006\035\003\114\001\120\011' > "$dir/seed-choices-3"
    printf '\001\000\005\003\001\002\003' > "$dir/seed-plan-1"
    printf '\001\000\006\010\004\003\002\074\001' > "$dir/seed-plan-2" ;;
launch)
    copy tests/data/launch/*.yml tests/data/launch/*.yaml tests/data/launch/*.sh tests/data/launch/titan_*.json
    word megatron-args '--num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 128 \
--micro-batch-size 2 --global-batch-size 8 --num-experts 4 --recompute-granularity full \
--recompute-method block --recompute-num-layers 2'
    word megatron-script 'N=${NODES:-2}
A=( --num-layers $((N*2)) "--hidden-size 64" )
if [[ "$N" == 2 ]] || [[ -z "$X" ]]; then A+=(--bf16); else A+=(--fp16); fi
torchrun --nproc_per_node 4 --nnodes $N pretrain_gpt.py ${A[@]} --num-attention-heads 4'
    word megatron-bad 'X=$(( 1 / 0 )) A=( "unterminated
--num-layers ${A:-$(( ( }'
    word titan '{"job": {}, "training": {"local_batch_size": 2, "global_batch_size": 16, "seq_len": 64},
"parallelism": {"data_parallel_shard_degree": 2, "pipeline_parallel_degree": 2,
"pipeline_parallel_microbatch_size": 1}, "activation_checkpoint": {"mode": "selective",
"selective_ac_option": "3"}}'
    word trl-json '{"per_device_train_batch_size": 2, "use_peft": true, "load_in_4bit": true, "packing": true,
"fsdp": ["full_shard", "offload"], "max_length": 512}'
    word toml '[job]
dump_folder = "x"'
    word both 'base_model: x
bf16: true
fp16: true'
    word alias 'a: &x 1
b: *x'
    word hybrid 'distributed_type: FSDP
num_processes: 16
num_machines: 2
fsdp_config: {fsdp_sharding_strategy: HYBRID_SHARD, fsdp_version: 2}' ;;
*)
    echo "seed.sh: unknown target $t" >&2; exit 2 ;;
esac
# Inputs that once crashed or leaked: the fuzzer starts from them too.
copy tests/data/fuzz-regressions/"$t"/*
