// The official TypeScript SDK clients' side of mcp_stdio_bench: sequential tools/call round trips over
// stdio against a server it starts itself, timed one by one.
//
//   node sdk_client_bench.mjs [--modules DIR] [--sdk 1|2] [--era legacy|2026-07-28] [--tool echo|add]
//                             [--warmup N] [--calls N] -- <server command> [args...]
//
// DIR is the node_modules holding the SDKs (default: tests/peers/mcp/node_modules of this checkout; ES
// modules ignore NODE_PATH, so the SDK is imported by path). --sdk 1 (the default): @modelcontextprotocol/sdk
// 1.32.2, the initialize handshake. --sdk 2: @modelcontextprotocol/client 2.4.0, in the handshake era
// (--era legacy, the default) or pinned to 2026-07-28 (no handshake: the envelope on every request).
// --tool echo (the default): echo {"message":"ping"} → "Echo: ping" (server-everything); add: add {a:5,b:3}
// → "8" (tests/peers/mcp/sdk2_server.mjs). Prints one line, `latencies_us <n> <t1> <t2> ...`, the latency of
// each timed call in microseconds in call order, so the benchmark computes the same statistics for every
// client. Exits non-zero on any failed call.

import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const options = dashes < 0 ? argv : argv.slice(0, dashes);
const server = dashes < 0 ? [] : argv.slice(dashes + 1);
const option = (name, fallback) => {
    const at = options.indexOf(name);
    return at < 0 ? fallback : options[at + 1];
};
const here = path.dirname(fileURLToPath(import.meta.url));
const modules = option('--modules', path.resolve(here, '../../tests/peers/mcp/node_modules'));
const sdkVersion = option('--sdk', '1');
const era = option('--era', 'legacy');
const tool = option('--tool', 'echo');
const warmup = Number(option('--warmup', '200'));
const calls = Number(option('--calls', '1000'));
if (server.length === 0 || !(warmup >= 0) || !(calls > 0) || !['1', '2'].includes(sdkVersion) ||
    !['legacy', '2026-07-28'].includes(era) || (sdkVersion === '1' && era !== 'legacy') ||
    !['echo', 'add'].includes(tool)) {
    console.error('usage: node sdk_client_bench.mjs [--modules DIR] [--sdk 1|2] [--era legacy|2026-07-28] ' +
                  '[--tool echo|add] [--warmup N] [--calls N] -- server argv...');
    process.exit(2);
}

const load = (file) => import(pathToFileURL(path.join(modules, file)).href);
let client;
let transport;
if (sdkVersion === '1') {
    const { Client } = await load('@modelcontextprotocol/sdk/dist/esm/client/index.js');
    const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
    transport = new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: 'ignore' });
    client = new Client({ name: 'mcp-stdio-bench', version: '1.0.0' }, { capabilities: {} });
} else {
    const { Client } = await load('@modelcontextprotocol/client/dist/index.mjs');
    const { StdioClientTransport } = await load('@modelcontextprotocol/client/dist/stdio.mjs');
    transport = new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: 'ignore' });
    const versionNegotiation = era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: era } };
    client = new Client({ name: 'mcp-stdio-bench', version: '1.0.0' }, { capabilities: {}, versionNegotiation });
}
await client.connect(transport);

const [request, expected] = tool === 'echo'
    ? [{ name: 'echo', arguments: { message: 'ping' } }, 'Echo: ping']
    : [{ name: 'add', arguments: { a: 5, b: 3 } }, '8'];
const check = (result) => {
    if (result.isError || result.content?.[0]?.text !== expected) {
        throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    }
};
for (let i = 0; i < warmup; i++) {
    check(await client.callTool(request));
}
const latencies = new Array(calls);
for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    const result = await client.callTool(request);
    latencies[i] = Number(process.hrtime.bigint() - start) / 1e3;
    check(result);
}
await client.close();
console.log(`latencies_us ${calls} ${latencies.map((t) => t.toFixed(2)).join(' ')}`);
