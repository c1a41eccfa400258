// The official TypeScript SDK server (McpServer, SDK 1.32.2) with one tool, echo {message} -> its message,
// for benchmarks/mcp_server_bench.cpp (the same tool as reagent's server there).
//   node echo_server.mjs stdio          StdioServerTransport
//   node echo_server.mjs http PORT      StreamableHTTPServerTransport at http://127.0.0.1:PORT/mcp (stateful,
//                                       event-stream replies, localhost DNS-rebinding protection)
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

function makeServer() {
  const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns its message', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }));
  return server;
}

const [mode = 'stdio', port = '0'] = process.argv.slice(2);
if (mode !== 'http') {
  await makeServer().connect(new StdioServerTransport());
} else {
  const app = createMcpExpressApp();
  const transports = new Map();
  app.all('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let t = sid && transports.get(sid);
    if (!t) {
      if (sid || req.method !== 'POST' || req.body?.method !== 'initialize') {
        res.status(sid ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad session' }, id: null });
        return;
      }
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, t) });
      t.onclose = () => t.sessionId && transports.delete(t.sessionId);
      await makeServer().connect(t);
    }
    await t.handleRequest(req, res, req.body);
  });
  const listener = app.listen(Number(port), '127.0.0.1', () =>
    console.error(`sdk-echo listening on ${listener.address().port}`));
}
