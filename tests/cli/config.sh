#!/bin/sh
# config.sh -- --config FILE: Axolotl, LLaMA-Factory, accelerate and TRL YAML, Megatron-LM launch
# scripts and torchtitan job configs (tests/data/launch, each a file the project ships) read field by field into the training block, every key
# reported, flags winning over the file, contradictions refused. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
L=tests/data/launch
T="t = d['training']; r = [x['strategy'] for x in d['results']]"

# json_training FILE CHECK [FLAGS...]: estimate with the config, CHECK over t (training) and r.
jt() {
    f=$1 c=$2
    shift 2
    json_check "exec(\"$T\") or ($c)" estimate --config "$L/$f" --format json "$@"
}
jt axolotl_llama3_qlora.yml "t['micro_batch'] == 2 and t['grad_accum'] == 4 and t['seq_len'] == 4096 and \
t['precision'] == 'bf16' and t['optimizer'] == 'paged-adamw' and t['checkpointing'] == 'full' and \
t['finetune'] == 'qlora' and t['lora_rank'] == 32 and t['lora_targets'] == 'all' and \
t['framework'] == 'generic' and t['flash_attention'] and t['gpus'] == 1 and t['offload_optimizer'] == 'none' \
and d['model']['name'] == 'llama-3-8b'"
jt axolotl_llama3_fft_zero3.yml "t['micro_batch'] == 1 and t['grad_accum'] == 8 and t['seq_len'] == 8192 and \
t['precision'] == 'bf16' and t['optimizer'] == 'paged-adam8bit' and t['checkpointing'] == 'full' and \
t['finetune'] == 'full' and t['framework'] == 'deepspeed' and r == ['zero3']"
jt llamafactory_llama3_lora_sft.yaml "t['micro_batch'] == 1 and t['grad_accum'] == 8 and t['seq_len'] == 2048 \
and t['precision'] == 'bf16' and t['optimizer'] == 'adamw' and t['checkpointing'] == 'full' and \
t['finetune'] == 'lora' and t['lora_rank'] == 8 and t['lora_targets'] == 'all' and t['framework'] == 'generic'"
jt llamafactory_llama3_full_sft.yaml "t['micro_batch'] == 1 and t['grad_accum'] == 2 and \
t['finetune'] == 'full' and t['framework'] == 'deepspeed' and r == ['zero3'] and t['checkpointing'] == 'full'"
jt axolotl_llama3_lora_8bit.yml "t['micro_batch'] == 2 and t['grad_accum'] == 4 and t['seq_len'] == 4096 and \
t['precision'] == 'bf16' and t['optimizer'] == 'adam8bit' and t['checkpointing'] == 'full' and \
t['finetune'] == 'lora' and t['lora_rank'] == 32 and t['lora_targets'] == 'all' and t['framework'] == 'generic'"
grep -q "load_in_8bit (an 8-bit frozen base is not modelled" "$W/q/$jn.err" && ok || bad "8-bit base not said"
jt llamafactory_qwen3_qlora_otfq.yaml "t['micro_batch'] == 1 and t['grad_accum'] == 8 and t['seq_len'] == 2048 \
and t['precision'] == 'bf16' and t['checkpointing'] == 'full' and t['finetune'] == 'qlora' and \
t['lora_rank'] == 8 and t['lora_targets'] == 'all' and d['model']['name'] == 'qwen3-8b'"
jt llamafactory_qwen3_lora_ds3.yaml "t['micro_batch'] == 1 and t['grad_accum'] == 2 and t['finetune'] == 'lora' \
and t['lora_rank'] == 8 and t['framework'] == 'deepspeed' and r == ['zero3'] and t['gpus'] == 8" --gpus 8
M8="--model llama-3-8b"
jt accelerate_fsdp.yaml "t['gpus'] == 2 and t['dp'] == 2 and t['precision'] == 'bf16' and \
t['framework'] == 'fsdp' and r == ['zero3'] and t['checkpointing'] == 'none' and \
t['offload_optimizer'] == 'none' and t['offload_params'] == 'none'" $M8
jt accelerate_deepspeed_zero2.yaml "t['gpus'] == 8 and t['gpus_per_node'] == 8 and t['precision'] == 'bf16' \
and t['grad_accum'] == 1 and t['offload_optimizer'] == 'none' and t['offload_params'] == 'none' and \
t['framework'] == 'deepspeed' and r == ['zero2']" $M8
jt accelerate_deepspeed_file.yaml "t['gpus'] == 2 and t['precision'] == 'fp32' and \
t['framework'] == 'deepspeed' and r == ['zero3']" $M8

# Flags win over the file, and the report says which key each overrode.
jt axolotl_llama3_qlora.yml "t['micro_batch'] == 4 and t['lora_rank'] == 64 and t['finetune'] == 'lora' \
and r == ['zero2']" --micro-batch 4 --lora-rank 64 --finetune lora --strategy zero2
grep -q "overridden: .*micro_batch_size: --micro-batch wins" "$W/q/$jn.err" && ok || bad "no override note"
grep -q "lora_r: --lora-rank wins" "$W/q/$jn.err" && ok || bad "no lora_r override note"
py_check "JSON training.config names the format and the override" "
import json
c = json.load(open('$(snap "$W/q/$jn.out")'))['training']['config']
assert c['format'] == 'axolotl' and 'micro_batch_size: --micro-batch wins' in c['overridden'], c
assert 'lora_r 32' in c['used'] and 'wandb_project' in c['defaulted'] and 'datasets' in c['ignored'], c"
jt accelerate_fsdp.yaml "t['gpus'] == 4 and t['framework'] == 'fsdp2'" --gpus 4 --framework fsdp2 $M8
grep -q "num_processes: --gpus wins" "$W/q/$jn.err" && ok || bad "no num_processes override note"

# Every top-level key of every file is named in the report, and the format recognised.
for f in "$L"/[!t]*.y*ml "$L"/trl_*.yaml; do
    extra=""
    case $f in
    *accelerate* | *hsdp_tp*) extra=$M8 ;;
    *_ep_fsdp*) extra="--model qwen3-30b-a3b" ;;
    *llamafactory_megatron*) extra="--model qwen3-30b-a3b --gpus 8" ;;
    *functional_gpt3*) extra="--gpus 8" ;;
    esac
    "$Z" estimate --config "$f" $extra --format json >"$out" 2>"$err"
    grep -q "config $f: recognised as" "$err" && ok || bad "$f: no 'recognised as' line"
    missing=""
    for k in $(sed -n 's/^\([A-Za-z_0-9]*\):.*/\1/p' "$f"); do
        # (MODEL_ARGS: a Megatron test's arguments, each reported by its own name)
        [ "$k" = MODEL_ARGS ] || grep -q "$k" "$err" || missing="$missing $k"
    done
    [ -z "$missing" ] && ok || bad "$f: keys not reported:$missing"
done
grep -q "recognised as accelerate" "$err" || true

# fp16 and bf16 both true: refused, naming the file and both keys.
cat >"$W/both.yml" <<'YML'
base_model: llama-3-8b
bf16: true
fp16: true
YML
expect 3 "both.yml: bf16 and fp16 are both true" -- estimate --config "$W/both.yml"
printf 'model_name_or_path: x\nfinetuning_type: full\nquantization_bit: 4\n' >"$W/qfull.yaml"
expect 3 "quantization_bit 4 with finetuning_type full" -- estimate --config "$W/qfull.yaml"
printf 'foo: 1\n' >"$W/none.yml"
expect 3 "not a launcher config" -- estimate --config "$W/none.yml"
printf 'base_model: [\n' >"$W/broken.yml"
expect 3 "broken.yml:" -- estimate --config "$W/broken.yml"
expect 0 "recognised as llama-factory" -- compare --config "$L/llamafactory_llama3_lora_sft.yaml" --gpus 8
expect 0 "recognised as axolotl" -- plan --config "$L/axolotl_llama3_qlora.yml" --max-gpus 8
expect 0 "recognised as accelerate" -- sweep --config "$L/accelerate_fsdp.yaml" $M8 --micro-batch 1,2
# accelerate: HYBRID_SHARD over two machines shards within a node; FSDP2; offload together.
cat >"$W/hybrid.yaml" <<'YML'
distributed_type: FSDP
mixed_precision: bf16
num_machines: 2
num_processes: 16
fsdp_config:
  fsdp_sharding_strategy: HYBRID_SHARD
  fsdp_offload_params: true
  fsdp_activation_checkpointing: true
  fsdp_version: 2
YML
json_check "exec(\"$T\") or (t['gpus'] == 16 and t['gpus_per_node'] == 8 and t['shard_group'] == 8 and \
t['framework'] == 'fsdp2' and r == ['zero3'] and t['offload_optimizer'] == 'cpu' and \
t['offload_params'] == 'cpu' and t['checkpointing'] == 'full')" estimate --config "$W/hybrid.yaml" $M8 --format json
# A ds_config file that enables bf16 itself decides when mixed_precision is absent ("auto" does not).
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 2}}\n' >"$W/ds_bf16.json"
printf 'distributed_type: DEEPSPEED\nnum_processes: 4\ndeepspeed_config:\n  deepspeed_config_file: ds_bf16.json\n' \
    >"$W/ds_file.yaml"
json_check "exec(\"$T\") or (t['precision'] == 'bf16' and r == ['zero2'] and t['gpus'] == 4)" \
    estimate --config "$W/ds_file.yaml" $M8 --format json
# MULTI_GPU is plain data parallelism.
printf 'distributed_type: MULTI_GPU\nnum_processes: 8\nmixed_precision: fp16\n' >"$W/ddp.yaml"
json_check "exec(\"$T\") or (r == ['ddp'] and t['precision'] == 'fp16' and t['gpus'] == 8)" \
    estimate --config "$W/ddp.yaml" --params 1e9 --format json
# A ds_config with an optimizer section runs DeepSpeed's optimizer, not the Trainer's optim.
printf '{"optimizer": {"type": "SGD", "params": {"lr": 0.1}}, "zero_optimization": {"stage": 1}}\n' >"$W/dsopt.json"
printf 'base_model: llama-3-8b\noptimizer: adamw_torch\ndeepspeed: dsopt.json\n' >"$W/ax_dsopt.yml"
json_check "exec(\"$T\") or (t['optimizer'] == 'sgd' and r == ['zero1'] and t['framework'] == 'deepspeed')" \
    estimate --config "$W/ax_dsopt.yml" --format json
grep -q "optimizer: the ds_config's optimizer.type wins" "$W/q/$jn.err" && ok || bad "no ds optimizer note"
# Where full recompute's checkpoint sits against the FSDP unit: Hugging Face's gradient_checkpointing
# wraps each layer's call, unit included (the recompute gathers again: transformers#30404's "redundant
# AllGather"); the FSDP plugin's activation_checkpointing wraps the blocks inside their units; Trainer
# refuses both at once (transformers training_args / trainer.py).
FS='fsdp_config:\n  fsdp_version: 1\n  fsdp_sharding_strategy: FULL_SHARD\n'
# An fsdp_config written as a list has no keys to read: one line naming the key (the fuzzer's find).
printf 'base_model: llama-3-8b\nfsdp_config:\n  - offload_params: false\n    state_dict_type: FULL_STATE_DICT\n' \
    >"$W/fsdp_list.yml"
expect 3 'fsdp_config: expected a mapping of FSDP keys' -- estimate --config "$W/fsdp_list.yml"
printf 'distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n  - zero_stage: 3\n' >"$W/acc_list.yaml"
expect 3 "deepspeed_config: expected a mapping of accelerate's DeepSpeed keys" -- \
    estimate $M8 --config "$W/acc_list.yaml"
printf 'distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 2.5\n' >"$W/acc_z25.yaml"
expect 3 "deepspeed_config.zero_stage: expected 0, 1, 2 or 3" -- estimate $M8 --config "$W/acc_z25.yaml"
# A launch script whose array appends itself doubles it each time: refused at 1 MiB, not run out of memory.
{ printf '#!/bin/bash\nA=(--num-layers 2)\n'; for k in $(seq 1 24); do printf 'A+=(${A[@]})\n'; done
  printf 'torchrun pretrain_gpt.py ${A[@]}\n'; } >"$W/self_append.sh"
expect 3 "an expansion grows past 1 MiB" -- estimate --config "$W/self_append.sh"
printf "base_model: llama-3-8b\ngradient_checkpointing: true\n$FS" >"$W/ck_hf.yml"
printf "base_model: llama-3-8b\ngradient_checkpointing: false\n$FS  fsdp_activation_checkpointing: true\n" \
    >"$W/ck_plugin.yml"
printf "base_model: llama-3-8b\ngradient_checkpointing: true\n$FS  fsdp_activation_checkpointing: true\n" \
    >"$W/ck_both.yml"
json_check "exec(\"$T\") or (t['checkpointing'] == 'full' and t['checkpoint_placement'] == 'outside' and \
t['framework'] == 'fsdp')" estimate --config "$W/ck_hf.yml" --gpus 8 --format json
grep -q "gradient_checkpointing true -> --checkpointing full --checkpoint-placement outside" "$W/q/$jn.err" && ok ||
    bad "gradient_checkpointing's placement not reported"
json_check "exec(\"$T\") or (t['checkpointing'] == 'full' and t['checkpoint_placement'] == 'inside')" \
    estimate --config "$W/ck_plugin.yml" --gpus 8 --format json
expect 3 "cannot both be set (Hugging Face Trainer refuses the pair)" -- estimate --config "$W/ck_both.yml" --gpus 8
# The gradients' wire dtype apart from their storage: DeepSpeed's communication_data_type fp32
# (deepspeed/runtime/config.py get_communication_data_type) reduce-scatters 4 bytes a gradient,
# twice bf16's; --reduce-dtype says the same on the command line and wins over the file.
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 3}}\n' >"$W/cdt16.json"
printf '{"bf16": {"enabled": true}, "communication_data_type": "fp32", "zero_optimization": {"stage": 3}}\n' \
    >"$W/cdt32.json"
printf '{"bf16": {"enabled": true}, "communication_data_type": "int8"}\n' >"$W/cdtbad.json"
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/cdt16.json" --format json >"$W/cdt16.out" 2>/dev/null
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/cdt32.json" --format json >"$W/cdt32.out" 2>/dev/null
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/cdt32.json" --reduce-dtype 16-bit --format json >"$W/cdtflag.out" 2>/dev/null
py_check "communication_data_type fp32 doubles the reduce-scatter; --reduce-dtype wins" "
import json
def rs(f):
    c = json.load(open(f))['results'][0]['collectives']
    return [x['size_bytes'] for x in c if x['what'] == 'gradient reduce-scatter'][0]
a, b, c = rs('$(snap "$W/cdt16.out")'), rs('$(snap "$W/cdt32.out")'), rs('$(snap "$W/cdtflag.out")')
assert b == 2 * a and c == a, (a, b, c)"
# data_types.grad_accum_dtype (DeepSpeed's DtypeEnum names): fp32 under bf16 at stage 1 without
# offload is BF16_Optimizer (engine.py _do_optimizer_sanity_check): gradients all-reduced in bf16
# at the step, fp32 + bf16 gradients whole (6 bytes a parameter of Llama-3-8B, 8,030,261,248);
# at stage 3 the partitions stay in fp32 (4 bytes / 8 ranks) and the reduce-scatter in bf16;
# without ZeRO DeepSpeed raises "unsupported mix"; other names are refused.
for st in 1 3 0; do
    printf '{"bf16": {"enabled": true}, "data_types": {"grad_accum_dtype": "fp32"}, "zero_optimization": {"stage": %s}}\n' \
        "$st" >"$W/gad$st.json"
done
printf '{"bf16": {"enabled": true}, "data_types": {"grad_accum_dtype": "int8"}, "zero_optimization": {"stage": 1}}\n' \
    >"$W/gadbad.json"
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/gad1.json" --format json >"$W/gad1.out" 2>/dev/null
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/gad1.json" >"$W/gad1.err" 2>&1
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/gad3.json" --format json >"$W/gad3.out" 2>/dev/null
py_check "data_types.grad_accum_dtype fp32: BF16_Optimizer at stage 1, fp32 partitions at stage 3" "
import json
a = json.load(open('$(snap "$W/gad1.out")'))['results'][0]
b = json.load(open('$(snap "$W/gad3.out")'))['results'][0]
P = 8030261248
ar = [x for x in a['collectives'] if x['what'] == 'gradient all-reduce (BF16_Optimizer)']
assert ar and sum(x['size_bytes'] * x['calls_per_step'] for x in ar) == 2 * P, ar
assert a['memory_bytes']['gradients'] == 6 * P, a['memory_bytes']['gradients']
assert b['memory_bytes']['gradients'] == 4 * P / 8, b['memory_bytes']['gradients']
rs = [x for x in b['collectives'] if x['what'] == 'gradient reduce-scatter']
assert sum(x['size_bytes'] * x['calls_per_step'] for x in rs) == 2 * P, rs"
grep -q "BF16_Optimizer (--bf16-optimizer)" "$W/gad1.err" && ok || bad "the reader does not say BF16_Optimizer: $(cat "$W/gad1.err")"
expect 3 'raises "unsupported mix" (#7790' -- estimate $M8 --gpus 8 --deepspeed "$W/gad0.json"
# bf16 without ZeRO by release (fw_deepspeed.c DEEPSPEED_BF16_OPTIMIZER, read from the tags'
# engine.py): 0.6.2-0.17.5 run BF16_Optimizer (ZeRO-1's states sharded, fp32 + bf16 gradients
# whole: 6 bytes a parameter, one 2P all-reduce), with or without grad_accum_dtype fp32; 0.5.5-0.6.1
# the module in bf16 with the optimizer over it (Adam's two moments in bf16: 4 bytes a
# parameter); 0.17.6+ DDP, but BF16_Optimizer accumulating in bf16 in the pipeline engine (2 + 2
# bytes of gradients a parameter of the stage); bf16 accumulation raises in 0.7.6-0.17.5.
printf '{"bf16": {"enabled": true}, "zero_optimization": {"stage": 0}}\n' >"$W/st0.json"
printf '{"bf16": {"enabled": true}, "data_types": {"grad_accum_dtype": "bf16"}, "zero_optimization": {"stage": 0}}\n' \
    >"$W/st0b.json"
for v in 0.12.6 0.5.10 0.19.5; do
    "$Z" estimate $M8 --gpus 8 --deepspeed "$W/st0.json" --framework deepspeed@$v --format json >"$W/st0_$v.out" 2>/dev/null
done
"$Z" estimate $M8 --gpus 8 --deepspeed "$W/gad0.json" --framework deepspeed@0.7.7 --format json >"$W/st0_f.out" 2>/dev/null
"$Z" estimate $M8 --gpus 8 --pp 2 --deepspeed "$W/st0.json" --format json >"$W/st0_pp.out" 2>/dev/null
py_check "ds_config bf16 at stage 0: BF16_Optimizer, bf16 alone or DDP by release" "
import json
P = 8030261248
def load(f):
    d = json.load(open(f))
    return d['training'], d['results'][0]
for f in ('$(snap "$W/st0_0.12.6.out")', '$(snap "$W/st0_f.out")'):
    t, r = load(f)
    assert r['strategy'] == 'zero1' and t['bf16_optimizer'] and 'BF16_Optimizer' in t['deepspeed_notes'], (t, r['strategy'])
    assert r['memory_bytes']['gradients'] == 6 * P, r['memory_bytes']['gradients']
    ar = [x for x in r['collectives'] if x['what'] == 'gradient all-reduce (BF16_Optimizer)']
    assert sum(x['size_bytes'] * x['calls_per_step'] for x in ar) == 2 * P, ar
t, r = load('$(snap "$W/st0_0.5.10.out")')
assert r['strategy'] == 'ddp' and t['precision'] == 'bf16-pure' and not t['bf16_optimizer'], t
assert r['memory_bytes']['optimizer_states'] == 4 * P, r['memory_bytes']['optimizer_states']
t, r = load('$(snap "$W/st0_0.19.5.out")')
assert r['strategy'] == 'ddp' and t['precision'] == 'bf16' and not t['bf16_optimizer'], t
t, r = load('$(snap "$W/st0_pp.out")')
assert r['strategy'] == 'zero1' and t['bf16_optimizer'], t
g, p = r['memory_bytes']['gradients'], r['memory_bytes']['parameters']
assert g == 2 * p, (g, p)"
expect 3 "Bfloat16 wrapper must use a gradient accumulation type of fp32" -- \
    estimate $M8 --gpus 8 --deepspeed "$W/st0b.json" --framework deepspeed@0.12.6
expect 2 "DeepSpeed 0.9.2-0.14.0 runs bf16 without ZeRO as BF16_Optimizer" -- \
    estimate $M8 --gpus 8 --strategy ddp --framework deepspeed@0.12.6
# DeepSpeed before v0.5.5 has no bf16: fp16 when nothing asked for bf16, refused when a flag does.
json_check "d['training']['precision'] == 'fp16'" estimate $M8 --gpus 8 --framework deepspeed@0.3 --format json
expect 2 "no bf16 mode" -- estimate $M8 --gpus 8 --framework deepspeed@0.3 --precision bf16
expect 3 "data_types.grad_accum_dtype" -- estimate $M8 --gpus 8 --deepspeed "$W/gadbad.json"
expect 2 "BF16_Optimizer is DeepSpeed's own ZeRO stage 1" -- estimate $M8 --gpus 8 --framework deepspeed --bf16-optimizer --strategy zero2
expect 2 "--bf16-optimizer is DeepSpeed's BF16_Optimizer" -- estimate $M8 --gpus 8 --framework fsdp --bf16-optimizer
expect 3 'field "communication_data_type": expected "fp32", "fp16" or "bf16"' -- estimate $M8 --deepspeed "$W/cdtbad.json"
# The plugin's key off does not undo the model's own checkpointing.
printf "base_model: llama-3-8b\ngradient_checkpointing: true\n$FS  fsdp_activation_checkpointing: false\n" \
    >"$W/ck_off.yml"
json_check "exec(\"$T\") or (t['checkpointing'] == 'full' and t['checkpoint_placement'] == 'outside')" \
    estimate --config "$W/ck_off.yml" --gpus 8 --format json
grep -q "fsdp_activation_checkpointing false (gradient_checkpointing checkpoints)" "$W/q/$jn.err" && ok ||
    bad "the plugin's false not reported beside the model's checkpointing"
# LLaMA-Factory checkpoints the model's way by default.
json_check "exec(\"$T\") or (t['checkpointing'] == 'full' and t['checkpoint_placement'] == 'outside')" \
    estimate --config "$L/llamafactory_llama3_full_sft.yaml" --gpus 8 --format json
# The placement's cost: around the unit the backward gathers each block twice (the recompute's and
# the backward's), inside once, as many calls as the forward's; FSDP's default is inside
# (Composer, accelerate's plugin), DeepSpeed's module hooks fetch again wherever the checkpoint is.
CP="$M8 --gpus 8 --strategy zero3 --checkpointing full --format json"
"$Z" estimate $CP --framework fsdp >"$W/cp_def.json" 2>/dev/null
"$Z" estimate $CP --framework fsdp --checkpoint-placement outside >"$W/cp_out.json" 2>/dev/null
py_check "outside the unit the recompute gathers again" "
import json
def gathers(f):
    c = json.load(open(f))['results'][0]['collectives']
    return {x['what']: x['calls_per_step'] for x in c if x['collective'] == 'all_gather'}
a, b = gathers('$(snap "$W/cp_def.json")'), gathers('$(snap "$W/cp_out.json")')
assert a['parameter all-gather (backward)'] == a['parameter all-gather (forward)'], a
assert b['parameter all-gather (recompute + backward)'] == 2 * b['parameter all-gather (forward)'], b"
expect 2 "ZeRO-3 fetches parameters in each submodule's forward pre-hook" -- \
    estimate $M8 --gpus 8 --checkpointing full --framework deepspeed --checkpoint-placement inside
expect 2 "it needs --checkpointing full (got none)" -- estimate $M8 --gpus 8 --checkpoint-placement outside
# plan searches the recomputation unless --checkpointing fixes it: the placement applies to the
# full-recompute configurations it tries, so such a row costs what estimate gives the same
# configuration outside the unit (more than inside: one more gather a block).
"$Z" plan $M8 --max-gpus 8 --framework fsdp --strategy zero3 --checkpoint-placement outside --top 100 --format json \
    >"$W/cp_plan.json" 2>/dev/null
py_check "plan applies --checkpoint-placement to its full-recompute rows" "
import json, subprocess
r = [x for x in json.load(open('$(snap "$W/cp_plan.json")'))['ranked'] if x['checkpointing'] == 'full'][0]
def step(*extra):
    a = ['$Z', 'estimate'] + '$M8'.split() + ['--gpus', str(r['gpus']), '--framework', 'fsdp', '--strategy', 'zero3',
        '--micro-batch', str(r['micro_batch']), '--grad-accum', str(r['grad_accum']), '--checkpointing', 'full',
        '--offload-optimizer', r['offload_optimizer'], '--offload-params', r['offload_params'], '--format', 'json'
        ] + list(extra)
    return json.loads(subprocess.run(a, capture_output=True, text=True).stdout)['results'][0]['step_time_seconds']['total']
out = step('--checkpoint-placement', 'outside')
assert abs(r['step_time_seconds']['total'] / out - 1) < 1e-9, (r['step_time_seconds']['total'], out)
assert out > step(), out"
expect 2 "it needs --checkpointing full (got selective)" -- \
    plan $M8 --max-gpus 8 --checkpointing selective --checkpoint-placement outside
. "$(dirname "$0")/config_formats.sh"
finish
