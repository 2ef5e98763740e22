#!/bin/sh
# estimate_parallel.sh -- estimate: context and expert parallelism, LoRA, FP8, encoder-decoder, --compat.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# ---- Context parallelism (issue 13) ----
# CP 2 halves every per-token activation (blocks, embedding, head, logits); what it adds, as its
# own row, is ring attention's two K/V receive buffers of the block in hand: 2 x (K + V) x e x
# s/cp x b x kv_width / tp. Llama-2-7B: kv_width 4096, e = 2, s = 4096, b = 1, tp = 1.
"$Z" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --strategy zero3 --format json >"$out" 2>"$err"
"$Z" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --cp 2 --strategy zero3 --format json >"$out.2" 2>>"$err"
py_check "CP 2 does not halve the activations" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]['memory_bytes']; b = json.load(open('$(snap "$out.2")'))['results'][0]['memory_bytes']
kvbuf = 2 * 2 * 2 * (4096 / 2) * 1 * 4096
assert a['context_parallel_kv_buffers'] == 0 and b['context_parallel_kv_buffers'] == kvbuf, (a, b)
assert abs((a['activations'] + a['logits']) / 2 - (b['activations'] + b['logits'])) < 1, (a, b)" || bad "CP 2 does not halve the activations"
# The K/V buffer row appears in the table only where CP is on.
"$Z" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --cp 2 >"$out" 2>"$err"; grep -q "CP K/V receive buffers  *0.06" "$out" && ok || bad "CP K/V row missing: $(grep -i 'K/V' "$out")"
"$Z" estimate --model llama-2-7b --gpus 8 --seq-len 4096 >"$out" 2>"$err"; grep -q "K/V receive" "$out" && bad "CP K/V row without CP" || ok
# The ring passes each rank's K/V chunk cp - 1 times per layer forward, twice the bytes backward
# (K/V again and their gradients): sizes and counts in closed form, 32 layers, grad-accum 1.
json_check "[(c['size_bytes'], c['calls_per_step']) for c in d['results'][0]['collectives'] if c['what'].startswith('CP ring')] == [(2*2*(4096/4)*1*4096, 32*3), (2*2*2*(4096/4)*1*4096, 32*3)]" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --cp 4 --strategy zero3 --format json
# CP composes with TP, PP, DP and ZeRO; frameworks without it, and eager attention, refuse it.
json_check "d['results'][0]['applicable'] and d['training']['dp'] == 2" estimate --model llama-2-13b --hardware h100-80gb --gpus 32 --tp 2 --pp 2 --cp 4 --seq-len 32768 --strategy zero1 --framework megatron --format json
expect 2 "no context parallelism" -- estimate --model llama-2-7b --gpus 8 --cp 2 --framework deepspeed
expect 2 "needs flash attention" -- estimate --model llama-2-7b --gpus 8 --cp 2 --eager-attention
expect 2 "not a multiple of --cp" -- estimate --model llama-2-7b --gpus 8 --cp 2 --seq-len 4095
rm -f "$out.2"

# ---- LoRA and QLoRA (issue 13) ----
# PEFT's print_trainable_parameters for Llama-2-7B with r = 16 on q,k,v,o,gate,up,down prints
# "trainable params: 39,976,960 || all params: 6,778,392,576".
json_check "d['training']['trainable_parameters'] == 39976960 and d['model']['parameters'] + 39976960 == 6778392576" estimate --model llama-2-7b --finetune lora --lora-rank 16 --format json
# QLoRA (Dettmers et al. 2023, abstract): 65B fine-tuning needs ">780GB of GPU memory" in 16-bit
# and "<48GB" with QLoRA, which "finetune[s] a 65B parameter model on a single 48GB GPU".
json_check "d['results'][0]['fits'] and d['results'][0]['memory_bytes']['total'] < 48e9" estimate --model tests/data/models/llama-65b.json --gpus 1 --hbm 48GB --finetune qlora --checkpointing full --seq-len 512 --strategy ddp --format json
json_check "d['results'][0]['memory_bytes']['model_states'] > 780e9" estimate --model tests/data/models/llama-65b.json --gpus 1 --checkpointing full --seq-len 512 --strategy ddp --format json
json_check "not d['results'][0]['fits']" estimate --model tests/data/models/llama-65b.json --gpus 1 --hbm 48GB --finetune lora --checkpointing full --seq-len 512 --strategy ddp --format json
# LoRA reduces only the adapters' gradient traffic: DDP all-reduces the 40M adapter gradients.
json_check "[c['size_bytes'] * c['calls_per_step'] for c in d['results'][0]['collectives'] if c['what'] == 'gradient all-reduce'] == [2 * 39976960]" estimate --model llama-2-7b --gpus 8 --finetune lora --strategy ddp --format json
expect 2 "--finetune" -- estimate --model llama-2-7b --finetune dora
# QLoRA at its 65B recipe's settings (artidoro/qlora@7f4e95a6 scripts/finetune_guanaco_65b.sh: r 64 on all
# linear layers, 16 + 512 tokens, batch 1, gradient checkpointing, paged_adamw_32bit; HF's fp32-upcast loss).
json_check "d['results'][0]['fits'] and d['results'][0]['memory_bytes']['total'] < 48e9 and d['training']['loss'] == 'eager' and d['results'][0]['memory_bytes']['communication_buffers'] == 0" estimate --model tests/data/models/llama-65b.json --gpus 1 --hbm 48GB --finetune qlora --lora-rank 64 --checkpointing full --seq-len 528 --grad-accum 16 --optimizer paged-adamw --loss eager --strategy ddp --format json
# Paged states leave for host RAM rather than fail the run: at 44 GB what does not fit is paged out.
json_check "(lambda r: r['fits'] and r['host_memory_bytes']['paged_optimizer_per_gpu'] > 0 and abs(r['memory_bytes']['total'] - 44e9) < 1)(d['results'][0])" estimate --model tests/data/models/llama-65b.json --gpus 1 --hbm 44GB --finetune qlora --lora-rank 64 --checkpointing full --seq-len 528 --optimizer paged-adamw --strategy ddp --format json
json_check "not d['results'][0]['fits']" estimate --model tests/data/models/llama-65b.json --gpus 1 --hbm 44GB --finetune qlora --lora-rank 64 --checkpointing full --seq-len 528 --optimizer adamw --adapter-dtype fp32 --strategy ddp --format json
# The loss follows the model code: FSDP and FSDP2 keep the same logits; --loss overrides.
json_check "d['results'][0]['memory_bytes']['logits'] == 12 * 4096 * 32000" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --framework fsdp --strategy zero3 --format json
json_check "d['results'][0]['memory_bytes']['logits'] == 12 * 4096 * 32000" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --framework fsdp2 --strategy zero3 --format json
json_check "d['results'][0]['memory_bytes']['logits'] == 4 * 4096 * 32000 and d['training']['loss'] == 'fused'" estimate --model llama-2-7b --gpus 8 --seq-len 4096 --framework fsdp2 --loss fused --strategy zero3 --format json
expect 2 "--loss: \"liger\" is not one of eager|chunked|chunked-fp32|fused|fused-linear|compiled" -- estimate --model llama-2-7b --loss liger
expect 2 "--adapter-dtype" -- estimate --model llama-2-7b --finetune lora --adapter-dtype int8
expect 2 "needs --model" -- estimate --params 7e9 --finetune lora

# ---- FP8 (issue 13) ----
# A100 has no FP8 tensor cores (A100 datasheet): refused, naming the profile.
expect 2 "no fp8 peak" -- estimate --model llama-2-7b --gpus 8 --precision fp8
# FP8 keeps bf16 parameters, gradients and an fp32 master (Transformer Engine), so model states
# grow by the cached FP8 weight and its transpose (2 bytes per linear weight), and each linear
# saves its input in 1 byte instead of 2.
"$Z" estimate --model llama-2-7b --hardware h100-80gb --gpus 8 --strategy ddp --seq-len 4096 --format json >"$out" 2>"$err"
"$Z" estimate --model llama-2-7b --hardware h100-80gb --gpus 8 --strategy ddp --seq-len 4096 --precision fp8 --format json >"$out.2" 2>>"$err"
py_check "fp8 memory or compute" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]; b = json.load(open('$(snap "$out.2")'))['results'][0]
linear = 32 * (202383360 - 8192)   # Llama-2-7B block parameters less its two RMSNorm weights
assert abs(b['memory_bytes']['parameters'] - a['memory_bytes']['parameters'] - 2 * linear) < 1
h, i, s = 4096, 11008, 4096        # per layer: 2 h + h + i elements per token drop from 2 bytes to 1
assert abs((a['memory_bytes']['activations'] - b['memory_bytes']['activations']) - 32 * s * (3 * h + i)) < 1
assert b['step_time_seconds']['compute'] < a['step_time_seconds']['compute']" || bad "fp8 memory or compute"
rm -f "$out.2"
# Small models: FP8's cast kernels (one fused cast-transpose per linear forward and backward,
# Transformer Engine linear.py) cost more than FP8 saves on GPT-2's 768-wide GEMMs at one
# 1024-token sequence, so FP8 must not be shown faster there; GPT-2 XL (1600 wide) gains.
# fp8_small MODEL OP MESSAGE: the fp8 compute seconds OP the bf16 ones, checked in finish.
fp8_small() {
    for p in bf16 fp8; do
        "$Z" estimate --model "$1" --hardware h100-80gb --gpus 8 --strategy ddp --seq-len 1024 --precision $p --format json >"$out.$p" 2>>"$err"
    done
    py_check "$3" "import json
a, b = (json.load(open(f))['results'][0]['step_time_seconds']['compute'] for f in ('$(snap "$out.bf16")', '$(snap "$out.fp8")'))
assert b $2 a, ('bf16', a, 'fp8', b)" || bad "$3"
}
fp8_small gpt2 '>=' "fp8 shown faster than bf16 for gpt2 at micro-batch 1"
fp8_small gpt2-xl '<' "fp8 not faster for gpt2-xl"
# CP's own traffic in the comm report: ring attention passes each layer's K and V chunk
# (2 x 4096 local tokens x 4096 KV width x 2 bytes) cp-1 times forward and twice that backward:
# 3 x 32 layers x 67,108,864 B for Llama-2-7B at 8192 tokens, CP 2; no expert traffic.
json_check "d['results'][0]['communication_bytes_per_gpu']['context_parallel_kv'] == 3 * 32 * 2 * 4096 * 4096 * 2 and d['results'][0]['communication_bytes_per_gpu']['expert_all_to_all'] == 0" estimate --model llama-2-7b --hardware h100-80gb --gpus 8 --seq-len 8192 --cp 2 --strategy ddp --format json
# ... and in the table, and the comm chart marks both where present.
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --seq-len 4096 --strategy zero1 --ep 8 --cp 2 >"$out" 2>"$err"
grep -q "of which EP all-to-all" "$out" && grep -q "of which CP K/V ring" "$out" && ok || bad "EP/CP rows missing from the estimate table"
# Exposed EP and CP time are parts of the exposed communication: the all-to-all is never hidden;
# the K/V ring hides only under its layer's attention, so 16k tokens over CP 16 across nodes
# cannot hide it, and a model without experts has no EP part.
json_check "(lambda s: 0 < s['communication_exposed_expert_all_to_all'] <= s['communication_exposed'] and s['communication_exposed_context_parallel_kv'] == 0)(d['results'][0]['step_time_seconds'])" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --seq-len 4096 --checkpointing full --strategy zero1 --ep 8 --format json
json_check "(lambda s: 0 < s['communication_exposed_context_parallel_kv'] <= s['communication_exposed'] and s['communication_exposed_expert_all_to_all'] == 0)(d['results'][0]['step_time_seconds'])" estimate --model llama-2-7b --gpus 64 --seq-len 16384 --cp 16 --strategy zero1 --format json
"$Z" estimate --model llama-2-7b --gpus 64 --seq-len 16384 --cp 16 --strategy zero1 >"$out" 2>"$err"
[ "$(grep -c "of which CP K/V ring" "$out")" = 2 ] && ! grep -q "of which EP" "$out" && ok || bad "exposed CP row missing from the step table"
# Encoder-decoder sequence lengths: T5 pre-training fed 512 input tokens and 114 target tokens
# (Raffel et al. 2020, section 3.1.4). --decoder-seq-len equal to --seq-len is the 1:1 default;
# a shorter decoder lowers activations and compute; decoder-only models refuse the flag.
"$Z" estimate --model t5-base --seq-len 512 --strategy ddp --format json >"$out" 2>"$err"
"$Z" estimate --model t5-base --seq-len 512 --decoder-seq-len 512 --strategy ddp --format json >"$out.2" 2>>"$err"
"$Z" estimate --model t5-base --seq-len 512 --decoder-seq-len 114 --strategy ddp --format json >"$out.3" 2>>"$err"
py_check "--decoder-seq-len" "
import json; a, b, c = (json.load(open(f))['results'][0] for f in ('$(snap "$out")', '$(snap "$out.2")', '$(snap "$out.3")'))
assert a['memory_bytes'] == b['memory_bytes'] and a['step_time_seconds'] == b['step_time_seconds']
assert c['memory_bytes']['activations'] < a['memory_bytes']['activations']
assert c['step_time_seconds']['compute'] < a['step_time_seconds']['compute']" || bad "--decoder-seq-len"
rm -f "$out.2" "$out.3"
expect 2 "not an encoder-decoder" -- estimate --model llama-2-7b --decoder-seq-len 128
expect 2 "--decoder-seq-len" -- estimate --model t5-base --decoder-seq-len 0

# ---- Expert parallelism (issue 13) ----
# Where nothing else shards them (DDP), EP 8 divides Mixtral-8x7B's routed experts (32 blocks x
# 8 experts x 3 x 4096 x 14336 = 45,097,156,608 parameters, from its published config) by 8:
# parameters, gradients and optimizer states each shrink by 7/8 of the experts' bytes.
"$Z" estimate --model mixtral-8x7b --gpus 8 --strategy ddp --format json >"$out" 2>"$err"
"$Z" estimate --model mixtral-8x7b --gpus 8 --strategy ddp --ep 8 --format json >"$out.2" 2>>"$err"
py_check "EP does not divide the experts by EP" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]['memory_bytes']; b = json.load(open('$(snap "$out.2")'))['results'][0]['memory_bytes']
x = 45097156608 * 7 / 8
assert abs(a['parameters'] - b['parameters'] - 2 * x) < 1 and abs(a['gradients'] - b['gradients'] - 2 * x) < 1
assert abs(a['optimizer_states'] - b['optimizer_states'] - 12 * x) < 1" || bad "EP does not divide the experts by EP"
rm -f "$out.2"
# The all-to-all per MoE block: tokens x top-k x hidden x 2 bytes, dispatch and combine, forward
# and backward: Mixtral, seq 2048, micro-batch 1, k = 2: 2048 x 2 x 4096 x 2 bytes, 32 x 4 calls.
json_check "[(c['size_bytes'], c['calls_per_step']) for c in d['results'][0]['collectives'] if c['what'].startswith('EP all-to-all')] == [(2048*2*4096*2, 32*4)]" estimate --model mixtral-8x7b --gpus 16 --strategy zero1 --ep 8 --format json
expect 2 "does not divide the model's 8 experts" -- estimate --model mixtral-8x7b --gpus 16 --ep 16
expect 2 "has no routed experts" -- estimate --model llama-2-7b --gpus 8 --ep 2
# Expert tensor parallelism (issue 22): Megatron-Core splits each expert over ETP = TP ranks by
# default (Megatron-LM arguments.py), so with TP 8 and EP 2 a rank holds Mixtral's non-expert
# weights / 8 and its 45,097,156,608 expert weights (8 x 3 x 4096 x 14336 x 32) / 16:
# 2 x (1,605,636,096 / 8 + 45,097,156,608 / 16) bytes; more EP never holds more.
json_check "d['results'][0]['memory_bytes']['parameters'] == 2 * (1605636096 / 8 + 45097156608 / 16)" estimate --model mixtral-8x7b --gpus 64 --tp 8 --ep 2 --sequence-parallel --framework megatron --strategy zero1 --format json
for fw in megatron generic deepspeed; do
    for ep in 1 2 4 8; do
        "$Z" estimate --model mixtral-8x7b --gpus 64 --tp 8 --ep $ep --sequence-parallel --framework $fw --strategy zero1 --format json >"$out.$ep" 2>>"$err"
    done
    py_check "more EP never holds more expert weights ($fw, TP 8)" "import json
p = [json.load(open(f))['results'][0]['memory_bytes']['parameters'] for f in ('$(snap "$out.1")', '$(snap "$out.2")', '$(snap "$out.4")', '$(snap "$out.8")')]
assert all(a >= b for a, b in zip(p, p[1:])) and p[0] > p[3], p"
done
# DeepSpeed-MoE keeps experts whole on every TP rank (--enable-expert-tensor-parallelism off);
# --expert-tp 8 splits them as Megatron does
json_check "d['results'][0]['memory_bytes']['parameters'] == 2 * (1605636096 / 8 + 45097156608 / 16)" estimate --model mixtral-8x7b --gpus 64 --tp 8 --ep 2 --expert-tp 8 --sequence-parallel --framework deepspeed --strategy zero1 --format json
expect 2 "--expert-tp 3 must divide --tp 8" -- estimate --model mixtral-8x7b --gpus 64 --tp 8 --ep 2 --expert-tp 3
# Megatron-Core builds the expert grid apart from TP: ETP x EP x PP need only divide the world
# (NVIDIA/Megatron-LM@d98e8a64 megatron/core/parallel_state.py initialize_model_parallel), so
# --expert-tp 4 over --tp 2 runs: the non-expert weights over TP 2, the experts over EP x ETP 16.
json_check "d['results'][0]['applicable'] and d['results'][0]['memory_bytes']['parameters'] == 2 * (1605636096 / 2 + 45097156608 / 16)" estimate --model mixtral-8x7b --gpus 64 --tp 2 --ep 4 --expert-tp 4 --sequence-parallel --framework megatron --strategy zero1 --format json
# The same from a launch line, as Megatron's functional tests give it (TP 1, ETP 2, EP 2 of 8):
# the experts over EP x ETP 4, the rest whole.
printf 'torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 1 --expert-model-parallel-size 2 \\\n  --expert-tensor-parallel-size 2 --num-experts 8 --micro-batch-size 1 --global-batch-size 8 --bf16\n' >"$W/etp.sh"
json_check "d['results'][0]['applicable'] and d['results'][0]['memory_bytes']['parameters'] == 2 * (1605636096 + 45097156608 / 4)" estimate --config "$W/etp.sh" --model mixtral-8x7b --format json
# ... and what Megatron refuses, it refuses in its own words: 3 x 4 x 1 does not divide 64.
expect 2 "not divisible by expert_tensor_model_pipeline_parallel size" -- estimate --model mixtral-8x7b --gpus 64 --tp 2 --ep 4 --expert-tp 3 --sequence-parallel --framework megatron
expect 2 "not divisible by expert_tensor_model_pipeline_parallel size" -- estimate --model mixtral-8x7b --gpus 64 --tp 2 --pp 2 --ep 8 --expert-tp 8 --sequence-parallel --framework megatron
# EP with ZeRO-3: DeepSpeed refuses MoE at stage 3 ("MoE not supported with Stage 3",
# microsoft/DeepSpeed@38327e07 deepspeed/runtime/engine.py); FSDP2 (torchtitan) shards the
# experts over their expert-data-parallel mesh. Memory: at TP 1 every expert byte is still
# split over all 64 ranks (EP 8 x EDP 8 = DP 64), so parameters, gradients and optimizer states
# equal FSDP2's ZeRO-3 without EP; the traffic changes: each MoE block's experts gather over EDP,
# E / EP / 32 blocks x 2 bytes = 45,097,156,608 / 8 / 32 x 2 per call, once per micro-batch
# forward and twice backward with full recompute (8 micro-batches x 32 blocks).
expect 2 "DeepSpeed does not shard expert-parallel parameters" -- estimate --model mixtral-8x7b --gpus 16 --ep 8 --strategy zero3 --framework deepspeed
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --strategy zero3 --seq-len 4096 --grad-accum 8 --checkpointing full --format json >"$out" 2>"$err"
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --strategy zero3 --seq-len 4096 --grad-accum 8 --checkpointing full --ep 8 --framework fsdp2 --format json >"$out.2" 2>>"$err"
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --strategy zero3 --seq-len 4096 --grad-accum 8 --checkpointing full --framework fsdp2 --format json >"$out.3" 2>>"$err"
py_check "EP with ZeRO-3" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]; b = json.load(open('$(snap "$out.2")'))['results'][0]
a3 = json.load(open('$(snap "$out.3")'))['results'][0]
for k in ('parameters', 'gradients', 'optimizer_states'):
    assert abs(a3['memory_bytes'][k] / b['memory_bytes'][k] - 1) < 1e-9, k
g = [(c['size_bytes'], c['calls_per_step']) for c in b['collectives'] if c['what'].startswith('expert parameter all-gather')]
assert g == [(45097156608 / 8 / 32 * 2, 8 * 32), (45097156608 / 8 / 32 * 2, 2 * 8 * 32)], g
assert b['step_time_seconds']['communication_exposed'] < a['step_time_seconds']['communication_exposed']" || bad "EP with ZeRO-3"
rm -f "$out.2" "$out.3"
json_check "len(d['ranked']) > 0 and all(r['ep'] == 8 for r in d['ranked'])" plan --model mixtral-8x7b --hardware h100-80gb --max-gpus 64 --ep 8 --top 20 --format json
# EP with CP: Megatron-Core carves EP from TP x CP x DP, so at TP 1 EP x EDP = DP x CP and the
# experts still split over every DP x CP rank: ZeRO-3 parameters, gradients and optimizer states
# with EP equal those without (was: the experts divided by DP x CP once more).
"$Z" estimate --model qwen3-30b-a3b --hardware h100-80gb --gpus 4 --cp 2 --strategy zero3 --framework fsdp2 --format json >"$out" 2>"$err"
"$Z" estimate --model qwen3-30b-a3b --hardware h100-80gb --gpus 4 --cp 2 --ep 2 --strategy zero3 --framework fsdp2 --format json >"$out.2" 2>>"$err"
py_check "EP with CP and ZeRO-3" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]['memory_bytes']; b = json.load(open('$(snap "$out.2")'))['results'][0]['memory_bytes']
for k in ('parameters', 'gradients', 'optimizer_states'):
    assert abs(a[k] / b[k] - 1) < 1e-9, (k, a[k], b[k])" || bad "EP with CP and ZeRO-3"
# Hybrid sharding with EP: the optimizer step walks the rank's shard of the states, so its time
# per optimizer-state byte is the same with EP as without (was: the experts' shard taken over
# all of EDP instead of its shard part, 4x too small here: EDP 8, 4 replicas).
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 32 --shard-group 8 --strategy zero3 --framework fsdp2 --format json >"$out" 2>"$err"
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 32 --shard-group 8 --ep 4 --strategy zero3 --framework fsdp2 --format json >"$out.2" 2>>"$err"
py_check "EP with hybrid sharding, optimizer step" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]; b = json.load(open('$(snap "$out.2")'))['results'][0]
ra = a['step_time_seconds']['optimizer'] / a['memory_bytes']['optimizer_states']
rb = b['step_time_seconds']['optimizer'] / b['memory_bytes']['optimizer_states']
assert abs(ra / rb - 1) < 1e-9, (ra, rb)" || bad "EP with hybrid sharding, optimizer step"
# Hybrid sharding with EP (torchtitan's HSDP mesh for the experts): on 32 GPUs with shard groups
# of 8 and EP 4, EDP = 32 / 4 = 8 spans 4 replicas, so the experts shard over 2 ranks inside a
# shard group; their gradients reduce-scatter there and the half left on each rank, 4 bytes (torchtitan
# reduces in fp32) x 45,097,156,608 / 4 / 2, is all-reduced across the replicas. EP must come from inside a shard
# group (torchtitan's parallel_dims borrows it from dp_shard x cp), so shard groups of 2 refuse EP 4.
json_check "[(c['size_bytes'], c['calls_per_step']) for c in d['results'][0]['collectives'] if c['what'].startswith('expert gradient all-reduce across replicas')] == [(4 * 45097156608 / 4 / 2, 1)]" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 32 --shard-group 8 --ep 4 --strategy zero3 --framework fsdp2 --format json
expect 2 "--ep 4 does not divide TP x --shard-group = 2" -- estimate --model mixtral-8x7b --hardware h100-80gb --gpus 32 --shard-group 2 --ep 4 --strategy zero3 --framework fsdp2
# EP's gathered working set. FSDP2 unshards a block's unit, two in flight: with EP 8 a Mixtral
# block holds its attention (2 x 4096 x 4096 + 2 x 4096 x 1024), router (4096 x 8) and norms
# (2 x 4096), 41,984,000 parameters, plus 8 / 8 of its experts, 3 x 4096 x 14336 = 176,160,768
# (was: all 8 experts). Where ZeRO-3 gathers a MoE block's experts whole, what it gathers must fit
# in the gathered-parameter row: at least the largest all-gather.
json_check "d['results'][0]['memory_bytes']['zero3_gathered_parameters'] == 2 * 2 * (41984000 + 176160768)" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --ep 8 --strategy zero3 --framework fsdp2 --format json
json_check "(lambda r: r['memory_bytes']['zero3_gathered_parameters'] >= max(c['size_bytes'] for c in r['collectives'] if c['collective'] == 'all_gather'))(d['results'][0])" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 64 --ep 4 --strategy zero3 --format json
# Megatron-Core raises "When using expert parallelism and tensor parallelism, sequence
# parallelism must be used" (NVIDIA/Megatron-LM@0486ed92 megatron/core/model_parallel_config.py).
expect 2 "--ep 2 with --tp 2 needs --sequence-parallel" -- estimate --model mixtral-8x7b --hardware h100-80gb --gpus 16 --tp 2 --ep 2 --framework megatron --strategy zero1
# By NVIDIA/Megatron-LM@d98e8a64 MoELayer.forward raises for MoE with TP > 1 without SP in
# training, with or without EP (megatron/core/transformer/moe/moe_layer.py).
expect 2 "without also enabling sequence parallelism" -- estimate --model mixtral-8x7b --hardware h100-80gb --gpus 16 --tp 2 --framework megatron --strategy zero1
json_check "d['training']['tp'] == 2 and d['training']['ep'] == 2" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 16 --tp 2 --ep 2 --sequence-parallel --framework megatron --strategy zero1 --format json
# FP8 with EP: Transformer Engine's FP8 weight and transpose (2 bytes per linear weight) exist
# only for the experts the rank holds. DDP, EP 8 against EP 1: the 16-bit weights lose 7/8 of
# Mixtral-8x7B's 45,097,156,608 expert parameters (2 bytes each) and their FP8 pair 2 more.
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 8 --strategy ddp --precision fp8 --format json >"$out" 2>"$err"
"$Z" estimate --model mixtral-8x7b --hardware h100-80gb --gpus 8 --strategy ddp --precision fp8 --ep 8 --format json >"$out.2" 2>>"$err"
py_check "FP8 with EP" "
import json; a = json.load(open('$(snap "$out")'))['results'][0]['memory_bytes']; b = json.load(open('$(snap "$out.2")'))['results'][0]['memory_bytes']
d = a['parameters'] - b['parameters']; x = 4 * 7 / 8 * 45097156608
assert abs(d - x) < 1, (d, x)" || bad "FP8 with EP"
rm -f "$out.2"

# --compat megatron with experts: Mixtral-8x7B, PP 4, EP 8, 64 GPUs, distributed optimizer,
# 8 micro-batches; NVIDIA/Megatron-LM@d98e8a64 theoretical_memory_usage.py returns
# 20063312640.0 and 19236893491.2 bytes (tests/test_compat.c), printed as MiB:
"$Z" estimate --model mixtral-8x7b --compat megatron --gpus 64 --pp 4 --ep 8 --seq-len 4096 --distributed-optimizer --grad-accum 8 >"$out" 2>"$err"
grep -q "weight and optimizer=19133.87 MB, activation=18345.73 MB" "$out" && ok || bad "--compat megatron with EP: $(tail -3 "$out")"

# --tp-comm-overlap (issue 23): TE userbuffers hide most of the sequence-parallel all-gathers
# and reduce-scatters under their GEMMs, never more than the TP collectives' own seconds; the
# compute is unchanged; Megatron-LM refuses it without sequence parallelism.
TPO="--model llama-3-70b --hardware h100-80gb --gpus 64 --tp 8 --pp 4 --grad-accum 32 --seq-len 8192 --framework megatron --strategy zero1 --sequence-parallel"
"$Z" estimate $TPO --format json >"$out" 2>"$err"
"$Z" estimate $TPO --tp-comm-overlap on --format json >"$out.2" 2>>"$err"
py_check "--tp-comm-overlap hides TP comm" "
import json; A = json.load(open('$(snap "$out")')); B = json.load(open('$(snap "$out.2")'))
a, b = A['results'][0]['step_time_seconds'], B['results'][0]['step_time_seconds']
assert B['training']['tp_comm_overlap'] is True and A['training']['tp_comm_overlap'] is False
# compute less its SM contention: the hidden collectives still take NCCL's SMs beside the GEMMs
fl = lambda x: x['compute'] - x['compute_contention']
assert abs(fl(b) - fl(a)) < 1e-12 * fl(a) and b['compute_contention'] >= a['compute_contention'], (a, b)
assert 0 < b['communication_exposed'] < 0.5 * a['communication_exposed'], (a, b)" || bad "--tp-comm-overlap"
rm -f "$out.2"
expect 2 "--tp-comm-overlap needs --sequence-parallel" -- estimate --model llama-3-70b --gpus 8 --tp 8 --tp-comm-overlap on
expect 0 "" -- estimate $TPO --tp-comm-overlap on --explain
grep -q "TP comm overlap (Transformer Engine userbuffers)" "$out" && ok || bad "--explain lacks the TP overlap line"
# Uneven stages in --explain and the JSON.
expect 0 "" -- estimate --model llama-3.1-405b --hardware h100-80gb --gpus 2048 --tp 8 --pp 16 --framework megatron --pp-first-layers 7 --pp-last-layers 7 --checkpointing full --explain
grep -q "layers first 7, middle 8, last 7" "$out" && ok || bad "--explain lacks the stage split"

# Cluster variants (issue 23): 3.2 Tb/s per node is the DGX H100's own 8 x 400 Gb/s (same step);
# 800 Gb/s a quarter of it (more exposed communication, same compute); a power cap slows the
# compute by at most the cube-root clock and keeps MFU's nameplate peak; bits, not bytes.
CV="--model llama-3-70b --hardware h100-80gb --gpus 64 --strategy zero3 --framework fsdp --checkpointing full"
"$Z" estimate $CV --format json >"$out" 2>"$err"
"$Z" estimate $CV --network-bandwidth 3.2Tb/s --format json >"$out.2" 2>>"$err"
"$Z" estimate $CV --network-bandwidth 800Gb/s --format json >"$out.3" 2>>"$err"
"$Z" estimate $CV --power-cap 350W --format json >"$out.4" 2>>"$err"
py_check "cluster variants" "
import json
a, b, c, p = (json.load(open(f))['results'][0]['step_time_seconds'] for f in ('$(snap "$out")', '$(snap "$out.2")', '$(snap "$out.3")', '$(snap "$out.4")'))
assert abs(a['total'] - b['total']) < 1e-12, (a, b)
fl = lambda x: x['compute'] - x['compute_contention']  # the FLOPs' time, without NCCL's SMs
assert abs(fl(c) - fl(a)) < 1e-12 * fl(a) and c['communication_exposed'] > a['communication_exposed'], (a, c)
assert fl(a) < fl(p) <= fl(a) / 0.5 ** (1 / 3) + 1e-9, (a, p)" || bad "cluster variants"
rm -f "$out.2" "$out.3" "$out.4"
expect 2 "give bits per second" -- estimate $CV --network-bandwidth 100GB/s
expect 2 "above h100-80gb's 700 W TDP" -- estimate $CV --power-cap 800W

# --attention-kernel (issue 23 item 4): every framework defaults to FA2's rate (megatron too,
# fw_megatron.c says why); FA3 and cuDNN beat FA2 on H100 at head dim 128 (FlashAttention-3
# paper, figures 5-6: at 2k forward 521 and 484 against 298 TFLOP/s), so compute shrinks; FA3
# refuses an A100.
AK="--model llama-3-8b --hardware h100-80gb --gpus 8 --seq-len 8192 --format json"
"$Z" estimate $AK --framework megatron >"$out" 2>"$err"
"$Z" estimate $AK --framework megatron --attention-kernel cudnn >"$out.2" 2>>"$err"
"$Z" estimate $AK --framework megatron --attention-kernel fa3 >"$out.3" 2>>"$err"
"$Z" estimate $AK --framework fsdp2 >"$out.4" 2>>"$err"
py_check "--attention-kernel and the framework defaults" "
import json; L = lambda f: json.load(open(f))
fa2, te, fa3, tt = L('$(snap "$out")'), L('$(snap "$out.2")'), L('$(snap "$out.3")'), L('$(snap "$out.4")')
assert fa2['training']['attention_kernel'] == 'fa2' and tt['training']['attention_kernel'] == 'fa2'
assert te['training']['attention_kernel'] == 'cudnn' and fa3['training']['attention_kernel'] == 'fa3'
c = lambda d: d['results'][0]['step_time_seconds']['compute']
assert c(fa3) < c(te) < c(fa2), (c(fa3), c(te), c(fa2))" || bad "--attention-kernel"
rm -f "$out.2" "$out.3" "$out.4"
expect 0 "" -- estimate --model llama-3-8b --hardware a100-80gb --gpus 8 --framework megatron --format json
grep -q '"attention_kernel":[[:space:]]*"fa2"' "$out" && ok || bad "megatron on A100 should run fa2"
expect 2 "FlashAttention-3 runs on Hopper only" -- estimate --model llama-3-8b --hardware a100-80gb --gpus 8 --attention-kernel fa3
# te: Transformer Engine's own pick (get_attention_backend): cuDNN from compute capability 9.0, FA2 before.
expect 0 "" -- estimate --model llama-3-8b --hardware h100-80gb --gpus 8 --framework megatron --attention-kernel te --format json
grep -q '"attention_kernel":[[:space:]]*"cudnn"' "$out" && ok || bad "te on H100 should run cudnn"
expect 0 "" -- estimate --model llama-3-8b --hardware a100-80gb --gpus 8 --framework megatron --attention-kernel te --format json
grep -q '"attention_kernel":[[:space:]]*"fa2"' "$out" && ok || bad "te on A100 should run fa2"
expect 2 "is not one of fa2|fa3|cudnn|te" -- estimate --model llama-3-8b --gpus 8 --attention-kernel fa4
expect 2 "runs no flash kernel" -- estimate --model llama-3-8b --gpus 8 --attention-kernel cudnn --eager-attention
expect 0 "" -- estimate --model llama-3-8b --hardware h100-80gb --gpus 8 --framework megatron --explain
grep -q "Attention kernel: fa2 (Megatron-LM)" "$out" && ok || bad "--explain lacks the attention kernel line"
# A flash backward counts 2.5x the forward's FLOPs (FlashAttention-2 paper, section 4.1); a
# hybrid's scans keep 2x, and --explain says both.
grep -q "backward 2.5x the forward's FLOPs)" "$out" && ok || bad "--explain lacks the flash backward's 2.5x"
expect 0 "" -- estimate --model qwen3-next-80b-a3b --hardware h100-80gb --gpus 64 --explain
grep -q "backward 2.5x the forward's FLOPs; the scans 2x)" "$out" && ok || bad "--explain of a hybrid lacks the scans' 2x"
expect 0 "" -- estimate --params 7e9 --hardware h100-80gb --gpus 8 --explain
grep -q "a parameter count has no attention shape" "$out" && ok || bad "--explain of --params gives the wrong reason"

finish
