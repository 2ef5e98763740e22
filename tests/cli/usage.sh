#!/bin/sh
# usage.sh -- usage errors, bad input files, help, units, habits, error paths after parsing.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# usage errors: exit 2, message names the flag or command
expect 2 "unknown command" -- frobnicate
expect 2 "unknown option --frob" -- estimate $M --frob 3
expect 2 "--strategy" -- estimate $M --strategy zero4
expect 2 "--gpus" -- estimate $M --gpus 0
expect 2 "--gpus" -- estimate $M --gpus -8
# --param-dtype fp32 is autocast over fp32 parameters: mixed precision only, and not where the
# engine casts the model to 16 bits itself (DeepSpeed's engine, Megatron's Float16Module).
expect 2 "its bf16/fp16 modes keep 16-bit parameter copies" -- estimate $M --gpus 8 --framework deepspeed --param-dtype fp32
expect 2 "its bf16/fp16 modes keep 16-bit parameter copies" -- estimate $M --gpus 8 --framework megatron --param-dtype fp32
expect 2 "it needs --precision bf16 or fp16 (got fp32)" -- estimate $M --gpus 8 --precision fp32 --param-dtype fp32
expect 2 "--param-dtype fp32 with --finetune" -- estimate $M --gpus 1 --finetune lora --param-dtype fp32
expect 2 "--gpus" -- estimate $M --gpus eight
expect 2 "--tp" -- estimate $M --gpus 12 --tp 8
expect 2 "--precision" -- estimate $M --precision fp12
expect 2 "--checkpointing" -- estimate $M --checkpointing some
expect 2 "missing --model" -- estimate
expect 2 "not both" -- estimate $M --params 7e9
expect 2 "--params" -- estimate --params -7e9
expect 2 "--params" -- estimate --params 7X
expect 2 "needs a value" -- estimate --model
expect 2 "--format" -- estimate $M --format yaml
expect 2 "--pp" -- estimate $M --gpus 64 --pp 64
# flags that would change nothing are refused, as --ep on a dense model is
expect 2 "--lora-rank and --lora-targets shape LoRA's adapters" -- estimate $M --gpus 8 --lora-rank 8
# Activation offload moves the stored inputs of recomputed blocks: idle without full recompute.
expect 2 "it needs --checkpointing full (got none)" -- estimate $M --gpus 8 --activation-offload
expect 2 "it needs --checkpointing full (got selective)" -- estimate $M --gpus 8 --activation-offload --checkpointing selective
expect 2 "--activation-offload-sync says how --activation-offload copies" -- estimate $M --gpus 8 --activation-offload-sync on
expect 2 "--moe-imbalance: llama-2-7b has no routed experts" -- estimate --model llama-2-7b --gpus 8 --moe-imbalance 1.5
expect 2 "--moe-imbalance: --params has no routed experts" -- estimate --params 7e9 --gpus 8 --moe-imbalance 2
# GPT-2's learned position table has n_positions 1024 rows (its config.json): longer is refused
expect 2 "seq-len 2048 (the default) is longer than gpt2's learned position table (n_positions / max_position_embeddings 1024)" -- estimate --model gpt2 --gpus 8
expect 0 "" -- estimate --model gpt2 --gpus 8 --seq-len 1024
# TP splits a Mamba-2 mixer's heads and groups (Megatron-Core's MambaMixer asserts it): 8 groups
expect 2 "--tp 16 does not divide the model's Mamba-2 heads (64) and groups (8)" -- estimate --model nemotron-3-nano-30b-a3b --gpus 64 --tp 16
# list alone: both catalogs, the models then the hardware profiles
"$Z" list >"$out" 2>"$err" && grep -q "^llama-3-8b " "$out" && grep -q "^h100-80gb " "$out" &&
    [ "$(grep -n "^llama-3-8b " "$out" | cut -d: -f1)" -lt "$(grep -n "^h100-80gb " "$out" | cut -d: -f1)" ] &&
    ok || bad "zerosim list: not both catalogs, models first: $(head -c 300 "$err")"
expect 2 "expected 'models', 'hardware', 'families' or 'frameworks'" -- list gpus
expect 2 '--framework: "jax" is not one of generic|deepspeed|fsdp|fsdp2|megatron (a version: NAME@RELEASE' -- \
    estimate --model llama-2-7b --framework jax
# catalog names written as people write them: any case, any separators, the Hub's org/ and
# repository name (the entry's source); the entry used is said on stderr
for n in Llama-3-8B llama3-8b LLAMA_3_8B meta-llama/Meta-Llama-3-8B; do
    expect 0 "note: --model $n: using the catalog's llama-3-8b" -- estimate --model $n --gpus 8
    grep -q "^model  *llama-3-8b: 8,030,261,248 parameters" "$out" && ok || bad "--model $n: $(head -2 "$out")"
done
expect 0 "note: --hardware H100_80GB: using the catalog's h100-80gb" -- estimate $M --hardware H100_80GB --gpus 8
expect 0 "note: --model Qwen/Qwen3-8B: using the catalog's qwen3-8b" -- estimate --model Qwen/Qwen3-8B --gpus 8
"$Z" estimate $M --gpus 8 >"$out" 2>"$err" && [ ! -s "$err" ] && ok || bad "exact catalog name: stderr $(cat "$err")"
expect 3 'unknown hardware profile "h100": did you mean h100-80gb, h100-nvl-94gb or h100-pcie-80gb?' -- estimate $M --hardware h100
expect 3 'unknown model "llama-3-7b": did you mean llama-2-7b, llama-3-70b or llama-3-8b?' -- estimate --model llama-3-7b
expect 3 'unknown model "frobnicate" (not a file' -- estimate --model frobnicate
expect 3 "nope/x.json: cannot open" -- estimate --model nope/x.json
# the model as the one positional argument, for every command that takes --model
for c in estimate compare plan sweep; do
    "$Z" $c --model llama-3-8b --gpus 8 --format json >"$W/by_flag" 2>&1
    expect 0 "" -- $c llama-3-8b --gpus 8 --format json
    cmp -s "$out" "$W/by_flag" && ok || bad "zerosim $c llama-3-8b: not what --model llama-3-8b gives"
done
expect 0 "" -- estimate Llama-3-8B --gpus 8
expect 2 '--model gpt2: the model was already given as "llama-3-8b"' -- estimate llama-3-8b --model gpt2
expect 2 'unexpected argument "gpt2" (the model is given' -- estimate --model llama-3-8b gpt2
expect 2 'unexpected argument "gpt2" (the model is given' -- estimate --params 7e9 gpt2
expect 2 'unknown chart "llama-3-8b" (.*); for a model, use --model llama-3-8b' -- plot llama-3-8b
# a directory: a Hugging Face checkpoint folder's config.json, else said plainly
mkdir -p "$W/ckpt" "$W/empty" && cp models/llama-3-8b.json "$W/ckpt/config.json"
expect 0 "" -- estimate --model "$W/ckpt" --gpus 8
grep -q "8,030,261,248 parameters" "$out" && ok || bad "--model DIR: $(head -2 "$out")"
expect 3 "$W/empty is a directory without config.json" -- estimate --model "$W/empty"
expect 3 "is a directory, not a hardware profile" -- estimate $M --hardware "$W/empty"
expect 2 "--compat" -- estimate $M --compat vllm

# bad input files: exit 3, message names the file and the field
expect 3 "empty.json: file is empty" -- estimate --model $D/empty.json
expect 3 "truncated.json:1:.*truncated" -- estimate --model $D/truncated.json
expect 3 "binary.bin: contains NUL" -- estimate --model $D/binary.bin
expect 3 "malformed.json:1:.*invalid JSON" -- estimate --model $D/malformed.json
expect 3 "missing_hidden.json: missing field \"hidden_size\"" -- estimate --model $D/missing_hidden.json
expect 3 "negative.json: field \"hidden_size\"" -- estimate --model $D/negative.json
expect 3 "nonnumeric.json: field \"hidden_size\": expected a number" -- estimate --model $D/nonnumeric.json
expect 3 "absurd_layers.json: field \"num_hidden_layers\"" -- estimate --model $D/absurd_layers.json
# past JSON's exact integers: the value as written and model_validate's range, not +-2^53
expect 3 'huge_layers.json: field "num_hidden_layers": 18446744073709551616 is out of range (expected 1 to 100000)' -- estimate --model $D/huge_layers.json
expect 3 'absurd_layers.json: field "num_hidden_layers": 1e+300 is out of range (expected 1 to 100000)' -- estimate --model $D/absurd_layers.json
# experts without their top-k: the field is missing, not 0
expect 3 'moe_no_topk.json: field "num_experts_per_tok" is missing: an MoE config (8 experts) needs the experts per token' -- estimate --model $D/moe_no_topk.json
expect 3 "heads_not_dividing.json: field \"num_attention_heads\"" -- estimate --model $D/heads_not_dividing.json
expect 3 "unknown_type.json: field \"model_type\": \"mamba\"" -- estimate --model $D/unknown_type.json
expect 3 "array.json: expected a JSON object" -- estimate --model $D/array.json
# an unknown decoder: a generic one with a warning naming the type and the keys not understood;
# --strict refuses it
expect 0 "warning: .*unknown_decoder.json: model_type \"frobnicator\"" -- estimate --model tests/data/models/unknown_decoder.json --gpus 8 --format json
expect 0 "keys not understood.*frob_factor, cross_layer_memory" -- estimate --model tests/data/models/unknown_decoder.json --gpus 8 --format json
expect 3 "unknown_decoder.json: field \"model_type\": \"frobnicator\".*--strict" -- estimate --model tests/data/models/unknown_decoder.json --strict
expect 3 "no-such.json" -- estimate --model tests/data/no-such.json
expect 3 "unknown model \"llama-9\"" -- estimate --model llama-9
expect 3 "unknown hardware profile \"tpu-v9\"" -- estimate $M --hardware tpu-v9
expect 3 "models/llama-2-7b.json: missing section \"gpu\"" -- estimate $M --hardware models/llama-2-7b.json
expect 3 "empty.json" -- estimate $M --deepspeed $D/empty.json

# help goes to stdout with status 0
"$Z" --help >"$out" 2>"$err" && grep -q "estimate" "$out" && ok || bad "zerosim --help"
"$Z" estimate --help >"$out" 2>"$err" && grep -q -- "--offload-optimizer" "$out" && grep -q -- "--deepspeed" "$out" && ok || bad "zerosim estimate --help"
"$Z" list models >"$out" 2>"$err" && grep -q "llama-3.1-405b" "$out" && ok || bad "zerosim list models"
"$Z" list hardware >"$out" 2>"$err" && grep -q "h100-80gb" "$out" && ok || bad "zerosim list hardware"

# a closed pipe is not an error
"$Z" list models 2>"$err" | head -1 >/dev/null; [ ! -s "$err" ] && ok || bad "closed pipe printed: $(cat "$err")"

# --- units (issue 14): one rule for sizes (the unit is written; GB = 10^9, GiB = 2^30, IEC
# 80000-13) and one for counts (k/M/B/T decimal, Ki/Mi/Gi/Ti binary) ---
expect 2 "did you mean 80GiB?" -- estimate $M --hbm 80
expect 2 "ambiguous" -- estimate $M --hbm 80G
# 80GB = 80e9 B = 74.51 GiB, and the header says both, and that it replaced the profile's.
"$Z" estimate $M --hbm 80GB --strategy zero3 >"$out" 2>"$err"; grep -q "74.51 GiB HBM (80.00 GB; --hbm, profile 80.00 GiB)" "$out" && ok || bad "--hbm 80GB header: $(sed -n 2p "$out")"
json_check "d['training']['seq_len'] == 8192" estimate $M --seq-len 8Ki --strategy zero3 --format json
json_check "d['training']['seq_len'] == 8192" estimate $M --seq-len 8k --strategy zero3 --format json
json_check "d['training']['seq_len'] == 1048576" estimate $M --seq-len 1M --gpus 64 --cp 64 --strategy zero3 --format json
# 12 GPUs on 8-GPU nodes: one full node and a partial one, not "2 node(s) x 8".
"$Z" estimate $M --gpus 12 --strategy zero3 >"$out" 2>"$err"; grep -q "12 GPUs = 1 node x 8 + 1 node x 4" "$out" && ok || bad "partial node layout: $(sed -n 2p "$out")"
# Llama's 4M-token batch is 2048 x 2048 = 4Mi tokens (arXiv 2302.13971, section 2.2): the
# default and --global-batch-tokens 4Mi agree; 4M = 4e6 tokens at 4096 is 977 sequences (a
# prime), rounded to the nearest batch some configuration divides, with a note.
json_check "d['global_batch'] == 2048" plan $M --max-gpus 8 --top 1 --format json
json_check "d['global_batch'] == 1024" plan $M --seq-len 4096 --global-batch-tokens 4Mi --max-gpus 8 --top 1 --format json
json_check "d['global_batch_requested'] == 977 and d['global_batch'] == 976 and d['ranked']" plan $M --seq-len 4096 --global-batch-tokens 4M --max-gpus 64 --no-tp --no-pp --no-offload --top 1 --format json

# --- help and habits (issue 14) ---
"$Z" --version >"$out" 2>"$err" && grep -qE '^zerosim [0-9]+\.[0-9]+\.[0-9]+$' "$out" && ok || bad "--version: $(cat "$out" "$err")"
expect 2 "did you mean --gpus?" -- estimate $M --gpu 8
expect 2 "did you mean --offload-optimizer or --offload-params?" -- estimate $M --offload cpu
expect 2 "did you mean plan?" -- plna $M
# one error line, for a bad list kind and for a value holding a line break
"$Z" list x >"$out" 2>"$err"; [ $? -eq 2 ] && [ "$(wc -l <"$err")" -eq 1 ] && ok || bad "list x: $(cat "$err")"
"$Z" estimate --model "$(printf 'llama\n-2-7b')" >"$out" 2>"$err"; [ $? -eq 2 ] && [ "$(wc -l <"$err")" -eq 1 ] && ok || bad "newline value: $(cat "$err")"
"$Z" "$(printf 'plan\nx')" >"$out" 2>"$err"; [ $? -eq 2 ] && [ "$(wc -l <"$err")" -eq 1 ] && ok || bad "newline command: $(cat "$err")"
# --strategy lists longer than 127 characters are read whole (once cut, and the cut name refused).
L=zero3; for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do L="$L,zero3"; done
json_check "[r['strategy'] for r in d['results']] == ['zero3']" estimate $M --gpus 8 --strategy "$L" --format json
# When nothing fits, the planner's suggestion is one that does: run it and see it fit.
"$Z" estimate --model llama-2-70b --gpus 4 --strategy zero3 >"$out" 2>"$err"
hint=$(sed -n 's/^Nothing fits as given; fits with \(.*\) (.*/\1/p' "$out")
[ -n "$hint" ] && "$Z" estimate --model llama-2-70b --gpus 4 --strategy zero3 $hint >/dev/null 2>&1 && ok || bad "estimate suggestion '$hint' does not fit: $(tail -1 "$out")"
"$Z" plan --model llama-2-70b --max-gpus 4 --no-offload >"$out" 2>"$err"
hint=$(sed -n 's/^Nothing fits; fits with \(--max-gpus [0-9]*\) (.*/\1/p' "$out")
[ -n "$hint" ] && "$Z" plan --model llama-2-70b --no-offload $hint >/dev/null 2>&1 && ok || bad "plan suggestion '$hint': $(sed -n 4p "$out")"

# Error paths after a swept flag was expanded, and in plan --max-model: under the sanitized
# pass (make test-sanitize) LeakSanitizer would turn these into a long report and exit 23.
expect 2 "unknown option --frob" -- sweep $M --gpus 8,16 --frob
expect 3 "/nonexistent" -- sweep --model /nonexistent/m.json --gpus 8,16 --micro-batch 1,2
expect 2 "unexpected argument" -- sweep $M --gpus 8,16 stray
expect 2 "--gpus-list" -- plan --max-model $M --gpus-list 8,abc
expect 2 "at most 64" -- plan --max-model $M --gpus-list 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65

# fuzz_flags's dictionary names every option estimate shares with the other commands (a new
# flag left out of it is one the fuzzer finds only by chance).
"$Z" estimate --help 2>/dev/null | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' | grep -v -e '^--compat$' -e '^--distributed-optimizer$' >"$W/opts"
missing=$(while read -r o; do grep -q "^\"$o\\\\x0A\"$" tests/fuzz/flags.dict || echo "$o"; done <"$W/opts")
[ -s "$W/opts" ] && [ -z "$missing" ] && ok || bad "tests/fuzz/flags.dict lacks: $missing"

finish
