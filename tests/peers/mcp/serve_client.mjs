// The official TypeScript SDK client driving `reagent mcp serve` (stdio, or streamable HTTP with --http):
// the built-in tools are listed, file-read reads a file of the workspace, a missing file is an error
// result, and file-write (which needs approval) is refused without --yes. Exits 0 when every check passed.
// usage: node serve_client.mjs [--http] <reagent> mcp serve --workspace DIR [--agent]
//   --agent: the `agent` tool is called too (the offline demo provider must answer it).
//   DIR must hold hello.txt containing "hello from the workspace".
//   --http: `--http 127.0.0.1:0` is added and the URL and the bearer token the server generated are read
//           from its stderr; a request without the token must get 401, the client sends it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';

const argv = process.argv.slice(2);
const overHttp = argv[0] === '--http';
if (overHttp) argv.shift();
const [command, ...args] = argv;
let checks = 0;
function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
  checks++;
}

let child;
let transport;
if (overHttp) {
  child = spawn(command, [...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => { stdout += d; });
  let seen = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      seen += d;
      const m = /listening on (http:\/\/\S+\/mcp)/.exec(seen);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`reagent exited (${code}): ${seen}`)));
  });
  const token = /Authorization: Bearer ([A-Za-z0-9_-]+)/.exec(seen)?.[1];
  check(token !== undefined, `a generated token printed: ${seen}`);
  const anonymous = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  check(anonymous.status === 401 && anonymous.headers.get('www-authenticate') === 'Bearer', `401 without the token: ${anonymous.status}`);
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  child.on('exit', () => check(stdout === '', `nothing on stdout: ${stdout}`));
} else {
  transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
}
const client = new Client({ name: 'serve-client', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);
try {
  check(client.getServerVersion()?.name === 'reagent', 'serverInfo.name');
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['file-read', 'ls', 'grep', 'glob']) check(names.includes(n), `tool ${n} listed: ${names}`);

  const read = await client.callTool({ name: 'file-read', arguments: { path: 'hello.txt' } });
  check(!read.isError && read.content[0].text.includes('hello from the workspace'), `file-read: ${JSON.stringify(read)}`);

  const missing = await client.callTool({ name: 'file-read', arguments: { path: 'nope.txt' } });
  check(missing.isError === true, `a missing file is an error result: ${JSON.stringify(missing)}`);

  if (names.includes('file-write')) {
    const write = await client.callTool({ name: 'file-write', arguments: { path: 'new.txt', content: 'x' } });
    check(write.isError === true && /approv/.test(write.content[0].text), `file-write refused: ${JSON.stringify(write)}`);
  }
  if (names.includes('agent')) {
    // --agent: the agent itself as one tool (the offline demo provider answers arithmetic).
    const answer = await client.callTool({ name: 'agent', arguments: { message: 'What is 6*7?' } });
    check(!answer.isError && answer.content[0].text.includes('42'), `agent: ${JSON.stringify(answer)}`);
    const bad = await client.callTool({ name: 'agent', arguments: {} });
    check(bad.isError === true && bad.content[0].text.includes('message'), `agent without a message: ${JSON.stringify(bad)}`);
  }
  console.log(`serve client${overHttp ? ' (http)' : ''}: ${checks} checks passed`);
} finally {
  await client.close();
  if (child) {
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`reagent mcp serve exited with ${code} after SIGTERM`);
  }
}
