#!/bin/sh
# serve_bench.sh -- `make bench`'s load test of zerosim serve: the server and the load client
# (build/serve-load, keep-alive HTTP/1.1 on the loopback) pinned together to 2 cores, RUNS runs
# of SECS seconds each for three requests: compare (the page's request, the goal: 1,000/s with
# p99 under 50 ms), estimate and list (the server's own overhead). Prints each run and the median
# requests/s and p99 of each request. Bounded: about 3 x RUNS x SECS seconds.
# Usage: sh tests/perf/serve_bench.sh ZEROSIM LOADER [RUNS [SECS [CONNECTIONS]]]
Z=$1 L=$2 RUNS=${3:-5} SECS=${4:-3} CONN=${5:-4}
W=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$W"' EXIT
pin=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then pin="taskset -c 0,1"; fi
$pin "$Z" serve --port 0 2>"$W/err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! grep -q 'Ctrl-C stops' "$W/err" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$W/err")
[ -n "$port" ] || { echo "serve_bench: the server did not start: $(cat "$W/err")"; exit 1; }
echo "serve bench: $RUNS runs of ${SECS}s, $CONN connections, server and client on ${pin:+cores 0-1 (}$(nproc) cores${pin:+)}"
status=0
for name in compare estimate list; do
    case $name in
    compare) body='{"command":"compare","model":"llama-2-7b","hardware":"a100-80gb","gpus":8}' ;;
    estimate) body='{"command":"estimate","model":"llama-2-7b","hardware":"a100-80gb","gpus":8}' ;;
    list) body='{"command":"list","what":"models"}' ;;
    esac
    printf '%s' "$body" >"$W/body"
    $pin "$L" "$port" /api/v1/call "$W/body" "$CONN" 1 >/dev/null || status=1 # warm up
    : >"$W/runs"
    r=0
    while [ $r -lt "$RUNS" ]; do
        $pin "$L" "$port" /api/v1/call "$W/body" "$CONN" "$SECS" >>"$W/runs" || status=1
        r=$((r + 1))
    done
    sed "s/^/  $name: /" "$W/runs"
    awk -v name="$name" '{ rps[NR] = $6; p99[NR] = $12 }
        function median(a, n,   i, j, t) {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        END { printf "serve %-8s median %6.0f requests/s, p99 %.2f ms (of %d runs)\n", name, median(rps, NR), median(p99, NR), NR }' \
        "$W/runs"
done
kill -TERM "$pid"
wait "$pid" || status=1
exit $status
