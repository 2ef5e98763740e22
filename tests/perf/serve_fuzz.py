"""serve_fuzz.py -- a bounded fuzz pass over a running `zerosim serve` on the loopback: malformed
HTTP (garbage, bad request lines, headers, lengths and chunks, early closes) and malformed or
mutated request JSON. Every answer must be a 4xx or a valid result (200 with JSON, or the report
page); the server must never close a well-formed request without an answer, answer 5xx, or stop
answering; a client past the per-client connection limit is turned away while the others are
served. Run under the ASan build (make test-sanitize runs tests/cli/serve.sh, which runs this),
the server's clean exit afterwards says no crash and no leak.

Usage: python3 tests/perf/serve_fuzz.py PORT [SEED]   Prints "N passed, N failed"."""
import json
import random
import socket
import sys
import time

PORT = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 26)
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        if failed <= 20:
            print("FAIL: " + what, file=sys.stderr)


def raw(data, timeout=15.0, half_close=True):
    """Send bytes, read until the server closes or answers one response; the status or None."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        # The server may answer and close before it has read everything (a refused header or
        # body): sending or half-closing then fails, and its answer is still there to read.
        try:
            s.sendall(data)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        buf = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            buf += chunk
            if b"\r\n\r\n" in buf:
                head = buf.split(b"\r\n\r\n", 1)[0].lower()
                if b"content-length:" in head:
                    n = int(head.split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
                    if len(buf.split(b"\r\n\r\n", 1)[1]) >= n:
                        break
        if not buf.startswith(b"HTTP/1."):
            return None, buf
        return int(buf[9:12]), buf
    finally:
        s.close()


def post(body, path="/api/v1/call", ctype="application/json"):
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    req = ("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
           "Connection: close\r\n\r\n" % (path, ctype, len(body))).encode() + body
    return raw(req, half_close=False)


def valid_answer(status, buf, what):
    """4xx with the error object, or 200 with JSON (a JSON object a line for sweep) or the page."""
    if status is None:
        check(False, "%s: no HTTP answer (%r)" % (what, buf[:80]))
        return
    body = buf.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in buf else b""
    if 400 <= status < 500:
        try:
            e = json.loads(body)["error"]
            ok = isinstance(e["message"], str) and "\n" not in e["message"] and e["code"] in (2, 3)
        except (ValueError, KeyError, TypeError):
            ok = False
        check(ok, "%s: %d without a one-line error object: %r" % (what, status, body[:200]))
    elif status == 200:
        try:
            if body.lstrip().lower().startswith(b"<!doctype html"):
                ok = True
            else:
                try:
                    json.loads(body)
                except ValueError:  # sweep: a JSON object a line
                    for line in body.decode().splitlines():
                        json.loads(line)
                ok = bool(body)
        except ValueError:
            ok = False
        check(ok, "%s: 200 without a valid answer: %r" % (what, body[:200]))
    else:
        check(False, "%s: status %d: %r" % (what, status, body[:200]))


def alive(what):
    status, _ = raw(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", half_close=False)
    check(status == 200, "the server stopped answering after " + what)


# --- malformed HTTP ---------------------------------------------------------------------------------
HTTP_CASES = [
    b"", b"\r\n\r\n", b"GET\r\n\r\n", b"GET /\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"BREW / HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\n\r\n",  # HTTP/1.1 without Host
    b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"b" * 200000 + b"\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-A: 1\r\n" * 5000 + b"\r\n",
    b"GET /\x00/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", b"GET /%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /%zz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", b"GET ../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n{}",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n{}",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n{}\r\n0\r\n\r\n",
    b"POST /api/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    b"POST /api/v1/report HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 12\r\n\r\nrequest=%7%%",
    b"POST /api/v1/report HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: 3\r\n\r\na=b",
    b"GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", b"GET / HTTP/1.1\r\nHost: 127.0.0.1.evil\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  # pipelined
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)),  # a TLS hello
]


def http_ok(status):
    """No answer (the connection closed), a 2xx-4xx, or 505 (libmicrohttpd's to an unknown HTTP version)."""
    return status is None or 200 <= status < 500 or status == 505


def fuzz_http(n):
    for i, data in enumerate(HTTP_CASES):
        status, buf = raw(data)
        check(http_ok(status), "HTTP case %d: status %r" % (i, status))
    for i in range(n):
        base = rng.choice(HTTP_CASES[4:] + [b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"])
        data = bytearray(base[:2000])
        for _ in range(rng.randint(1, 8)):
            op = rng.random()
            at = rng.randrange(len(data) + 1)
            if op < 0.4 and data:
                data[min(at, len(data) - 1)] = rng.randrange(256)
            elif op < 0.7:
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
            else:
                del data[at:at + rng.randint(1, 16)]
        status, _ = raw(bytes(data), timeout=SERVE_TIMEOUT)
        check(http_ok(status), "mutated HTTP %d: status %r (%r)" % (i, status, bytes(data[:60])))
    alive("malformed HTTP")


SERVE_TIMEOUT = 20.0

# --- malformed and mutated JSON ---------------------------------------------------------------------
SEEDS = [
    {"command": "estimate", "model": "llama-2-7b", "gpus": 8},
    {"command": "compare", "model": "llama-2-7b", "gpus": 8, "max-gpus": 8},
    {"command": "estimate", "model": "llama-3-8b", "gpus": 16, "tp": 2, "finetune": "lora", "tokens": "1e9"},
    {"command": "sweep", "model": "llama-2-7b", "gpus": "8:32:x2"},
    {"command": "plan", "model": "llama-2-7b", "max-gpus": 8, "top": 2},
    {"command": "list", "what": "models"},
    {"command": "estimate", "files": {"model": "{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, "
                                                "\"num_attention_heads\": 4, \"intermediate_size\": 128, "
                                                "\"model_type\": \"llama\"}"}},
    {"command": "estimate", "model": "llama-2-7b", "files": {"config": "base_model: x\nmicro_batch_size: 2\n"}},
]
KEYS = ["gpus", "tp", "pp", "cp", "ep", "micro-batch", "seq-len", "grad-accum", "precision", "strategy", "framework",
        "checkpointing", "finetune", "offload-optimizer", "offload-params", "tokens", "hbm", "params", "max-gpus",
        "model", "hardware", "command", "args", "files", "what", "format", "help", "weights", "zero-hpz", "max-rows",
        "lora-rank", "shard-group", "virtual-stages", "price-per-gpu-hour", "global-batch", "x", "", "--gpus"]
VALUES = [0, -1, 1, 2, 3, 7, 8, 1e308, -1e308, 1.5, 2 ** 63, "", "x", "8k", "1e99", "nan", "inf", "-0", None, True,
          False, [], [1, 2], {}, {"a": 1}, "a" * 5000, "\u0000", "\u00e9\u4e2d", "../../etc/passwd", "/etc/passwd",
          "all", "zero3", "fp8", "full", "qlora", "cpu", "nvme", "llama-2-7b", "h100-80gb", "models", "hardware",
          "org/name", "x.json", "8:64:x2", "1,2,3"]


def mutate_json(seed):
    d = json.loads(json.dumps(seed))
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        if op < 0.5:
            d[rng.choice(KEYS)] = rng.choice(VALUES)
        elif op < 0.7 and d:
            del d[rng.choice(list(d))]
        elif op < 0.8:
            d = rng.choice([[d], {"x": d}, d.get("command"), 5, "s"])
            break
        else:
            d["files"] = rng.choice([{"model": rng.choice(VALUES)}, {"deepspeed": "{\"zero_optimization\": 7}"},
                                     {"config": "deepspeed: /etc/passwd\n"}, {"nope": "x"}, [], "x"])
    text = json.dumps(d)
    if rng.random() < 0.25:  # break the text itself
        t = list(text)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(t) + 1)
            t[at:at + rng.randint(0, 3)] = rng.choice(["", "{", "}", "\"", ",", "\\", "\x00", "\udcff", "[", "9e9999"])
        text = "".join(t)
    return text


def fuzz_json(n):
    fixed = ["", "null", "[]", "{}", "\"x\"", "{\"command\": null}", "[" * 5000 + "]" * 5000,
             "{\"a\":" * 3000 + "1" + "}" * 3000, "{\"command\":\"estimate\",\"model\":\"llama-2-7b\"" + ",\"gpus\":8" * 300 + "}",
             "\xff\xfe{", "{\"command\":\"report\",\"model\":\"llama-2-7b\",\"gpus\":8}"]
    for i, text in enumerate(fixed):
        status, buf = post(text)
        valid_answer(status, buf, "JSON case %d" % i)
    t0 = time.time()
    for i in range(n):
        text = mutate_json(rng.choice(SEEDS))
        path = "/api/v1/report" if rng.random() < 0.05 else "/api/v1/call"
        status, buf = post(text, path)
        valid_answer(status, buf, "mutated JSON %d %r" % (i, text[:120]))
    check(time.time() - t0 < 300, "the JSON pass took %.0f s" % (time.time() - t0))
    alive("malformed JSON")


def client_limit(limit=16):
    """limit + 4 idle connections from one address: the last ones are closed unanswered at once."""
    time.sleep(0.5)  # the fuzz passes' connections closed on the server's side too
    socks = []
    for _ in range(limit + 4):
        s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
        socks.append(s)
    time.sleep(0.3)
    turned = 0
    for s in socks[limit:]:
        s.settimeout(2)
        try:
            turned += s.recv(1) == b""
        except (ConnectionResetError, socket.timeout):
            turned += 1
    check(turned == 4, "connections past the per-client limit: %d of 4 turned away" % turned)
    # The first ones are still served.
    socks[0].sendall(b"GET /style.css HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    socks[0].settimeout(5)
    check(socks[0].recv(12).startswith(b"HTTP/1.1 200"), "a connection within the limit is served")
    for s in socks:
        s.close()
    time.sleep(0.3)
    alive("the connection limit")


fuzz_http(int(sys.argv[3]) if len(sys.argv) > 3 else 300)
fuzz_json(int(sys.argv[4]) if len(sys.argv) > 4 else 400)
client_limit()
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
