"""hub_server.py -- a stand-in for the Hugging Face Hub's resolve endpoint, for tests/cli/hub.sh.

Usage: python3 hub_server.py CONFIG PORTFILE [SECONDS]
Binds 127.0.0.1 on a free port, writes the port to PORTFILE, and serves for at most SECONDS
(default 60) GET /{org}/{name}/resolve/{rev}/config.json:
  zs-test/tiny      main -> 200 with X-Repo-Commit HASH_MAIN; v1.0 -> HASH_V1; a commit -> itself
  zs-test/gated     401 without "Authorization: Bearer sekret", 403 with another token, else 200
  zs-test/moved     307 to zs-test/tiny (a renamed repository)
  zs-test/noheader  200 without X-Repo-Commit
  zs-test/broken    200 claiming 100000 bytes, sending a few, then closing (an interrupted download)
  zs-test/html      200 with an HTML page (a captive portal)
  anything else     404
Each request's path and Authorization header are appended to PORTFILE.log.
"""
import http.server
import os
import sys
import time

HASH_MAIN = "1111111111111111111111111111111111111111"
HASH_V1 = "2222222222222222222222222222222222222222"
HASH_GATED = "3333333333333333333333333333333333333333"
HASH_MOVED = HASH_MAIN

config = open(sys.argv[1], "rb").read()
portfile = sys.argv[2]
deadline = time.time() + (float(sys.argv[3]) if len(sys.argv) > 3 else 60.0)


class Hub(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, body=b"", commit=None, headers=()):
        self.send_response(code)
        if commit:
            self.send_header("X-Repo-Commit", commit)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        auth = self.headers.get("Authorization", "")
        with open(portfile + ".log", "a") as log:
            log.write("%s %s\n" % (self.path, auth))
        parts = self.path.split("/")
        if len(parts) != 6 or parts[3] != "resolve" or parts[5] != "config.json":
            return self.send(404, b"not found")
        repo, rev = parts[1] + "/" + parts[2], parts[4]
        if repo == "zs-test/tiny":
            commit = {"main": HASH_MAIN, "v1.0": HASH_V1}.get(rev, rev if len(rev) == 40 else None)
            return self.send(200, config, commit) if commit else self.send(404, b"no revision")
        if repo == "zs-test/gated":
            if not auth:
                return self.send(401, b"gated")
            if auth != "Bearer sekret":
                return self.send(403, b"forbidden")
            return self.send(200, config, HASH_GATED)
        if repo == "zs-test/moved":
            return self.send(307, b"", None, [("Location", "/zs-test/tiny/resolve/%s/config.json" % rev)])
        if repo == "zs-test/noheader":
            return self.send(200, config)
        if repo == "zs-test/broken":
            self.send_response(200)
            self.send_header("X-Repo-Commit", HASH_MAIN)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(config[:20])
            self.wfile.flush()
            self.close_connection = True
            return None
        if repo == "zs-test/html":
            return self.send(200, b"<html><body>sign in</body></html>", HASH_MAIN)
        return self.send(404, b"Repository not found")


server = http.server.HTTPServer(("127.0.0.1", 0), Hub)
server.timeout = 0.5
with open(portfile + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
# the port file appears whole: written, then renamed
os.rename(portfile + ".tmp", portfile)
while time.time() < deadline:
    server.handle_request()
server.server_close()
