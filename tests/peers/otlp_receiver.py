#!/usr/bin/env python3
"""Loopback OTLP/HTTP receiver for reagent's telemetry tests (Python 3 standard library only).

Binds 127.0.0.1 on an ephemeral port, prints the port as the first line of stdout, and serves until stdin
closes. It keeps what it receives; the tests decode the bodies with OpenTelemetry's own protobuf root
(tests/peers/otel/otlp_decode.mjs).

  POST /v1/traces, /v1/metrics
                    recorded (path, headers, body, gunzipped when sent with Content-Encoding: gzip, as a
                    collector reads it); answered 200 with an empty body, except:
                      --fail N --status S [--retry-after V]   the first N answered S (with Retry-After: V)
                      --hang                                  never answered (the connection is held)
  GET /received     JSON list of what was recorded: {"path", "headers": {lowercase name: value},
                    "body_base64", "at_ms"}
"""

import argparse
import base64
import gzip
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

received = []
lock = threading.Lock()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--fail', type=int, default=0)
    parser.add_argument('--status', type=int, default=503)
    parser.add_argument('--retry-after', default=None)
    parser.add_argument('--hang', action='store_true')
    options = parser.parse_args()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'

        def log_message(self, *args):
            pass

        def answer(self, status, body=b'', content_type='application/json', extra=None):
            self.send_response(status)
            self.send_header('Content-Type', content_type)
            self.send_header('Content-Length', str(len(body)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == '/received':
                with lock:
                    body = json.dumps(received).encode()
                self.answer(200, body)
            else:
                self.answer(404, b'{}')

        def do_POST(self):
            length = int(self.headers.get('Content-Length', '0'))
            body = self.rfile.read(length)
            if self.headers.get('Content-Encoding', '').lower() == 'gzip':
                body = gzip.decompress(body)
            with lock:
                received.append({'path': self.path,
                                 'headers': {k.lower(): v for k, v in self.headers.items()},
                                 'body_base64': base64.b64encode(body).decode(),
                                 'at_ms': int(time.time() * 1000)})
                count = len(received)
            if options.hang:
                time.sleep(3600)
                return
            if count <= options.fail:
                extra = {'Retry-After': options.retry_after} if options.retry_after is not None else None
                self.answer(options.status, b'{"error":"scripted failure"}', extra=extra)
                return
            self.answer(200, b'', content_type=self.headers.get('Content-Type', 'application/json'))

    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)

    def exit_when_stdin_closes():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            server.shutdown()

    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == '__main__':
    main()
