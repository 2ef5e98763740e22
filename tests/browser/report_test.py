"""report_test.py -- `zerosim report`'s page in headless Chromium (issue 25 item 4): rendered to a
PNG and a PDF, in light and dark mode; every chart drawn (the screenshot's pixels inside each
<svg class="chart">'s box are not blank and hold the chart's colours), no request leaves the file
(only its own file:// URL and data: URLs), and no console error.

Usage: /usr/bin/python3 tests/browser/report_test.py PAGE.html [--png OUT.png] [--pdf OUT.pdf]
       /usr/bin/python3 tests/browser/report_test.py PAGE.html --shot OUT.png   (the README's
       plots/report.png: the page at 1100 px, down to the validation table, scaled 0.7)
Prints "ok: ..." lines and ends with "N passed, N failed"; "skipped: <reason>" (exit 0) where
chromium, chromedriver or python3-selenium is missing."""
import os
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chrome  # noqa: E402

# The chart palette of report_html.c's style (.p0 .. .p3: the first parts of every chart).
PALETTE = [(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b), (0xe1, 0x57, 0x59), (0x76, 0xb7, 0xb2)]


def png_pixels(data):
    """(width, height, rows of (r, g, b) tuples) of a PNG: through PIL when it is installed
    (python3-pil), else this module's decoder of 8-bit RGB/RGBA non-interlaced PNGs."""
    try:
        import io
        from PIL import Image
    except ImportError:
        return png_decode(data)
    im = Image.open(io.BytesIO(data)).convert("RGB")
    w, h = im.size
    px = list(im.getdata())
    return w, h, [px[y * w:(y + 1) * w] for y in range(h)]


def png_decode(data):
    """png_pixels without PIL (slow: a minute for a full page)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
            print("ok: " + what)
        else:
            self.failed += 1
            print("FAIL: " + what)


CHART_BOXES = """return Array.from(document.querySelectorAll('svg.chart')).map(function (s) {
  var r = s.getBoundingClientRect();
  return [s.id, r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
});"""


def render(page, t, dark, png_out=None, pdf_out=None):
    """Open page, check requests, console and every chart's pixels; optionally keep the PNG/PDF."""
    mode = "dark" if dark else "light"
    d = chrome.start(width=1200, height=900, dark=dark)
    try:
        url = "file://" + os.path.abspath(page)
        d.get(url)
        height = d.execute_script("return document.documentElement.scrollHeight")
        d.set_window_size(1200, int(height) + 200)
        boxes = d.execute_script(CHART_BOXES)
        shot = d.get_screenshot_as_png()
        if png_out:
            with open(png_out, "wb") as f:
                f.write(shot)
        if not dark:  # print media is light whatever the scheme: one PDF
            tmp = tempfile.mkdtemp(prefix="zs-pdf-")
            path = pdf_out or os.path.join(tmp, "page.pdf")
            chrome.pdf(d, path)
            with open(path, "rb") as f:
                pdf = f.read()
            os.unlink(os.path.join(tmp, "page.pdf")) if not pdf_out else None
            os.rmdir(tmp)
            pages = pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages")
            t.check(pdf[:5] == b"%PDF-" and len(pdf) > 20000 and pages >= 2,
                    "%s: printed to a PDF of %d bytes, %d pages" % (mode, len(pdf), pages))
        urls = chrome.requests(d)
        foreign = [u for u in urls if u != url and not u.startswith("data:")]
        t.check(url in urls and not foreign, "%s: no request but the file itself (%s)" % (mode, foreign[:3]))
        errors = chrome.console_errors(d)
        t.check(not errors, "%s: no console errors (%s)" % (mode, errors[:3]))
        bg = d.execute_script("return getComputedStyle(document.body).backgroundColor")
    finally:
        chrome.stop(d)
    w, h, rows = png_pixels(shot)
    t.check(len(boxes) >= 5, "%s: %d charts on the page (%s)" % (mode, len(boxes), [b[0] for b in boxes]))
    page_bg = rows[5][5]
    dark_bg = sum(page_bg) < 3 * 80
    t.check(dark_bg == dark, "%s: page background %s (body %s)" % (mode, page_bg, bg))
    for name, x, y, bw, bh in boxes:
        x0, y0, x1, y1 = int(x), int(y), min(int(x + bw), w), min(int(y + bh), h)
        if x1 - x0 < 50 or y1 - y0 < 50:
            t.check(False, "%s: chart %s has a box of %dx%d" % (mode, name, x1 - x0, y1 - y0))
            continue
        colours, inked, palette = ink(rows, (x0, y0, x1, y1), page_bg)
        t.check(colours > 8 and inked > 0.01 and palette > 20,
                "%s: chart %s drawn (%dx%d px, %d colours, %.1f%% inked, %d palette pixels)"
                % (mode, name, x1 - x0, y1 - y0, colours, 100 * inked, palette))
    # The same measure finds a blank region blank: beside the first chart (the charts are
    # narrower than the page), as wide as 300 px.
    x, y, bw, bh = boxes[0][1:]
    if x + bw + 360 < w:
        colours, inked, palette = ink(rows, (int(x + bw + 40), int(y), int(x + bw + 340), int(y + bh)), page_bg)
        t.check(inked < 0.01 and palette == 0,
                "%s: the empty margin beside the memory chart reads as blank (%.1f%% inked)" % (mode, 100 * inked))


def ink(rows, box, bg):
    """Over every other pixel of box (x0, y0, x1, y1): distinct colours, the fraction unlike
    the page's background, and how many are the charts' palette colours."""
    x0, y0, x1, y1 = box
    colours, inked, palette, n = set(), 0, 0, 0
    for yy in range(y0, y1, 2):
        row = rows[yy]
        for xx in range(x0, x1, 2):
            p = row[xx]
            n += 1
            colours.add(p)
            inked += sum(abs(p[k] - bg[k]) for k in range(3)) > 60
            palette += any(sum(abs(p[k] - q[k]) for k in range(3)) < 24 for q in PALETTE)
    return len(colours), inked / max(n, 1), palette


def shot(page, out, scale=0.7):
    """The README's picture of page: from the top to the validation table's first rows (or the
    whole page), 1100 px wide, scaled."""
    import base64
    d = chrome.start(width=1100, height=900)
    try:
        d.get("file://" + os.path.abspath(page))
        h = d.execute_script("return document.documentElement.scrollHeight")
        y = d.execute_script("var t = document.getElementById('validation-runs'); return t ? "
                             "t.getBoundingClientRect().top + window.scrollY + 260 : "
                             "document.documentElement.scrollHeight")
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": 1100, "height": h, "deviceScaleFactor": 1, "mobile": False})
        r = d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                              "clip": {"x": 0, "y": 0, "width": 1100, "height": y, "scale": scale}})
        with open(out, "wb") as f:
            f.write(base64.b64decode(r["data"]))
    finally:
        chrome.stop(d)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        sys.exit(2)
    if "--shot" in args:
        shot(args[0], args[args.index("--shot") + 1])
        return
    page, png, pdf = args[0], None, None
    if "--png" in args:
        png = args[args.index("--png") + 1]
    if "--pdf" in args:
        pdf = args[args.index("--pdf") + 1]
    t = Checks()
    render(page, t, dark=False, png_out=png, pdf_out=pdf)
    render(page, t, dark=True)
    print("%d passed, %d failed" % (t.passed, t.failed))
    sys.exit(1 if t.failed else 0)


if __name__ == "__main__":
    main()
