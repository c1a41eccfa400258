#!/usr/bin/env python3
"""Load test of reagent's streamable HTTP MCP server (127.0.0.1 only).

Starts `<server> --http 127.0.0.1:0 --max-sessions N` (it prints "listening on <port>" on stderr), opens
N sessions at once, each on its own keep-alive connection, and makes CALLS sequential `tools/call echo`
in each, with a message unique to the session and call. Every reply must carry its request's id and
echo its own message: 0 lost or mixed-up replies. Prints calls/s and the server's peak RSS (VmHWM).

usage: http_load.py <server> [--sessions N] [--calls N] [--limit SECONDS]
"""

import argparse
import asyncio
import json
import re
import subprocess
import sys
import time


async def request(reader, writer, port, body, session=None):
    """POSTs one JSON-RPC message; returns (status, headers, body)."""
    data = json.dumps(body).encode()
    lines = [
        b"POST /mcp HTTP/1.1",
        b"Host: 127.0.0.1:" + str(port).encode(),
        b"Content-Type: application/json",
        b"Accept: application/json, text/event-stream",
        b"Content-Length: " + str(len(data)).encode(),
    ]
    if session:
        lines.append(b"Mcp-Session-Id: " + session.encode())
        lines.append(b"MCP-Protocol-Version: 2025-11-25")
    writer.write(b"\r\n".join(lines) + b"\r\n\r\n" + data)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.split(b":", 1)
            headers[name.strip().lower().decode()] = value.strip().decode()
    if "content-length" in headers:
        payload = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        payload = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            payload += chunk[:-2]
    else:
        payload = b""
    return status, headers, payload


def messages(headers, payload):
    """The JSON-RPC messages of a reply (an event stream's data lines, or a JSON body)."""
    if headers.get("content-type", "").startswith("application/json"):
        parsed = json.loads(payload)
        return parsed if isinstance(parsed, list) else [parsed]
    out = []
    for line in payload.decode().split("\n"):
        if line.startswith("data: ") and len(line) > 6:
            out.append(json.loads(line[6:]))
    return out


async def session_run(index, port, calls, stats):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "load", "version": "1"}}}
        status, headers, payload = await request(reader, writer, port, init)
        if status != 200 or "mcp-session-id" not in headers:
            stats["errors"].append(f"session {index}: initialize got {status}")
            return
        session = headers["mcp-session-id"]
        status, _, _ = await request(reader, writer, port,
                                     {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        if status != 202:
            stats["errors"].append(f"session {index}: initialized got {status}")
        stats["opened"] += 1
        await stats["ready"].wait()
        for call in range(calls):
            text = f"s{index}-c{call}-{index * 7919 + call}"
            body = {"jsonrpc": "2.0", "id": call + 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"message": text}}}
            status, headers, payload = await request(reader, writer, port, body, session)
            replies = [m for m in messages(headers, payload) if "id" in m]
            if status != 200 or len(replies) != 1:
                stats["lost"] += 1
                stats["errors"].append(f"session {index} call {call}: status {status}, {payload[:200]!r}")
                continue
            reply = replies[0]
            got = reply.get("result", {}).get("content", [{}])[0].get("text")
            if reply["id"] != call + 1 or got != text:
                stats["mixed"] += 1
                stats["errors"].append(f"session {index} call {call}: expected {text}, got {reply}")
            else:
                stats["ok"] += 1
        writer.write(b"DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: " + session.encode() +
                     b"\r\nContent-Length: 0\r\n\r\n")
        await reader.readuntil(b"\r\n\r\n")
    finally:
        writer.close()


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("server")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--limit", type=float, default=60)
    options = parser.parse_args()

    server = subprocess.Popen([options.server, "--http", "127.0.0.1:0", "--max-sessions",
                               str(options.sessions + 10)], stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    found = re.search(r"listening on (\d+)", line)
    if not found:
        print(f"the server did not start: {line}", file=sys.stderr)
        server.kill()
        return 1
    port = int(found.group(1))
    stats = {"opened": 0, "ok": 0, "lost": 0, "mixed": 0, "errors": [], "ready": asyncio.Event()}
    try:
        opening = time.monotonic()
        tasks = [asyncio.create_task(session_run(i, port, options.calls, stats))
                 for i in range(options.sessions)]

        # The calls start once every session is open, so that 1,000 sessions really overlap.
        while time.monotonic() - opening < options.limit:
            if stats["opened"] + sum(1 for t in tasks if t.done()) >= options.sessions:
                break
            await asyncio.sleep(0.02)
        opened = time.monotonic() - opening
        start = time.monotonic()
        stats["ready"].set()
        done, pending = await asyncio.wait(tasks, timeout=max(1.0, options.limit - opened))
        elapsed = time.monotonic() - start
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception():
                stats["errors"].append(f"a session failed: {task.exception()!r}")
        expected = options.sessions * options.calls
        rss = peak_rss_kib(server.pid)
        print(f"http load: {options.sessions} sessions x {options.calls} tools/call: {stats['ok']}/{expected} ok, "
              f"{stats['lost']} lost, {stats['mixed']} mixed up; {options.sessions} sessions opened in "
              f"{opened:.2f} s; calls {elapsed:.2f} s = {stats['ok'] / elapsed:.0f} calls/s; "
              f"server peak RSS {rss / 1024:.1f} MiB")
        for error in stats["errors"][:10]:
            print("  " + error)
        ok = stats["ok"] == expected and not stats["errors"] and not pending
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            ok = False
    if server.returncode != 0:
        print(f"the server exited with {server.returncode}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
