#!/bin/sh
# plan.sh -- plan: brute force through estimate, fixed flags, --rank, --max-model, fits-from lines.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# plan: the top configuration, re-run through estimate, is feasible and has the same step time;
# no other configuration that estimate can build beats it (brute force over a small space)
"$Z" plan --model llama-2-7b --max-gpus 16 --global-batch 64 --format json >"$out" 2>"$err"
if python3 - "$out" "$Z" <<'PY'
import json, subprocess, sys, itertools
plan = json.load(open(sys.argv[1])); Z = sys.argv[2]
top = plan['ranked'][0]
def est(strategy, gpus, tp, pp, v, mb, ga, ck, oo, op, sp):
    a = [Z, 'estimate', '--model', 'llama-2-7b', '--gpus', str(gpus), '--tp', str(tp), '--pp', str(pp),
         '--virtual-stages', str(v), '--micro-batch', str(mb), '--grad-accum', str(ga), '--checkpointing', ck,
         '--offload-optimizer', oo, '--offload-params', op, '--strategy', strategy, '--format', 'json']
    if sp: a.append('--sequence-parallel')
    r = subprocess.run(a, capture_output=True, text=True)
    if r.returncode not in (0, 1): return None
    return json.loads(r.stdout)['results'][0]
r = est(top['strategy'], top['gpus'], top['tp'], top['pp'], top['virtual_stages'], top['micro_batch'], top['grad_accum'],
        top['checkpointing'], top['offload_optimizer'], top['offload_params'], top['sequence_parallel'])
assert r and r['fits'], 'top plan does not fit through estimate'
assert abs(r['step_time_seconds']['total'] - top['step_time_seconds']['total']) < 1e-9 * r['step_time_seconds']['total']
best = None
for gpus in (8, 16):
    for s in ('ddp', 'zero1', 'zero2', 'zero3'):
        for mb in (1, 2, 4, 8):
            if 64 % (mb * gpus): continue
            for ck in ('none', 'selective', 'full'):
                x = est(s, gpus, 1, 1, 1, mb, 64 // (mb * gpus), ck, 'none', 'none', False)
                if x and x['fits'] and (best is None or x['step_time_seconds']['total'] < best): best = x['step_time_seconds']['total']
assert top['step_time_seconds']['total'] <= best * (1 + 1e-12), (top['step_time_seconds']['total'], best)
# min_gpus: fits there, and nothing fits with one GPU count fewer
m = plan['min_gpus']['ddp']
assert m is not None
p2 = json.loads(subprocess.run([Z, 'plan', '--model', 'llama-2-7b', '--max-gpus', str(m - 1), '--global-batch', '64', '--strategy', 'ddp', '--format', 'json'], capture_output=True, text=True).stdout) if m > 1 else None
assert p2 is None or p2['min_gpus']['ddp'] is None or p2['min_gpus']['ddp'] >= m
PY
then ok; else bad "plan vs brute force through estimate"; fi
json_check "d['min_gpus']['zero3'] is not None and all(set(['strategy','gpus','tp','pp','micro_batch','grad_accum','checkpointing','offload_optimizer','offload_params','memory_bytes','step_time_seconds','tokens_per_second','cost_dollars']) <= set(r) for r in d['ranked'])" plan --model llama-2-7b --max-gpus 16 --format json
expect 1 "" -- plan --model llama-3.1-405b --max-gpus 1 --no-offload
expect 2 "--budget and --deadline need --tokens" -- plan --model llama-2-7b --budget 100
expect 2 "--rank" -- plan --model llama-2-7b --rank fastest
json_check "d['max_model'][0]['zero3'] > d['max_model'][0]['ddp'] > 0" plan --max-model --params 1e9 --gpus-list 64 --no-offload --format json

# plan --framework all names each row's framework and never mixes in the abstract one.
json_check "set(r['framework'] for r in d['ranked']) <= {'deepspeed','fsdp','fsdp2','megatron'} and len(d['ranked']) == 20" plan --model llama-2-7b --max-gpus 16 --top 20 --framework all --format json

# --- plan (issue 14) ---
# Configuration flags are fixed during the search, as plan --help says: --micro-batch 4 is kept.
json_check "d['ranked'] and all(r['micro_batch'] == 4 for r in d['ranked'])" plan $M --max-gpus 16 --micro-batch 4 --format json
json_check "d['ranked'] and all(r['tp'] == 2 and r['gpus'] >= 2 for r in d['ranked'])" plan $M --max-gpus 16 --tp 2 --format json
# GPU counts past 4,096 nodes are searched (a fixed array once stopped at 32,744 GPUs).
json_check "d['ranked'][0]['gpus'] == 65536" plan $M --min-gpus 32768 --max-gpus 65536 --global-batch 65536 --micro-batch 1 --no-tp --no-pp --no-offload --checkpointing full --strategy zero3 --top 1 --format json
# --rank cost: configurations within 1% of the cheapest are a tie, won by the fastest step
# (once 4 GPUs for 627 days beat 64 GPUs for 39 days by 0.002%).
json_check "all(r['step_time_seconds']['total'] >= d['ranked'][0]['step_time_seconds']['total'] for r in d['ranked'] if r['gpu_hours'] <= d['ranked'][0]['gpu_hours'] * 1.005)" plan $M --rank cost --tokens 1e12 --max-gpus 64 --top 10 --format json
# --no-pp --no-tp --no-offload in --max-model: DDP keeps 16 bytes per parameter on every GPU
# (ZeRO paper, arXiv 1910.02054, section 3.1), so it cannot pass 80 GiB / 16 B = 5.37e9;
# with pipeline parallelism allowed it can.
json_check "0 < d['max_model'][0]['ddp'] < 80 * 2**30 / 16" plan $M --max-model --no-pp --no-tp --no-offload --gpus-list 8 --format json
json_check "d['max_model'][0]['ddp'] > 80 * 2**30 / 16" plan $M --max-model --no-tp --no-offload --gpus-list 8 --format json
# A small model deepened on many GPUs stays within the 100,000-layer bound: a whole table, exit 0.
"$Z" plan --max-model --model gpt2 --seq-len 1024 --gpus-list 8,100000 >"$out" 2>"$err" && [ "$(grep -c '^ *[0-9]' "$out")" -eq 2 ] && ok || bad "max-model gpt2: $(cat "$err")"
# In --params mode the 1e16 search cap is a lower bound, not a result.
json_check "d['max_model'][0]['at_least'] == ['zero3']" plan --max-model --params 1e9 --gpus-list 10000000 --format json
"$Z" plan --max-model --params 1e9 --gpus-list 10000000 >"$out" 2>"$err"; grep -q ">= 1e+16" "$out" && ok || bad "max-model cap: $(cat "$out")"
# "fits from N GPUs" names the configuration: llama-2-7b under DDP needs 16 B x 6.74e9 = 108 GB
# (> 80 GiB), so the fewest is 2 GPUs split by TP or PP.
"$Z" plan $M --max-gpus 16 >"$out" 2>"$err"; grep -q "DDP    fits from 2 GPUs: TP [12], PP [12], micro-batch" "$out" && ok || bad "fits from: $(grep 'fits from' "$out")"

# --pp and --virtual-stages against the layer count: llama-2-7b has 32 layers (HF config.json
# num_hidden_layers), so 32 x 1024 chunks (once a 0.4 ms bubble) and 64 stages are refused.
expect 2 "--virtual-stages 1024" -- estimate $M --gpus 32 --pp 32 --virtual-stages 1024
expect 2 "32 layers" -- estimate $M --gpus 64 --pp 64
expect 0 "" -- estimate $M --gpus 32 --pp 32 --virtual-stages 1

# nothing fits because a rule refused most of the search: Megatron wants the 61 layers to divide
# into PP x virtual stages, and only PP 1 of 1, 2, 4, ..., 32 does; the first refused is PP 2
# (on 128 GPUs: with experts split over TP as Megatron-Core does, 2048 GPUs now fit)
expect 1 "" -- plan --model deepseek-v3 --hardware h100-80gb --min-gpus 128 --max-gpus 128 --ep 64 --framework megatron
grep -q "^Nothing fits: [5-9][0-9]% of the .* configurations searched were refused: --framework megatron: 61 layers do not divide evenly into --pp 2 x --virtual-stages 1" "$out" &&
    ok || bad "plan deepseek-v3 megatron: the refusal is not named: $(grep Nothing "$out")"
# a search refused for memory alone keeps the plain hint
expect 1 "" -- plan --model llama-2-70b --max-gpus 2 --no-offload
grep -q "^Nothing fits; fits with --max-gpus" "$out" && ok || bad "plan llama-2-70b: $(grep Nothing "$out")"

# Every configuration plan ranks is what estimate gives for it. With GEMMs by shape the routed
# experts' rates read EP (T k EP / E rows), and a plan kept EP 1's rates for EP 8: Qwen3-Next at
# 3.4x its compute (fuzz_flags).
if python3 - "$Z" <<'PY'
import json, subprocess, sys
z = sys.argv[1]
common = ['--model', 'qwen3-next-80b-a3b', '--hardware', 'h200-141gb', '--precision', 'fp8', '--gemm-shapes', 'on']
plan = json.loads(subprocess.run([z, 'plan'] + common + ['--max-gpus', '64', '--global-batch', '1600000', '--max-micro-batch', '8',
                                  '--top', '3', '--format', 'json'], capture_output=True, text=True).stdout)
assert plan['ranked'], plan
for r in plan['ranked']:
    assert r['ep'] > 1, r['ep']  # the searched EP is what the old key lost
    args = ['--gpus', r['gpus'], '--tp', r['tp'], '--pp', r['pp'], '--ep', r['ep'], '--virtual-stages', r['virtual_stages'],
            '--micro-batch', r['micro_batch'], '--grad-accum', r['grad_accum'], '--checkpointing', r['checkpointing'],
            '--offload-optimizer', r['offload_optimizer'], '--offload-params', r['offload_params'], '--strategy', r['strategy']]
    e = json.loads(subprocess.run([z, 'estimate'] + common + [str(a) for a in args] + ['--format', 'json'],
                                  capture_output=True, text=True).stdout)['results'][0]
    a, b = r['step_time_seconds']['total'], e['step_time_seconds']['total']
    assert abs(a - b) <= 1e-9 * b, (r['ep'], a, b)
PY
then ok; else bad "plan's ranked step times differ from estimate's for the same configurations"; fi

finish
