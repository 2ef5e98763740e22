#!/bin/sh
# lib.sh -- what every command-line test script shares: the binary, the pass/fail counters,
# expect (exit status and stderr), and a batched JSON checker. Sourced; the script ends with
# `finish`, which evaluates the queued JSON checks in one python3 run and prints
# "N passed, N failed".
Z=${ZEROSIM:-./zerosim}
pass=0
fail=0
W=$(mktemp -d)
out=$W/out
err=$W/err
mkdir "$W/q"
trap 'rm -rf "$W"' EXIT

D=tests/data/bad
N=tests/data/nccl
M="--model llama-2-7b"

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# expect STATUS PATTERN -- ARGS...: exit status and a stderr line matching PATTERN.
expect() {
    want=$1 pat=$2
    shift 3
    "$Z" "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then bad "zerosim $* -> exit $rc, want $want ($(head -c 300 "$err"))"; return; fi
    if [ -n "$pat" ] && ! grep -q -- "$pat" "$err"; then bad "zerosim $* -> stderr lacks '$pat': $(head -c 300 "$err")"; return; fi
    if [ "$want" -ge 2 ] && [ "$(wc -l <"$err")" -gt 3 ]; then bad "zerosim $* -> error is not short: $(cat "$err")"; return; fi
    if grep -qiE 'nan|inf[^o]|-[0-9]+\.[0-9]+ GiB' "$out"; then bad "zerosim $* -> NaN, inf or a negative size in output"; return; fi
    ok
}

# json_check EXPR ARGS...: run zerosim ARGS now and keep its stdout, stderr and command line;
# finish parses that stdout as JSON, checks every number is finite, and evaluates the python
# expression EXPR with the document as d. (One python3 for all checks: starting one per
# check was most of this suite's time.)
jn=0
json_check() {
    jn=$((jn + 1))
    printf '%s' "$1" >"$W/q/$jn.expr"
    shift
    printf 'zerosim %s' "$*" >"$W/q/$jn.cmd"
    "$Z" "$@" >"$W/q/$jn.out" 2>"$W/q/$jn.err"
}

# tally FILE: add the "PASSED FAILED" pair a batched python3 run wrote on FILE's last line;
# no such line (python3 missing, a crash) fails every check of the batch, COUNT of them.
tally() {
    set -- "$1" "$2" "$(tail -n 1 "$1" 2>/dev/null)"
    case $3 in
        *[!0-9\ ]* | "" | " "*) fail=$((fail + $2)); echo "FAIL: batched checks did not run: $3" >&2 ;;
        *) set -- $3; pass=$((pass + $1)); fail=$((fail + $2)) ;;
    esac
}

finish() {
    if [ "$jn" -gt 0 ]; then
        python3 - "$W/q" "$jn" >"$W/json.tally" <<'PY'
import json, math, sys
q, n = sys.argv[1], int(sys.argv[2])
def finite(x):
    if isinstance(x, dict): return all(finite(v) for v in x.values())
    if isinstance(x, list): return all(finite(v) for v in x)
    if isinstance(x, float): return math.isfinite(x)
    return True
passed = 0
for i in range(1, n + 1):
    expr = open(f'{q}/{i}.expr').read()
    try:
        d = json.load(open(f'{q}/{i}.out'))
        assert finite(d), 'non-finite number'
        # d a global, as at a script's top level: generator expressions in EXPR see it
        assert eval(expr, {'d': d, 'math': math}), 'expression false'
        passed += 1
    except Exception as e:
        why = open(f'{q}/{i}.err').read() + '%s: %s' % (type(e).__name__, e)
        print("FAIL: %s -> JSON check '%s' failed: %s" % (open(f'{q}/{i}.cmd').read(), expr, why[-300:]),
              file=sys.stderr)
print(passed, n - passed)
PY
        tally "$W/json.tally" "$jn"
    fi
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
