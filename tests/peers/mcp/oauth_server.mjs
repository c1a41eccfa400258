// An MCP server behind OAuth 2.1, for the tests of reagent's OAuth flow through the CLI: the TypeScript
// SDK's own example (simpleStreamableHttp with --oauth: an in-memory authorization server that approves
// every authorization request at once, dynamic registration, PKCE, token introspection). The MCP server
// listens on http://localhost:<port>/mcp and the authorization server on the next free port; the first
// stdout line is `reagent-peer-port <port>` once both accept connections.
import net from 'node:net';

function freePort() {
    return new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            server.close(() => resolve(port));
        });
    });
}

function accepts(port) {
    return new Promise(resolve => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => { socket.destroy(); resolve(true); });
        socket.once('error', () => resolve(false));
    });
}

const mcpPort = await freePort();
const authPort = await freePort();
process.env.MCP_PORT = String(mcpPort);
process.env.MCP_AUTH_PORT = String(authPort);
process.argv.push('--oauth');
console.log = console.error;  // stdout carries the port line only
await import('@modelcontextprotocol/sdk/examples/server/simpleStreamableHttp.js');
for (let i = 0; i < 200 && !((await accepts(mcpPort)) && (await accepts(authPort))); i++) {
    await new Promise(resolve => setTimeout(resolve, 50));
}
process.stdout.write(`reagent-peer-port ${mcpPort}\n`);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
