#!/usr/bin/env python3
"""A stdio MCP server that misbehaves on request, for the client's fault tests.

Usage: mcp_fault_server.py [--state FILE] [--fail-start] [--garbage-first] [--ignore-stdin-close]
                          [--deep-schema DEPTH] [--self-ref-schema]
                          [--startup-dir DIR [--startup-hold N]]

Tools: `echo {text}` (readOnlyHint), `crash` (exits mid-call; idempotentHint), `crash_once` (exits
the first time it is called in a --state file's life; readOnlyHint), `hang` (never answers), `garbage`
(writes a non-JSON line, then answers), `huge {bytes}` (answers with a line that long), `flood {bytes}`, `chatty {n}` (a line on stderr, then the answer)
(writes that much to stderr, then answers), `unsafe_crash` (exits mid-call; no hints), `pid` (its
process id), `deep_log {depth}` (sends a log notification nested that deep, then answers),
`deep_structured {depth}` (answers with structuredContent nested that deep). --deep-schema adds the tool
`deep` whose inputSchema nests DEPTH levels; --self-ref-schema adds `selfref` (inputSchema {"$ref": "#"})
and `cycle` (a $defs cycle). Each start is counted in --state FILE (one line per start).

With --startup-dir DIR the server marks its startup (from its start to its answer to tools/list) with the
file DIR/live-<pid>, and writes into DIR/seen-<pid> how many servers were starting when it began (its own
mark included): the client's cap on servers started at once, observed. With --startup-hold N it answers
`initialize` only once N servers are starting, or after 0.5 s, and records the most it saw meanwhile: a
client without a cap below N then shows N at once.
"""
import json
import os
import signal
import sys

args = sys.argv[1:]
state = args[args.index('--state') + 1] if '--state' in args else None
if state:
    with open(state, 'a') as f:
        f.write('start\n')
starts = sum(1 for _ in open(state)) if state else 1

startup = args[args.index('--startup-dir') + 1] if '--startup-dir' in args else None
if startup:
    open(os.path.join(startup, 'live-%d' % os.getpid()), 'w').close()
    starting = sum(1 for name in os.listdir(startup) if name.startswith('live-'))
    with open(os.path.join(startup, 'seen-%d' % os.getpid()), 'w') as f:
        f.write(str(starting))

if '--fail-start' in args:
    sys.stderr.write('fault server: refusing to start (--fail-start)\n')
    sys.stderr.flush()
    sys.exit(3)
if '--ignore-stdin-close' in args:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

out = sys.stdout


def send(obj):
    out.write(json.dumps(obj) + '\n')
    out.flush()


def text(t, error=False):
    result = {'content': [{'type': 'text', 'text': t}]}
    if error:
        result['isError'] = True
    return result


TOOLS = [
    {'name': 'echo', 'description': 'Echoes text', 'annotations': {'readOnlyHint': True},
     'inputSchema': {'type': 'object', 'properties': {'text': {'type': 'string'}}, 'required': ['text']}},
    {'name': 'crash', 'description': 'Exits mid-call', 'annotations': {'idempotentHint': True},
     'inputSchema': {'type': 'object'}},
    {'name': 'crash_once', 'description': 'Exits on the first start only', 'annotations': {'readOnlyHint': True},
     'inputSchema': {'type': 'object'}},
    {'name': 'unsafe_crash', 'description': 'Exits mid-call, no hints', 'inputSchema': {'type': 'object'}},
    {'name': 'hang', 'description': 'Never answers', 'inputSchema': {'type': 'object'}},
    {'name': 'garbage', 'description': 'Writes a non-JSON line first', 'inputSchema': {'type': 'object'}},
    {'name': 'huge', 'description': 'Answers with a huge line',
     'inputSchema': {'type': 'object', 'properties': {'bytes': {'type': 'integer'}}}},
    {'name': 'flood', 'description': 'Floods stderr',
     'inputSchema': {'type': 'object', 'properties': {'bytes': {'type': 'integer'}}}},
    {'name': 'chatty', 'description': 'Logs a line to stderr, then answers with n repeated',
     'inputSchema': {'type': 'object', 'properties': {'n': {'type': 'integer'}}}},
    {'name': 'pid', 'description': 'Its process id', 'inputSchema': {'type': 'object'}},
    {'name': 'grow', 'description': 'Adds the tool `grown` and says the list changed', 'inputSchema': {'type': 'object'}},

    {'name': 'deep_log', 'description': 'Sends a deeply nested log notification',
     'inputSchema': {'type': 'object', 'properties': {'depth': {'type': 'integer'}}}},
    {'name': 'deep_structured', 'description': 'Answers with deeply nested structuredContent',
     'inputSchema': {'type': 'object', 'properties': {'depth': {'type': 'integer'}}}},
]
# Deep values are written as text: Python's json module refuses to nest past its recursion limit.
RAW_TOOLS = []
if '--deep-schema' in args:
    depth = int(args[args.index('--deep-schema') + 1])
    schema = '{"type":"object","properties":{"a":' * depth + '{}' + '}}' * depth
    RAW_TOOLS.append('{"name":"deep","description":"A deep schema","inputSchema":' + schema + '}')
if '--self-ref-schema' in args:
    TOOLS.append({'name': 'selfref', 'description': 'Refers to itself', 'inputSchema': {'$ref': '#'}})
    TOOLS.append({'name': 'cycle', 'description': 'A $defs cycle', 'inputSchema': {
        '$ref': '#/$defs/a', '$defs': {'a': {'$ref': '#/$defs/b'}, 'b': {'$ref': '#/$defs/a'}}}})


def nested(depth):
    return '[' * depth + ']' * depth


if '--garbage-first' in args:
    out.write('this is not JSON\n')
    out.flush()

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method = msg.get('method')
    mid = msg.get('id')
    if mid is None:
        continue  # notifications
    if method == 'initialize':
        if startup and '--startup-hold' in args:
            hold = int(args[args.index('--startup-hold') + 1])
            import time
            deadline = time.monotonic() + 0.5
            while starting < hold and time.monotonic() < deadline:
                time.sleep(0.01)
                starting = max(starting, sum(1 for n in os.listdir(startup) if n.startswith('live-')))
            with open(os.path.join(startup, 'seen-%d' % os.getpid()), 'w') as f:
                f.write(str(starting))
        send({'jsonrpc': '2.0', 'id': mid, 'result': {
            'protocolVersion': msg['params']['protocolVersion'],
            'capabilities': {'tools': {'listChanged': True}},
            'serverInfo': {'name': 'fault-server', 'version': str(starts)}}})
    elif method == 'ping':
        send({'jsonrpc': '2.0', 'id': mid, 'result': {}})
    elif method == 'tools/list':
        if startup:
            try:
                os.remove(os.path.join(startup, 'live-%d' % os.getpid()))
            except FileNotFoundError:
                pass
        listed = json.dumps(TOOLS)
        if RAW_TOOLS:
            listed = listed[:-1] + ', ' + ', '.join(RAW_TOOLS) + ']'
        out.write('{"jsonrpc": "2.0", "id": %s, "result": {"tools": %s}}\n' % (json.dumps(mid), listed))
        out.flush()
    elif method == 'tools/call':
        name = msg['params']['name']
        a = msg['params'].get('arguments') or {}
        if name == 'echo':
            send({'jsonrpc': '2.0', 'id': mid, 'result': text(a.get('text', ''))})
        elif name in ('crash', 'unsafe_crash') or (name == 'crash_once' and starts == 1):
            os._exit(7)
        elif name == 'crash_once':
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('survived on start %d' % starts)})
        elif name == 'hang':
            pass
        elif name == 'garbage':
            out.write('{not json\n')
            out.flush()
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('after garbage')})
        elif name == 'huge':
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('x' * int(a.get('bytes', 1000)))})
        elif name == 'flood':
            sys.stderr.write('e' * int(a.get('bytes', 1000)) + '\nflood end\n')
            sys.stderr.flush()
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('flooded')})
        elif name == 'chatty':
            n = int(a.get('n', 0))
            sys.stderr.write('chatty %d %s\n' % (n, 'l' * 2000))
            sys.stderr.flush()
            send({'jsonrpc': '2.0', 'id': mid, 'result': text(('%d ' % n) * 500)})
        elif name == 'grow':
            TOOLS.append({'name': 'grown', 'description': 'Added by grow', 'inputSchema': {
                'type': 'object', 'properties': {'n': {'type': 'integer'}}, 'required': ['n']}})
            send({'jsonrpc': '2.0', 'method': 'notifications/tools/list_changed'})
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('grown')})
        elif name == 'grown':
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('grown called with %d' % a.get('n', -1))})
        elif name == 'deep_log':
            out.write('{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", '
                      '"data": %s}}\n' % nested(int(a.get('depth', 100000))))
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('logged')})
        elif name == 'deep_structured':
            out.write('{"jsonrpc": "2.0", "id": %s, "result": {"content": [], "structuredContent": {"x": %s}}}\n'
                      % (json.dumps(mid), nested(int(a.get('depth', 300000)))))
            out.flush()
        elif name == 'pid':
            send({'jsonrpc': '2.0', 'id': mid, 'result': text(str(os.getpid()))})
        else:
            send({'jsonrpc': '2.0', 'id': mid, 'result': text('unknown tool ' + name, True)})
    else:
        send({'jsonrpc': '2.0', 'id': mid, 'error': {'code': -32601, 'message': 'Method not found'}})

if '--ignore-stdin-close' in args:
    import time
    while True:
        time.sleep(1)
