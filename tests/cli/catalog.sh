#!/bin/sh
# catalog.sh -- every catalog model through estimate, plan and sweep (one python3 for all).
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# every catalog model, each family of issue 12 among them, runs through estimate, plan and
# sweep: exit 0 (fits) or 1 (nothing fits, with a hint on stderr), finite numbers throughout.
"$Z" list models >"$out" 2>"$err" && grep -q "deepseek_v3" "$out" && grep -q "umt5" "$out" && ok || bad "zerosim list models: families"
# the layer pattern column, from the configs' own pattern keys (counted there, not from zerosim):
# Qwen3-Next full_attention_interval 4 of 48 layers, all sparse; Nemotron-3-Nano's
# hybrid_override_pattern has 23 M, 23 E, 6 *; gpt-oss-20b's layer_types 12 sliding of 24.
# Totals: huggingface.js parse-safetensors-metadata.spec.ts (gpt-oss-20b), llama.cpp n_params
# of the GGUF (nemotron-3-nano-30b-a3b), HF safetensors total (granite-4.0-h-small).
for want in "qwen3-next-80b-a3b .* 36 DeltaNet+MoE, 12 attention+MoE$" \
        "nemotron-3-nano-30b-a3b .* 31,577,940,288 .* 23 Mamba-2, 23 MoE, 6 attention$" \
        "gpt-oss-20b .* 20,914,757,184 .* 24 attention (12 sliding)+MoE$" \
        "granite-4.0-h-small .* 32,207,337,984 .* 36 Mamba-2+MoE, 4 attention+MoE$"; do
    grep -q "^$want" "$out" && ok || bad "zerosim list models: no line matching '$want'"
done
F=$W/fam
mkdir "$F"
i=0
for name in $("$Z" list models 2>/dev/null | awk 'NR > 1 { print $1 }'); do
    # a learned position table bounds the sequence (GPT-2's n_positions 1024, GPT-3's 2048)
    case $name in gpt2|gpt2-xl) seq=1024 ;; gpt3-175b|mt-nlg-530b) seq=2048 ;; *) seq=4096 ;; esac
    pseq=$((seq < 2048 ? seq : 2048))
    "$Z" estimate --model "$name" --hardware h100-80gb --gpus 64 --seq-len $seq --format json >"$F/e" 2>"$err"
    e=$?
    # nothing fits (1) may say on stderr what would; anything else on stderr is a failure
    [ -s "$err" ] && [ $e -ne 1 ] && e=9
    "$Z" plan --model "$name" --hardware h100-80gb --max-gpus 64 --top 2 --seq-len $pseq --format json >"$F/p" 2>"$err"
    p=$?
    [ -s "$err" ] && p=9
    "$Z" sweep --model "$name" --hardware h100-80gb --seq-len $pseq --gpus 8,64 --strategy zero1,zero3 --checkpointing none,full >"$F/s" 2>"$err"
    s=$?
    [ -s "$err" ] && s=9
    if [ $e -le 1 ] && [ $p -le 1 ] && [ $s -le 1 ]; then
        # the outputs are checked below, all models in one python3
        i=$((i + 1))
        mv "$F/e" "$F/$i.e"; mv "$F/p" "$F/$i.p"; mv "$F/s" "$F/$i.s"; echo "$name $e $p $s" >"$F/$i.name"
    else
        bad "$name through estimate ($e), plan ($p), sweep ($s): $(tail -c 300 "$err")"
    fi
done
if [ "$i" -gt 0 ]; then
    python3 - "$F" "$i" >"$F/tally" <<'PY'
import csv, json, math, sys
f, n = sys.argv[1], int(sys.argv[2])
def finite(x):
    if isinstance(x, dict): return all(finite(v) for v in x.values())
    if isinstance(x, list): return all(finite(v) for v in x)
    if isinstance(x, float): return math.isfinite(x)
    return True
passed = 0
for i in range(1, n + 1):
    try:
        d, [plan] = json.load(open(f'{f}/{i}.e')), [json.load(open(f'{f}/{i}.p'))]
        assert finite(d) and finite(plan) and d['model']['parameters'] > 0
        rows = list(csv.DictReader(open(f'{f}/{i}.s')))
        assert len(rows) == 8, len(rows)
        for r in rows:
            for k, v in r.items():
                if k.startswith(('memory_bytes', 'step_time')) and r['valid'] == 'true':
                    assert math.isfinite(float(v)) and float(v) >= 0, (k, v)
        passed += 1
    except Exception as e:
        name, es, ps, ss = open(f'{f}/{i}.name').read().split()
        print('FAIL: %s through estimate (%s), plan (%s), sweep (%s): %s: %s'
              % (name, es, ps, ss, type(e).__name__, str(e)[-300:]), file=sys.stderr)
print(passed, n - passed)
PY
    tally "$F/tally" "$i"
fi

# every hardware profile loads and prices a llama-3-8b run on 8 GPUs: exit 0 (fits) or 1
# (nothing fits, with a hint on stderr), finite numbers in the JSON.
for hw in $("$Z" list hardware 2>/dev/null | awk 'NR > 1 { print $1 }'); do
    "$Z" estimate --model llama-3-8b --hardware "$hw" --gpus 8 --format json >"$out" 2>"$err"
    e=$?
    if [ $e -le 1 ] && { [ $e -eq 1 ] || [ ! -s "$err" ]; } &&
        python3 -c 'import json, math, sys
def finite(x):
    if isinstance(x, dict): return all(finite(v) for v in x.values())
    if isinstance(x, list): return all(finite(v) for v in x)
    return not isinstance(x, float) or math.isfinite(x)
sys.exit(0 if finite(json.load(open(sys.argv[1]))) else 1)' "$out"; then ok; else
        bad "estimate --hardware $hw --gpus 8: exit $e: $(tail -c 300 "$err")"
    fi
done
# list hardware: every row's columns start where the header's do (a100-80gb-jeanzay, the
# longest name, once pushed its row right), and the 2026 profiles are listed.
"$Z" list hardware >"$out" 2>"$err"
python3 - "$out" <<'PY' && ok || bad "zerosim list hardware: columns do not align: $(head -c 600 "$out")"
import re, sys
rows = open(sys.argv[1]).read().splitlines()
names = [r.split()[0] for r in rows[1:]]
assert {"gb200-nvl72", "b200-180gb", "mi300x-192gb", "rtx4090-24gb", "a100-80gb-jeanzay"} <= set(names), names
# the gpu column starts at one offset; the right-aligned columns end at the header's ends
starts = {re.match(r"\S+\s+", r).end() for r in rows}
assert len(starts) == 1, starts
ends = [m.end() for m in re.finditer(r"\S+", rows[0])][-5:]
for r in rows[1:]:
    assert len(r) == len(rows[0]) and all(r[e - 1] != " " and (e == len(r) or r[e] == " ") for e in ends), r
PY

# list frameworks: each framework with its names for the strategies (fw_*.c .runs) and the
# releases its versions stand for (fw_deepspeed.c first..last), in columns.
"$Z" list frameworks >"$out" 2>"$err"
python3 - "$out" <<'PY' && ok || bad "zerosim list frameworks: $(head -c 600 "$out")"
import sys
rows = open(sys.argv[1]).read().splitlines()
by = {r.split()[0]: r for r in rows[1:]}
assert set(by) == {"generic", "deepspeed", "fsdp", "fsdp2", "megatron"}, by
assert "zero3: FULL_SHARD" in by["fsdp"] and "zero1: distributed optimizer" in by["megatron"], by
assert by["deepspeed"].endswith("0.3.0-0.3.14, 0.3.15-0.5.4, 0.5.5-0.5.10, 0.6.0-0.6.1, 0.6.2-0.8.x, 0.9.0-0.9.1, 0.9.2-0.14.0, 0.14.1-0.15.3, 0.15.4-0.16.x, 0.17.0-0.17.5, 0.17.6-0.19.x (default)"), by
assert by["fsdp"].endswith("  -"), by
col = rows[0].index("versions")
assert all(r[col - 2:col] == "  " and r[col] != " " for r in rows[1:]), rows
PY
expect 2 "'frameworks'" -- list nope

finish
