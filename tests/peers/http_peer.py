#!/usr/bin/env python3
"""Loopback HTTP peer for reagent's integration tests (Python 3 standard library only).

Binds 127.0.0.1 on an ephemeral port, prints the port as the first line of stdout, and serves until
stdin closes or nothing happened for --idle-timeout seconds. Every response carries X-Connection-Id, the
number of the TCP connection it was sent on (1, 2, ...), so tests can see keep-alive reuse.

Modes:
  (default)          origin server with the routes below
  --tls CERT KEY     the same routes over TLS
  --proxy            a forward proxy: CONNECT tunnels and absolute-form requests; its own /stats

Routes (query parameters in brackets):
  /echo                  JSON of the request: method, target, version, headers (in order), body, connection
  /status/CODE           that status with a short JSON body
  /chunked[?parts=N]     a chunked body of N parts "part-i;"
  /sse[?events=N&delay_ms=D&close=1]
                         text/event-stream, N events D ms apart, each `data: {"i":i,"sent_ms":epoch ms}`;
                         chunked, or delimited by the connection's close with close=1
  /stall[?ms=M]          reads the request and answers nothing for M ms (or until the client closes,
                         which /stats counts as stall_closed)
  /stall-body[?ms=M]     headers and 5 of 10 body bytes, then nothing for M ms
  /drop-mid-body         announces 100 body bytes, sends 10, closes
  /close[?announce=1]    answers, then closes the connection (announced with Connection: close or not)
  /keepalive-then-drop   answers normally; the next request on that connection is read and dropped
  /stats                 JSON: connections, stall_closed, requests (request lines seen)
"""

import argparse
import json
import os
import select
import socket
import socketserver
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.connections = 0
        self.stall_closed = 0
        self.tls_failures = 0
        self.requests = []
        self.last_activity = time.monotonic()

    def touch(self):
        with self.lock:
            self.last_activity = time.monotonic()

    def snapshot(self):
        with self.lock:
            return {
                "connections": self.connections,
                "stall_closed": self.stall_closed,
                "tls_failures": self.tls_failures,
                "requests": list(self.requests),
            }


STATS = Stats()


def now_ms():
    return int(time.time() * 1000)


def client_closed(sock, wait_s):
    """Waits up to wait_s seconds; True as soon as the peer closed (or reset) the connection."""
    end = time.monotonic() + wait_s
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return False
        readable, _, _ = select.select([sock], [], [], min(left, 0.01))
        if readable:
            try:
                # The plain socket's recv also works under TLS: it peeks at the raw bytes.
                if socket.socket.recv(sock, 1, socket.MSG_PEEK) == b"":
                    return True
            except (ConnectionError, OSError):
                return True
            # Unexpected bytes: not a close; keep waiting without spinning.
            time.sleep(0.01)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "reagent-peer"

    def version_string(self):
        return self.server_version

    def setup(self):
        self.tls_ok = True
        if isinstance(self.request, ssl.SSLSocket):
            try:
                self.request.settimeout(10)
                self.request.do_handshake()
                self.request.settimeout(None)
            except (ssl.SSLError, OSError):
                self.tls_ok = False
                with STATS.lock:
                    STATS.tls_failures += 1
        super().setup()
        with STATS.lock:
            STATS.connections += 1
            self.connection_id = STATS.connections
        self.drop_next = False
        STATS.touch()

    def handle(self):
        if self.tls_ok:
            try:
                super().handle()
            except (ConnectionError, ssl.SSLError, OSError):
                pass

    def log_message(self, format, *args):
        if self.server.verbose:
            sys.stderr.write("peer: " + (format % args) + "\n")

    # --- helpers ---------------------------------------------------------------------------------

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
        self.send_header("X-Connection-Id", str(self.connection_id))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    # --- dispatch --------------------------------------------------------------------------------

    def dispatch(self):
        STATS.touch()
        with STATS.lock:
            STATS.requests.append(self.requestline)
        if self.drop_next:
            self.read_body()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if self.server.proxy_mode and self.command == "CONNECT":
            return self.tunnel()
        if self.server.proxy_mode and self.path.startswith("http://"):
            return self.forward()
        route = urlsplit(self.path).path
        handler = ROUTES.get(route)
        if handler is None and route.startswith("/status/"):
            handler = Handler.route_status
        if handler is None:
            self.read_body()
            return self.reply(404, json.dumps({"error": "no route " + route}))
        handler(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_CONNECT = dispatch

    # --- routes ----------------------------------------------------------------------------------

    def route_echo(self):
        body = self.read_body()
        self.reply(200, json.dumps({
            "method": self.command,
            "target": self.path,
            "version": self.request_version,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": body.decode("latin-1"),
            "connection": self.connection_id,
        }))

    def route_status(self):
        self.read_body()
        code = int(urlsplit(self.path).path.rsplit("/", 1)[1])
        self.reply(code, json.dumps({"error": {"type": "status_%d" % code, "message": "status %d" % code}}))

    def route_chunked(self):
        self.read_body()
        parts = int(self.query().get("parts", "3"))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("X-Connection-Id", str(self.connection_id))
        self.end_headers()
        for i in range(parts):
            self.write_chunk(b"part-%d;" % i)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def route_sse(self):
        self.read_body()
        q = self.query()
        events = int(q.get("events", "3"))
        delay = int(q.get("delay_ms", "100")) / 1000.0
        close = q.get("close") == "1"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Connection-Id", str(self.connection_id))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        for i in range(events):
            if i > 0:
                time.sleep(delay)
            event = b'data: {"i":%d,"sent_ms":%d}\n\n' % (i, now_ms())
            if close:
                self.wfile.write(event)
                self.wfile.flush()
            else:
                self.write_chunk(event)
        if not close:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def route_stall(self):
        self.read_body()
        ms = int(self.query().get("ms", "10000"))
        if client_closed(self.connection, ms / 1000.0):
            with STATS.lock:
                STATS.stall_closed += 1
            self.close_connection = True
            return
        self.reply(200, json.dumps({"late": True}))

    def route_stall_body(self):
        self.read_body()
        ms = int(self.query().get("ms", "10000"))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "10")
        self.send_header("X-Connection-Id", str(self.connection_id))
        self.end_headers()
        self.wfile.write(b"12345")
        self.wfile.flush()
        if client_closed(self.connection, ms / 1000.0):
            with STATS.lock:
                STATS.stall_closed += 1
            self.close_connection = True
            return
        self.wfile.write(b"67890")
        self.wfile.flush()

    def route_drop_mid_body(self):
        self.read_body()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "100")
        self.send_header("X-Connection-Id", str(self.connection_id))
        self.end_headers()
        self.wfile.write(b"0123456789")
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def route_close(self):
        self.read_body()
        announce = self.query().get("announce") == "1"
        extra = [("Connection", "close")] if announce else []
        self.reply(200, json.dumps({"closing": True, "connection": self.connection_id}), extra=extra)
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def route_keepalive_then_drop(self):
        self.read_body()
        self.reply(200, json.dumps({"connection": self.connection_id}))
        self.drop_next = True

    def route_stats(self):
        self.read_body()
        self.reply(200, json.dumps(STATS.snapshot()))

    # --- proxy mode ------------------------------------------------------------------------------

    def tunnel(self):
        host, _, port = self.path.rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=5)
        except OSError as error:
            return self.reply(502, json.dumps({"error": str(error)}), extra=[("Connection", "close")])
        self.send_response(200, "Connection Established")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        pipe([self.connection, upstream])

    def forward(self):
        url = urlsplit(self.path)
        body = self.read_body()
        target = url.path + ("?" + url.query if url.query else "")
        lines = ["%s %s HTTP/1.1" % (self.command, target or "/")]
        for name, value in self.headers.items():
            if name.lower() in ("connection", "keep-alive", "proxy-connection", "proxy-authorization"):
                continue
            lines.append("%s: %s" % (name, value))
        lines += ["Via: 1.1 reagent-peer-proxy", "Connection: close"]
        try:
            upstream = socket.create_connection((url.hostname, url.port or 80), timeout=10)
        except OSError as error:
            return self.reply(502, json.dumps({"error": str(error)}), extra=[("Connection", "close")])
        with upstream:
            upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
            response = b""
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                response += data
        head, _, rest = response.partition(b"\r\n\r\n")
        if b"\r\nconnection:" not in head.lower():
            head += b"\r\nConnection: close"
        self.wfile.write(head + b"\r\n\r\n" + rest)
        self.wfile.flush()
        self.close_connection = True


ROUTES = {
    "/echo": Handler.route_echo,
    "/chunked": Handler.route_chunked,
    "/sse": Handler.route_sse,
    "/stall": Handler.route_stall,
    "/stall-body": Handler.route_stall_body,
    "/drop-mid-body": Handler.route_drop_mid_body,
    "/close": Handler.route_close,
    "/keepalive-then-drop": Handler.route_keepalive_then_drop,
    "/stats": Handler.route_stats,
}


def pipe(sockets):
    """Copies bytes both ways between two sockets until either side closes."""
    a, b = sockets
    peers = {a: b, b: a}
    try:
        while True:
            readable, _, _ = select.select([a, b], [], [], 60)
            if not readable:
                return
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                peers[sock].sendall(data)
    except OSError:
        return
    finally:
        for sock in (a, b):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, tls_context, proxy_mode, verbose):
        self.tls_context = tls_context
        self.proxy_mode = proxy_mode
        self.verbose = verbose
        super().__init__(("127.0.0.1", 0), Handler)

    def get_request(self):
        sock, address = super().get_request()
        if self.tls_context is not None:
            # The handshake runs in the connection's thread (Handler.setup), not in the accept loop.
            sock = self.tls_context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, address

    def handle_error(self, request, client_address):
        if self.verbose:
            super().handle_error(request, client_address)


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
        with STATS.lock:
            idle = time.monotonic() - STATS.last_activity
        if idle > timeout_s:
            os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS with this certificate")
    parser.add_argument("--proxy", action="store_true", help="act as a forward proxy")
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="exit after this many idle seconds")
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args()

    tls_context = None
    if args.tls:
        tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls_context.load_cert_chain(args.tls[0], args.tls[1])

    server = Server(tls_context, args.proxy, args.verbose)
    print(server.server_address[1], flush=True)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    threading.Thread(target=exit_when_idle, args=(args.idle_timeout,), daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
