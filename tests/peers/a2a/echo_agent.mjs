// A small A2A agent built with the official JS SDK's server classes (DefaultRequestHandler, express
// jsonRpcHandler, agentCardHandler), for reagent's interop tests: it echoes the text it gets ("echo: ..."),
// streaming submitted -> working -> artifact -> completed. A text starting with "slow" waits 20 s (or until
// canceled). It speaks A2A 1.0 and, through the SDK's compat layer, 0.3. Prints its port and pid on the
// first line.
import express from 'express';
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';

const canceled = new Set();
const now = () => new Date().toISOString();
const status = (taskId, contextId, state, text) =>
    TaskStatusUpdateEvent.fromJSON({
        taskId, contextId,
        status: {
            state, timestamp: now(),
            ...(text ? { message: { messageId: crypto.randomUUID(), role: 'ROLE_AGENT', parts: [{ text }] } } : {}),
        },
    });

const executor = {
    async execute(ctx, bus) {
        const { taskId, contextId } = ctx;
        const text = ctx.userMessage.parts
            .map((p) => (p.content && p.content.$case === 'text' ? p.content.value : ''))
            .join('\n');
        if (!ctx.task) {
            bus.publish(AgentEvent.task(Task.fromJSON({
                id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
                history: [Message.toJSON(ctx.userMessage)],
            })));
        }
        bus.publish(AgentEvent.statusUpdate(status(taskId, contextId, 'TASK_STATE_WORKING', 'echoing')));
        if (text.startsWith('slow')) {
            for (let i = 0; i < 200 && !canceled.has(taskId); ++i) {
                await new Promise((r) => setTimeout(r, 100));
            }
            if (canceled.has(taskId)) {
                bus.finished();
                return;
            }
        }
        bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({
            taskId, contextId, lastChunk: true,
            artifact: { artifactId: crypto.randomUUID(), name: 'answer', parts: [{ text: 'echo: ' + text }] },
        })));
        bus.publish(AgentEvent.statusUpdate(status(taskId, contextId, 'TASK_STATE_COMPLETED')));
        bus.finished();
    },
    async cancelTask(taskId, bus) {
        canceled.add(taskId);
        bus.publish(AgentEvent.statusUpdate(status(taskId, '', 'TASK_STATE_CANCELED')));
        bus.finished();
    },
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
    const port = server.address().port;
    const rpc = `http://127.0.0.1:${port}/a2a/jsonrpc`;
    const card = AgentCard.fromJSON({
        name: 'js-echo', description: 'Echoes its input (the A2A JS SDK)', version: '1.0.0',
        supportedInterfaces: [
            { url: rpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: rpc, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
        capabilities: { streaming: true, pushNotifications: false },
        defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
        skills: [{ id: 'echo', name: 'echo', description: 'Echoes the text', tags: ['test'] }],
    });
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
    console.log(`${port} ${process.pid}`);
});
// Ends with its stdin, unless --no-stdin (then with a signal).
if (!process.argv.includes('--no-stdin')) {
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();
}
