#!/bin/sh
# hub.sh -- models by Hugging Face Hub id (--model org/name[@revision]): the local cache as
# transformers lays it out, then a download from a local stand-in for the Hub (hub_server.py,
# bound to 127.0.0.1; no other address is contacted). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
    echo "hub.sh skipped: python3 is not installed (the stand-in Hub server needs it)"
    echo "0 passed, 0 failed"
    exit 0
fi
unset HF_HUB_CACHE HF_HOME HF_TOKEN HF_HUB_OFFLINE XDG_CACHE_HOME
# Nothing listens on port 9 of the loopback: a run that tried the network would fail, not leak.
export HF_ENDPOINT=http://127.0.0.1:9
Zabs=$(cd "$(dirname "$Z")" && pwd)/$(basename "$Z")
G="--gpus 8 --format json"

# A small Llama config, named by no catalog entry; its parameters read from the file itself.
cfg=$W/config.json
cat >"$cfg" <<'EOF'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512,
 "intermediate_size": 1376, "num_hidden_layers": 4, "num_attention_heads": 8,
 "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 2048,
 "rms_norm_eps": 1e-06, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
EOF
"$Z" estimate --model "$cfg" $G >"$out" 2>"$err"
P=$(sed -n 's/^[[:space:]]*"parameters":[[:space:]]*\([0-9][0-9]*\),*$/\1/p' "$out" | head -n 1)
[ -n "$P" ] && ok || bad "zerosim estimate --model $cfg: no parameters ($(head -c 300 "$err"))"
same="d['model']['parameters'] == ${P:-0}"

# --- (a) the local cache: refs/<rev> holds a hash, snapshots/<hash>/config.json the file ---
C=$W/cache
h=abcdef0123456789abcdef0123456789abcdef01
R=$C/models--zs-test--local
mkdir -p "$R/refs" "$R/snapshots/$h"
cp "$cfg" "$R/snapshots/$h/config.json"
printf '%s' "$h" >"$R/refs/main"
printf '%s\n' "$h" >"$R/refs/v2"
export HF_HUB_CACHE=$C HF_HUB_OFFLINE=1
json_check "$same" estimate --model zs-test/local $G
json_check "$same" estimate --model zs-test/local@v2 $G
json_check "$same" estimate --model "zs-test/local@$h" $G
json_check "$same" estimate zs-test/local $G
# HF_HOME/hub when HF_HUB_CACHE is unset
mkdir "$W/home" && ln -s "$C" "$W/home/hub"
unset HF_HUB_CACHE
HF_HOME=$W/home && export HF_HOME
json_check "$same" estimate --model zs-test/local $G
unset HF_HOME
export HF_HUB_CACHE=$C
# not cached, and offline: one line, exit 3, naming the cache
expect 3 "zs-test/absent is not in the Hugging Face cache ($C) and HF_HUB_OFFLINE=1" -- estimate --model zs-test/absent $G
expect 3 "is not in the Hugging Face cache" -- estimate --model zs-test/local@nope $G
# a path that exists on disk still wins over the Hub id it looks like
mkdir -p "$W/cwd/zs-test/local"
sed 's/"num_hidden_layers": 4/"num_hidden_layers": 6/' "$cfg" >"$W/cwd/zs-test/local/config.json"
root=$(pwd)
(cd "$W/cwd" && ZEROSIM_DATA=${ZEROSIM_DATA:-$root} "$Zabs" estimate --model zs-test/local $G) >"$out" 2>"$err"
grep -q '"layers":[[:space:]]*6,' "$out" && ok || bad "a folder zs-test/local on disk did not win: $(head -c 300 "$err")"

# --- (b) downloads from a stand-in Hub on the loopback -------------------------------------
python3 "$here/hub_server.py" "$cfg" "$W/port" 60 &
spid=$!
trap 'kill "$spid" 2>/dev/null; rm -rf "$W"' EXIT
i=0
while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$W/port" 2>/dev/null)
[ -n "$port" ] && ok || bad "the stand-in Hub server did not start"
export HF_ENDPOINT=http://127.0.0.1:${port:-9} HF_HUB_CACHE=$W/dl
unset HF_HUB_OFFLINE
H1=1111111111111111111111111111111111111111
H2=2222222222222222222222222222222222222222
D1=$W/dl/models--zs-test--tiny
json_check "$same" estimate --model zs-test/tiny $G
cmp -s "$cfg" "$D1/snapshots/$H1/config.json" && ok || bad "download: snapshots/$H1/config.json is not the file"
[ "$(cat "$D1/refs/main" 2>/dev/null)" = "$H1" ] && ok || bad "download: refs/main is not $H1"
# the second run reads the cache, offline
HF_HUB_OFFLINE=1 && export HF_HUB_OFFLINE
json_check "$same" estimate --model zs-test/tiny $G
unset HF_HUB_OFFLINE
# a named revision, a commit hash, a renamed repository (a redirect), no X-Repo-Commit header
json_check "$same" estimate --model zs-test/tiny@v1.0 $G
[ "$(cat "$D1/refs/v1.0" 2>/dev/null)" = "$H2" ] && [ -f "$D1/snapshots/$H2/config.json" ] && ok ||
    bad "download @v1.0: refs/v1.0 or snapshots/$H2 missing"
H4=4444444444444444444444444444444444444444
json_check "$same" estimate --model "zs-test/tiny@$H4" $G
[ -f "$D1/snapshots/$H4/config.json" ] && [ ! -e "$D1/refs/$H4" ] && ok || bad "download @hash: snapshot or stray ref"
json_check "$same" estimate --model zs-test/moved $G
[ -f "$W/dl/models--zs-test--moved/snapshots/$H1/config.json" ] && ok || bad "redirect: not cached"
json_check "$same" estimate --model zs-test/noheader $G
[ "$(cat "$W/dl/models--zs-test--noheader/refs/main" 2>/dev/null)" = main ] &&
    [ -f "$W/dl/models--zs-test--noheader/snapshots/main/config.json" ] && ok || bad "no X-Repo-Commit: not cached under main"
# gated: 401 without a token, 403 with a wrong one, the file with the right one
expect 3 "zs-test/gated: gated or private: accept the license on the Hub or set HF_TOKEN" -- estimate --model zs-test/gated $G
HF_TOKEN=wrong && export HF_TOKEN
expect 3 "gated or private" -- estimate --model zs-test/gated $G
# a token with a line break would forge headers: it is not sent
HF_TOKEN=$(printf 'sekret\r\nX-Forged: 1')
expect 3 "gated or private" -- estimate --model zs-test/gated $G
grep -q "X-Forged" "$W/port.log" && bad "a token with a line break was sent" || ok
HF_TOKEN=sekret
json_check "$same" estimate --model zs-test/gated $G
grep -q "^/zs-test/gated/resolve/main/config.json Bearer sekret$" "$W/port.log" && ok || bad "HF_TOKEN was not sent"
unset HF_TOKEN
grep -q "^/zs-test/tiny/resolve/main/config.json $" "$W/port.log" && ok || bad "a token was sent unasked"
# 404, an interrupted download, a body that is no JSON, no server at all: nothing cached
expect 3 "zs-test/nope: no such repository or revision" -- estimate --model zs-test/nope $G
expect 3 "no such repository or revision" -- estimate --model zs-test/tiny@nope $G
expect 4 "zs-test/broken: download failed: " -- estimate --model zs-test/broken $G
expect 3 "not a JSON object" -- estimate --model zs-test/html $G
left=$(find "$W/dl/models--zs-test--broken" "$W/dl/models--zs-test--html" "$W/dl/models--zs-test--nope" -type f 2>/dev/null)
[ -z "$left" ] && ok || bad "a failed download left files in the cache: $left"
[ ! -e "$D1/refs/nope" ] && ok || bad "a 404 revision got a ref"
HF_ENDPOINT=http://127.0.0.1:9
expect 4 "zs-test/other: download failed: .*127.0.0.1" -- estimate --model zs-test/other $G
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
finish
