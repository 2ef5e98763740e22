#!/bin/sh
# sweep.sh -- sweep: rows per grid point, CSV and JSON lines, row caps, repeated flags.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# sweep: one row per grid point and strategy; infeasible and invalid rows stay, marked
"$Z" sweep $M --gpus 8:64:x2 --micro-batch 1,2,4 --strategy all >"$out" 2>"$err"; [ "$(wc -l <"$out")" -eq $((1 + 4 * 3 * 4)) ] && ok || bad "sweep row count: $(wc -l <"$out")"
"$Z" sweep $M --gpus 8,12 --tp 8 --strategy zero3 >"$out" 2>"$err"; grep -q 'false,--gpus 12 is not a multiple' "$out" && ok || bad "sweep invalid row not marked"
"$Z" sweep --params 1e12 --gpus 8 --strategy ddp --format json >"$out" 2>"$err"; py_check "sweep json lines" "import json,sys; r=[json.loads(l) for l in open('$(snap "$out")')]; assert len(r)==1 and r[0]['fits'] is False" || bad "sweep json lines"
expect 2 "--gpus" -- sweep $M --gpus 64:8:x2
expect 2 "--gpus" -- sweep $M --gpus 1:8:x1
expect 2 "--micro-batch: empty item" -- sweep $M --micro-batch 1,,2
expect 2 "--precision" -- sweep $M --precision bf16,fp12

# --- sweep (issue 14) ---
# estimate's CSV and sweep's CSV have the same columns.
"$Z" estimate $M --gpus 8 --format csv >"$out" 2>"$err"; h1=$(head -1 "$out")
"$Z" sweep $M --gpus 8 >"$out" 2>"$err"; [ "$h1" = "$(head -1 "$out")" ] && ok || bad "estimate and sweep CSV headers differ"
# A row names every degree it was computed at (CP and EP too), and its step-time parts add up
# to its total, the framework's per-step overhead (FSDP2's is not zero) included.
"$Z" sweep --model mixtral-8x7b --hardware h100-80gb --gpus 16 --cp 2 --ep 2 --framework fsdp2 --strategy zero3 --format json >"$out" 2>"$err"
py_check "sweep row's degrees and step parts" "
import json; r = json.loads(open('$(snap "$out")').readline())
assert (r['tp'], r['pp'], r['cp'], r['ep'], r['dp']) == (1, 1, 2, 2, 8), r
parts = sum(v for k, v in r.items() if k.startswith('step_time_seconds.') and k != 'step_time_seconds.total')
assert r['step_time_seconds.framework_overhead'] > 0 and abs(parts / r['step_time_seconds.total'] - 1) < 1e-7, (parts, r)" || bad "sweep row's degrees and step parts"
# 16 flags x 4096 values = 4096^16 ~ 10^57 rows: refused at once, the count does not overflow.
expect 2 "more than 1000000 rows" -- sweep $M --gpus 1:4096 --micro-batch 1:4096 --seq-len 1:4096 --grad-accum 1:4096 --tp 1:4096 --pp 1:4096
expect 2 "more than 100 rows" -- sweep $M --gpus 1:200 --strategy zero3 --max-rows 100
"$Z" sweep $M --gpus 1:200 --strategy zero3 --max-rows 200 >"$out" 2>"$err" && [ "$(wc -l <"$out")" -eq 201 ] && ok || bad "--max-rows 200: $(head -c 300 "$err")"
# A repeated swept flag is an error, not duplicate rows.
expect 2 "--gpus given twice" -- sweep $M --gpus 8 --gpus 16
expect 2 "--strategy given twice" -- sweep $M --strategy zero2 --strategy zero3
# A model name with a comma stays one CSV field (RFC 4180 quoting).
T=$(mktemp -d)
sed 's/"name": *"[^"]*"/"name": "llama, 7b"/' models/llama-2-7b.json >"$T/m.json"
"$Z" sweep --model "$T/m.json" --gpus 8 --strategy zero3 >"$out" 2>"$err"
py_check "csv quoting: $(head -2 "$out")" "import csv; r=list(csv.DictReader(open('$(snap "$out")'))); assert len(r)==1 and r[0]['model']=='llama, 7b' and r[0]['strategy']=='zero3'" || bad "csv quoting: $(head -2 "$out")"
rm -rf "$T"
# a sequence-length range takes context-length suffixes: 1k:4k:x2 is 1024, 2048, 4096
"$Z" sweep --model llama-2-7b --gpus 8 --strategy zero3 --seq-len 1k:4k:x2 >"$out" 2>"$err"
py_check "seq-len range 1k:4k:x2" "import csv; r=list(csv.DictReader(open('$(snap "$out")'))); assert [x['seq_len'] for x in r] == ['1024', '2048', '4096'], r"

finish
