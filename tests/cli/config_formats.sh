# config_formats.sh -- sourced by config.sh: HF TrainingArguments/TRL configs (the alignment
# handbook's recipes, TRL's own), Megatron-LM launch scripts (examples/gpt3, llama, mixtral) and
# torchtitan's job configs (v0.2.2 train_configs as JSON), field by field as each framework would
# run them, every key reported, the frameworks' own refusals; and the knobs they carry.

# TRL: the values are the files' own; the rest TRL's SFTConfig/ModelConfig defaults
# (gradient_checkpointing and bf16 true, max_length 1024, lora_r 16) and TrainingArguments'.
jt trl_zephyr_sft_qlora.yaml "t['micro_batch'] == 4 and t['grad_accum'] == 2 and t['seq_len'] == 2048 and \
t['precision'] == 'bf16' and t['optimizer'] == 'adamw' and t['checkpointing'] == 'full' and \
t['finetune'] == 'qlora' and t['lora_rank'] == 16 and t['lora_targets'] == 'all' and t['gpus'] == 1 and \
t['framework'] == 'generic' and t['offload_optimizer'] == 'none' and d['model']['name'] == 'mistral-7b'"
jt trl_zephyr_sft_full.yaml "t['micro_batch'] == 16 and t['grad_accum'] == 1 and t['seq_len'] == 2048 and \
t['precision'] == 'bf16' and t['checkpointing'] == 'full' and t['finetune'] == 'full' and t['doc_len'] == 0"
jt trl_smollm3_sft.yaml "t['micro_batch'] == 1 and t['grad_accum'] == 2 and t['seq_len'] == 65536 and \
t['precision'] == 'bf16' and t['checkpointing'] == 'full' and t['finetune'] == 'full' and \
d['model']['name'] == 'smollm3-3b'" --gpus 8
grep -q "packing true" "$W/q/$jn.err" && ok || bad "trl packing not reported"
jt trl_mtp_config.yaml "t['micro_batch'] == 4 and t['grad_accum'] == 4 and t['seq_len'] == 1024 and \
t['precision'] == 'bf16' and t['checkpointing'] == 'full' and t['finetune'] == 'full'"
grep -q "max_length 1024 (TRL SFTConfig's default)" "$W/q/$jn.err" && ok || bad "max_length default not said"
# The same TrainingArguments as JSON read the same.
/usr/bin/python3 -c "import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2],'w'))" \
    "$L/trl_zephyr_sft_qlora.yaml" "$W/zephyr.json"
json_check "exec(\"$T\") or (t['micro_batch'] == 4 and t['grad_accum'] == 2 and t['finetune'] == 'qlora' and \
t['lora_rank'] == 16 and t['config']['format'] == 'trl')" estimate --config "$W/zephyr.json" --format json
printf 'model_name_or_path: llama-3-8b\nper_device_train_batch_size: 2\nload_in_4bit: true\n' >"$W/q4.yaml"
expect 3 "load_in_4bit true without use_peft" -- estimate --config "$W/q4.yaml"
printf 'model_name_or_path: llama-3-8b\nper_device_train_batch_size: 2\nfsdp: full_shard auto_wrap offload\n' \
    >"$W/fsdp.yaml"
json_check "exec(\"$T\") or (r == ['zero3'] and t['framework'] == 'fsdp' and t['offload_params'] == 'cpu' and \
t['micro_batch'] == 2)" estimate --config "$W/fsdp.yaml" --gpus 4 --format json

# Megatron-LM: the GPT-3 175B script names 1 node of 8 GPUs with TP 8 x PP 16 = 128: Megatron
# refuses that world size; with --gpus 1024 the accumulation is 1536 / (1 x DP 8) = 192, and the
# model built from the arguments has GPT-3's count with the vocabulary Megatron pads (50257 to a
# multiple of 128 x 8 = 51200): 96 (12 h^2 + 13 h) + (51200 + 2048) h + 2 h, h = 12288.
expect 3 "world size (8) is not divisible by TP x PP x CP (128)" -- estimate --config "$L/megatron_gpt3_175b.sh"
jt megatron_gpt3_175b.sh "t['tp'] == 8 and t['pp'] == 16 and t['dp'] == 8 and t['micro_batch'] == 1 and \
t['grad_accum'] == 192 and t['seq_len'] == 2048 and t['precision'] == 'fp16' and r == ['ddp'] and \
t['framework'] == 'megatron' and t['checkpointing'] == 'none' and t['sequence_parallel'] == False and \
d['model']['parameters'] == 96 * (12 * 12288**2 + 13 * 12288) + (51200 + 2048) * 12288 + 2 * 12288" --gpus 1024
grep -q "nproc_per_node: --gpus wins" "$W/q/$jn.err" && ok || bad "megatron --gpus override not said"
# The same script interleaved (6 layers per stage in chunks of 3: v 2) with Megatron's micro-batch
# group: N = 32 runs (PP 16 <= 32 <= M 192, 192 % 32 = 0); N = 40 leaves 192 % 40 = 32 >= 16 and runs;
# N = 200 > M is Megatron's ValueError.
sed 's|--pipeline-model-parallel-size 16|--pipeline-model-parallel-size 16 --num-layers-per-virtual-pipeline-stage 3 --microbatch-group-size-per-virtual-pipeline-stage 32|' \
    "$L/megatron_gpt3_175b.sh" >"$W/mg_group.sh"
json_check "exec(\"$T\") or (t['virtual_stages'] == 2 and t['microbatch_group'] == 32)" \
    estimate --config "$W/mg_group.sh" --gpus 1024 --format json
sed -i 's|group-size-per-virtual-pipeline-stage 32|group-size-per-virtual-pipeline-stage 200|' "$W/mg_group.sh"
"$Z" estimate --config "$W/mg_group.sh" --gpus 1024 >/dev/null 2>"$W/mg_group.err"
[ $? -eq 2 ] && grep -q -- "--microbatch-group 200 must range in .--pp 16, --grad-accum 192." "$W/mg_group.err" \
    && ok || bad "megatron microbatch group 200 > M not refused (exit 2)"
# Llama-3 8B FP8: the script's variables, its if [[ \$DTYPE == fp8 ]] block and the MOCK branch's
# --vocab-size 128256; Llama-3-8B has 8,030,261,248 parameters (meta-llama/Meta-Llama-3-8B).
jt megatron_llama3_8b_fp8.sh "t['gpus'] == 8 and t['tp'] == 1 and t['cp'] == 1 and t['dp'] == 8 and \
t['micro_batch'] == 1 and t['grad_accum'] == 16 and t['seq_len'] == 8192 and t['precision'] == 'fp8' and \
r == ['zero1'] and t['sequence_parallel'] == False and d['model']['parameters'] == 8030261248" \
    --hardware h100-80gb
# Mixtral 8x7B: PP 4 x EP 8 needs 32 GPUs (SLURM_NNODES=4); 46,702,792,704 parameters
# (mistralai/Mixtral-8x7B-v0.1's safetensors index), top-2 of 8 experts.
jt megatron_mixtral_8x7b.sh "t['gpus'] == 32 and t['pp'] == 4 and t['ep'] == 8 and t['dp'] == 8 and \
t['grad_accum'] == 32 and t['seq_len'] == 4096 and t['precision'] == 'bf16' and r == ['zero1'] and \
d['model']['parameters'] == 46702792704 and d['model']['active_parameters'] == 12879925248" --gpus 32
# The global batch micro-batch x DP cannot make, and recompute as Megatron validates it.
printf '%s\n' '--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 \' \
    '--micro-batch-size 3 --global-batch-size 16 --bf16' >"$W/args.txt"
expect 3 "global-batch-size 16 is not divisible by micro-batch 3 x data-parallel 2" -- \
    estimate --config "$W/args.txt" --gpus 2
printf '%s\n' '--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 --bf16 --fp16' \
    >"$W/both.txt"
expect 3 "--fp16 and --bf16 both given" -- estimate --config "$W/both.txt"
printf '%s\n' '--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024' \
    '--recompute-granularity full' >"$W/rc.txt"
expect 3 "needs --recompute-method uniform|block" -- estimate --config "$W/rc.txt"
printf '%s\n' 'L=8' 'ARGS=( --num-layers $L --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 )' \
    'R=(--recompute-granularity full --recompute-method block --recompute-num-layers 2)' \
    'python pretrain_gpt.py ${ARGS[@]} "${R[@]}" --micro-batch-size 2' >"$W/rc.sh"
jt_abs() { json_check "exec(\"$T\") or ($1)" estimate --config "$2" --format json; }
jt_abs "t['checkpointing'] == 'full' and t['recompute_layers'] == 2 and t['recompute_method'] == 'block' and \
t['micro_batch'] == 2 and d['model']['layers'] == 8" "$W/rc.sh"

# torchtitan (v0.2.2's train_configs as JSON): FSDP2 over what torchrun leaves (shard -1), its
# default op-level selective checkpointing for 8B, full for 70B/405B, the float8 converter.
jt titan_llama3_8b.json "t['micro_batch'] == 1 and t['seq_len'] == 8192 and t['tp'] == 1 and \
t['precision'] == 'bf16' and t['optimizer'] == 'adamw' and t['checkpointing'] == 'selective' and \
t['framework'] == 'fsdp2' and r == ['zero3'] and t['dp'] == 64 and d['model']['name'] == 'llama-3-8b'" --gpus 64
jt titan_llama3_70b.json "t['micro_batch'] == 8 and t['tp'] == 8 and t['dp'] == 8 and \
t['checkpointing'] == 'full' and t['framework'] == 'fsdp2' and r == ['zero3'] and t['grad_accum'] == 1" --gpus 64
jt titan_llama3_405b.json "t['micro_batch'] == 2 and t['tp'] == 8 and t['precision'] == 'fp8' and \
t['checkpointing'] == 'full' and d['model']['name'] == 'llama-3.1-405b'" --gpus 128 --hardware h100-80gb
expect 3 "a TOML file" -- estimate --config "$L/titan_llama3_8b.toml"
# Layer-wise selective (mode selective, option 2: one block in two) and a global batch.
printf '{"job": {}, "model": {"name": "llama3", "flavor": "8B"}, "training": {"local_batch_size": 2, %s' \
    '"global_batch_size": 64}, "parallelism": {"data_parallel_shard_degree": 8}}' >"$W/titan.json"
jt_abs "t['checkpointing'] == 'full' and t['recompute_method'] == 'block' and t['recompute_layers'] == 16 and \
t['grad_accum'] == 4 and t['gpus'] == 8" "$W/titan.json"
printf '{"job": {}, "training": {"local_batch_size": 3, "global_batch_size": 64}, %s' \
    '"parallelism": {"data_parallel_shard_degree": 8}}' >"$W/titan_bad.json"
expect 3 "torchtitan asserts global batch size" -- estimate --config "$W/titan_bad.json" --params 1e9
# torchtitan reduces in fp32 (training.mixed_precision_reduce "float32", its default): each
# reduce-scatter moves 4 bytes a gradient, twice the 16-bit gather's 2 a parameter; bfloat16 (read as
# --reduce-dtype 16-bit) halves it.
for red in float32 bfloat16; do
    printf '{"job": {}, "model": {"name": "llama3", "flavor": "8B"}, "training": {"local_batch_size": 1, %s%s' \
        '"mixed_precision_reduce": "'$red'"}, ' '"parallelism": {"data_parallel_shard_degree": 8}}' >"$W/titan_$red.json"
    "$Z" estimate --config "$W/titan_$red.json" --strategy zero3 --format json >"$W/titan_$red.out" 2>/dev/null
done
py_check "fsdp2 reduce-scatters in fp32 unless mixed_precision_reduce is bfloat16" "
import json
def ratio(f):
    c = {x['what']: x['size_bytes'] for x in json.load(open(f))['results'][0]['collectives']}
    return c['gradient reduce-scatter'] / c['parameter all-gather (forward)']
a, b = ratio('$(snap "$W/titan_float32.out")'), ratio('$(snap "$W/titan_bfloat16.out")')
assert abs(a - 2) < 1e-3 and abs(b - 1) < 1e-3, (a, b)"

# Every key of the Megatron scripts (--flags) and torchtitan configs (section.key) is reported.
# Flags only in a branch the script does not take (Llama-3's real-data else, Mixtral's WANDB_API_KEY
# test) are not run, so not reported.
for f in "$L"/megatron_*.sh "$L"/titan_*.json; do
    g=64 skip=""
    case $f in
    *gpt3*) g=1024 ;; *mixtral*) g=32 skip="--wandb-project --wandb-exp-name" ;;
    *llama3_8b_fp8*) g=8 skip="--data-path --tokenizer-model" ;; *405b*) g=128 ;;
    esac
    "$Z" estimate --config "$f" --gpus $g --hardware h100-80gb >"$out" 2>"$err"
    grep -q "recognised as" "$err" && ok || bad "$f: not recognised ($(head -c 200 "$err"))"
    case $f in
    *.sh) keys=$(grep -o -- '--[a-z][a-z0-9_-]*' "$f" | sort -u) ;;
    *) keys=$(/usr/bin/python3 -c "import json,sys
def walk(d, p):
    for k, v in d.items():
        if isinstance(v, dict): walk(v, p + k + '.')
        else: print(p + k)
walk(json.load(open(sys.argv[1])), '')" "$f") ;;
    esac
    missing=""
    for k in $keys; do
        case " $skip " in *" $k "*) continue ;; esac
        grep -q -- "$k" "$err" || missing="$missing $k"
    done
    [ -z "$missing" ] && ok || bad "$f: keys not reported:$missing"
done

# Knobs: Axolotl's gradient_checkpointing: offload keeps the checkpointed inputs on the host
# (the GPU's activations fall by what the host gains); recompute of N layers between none and
# all; packed documents cut attention FLOPs.
printf 'base_model: llama-3-8b\nsequence_len: 8192\nbf16: true\ngradient_checkpointing: %s\n' true >"$W/ck.yml"
printf 'base_model: llama-3-8b\nsequence_len: 8192\nbf16: true\ngradient_checkpointing: %s\n' offload >"$W/off.yml"
"$Z" estimate --config "$W/ck.yml" --format json --strategy zero3 >"$W/ck.json" 2>/dev/null
"$Z" estimate --config "$W/off.yml" --format json --strategy zero3 >"$W/off.json" 2>/dev/null
py_check "activation offload moves the stored inputs to the host" "
import json
a = json.load(open('$(snap "$W/ck.json")'))['results'][0]
b = json.load(open('$(snap "$W/off.json")'))['results'][0]
moved = a['memory_bytes']['activations'] - b['memory_bytes']['activations']
inp = 2 * 8192 * 4096  # one block input: bf16 x s x h
assert abs(moved - 30 * inp) < 1 and b['host_memory_bytes']['per_gpu'] - a['host_memory_bytes']['per_gpu'] == moved, (moved, inp)"
# One GPU: no collective overlaps compute, so compute is the FLOPs alone (no SM contention).
K="--model llama-3-8b --seq-len 8192 --strategy zero3 --gpus 1 --format json"
"$Z" estimate $K --checkpointing none >"$W/k0.json" 2>/dev/null
"$Z" estimate $K --checkpointing full >"$W/k1.json" 2>/dev/null
"$Z" estimate $K --checkpointing full --recompute-method block --recompute-layers 8 >"$W/k2.json" 2>/dev/null
"$Z" estimate $K --doc-len 1024 >"$W/k3.json" 2>/dev/null
py_check "block recompute of 8 of 32 layers: a quarter of the recompute time, 24 blocks kept whole" "
import json
k = [json.load(open(f))['results'][0] for f in ['$(snap "$W/k0.json")', '$(snap "$W/k1.json")', '$(snap "$W/k2.json")']]
t = [x['step_time_seconds']['compute'] for x in k]
a = [x['memory_bytes']['activations'] for x in k]
assert abs((t[2] - t[0]) - 0.25 * (t[1] - t[0])) < 1e-6 * t[1], t
# Megatron's block method: 8 inputs + 24 whole blocks + one block recomputing, against 32 inputs +
# one block recomputing (full) and 32 whole blocks (none): saved 7 (full - input) of full's 31.
assert abs((a[0] - a[2]) - 7 / 31 * (a[0] - a[1])) < 1e-6 * a[0], a"
py_check "packed 1k documents in 8k sequences: less compute, the same memory" "
import json
a = json.load(open('$(snap "$W/k0.json")'))['results'][0]
b = json.load(open('$(snap "$W/k3.json")'))['results'][0]
assert b['step_time_seconds']['compute'] < a['step_time_seconds']['compute']
assert b['memory_bytes']['total'] == a['memory_bytes']['total']"
# compare: the longest sequence that fits at the given micro-batch fits, one 128 more does not.
"$Z" compare --model llama-3-8b --gpus 8 --hardware h100-80gb --strategy zero3 --format json >"$out" 2>/dev/null
S=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['max_seq_len'])" "$out" \
    2>/dev/null)
expect 0 "" -- estimate --model llama-3-8b --gpus 8 --hardware h100-80gb --strategy zero3 --seq-len "${S:-0}"
expect 1 "" -- estimate --model llama-3-8b --gpus 8 --hardware h100-80gb --strategy zero3 --seq-len $((${S:-0} + 128))
# The same longest sequence in every output of compare: the CSV's max_seq_len column, the table's
# "longest sequence (tokens)" row and report's HTML column; with CP 2 it is a multiple of
# 128 x 2 = 256, fits, and 256 tokens more does not (estimate at both lengths, each strategy).
C2="--model llama-3-8b --gpus 8 --hardware h100-80gb --strategy zero2,zero3 --cp 2"
"$Z" compare $C2 --format json >"$W/ms.json" 2>/dev/null
"$Z" compare $C2 --format csv >"$W/ms.csv" 2>/dev/null
"$Z" compare $C2 >"$W/ms.txt" 2>/dev/null
"$Z" report $C2 -o "$W/ms.html" >/dev/null 2>&1
py_check "compare's max_seq_len: JSON = CSV = table = report" "
import csv, json, re
j = {r['strategy']: r['max_seq_len'] for r in json.load(open('$(snap "$W/ms.json")'))['results']}
assert sorted(j) == ['zero2', 'zero3'] and all(v > 0 and v % 256 == 0 for v in j.values()), j
c = {r['strategy']: int(r['max_seq_len']) for r in csv.DictReader(open('$(snap "$W/ms.csv")'))}
assert c == j, (c, j)
row = [l for l in open('$(snap "$W/ms.txt")') if l.strip().startswith('longest sequence (tokens)')]
assert len(row) == 1 and [int(x) for x in row[0].split()[3:]] == [j['zero2'], j['zero3']], row
page = open('$(snap "$W/ms.html")').read()
assert '<th>longest sequence (tokens)</th>' in page
for s, v in j.items():
    tr = re.search(r'<tr data-key=\"%s\">(.*?)</tr>' % s, page).group(1)
    assert re.findall(r'data-v=\"([^\"]*)\"', tr)[-1] == str(v), (s, tr[-200:], v)"
for s in zero2 zero3; do
    S=$(/usr/bin/python3 -c "import json,sys; print([r['max_seq_len'] for r in json.load(open(sys.argv[1]))['results']
if r['strategy'] == sys.argv[2]][0])" "$W/ms.json" $s 2>/dev/null)
    expect 0 "" -- estimate $C2 --strategy $s --seq-len "${S:-0}"
    expect 1 "" -- estimate $C2 --strategy $s --seq-len $((${S:-0} + 256))
done
# plot --config: the memory chart of a launcher file holds estimate --config's numbers, and the
# chart's header says the file's settings (micro-batch 2 x seq 4096, grad-accum 4, paged-adamw).
"$Z" plot memory --config "$L/axolotl_llama3_qlora.yml" -o "$W/pc" >/dev/null 2>"$W/pc.err"
"$Z" estimate --config "$L/axolotl_llama3_qlora.yml" --format json >"$W/pc.json" 2>/dev/null
grep -q "config $L/axolotl_llama3_qlora.yml: recognised as axolotl" "$W/pc.err" && ok || bad "plot --config: no report"
py_check "plot --config: memory.dat = estimate --config" "
import json
d = open('$(snap "$W/pc/memory.dat")').read()
assert 'micro-batch 2 x seq 4096, grad-accum 4, bf16 paged-adamw' in d, d[:400]
cols = [l for l in d.splitlines() if l.startswith('# columns:')][0].split()[2:]
rows = {l.split()[0]: float(l.split()[cols.index('total')])
        for l in d.splitlines() if l and not l.startswith('#')}
e = {r['strategy']: r['memory_bytes']['total'] for r in json.load(open('$(snap "$W/pc.json")'))['results']}
assert rows.keys() == e.keys() and all(abs(rows[k] - e[k]) < 1 for k in e), (rows, e)"
printf 'base_model: llama-3-8b\nmicro_batch_size: two\n' >"$W/pbad.yml"
expect 3 "micro_batch_size" -- plot memory --config "$W/pbad.yml" -o "$W/pbad"

# The robustness pass over the projects' example files (issue 24): keys that change memory or time.
# Axolotl: Liger's fused linear cross entropy (integrations/liger/args.py) -> --loss fused-linear;
# fsdp_version 2 -> FSDP2; context_parallel_size -> --cp; activation_offloading -> host memory.
printf '%s\n' 'base_model: llama-3-8b' 'micro_batch_size: 1' 'sequence_len: 8192' 'fsdp_version: 2' \
    'fsdp_config:' '  reshard_after_forward: true' 'context_parallel_size: 2' 'activation_offloading: true' \
    'gradient_checkpointing: true' 'plugins:' '  - axolotl.integrations.liger.LigerPlugin' \
    'liger_fused_linear_cross_entropy: true' 'liger_rms_norm: true' >"$W/ax_liger.yml"
json_check "exec(\"$T\") or (t['loss'] == 'fused-linear' and t['framework'] == 'fsdp2' and t['cp'] == 2 and \
t['offload_activations'] and r == ['zero3'] and 'liger_rms_norm (a fused kernel' in t['config']['ignored'])" \
    estimate --config "$W/ax_liger.yml" --gpus 4 --format json
printf 'base_model: llama-3-8b\ncut_cross_entropy: true\nfsdp:\n  - full_shard\n  - auto_wrap\n' >"$W/ax_cce.yml"
json_check "exec(\"$T\") or (t['loss'] == 'fused-linear' and r == ['zero3'] and \
'fsdp auto_wrap (wrapping' in t['config']['ignored'])" estimate --config "$W/ax_cce.yml" --gpus 2 --format json
# TRL / HF Trainer use_liger_kernel; LLaMA-Factory enable_liger_kernel and pure_bf16 (no fp32 master).
printf 'model_name_or_path: llama-3-8b\nper_device_train_batch_size: 2\nuse_liger_kernel: true\n' >"$W/trl_lig.yaml"
json_check "exec(\"$T\") or (t['loss'] == 'fused-linear' and t['micro_batch'] == 2)" \
    estimate --config "$W/trl_lig.yaml" --format json
printf '%s\n' 'model_name_or_path: llama-3-8b' 'stage: sft' 'finetuning_type: full' 'enable_liger_kernel: true' \
    'pure_bf16: true' 'bf16: true' >"$W/lf_lig.yaml"
json_check "exec(\"$T\") or (t['loss'] == 'fused-linear' and t['precision'] == 'bf16-pure')" \
    estimate --config "$W/lf_lig.yaml" --format json
# accelerate's FSDP1 with the sharding strategy under fsdp_reshard_after_forward (TRL's fsdp1.yaml).
printf '%s\n' 'distributed_type: FSDP' 'num_processes: 8' 'fsdp_config:' '  fsdp_version: 1' \
    '  fsdp_reshard_after_forward: SHARD_GRAD_OP' >"$W/acc_fsdp1.yaml"
json_check "exec(\"$T\") or (r == ['zero2'] and t['framework'] == 'fsdp')" \
    estimate --config "$W/acc_fsdp1.yaml" --model llama-3-8b --format json
# Megatron: uneven first/last stages and TP communication overlap.
printf '%s\n' '--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 --bf16 \' \
    '--tensor-model-parallel-size 2 --sequence-parallel --pipeline-model-parallel-size 4 \' \
    '--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6 --tp-comm-overlap \' \
    '--micro-batch-size 1 --global-batch-size 8' >"$W/mg_uneven.txt"
json_check "exec(\"$T\") or (t['pp_first_layers'] == 6 and t['pp_last_layers'] == 6 and t['tp_comm_overlap'] \
and t['pp'] == 4 and t['tp'] == 2)" estimate --config "$W/mg_uneven.txt" --gpus 8 --hardware h100-80gb --format json
# Axolotl names deepspeed_configs/ from its repository's root: found beside a parent directory;
# a missing one names the key. sub_group_size 0 (Axolotl's zero3 files) is DeepSpeed-valid.
mkdir -p "$W/ax/deepspeed_configs" "$W/ax/examples/llama"
printf '{"zero_optimization": {"stage": 3, "sub_group_size": 0}, "bf16": {"enabled": "auto"}}\n' \
    >"$W/ax/deepspeed_configs/z3.json"
printf 'base_model: llama-3-8b\ndeepspeed: deepspeed_configs/z3.json\n' >"$W/ax/examples/llama/ds.yml"
json_check "exec(\"$T\") or (r == ['zero3'] and t['framework'] == 'deepspeed')" \
    estimate --config "$W/ax/examples/llama/ds.yml" --gpus 2 --format json
printf 'base_model: llama-3-8b\ndeepspeed: nowhere/z9.json\n' >"$W/ax/examples/llama/nods.yml"
expect 3 "nods.yml: deepspeed: .*nowhere/z9.json: cannot open" -- estimate --config "$W/ax/examples/llama/nods.yml"
# LLaMA-Factory's v1 configs (examples/v1) are refused by name, not misread as TrainingArguments.
printf 'model: Qwen/Qwen3-0.6B\nmodel_class: llm\ndist_config:\n  name: fsdp2\nmicro_batch_size: 1\n' >"$W/lf1.yaml"
expect 3 "a LLaMA-Factory v1 config" -- estimate --config "$W/lf1.yaml" --model qwen3-8b
# Megatron's functional-test model_config.yaml: its MODEL_ARGS read as the launch's arguments.
# TP 2 x PP 2 of 8 GPUs: DP 2, accumulation 32 / (4 x 2) = 4; GPT-2 shape, h 512, 12 layers, learned
# positions 1024, vocabulary 50257 padded to 50432 (128 x TP 2): 12 (12 h^2 + 13 h) + (50432 + 1024) h + 2 h.
jt megatron_functional_gpt3_tp2_pp2.yaml "t['tp'] == 2 and t['pp'] == 2 and t['dp'] == 2 and t['micro_batch'] == 4 \
and t['grad_accum'] == 4 and t['seq_len'] == 1024 and t['precision'] == 'bf16' and r == ['ddp'] and \
d['model']['parameters'] == 12 * (12 * 512**2 + 13 * 512) + (50432 + 1024) * 512 + 2 * 512" --gpus 8
# Axolotl's N-D parallelism examples (examples/distributed-parallel): the device mesh dp_replicate x
# dp_shard x CP x TP is the world size; CutCrossEntropyPlugin alone turns Cut Cross Entropy on
# (its cut_cross_entropy defaults to true). Hub ids: the catalog's shapes given with --model.
jt axolotl_qwen3_8b_fsdp_tp_cp.yaml "t['gpus'] == 8 and t['tp'] == 2 and t['cp'] == 2 and t['dp'] == 2 and \
t['micro_batch'] == 1 and t['grad_accum'] == 1 and t['seq_len'] == 8192 and t['framework'] == 'fsdp2' and \
r == ['zero3'] and t['loss'] == 'fused-linear' and t['precision'] == 'bf16' and t['optimizer'] == 'adamw' and \
t['finetune'] == 'full' and t['checkpointing'] == 'none' and t['shard_group'] == 0" --model qwen3-8b
jt axolotl_llama_3_1_8b_hsdp_tp.yaml "t['gpus'] == 16 and t['tp'] == 2 and t['dp'] == 8 and \
t['shard_group'] == 4 and t['seq_len'] == 2048 and t['framework'] == 'fsdp2' and r == ['zero3'] and \
t['loss'] == 'fused-linear'" --model llama-3-8b
# A functional test whose MODEL_ARGS merge an anchor (<<: *BASE_MODEL_ARGS): the shape comes from the
# anchored mapping, the batch from MODEL_ARGS itself. 32 layers of h 3072: attention 3072 x (4096 + 2 x
# 1024 + 4096), SwiGLU 3 x 3072 x 8192, two RMSNorms; untied GPT-2 vocabulary padded to 50304.
jt megatron_functional_reruns_anchors.yaml "t['micro_batch'] == 2 and t['grad_accum'] == 1 and \
t['seq_len'] == 512 and t['precision'] == 'bf16' and t['checkpointing'] == 'none' and t['tp'] == 1 and \
d['model']['parameters'] == 32 * (3072 * 10240 + 3 * 3072 * 8192 + 2 * 3072) + 2 * 50304 * 3072 + 3072"
# YAML anchors: an alias names an anchor defined before it; aliases nesting past the bound are refused.
printf 'base_model: &m llama-3-8b\nmicro_batch_size: *n\n' >"$W/alias_bad.yml"
expect 3 "alias_bad.yml:2:.*alias \*n names no anchor" -- estimate --config "$W/alias_bad.yml"
{ echo 'base_model: llama-3-8b'; echo 'a: &a [x, x, x, x, x, x, x, x, x, x]'; p=a
  for n in b c d e f g; do echo "$n: &$n [*$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p, *$p]"; p=$n; done; } >"$W/laughs.yml"
expect 3 "laughs.yml:.*aliases expand too far" -- estimate --config "$W/laughs.yml"
# The merge key: the anchored mapping's keys, those the mapping sets itself winning (PyYAML's rule).
printf '%s\n' 'defaults: &d' '  micro_batch_size: 3' '  sequence_len: 1024' 'base_model: llama-3-8b' 'micro_batch_size: 5' \
    '<<: *d' >"$W/merge.yml"
json_check "exec(\"$T\") or (t['micro_batch'] == 5 and t['seq_len'] == 1024)" \
    estimate --config "$W/merge.yml" --format json
/usr/bin/python3 -c "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); \
assert d['micro_batch_size'] == 5 and d['sequence_len'] == 1024" "$W/merge.yml" && ok || bad "PyYAML reads merge.yml otherwise"
# Axolotl's expert parallelism (integrations/expert_parallel): the mesh ep x dp_shard = 4 GPUs, the
# non-expert parameters sharded over dp_shard 2 alone; adamw_torch_8bit is an 8-bit Adam.
jt axolotl_qwen3_30ba3b_ep_fsdp.yaml "t['gpus'] == 4 and t['ep'] == 2 and t['dp'] == 4 and \
t['shard_group'] == 2 and t['framework'] == 'fsdp2' and r == ['zero3'] and t['optimizer'] == 'adam8bit' and \
t['checkpointing'] == 'full' and t['micro_batch'] == 1 and t['seq_len'] == 2048 and t['precision'] == 'bf16'" \
    --model qwen3-30b-a3b
# Axolotl fp8 (torchao float8), LLaMA-Factory flash_attn disabled (eager) and neat_packing, Megatron's
# unfused attention backend (stored scores) and a multi-latent attention its shape arguments lack.
printf 'base_model: llama-3-8b\nfp8: true\n' >"$W/ax_fp8.yml"
json_check "exec(\"$T\") or t['precision'] == 'fp8'" estimate --config "$W/ax_fp8.yml" --hardware h100-80gb --format json
printf '%s\n' 'model_name_or_path: llama-3-8b' 'stage: sft' 'flash_attn: disabled' 'neat_packing: true' >"$W/lf_fa.yaml"
json_check "exec(\"$T\") or (t['flash_attention'] == False and 'neat_packing true' in t['config']['used'])" \
    estimate --config "$W/lf_fa.yaml" --format json
printf '%s\n' '--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 --bf16 \' \
    '--micro-batch-size 1 --attention-backend unfused --multi-latent-attention' >"$W/mg_unf.txt"
json_check "exec(\"$T\") or (t['flash_attention'] == False and \
'--multi-latent-attention (not in the model built from arguments' in t['config']['ignored'])" \
    estimate --config "$W/mg_unf.txt" --format json
# A ds_config number the Trainer's own value contradicts is refused as transformers refuses it
# (HfTrainerDeepSpeedConfig.fill_match); "auto" takes the Trainer's; a flag given wins over both.
printf '{"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": "auto", "zero_optimization": {"stage": 2}}\n' \
    >"$W/ds4.json"
printf 'base_model: llama-3-8b\nmicro_batch_size: 2\ngradient_accumulation_steps: 3\ndeepspeed: ds4.json\n' >"$W/axds.yml"
expect 3 "axds.yml: micro_batch_size 2 and .*ds4.json's train_micro_batch_size_per_gpu 4 differ" -- \
    estimate --config "$W/axds.yml" --gpus 2
json_check "exec(\"$T\") or (t['micro_batch'] == 4 and t['grad_accum'] == 3 and r == ['zero2'])" \
    estimate --config "$W/axds.yml" --gpus 2 --micro-batch 4 --format json
# DeepSpeed takes its stage3_ keys by their field names too (runtime/zero/config.py aliases with
# populate_by_name): Axolotl's zero3 files write max_live_parameters: 0, which must not be ignored.
printf '{"zero_optimization": {"stage": 3, "max_live_parameters": 0, "prefetch_bucket_size": "auto"}}\n' >"$W/dsa.json"
printf '{"zero_optimization": {"stage": 3, "stage3_max_live_parameters": 0, "stage3_prefetch_bucket_size": "auto"}}\n' \
    >"$W/dsb.json"
printf '{"zero_optimization": {"stage": 3}}\n' >"$W/dsc.json"
for x in a b c; do
    "$Z" estimate --model llama-3-8b --gpus 8 --deepspeed "$W/ds$x.json" --format json >"$W/ds$x.out" 2>/dev/null
done
py_check "max_live_parameters read as stage3_max_live_parameters" "
import json
a, b, c = [json.load(open(f)) for f in ['$(snap "$W/dsa.out")', '$(snap "$W/dsb.out")', '$(snap "$W/dsc.out")']]
m = lambda d: d['results'][0]['memory_bytes']
assert m(a) == m(b) and m(a) != m(c), (m(a), m(c))
assert 'stage3_prefetch_bucket_size' in a['training']['deepspeed_auto_filled'], a['training']
assert 'max_live_parameters' not in str(a['training']['deepspeed_ignored'])"
# accelerate's parallelism_config (TRL's examples/accelerate_configs): cp_size 2 of 2 processes is
# --cp 2 (DP 1) with FSDP2 and its activation checkpointing; DeepSpeed's Ulysses sp_size is named as
# not modelled, its ranks data parallel; a product that is not num_processes is refused as
# accelerate's ParallelismConfig refuses it.
jt accelerate_trl_context_parallel_2gpu.yaml "t['gpus'] == 2 and t['cp'] == 2 and t['dp'] == 1 and \
t['framework'] == 'fsdp2' and r == ['zero3'] and t['checkpointing'] == 'full' and t['precision'] == 'bf16'" $M8
jt accelerate_trl_alst_ulysses_4gpu.yaml "t['gpus'] == 4 and t['cp'] == 1 and t['dp'] == 4 and \
t['framework'] == 'deepspeed' and r == ['zero3'] and \
'parallelism_config_sp_size 2 (Ulysses sequence parallelism is not modelled' in t['config']['ignored']" $M8
printf '%s\n' 'distributed_type: FSDP' 'num_processes: 8' 'fsdp_config:' '  fsdp_version: 2' \
    'parallelism_config:' '  parallelism_config_dp_shard_size: 2' '  parallelism_config_cp_size: 2' >"$W/acc_pc.yaml"
expect 3 "acc_pc.yaml: parallelism_config's dp_replicate 1 x dp_shard 2 x tp 1 x cp 2 x sp 1 = 4 is not num_processes 8" \
    -- estimate --config "$W/acc_pc.yaml" $M8
printf 'base_model: llama-3-8b\ntensor_parallel_size: 2\nliger_fused_linear_cross_entropy: true\n' >"$W/ax_tpl.yml"
expect 3 "ax_tpl.yml: tensor_parallel_size 2 with liger_fused_linear_cross_entropy: Axolotl refuses it" -- \
    estimate --config "$W/ax_tpl.yml" --gpus 2
# LLaMA-Factory's Megatron backend (examples/megatron, mcore_adapter): PP 4 x EP 2 of 8 GPUs, the
# distributed optimizer (ZeRO-1), recompute_granularity full; accumulation 8 as written.
jt llamafactory_megatron_qwen3_moe_full.yaml "t['framework'] == 'megatron' and t['pp'] == 4 and t['ep'] == 2 and \
t['tp'] == 1 and t['dp'] == 2 and r == ['zero1'] and t['checkpointing'] == 'full' and t['grad_accum'] == 8 and \
t['micro_batch'] == 1 and t['seq_len'] == 4096 and t['finetune'] == 'full'" --model qwen3-30b-a3b --gpus 8
# YAML 1.1 digit groups as PyYAML reads them (Axolotl's examples/alst: sequence_len: 500_000); a
# quoted "500_000" is a string, refused whole rather than read as 500.
printf 'base_model: llama-3-8b\nsequence_len: 500_000\ncontext_parallel_size: 8\ntiled_mlp: true\nfsdp_version: 2\n' \
    >"$W/ax_long.yml"
json_check "exec(\"$T\") or (t['seq_len'] == 500000 and t['cp'] == 8 and \
'tiled_mlp (a fused kernel' in t['config']['ignored'])" estimate --config "$W/ax_long.yml" --gpus 8 --format json
printf 'base_model: llama-3-8b\nsequence_len: "500_000"\n' >"$W/ax_q.yml"
expect 3 "ax_q.yml: sequence_len: expected a whole number" -- estimate --config "$W/ax_q.yml"
# A bare file name (run from its directory) still finds deepspeed_configs/ beside a parent directory.
ZA=$(cd "$(dirname "$Z")" && pwd)/$(basename "$Z") ZD=${ZEROSIM_DATA:-$(pwd)}
(cd "$W/ax/examples/llama" && ZEROSIM_DATA=$ZD "$ZA" estimate --config ds.yml --gpus 2 --format json 2>/dev/null) | grep -q '"zero3"' \
    && ok || bad "bare ds.yml: ds_config not found"
