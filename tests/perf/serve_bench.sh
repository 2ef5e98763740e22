#!/bin/sh
# serve_bench.sh -- `make bench`'s load test of zerosim serve: the server and the load client
# (build/serve-load, keep-alive HTTP/1.1 on the loopback) pinned together to 2 cores, RUNS runs
# of SECS seconds each per case: compare computed every time (--cache 0: the simulator's own
# cost), compare answered again (the page re-asking settings, a shared link: the answer cache),
# estimate computed, and list (the server's own overhead). Prints each run and each case's
# median requests/s and p99; the goal is 1,000 compare requests/s with p99 under 50 ms.
# Bounded: about 4 x RUNS x SECS seconds.
# Usage: sh tests/perf/serve_bench.sh ZEROSIM LOADER [RUNS [SECS [CONNECTIONS]]]
Z=$1 L=$2 RUNS=${3:-5} SECS=${4:-3} CONN=${5:-4}
W=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$W"' EXIT
pin=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then pin="taskset -c 0,1"; fi
COMPARE='{"command":"compare","model":"llama-2-7b","hardware":"a100-80gb","gpus":8}'
ESTIMATE='{"command":"estimate","model":"llama-2-7b","hardware":"a100-80gb","gpus":8}'
LIST='{"command":"list","what":"models"}'
status=0

# serve CACHE: (re)start the server with --cache CACHE; sets $port.
serve() {
    [ -n "$pid" ] && { kill -TERM "$pid"; wait "$pid" || status=1; }
    $pin "$Z" serve --port 0 --cache "$1" 2>"$W/err" &
    pid=$!
    i=0
    while [ $i -lt 100 ] && ! grep -q 'Ctrl-C stops' "$W/err" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
    port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$W/err")
    [ -n "$port" ] || { echo "serve_bench: the server did not start: $(cat "$W/err")"; exit 1; }
}

# one NAME BODY: RUNS runs after a 1 s warm-up; each run's line and the medians.
one() {
    printf '%s' "$2" >"$W/body"
    $pin "$L" "$port" /api/v1/call "$W/body" "$CONN" 1 >/dev/null || status=1
    : >"$W/runs"
    r=0
    while [ $r -lt "$RUNS" ]; do
        $pin "$L" "$port" /api/v1/call "$W/body" "$CONN" "$SECS" >>"$W/runs" || status=1
        r=$((r + 1))
    done
    sed "s/^/  $1: /" "$W/runs"
    awk -v name="$1" '{ rps[NR] = $6; p99[NR] = $12 }
        function median(a, n,   i, j, t) {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        END { printf "serve %-17s median %6.0f requests/s, p99 %6.2f ms (%d runs)\n", name, median(rps, NR), median(p99, NR), NR }' \
        "$W/runs" | tee -a "$W/summary"
}

echo "serve bench: $RUNS runs of ${SECS}s, $CONN connections, server and client on ${pin:+cores 0-1 of }$(nproc) cores"
serve 0
one "compare computed" "$COMPARE"
one "estimate computed" "$ESTIMATE"
one "list" "$LIST"
serve 256
one "compare cached" "$COMPARE"
kill -TERM "$pid"
wait "$pid" || status=1
pid=
echo "summary:"
cat "$W/summary"
exit $status
