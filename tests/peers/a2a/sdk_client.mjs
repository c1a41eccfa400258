// The official JS SDK's client against an A2A agent, for reagent's interop tests and benchmark.
//   node sdk_client.mjs BASE_URL send|stream [--legacy] [--count N]   (N > 1: after 200 untimed)
// send/stream: one message "hello from js" (N times for a round-trip figure); prints one JSON line per
// result or event, then `ok` (or the error, exit 1). --legacy talks 0.3 (the SDK's compat transport)
// to the card's JSON-RPC URL; otherwise ClientFactory picks from the card (1.0 first).
// With A2A_TOKEN in the environment (not on the command line, where other users could read it), every
// request, the card's included, carries `Authorization: Bearer $A2A_TOKEN`.
import { Message, Task, TaskState } from '@a2a-js/sdk';

const textOf = (parts) => parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
import {
    Client,
    ClientFactory,
    ClientFactoryOptions,
    DefaultAgentCardResolver,
    JsonRpcTransportFactory,
    createAuthenticatingFetchWithRetry,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';

const [baseUrl, mode = 'send', ...rest] = process.argv.slice(2);
const legacy = rest.includes('--legacy');
const countAt = rest.indexOf('--count');
const count = countAt >= 0 ? Number(rest[countAt + 1]) : 1;
// With --count, this many untimed round trips first (JIT and connection warm-up).
const warmup = count > 1 ? Math.min(200, count) : 0;

const token = process.env.A2A_TOKEN;
const fetchImpl = token
    ? createAuthenticatingFetchWithRetry(fetch, {
          headers: async () => ({ Authorization: `Bearer ${token}` }),
          shouldRetryWithHeaders: async () => undefined,
      })
    : fetch;

async function main() {
    const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
            transports: [new JsonRpcTransportFactory({ fetchImpl })],
            cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        }),
    );
    let client = await factory.createFromUrl(baseUrl);
    if (legacy) {
        const card = await (await fetchImpl(baseUrl + '/.well-known/agent-card.json')).json();
        const endpoint = card.url ?? card.supportedInterfaces.find((i) => i.protocolVersion.startsWith('0.')).url;
        client = new Client(new LegacyJsonRpcTransport({ endpoint, fetchImpl }), client.agentCard ?? (await client.getAgentCard()));
    }
    let started = performance.now();
    for (let i = -warmup; i < count; ++i) {
        if (i === 0) started = performance.now();
        const message = Message.fromJSON({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello from js' }] });
        if (mode === 'stream') {
            let last;
            let answer = '';
            for await (const event of client.sendMessageStream({ message })) {
                if (count === 1) console.log(JSON.stringify(event));
                if (event.payload.$case === 'statusUpdate') last = event.payload.value.status.state;
                if (event.payload.$case === 'task') last = event.payload.value.status.state;
                if (event.payload.$case === 'artifactUpdate') answer += textOf(event.payload.value.artifact.parts);
            }
            if (last !== TaskState.TASK_STATE_COMPLETED || !answer) throw new Error(`stream ended in state ${last} with answer '${answer}'`);
            if (count === 1) console.log('answer: ' + answer);
        } else {
            const result = await client.sendMessage({ message });
            const answer = (result.artifacts ?? []).map((a) => textOf(a.parts)).join('');
            if (result.status?.state !== TaskState.TASK_STATE_COMPLETED || !answer) throw new Error('send did not complete: ' + JSON.stringify(result));
            if (count === 1) console.log('answer: ' + answer);
            if (count === 1) console.log(JSON.stringify(result));
            if (count === 1 && result.id) {
                const again = await client.getTask({ id: result.id });
                console.log(JSON.stringify({ got: Task.toJSON(again) }));
            }
        }
    }
    if (count > 1) {
        console.log(JSON.stringify({ roundTripUs: ((performance.now() - started) * 1000) / count }));
    }
    console.log('ok');
}
main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
