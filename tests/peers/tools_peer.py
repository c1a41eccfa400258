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
import socketserver
import sys
import threading
from urllib.parse import parse_qs, urlsplit

# The HTTP peer's activity record and exit watchers serve here too (its module runs nothing on import).
import http_peer
from http_peer import STATS, exit_when_idle, exit_when_stdin_closes

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


# The headers of the last request, beside the HTTP peer's counters.
STATS.last_headers = {}


class Handler(http_peer.Handler):
    """The HTTP peer's handler (its connection counting, body reading and replies) with other routes."""

    server_version = "reagent-tools-peer"

    def dispatch(self):
        path = urlsplit(self.path).path
        STATS.touch()
        with STATS.lock:
            if path != "/stats":
                STATS.requests.append(self.requestline)
                STATS.last_headers = {k.lower(): v for k, v in self.headers.items()}
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
        with STATS.lock:
            stats = {"requests": list(STATS.requests), "headers": STATS.last_headers}
        self.reply(200, json.dumps(stats))


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
