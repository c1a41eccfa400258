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
//   REAGENT_SDK2_TRACE=1 prints every frame this client sends (>>) and receives (<<) on stderr (over
//   stdio the auto/pinned probe runs on a sibling process of the SDK's own and is not shown).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';

const kModern = '2026-07-28';
const kLegacyVersions = ['2025-11-25', '2025-06-18', '2025-03-26'];

const argv = process.argv.slice(2);
const markerDir = argv.shift();
let overHttp = false;
let mode = 'legacy';
while (argv[0] === '--http' || argv[0] === '--mode') {
  const flag = argv.shift();
  if (flag === '--http') overHttp = true;
  else mode = argv.shift();
}
const [command, ...args] = argv;
if (!markerDir || !command || !['pinned', 'auto', 'legacy'].includes(mode)) {
  console.error('usage: node sdk2_client.mjs <marker-dir> [--http] [--mode pinned|auto|legacy] <server> [args...]');
  process.exit(2);
}
const label = `sdk2 client (${overHttp ? 'http' : 'stdio'}, ${mode})`;

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

// Starts the server with --http and resolves its URL once it prints its port.
function startHttpServer() {
  const child = spawn(command, [...args, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  serverChild = child;
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (d) => {
      seen += d;
      const m = /listening on (?:http:\/\/[^\s]*:)?(\d+)/.exec(seen);
      if (m) resolve(`http://127.0.0.1:${m[1]}/mcp`);
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

async function run() {
  if (overHttp) {
    transport = new StreamableHTTPClientTransport(new URL(await startHttpServer()));
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
console.log(`${label}: ${passed} passed, ${failed} failed`);
clearTimeout(deadline);
if (serverChild && serverChild.exitCode === null) {
  serverChild.kill('SIGTERM');
  const exited = new Promise((resolve) => serverChild.once('exit', resolve));
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
}
killServer();
process.exit(status);
