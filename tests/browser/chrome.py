"""chrome.py -- headless Debian Chromium under selenium (python3-selenium, chromium-driver) for
the browser tests: one start() with the flags this machine needs, and the page's console errors
and network requests read back from Chromium's logs.

Run the tests with Debian's /usr/bin/python3 (the one python3-selenium installs into). A test
that cannot start the browser prints "skipped: <reason>" and exits 0 through skip()."""
import json
import os
import shutil
import sys
import tempfile

# Flags: headless without a sandbox (CI runs as root), and no background traffic: this machine's
# network is closed and Chromium's own update, sync and metrics connections would fill the log.
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--disable-dev-shm-usage",
         "--hide-scrollbars", "--force-color-profile=srgb"]


def skip(reason):
    print("skipped: " + reason)
    sys.exit(0)


def start(width=1280, height=900, dark=False):
    """A selenium Chrome driver on Debian's chromium; skip() when either is missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        skip("python3-selenium is not installed for " + sys.executable)
    browser = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if not browser or not driver_bin:
        skip("chromium or chromedriver is not installed")
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument("--window-size=%d,%d" % (width, height))
    profile = tempfile.mkdtemp(prefix="zs-chrome-")
    opts.add_argument("--user-data-dir=" + profile)
    if dark:
        opts.add_argument("--force-dark-mode")
        opts.add_argument("--blink-settings=preferredColorScheme=0")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    try:
        d = webdriver.Chrome(service=Service(driver_bin), options=opts)
    except Exception as e:  # a browser that cannot start here is a skip, not a failure
        shutil.rmtree(profile, ignore_errors=True)
        skip("chromium did not start: %s" % str(e).splitlines()[0][:200])
    d._zs_profile = profile
    return d


def stop(d):
    profile = getattr(d, "_zs_profile", None)
    try:
        d.quit()
    finally:
        if profile:
            shutil.rmtree(profile, ignore_errors=True)


def console_errors(d):
    """The page's console messages at level SEVERE (errors, failed loads, CSP violations)."""
    return [e["message"] for e in d.get_log("browser") if e.get("level") == "SEVERE"]


def requests(d):
    """Every URL asked for since the last call (Network.requestWillBeSent), less the browser's own
    chrome:, devtools: and about: pages (its new-tab page loads before ours)."""
    urls = []
    for e in d.get_log("performance"):
        try:
            m = json.loads(e["message"])["message"]
        except (KeyError, ValueError):
            continue
        if m.get("method") == "Network.requestWillBeSent":
            url = m["params"]["request"]["url"]
            if not url.startswith(("chrome:", "chrome-", "devtools:", "about:")):
                urls.append(url)
    return urls


def pdf(d, path):
    """Print the page to a PDF file (Page.printToPDF, A4, backgrounds)."""
    import base64
    r = d.execute_cdp_cmd("Page.printToPDF", {"printBackground": True, "paperWidth": 8.27,
                                              "paperHeight": 11.69})
    with open(path, "wb") as f:
        f.write(base64.b64decode(r["data"]))
