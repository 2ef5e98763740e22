"""serve_test.py -- `zerosim serve` in a real browser (headless Debian Chromium, chrome.py): the
page loads with no console error (a CSP violation is one), changing the model and the GPU count
recomputes it, the numbers it shows are the CLI's JSON for the same settings, the command line
it shows gives that JSON, the share link restores the same page, the download is the report
`zerosim report` writes, and nothing is fetched from anywhere but the server. Takes a
screenshot; with --shot FILE keeps it there (the README's plots/serve.png).

Usage: /usr/bin/python3 tests/browser/serve_test.py [--shot plots/serve.png]
       (ZEROSIM: the binary, default ./zerosim)
Prints "skipped: reason" without chromium; ends with "N passed, N failed"."""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chrome  # noqa: E402

Z = os.path.abspath(os.environ.get("ZEROSIM", "./zerosim"))
GIB = 1024 ** 3
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def cli_json(*args):
    r = subprocess.run([Z] + list(args) + ["--format", "json"], capture_output=True, text=True)
    return json.loads(r.stdout)


def start_server():
    p = subprocess.Popen([Z, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        p.kill()
        raise SystemExit("FAIL: serve did not start: " + line)
    return p, "http://127.0.0.1:%s/" % m.group(1)


def wait_done(d, want=None, timeout=20):
    """Wait until the page shows the answer to its current settings (want: text in the request)."""
    end = time.time() + timeout
    while time.time() < end:
        s = d.find_element("id", "status")
        req = s.get_attribute("data-request") or ""
        if s.get_attribute("data-state") in ("done", "error") and (want is None or all(w in req for w in want)):
            cur = d.execute_script("return JSON.stringify(request('compare'))")
            if cur == req:
                return s.get_attribute("data-state")
        time.sleep(0.05)
    return "timeout"


def table(d):
    """The compare table: {row key: [(text, data-v)...]}."""
    rows = {}
    for tr in d.find_elements("css selector", "#compare tbody tr"):
        rows[tr.get_attribute("data-key")] = [(td.text, td.get_attribute("data-v"))
                                              for td in tr.find_elements("tag name", "td")]
    return rows


def close(a, b):
    return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))


def check_numbers(d, args):
    """The table and both charts against the CLI's compare and estimate JSON for args."""
    c = cli_json("compare", *args)
    e = cli_json("estimate", *args)
    rows = table(d)
    check(len(rows) == len(c["results"]), "rows %d, the CLI's results %d" % (len(rows), len(c["results"])))
    for r in c["results"]:
        cells = rows.get(r["strategy"] + "/" + r["framework"])
        if not cells or not r["applicable"]:
            check(cells is not None, "no row for " + r["strategy"])
            continue
        m = r["memory_bytes"]["total"]
        check(float(cells[2][1]) == m, "%s memory %s != CLI %r" % (r["strategy"], cells[2][1], m))
        check(cells[2][0] == "%.2f GiB" % (m / GIB), "%s memory text %r" % (r["strategy"], cells[2][0]))
        check(int(cells[3][1]) == r["max_micro_batch"] and cells[3][0] == str(r["max_micro_batch"]),
              "%s largest micro-batch %s != %d" % (r["strategy"], cells[3], r["max_micro_batch"]))
        check(int(cells[4][1]) == r["max_micro_batch_with_recompute"], r["strategy"] + " with recompute")
        check(int(cells[5][1]) == r["min_gpus"], "%s fewest GPUs %s != %d" % (r["strategy"], cells[5], r["min_gpus"]))
        check((cells[1][0] == "yes") == r["fits"], r["strategy"] + " fits")
        if r["best"]:
            check(float(cells[6][1]) == r["best"]["tokens_per_second"], r["strategy"] + " fastest tokens/s")
    bars = [float(t.get_attribute("data-total")) for t in d.find_elements("css selector", "#memory-chart text[data-total]")]
    want = [r["memory_bytes"]["total"] for r in c["results"] if r["applicable"]]
    check(len(bars) == len(want) and all(close(a, b) for a, b in zip(bars, want)),
          "memory bars %s != CLI totals %s" % (bars, want))
    hbm = d.find_element("css selector", "#memory-chart line.hbm")
    check(hbm is not None, "the HBM line")
    times = [float(t.get_attribute("data-total")) for t in d.find_elements("css selector", "#time-chart text[data-total]")]
    want = [r["step_time_seconds"]["total"] for r in e["results"] if r["applicable"]]
    check(len(times) == len(want) and all(close(a, b) for a, b in zip(times, want)),
          "step-time bars %s != CLI %s" % (times, want))
    return c


def main():
    d = chrome.start(width=1280, height=1000)
    p, base = start_server()
    downloads = tempfile.mkdtemp(prefix="zs-dl-")
    try:
        run(d, base, downloads)
    finally:
        chrome.stop(d)
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = None
        err = p.stderr.read()
        check(rc == 0 and "stopped (SIGTERM)" in err, "serve after SIGTERM: exit %r, %r" % (rc, err[-200:]))
        for f in os.listdir(downloads):
            os.unlink(os.path.join(downloads, f))
        os.rmdir(downloads)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


def run(d, base, downloads):
    from selenium.webdriver.support.ui import Select
    d.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    d.get(base)
    check(wait_done(d) == "done", "the first answer")
    check_numbers(d, ["--model", "llama-2-7b", "--hardware", "a100-80gb", "--gpus", "8"])
    # Change the model and the GPU count as a user would: the page recomputes on its own.
    Select(d.find_element("id", "model")).select_by_value("llama-3-8b")
    g = d.find_element("id", "gpus")
    g.clear()
    g.send_keys("16")
    check(wait_done(d, ['"llama-3-8b"', '"gpus":16']) == "done", "the answer after changing model and GPUs")
    args = ["--model", "llama-3-8b", "--hardware", "a100-80gb", "--gpus", "16"]
    check_numbers(d, args)
    # The command line shown: the same settings, and it answers the same JSON as the endpoint.
    line = d.find_element("id", "cli").text
    check(line == "zerosim compare " + " ".join(args), "command line %r" % line)
    words = shlex.split(line)
    cli = subprocess.run([Z] + words[1:] + ["--format", "json"], capture_output=True).stdout
    body = d.execute_script("return JSON.stringify(request('compare'))").encode()
    req = urllib.request.Request(base + "api/v1/call", data=body, headers={"Content-Type": "application/json"})
    check(urllib.request.urlopen(req).read() == cli, "the shown command line's JSON != /api/v1/call's")
    before = table(d)
    # The share link, opened fresh, restores the form and the numbers.
    share = d.find_element("id", "share").get_attribute("value")
    check("model=llama-3-8b" in share and "gpus=16" in share, "share link %r" % share)
    d.get("about:blank")
    d.get(share)
    check(wait_done(d, ['"llama-3-8b"']) == "done", "the shared page's answer")
    check(d.find_element("id", "model").get_attribute("value") == "llama-3-8b" and
          d.find_element("id", "gpus").get_attribute("value") == "16", "the share link restores the form")
    check(table(d) == before, "the share link restores the same table")
    errs = chrome.console_errors(d)
    check(errs == [], "console errors: %s" % errs[:3])
    # A bad setting: the CLI's one-line message, on the page (its 400 answers are the only
    # console errors after it).
    g = d.find_element("id", "gpus")
    g.clear()
    g.send_keys("0")
    check(wait_done(d, ['"gpus":0']) == "error", "gpus 0 is refused")
    msg = d.find_element("id", "status").text
    r = subprocess.run([Z, "compare"] + args[:4] + ["--gpus", "0"], capture_output=True, text=True)
    check(r.stderr.strip() == "zerosim compare: " + msg, "message %r vs CLI %r" % (msg, r.stderr.strip()))
    g.clear()
    g.send_keys("16")
    check(wait_done(d, ['"gpus":16']) == "done", "back to 16 GPUs")
    # A pasted config.json: the command line names it, the numbers are the CLI's on that file.
    d.find_element("css selector", "#uploads summary").click()
    text = open(os.path.join(os.path.dirname(Z), "models", "llama-3-8b.json")).read()
    d.execute_script("const t = document.getElementById('model-text'); t.value = arguments[0];"
                     "t.dispatchEvent(new Event('input', {bubbles: true}));", text)
    check(wait_done(d, ['"files"']) == "done", "the answer for a pasted config.json")
    line = d.find_element("id", "cli").text
    check(line == "zerosim compare --hardware a100-80gb --gpus 16 --model config.json", "upload's command line %r" % line)
    tmp = tempfile.mkdtemp(prefix="zs-up-")
    open(os.path.join(tmp, "config.json"), "w").write(text)
    c = json.loads(subprocess.run([Z, "compare", "--model", os.path.join(tmp, "config.json"), "--hardware",
                                   "a100-80gb", "--gpus", "16", "--format", "json"], capture_output=True).stdout)
    os.unlink(os.path.join(tmp, "config.json"))
    os.rmdir(tmp)
    rows = table(d)
    check(all(float(rows[r["strategy"] + "/" + r["framework"]][2][1]) == r["memory_bytes"]["total"]
              for r in c["results"]), "the pasted config's memory against the CLI's on the same file")
    d.execute_script("const t = document.getElementById('model-text'); t.value = '';"
                     "t.dispatchEvent(new Event('input', {bubbles: true}));")
    check(wait_done(d, ['"llama-3-8b"']) == "done", "back to the catalog model")
    # The download is the report the command line writes for these settings.
    d.find_element("id", "download").click()
    path = os.path.join(downloads, "zerosim-report.html")
    end = time.time() + 20
    while time.time() < end and not os.path.exists(path):
        time.sleep(0.1)
    want = subprocess.run([Z, "report"] + args + ["-o", "-"], capture_output=True).stdout
    got = open(path, "rb").read() if os.path.exists(path) else b""
    if got != want:
        open("build/serve-download.html", "wb").write(got)
    check(got == want and len(want) > 1000, "the download (%d bytes) is the report (%d bytes)" % (len(got), len(want)))
    errs = [e for e in chrome.console_errors(d) if not re.search(r"api/v1/call .*status of 400", e)]
    check(errs == [], "console errors: %s" % errs[:3])
    urls = [u for u in chrome.requests(d) if not u.startswith(("blob:", "data:"))]
    check(urls and all(u.startswith(base) for u in urls), "requests outside the server: %s" %
          [u for u in urls if not u.startswith(base)][:3])
    # The screenshot: a 70B model on 64 GPUs with a token budget (the cost column filled in).
    Select(d.find_element("id", "model")).select_by_value("llama-2-70b")
    for fid, v in (("gpus", "64"), ("tokens", "2e12"), ("seq-len", "4096")):
        e = d.find_element("id", fid)
        e.clear()
        e.send_keys(v)
    d.find_element("id", "checkpointing").send_keys("full")
    check(wait_done(d, ['"llama-2-70b"', '"gpus":64', '"tokens":"2e12"']) == "done", "the screenshot's answer")
    c = cli_json("compare", "--model", "llama-2-70b", "--hardware", "a100-80gb", "--gpus", "64", "--tokens", "2e12",
                 "--seq-len", "4096", "--checkpointing", "full")
    rows = table(d)
    for r in c["results"]:
        cost = rows[r["strategy"] + "/" + r["framework"]][7][1]
        want = r["cost"]["dollars"]
        check((cost == "" and want is None) or float(cost) == want, "%s cost %r != %r" % (r["strategy"], cost, want))
    d.execute_script("document.getElementById('uploads').open = false; window.scrollTo(0, 0)")
    # Into a temporary file unless --shot names one: a test run leaves the tracked tree alone.
    out = sys.argv[sys.argv.index("--shot") + 1] if "--shot" in sys.argv else None
    tmp = None
    if not out:
        fd, tmp = tempfile.mkstemp(suffix=".png")
        os.close(fd)
    h = d.execute_script("return document.documentElement.scrollHeight")
    d.set_window_size(1280, min(max(h, 900), 1600))
    d.save_screenshot(out or tmp)
    check(os.path.getsize(out or tmp) > 10000, "the screenshot")
    if tmp:
        os.unlink(tmp)


if __name__ == "__main__":
    main()
