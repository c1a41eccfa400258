// The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) driving a reagent MCP server
// over stdio or streamable HTTP, in one of its three version-negotiation modes: the negotiated version,
// tools/list (every page), a plain call, the ask_user elicitation answered by this client (2026-07-28:
// input_required rounds; 2025: a server-to-client request), the ask_model sampling likewise, an unknown
// tool. Prints one line per check and `N passed, N failed`; exits 0 when every check passed.
// usage: node sdk2_client.mjs <marker-dir> [--http] [--mode pinned|auto|legacy] <server> [server args...]
//   the command line of sdk_client.mjs; give the server a small page size (tool_server --page-size 3):
//   tools/list must take more than one page. <marker-dir> is the server's; no check here reads it.
//   --mode pinned: versionNegotiation {pin: '2026-07-28'}; auto: probe with server/discover; legacy (the
//   default, as the SDK's): the 2025 initialize handshake.
//   --http: the server is started with `--http 127.0.0.1:0` added and must print "listening on <port>"
//   on stderr; the client then speaks streamable HTTP to http://127.0.0.1:<port>/mcp.
//   --cli: the server is `reagent mcp serve --workspace <marker-dir>` (the CLI, not tool_server): the
//   client first writes hello.txt in <marker-dir>, checks the built-in workspace tools (listed, file-read
//   and ls of that file, a missing file as an error result, an unknown tool) instead of tool_server's,
//   and over HTTP sends the bearer token the CLI generated and printed on stderr, and checks that a
//   request without it gets 401 and that SIGTERM ends the server with status 0.
//   REAGENT_SDK2_TRACE=1 prints every frame this client sends (>>) and receives (<<) on stderr (over
//   stdio the auto/pinned probe runs on a sibling process of the SDK's own and is not shown).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const kModern = '2026-07-28';
const kLegacyVersions = ['2025-11-25', '2025-06-18', '2025-03-26'];

const argv = process.argv.slice(2);
const markerDir = argv.shift();
let overHttp = false;
let cli = false;
let mode = 'legacy';
while (['--http', '--mode', '--cli'].includes(argv[0])) {
  const flag = argv.shift();
  if (flag === '--http') overHttp = true;
  else if (flag === '--cli') cli = true;
  else mode = argv.shift();
}
const [command, ...args] = argv;
if (!markerDir || !command || !['pinned', 'auto', 'legacy'].includes(mode)) {
  console.error('usage: node sdk2_client.mjs <marker-dir> [--http] [--cli] [--mode pinned|auto|legacy] <server> [args...]');
  process.exit(2);
}
const label = `sdk2 client${cli ? ' of reagent mcp serve' : ''} (${overHttp ? 'http' : 'stdio'}, ${mode})`;

let passed = 0;
let failed = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (ok) passed++;
  else failed++;
  return ok;
}
const show = (value) => JSON.stringify(value) ?? String(value);

// The server's process, whichever way it was started, so that every exit path can end it.
let serverChild;
let transport;
function killServer() {
  try {
    if (serverChild && serverChild.exitCode === null) serverChild.kill('SIGKILL');
    const pid = transport?.pid;
    if (pid) process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
const deadline = setTimeout(() => {
  console.log(`FAIL ${label}: no end within 30 s`);
  killServer();
  process.exit(1);
}, 30_000);
process.on('exit', killServer);

// Starts the server with --http and resolves its URL once it prints its port; with --cli, also the
// bearer token `reagent mcp serve` generated, printed before the address.
let bearer;
function startHttpServer() {
  const child = spawn(command, [...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  serverChild = child;
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (d) => {
      seen += d;
      const m = /listening on (?:http:\/\/[^\s]*:)?(\d+)/.exec(seen);
      if (!m) return;
      bearer = /Authorization: Bearer ([A-Za-z0-9_-]+)/.exec(seen)?.[1];
      resolve(`http://127.0.0.1:${m[1]}/mcp`);
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${seen}`)));
  });
}

// Logs the frames that pass through the transport (REAGENT_SDK2_TRACE=1).
function trace(t) {
  const send = t.send.bind(t);
  t.send = (message, options) => {
    console.error(`>> ${JSON.stringify(message)}`);
    return send(message, options);
  };
  let handler;
  Object.defineProperty(t, 'onmessage', {
    configurable: true,
    get: () => handler && ((message, extra) => {
      console.error(`<< ${JSON.stringify(message)}`);
      return handler(message, extra);
    }),
    set: (h) => { handler = h; },
  });
}

// The checks of `reagent mcp serve` (--cli): the workspace tools over the workspace <marker-dir>.
const kHello = 'hello from the workspace, grüße\n';
async function checkCliServer(client) {
  check(client.getServerVersion()?.name === 'reagent', `serverInfo ${show(client.getServerVersion())}`);
  check(client.getServerCapabilities()?.tools !== undefined, `tools capability ${show(client.getServerCapabilities())}`);

  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} });
    page.tools.forEach((t) => names.push(t.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  const all = (await client.listTools()).tools.map((t) => t.name);
  check(['file-read', 'ls', 'grep', 'glob'].every((n) => all.includes(n)), `tools/list: ${all.length} tools ${show(all)}`);
  check(show(names) === show(all), `${pages} page(s) walked by cursor give the same list`);

  const read = await client.callTool({ name: 'file-read', arguments: { path: 'hello.txt' } });
  check(!read.isError && read.content?.[0]?.text?.includes(kHello.trim()), `file-read: ${show(read.content)}`);
  const listed = await client.callTool({ name: 'ls', arguments: {} });
  check(!listed.isError && listed.content?.[0]?.text?.includes('hello.txt'), `ls: ${show(listed.content)}`);
  const missing = await client.callTool({ name: 'file-read', arguments: { path: 'nope.txt' } });
  check(missing.isError === true, `a missing file is an error result: ${show(missing.content)}`);

  let unknown;
  let unknownResult;
  try {
    unknownResult = await client.callTool({ name: 'nope', arguments: {} });
  } catch (e) {
    unknown = e;
  }
  check(unknown?.code === -32602 && /nope/.test(unknown?.message ?? ''),
    `unknown tool: ${unknown ? `${unknown.code} ${unknown.message}` : show(unknownResult)}`);
  const after = await client.callTool({ name: 'file-read', arguments: { path: 'hello.txt' } });
  check(!after.isError && after.content?.[0]?.text?.includes('grüße'), 'serving after the error');
}

async function run() {
  if (cli) writeFileSync(join(markerDir, 'hello.txt'), kHello);
  if (overHttp) {
    const url = await startHttpServer();
    let requestInit;
    if (cli) {
      check(bearer !== undefined, 'reagent mcp serve printed the token it generated');
      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }),
      });
      check(anonymous.status === 401, `401 without the token: ${anonymous.status}`);
      requestInit = { headers: { Authorization: `Bearer ${bearer}` } };
    }
    transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
  } else {
    transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  }
  if (process.env.REAGENT_SDK2_TRACE) trace(transport);
  const negotiation = { legacy: { mode: 'legacy' }, auto: { mode: 'auto' }, pinned: { mode: { pin: kModern } } }[mode];
  const client = new Client({ name: 'sdk2-client', version: '2.4.0' },
    { capabilities: { sampling: {}, elicitation: {} }, versionNegotiation: negotiation });
  const elicited = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    elicited.push(request.params);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  const sampled = [];
  client.setRequestHandler('sampling/createMessage', async (request) => {
    sampled.push(request.params);
    return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'sdk2-model', stopReason: 'endTurn' };
  });
  client.onerror = (error) => console.error(`${label}: client error: ${error.message}`);

  await client.connect(transport);
  try {
    // The negotiated version: the SDK keeps it (initialize's answer, or the version picked from
    // server/discover's supportedVersions) with the era it implies.
    const version = client.getNegotiatedProtocolVersion();
    const era = client.getProtocolEra();
    if (mode === 'legacy') {
      check(kLegacyVersions.includes(version) && era === 'legacy', `negotiated ${version} (${era})`);
    } else {
      check(version === kModern && era === 'modern', `negotiated ${version} (${era})`);
      const discovered = client.getDiscoverResult();
      check(discovered?.supportedVersions?.includes(kModern), `server/discover: ${show(discovered?.supportedVersions)}`);
    }
    if (cli) {
      await checkCliServer(client);
      return;
    }
    check(client.getServerVersion()?.name === 'reagent-tool-server', `serverInfo ${show(client.getServerVersion())}`);
    check(client.getServerCapabilities()?.tools !== undefined, `tools capability ${show(client.getServerCapabilities())}`);

    // Every page by hand (listTools without a cursor aggregates, so the first page is a plain request;
    // the server runs with --page-size 3), then the SDK's own aggregated walk.
    const names = [];
    let cursor;
    let pages = 0;
    do {
      const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} });
      page.tools.forEach((t) => names.push(t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    const all = (await client.listTools()).tools.map((t) => t.name);
    const wanted = ['echo', 'add', 'slow', 'fail', 'ask_model', 'ask_user'];
    check(wanted.every((n) => all.includes(n)) && all.length >= 10, `tools/list: ${all.length} tools ${show(all)}`);
    check(pages > 1 && show(names) === show(all), `${pages} pages walked by cursor give the same list`);

    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    check(!sum.isError && sum.content?.[0]?.text === '42', `add: ${show(sum.content)}`);
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'héllo, 世界' } });
    check(!echoed.isError && echoed.content?.[0]?.text === 'héllo, 世界', `echo: ${show(echoed.content)}`);

    // Elicitation from a tool handler: rounds of input_required in 2026-07-28, a request in 2025.
    const accepted = await client.callTool({ name: 'ask_user', arguments: { message: 'who are you?' } });
    check(!accepted.isError && accepted.content?.[0]?.text === 'accept {"name":"Ada"}',
      `ask_user: ${show(accepted.content)}`);
    check(elicited.length === 1 && elicited[0].message === 'who are you?'
      && elicited[0].requestedSchema?.properties?.name?.type === 'string', `elicitation params: ${show(elicited)}`);

    // Sampling likewise.
    const answer = await client.callTool({ name: 'ask_model', arguments: { question: 'six times seven?' } });
    check(!answer.isError && answer.content?.[0]?.text === 'sdk2-model: forty-two', `ask_model: ${show(answer.content)}`);
    check(sampled.length === 1 && sampled[0].messages?.[0]?.content?.text === 'six times seven?'
      && sampled[0].maxTokens === 50, `sampling params: ${show(sampled)}`);

    // A tool's own failure is a result; an unknown tool is JSON-RPC -32602 (reagent's choice, as the
    // specification's example).
    const failure = await client.callTool({ name: 'fail', arguments: {} });
    check(failure.isError === true && failure.content?.[0]?.text?.includes('boom'), `fail: ${show(failure.content)}`);
    let unknown;
    let unknownResult;
    try {
      unknownResult = await client.callTool({ name: 'nope', arguments: {} });
    } catch (e) {
      unknown = e;
    }
    check(unknown?.code === -32602 && /nope/.test(unknown?.message ?? ''),
      `unknown tool: ${unknown ? `${unknown.code} ${unknown.message}` : show(unknownResult)}`);

    const after = await client.callTool({ name: 'echo', arguments: { message: 'still here' } });
    check(after.content?.[0]?.text === 'still here', 'serving after the error');
  } finally {
    await client.close().catch(() => {});
  }
}

let status = 1;
try {
  await run();
  status = failed === 0 && passed > 0 ? 0 : 1;
} catch (error) {
  console.log(`FAIL ${label}: ${error?.stack ?? error}${error?.data ? ` data ${show(error.data)}` : ''}`);
  failed++;
}
clearTimeout(deadline);
if (serverChild && serverChild.exitCode === null) {
  const exited = new Promise((resolve) => serverChild.once('exit', (code, signal) => resolve(signal ?? code)));
  serverChild.kill('SIGTERM');
  const end = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('no exit in 3 s'), 3000))]);
  // reagent mcp serve shuts down gracefully on SIGTERM (tool_server may not: no check there).
  if (cli && !check(end === 0, `reagent mcp serve ended by SIGTERM with ${end}`)) status = 1;
}
console.log(`${label}: ${passed} passed, ${failed} failed`);
killServer();
process.exit(status);
