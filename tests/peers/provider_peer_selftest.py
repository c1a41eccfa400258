#!/usr/bin/env python3
"""Self-test of provider_peer.py (stdlib only): starts the peer on a temporary script and checks scripted
responses, rules, chunked pieces, drop, stall, raw bodies, endless bodies, early answers, the request record,
reset, keep-alive and Connection: close; and the computed embedding replies of the "embeddings" key.
Exits 0 when every check passes, 1 otherwise."""

import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PEER = os.path.join(HERE, "provider_peer.py")
FIXTURES = os.path.join(HERE, "..", "fixtures", "providers")

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def raw_exchange(port, request, timeout=5.0):
    """Sends raw request bytes and reads until the peer closes; returns (bytes, closed_cleanly)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(request)
    data = b""
    try:
        while True:
            piece = sock.recv(65536)
            if not piece:
                break
            data += piece
    except ConnectionResetError:
        pass
    sock.close()
    return data


@contextlib.contextmanager
def peer_with(script):
    """A second peer running `script`; yields its port, stops it and removes the script afterwards."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(script, f)
        path = f.name
    peer = subprocess.Popen([sys.executable, PEER, "--script", path], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    try:
        yield int(peer.stdout.readline())
    finally:
        peer.stdin.close()
        peer.wait(timeout=5)
        os.unlink(path)


def dechunk(body):
    """Returns (pieces, terminated) of a chunked body."""
    pieces, rest = [], body
    while rest:
        line, sep, rest = rest.partition(b"\r\n")
        if not sep:
            return pieces, False
        size = int(line, 16)
        if size == 0:
            return pieces, rest == b"\r\n"
        pieces.append(rest[:size])
        rest = rest[size + 2:]
    return pieces, False


def main():
    fixture_rel = os.path.relpath(os.path.join(FIXTURES, "openai", "text.json"), tempfile.gettempdir())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        script_path = f.name
        json.dump({
            "responses": [
                {"body": "{\"first\":1}"},
                {"status": 429, "headers": {"retry-after": "2"}, "body": "{\"error\":\"slow down\"}"},
                {"chunks": ["data: {\"a\":", "1}\n\n", {"b64": "ww=="}, {"b64": "qQoK"}], "chunk_delay_ms": 50},
                {"chunks": ["one", "two", "three"], "drop_after_chunks": 2},
                {"stall": True},
                {"body_file": fixture_rel, "delay_ms": 200},
            ],
            "rules": [
                {"match": "tool_result", "response": {"body": "{\"answer\":\"text\"}"}},
                {"match": "", "response": {"body": "{\"answer\":\"tool\"}"}},
            ],
        }, f)
    peer = subprocess.Popen([sys.executable, PEER, "--script", script_path, "--idle-timeout", "30"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        port = int(peer.stdout.readline())
        run_checks(port)
        check_raw_endless_early()
        check_embeddings()
        # Once the script is used up and reset, the same script answers again from the start.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/__reset")
        check(json.loads(conn.getresponse().read()) == {"reset": True}, "reset answers")
        conn.request("GET", "/__requests")
        check(json.loads(conn.getresponse().read()) == [], "reset clears the record")
        conn.request("POST", "/v1/messages", body="{}")
        check(conn.getresponse().read() == b"{\"first\":1}", "reset restarts the responses")
        conn.close()
        # Closing stdin ends the peer.
        peer.stdin.close()
        try:
            peer.wait(timeout=5)
            check(True, "")
        except subprocess.TimeoutExpired:
            check(False, "peer exits when stdin closes")
    finally:
        if peer.poll() is None:
            peer.kill()
            peer.wait()
        os.unlink(script_path)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("provider_peer self-test passed")
    return 0


def run_checks(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

    # 1: plain body, keep-alive, default content type.
    conn.request("POST", "/v1/messages?beta=true", body=b"{\"model\":\"m\"}",
                 headers={"X-Api-Key": "k1", "Content-Type": "application/json"})
    r = conn.getresponse()
    check(r.status == 200 and r.reason == "OK", "first response is 200 OK")
    check(r.getheader("content-type") == "application/json", "default content-type")
    check(r.read() == b"{\"first\":1}", "first body")
    connection_id = r.getheader("x-connection-id")

    # 2: status, reason phrase, custom header; same connection.
    conn.request("POST", "/v1/messages", body=b"x")
    r = conn.getresponse()
    check(r.status == 429 and r.reason == "Too Many Requests", "429 with its reason phrase")
    check(r.getheader("retry-after") == "2", "custom header")
    check(r.getheader("x-connection-id") == connection_id, "keep-alive reuses the connection")
    r.read()

    # 3: chunked pieces, exact bytes (a UTF-8 character split across pieces), delays between them.
    start = time.monotonic()
    data = raw_exchange(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                              b"Connection: close\r\n\r\n{}")
    elapsed = time.monotonic() - start
    head, _, body = data.partition(b"\r\n\r\n")
    check(b"content-type: text/event-stream" in head.lower(), "chunks default to text/event-stream")
    check(b"transfer-encoding: chunked" in head.lower(), "chunks use chunked encoding")
    check(b"connection: close" in head.lower(), "Connection: close is echoed")
    pieces, terminated = dechunk(body)
    check(pieces == [b"data: {\"a\":", b"1}\n\n", b"\xc3", b"\xa9\n\n"], "pieces sent exactly: %r" % pieces)
    check(terminated, "chunked body terminated")
    check(elapsed >= 0.14, "chunk_delay_ms honoured (%.3fs)" % elapsed)

    # 4: drop after two pieces: no terminating chunk, connection closed.
    data = raw_exchange(port, b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                              b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
    pieces, terminated = dechunk(data.partition(b"\r\n\r\n")[2])
    check(pieces == [b"one", b"two"] and not terminated, "drop_after_chunks: %r" % pieces)

    # 5: stall: the head arrives, then nothing until the client closes.
    sock = socket.create_connection(("127.0.0.1", port), timeout=0.7)
    sock.sendall(b"GET /stall HTTP/1.1\r\nHost: x\r\n\r\n")
    head = b""
    try:
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        extra = head.partition(b"\r\n\r\n")[2]
        more = sock.recv(4096)
        check(False, "stall sent more bytes: %r %r" % (extra, more))
    except socket.timeout:
        check(head.startswith(b"HTTP/1.1 200 OK\r\n"), "stall sends the head")
    sock.close()

    # 6: body_file relative to the script, delay before the head.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    start = time.monotonic()
    conn.request("POST", "/v1/chat/completions", body="{}")
    r = conn.getresponse()
    body = r.read()
    check(time.monotonic() - start >= 0.19, "delay_ms honoured")
    check(json.loads(body)["object"] == "chat.completion", "body_file served")

    # Rules: reused, first match wins, an empty match always matches.
    for payload, expected in [("{\"type\":\"tool_result\"}", "text"), ("{}", "tool"), ("tool_result", "text")]:
        conn.request("POST", "/v1/messages", body=payload)
        check(json.loads(conn.getresponse().read())["answer"] == expected, "rule for " + payload)

    # The record: every non-control request, in order, lower-case headers, chunked bodies decoded.
    conn.request("GET", "/__requests")
    r = conn.getresponse()
    record = json.loads(r.read())
    check(len(record) == 9, "nine requests recorded (got %d)" % len(record))
    if record:
        first = record[0]
        check(first["method"] == "POST" and first["path"] == "/v1/messages" and first["query"] == "beta=true",
              "method, path, query recorded")
        check(first["headers"].get("x-api-key") == "k1", "headers recorded lower-case")
        check(first["body"] == "{\"model\":\"m\"}", "body recorded")
    if len(record) >= 4:
        check(record[3]["body"] == "hello world", "chunked request body decoded")
    conn.close()

    # With no rule matching and nothing left the peer says so (a script of responses only).
    with peer_with({"responses": [{"body": "{}"}]}) as other_port:
        c = http.client.HTTPConnection("127.0.0.1", other_port, timeout=5)
        c.request("POST", "/a", body="{}")
        c.getresponse().read()
        c.request("POST", "/a", body="{}")
        r = c.getresponse()
        check(r.status == 500 and r.reason == "Internal Server Error", "exhausted script is 500")
        check("exhausted" in json.loads(r.read())["error"]["message"], "exhausted message")
        c.close()

    # Many concurrent keep-alive connections.
    socks = []
    try:
        for _ in range(200):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        for s in socks:
            s.sendall(b"GET /__stats HTTP/1.1\r\nHost: x\r\n\r\n")
        ok = 0
        for s in socks:
            data = b""
            while b"}" not in data:
                data += s.recv(4096)
            ok += data.startswith(b"HTTP/1.1 200 OK")
        check(ok == 200, "200 concurrent connections answered (%d)" % ok)
    finally:
        for s in socks:
            s.close()


def check_raw_endless_early():
    """body_b64, endless and early, on a peer of their own."""
    script = {"responses": [
        {"body_b64": "/w=="},
        {"endless": {"prefix": "data: ", "piece": "xy"}},
        {"status": 413, "body": "{\"error\":\"too large\"}", "early": True},
    ]}
    with peer_with(script) as port:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("POST", "/raw", body="{}")
        check(c.getresponse().read() == b"\xff", "body_b64 sends raw bytes")
        c.close()

        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"POST /endless HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        data = b""
        while len(data) < 1 << 20:
            piece = sock.recv(65536)
            if not piece:
                break
            data += piece
        sock.close()
        check(len(data) >= 1 << 20 and b"data: " in data and b"xyxy" in data, "endless keeps sending")

        data = raw_exchange(port, b"POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
        check(data.startswith(b"HTTP/1.1 413 ") and b"too large" in data, "early answers before the body")


def check_embeddings():
    """The "embeddings" key: each API's reply shape, the hashed-words vectors, the record, and the
    scripted responses left alone."""
    script = {"embeddings": {"dimensions": 8}, "responses": [{"body": "{\"first\":1}"}]}
    with peer_with(script) as port:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

        def post(path, payload):
            c.request("POST", path, body=json.dumps(payload), headers={"Content-Type": "application/json"})
            r = c.getresponse()
            return r.status, json.loads(r.read())

        status, openai = post("/v1/embeddings", {"model": "m1", "encoding_format": "float",
                                                 "input": ["The cats sat", "the cat SAT", "a"]})
        check(status == 200 and openai.get("object") == "list" and openai.get("model") == "m1",
              "openai embeddings reply: %r" % openai)
        data = openai.get("data", [])
        check([d.get("index") for d in data] == [0, 1, 2], "openai data items numbered in order")
        check(all(d.get("object") == "embedding" for d in data), "openai data items are embeddings")
        check(openai.get("usage") == {"prompt_tokens": 7, "total_tokens": 7}, "openai usage counts words")
        vectors = [d.get("embedding", []) for d in data]
        check(all(len(v) == 8 for v in vectors), "vectors of the script's dimension")
        check(abs(sum(x * x for x in vectors[0]) - 1.0) < 1e-9, "vectors have unit length")
        check(vectors[0] == vectors[1], "case and a plural 's' do not change the vector")
        # FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c: bucket 0x8c % 8 = 4, bit 63 set: negative.
        check(vectors[2] == [0, 0, 0, 0, -1.0, 0, 0, 0], "the vector of 'a': %r" % vectors[2])

        status, ollama = post("/api/embed", {"model": "m2", "input": "The cats sat"})
        check(status == 200 and ollama == {"model": "m2", "embeddings": [vectors[0]], "prompt_eval_count": 3},
              "ollama embed reply: %r" % ollama)

        two_parts = {"parts": [{"text": "the cats"}, {"text": "sat"}]}
        status, batch = post("/v1beta/models/e:batchEmbedContents",
                             {"requests": [{"model": "models/e", "content": two_parts},
                                           {"model": "models/e", "content": {"parts": [{"text": "a"}]},
                                            "taskType": "RETRIEVAL_QUERY"}]})
        check(status == 200 and batch == {"embeddings": [{"values": vectors[0]}, {"values": vectors[2]}]},
              "gemini batch reply: %r" % batch)
        status, single = post("/v1beta/models/e:embedContent?alt=json",
                              {"content": {"parts": [{"text": "a"}]}})
        check(status == 200 and single == {"embedding": {"values": vectors[2]}},
              "gemini single reply: %r" % single)

        status, bad = post("/v1/embeddings", {"model": "m", "input": [1, 2]})
        check(status == 400 and "not an embedding request" in bad["error"]["message"], "a bad body is a 400")

        # Other paths still play the script, from its start.
        c.request("POST", "/v1/chat/completions", body="{}")
        check(c.getresponse().read() == b"{\"first\":1}", "embedding requests consume no responses")
        c.request("GET", "/__requests")
        record = json.loads(c.getresponse().read())
        paths = [r["path"] for r in record]
        check(paths == ["/v1/embeddings", "/api/embed", "/v1beta/models/e:batchEmbedContents",
                        "/v1beta/models/e:embedContent", "/v1/embeddings", "/v1/chat/completions"],
              "embedding requests are recorded: %r" % paths)
        check(record[3]["query"] == "alt=json", "the query of an embedding request is recorded")
        c.close()


if __name__ == "__main__":
    sys.exit(main())
