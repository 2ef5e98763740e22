#!/bin/sh
# lib.sh -- what every command-line test script shares: the binary, the pass/fail counters,
# expect (exit status and stderr), and batched python checks. Sourced; the script ends with
# `finish`, which evaluates every queued check in one python3 run and prints
# "N passed, N failed". (A python3 start costs more than most zerosim runs: one per check was
# most of this suite's time.)
Z=${ZEROSIM:-./zerosim}
pass=0
fail=0
W=$(mktemp -d)
out=$W/out
err=$W/err
mkdir "$W/q" "$W/p" "$W/s"
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
# expression EXPR with the document as d.
jn=0
json_check() {
    jn=$((jn + 1))
    printf '%s' "$1" >"$W/q/$jn.expr"
    shift
    printf 'zerosim %s' "$*" >"$W/q/$jn.cmd"
    "$Z" "$@" >"$W/q/$jn.out" 2>"$W/q/$jn.err"
}

# py_check MESSAGE CODE: queue python CODE for finish, which runs it (as a script's top level)
# and counts a check passed unless it raises; MESSAGE and the exception name a failure. CODE
# reads files through snap, as they are now: "json.load(open('$(snap "$out")'))".
pn=0
py_check() {
    pn=$((pn + 1))
    printf '%s' "$1" >"$W/p/$pn.msg"
    printf '%s' "$2" >"$W/p/$pn.py"
}

# snap FILE: print the name of a copy of FILE that stays as it is until finish.
snap() {
    snap_f=$(mktemp "$W/s/XXXXXX") && cp "$1" "$snap_f" && echo "$snap_f"
}

# tally FILE COUNT: add the "PASSED FAILED" pair a batched python3 run wrote on FILE's last line;
# no such line (python3 missing, a crash) fails every check of the batch, COUNT of them.
tally() {
    set -- "$1" "$2" "$(tail -n 1 "$1" 2>/dev/null)"
    case $3 in
        *[!0-9\ ]* | "" | " "*) fail=$((fail + $2)); echo "FAIL: batched checks did not run: $3" >&2 ;;
        *) set -- $3; pass=$((pass + $1)); fail=$((fail + $2)) ;;
    esac
}

finish() {
    if [ $((jn + pn)) -gt 0 ]; then
        python3 - "$W" "$jn" "$pn" >"$W/batch.tally" <<'PY'
import json, math, sys
w, nj, np_ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def finite(x):
    if isinstance(x, dict): return all(finite(v) for v in x.values())
    if isinstance(x, list): return all(finite(v) for v in x)
    if isinstance(x, float): return math.isfinite(x)
    return True
def read(path): return open(path).read()
passed = 0
for i in range(1, nj + 1):
    q = f'{w}/q/{i}'
    expr = read(q + '.expr')
    try:
        d = json.load(open(q + '.out'))
        assert finite(d), 'non-finite number'
        # d a global, as at a script's top level: generator expressions in EXPR see it
        assert eval(expr, {'d': d, 'math': math}), 'expression false'
        passed += 1
    except Exception as e:
        why = read(q + '.err') + '%s: %s' % (type(e).__name__, e)
        print("FAIL: %s -> JSON check '%s' failed: %s" % (read(q + '.cmd'), expr, why[-300:]), file=sys.stderr)
for i in range(1, np_ + 1):
    p = f'{w}/p/{i}'
    try:
        exec(compile(read(p + '.py'), p + '.py', 'exec'), {'__name__': '__check__'})
        passed += 1
    except Exception as e:
        print('FAIL: %s: %s: %s' % (read(p + '.msg'), type(e).__name__, str(e)[-300:]), file=sys.stderr)
print(passed, nj + np_ - passed)
PY
        tally "$W/batch.tally" $((jn + pn))
    fi
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
