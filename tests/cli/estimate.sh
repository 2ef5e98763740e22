#!/bin/sh
# estimate.sh -- estimate: JSON contract, strategies, frameworks, hybrid sharding and ZeRO++, ds_config.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# computed results: a 7B model on 8 A100-80GB fits with ZeRO (exit 0); JSON contract keys
expect 0 "" -- estimate $M --gpus 8
json_check "d['schema_version'] == 1 and d['model']['parameters'] == 6738415616 and [r['strategy'] for r in d['results']] == ['ddp','zero1','zero2','zero3']" estimate $M --gpus 8 --format json
json_check "all(set(['parameters','gradients','optimizer_states','model_states','activations','total']) <= set(r['memory_bytes']) for r in d['results'])" estimate $M --gpus 8 --format json
json_check "all(abs(sum(v for k, v in r['memory_bytes'].items() if k not in ('model_states','total')) - r['memory_bytes']['total']) < 1 for r in d['results'])" estimate $M --gpus 8 --format json
# ZeRO paper, section 5: 7.5B params, 64 GPUs, ZeRO-3 model states 16 x 7.5e9 / 64 = 1.875 GB
json_check "abs(d['results'][0]['memory_bytes']['model_states'] - 1.875e9) < 1" estimate --params 7.5e9 --gpus 64 --strategy zero3 --precision fp16 --optimizer adam --format json
# absurd but valid: 1e15 parameters prints finite numbers and does not fit (exit 1)
expect 1 "" -- estimate --params 1e15 --gpus 8
json_check "not any(r['fits'] for r in d['results'])" estimate --params 1e15 --gpus 8 --format json
# Autocast over fp32 parameters (Composer's FSDP mixed_precision DEFAULT): the forward gather moves
# 4 bytes a parameter, twice the 16-bit one; the reduce-scatter stays 16-bit (reduce_dtype).
"$Z" estimate $M --gpus 8 --framework fsdp --strategy zero3 --format json >"$W/pd16.json" 2>/dev/null
"$Z" estimate $M --gpus 8 --framework fsdp --strategy zero3 --param-dtype fp32 --format json >"$W/pd32.json" 2>/dev/null
py_check "fp32 parameters gather 4 bytes, reduce 2" "
import json
a, b = (json.load(open(f)) for f in ('$(snap "$W/pd16.json")', '$(snap "$W/pd32.json")'))
assert a['training']['param_dtype'] == '16-bit' and b['training']['param_dtype'] == 'fp32'
def size(d, what):
    return [c['size_bytes'] for c in d['results'][0]['collectives'] if c['what'] == what][0]
assert abs(size(b, 'parameter all-gather (forward)') / size(a, 'parameter all-gather (forward)') - 2) < 1e-12
assert size(b, 'gradient reduce-scatter') == size(a, 'gradient reduce-scatter')"
# DeepSpeed config: stage 3 picks ZeRO-3; flags win over the file
json_check "[r['strategy'] for r in d['results']] == ['zero3'] and d['training']['offload_optimizer'] == 'cpu'" estimate $M --gpus 8 --deepspeed tests/data/ds_config_hf_zero3.json --format json
json_check "d['training']['micro_batch'] == 2 and d['training']['grad_accum'] == 32" estimate $M --gpus 4 --deepspeed tests/data/ds_config_zero2.json --micro-batch 2 --format json
# step time, communication and cost keys (issue contract)
json_check "all(set(['compute','communication_exposed','optimizer','bubble','offload','total']) <= set(r['step_time_seconds']) for r in d['results'])" estimate $M --gpus 16 --format json
json_check "all(r['communication_bytes_per_gpu']['total'] > 0 and 0 < r['mfu'] < 1 and r['tokens_per_second'] > 0 for r in d['results'])" estimate $M --gpus 16 --format json
json_check "any(r['fits'] for r in d['results']) and all(abs(r['cost']['gpu_hours'] - r['cost']['seconds'] / 3600 * 16) < 1e-6 * r['cost']['gpu_hours'] and r['cost']['dollars'] > 0 for r in d['results'] if r['fits'])" estimate $M --gpus 16 --tokens 1e9 --format json
json_check "all(abs(r['cost']['dollars'] - r['cost']['gpu_hours'] * 2.5) < 1e-6 * r['cost']['dollars'] for r in d['results'] if r['fits'])" estimate $M --gpus 16 --tokens 1e9 --price-per-gpu-hour 2.5 --format json
expect 2 "--tokens" -- estimate $M --tokens -5

# CSV: a header and one row per strategy
"$Z" estimate $M --gpus 8 --format csv >"$out" 2>"$err"; [ "$(wc -l <"$out")" -eq 5 ] && head -1 "$out" | grep -q "memory_bytes.total" && ok || bad "csv rows"

# Strategy descriptors: DeepSpeed offloads parameters only at ZeRO stage 3 (DeepSpeed
# configuration docs, zero_optimization.offload_param), so stages 1-2 refuse it instead of
# dropping the parameters from GPU memory.
expect 2 "parameter offload needs ZeRO-3" -- estimate --model llama-2-7b --gpus 16 --strategy zero2 --offload-optimizer cpu --offload-params cpu
# Parameter offload alone: DeepSpeed's stage 3 reads offload_param and offload_optimizer apart
# and keeps the fp32 states on the GPU without the latter (microsoft/DeepSpeed@38327e07
# deepspeed/runtime/zero/stage3.py _configure_offloading, self.device). Llama-2-7B, 6738415616
# parameters, over 8 GPUs: Adam's 12 bytes and the 2-byte gradients stay sharded on the GPU,
# the 16-bit partition (less the persistent small tensors left on the GPU) goes to the host,
# and the updated partition goes back down once a step.
json_check "(r := d['results'][0]) and (mb := r['memory_bytes']) and r['applicable'] and mb['optimizer_states'] == 12 * 6738415616 / 8 and mb['gradients'] == 2 * 6738415616 / 8 and abs(r['host_memory_bytes']['per_gpu'] + mb['parameters'] / 8 - 2 * 6738415616 / 8) < 1 and [c['calls_per_step'] for c in r['collectives'] if c['what'] == 'offload: updated parameters to host'] == [1]" estimate --model llama-2-7b --gpus 8 --strategy zero3 --framework deepspeed --offload-params cpu --format json
# FSDP's CPUOffload(offload_params=True) moves the parameters and the optimizer together.
expect 2 "offloads parameters and optimizer together" -- estimate --model llama-2-7b --gpus 8 --strategy zero3 --framework fsdp --offload-params cpu
expect 2 "parameter offload needs ZeRO-3" -- estimate --model llama-2-7b --gpus 16 --strategy zero2 --offload-params cpu
expect 2 "offload needs ZeRO" -- estimate --model llama-2-7b --gpus 16 --strategy ddp --offload-optimizer cpu
json_check "[r['strategy'] for r in d['results'] if r['applicable']] == ['zero3']" estimate --model llama-2-7b --gpus 16 --offload-optimizer cpu --offload-params cpu --format json
# --explain prints the links the simulation uses: with 4 GPUs per node each GPU's share of an
# a100-80gb node's 8 x 200 Gb/s HDR NICs (DGX A100 datasheet) is 2 x 25 GB/s x efficiency 0.96.
"$Z" estimate --model llama-2-7b --gpus 16 --gpus-per-node 4 --strategy zero3 --explain >"$out" 2>"$err"
grep -q "network a = [0-9.]* us, B = 48.0 GB/s per GPU" "$out" && ok || bad "--explain with --gpus-per-node 4: $(grep network "$out")"
# --explain lists each GEMM at its measured rate under --gemm-shapes on (Hopper), and says how
# to get them otherwise; JSON says which model ran.
"$Z" estimate --model llama-3-8b --hardware h100-80gb --gpus 8 --tp 2 --gemm-shapes on --explain >"$out" 2>"$err"
grep -q "^  k, v  *2048  *4096  *512  *64 " "$out" && grep -q "^GEMMs by shape" "$out" && ok || bad "--gemm-shapes on --explain: $(grep -A3 GEMMs "$out")"
"$Z" estimate --model llama-3-8b --hardware h100-80gb --gpus 8 --explain >"$out" 2>"$err"
grep -q "^GEMMs: one efficiency for all.*--gemm-shapes on" "$out" && ok || bad "--explain without --gemm-shapes: $(grep GEMMs "$out")"
json_check "d['training']['gemm_shapes'] is True" estimate --model llama-3-8b --hardware h100-80gb --gpus 8 --gemm-shapes on --format json
json_check "d['training']['gemm_shapes'] is False" estimate --model llama-3-8b --hardware a100-80gb --gpus 8 --gemm-shapes on --format json
# A bad flag value is a usage error even when the model file is missing: flags parse when read.
expect 2 "--micro-batch" -- estimate --model /nonexistent/model.json --micro-batch abc
# A ds_config's ZeRO stage picks the strategy that shards what that stage shards.
json_check "[r['strategy'] for r in d['results']] == ['zero2']" estimate --model llama-2-7b --gpus 8 --deepspeed tests/data/ds_config_zero2.json --format json

# ---- Frameworks (issue 11) ----
# DeepSpeed's pipeline engine accepts ZeRO stage 0 or 1 only (deepspeed/runtime/pipe/engine.py):
# plan never ranks ZeRO-2/3 with PP > 1 under it, and estimate refuses with the rule.
json_check "all(not (r['strategy'] in ('zero2','zero3') and r['pp'] > 1) for r in d['ranked']) and all(r['framework'] == 'deepspeed' for r in d['ranked']) and len(d['ranked']) > 0" plan --model llama-2-13b --max-gpus 64 --top 200 --framework deepspeed --format json
expect 2 "pipeline engine accepts ZeRO stage 0 or 1 only" -- estimate --model llama-2-13b --gpus 16 --pp 2 --strategy zero2 --framework deepspeed
# Megatron-LM: num_layers divisible by pp x virtual stages (megatron/training/arguments.py), or
# an uneven split by Megatron-Core's rules (transformer_config.py "Uneven PP"): first and last
# multiples of v, the rest divisible over the pp - 2 middle stages into multiples of v.
json_check "all((r['pp_first_layers'] == 0 and 40 % (r['pp'] * r['virtual_stages']) == 0) or (r['pp'] > 2 and r['pp_first_layers'] % r['virtual_stages'] == 0 and r['pp_last_layers'] % r['virtual_stages'] == 0 and (40 - r['pp_first_layers'] - r['pp_last_layers']) % ((r['pp'] - 2) * r['virtual_stages']) == 0) for r in d['ranked']) and len(d['ranked']) > 0 and any(r['pp_first_layers'] > 0 for r in d['ranked'])" plan --model llama-2-13b --max-gpus 64 --top 200 --framework megatron --format json
# Uneven stages (issue 23): Llama 3's 126 layers on 16 stages with 7 on each end (Dubey et al.
# 2024 section 3.3.2) run under Megatron; without the flags the even split is refused.
expect 0 "" -- estimate --model llama-3.1-405b --hardware h100-80gb --gpus 2048 --tp 8 --pp 16 --framework megatron --pp-first-layers 7 --pp-last-layers 7 --strategy zero1 --checkpointing full
expect 2 "--pp-first-layers / --pp-last-layers put fewer on the end stages" -- estimate --model llama-3.1-405b --hardware h100-80gb --gpus 2048 --tp 8 --pp 16 --framework megatron
expect 2 "do not divide over the 15 middle stages" -- estimate --model llama-3.1-405b --hardware h100-80gb --gpus 2048 --tp 8 --pp 16 --framework megatron --pp-first-layers 7
expect 2 "do not divide evenly" -- estimate --model llama-2-13b --gpus 24 --pp 3 --framework megatron
# Megatron-Core's own rules (NVIDIA/Megatron-LM@d98e8a64 schedules.py): PP <= N <= M, and the
# remainder of M over the group of N (default PP) micro-batches 0 or >= PP: over PP 4, M = 6
# fails (remainder 2), M = 2 fails (N = 4 > M), M = 8 runs; with N = 6, M = 10 runs (remainder
# 4) and M = 8 does not (remainder 2); N = 3 < PP and N = 9 > M are out of range.
expect 2 "modulo the group of 4 (--microbatch-group, default --pp) to be 0 or at least --pp 4, not 2" -- estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 6 --framework megatron
expect 2 "must range in .--pp 4, --grad-accum 2." -- estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 2 --framework megatron
expect 0 "" -- estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 10 --microbatch-group 6 --framework megatron --strategy zero1
expect 2 "not 2" -- estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 8 --microbatch-group 6 --framework megatron
expect 2 "--microbatch-group 3 must range" -- estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 8 --microbatch-group 3 --framework megatron
expect 2 "--microbatch-group 9 must range" -- estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 8 --microbatch-group 9 --framework megatron
json_check "d['results'][0]['applicable']" estimate --model llama-2-13b --gpus 16 --pp 4 --virtual-stages 2 --grad-accum 8 --framework megatron --strategy zero1 --format json
expect 2 "does not run ZeRO-3" -- estimate --model llama-2-13b --gpus 16 --strategy zero3 --framework megatron
expect 2 "no tensor parallelism" -- estimate --model llama-2-13b --gpus 16 --tp 2 --framework fsdp
expect 2 "no selective recomputation" -- estimate --model llama-2-13b --gpus 16 --checkpointing selective --framework fsdp
expect 2 "--framework" -- estimate --model llama-2-13b --gpus 16 --framework tensorflow
# Gradient schedule: DeepSpeed ZeRO-2 reduce-scatters every micro-batch (8 rounds with
# --grad-accum 8); Megatron's distributed optimizer once per step, in fp32.
json_check "[c['rounds_per_step'] for c in d['results'][0]['collectives'] if c['what'] == 'gradient reduce-scatter'] == [8]" estimate --model llama-2-13b --gpus 16 --grad-accum 8 --framework deepspeed --strategy zero2 --format json
json_check "[c['rounds_per_step'] for c in d['results'][0]['collectives'] if c['what'] == 'gradient reduce-scatter'] == [1]" estimate --model llama-2-13b --gpus 16 --grad-accum 8 --framework megatron --strategy zero1 --format json
"$Z" estimate --model llama-2-13b --gpus 16 --grad-accum 8 --framework deepspeed --strategy zero2 --format json >"$out" 2>"$err"
"$Z" estimate --model llama-2-13b --gpus 16 --grad-accum 8 --framework megatron --strategy zero1 --format json >"$out.2" 2>>"$err"
py_check "deepspeed zero2 vs megatron distributed optimizer step times do not differ" "
import json; a = json.load(open('$(snap "$out")')); b = json.load(open('$(snap "$out.2")'))
ta = a['results'][0]['step_time_seconds']['total']; tb = b['results'][0]['step_time_seconds']['total']
assert abs(ta - tb) / tb > 0.01, (ta, tb)" || bad "deepspeed zero2 vs megatron distributed optimizer step times do not differ"
rm -f "$out.2"
# Hybrid sharding and ZeRO++ send less over the network than plain ZeRO-3 (HSDP/MiCS: the
# gradient shard all-reduced across replicas; ZeRO++: int8 forward gathers, backward gathers
# inside the node, int4 gradients), and say by how much.
for flags in "--framework fsdp --shard-group 8" "--framework deepspeed --shard-group 8" "--framework deepspeed --zero-hpz 8 --zero-quantized-weights --zero-quantized-gradients"; do
    json_check "all(r['communication_bytes_per_gpu']['inter_node'] < r['communication_bytes_per_gpu']['inter_node_without_hybrid'] for r in d['results'])" estimate --model llama-2-13b --gpus 64 --strategy zero3 --grad-accum 4 $flags --format json
done
# Shard groups tile the data-parallel ranks (FSDP2's HSDP mesh is replicate x shard; DeepSpeed
# asserts the world size divisible by mics_shard_size and zero_hpz_partition_size): 16 does not
# divide 24 (was: states divided by 16 with no replica traffic).
# A flag that would change nothing is refused, not ignored: --model's layers come from its shapes.
expect 2 "--largest-layer-params goes with --params" -- estimate --model llama-2-7b --gpus 8 --strategy zero3 --largest-layer-params 1e10
expect 2 "--shard-group 16 does not divide DP x CP = 24" -- estimate --model llama-2-7b --hardware h100-80gb --gpus 24 --shard-group 16 --strategy zero3
expect 2 "--zero-hpz 16 does not divide DP x CP = 24" -- estimate --model llama-2-7b --hardware h100-80gb --gpus 24 --zero-hpz 16 --strategy zero3 --framework deepspeed
# ZeRO++'s paper reduces ZeRO-3's cross-node volume from 3M to 0.75M per step (Wang et al. 2023,
# section 4): qwZ halves the forward gather, hpZ keeps the backward gather in the node, qgZ
# quarters the gradients. Without recomputation the ratio is exactly 4 here.
json_check "abs(d['results'][0]['communication_bytes_per_gpu']['inter_node_without_hybrid'] / d['results'][0]['communication_bytes_per_gpu']['inter_node'] - 4) < 0.05" estimate --model llama-2-13b --gpus 64 --strategy zero3 --framework deepspeed --zero-hpz 8 --zero-quantized-weights --zero-quantized-gradients --persistence-threshold 0 --format json
"$Z" estimate --model llama-2-13b --gpus 64 --strategy zero3 --framework deepspeed --zero-hpz 8 --explain >"$out" 2>"$err"
grep -q "qgZ reduce-scatters int4" "$out" && grep -q "network without hybrid/ZeRO++" "$out" && ok || bad "--explain lacks the ZeRO++ formula or the table the comparison row"
# --explain heads that formula with the groups it used (this line once grepped the JSON run's
# stderr, where the heading never is, behind `|| true`).
grep -q "^Hybrid sharding and ZeRO++ (S = shard group 0, R = DP / S replicas, H = hpZ group 8):$" "$out" && ok || bad "--explain lacks the hybrid sharding heading with hpZ group 8: $(grep -i hybrid "$out" | head -2)"
# A ds_config selects DeepSpeed, and its ZeRO++/MiCS keys take effect.
printf '{"zero_optimization": {"stage": 3, "mics_shard_size": 8, "zero_quantized_weights": true}}' >"$out.ds"
json_check "d['training']['framework'] == 'deepspeed' and d['training']['shard_group'] == 8" estimate --model llama-2-13b --gpus 64 --deepspeed "$out.ds" --format json
rm -f "$out.ds"

# Issue 22. Shard groups larger than DP x CP are refused as non-dividing ones are (they ran as
# plain ZeRO-3): DeepSpeed asserts (world_size // pp_size) % mics_shard_size == 0
# (microsoft/DeepSpeed@38327e07 deepspeed/runtime/zero/mics_utils.py, _generate_mics_config):
# 8 % 64 != 0. A ds_config's key is named as the key (bad input, exit 3).
expect 2 "^zerosim estimate: --shard-group 16 does not divide DP x CP = 8 " -- estimate $M --gpus 8 --shard-group 16 --strategy zero3
expect 2 "^zerosim estimate: --zero-hpz 32 does not divide DP x CP = 16 " -- estimate $M --gpus 16 --zero-hpz 32 --strategy zero3 --framework deepspeed
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "mics_shard_size": 64}}' >"$W/mics64.json"
expect 3 "mics64.json: zero_optimization.mics_shard_size 64 does not divide DP x CP = 8 " -- estimate $M --gpus 8 --deepspeed "$W/mics64.json"
# A Gemma 4 config whose head_dim (the sliding layers' shape) is negative: refused by the
# model's bounds, not counted into negative parameters (the fuzzer's find).
printf '{"model_type": "gemma4", "text_config": {"head_dim": -300431}}\n' >"$W/g4neg.json"
expect 3 'of the sliding layers: -300431' -- estimate --model "$W/g4neg.json"
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "zero_hpz_partition_size": 32}}' >"$W/hpz32.json"
expect 3 "hpz32.json: zero_optimization.zero_hpz_partition_size 32 does not divide DP x CP = 16 " -- estimate $M --gpus 16 --deepspeed "$W/hpz32.json"
# hpZ over 1 rank is off: DeepSpeed's default zero_hpz_partition_size is 1
# (deepspeed/runtime/zero/config.py) and it builds the secondary group only when the size is > 1
# (deepspeed/runtime/zero/stage3.py, partition_parameters.py). Flag and key give plain ZeRO-3.
for v in "" "--zero-hpz 1"; do
    "$Z" estimate --model llama-2-13b --gpus 64 --strategy zero3 --framework deepspeed $v --format json >"$W/hpz1$v.out" 2>&1
done
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 3}}' >"$W/hpz_none.json"
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 3, "zero_hpz_partition_size": 1}}' >"$W/hpz_one.json"
"$Z" estimate --model llama-2-13b --gpus 64 --deepspeed "$W/hpz_none.json" --format json >"$W/hpz_none.out" 2>&1
"$Z" estimate --model llama-2-13b --gpus 64 --deepspeed "$W/hpz_one.json" --format json >"$W/hpz_one.out" 2>&1
py_check "--zero-hpz 1 / zero_hpz_partition_size 1 differ from no hpZ" "
import json
a, b = (json.load(open(f)) for f in ('$(snap "$W/hpz1.out")', '$(snap "$W/hpz1--zero-hpz 1.out")'))
c, e = (json.load(open(f)) for f in ('$(snap "$W/hpz_none.out")', '$(snap "$W/hpz_one.out")'))
assert a['results'] == b['results'] and a['training'] == b['training']
assert c['results'] == e['results']"
"$Z" estimate --help >"$out" 2>&1
grep -q -- "--zero-hpz N .*1 = off, the default" "$out" && ok || bad "--help does not say --zero-hpz 1 is off"
# The ds_config's optimizer.type is read (it was ignored: SGD modelled AdamW); a flag still wins,
# an unknown type is refused naming the key and the known ones.
printf '{"bf16": {"enabled": true}, "optimizer": {"type": "SGD", "params": {"lr": 0.1}}}' >"$W/sgd.json"
json_check "d['training']['optimizer'] == 'sgd' and 'optimizer.params.lr' in d['training']['deepspeed_ignored']" estimate $M --gpus 8 --deepspeed "$W/sgd.json" --format json
json_check "d['training']['optimizer'] == 'adam'" estimate $M --gpus 8 --deepspeed "$W/sgd.json" --optimizer adam --format json
"$Z" estimate $M --gpus 8 --deepspeed "$W/sgd.json" >"$out" 2>&1
grep -q 'used: optimizer.type "SGD" as sgd' "$out" && ok || bad "the ds_config line does not list optimizer.type as used"
printf '{"bf16": {"enabled": true}, "optimizer": {"type": "FusedAdam"}}' >"$W/fused.json"
expect 3 'field "optimizer.type": "FusedAdam" is not an optimizer zerosim models (it knows Adam, AdamW' -- estimate $M --gpus 8 --deepspeed "$W/fused.json"
# A HF config.json given as --deepspeed is refused (its keys were all "ignored").
expect 3 'models/llama-2-7b.json looks like a model config.json (model_type "llama"), not a DeepSpeed config: give it as --model' -- estimate $M --gpus 8 --deepspeed models/llama-2-7b.json
# fp16 and bf16 both enabled: DeepSpeed asserts 'bfloat16 and fp16 modes cannot be simultaneously
# enabled' (microsoft/DeepSpeed@38327e07 deepspeed/runtime/config.py, _initialize_params).
printf '{"fp16": {"enabled": true}, "bf16": {"enabled": true}}' >"$W/both.json"
expect 3 "cannot be simultaneously enabled" -- estimate $M --gpus 8 --deepspeed "$W/both.json"
# Neither section: DeepSpeed trains in fp32, and the report says so.
printf '{"zero_optimization": {"stage": 2}}' >"$W/fp32.json"
"$Z" estimate $M --gpus 8 --deepspeed "$W/fp32.json" >"$out" 2>&1
grep -q "^training   fp32," "$out" && grep -q "no fp16 or bf16 section: fp32, as DeepSpeed runs it" "$out" && ok || bad "a ds_config without fp16/bf16 runs fp32 without a note"

# ds_config: keys read but not modelled are listed, never dropped; "auto" filled as the HF
# Trainer does (h = 4096 for llama-2-7b: reduce_bucket_size h^2 = 16777216).
json_check "'gradient_clipping' in d['training']['deepspeed_ignored'] and 'reduce_bucket_size 16777216' in d['training']['deepspeed_auto_filled']" estimate $M --gpus 8 --deepspeed tests/data/ds_config_hf_zero3.json --format json
# DeepSpeed asserts train_batch_size = micro x accumulation x DP: 64 = 4 x 2 x 8 holds on 8 GPUs only.
expect 3 "train_batch_size 64" -- estimate $M --gpus 16 --deepspeed tests/data/ds_config_legacy.json

# ---- --weights: a checkpoint's safetensors headers against the config ----
# A 2-layer llama config and BF16 safetensors whose tensors are exactly its parameters: embed
# V x h, per layer q, k, v, o (h x h), gate and up (i x h), down (h x i), two norms (h), the
# final norm (h), an untied lm_head (V x h). The count, from those shapes:
V=1000 H=64 I=176 L=2
st_params=$((2 * V * H + L * (4 * H * H + 3 * H * I + 2 * H) + H))
python3 - "$W" $V $H $I $L <<'PY'
import json, os, struct, sys
w, V, h, i, L = sys.argv[1], *map(int, sys.argv[2:])
json.dump({"model_type": "llama", "hidden_size": h, "intermediate_size": i, "num_hidden_layers": L,
           "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": V,
           "tie_word_embeddings": False, "max_position_embeddings": 512}, open(w + "/cfg.json", "w"))
t = {"model.embed_tokens.weight": [V, h], "model.norm.weight": [h], "lm_head.weight": [V, h]}
for l in range(L):
    p = "model.layers.%d." % l
    for m in "qkvo": t[p + "self_attn.%s_proj.weight" % m] = [h, h]
    t[p + "mlp.gate_proj.weight"] = t[p + "mlp.up_proj.weight"] = [i, h]
    t[p + "mlp.down_proj.weight"] = [h, i]
    t[p + "input_layernorm.weight"] = t[p + "post_attention_layernorm.weight"] = [h]
def write(path, names):
    hdr, off = {"__metadata__": {"format": "pt"}}, 0
    for n in names:
        size = 2 * t[n][0] * (t[n][1] if len(t[n]) > 1 else 1)
        hdr[n] = {"dtype": "BF16", "shape": t[n], "data_offsets": [off, off + size]}
        off += size
    b = json.dumps(hdr).encode()
    b += b" " * (-len(b) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(b)) + b)
        f.truncate(8 + len(b) + off)
    return off
names = sorted(t)
write(w + "/full.safetensors", names)
write(w + "/missing.safetensors", [n for n in names if n != "model.layers.1.mlp.down_proj.weight"])
half = len(names) // 2
size = write(w + "/m-1.safetensors", names[:half]) + write(w + "/m-2.safetensors", names[half:])
json.dump({"metadata": {"total_size": size}, "weight_map": {n: "m-%d.safetensors" % (1 + (k >= half))
           for k, n in enumerate(names)}}, open(w + "/model.safetensors.index.json", "w"))
PY
json_check "d['checkpoint']['parameters'] == $st_params and d['checkpoint']['difference'] == 0 and d['checkpoint']['config_parameters'] == $st_params and d['model']['parameters'] == $st_params and d['checkpoint']['by_dtype'] == [{'dtype': 'BF16', 'tensors': 3 + 9 * $L, 'elements': $st_params, 'bytes': 2 * $st_params}] and d['checkpoint']['index_total_size'] is None and d['checkpoint']['files'] == 1" estimate --model "$W/cfg.json" --weights "$W/full.safetensors" --format json
json_check "d['checkpoint']['parameters'] == $st_params and d['checkpoint']['files'] == 2 and d['checkpoint']['index_total_size'] == 2 * $st_params and d['checkpoint']['stored_bytes'] == 2 * $st_params and d['checkpoint']['difference'] == 0" estimate --model "$W/cfg.json" --weights "$W/model.safetensors.index.json" --format json
expect 0 "" -- estimate --model "$W/cfg.json" --weights "$W/full.safetensors"
grep -q "warning" "$err" && bad "--weights matching the config warns: $(cat "$err")" || ok
grep -q "^checkpoint .*full.safetensors: 1 file, $((3 + 9 * L)) tensors" "$out" && ok || bad "--weights table lacks the checkpoint line: $(head -3 "$out")"
# one tensor missing (layer 1's down_proj, h x i): the difference, and a warning naming the file
expect 0 "warning: .*missing.safetensors: $((st_params - H * I)) parameters in the checkpoint, $st_params in the config .*difference -$((H * I))" -- estimate --model "$W/cfg.json" --weights "$W/missing.safetensors"
json_check "d['checkpoint']['difference'] == -$H * $I and not d['checkpoint']['difference_explained']" estimate --model "$W/cfg.json" --weights "$W/missing.safetensors" --format json
expect 0 "warning: .*missing.safetensors" -- compare --model "$W/cfg.json" --weights "$W/missing.safetensors"
# usage: --weights needs --model; a bad file is exit 3 naming it
expect 2 "--weights needs --model" -- estimate --params 7e9 --weights "$W/full.safetensors"
head -c 5 "$W/full.safetensors" >"$W/short.safetensors"
expect 3 "short.safetensors: truncated" -- estimate --model "$W/cfg.json" --weights "$W/short.safetensors"
mkdir "$W/empty"
expect 3 "empty: no \*.safetensors files" -- estimate --model "$W/cfg.json" --weights "$W/empty"

# DDP's buckets: a distributed run keeps them even with one data-parallel rank (TP 2 x PP 4 = the
# world: still wrapped in DistributedDataParallel), one process has none (HF Trainer wraps the
# model only when distributed, transformers Trainer._wrap_model).
json_check "d['results'][0]['memory_bytes']['communication_buffers'] == d['results'][0]['memory_bytes']['gradients'] > 0" \
    estimate --model llama-2-7b --gpus 8 --tp 2 --pp 4 --strategy ddp --format json
json_check "d['results'][0]['memory_bytes']['communication_buffers'] == 0" \
    estimate --model llama-2-7b --gpus 1 --strategy ddp --format json
# DeepSpeed's cpu_checkpointing copies each stored block input on the compute stream
# (checkpointing.py partition_activations / gather_partitioned_activations): Llama-2-7B's 32
# inputs of 2048 x 4096 x 2 bytes go out and back for each of 4 micro-batches, 8 x 536870912
# bytes at the A100 profile's PCIe 4.0 x16 31.5 GB/s x its 0.83 host-link efficiency, all
# exposed; on a side stream (--activation-offload-sync off, or FSDP) they hide under compute.
AO="--model llama-2-7b --hardware a100-80gb --gpus 8 --strategy zero3 --checkpointing full --activation-offload --grad-accum 4"
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (8 * 32 * 2048 * 4096 * 2 / (31.5e9 * 0.83)) - 1) < 0.01" \
    estimate $AO --framework deepspeed --format json
json_check "d['results'][0]['step_time_seconds']['offload'] < 1e-3" \
    estimate $AO --framework deepspeed --activation-offload-sync off --format json
json_check "d['results'][0]['step_time_seconds']['offload'] < 1e-3" estimate $AO --framework fsdp --format json
json_check "d['results'][0]['step_time_seconds']['offload'] > 0.16" \
    estimate $AO --framework fsdp --activation-offload-sync on --format json
# After ZeRO-Offload's CPU step the parameters come back as each DeepSpeed version's code
# copies them (fw_deepspeed.c): Llama-2-7B's 6,738,415,616 parameters over 8 ranks, at the A100
# profile's PCIe 4.0 x16 31.5 GB/s x 0.83. ZeRO-3 (stage3.py copy_ from the CPU fp32 partition)
# converts on the CPU and copies pageable memory: 6 x the pinned fp32 copy, the speedup DeepSpeed
# PR #5301 measured when it replaced that path; ZeRO-2 at v0.16 moves the pinned fp32 partition
# (4 B a parameter), the default (v0.19.5) a pinned 16-bit buffer; v0.3's CPU Adam copies fp16
# tiles beside its step, hidden under it (the gradients hide under backward); the generic
# framework copies 16 bits pinned. ZeRO-3 from v0.6.0 also sends the fp32 gradient down at the
# accumulation boundary with the host waiting (stage3.py partition_grads; v0.19.5: copy_ of
# grad_buffer.to(float32) into the unpinned fp32 partition): 4 B a parameter more, exposed,
# while each micro-batch's 16-bit round trip to the host buffer hides under backward.
OO="--model llama-2-7b --hardware a100-80gb --gpus 8 --offload-optimizer cpu --grad-accum 4 --format json"
OP="6738415616 / 8 / (31.5e9 * 0.83)"
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / ((6 * 4 + 4) * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero3 --framework deepspeed
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (6 * 4 * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero3 --framework deepspeed@0.3
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (4 * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero2 --framework deepspeed@0.16
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (2 * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero2 --framework deepspeed
json_check "d['results'][0]['step_time_seconds']['offload'] < 1e-3" estimate $OO --strategy zero2 --framework deepspeed@0.3
# CPU Adam's fused copy stayed on until v0.9.0's #3097: 0.4.0 to 0.8.x as 0.3.
json_check "d['results'][0]['step_time_seconds']['offload'] < 1e-3" estimate $OO --strategy zero2 --framework deepspeed@0.7.3
json_check "d['results'][0]['step_time_seconds']['offload'] < 1e-3" estimate $OO --strategy zero2 --framework deepspeed@0.5.5
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (2 * $OP) - 1) < 0.01" estimate $OO --strategy zero2
# A release picks the version whose code it runs (fw_deepspeed.c first..last): 0.12.6 copies
# ZeRO-2's parameters pageable (v0.9.0's PR #3097 turned CPU Adam's fused copy off, v0.14.1's
# #5301 pinned it), 0.15.4 the pinned fp32 partition, 0.19 a pinned 16-bit buffer (#7309, v0.17.0).
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (6 * 4 * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero2 --framework deepspeed@0.12.6
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (4 * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero2 --framework deepspeed@0.15.4
json_check "abs(d['results'][0]['step_time_seconds']['offload'] / (2 * $OP) - 1) < 0.01" \
    estimate $OO --strategy zero2 --framework deepspeed@0.19
# Releases no descriptor stands for are refused with the ones that exist.
expect 2 'no DeepSpeed version covers "0.2" (deepspeed@RELEASE: 0.3.0-0.3.14, 0.3.15-0.5.4, 0.5.5-0.5.10, 0.6.0-0.6.1, 0.6.2-0.8.x, 0.9.0-0.9.1' -- \
    estimate --model llama-2-7b --framework deepspeed@0.2
expect 2 'no DeepSpeed version covers "0.20"' -- estimate --model llama-2-7b --framework deepspeed@0.20
expect 2 'no DeepSpeed version covers "0..3"' -- estimate --model llama-2-7b --framework deepspeed@0..3
expect 2 'FSDP has no versions to choose' -- estimate --model llama-2-7b --framework fsdp@2.4
# DeepSpeed sends the offloaded gradients in fp32 (async_inplace_copy_grad_to_fp32_buffer_from_gpu:
# grad.float() into the CPU fp32 partition): ZeRO-2 at GA 4 moves 4 x 4 B a parameter down and,
# at v0.16, 4 B back (fp32), at v0.3 and by default 2 B back; the generic framework 4 x 2 + 2.
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 20 * 6738415616 // 8" \
    estimate $OO --strategy zero2 --framework deepspeed@0.16
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 18 * 6738415616 // 8" \
    estimate $OO --strategy zero2 --framework deepspeed
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 18 * 6738415616 // 8" \
    estimate $OO --strategy zero2 --framework deepspeed@0.3
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 10 * 6738415616 // 8" \
    estimate $OO --strategy zero2
# --explain names the paths: pageable ZeRO-3 copies, v0.3's fused ZeRO-1/2 copy, fp32 gradients.
"$Z" estimate --model llama-2-7b --gpus 8 --offload-optimizer cpu --strategy zero3 --framework deepspeed@0.3 --explain \
    >"$out" 2>"$err"
grep -q "sharded parameters (ZeRO-3): a pageable copy converted on the CPU" "$out" &&
    grep -q "whole parameters (ZeRO-1/2): written by CPU Adam tile by tile" "$out" &&
    grep -q "as they are reduced, in fp32" "$out" && ok || bad "--explain lacks the offload copy paths: $(grep -A3 'Optimizer offload' "$out")"
# The header and the JSON name the version a run is costed as and the releases it stands for.
"$Z" estimate --model llama-2-7b --gpus 8 --framework deepspeed@0.7.3 >"$out" 2>"$err"
grep -q "^framework  DeepSpeed 0.8.3 (for 0.6.2-0.8.x)" "$out" && ok || bad "estimate header lacks the version: $(grep '^framework' "$out")"
json_check "d['training']['framework'] == 'deepspeed' and d['training']['framework_version'] == '0.19.5' and d['training']['framework_releases'] == '0.17.6-0.19.x'" \
    estimate --model llama-2-7b --gpus 8 --framework deepspeed --format json
json_check "'framework_version' not in d['training']" estimate --model llama-2-7b --gpus 8 --framework fsdp --format json
# --explain says what the version's code does around each ZeRO-3 fetch: v0.3.13 synchronous,
# a gather a parameter, 13.6 us + 6.8 us a rank; the current one prefetched, a gather a module,
# 3.4 us a rank + 6.8 us a rank a parameter (fw_deepspeed.c).
"$Z" estimate --model llama-2-7b --gpus 64 --strategy zero3 --framework deepspeed@0.3 --explain >"$out" 2>"$err"
grep -q "ZeRO-3 fetch (DeepSpeed 0.3.13): synchronous (no gather hides), one all-gather a parameter" "$out" &&
    grep -q "host work a call 13.6 us + 6.8 us a rank" "$out" && ok || bad "--explain lacks v0.3's fetch: $(grep -A3 'ZeRO-3 fetch' "$out")"
"$Z" estimate --model llama-2-7b --gpus 64 --strategy zero3 --framework deepspeed --explain >"$out" 2>"$err"
grep -q "ZeRO-3 fetch (DeepSpeed 0.19.5): prefetched, one all-gather a module" "$out" &&
    grep -q "3.4 us a rank + 6.8 us a rank a parameter, and 2 HBM" "$out" && ok || bad "--explain lacks the fetch: $(grep -A3 'ZeRO-3 fetch' "$out")"
# With the parameters on the host too (ZeRO-Infinity's offload_param, FSDP's CPUOffload) the
# CPU step updates them there and the next forward's fetch brings them: no copy after the step.
# Per rank, 6,738,415,616 / 8 parameters: FSDP sends the gradient shard down after casting it
# to the flat parameter's fp32 and fetches the fp32 shard for forward and backward, casting it
# on the GPU (4 + 4 + 4 B: pytorch/pytorch@3ade90a6 _runtime_utils.py _accumulate_sharded_grad,
# @fe03cf69 _flat_param.py _use_low_precision_shard); DeepSpeed's ZeRO-3 gradients go to the
# host buffer and back in 16 bits, then down once in fp32 (2 + 2 + 4), and the shard comes for
# forward and backward (+ 2 + 2).
OB="--model llama-2-7b --hardware a100-80gb --gpus 8 --strategy zero3 --offload-optimizer cpu --offload-params cpu"
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 12 * 6738415616 // 8 and not [c for c in d['results'][0]['collectives'] if c['what'] == 'offload: parameters from host']" \
    estimate $OB --framework fsdp --checkpointing full --format json
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 12 * 6738415616 // 8" \
    estimate $OB --framework deepspeed --format json
json_check "d['results'][0]['communication_bytes_per_gpu']['host_link'] == 8 * 6738415616 // 8" \
    estimate $OB --framework deepspeed@0.5 --format json
# A JSON string that does not fit its field is refused, not cut (a cut model_type or device
# would name another); prose (a model's name) is clipped.
LJ=$(mktemp)
printf '{"model_type": "llama_with_an_extremely_long_model_type_name_that_goes_on_and_on_forever", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000}' >"$LJ"
expect 3 'field "model_type": 72 characters, at most 63' -- estimate --model "$LJ"
printf '{"model_type": "llama", "name": "%0300d", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000}' 7 >"$LJ"
expect 0 "" -- estimate --model "$LJ" --gpus 8
rm -f "$LJ"
# Beside a CPU step shorter than the copy (a host with 100x the memory bandwidth), v0.3's fused
# copy shows only its excess: the 16-bit copy's time less the step's.
HW100=$(mktemp)
sed 's/"host_memory_bandwidth_bytes_per_second": 409600000000.0/"host_memory_bandwidth_bytes_per_second": 4.096e13/' \
    hardware/a100-80gb.json >"$HW100"
json_check "abs(d['results'][0]['step_time_seconds']['offload'] - (2 * $OP - d['results'][0]['step_time_seconds']['optimizer'])) < 1e-3 and d['results'][0]['step_time_seconds']['optimizer'] < 2 * $OP / 2" \
    estimate $OO --hardware "$HW100" --strategy zero2 --framework deepspeed@0.3
rm -f "$HW100"

# No GEMM runs faster than the peak: the framework factor times the profile's matmul fraction
# is at most 1 (A100: 0.65, so --gemm-efficiency up to 1/0.65 = 1.538). It was accepted up to 2,
# and an MFU/HFU above 1 came out (fuzz_flags: HFU 1.11 with full recompute).
expect 2 "expected at most 1.538 on this hardware" -- estimate $M --gemm-efficiency 1.6
json_check "all(r['mfu'] <= 1 and r['hfu'] <= 1 for r in d['results'] if r['applicable'])" \
    estimate $M --gpus 8 --gemm-efficiency 1.5 --checkpointing full --micro-batch 8 --format json
NOFRAC=$W/nofrac.json
python3 -c "
import json, sys
d = json.load(open('hardware/a100-80gb.json'))
del d['efficiency']['matmul_max_fraction']
json.dump(d, open(sys.argv[1], 'w'))" "$NOFRAC"
# A profile without the field runs GEMMs at the peak (1): Megatron's factor 1.101 would pass it.
expect 3 "megatron's gemm_efficiency 1.101 x efficiency.matmul_max_fraction 1 = 1.101 of the peak" -- \
    estimate $M --hardware "$NOFRAC" --framework megatron
expect 1 "" -- estimate $M --hardware "$NOFRAC" --framework generic

# A persistence threshold above every tensor keeps all of ZeRO-3's parameters whole: exactly
# DDP's bytes (2 a parameter over TP 2), never more. With EP the whole-model count of small
# tensors took in every expert and ZeRO-3 held more than ZeRO-2 (fuzz_flags); an expert weight
# under the threshold beside EP is refused.
json_check "abs(d['results'][3]['memory_bytes']['parameters'] - d['results'][0]['memory_bytes']['parameters']) < 1 and abs(d['results'][0]['memory_bytes']['parameters'] - 6738415616) < 1" \
    estimate $M --tp 2 --gpus 8 --persistence-threshold 1e9 --format json
# (Jamba-Mini's expert: hidden 4096 x intermediate 14336 = 58,720,256 elements.)
json_check "not d['results'][3]['applicable'] and '5.872e+07-element expert weight whole beside EP' in d['results'][3]['reason'] and d['results'][2]['applicable']" \
    estimate --model jamba-mini-1.5 --ep 2 --gpus 8 --persistence-threshold 1e9 --format json

# Parameter offload keeps only the persistent tensors on the GPU: none under a threshold of 6
# elements. It came out at -2.4e-7 bytes (a difference of nearly equal sums; fuzz_flags).
json_check "0 <= d['results'][0]['memory_bytes']['parameters'] < 1" \
    estimate --model deepseek-v2-lite --finetune qlora --qlora-stack litgpt --framework deepspeed@0.6.2 --gpus 6 \
    --persistence-threshold 6 --offload-params nvme --strategy zero3 --format json

# Interleaving needs a pipeline: --virtual-stages without --pp is refused. A stage's 16 layers
# in 6 chunks (3, 3, 3, 3, 2, 2): --recompute-method block with N at least every chunk's layers
# checkpoints every block, as the default full recompute does. It stored 6 x 3 = 18 block
# inputs and -2 blocks whole (negative activations; fuzz_flags).
expect 2 "needs --pp 2 or more" -- estimate $M --gpus 1 --virtual-stages 6 --checkpointing full
VS="estimate $M --gpus 16 --pp 2 --virtual-stages 6 --checkpointing full --strategy zero1 --format json"
"$Z" $VS >"$out" 2>/dev/null; base=$(snap "$out")
"$Z" $VS --recompute-method block --recompute-layers 32 >"$out" 2>/dev/null; blk=$(snap "$out")
py_check "block recompute over uneven chunks" "import json; a, b = (json.load(open(f))['results'][0]['memory_bytes']['activations'] for f in ('$base', '$blk')); assert a > 0 and abs(a - b) < 1, (a, b)"

# FSDP's unit under EP: a block's dense part and the rank's E / EP experts. A one-layer stage
# (DeepSeek-V2-Lite's 27 layers on PP 16) took E / TP experts off a unit already bounded by the
# stage's E / EP: -0.28 GB of buffers (fuzz_flags). Each stage holds a block, so the unit is
# positive and no larger than PP 2's by more than the per-stage averaging of MoE blocks.
DSL="estimate --model deepseek-v2-lite --framework fsdp2 --ep 8 --gpus 128 --strategy zero3 --format json"
"$Z" $DSL --pp 2 >"$out" 2>/dev/null; pp2=$(snap "$out")
"$Z" $DSL --pp 16 >"$out" 2>/dev/null; pp16=$(snap "$out")
py_check "FSDP2 EP unit on a one-layer stage" "import json; a, b = (json.load(open(f))['results'][0]['memory_bytes'] for f in ('$pp2', '$pp16')); assert 0.5 * a['communication_buffers'] < b['communication_buffers'] < 2 * a['communication_buffers'] and b['zero3_gathered_parameters'] > 0, (a, b)"

finish
