#!/bin/sh
# report.sh -- `zerosim report` (issue 25 items 3 and 4): one self-contained HTML file with
# compare's numbers, the memory, step-time, communication and compare charts as inline SVG,
# --runs' validation with validate's numbers, --config's keys, written whole or not at all; and
# tests/browser/report_test.py's render in headless Chromium (skipped where chromium or
# python3-selenium is missing). Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

args="--model llama-2-7b --hardware a100-80gb --gpus 8 --tokens 1e12"
# shellcheck disable=SC2086
"$Z" report $args -o "$W/plan.html" >"$out" 2>"$err"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$W/plan.html" ] && ok || bad "report -o plan.html -> exit $rc ($(head -c 300 "$err"))"
# One file: nothing else appears beside it (no temporary left, no assets).
[ "$(ls "$W" | grep -c 'plan')" -eq 1 ] && ok || bad "report left more than one file: $(ls "$W")"
# shellcheck disable=SC2086
"$Z" compare $args --format json >"$W/compare.json" 2>"$err" || bad "compare --format json failed"
# shellcheck disable=SC2086
"$Z" estimate $args --format json >"$W/estimate.json" 2>"$err" || [ $? -eq 1 ] || bad "estimate --format json failed"

if python3 - "$W/plan.html" "$W/compare.json" "$W/estimate.json" <<'PY'; then ok; else bad "report's HTML"; fi
import json, re, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding='utf-8').read()
d = json.load(open(sys.argv[2]))
# Self-contained: no links, no external sources, no scripts.
for bad in ('http://', 'https://', '<link', '<script', '<img', '<iframe', '@import', 'url('):
    assert bad not in page.lower(), bad
assert not re.search(r'\bsrc\s*=', page), 'src='
void = {'meta', 'br', 'hr', 'img', 'input', 'link', 'wbr', 'line', 'rect', 'path', 'circle'}
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.svgs, self.rows, self.bars = [], [], 0, {}, {}
        self.cur_row = self.cur_bar = self.svg_id = None
        self.cells = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg' and a.get('class') == 'chart':
            self.svgs += 1; self.svg_id = a.get('id')
        if tag == 'tr' and 'data-key' in a:
            self.cur_row = a['data-key']; self.cells = []
        if tag == 'td' and self.cur_row:
            self.cells.append(a.get('data-v'))
        if tag == 'g' and a.get('class') == 'bar':
            self.cur_bar = (self.svg_id, a['data-key']); self.bars[self.cur_bar] = [float(a['data-total']), 0.0]
        if tag == 'rect' and self.cur_bar:
            self.bars[self.cur_bar][1] += float(a['height'])
        if tag not in void: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in void: self.stack.pop()
    def handle_endtag(self, tag):
        if tag in void: return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append('</%s> closes %s' % (tag, self.stack[-1:] or 'nothing')); return
        self.stack.pop()
        if tag == 'tr' and self.cur_row:
            self.rows.setdefault(self.cur_row, []).append(self.cells); self.cur_row = None
        if tag == 'g': self.cur_bar = None
p = P()
p.feed(page); p.close()
assert not p.errors, p.errors[:3]
assert p.stack == [], p.stack
charts = ['memory', 'steptime', 'communication', 'compare-gpus', 'compare-cost']
assert p.svgs == len(charts) and page.count('<svg') == len(charts), p.svgs
assert all('id="%s" class="chart"' % c in page for c in charts), 'a chart is missing'
e = {r['strategy']: r for r in json.load(open(sys.argv[3]))['results']}
# The first table (at the given settings): memory per GPU in GiB as compare's JSON, per strategy.
for r in d['results']:
    s = r['strategy']
    assert s in p.rows, (s, list(p.rows))
    mem = p.rows[s][0][0]
    if r['applicable']:
        assert abs(float(mem) * 2**30 - r['memory_bytes']['total']) < 1, (s, mem)
    best = p.rows[s][1]  # searched: fewest GPUs, -, fastest GPUs, -, step, tokens/s, MFU %
    if r['min_gpus']: assert int(float(best[0])) == r['min_gpus'], (s, best)
    if r['best']:
        assert abs(float(best[4]) - r['best']['step_time_seconds']['total']) < 1e-9 * r['best']['step_time_seconds']['total'], s
    if r['cost']['dollars'] is not None:
        assert abs(float(p.rows[s][2][2]) - r['cost']['dollars']) < 1e-6 * r['cost']['dollars'], s
# The memory chart: each bar's height proportional to the JSON's total (one scale for all).
ratios = [p.bars[('memory', r['strategy'])][1] / r['memory_bytes']['total']
          for r in d['results'] if r['applicable']]
assert len(ratios) >= 2 and max(ratios) / min(ratios) < 1.001, ratios
# The communication chart: each bar what estimate's JSON says each GPU sends, in GB (1e9 bytes).
for s, r in e.items():
    if r['applicable']:
        got, want = p.bars[('communication', s)][0], r['communication_bytes_per_gpu']['total'] / 1e9
        assert abs(got - want) <= 1e-5 * want, (s, got, want)
# The compare charts: the fewest GPUs, and the fastest configuration's dollars (1e12 tokens of
# a 7B model: some $300k, drawn in thousands).
assert 'Cost of the tokens, fastest configuration (thousand $)' in page
for r in d['results']:
    if r['min_gpus']:
        assert p.bars[('compare-gpus', r['strategy'])][0] == r['min_gpus'], r['strategy']
    if r['best'] and r['cost']['dollars']:
        got = p.bars[('compare-cost', r['strategy'])][0]
        assert abs(got * 1e3 - r['cost']['dollars']) <= 1e-5 * r['cost']['dollars'], (got, r['cost'])
assert 'id="fewest"' in page and 'id="fastest"' in page and 'id="cost"' in page
assert '<pre>' in page and 'ZeRO' in page.split('<pre>')[1], 'assumptions'
assert 'prefers-color-scheme' in page and '@media print' in page
PY

# --runs FILE: the validation section holds `zerosim validate FILE --format json`'s numbers,
# unrounded (data-v), run by run, and its MAPE; the scatter has one point per run with a step time.
runs=tests/validation/published_runs.csv
# shellcheck disable=SC2086
"$Z" report $args --runs "$runs" -o "$W/val.html" 2>"$err" && ok || bad "report --runs -> $(head -c 300 "$err")"
"$Z" validate "$runs" --format json >"$W/val.json" 2>"$err" || bad "validate --format json failed"
if python3 - "$W/val.html" "$W/val.json" <<'PY'; then ok; else bad "report --runs: validation differs from validate's JSON"; fi
import json, re, sys
page, v = open(sys.argv[1], encoding='utf-8').read(), json.load(open(sys.argv[2]))
# Equal to the JSON's precision: cJSON prints 15 significant digits where they read back close
# enough, the page 17.
same = lambda a, b: abs(float(a) - b) <= 1e-14 * abs(b)
m = re.search(r'id="mape" data-v="([^"]+)"', page)
assert m and same(m.group(1), v['mape']), (m and m.group(1), v['mape'])
rows = re.findall(r'<tr data-run="([^"]*)"><th>[^<]*</th><td>[^<]*</td><td>([^<]*)</td>'
                  r'<td data-v="([^"]+)">[^<]*</td><td data-v="([^"]+)">[^<]*</td><td data-v="([^"]+)">', page)
assert len(rows) == v['count'] == len(v['runs']), (len(rows), v['count'])
import html
for (name, metric, meas, pred, err), r in zip(rows, v['runs']):
    assert html.unescape(name) == r['name'] and metric == r['metric'], (name, r['name'])
    assert same(meas, r['measured']) and same(pred, r['predicted']) and same(err, r['error']), r['name']
points = page.count('<circle class="pt ')
assert 0 < points <= v['count'] and points >= v['count'] - 5, (points, v['count'])
assert page.count('<svg') == 6 and 'id="validation" class="chart"' in page
worst = v['worst']['name']
assert 'the worst: ' + html.escape(worst) in page, worst
PY
expect 3 "nope.csv" -- report $args --runs "$W/nope.csv" -o "$W/x.html"
[ ! -e "$W/x.html" ] && ok || bad "report --runs with a missing file wrote a page"

# --config: the launcher file and the keys it set, as estimate's JSON lists them.
L=tests/data/launch/llamafactory_llama3_full_sft.yaml
"$Z" report --config "$L" --gpus 8 -o "$W/cfg.html" 2>"$err" || [ $? -eq 1 ] || bad "report --config failed"
"$Z" estimate --config "$L" --gpus 8 --format json >"$W/cfg.json" 2>"$err" || [ $? -eq 1 ]
if python3 - "$W/cfg.html" "$W/cfg.json" <<'PY'; then ok; else bad "report --config: the launcher keys are missing"; fi
import html, json, sys
page, c = open(sys.argv[1], encoding='utf-8').read(), json.load(open(sys.argv[2]))['training']['config']
assert html.escape(c['path']) in page and c['format'] in page
for part in c['used'].split('; ') + c['defaulted'].split('; '):
    assert '<li><code>' + html.escape(part) + '</code></li>' in page, part
assert 'ds_config keys' in page and 'ds_z3_config.json' in page
PY

# A string that needs escaping reaches the page escaped (a model file named with < & ").
cp models/gpt2.json "$W/a<b&c\".json" 2>/dev/null || cp "$(ls models/*.json | head -1)" "$W/a<b&c\".json"
if "$Z" report --model "$W/a<b&c\".json" --gpus 2 --seq-len 1024 -o "$W/esc.html" 2>"$err" || [ $? -eq 1 ]; then
    grep -q 'a&lt;b&amp;c&quot;.json' "$W/esc.html" && ! grep -q 'a<b&c' "$W/esc.html" && ok ||
        bad "report does not escape a file name"
else bad "report with an odd file name failed: $(head -c 300 "$err")"; fi

# Nothing fits anywhere: exit 1, and the page is still written and says so.
"$Z" report --model llama-2-70b --hardware a100-40gb --gpus 1 --max-gpus 1 --no-offload -o "$W/nofit.html" 2>"$err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "No strategy fits" "$W/nofit.html" && ok || bad "report with nothing fitting -> exit $rc"

# A non-writable output: exit 4, one line, nothing left behind.
mkdir "$W/ro" && chmod 555 "$W/ro"
if [ "$(id -u)" -ne 0 ]; then
    expect 4 "cannot write" -- report $args -o "$W/ro/plan.html"
    [ -z "$(ls -A "$W/ro")" ] && ok || bad "report left files in a read-only directory: $(ls -A "$W/ro")"
fi
expect 4 "cannot write" -- report $args -o "$W/nodir/plan.html"
[ ! -e "$W/nodir" ] && ok || bad "report created a directory"
expect 4 "cannot write" -- report $args -o "$W"
: >"$W/keep.html" && chmod 444 "$W/keep.html"
expect 4 "cannot write" -- report $args -o "$W/keep.html"
[ ! -s "$W/keep.html" ] && ok || bad "report wrote over a read-only file"
expect 2 "-o" -- report $args
expect 4 "" -- report $args -o /dev/full
[ "$(ls "$W" | grep -c '^\.\|tmp')" -eq 0 ] && ok || bad "report left a temporary file: $(ls -a "$W")"

# The browser check (item 4): tests/browser/report_test.py renders the --runs page in headless
# Chromium, light and dark, to a PNG and a PDF; each of its "ok:"/"FAIL:" lines counts here.
# Debian's python3 has python3-selenium; the script prints "skipped: why" where it cannot run.
BPY=${BROWSER_PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
timeout 240 "$BPY" tests/browser/report_test.py "$W/val.html" --png "$W/shot.png" --pdf "$W/plan.pdf" \
    >"$W/browser.log" 2>&1
rc=$?
if grep -q '^skipped:' "$W/browser.log"; then
    grep '^skipped:' "$W/browser.log"
else
    n_ok=$(grep -c '^ok:' "$W/browser.log")
    grep '^FAIL:' "$W/browser.log" | while read -r line; do echo "browser: $line" >&2; done
    n_fail=$(grep -c '^FAIL:' "$W/browser.log")
    pass=$((pass + n_ok))
    fail=$((fail + n_fail))
    [ "$rc" -eq 0 ] && [ "$n_ok" -ge 20 ] || bad "report_test.py exit $rc, $n_ok checks passed: $(tail -c 400 "$W/browser.log")"
    echo "browser check: $n_ok passed in headless chromium"
fi
finish
