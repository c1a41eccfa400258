#!/usr/bin/env python3
"""Loopback LLM-provider peer for reagent's integration tests and benchmarks (Python 3 stdlib only).

A byte-exact response replayer and request recorder. It knows nothing about any provider: the script
says what to answer, byte for byte, so one peer plays Anthropic, OpenAI, Gemini or Ollama alike.

Startup (same conventions as http_peer.py):
  python3 provider_peer.py --script FILE [--idle-timeout SECONDS] [--no-record] [--verbose]
  Binds 127.0.0.1 on an ephemeral port and prints the port as the FIRST line of stdout. Exits when
  stdin closes, or after --idle-timeout seconds (default 120) without a request. asyncio-based: it
  sustains 1,000+ concurrent keep-alive connections.

Script (JSON):
  {
    "responses": [RESPONSE, ...],       consumed in order, one per request (control endpoints excluded)
    "rules": [{"match": "substring", "response": RESPONSE}, ...]
                                        used once "responses" is used up: the first rule whose "match"
                                        occurs in the raw request body answers (an empty or missing
                                        "match" always matches); rules are reused for every request
    "limit_per_second": N               a rate limit as an API enforces one: a request beyond N in the
                                        same second (fixed windows of the monotonic clock) gets a 429
                                        with retry-after: 1 instead of its response (/__stats counts
                                        "throttled" and the "peak_per_second" admitted)
    "embeddings": {"dimensions": N}     play the embedding APIs (N defaults to 64): see EMBEDDINGS
  }
  Neither applies: HTTP 500, {"error":{"type":"script_exhausted","message":"provider_peer: script
  exhausted ..."}}.

RESPONSE (every key optional):
  "status": 200
  "headers": {"name": "value"}     sent as given; content-type defaults to application/json, or to
                                   text/event-stream when "chunks" is used
  "body": "text"                   sent with Content-Length (UTF-8 encoded)
  "body_b64": "..."                the same, raw bytes given in base64 (e.g. invalid UTF-8)
  "body_file": "path"              the same, read as raw bytes from a file relative to the script file
  "chunks": ["raw piece", ...]     Transfer-Encoding: chunked, one HTTP chunk per piece, written and
                                   flushed one by one exactly as given (split points, SSE framing and
                                   all are the test's); a piece may also be {"b64": "..."} for raw bytes
                                   (e.g. half of a UTF-8 character)
  "chunks_file": "path"            chunks read from a file, one piece per line (each keeps its "\\n")
  "chunk_delay_ms": N              pause between pieces
  "chunk_delay_from": K            with chunk_delay_ms: pause only before piece K and later ones
  "delay_ms": N                    pause before the response head
  "delay_ms_range": [LOW, HIGH]    pause before the response head, a uniformly random LOW..HIGH ms (a
                                   model's varying latency)
  "drop_after_chunks": K           write K pieces, then close the socket abruptly (no terminating
                                   chunk); with "body", K bytes of the body are sent then dropped
  "stall": true                    send the head, then nothing until the client closes
  "close": true                    answer with Connection: close and close afterwards
  "endless": {"prefix": "data: ", "piece": "xxxx"}
                                   chunked: the prefix, then the piece over and over until the client
                                   closes (an endless SSE line, or an endless body)
  "early": true                    answer as soon as the request head has arrived, without reading the
                                   request body, then close (the unread body makes the kernel reset the
                                   connection, as servers rejecting a large upload with 413 do); only for
                                   entries of "responses"

EMBEDDINGS: with the script key "embeddings", a POST whose path (without the query) ends with
  /embeddings     OpenAI: {"model", "input": "text" or ["text", ...]}
                  -> {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [...]}],
                      "model": the request's, "usage": {"prompt_tokens": W, "total_tokens": W}}
  /embed          Ollama: {"model", "input": "text" or ["text", ...]}
                  -> {"model": the request's, "embeddings": [[...], ...], "prompt_eval_count": W}
  :batchEmbedContents  Gemini: {"requests": [{"model", "content": {"parts": [{"text"}, ...]}, ...}]}
                  -> {"embeddings": [{"values": [...]}, ...]}
  :embedContent   Gemini: {"content": {"parts": [{"text"}, ...]}, ...} -> {"embedding": {"values": [...]}}
is answered with vectors computed from its texts (W: the number of words of all of them), recorded in
/__requests like any request, without consuming "responses" or "rules" (limit_per_second still applies).
A body that is none of these shapes gets a 400. The vectors are those of reagent's llm::HashedEmbedder:
a text's words are its runs of ASCII letters and digits (lower-cased) and of non-ASCII bytes of its UTF-8,
split at every other byte; a final "s" is dropped from words longer than 3 bytes; each distinct word adds
+-(1 + ln(count)) to bucket FNV-1a-64(word) % N, negative when bit 63 of the hash is set; the vector is
scaled to unit length (a text without words stays all zeros). The parts of a Gemini content are joined
with a space.

Every response also carries X-Request-Index (1-based, over non-control requests) and X-Connection-Id.

Control endpoints (never recorded, never consume the script):
  GET  /__requests   200, JSON [{"method","path","query","headers":{lower-case name: value},"body"}]
                     for every non-control request so far, in arrival order ("path" without the query,
                     "query" the raw query string without '?', "body" decoded as UTF-8 with
                     replacement)
  POST /__reset      clears the record, reloads the script from its file, restarts "responses";
                     answers 200 {"reset":true}
  GET  /__stats      200, {"connections": accepted so far, "open": open now, "requests": non-control
                     requests so far}
  --no-record keeps no request record (for long benchmarks); /__requests then answers [].

HTTP: HTTP/1.1 keep-alive (HTTP/1.0 closes unless it asks for keep-alive), request bodies with
Content-Length or chunked transfer encoding, "Connection: close" honoured, standard reason phrases.
"""

import argparse
import asyncio
import base64
import json
import math
import os
import random
import sys
import threading
import time
from http import HTTPStatus


class Script:
    def __init__(self, path):
        self.path = path
        self.base = os.path.dirname(os.path.abspath(path)) if path else os.getcwd()
        self.load()

    def load(self):
        data = {}
        if self.path:
            with open(self.path, "rb") as f:
                data = json.loads(f.read().decode("utf-8"))
        self.responses = list(data.get("responses", []))
        self.rules = list(data.get("rules", []))
        self.limit = data.get("limit_per_second")
        embeddings = data.get("embeddings")
        self.dimensions = int(embeddings.get("dimensions", 64)) if isinstance(embeddings, dict) else None
        self.next = 0

    def pick(self, body):
        if self.next < len(self.responses):
            response = self.responses[self.next]
            self.next += 1
            return response
        for rule in self.rules:
            match = rule.get("match", "")
            if match == "" or match.encode("utf-8") in body:
                return rule.get("response", {})
        return None

    def early(self):
        return self.next < len(self.responses) and bool(self.responses[self.next].get("early"))

    def file_bytes(self, name):
        with open(os.path.join(self.base, name), "rb") as f:
            return f.read()


class State:
    def __init__(self, script, record):
        self.script = script
        self.record = record
        self.recorded = 0
        self.requests = []
        self.connections = 0
        self.open = 0
        self.last_activity = time.monotonic()
        self.window = None  # the current second, and the requests admitted in it
        self.in_window = 0
        self.peak = 0
        self.throttled = 0

    def over_limit(self, limit):
        """True when one more request in this second would pass `limit`; counts it otherwise."""
        second = int(time.monotonic())
        if second != self.window:
            self.window, self.in_window = second, 0
        if self.in_window >= limit:
            self.throttled += 1
            return True
        self.in_window += 1
        self.peak = max(self.peak, self.in_window)
        return False


class BadRequest(Exception):
    pass


def hashed_words(text):
    """The words of `text` with their counts, as llm::HashedEmbedder splits them."""
    counts = {}
    word = bytearray()

    def flush():
        if len(word) > 3 and word[-1] == ord("s"):
            del word[-1]
        if word:
            key = bytes(word)
            counts[key] = counts.get(key, 0) + 1
        word.clear()

    for byte in text.encode("utf-8", errors="replace"):
        if byte >= 0x80 or 48 <= byte <= 57 or 97 <= byte <= 122:
            word.append(byte)
        elif 65 <= byte <= 90:
            word.append(byte + 32)
        else:
            flush()
    flush()
    return counts


def fnv1a64(data):
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value


def hashed_vector(text, dimensions):
    """The unit vector of `text` (see EMBEDDINGS)."""
    sums = [0.0] * dimensions
    for word, count in hashed_words(text).items():
        value = fnv1a64(word)
        weight = 1.0 + math.log(count)
        sums[value % dimensions] += -weight if value >> 63 else weight
    norm = math.sqrt(sum(x * x for x in sums))
    return [x / norm for x in sums] if norm > 0 else sums


def word_count(texts):
    return sum(sum(hashed_words(text).values()) for text in texts)


def input_texts(body):
    """OpenAI's and Ollama's "input": one string or a list of strings."""
    texts = body.get("input") if isinstance(body, dict) else None
    if isinstance(texts, str):
        return [texts]
    if isinstance(texts, list) and texts and all(isinstance(t, str) for t in texts):
        return texts
    raise ValueError("input must be a string or a non-empty list of strings")


def content_text(content):
    """The text of a Gemini Content: its parts' texts joined by a space."""
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list) or not all(isinstance(p, dict) and isinstance(p.get("text"), str)
                                              for p in parts):
        raise ValueError("content.parts must be a list of {\"text\": string}")
    return " ".join(p["text"] for p in parts)


def embedding_reply(path, raw, dimensions):
    """The (status, body) answering an embedding request at `path`, or None when `path` is no embedding
    endpoint."""
    kinds = (("/embeddings", "openai"), ("/embed", "ollama"), (":batchEmbedContents", "gemini_batch"),
             (":embedContent", "gemini"))
    kind = next((k for suffix, k in kinds if path.endswith(suffix)), None)
    if kind is None:
        return None
    try:
        body = json.loads(raw.decode("utf-8"))
        if kind in ("openai", "ollama"):
            texts = input_texts(body)
            vectors = [hashed_vector(t, dimensions) for t in texts]
            words = word_count(texts)
            if kind == "openai":
                reply = {"object": "list",
                         "data": [{"object": "embedding", "index": i, "embedding": v}
                                  for i, v in enumerate(vectors)],
                         "model": body.get("model", ""),
                         "usage": {"prompt_tokens": words, "total_tokens": words}}
            else:
                reply = {"model": body.get("model", ""), "embeddings": vectors, "prompt_eval_count": words}
        elif kind == "gemini_batch":
            requests = body.get("requests") if isinstance(body, dict) else None
            if not isinstance(requests, list) or not requests:
                raise ValueError("requests must be a non-empty list")
            contents = [r.get("content") if isinstance(r, dict) else None for r in requests]
            reply = {"embeddings": [{"values": hashed_vector(content_text(c), dimensions)} for c in contents]}
        else:
            content = body.get("content") if isinstance(body, dict) else None
            reply = {"embedding": {"values": hashed_vector(content_text(content), dimensions)}}
    except (ValueError, UnicodeDecodeError) as error:
        return 400, json.dumps({"error": {
            "code": 400, "type": "invalid_request_error", "status": "INVALID_ARGUMENT",
            "message": "provider_peer: not an embedding request: %s" % error}})
    return 200, json.dumps(reply)


def reason(status):
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def piece_bytes(piece):
    if isinstance(piece, dict):
        return base64.b64decode(piece["b64"])
    return piece.encode("utf-8")


async def read_request(reader, early=None):
    """Reads one request; returns None on a clean EOF before a request line. `early()` says, once the
    head is read, whether to skip the body (it is then left unread)."""
    line = await reader.readline()
    while line in (b"\r\n", b"\n"):  # tolerate stray CRLF between requests (RFC 9112 2.2)
        line = await reader.readline()
    if not line:
        return None
    parts = line.decode("latin-1").rstrip("\r\n").split(" ")
    if len(parts) != 3:
        raise BadRequest("bad request line")
    method, target, version = parts
    headers = []
    while True:
        line = await reader.readline()
        if not line:
            raise BadRequest("eof in headers")
        if line in (b"\r\n", b"\n"):
            break
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise BadRequest("bad header line")
        headers.append((name.strip().lower(), value.strip()))
    lookup = {}
    for name, value in headers:
        lookup[name] = lookup[name] + ", " + value if name in lookup else value
    body = b""
    if early is not None and early():
        return method, target, version, lookup, body
    if "chunked" in lookup.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readline()
            if not size_line:
                raise BadRequest("eof in chunk size")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                break
            body += await reader.readexactly(size)
            await reader.readline()
    elif "content-length" in lookup:
        length = int(lookup["content-length"])
        if length:
            body = await reader.readexactly(length)
    return method, target, version, lookup, body


def wants_close(version, headers):
    tokens = [t.strip().lower() for t in headers.get("connection", "").split(",")]
    if version == "HTTP/1.0":
        return "keep-alive" not in tokens
    return "close" in tokens


def head_bytes(status, headers):
    lines = ["HTTP/1.1 %d %s" % (status, reason(status))]
    lines += ["%s: %s" % (name, value) for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class Peer:
    def __init__(self, state, verbose):
        self.state = state
        self.verbose = verbose

    def log(self, text):
        if self.verbose:
            sys.stderr.write("provider_peer: %s\n" % text)

    async def handle(self, reader, writer):
        state = self.state
        state.connections += 1
        state.open += 1
        connection_id = state.connections
        try:
            while True:
                try:
                    request = await read_request(reader, self.state.script.early)
                except (BadRequest, ValueError, asyncio.IncompleteReadError) as error:
                    self.log("bad request: %s" % error)
                    body = json.dumps({"error": {"type": "bad_request", "message": str(error)}}).encode()
                    writer.write(head_bytes(400, [("Content-Type", "application/json"),
                                                  ("Content-Length", str(len(body))),
                                                  ("Connection", "close")]) + body)
                    await writer.drain()
                    return
                if request is None:
                    return
                state.last_activity = time.monotonic()
                method, target, version, headers, body = request
                self.log("%s %s" % (method, target))
                close = wants_close(version, headers)
                keep = await self.respond(reader, writer, connection_id, method, target, headers, body,
                                          close)
                state.last_activity = time.monotonic()
                if not keep:
                    return
        except (ConnectionError, OSError):
            pass
        finally:
            state.open -= 1
            try:
                writer.close()
            except (ConnectionError, OSError):
                pass

    async def respond(self, reader, writer, connection_id, method, target, headers, body, close):
        """Writes one response; returns False when the connection must end."""
        path, _, query = target.partition("?")
        common = [("X-Connection-Id", str(connection_id))]
        if close:
            common.append(("Connection", "close"))
        if path in ("/__requests", "/__reset", "/__stats"):
            if path == "/__requests":
                payload = self.state.requests
            elif path == "/__reset":
                self.state.requests = []
                self.state.recorded = 0
                self.state.script.load()
                payload = {"reset": True}
            else:
                payload = {"connections": self.state.connections, "open": self.state.open,
                           "requests": self.state.recorded, "throttled": self.state.throttled,
                           "peak_per_second": self.state.peak}
            data = json.dumps(payload).encode("utf-8")
            writer.write(head_bytes(200, [("Content-Type", "application/json"),
                                          ("Content-Length", str(len(data)))] + common) + data)
            await writer.drain()
            return not close

        self.state.recorded += 1
        if self.state.record:
            self.state.requests.append({
                "method": method,
                "path": path,
                "query": query,
                "headers": headers,
                "body": body.decode("utf-8", errors="replace"),
            })
        index = self.state.recorded
        common.append(("X-Request-Index", str(index)))
        limit = self.state.script.limit
        if limit is not None and self.state.over_limit(int(limit)):
            response = {"status": 429, "headers": {"retry-after": "1"}, "body": json.dumps({"error": {
                "type": "rate_limit_error", "message": "provider_peer: more than %d requests this second" % limit}})}
            return await self.send(reader, writer, response, common, close)
        dimensions = self.state.script.dimensions
        if dimensions is not None and method == "POST":
            computed = embedding_reply(path, body, dimensions)
            if computed is not None:
                reply = {"status": computed[0], "body": computed[1]}
                return await self.send(reader, writer, reply, common, close)
        response = self.state.script.pick(body)
        if response is None:
            response = {"status": 500, "body": json.dumps({"error": {
                "type": "script_exhausted",
                "message": "provider_peer: script exhausted at request %d (%s %s)" % (index, method, target),
            }})}
        return await self.send(reader, writer, response, common, close)

    async def send(self, reader, writer, response, common, close):
        status = int(response.get("status", 200))
        custom = list(response.get("headers", {}).items())
        names = {name.lower() for name, _ in custom}
        if response.get("early"):
            close = True
        chunks = response.get("chunks")
        if chunks is None and "chunks_file" in response:
            text = self.state.script.file_bytes(response["chunks_file"]).decode("utf-8")
            chunks = text.splitlines(keepends=True)
        endless = response.get("endless")
        streamed = chunks is not None or endless is not None
        if response.get("close"):
            close = True
            if not any(n == "connection" for n, _ in common):
                common = common + [("Connection", "close")]
        heads = []
        if "content-type" not in names:
            heads.append(("Content-Type", "text/event-stream" if streamed else "application/json"))
        heads += custom
        if streamed:
            heads.append(("Transfer-Encoding", "chunked"))
        else:
            if "body_file" in response:
                data = self.state.script.file_bytes(response["body_file"])
            elif "body_b64" in response:
                data = base64.b64decode(response["body_b64"])
            else:
                data = response.get("body", "").encode("utf-8")
            heads.append(("Content-Length", str(len(data))))
        heads += common

        if response.get("delay_ms"):
            await asyncio.sleep(response["delay_ms"] / 1000.0)
        if response.get("delay_ms_range"):
            low, high = response["delay_ms_range"]
            await asyncio.sleep(random.uniform(low, high) / 1000.0)
        writer.write(head_bytes(status, heads))
        await writer.drain()

        if response.get("stall"):
            await self.wait_for_close(reader, writer)
            return False

        if endless is not None:
            prefix = endless.get("prefix", "").encode("utf-8")
            piece = endless.get("piece", "x").encode("utf-8") * max(1, 65536 // max(1, len(endless.get("piece", "x"))))
            if prefix:
                writer.write(b"%x\r\n%s\r\n" % (len(prefix), prefix))
            while True:  # until the client closes: write() then raises, or drain() does
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()

        drop = response.get("drop_after_chunks")
        delay = response.get("chunk_delay_ms", 0) / 1000.0
        if not streamed:
            if drop is not None:
                writer.write(data[:int(drop)])
                await writer.drain()
                self.abort(writer)
                return False
            writer.write(data)
            await writer.drain()
            if response.get("early"):
                await asyncio.sleep(0.05)  # let the response reach the client before the reset
                self.abort(writer)
                return False
            return not close

        for i, piece in enumerate(chunks):
            if drop is not None and i >= int(drop):
                self.abort(writer)
                return False
            if i > 0 and delay and i >= response.get("chunk_delay_from", 0):
                await asyncio.sleep(delay)
            raw = piece_bytes(piece)
            if raw:  # an empty HTTP chunk would end the body
                writer.write(b"%x\r\n%s\r\n" % (len(raw), raw))
                await writer.drain()
        if drop is not None:
            self.abort(writer)
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return not close

    @staticmethod
    def abort(writer):
        # Close without the terminating chunk: the client sees the body end early.
        transport = writer.transport
        transport.abort() if hasattr(transport, "abort") else writer.close()

    @staticmethod
    async def wait_for_close(reader, writer):
        # Discard anything further the client sends; return when it closes (or resets).
        try:
            while await reader.read(65536):
                pass
        except (ConnectionError, OSError):
            pass
        Peer.abort(writer)


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except OSError:
        pass
    os._exit(0)


async def watch_idle(state, timeout_s):
    while True:
        await asyncio.sleep(0.5)
        if state.open == 0 and time.monotonic() - state.last_activity > timeout_s:
            os._exit(0)
        if time.monotonic() - state.last_activity > timeout_s * 4:
            os._exit(0)  # open but silent connections do not keep the peer alive forever


async def serve(args):
    state = State(Script(args.script), not args.no_record)
    peer = Peer(state, args.verbose)
    server = await asyncio.start_server(peer.handle, "127.0.0.1", 0, backlog=2048, limit=1 << 20)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    asyncio.get_running_loop().create_task(watch_idle(state, args.idle_timeout))
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--script", help="JSON script of responses and rules")
    parser.add_argument("--idle-timeout", type=float, default=120.0, help="exit after this many idle seconds")
    parser.add_argument("--no-record", action="store_true",
                        help="benchmarks: count requests but keep no record (/__requests stays empty)")
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args()
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < 4096 and (hard == resource.RLIM_INFINITY or hard > soft):
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (min(4096, hard) if hard != resource.RLIM_INFINITY else 4096, hard))
    except (ImportError, ValueError, OSError):
        pass
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
