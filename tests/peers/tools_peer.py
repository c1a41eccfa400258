#!/usr/bin/env python3
"""Loopback peer for the network tools' integration tests (Python 3 standard library only).

Binds 127.0.0.1 on an ephemeral port, prints the port as the first line of stdout, and serves until
stdin closes or nothing happened for --idle-timeout seconds.

Routes for http-get (query parameters in brackets):
  /json                   a JSON object
  /html                   an HTML page with a script, a style, a comment, entities and blocks
  /text?bytes=N           text/plain of N bytes ("a" repeated), with its Content-Length
  /stream?bytes=N         the same, chunked (no Content-Length)
  /binary                 a few bytes of image/png
  /redirect?to=URL[&status=S]
                          a redirect (302 unless S) to URL (absolute or relative)
  /loop?n=K               redirects to /loop?n=K-1 down to 0, which answers 200
A Tavily-like search API, which wants `Authorization: Bearer test-key`:
  POST /search            {query, max_results, search_depth} -> {query, results: [{title, url, content,
                          score}]}, max_results of them; 401 without the key
A CoinGecko-like simple-price API:
  /api/v3/simple/price?ids=a,b&vs_currencies=c
                          {"<id>": {"<c>": price}} for the ids it knows, others left out
Under the prefix /limited every API route answers 429 with Retry-After: 30.
  /stats                  JSON: requests (request lines seen, /stats excluded), headers of the last request
"""

import argparse
import json
import os
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

PRICES = {
    "bitcoin": {"usd": 50000.5, "eur": 46000.0},
    "ethereum": {"usd": 3000.25, "eur": 2800.0},
    "solana": {"usd": 150.0, "eur": 140.0},
}

HTML = b"""<!DOCTYPE html>
<html><head><title>Peer &amp; Page</title>
<style>body { color: red; }</style>
<script>var secret = "do not show";</script></head>
<body><h1>Hello&nbsp;world</h1>
<!-- a comment that must vanish -->
<p>Fish &amp; chips &lt;3 &#233;t&#xE9; &quot;q&quot;</p>
<p>one    two
   three</p><ul><li>first</li><li>second</li></ul>
<noscript>enable scripts</noscript>
</body></html>"""


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []
        self.last_headers = {}
        self.last_activity = time.monotonic()


STATE = State()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "reagent-tools-peer"

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):
        if self.server.verbose:
            sys.stderr.write("peer: " + (format % args) + "\n")

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def query(self):
        return {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def reply(self, status, body, content_type="application/json", extra=()):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def dispatch(self):
        path = urlsplit(self.path).path
        with STATE.lock:
            STATE.last_activity = time.monotonic()
            if path != "/stats":
                STATE.requests.append(self.requestline)
                STATE.last_headers = {k.lower(): v for k, v in self.headers.items()}
        body = self.read_body()
        if path.startswith("/limited/"):
            return self.reply(429, json.dumps({"error": "rate limited"}), extra=[("Retry-After", "30")])
        handler = ROUTES.get(path)
        if handler is None:
            return self.reply(404, json.dumps({"error": "no route " + path}))
        handler(self, body)

    do_GET = do_POST = dispatch

    # --- http-get --------------------------------------------------------------------------------

    def route_json(self, _body):
        self.reply(200, json.dumps({"name": "peer", "items": [1, 2, 3], "nested": {"ok": True}}))

    def route_html(self, _body):
        self.reply(200, HTML, "text/html; charset=utf-8")

    def route_text(self, _body):
        self.reply(200, b"a" * int(self.query().get("bytes", "10")), "text/plain")

    def route_stream(self, _body):
        size = int(self.query().get("bytes", "10"))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while size > 0:
            part = min(size, 4096)
            self.wfile.write(b"%x\r\n%s\r\n" % (part, b"a" * part))
            size -= part
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def route_binary(self, _body):
        self.reply(200, b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR", "image/png")

    def route_redirect(self, _body):
        q = self.query()
        self.reply(int(q.get("status", "302")), b"", "text/plain", extra=[("Location", q["to"])])

    def route_loop(self, _body):
        n = int(self.query().get("n", "0"))
        if n <= 0:
            return self.reply(200, json.dumps({"arrived": True}))
        self.reply(302, b"", "text/plain", extra=[("Location", "/loop?n=%d" % (n - 1))])

    # --- APIs ------------------------------------------------------------------------------------

    def route_search(self, body):
        if self.headers.get("Authorization") != "Bearer test-key":
            return self.reply(401, json.dumps({"detail": {"error": "Unauthorized: missing or invalid API key."}}))
        request = json.loads(body or b"{}")
        count = int(request.get("max_results", 5))
        results = [{"title": "Result %d for %s" % (i, request.get("query")),
                    "url": "https://example.com/%d" % i,
                    "content": "content %d" % i,
                    "score": 1.0 - i / 10.0,
                    "raw_content": None} for i in range(count)]
        self.reply(200, json.dumps({"query": request.get("query"), "answer": None, "results": results,
                                    "search_depth_seen": request.get("search_depth"),
                                    "response_time": 0.01}))

    def route_price(self, _body):
        q = self.query()
        currency = q.get("vs_currencies", "usd")
        out = {}
        for coin in q.get("ids", "").split(","):
            if coin in PRICES and currency in PRICES[coin]:
                out[coin] = {currency: PRICES[coin][currency]}
        self.reply(200, json.dumps(out))

    def route_stats(self, _body):
        with STATE.lock:
            self.reply(200, json.dumps({"requests": list(STATE.requests), "headers": STATE.last_headers}))


ROUTES = {
    "/json": Handler.route_json,
    "/html": Handler.route_html,
    "/text": Handler.route_text,
    "/stream": Handler.route_stream,
    "/binary": Handler.route_binary,
    "/redirect": Handler.route_redirect,
    "/loop": Handler.route_loop,
    "/search": Handler.route_search,
    "/api/v3/simple/price": Handler.route_price,
    "/stats": Handler.route_stats,
}


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, verbose):
        self.verbose = verbose
        super().__init__(("127.0.0.1", 0), Handler)


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except OSError:
        pass
    os._exit(0)


def exit_when_idle(timeout_s):
    while True:
        time.sleep(0.5)
        with STATE.lock:
            idle = time.monotonic() - STATE.last_activity
        if idle > timeout_s:
            os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="exit after this many idle seconds")
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args()
    server = Server(args.verbose)
    print(server.server_address[1], flush=True)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    threading.Thread(target=exit_when_idle, args=(args.idle_timeout,), daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
