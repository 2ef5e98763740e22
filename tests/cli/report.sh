#!/bin/sh
# report.sh -- `zerosim report` (issue 25 item 3): one self-contained HTML file with compare's
# numbers, two inline SVG charts, written whole or not at all; a browser render when chromium
# is installed (skipped otherwise). Ends with "N passed, N failed".
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

if python3 - "$W/plan.html" "$W/compare.json" <<'PY'; then ok; else bad "report's HTML"; fi
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
assert p.svgs == 2, p.svgs
assert page.count('<svg') == 2, page.count('<svg')
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
assert '<pre>' in page and 'ZeRO' in page.split('<pre>')[1], 'assumptions'
assert 'prefers-color-scheme' in page and '@media print' in page
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

# The browser check: render the page headless and see that the screenshot is not blank.
# CHROMIUM names the browser (set it empty to skip the check).
browser=${CHROMIUM-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$browser" ]; then
    echo "skipped: chromium not installed"
else
    rm -f "$W/shot.png"
    timeout 60 "$browser" --headless --disable-gpu --no-sandbox --user-data-dir="$W/chrome" \
        --window-size=1100,1400 --screenshot="$W/shot.png" "file://$W/plan.html" >"$W/chrome.log" 2>&1
    if python3 - "$W/shot.png" <<'PY'; then ok; else bad "chromium's screenshot of the report is blank or missing"; fi
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n' and len(data) > 5000, len(data)
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    if kind == b'IDAT': idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
# Distinct byte values over the decoded rows (filter bytes included): a blank page has a handful.
assert len(set(raw[::7])) > 20, len(set(raw[::7]))
PY
    echo "browser check: $browser rendered the page"
fi
finish
