// The official TypeScript SDK client's side of mcp_stdio_bench: sequential tools/call echo round trips over
// stdio against a server it starts itself, timed one by one.
//
//   node sdk_client_bench.mjs [--modules DIR] [--warmup N] [--calls N] -- <server command> [args...]
//
// DIR is the node_modules holding @modelcontextprotocol/sdk 1.32.2 (default: tests/peers/mcp/node_modules
// of this checkout; ES modules ignore NODE_PATH, so the SDK is imported by path). Prints one line,
// `latencies_us <n> <t1> <t2> ...`, the latency of each timed call in microseconds in call order, so the
// benchmark computes the same statistics for every client. Exits non-zero on any failed call.

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
const warmup = Number(option('--warmup', '200'));
const calls = Number(option('--calls', '1000'));
if (server.length === 0 || !(warmup >= 0) || !(calls > 0)) {
    console.error('usage: node sdk_client_bench.mjs [--modules DIR] [--warmup N] [--calls N] -- server argv...');
    process.exit(2);
}

const sdk = (file) => import(pathToFileURL(path.join(modules, '@modelcontextprotocol/sdk/dist/esm', file)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');

const transport = new StdioClientTransport({ command: server[0], args: server.slice(1), stderr: 'ignore' });
const client = new Client({ name: 'mcp-stdio-bench', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);

const request = { name: 'echo', arguments: { message: 'ping' } };
const check = (result) => {
    if (result.isError || result.content?.[0]?.text !== 'Echo: ping') {
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
