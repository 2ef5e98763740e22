#!/bin/sh
# serve.sh -- `zerosim serve` (issue 26) over the loopback with curl: the page and its files with
# their types and security headers, /api/v1/call's answers byte for byte the CLI's --format json,
# the catalogs, uploads through temporary files that are gone afterwards, the report download,
# refusals (400 with the CLI's message, 404, 405, 413, 415, 421), nothing reached on the file
# system or the network, and a clean stop at SIGTERM and SIGINT. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
if ! command -v curl >/dev/null 2>&1; then
    echo "serve.sh skipped: curl is not installed"
    echo "0 passed, 0 failed"
    exit 0
fi
Zabs=$(cd "$(dirname "$Z")" && pwd)/$(basename "$Z")
mkdir "$W/tmp"

# start: run the server on a free loopback port (its own TMPDIR), set $pid and $base.
start() {
    # The last server's log goes first: its "Ctrl-C stops" line, read before the new server
    # has truncated the file, sent the next signal to a process not yet listening for it.
    rm -f "$W/serve.err"
    TMPDIR=$W/tmp "$Zabs" serve --port 0 "$@" 2>"$W/serve.err" &
    pid=$!
    i=0
    while [ $i -lt 400 ] && ! grep -q 'Ctrl-C stops' "$W/serve.err" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
    port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$W/serve.err")
    base=http://127.0.0.1:$port
}
# get METHOD PATH [curl args]: the status in $code, the body in $out, the headers in $W/h.
get() {
    m=$1 p=$2
    shift 2
    code=$(curl -s --path-as-is -o "$out" -D "$W/h" -w '%{http_code}' -X "$m" "$@" "$base$p")
}
post() { get POST /api/v1/call -H 'Content-Type: application/json' --data-binary "$1"; }
header() { grep -i "^$1:" "$W/h" | head -1 | cut -d' ' -f2- | tr -d '\r'; }
is() { [ "$1" = "$2" ] && ok || bad "$3: got '$1', want '$2'"; }
# same REQUEST ARGS...: /api/v1/call's answer is byte for byte zerosim ARGS --format json.
same() {
    req=$1
    shift
    post "$req"
    "$Z" "$@" --format json >"$W/cli.json" 2>/dev/null
    if [ "$code" = 200 ] && cmp -s "$out" "$W/cli.json"; then ok; else bad "$req -> $code, differs from zerosim $*"; fi
}
# refused REQUEST STATUS MESSAGE: the error object's message is MESSAGE exactly.
refused() {
    post "$1"
    msg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["error"]["message"])' "$out" 2>&1)
    if [ "$code" = "$2" ] && [ "$msg" = "$3" ]; then ok; else bad "$1 -> $code '$msg', want $2 '$3'"; fi
}
# cli_msg ARGS...: the CLI's one-line message for ARGS, without "zerosim CMD: ".
# The server names its catalogs relative to them ("not in models"): the folder's path left out.
cli_msg() { "$Z" "$@" 2>&1 >/dev/null | head -1 | sed -e 's/^zerosim [a-z]*: //' -e "s|$(pwd)/||g"; }

start
[ -n "$port" ] && ok || bad "serve did not print its address: $(cat "$W/serve.err")"

# --- the page and its files ---------------------------------------------------------------------
get GET /
is "$code" 200 "GET /"
is "$(header Content-Type)" "text/html; charset=utf-8" "GET / type"
csp=$(header Content-Security-Policy)
case $csp in *"script-src 'self'"*"style-src 'self'"*) ok ;; *) bad "CSP: $csp" ;; esac
case $csp in *unsafe*) bad "CSP allows unsafe: $csp" ;; *) ok ;; esac
is "$(header X-Content-Type-Options)" nosniff "nosniff"
is "$(header X-Frame-Options)" DENY "X-Frame-Options"
grep -q '<script src="/app.js"' "$out" && ok || bad "the page does not load /app.js"
# No inline script and no inline style: the CSP would block them.
grep -Eq '<script[^>]*>[^<]|<style| style=|on(click|load|input)=' "$out" && bad "inline script or style in the page" || ok
get GET /app.js
is "$code $(header Content-Type)" "200 text/javascript; charset=utf-8" "GET /app.js"
cmp -s "$out" src/serve/web/app.js && ok || bad "/app.js is not src/serve/web/app.js"
get GET /style.css
is "$code $(header Content-Type)" "200 text/css; charset=utf-8" "GET /style.css"
get GET /favicon.svg
is "$code $(header Content-Type)" "200 image/svg+xml" "GET /favicon.svg"
get HEAD /
is "$code" 200 "HEAD /"
# Nothing but the embedded files: no listing, no path out of the page's folder, no source file.
for p in /web/ /src/serve/web/app.js /../../../etc/passwd /%2e%2e/%2e%2e/etc/passwd /index.html/ /Makefile \
    /api/ /api/v1/; do
    get GET "$p"
    is "$code" 404 "GET $p"
done
is "$(header Content-Type)" application/json "404's type"

# --- the catalogs ---------------------------------------------------------------------------------
get GET /api/v1/models
want=$(ls models | sed -n 's/\.json$//p' | sort | tr '\n' ' ')
have=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["models"]), end=" ")' "$out")
is "$have" "$want" "/api/v1/models against models/"
get GET /api/v1/hardware
want=$(ls hardware | sed -n 's/\.json$//p' | sort | tr '\n' ' ')
have=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["hardware"]), end=" ")' "$out")
is "$have" "$want" "/api/v1/hardware against hardware/"

# --- /api/v1/call: the CLI's JSON, byte for byte ----------------------------------------------
same '{"command":"compare","model":"llama-2-7b","hardware":"a100-80gb","gpus":8}' \
    compare --model llama-2-7b --hardware a100-80gb --gpus 8
is "$(header Content-Type)" application/json "/api/v1/call's type"
is "$(header X-Zerosim-Cache)" miss "a first request is computed"
# Asked again: the kept answer, the same bytes.
same '{"command":"compare","model":"llama-2-7b","hardware":"a100-80gb","gpus":8}' \
    compare --model llama-2-7b --hardware a100-80gb --gpus 8
is "$(header X-Zerosim-Cache)" hit "the same request again"
same '{"command":"compare","model":"llama-2-70b","hardware":"h100-80gb","gpus":64,"seq_len":4096,
       "checkpointing":"full","framework":"deepspeed","tokens":"2e12","tp":2}' \
    compare --model llama-2-70b --hardware h100-80gb --gpus 64 --seq-len 4096 --checkpointing full \
    --framework deepspeed --tokens 2e12 --tp 2
same '{"command":"estimate","model":"llama-3-8b","gpus":16,"finetune":"lora","offload-optimizer":"cpu"}' \
    estimate --model llama-3-8b --gpus 16 --finetune lora --offload-optimizer cpu
same '{"command":"plan","model":"llama-2-7b","max-gpus":16,"top":3}' plan --model llama-2-7b --max-gpus 16 --top 3
# Nothing fits: 200 with the JSON that says so, as the CLI prints it (exit 1).
same '{"command":"compare","model":"llama-3.1-405b","hardware":"rtx4090-24gb","gpus":1,"max-gpus":1}' \
    compare --model llama-3.1-405b --hardware rtx4090-24gb --gpus 1 --max-gpus 1

# --- refusals: 400 with the CLI's one-line message -------------------------------------------
refused '{"command":"compare","model":"llama-2-7b","gpus":"x"}' 400 "$(cli_msg compare --model llama-2-7b --gpus x)"
refused '{"command":"compare","model":"llama-2-7b","gpu":8}' 400 "$(cli_msg compare --model llama-2-7b --gpu 8)"
refused '{"command":"compare","model":"lama-2-7b"}' 400 "$(cli_msg compare --model lama-2-7b)"
refused '{"command":"compare","model":"llama-2-7b","strategy":"zero4"}' 400 \
    "$(cli_msg compare --model llama-2-7b --strategy zero4)"
refused '{"command":"compare",' 400 "the request is not a JSON object"
refused '[1,2]' 400 "the request is not a JSON object"
refused '{"command":"explode"}' 400 \
    '"command": expected estimate, compare, plan, sweep, validate, report or list'
# Files on the server are never named by a request; Hub ids (a download) are refused.
refused '{"command":"compare","model":"../../etc/passwd"}' 400 \
    '--model ../../etc/passwd: a served request names a catalog entry (letters, digits, . _ -), not a file; upload a config in "files"'
for r in '{"command":"compare","model":"/etc/passwd"}' '{"command":"compare","model":"x.json"}' \
    '{"command":"compare","model":"meta-llama/Llama-2-7b-hf"}' '{"command":"compare","hardware":"../hardware/a100-80gb"}' \
    '{"command":"compare","model":"llama-2-7b","weights":"/etc"}' '{"command":"compare","model":"llama-2-7b","config":"/etc/passwd"}' \
    '{"command":"compare","model":"llama-2-7b","deepspeed":"/etc/passwd"}' '{"command":"validate","args":["/etc/passwd"]}' \
    '{"command":"report","model":"llama-2-7b","output":"/tmp/x.html"}' '{"command":"estimate","model":"llama-2-7b","args":["x"]}' \
    '{"command":"compare","model":"llama-2-7b","max-gpus":1000000}' '{"command":"compare","model":["llama-2-7b","/etc/passwd"]}'; do
    post "$r"
    is "$code" 400 "$r"
done
[ ! -e /tmp/x.html ] && ok || bad "a request wrote /tmp/x.html"

# --- methods, sizes, types, hosts -------------------------------------------------------------
get GET /api/v1/call
is "$code $(header Allow)" "405 POST" "GET /api/v1/call"
get POST / -d x
is "$code" 405 "POST /"
get DELETE /api/v1/models
is "$code" 405 "DELETE /api/v1/models"
head -c 1100000 /dev/zero | tr '\0' ' ' >"$W/big"
get POST /api/v1/call -H 'Content-Type: application/json' --data-binary "@$W/big"
is "$code" 413 "a 1.1 MB body"
get POST /api/v1/call -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' --data-binary "@$W/big"
is "$code" 413 "a 1.1 MB chunked body"
get POST /api/v1/call -H 'Content-Type: text/plain' --data-binary '{"command":"list","what":"models"}'
is "$code" 415 "text/plain"
get GET / -H 'Host: attacker.example:8080'
is "$code" 421 "a foreign Host"
get GET / -H "Host: localhost:$port"
is "$code" 200 "Host: localhost"

# --- uploads: temporary files the server deletes -----------------------------------------------
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
cfg = open('models/llama-2-7b.json').read()
ds = json.dumps({"zero_optimization": {"stage": 3}, "bf16": {"enabled": True}, "train_micro_batch_size_per_gpu": 2})
json.dump({"command": "compare", "gpus": 8, "files": {"model": cfg, "deepspeed": ds}}, open(w + '/up.json', 'w'))
yml = "deepspeed: /etc/passwd\nmicro_batch_size: 2\n"
json.dump({"command": "compare", "model": "llama-2-7b", "files": {"config": yml}}, open(w + '/up2.json', 'w'))
yml = "base_model: NousResearch/Llama-2-7b-hf\ndeepspeed: ds_config.json\nmicro_batch_size: 2\nsequence_len: 1024\n"
json.dump({"command": "compare", "model": "llama-2-7b", "files": {"config": yml, "deepspeed": ds}}, open(w + '/up3.json', 'w'))
json.dump({"command": "compare", "files": {"model": "{not json"}}, open(w + '/up4.json', 'w'))
# A launch YAML's model by Hub id or path, with no model in the request: refused (no download).
json.dump({"command": "compare", "files": {"config": "base_model: /etc/passwd\n"}}, open(w + '/up5.json', 'w'))
mkdir = __import__('os').makedirs
mkdir(w + '/u', exist_ok=True)
open(w + '/u/config.json', 'w').write(cfg)
open(w + '/u/ds_config.json', 'w').write(ds)
open(w + '/u/config.yaml', 'w').write(yml)
PY
(cd "$W/u" && ZEROSIM_DATA=$OLDPWD "$Zabs" compare --model config.json --deepspeed ds_config.json --gpus 8 --format json >"$W/cli.json" 2>/dev/null)
post "@$W/up.json"
[ "$code" = 200 ] && cmp -s "$out" "$W/cli.json" && ok || bad "uploaded config.json + ds_config -> $code, differs from the CLI on the same files"
post "@$W/up.json"
is "$(header X-Zerosim-Cache)" miss "an upload's answer is never kept"
(cd "$W/u" && ZEROSIM_DATA=$OLDPWD "$Zabs" compare --model llama-2-7b --config config.yaml --deepspeed ds_config.json --format json >"$W/cli.json" 2>/dev/null)
post "@$W/up3.json"
[ "$code" = 200 ] && cmp -s "$out" "$W/cli.json" && ok || bad "uploaded launch YAML naming the uploaded ds_config -> $code: $(diff "$out" "$W/cli.json" | head -5)"
post "@$W/up2.json"
is "$code" 400 "an uploaded YAML naming /etc/passwd"
post "@$W/up5.json"
is "$code" 400 "an uploaded YAML naming its model by path"
post "@$W/up4.json"
is "$code" 400 "an uploaded config that is not JSON"
grep -q '"message":"config.json:' "$out" && ok || bad "the upload's message names it config.json: $(cat "$out")"
grep -q "$W/tmp" "$out" && bad "a message shows the temporary path: $(cat "$out")" || ok
is "$(ls "$W"/tmp/zerosim-serve-*/uploads | wc -l)" 0 "uploads left behind"

# --- the report download --------------------------------------------------------------------------
get POST /api/v1/report -H 'Content-Type: application/json' \
    --data-binary '{"command":"report","model":"llama-2-7b","hardware":"a100-80gb","gpus":8,"tokens":"1e12"}'
# From the source tree, the CLI names its catalog files models/NAME.json, as the server does.
"$Z" report --model llama-2-7b --hardware a100-80gb --gpus 8 --tokens 1e12 -o - >"$W/report.html" 2>/dev/null
[ "$code" = 200 ] && cmp -s "$out" "$W/report.html" && ok || bad "/api/v1/report -> $code, not the CLI's report"
is "$(header Content-Type)" "text/html; charset=utf-8" "the report's type"
is "$(header Content-Disposition)" 'attachment; filename="zerosim-report.html"' "the report's disposition"
get POST /api/v1/report --data-urlencode 'request={"command":"report","model":"llama-2-7b","hardware":"a100-80gb","gpus":8,"tokens":"1e12"}'
[ "$code" = 200 ] && cmp -s "$out" "$W/report.html" && ok || bad "/api/v1/report as a form -> $code"
get POST /api/v1/report -H 'Content-Type: application/json' --data-binary '{"command":"compare","model":"llama-2-7b"}'
is "$code" 400 "/api/v1/report with compare"

# --- the fuzz pass: malformed HTTP and JSON, the per-client limit (tests/perf/serve_fuzz.py) ---------
if python3 tests/perf/serve_fuzz.py "$port" 26 200 400 >"$W/fuzz.log" 2>&1; then ok; else
    bad "fuzz pass: $(tail -5 "$W/fuzz.log")"
fi
tail -1 "$W/fuzz.log"

# --- stopping ---------------------------------------------------------------------------------------
kill -TERM "$pid"
wait "$pid"
is "$?" 0 "exit status after SIGTERM"
grep -q 'stopped (SIGTERM)' "$W/serve.err" && ok || bad "no stop line: $(cat "$W/serve.err")"
is "$(ls "$W/tmp" | wc -l)" 0 "the temporary folder after SIGTERM"
start
kill -INT "$pid"
wait "$pid"
is "$?" 0 "exit status after SIGINT"
grep -q 'stopped (SIGINT)' "$W/serve.err" && ok || bad "no stop line after SIGINT"

# --- the command line -------------------------------------------------------------------------------
expect 2 "--port: " -- serve --port 70000
expect 2 "unknown option" -- serve --prot 8080
expect 2 "unexpected argument" -- serve now
expect 3 "--models /nonexistent: expected a folder" -- serve --models /nonexistent
expect 2 "--bind nowhere: expected an IPv4" -- serve --port 0 --bind nowhere
# Any other address: a warning first (192.0.2.1 is TEST-NET-1, on no machine: no listening).
expect 4 "warning: --bind 192.0.2.1: other machines can reach" -- serve --port 0 --bind 192.0.2.1
start
[ -n "$port" ] && ok || bad "serve did not start: $(cat "$W/serve.err")"
p1=$port pid1=$pid
expect 4 "cannot listen on 127.0.0.1 port $p1" -- serve --port "$p1"
kill -TERM "$pid1"
wait "$pid1"
"$Z" serve --help | grep -q 'usage: zerosim serve' && ok || bad "serve --help"
"$Z" --help | grep -q '^  serve ' && ok || bad "serve is not in zerosim --help"
finish
