// Real MCP peers for reagent's HTTP transport tests, each on 127.0.0.1 at a port the system picks; the
// first line on stdout is `reagent-peer-port <port>` (everything else goes to stderr).
//
//   node ref_server.mjs http [json]          an SDK server (stateful Streamable HTTP at /mcp; `json`:
//                                            enableJsonResponse, so replies are application/json)
//   node ref_server.mjs everything <mode>    server-everything (`streamableHttp` or `sse`), pinned to
//                                            127.0.0.1 instead of every interface
//   node ref_server.mjs bad-endpoint         a legacy SSE server announcing an endpoint on another origin
//   node ref_server.mjs refuse               refuses everything with 401, quoting the Authorization header
//   node ref_server.mjs echo-token [rpc]     quotes the Authorization header back in a 500 body, or with
//                                            rpc in a JSON-RPC error answering each request
import net from 'node:net';
import http from 'node:http';
import { randomUUID } from 'node:crypto';

console.log = console.error;  // stdout carries the port line only

// Every server a mode starts listens on 127.0.0.1, port 0; the first one reports its port.
let reported = false;
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const callback = args.find((arg) => typeof arg === 'function');
  this.once('listening', () => {
    if (!reported) {
      reported = true;
      process.stdout.write(`reagent-peer-port ${this.address().port}\n`);
    }
  });
  return listen.call(this, { port: 0, host: '127.0.0.1' }, callback);
};

const [mode = 'http', option] = process.argv.slice(2);

if (mode === 'everything') {
  process.argv = [process.argv[0], 'server-everything', option ?? 'streamableHttp'];
  await import(new URL('./node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
} else if (mode === 'bad-endpoint') {
  http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.write('event: endpoint\ndata: http://example.com/message?sessionId=1\n\n');
    } else {
      res.writeHead(404).end();
    }
  }).listen(0);
} else if (mode === 'refuse') {
  http.createServer((req, res) => {
    res.writeHead(401, { 'Content-Type': 'text/plain' });
    res.end(`invalid credentials: ${req.headers.authorization ?? 'none'}`);
  }).listen(0);
} else if (mode === 'echo-token') {
  http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const authorization = req.headers.authorization ?? 'none';
      if (option !== 'rpc') {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`cannot serve ${authorization}`);
        return;
      }
      let id = null;
      try { id = JSON.parse(body).id ?? null; } catch { /* not JSON */ }
      if (id === null) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: `bad token: ${authorization}` } }));
    });
  }).listen(0);
} else {
  await startSdkPeer(option === 'json');
}

async function startSdkPeer(json) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { createMcpExpressApp } = await import('@modelcontextprotocol/sdk/server/express.js');
  const { z } = await import('zod');

  const sessions = new Map();

  const makeServer = () => {
    const server = new McpServer({ name: 'reagent-ref-peer', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('echo', { description: 'Returns its message', inputSchema: { message: z.string() } },
      async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() } },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));
    server.registerTool('sleep', { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number() } },
      async ({ ms }) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { content: [{ type: 'text', text: `slept ${ms}` }] };
      });
    server.registerTool('big', { description: 'Returns a text of n bytes', inputSchema: { n: z.number().int() } },
      async ({ n }) => ({ content: [{ type: 'text', text: 'x'.repeat(n) }] }));
    // A request of the server that answers no POST: it travels on the standalone GET stream.
    server.registerTool('roots', { description: 'Asks the client for its roots' }, async () => {
      const { roots } = await server.server.listRoots();
      return { content: [{ type: 'text', text: roots.map((root) => root.uri).join(',') }] };
    });
    // How many sessions the server holds (DELETE ends one).
    server.registerTool('sessions', { description: 'Counts the open sessions' },
      async () => ({ content: [{ type: 'text', text: String(sessions.size) }] }));
    // The session is forgotten once this call is answered: the next request with its id gets 404.
    server.registerTool('expire_session', { description: 'Forgets the session' }, async (extra) => {
      setTimeout(() => sessions.delete(extra.sessionId), 0);
      return { content: [{ type: 'text', text: 'expired' }] };
    });
    return server;
  };

  const app = createMcpExpressApp();
  app.all('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) {
        return res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      }
      if (req.method !== 'POST' || req.body?.method !== 'initialize') {
        return res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no session' }, id: null });
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (id) => sessions.set(id, transport),
        onsessionclosed: (id) => sessions.delete(id),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  app.listen(0);
}
