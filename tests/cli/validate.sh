#!/bin/sh
# validate.sh -- validate: error bounds, bad runs files, round trip, per framework, hand-written files.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# validation against published runs: the error bound the README states (MAPE <= 15%, median <= 10%)
json_check "d['count'] >= 70 and d['mape'] <= 0.15 and sorted(abs(r['error']) for r in d['runs'])[len(d['runs'])//2] <= 0.10" validate tests/validation/published_runs.csv --format json
expect 3 "runs_bad_number.csv:2: column \"gpus\"" -- validate $D/runs_bad_number.csv
expect 3 "runs_missing_column.csv:1: header lacks column \"hardware\"" -- validate $D/runs_missing_column.csv
expect 3 "runs_no_measurement.csv:2: no measurement" -- validate $D/runs_no_measurement.csv
expect 3 "empty.json: file is empty" -- validate $D/empty.json
expect 2 "" -- validate

# round trip: estimate's JSON, written as measured runs, validates with zero error
T=$(mktemp -d)
for cfg in "--gpus 16 --micro-batch 2 --grad-accum 4" "--gpus 64 --tp 2 --pp 2 --checkpointing full" "--gpus 8 --seq-len 4096"; do
    "$Z" estimate $M $cfg --format json >>$T/est.jsonl 2>/dev/null
    echo "$cfg" >>$T/cfgs.txt
done
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
docs, buf = [], ''
for line in open(f'{t}/est.jsonl'):
    buf += line
    if line.startswith('}'):
        docs.append(json.loads(buf)); buf = ''
runs = []
for d in docs:
    tr = d['training']
    for r in d['results']:
        runs.append({'name': f"{r['strategy']}-{tr['gpus']}", 'model': d['model']['name'], 'hardware': d['hardware']['name'],
                     'gpus': tr['gpus'], 'gpus_per_node': tr['gpus_per_node'], 'strategy': r['strategy'], 'tp': tr['tp'], 'pp': tr['pp'],
                     'micro_batch': tr['micro_batch'], 'global_batch': tr['micro_batch'] * tr['dp'] * tr['grad_accum'],
                     'seq_len': tr['seq_len'], 'precision': tr['precision'], 'checkpointing': tr['checkpointing'],
                     'sequence_parallel': tr['sequence_parallel'], 'measured_step_seconds': r['step_time_seconds']['total']})
json.dump(runs, open(f'{t}/runs.json', 'w'))
PY
json_check "d['count'] == 12 and d['mape'] < 1e-9" validate $T/runs.json --format json
rm -rf "$T"

# Validation per framework: the held-out half (2nd, 4th, .. run of each framework) with the
# shipped efficiencies stays within the bounds the README reports.
json_check "all(f['mape_held_out_shipped'] <= {'megatron': 0.05, 'fsdp': 0.10, 'deepspeed': 0.15}[f['framework']] for f in d['frameworks']) and len(d['frameworks']) == 3" validate tests/validation/published_runs.csv tests/validation/framework_runs.csv --fit --format json

# --- validate: runs files as written by hand and by other tools (issue 14) ---------------------
V=$(mktemp -d)
HDR='name,model,hardware,gpus,strategy,global_batch,seq_len,measured_step_seconds,measured_mfu,source'
ROW='llama-2-7b,a100-80gb,8,zero2,8,2048'
# measured_mfu is a fraction (PaLM appendix B: MFU = achieved / peak FLOP/s); 45 is a percentage.
printf '%s\nr1,%s,,45,x\n' "$HDR" "$ROW" >"$V/pct.csv"
expect 3 'pct.csv:2: column "measured_mfu": expected a fraction' -- validate "$V/pct.csv"
printf '%s\nr1,%s,,0.45,x\n' "$HDR" "$ROW" >"$V/ok.csv"
expect 2 '--filter "nomatch": no run name' -- validate "$V/ok.csv" --filter nomatch
# The shipped file names its models relative to the repository: it works from any directory
# (ZEROSIM_DATA says where the catalogs are, for a binary built outside the repository root).
R=$(pwd)/tests/validation/published_runs.csv
ZA=$Z; case $ZA in /*) ;; *) ZA=$(pwd)/$ZA ;; esac
ZD=${ZEROSIM_DATA:-$(pwd)}
(cd "$V" && ZEROSIM_DATA=$ZD "$ZA" validate "$R" --format json) >"$out" 2>"$err"
py_check "validate published_runs.csv from another directory: $(head -c 300 "$err")" "import json,sys; d=json.load(open('$(snap "$out")')); assert d['count'] >= 60" || bad "validate published_runs.csv from another directory: $(head -c 300 "$err")"
# A model path relative to the runs file is found next to it.
mkdir -p "$V/sub/m" && cp models/llama-2-7b.json "$V/sub/m/my.json"
printf '%s\nrel,m/my.json,a100-80gb,8,zero2,8,2048,1.0,,x\n' "$HDR" >"$V/sub/rel.csv"
(cd / && ZEROSIM_DATA=$ZD "$ZA" validate "$V/sub/rel.csv" --format csv) >"$out" 2>"$err" && ok || bad "model path relative to the runs file: $(head -c 300 "$err")"
# RFC 4180 input: a UTF-8 byte-order mark (Excel's "CSV UTF-8"), a quoted field holding a
# newline, CRLF line ends, and blank lines that still count in line numbers.
printf '\357\273\277%s\r\nbom-first,%s,1.0,,"two\r\nlines"\r\n\r\nsecond,%s,1.0,,x\r\n' "$HDR" "$ROW" "$ROW" >"$V/rfc.csv"
"$Z" validate "$V/rfc.csv" --format csv >"$out" 2>"$err"
py_check "BOM / multi-line field / CRLF: $(head -c 300 "$err")" "
import csv, sys
rows = list(csv.DictReader(open('$(snap "$out")', newline='')))
assert [r['name'] for r in rows] == ['bom-first', 'second'], rows
" || bad "BOM / multi-line field / CRLF: $(head -c 300 "$err")"
printf '%s\n\n\n"a\nb",%s,1.0,,x\nbad,%s,abc,,x\n' "$HDR" "$ROW" "$ROW" >"$V/lines.csv"
expect 3 'lines.csv:6: column "measured_step_seconds"' -- validate "$V/lines.csv"
# A JSON run with more than 64 keys: every key is read, wherever it stands.
python3 - "$V/wide.json" <<'PY'
import json, sys
run = {f"note_{i}": i for i in range(80)}
run.update(name="wide", model="llama-2-7b", hardware="a100-80gb", gpus=8, strategy="zero2",
           global_batch=8, seq_len=2048, measured_step_seconds=1.0)
json.dump([run], open(sys.argv[1], "w"))
PY
json_check "d['count'] == 1 and d['runs'][0]['name'] == 'wide'" validate "$V/wide.json" --format json
# CSV output is RFC 4180: names with a quote, a comma or a newline come back intact through
# Python's csv module (an independent reader).
python3 - "$V/names.json" <<'PY'
import json, sys
base = dict(model="llama-2-7b", hardware="a100-80gb", gpus=8, strategy="zero2", global_batch=8,
            seq_len=2048, measured_step_seconds=1.0)
json.dump([dict(base, name=n) for n in ['say "hi"', 'a,b', 'line\nbreak', ' padded ']],
          open(sys.argv[1], "w"))
PY
"$Z" validate "$V/names.json" --format csv >"$out" 2>"$err"
py_check "validate --format csv quoting: $(head -c 400 "$out") $(head -c 300 "$err")" "
import csv, sys
rows = list(csv.DictReader(open('$(snap "$out")', newline='')))
assert [r['name'] for r in rows] == ['say \"hi\"', 'a,b', 'line\nbreak', ' padded '], rows
assert all(float(r['measured']) == 1.0 for r in rows), rows
" || bad "validate --format csv quoting: $(head -c 400 "$out") $(head -c 300 "$err")"
# With several runs files, an error names the file the bad run is in (here the second).
printf '%s\nbad-model,no-such-model,a100-80gb,8,zero2,8,2048,1.0,,x\n' "$HDR" >"$V/second.csv"
expect 3 'second.csv: unknown model "no-such-model"' -- validate "$V/ok.csv" "$V/second.csv"
rm -rf "$V"

finish
