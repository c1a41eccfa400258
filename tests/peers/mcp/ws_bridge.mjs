// A WebSocket MCP peer for reagent's tests: a WebSocket server on 127.0.0.1 that speaks the `mcp`
// subprotocol and, per connection, runs the reference "everything" server over stdio, relaying its
// stdout lines to WebSocket text messages and WebSocket messages to its stdin.
//
// Usage: node ws_bridge.mjs <port|0> [options]      prints "listening <port>" once it accepts connections
//   --subprotocol NAME|none   the subprotocol the server selects (default: mcp when offered, else none)
//   --require-header N=V      refuse the upgrade with 401 unless header N has value V
//   --reject-status CODE      refuse every upgrade with this HTTP status
//   --close-on METHOD         close with code 1011 when a message with this method arrives (not relayed)
//   --binary-on METHOD        answer a message with this method by a binary message (not relayed)
//   --max-payload BYTES       largest message accepted from the client (ws closes with 1009 beyond)
//   --tls-cert FILE --tls-key FILE   serve wss:// with this certificate and key (PEM)
// The bridge exits when its stdin ends; the child server is killed when its socket closes.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { WebSocketServer } from "ws";

const here = path.dirname(fileURLToPath(import.meta.url));
const everything = path.join(here, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

function parseArgs(argv) {
    const options = { port: Number(argv[0] ?? 0), subprotocol: null, requireHeader: null, rejectStatus: 0,
                      closeOn: null, binaryOn: null, maxPayload: 100 * 1024 * 1024,
                      tlsCert: null, tlsKey: null };
    for (let i = 1; i < argv.length; i += 2) {
        const value = argv[i + 1];
        if (value === undefined) throw new Error(`${argv[i]} needs a value`);
        switch (argv[i]) {
            case "--subprotocol": options.subprotocol = value; break;
            case "--require-header": {
                const eq = value.indexOf("=");
                options.requireHeader = { name: value.slice(0, eq).toLowerCase(), value: value.slice(eq + 1) };
                break;
            }
            case "--reject-status": options.rejectStatus = Number(value); break;
            case "--close-on": options.closeOn = value; break;
            case "--binary-on": options.binaryOn = value; break;
            case "--max-payload": options.maxPayload = Number(value); break;
            case "--tls-cert": options.tlsCert = value; break;
            case "--tls-key": options.tlsKey = value; break;
            default: throw new Error(`unknown option ${argv[i]}`);
        }
    }
    return options;
}

const options = parseArgs(process.argv.slice(2));

function verifyClient(info, done) {
    if (options.rejectStatus) return done(false, options.rejectStatus, "Refused by the test bridge");
    if (options.requireHeader && info.req.headers[options.requireHeader.name] !== options.requireHeader.value) {
        return done(false, 401, "Unauthorized");
    }
    return done(true);
}

function handleProtocols(offered) {
    if (options.subprotocol === "none") return false;
    if (options.subprotocol) return options.subprotocol;
    return offered.has("mcp") ? "mcp" : false;
}

function methodOf(text) {
    try {
        return JSON.parse(text).method ?? null;
    } catch {
        return null;
    }
}

const children = new Set();

function relay(socket) {
    const child = spawn(process.execPath, [everything, "stdio"], { stdio: ["pipe", "pipe", "ignore"] });
    children.add(child);
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
        if (socket.readyState === socket.OPEN) socket.send(line);
    });
    child.on("exit", () => {
        children.delete(child);
        if (socket.readyState === socket.OPEN) socket.close(1011, "the MCP server exited");
    });
    child.stdin.on("error", () => {});
    socket.on("message", (data, isBinary) => {
        const text = data.toString("utf8");
        const method = methodOf(text);
        if (options.closeOn && method === options.closeOn) {
            socket.close(1011, "fault injected by the test bridge");
            return;
        }
        if (options.binaryOn && method === options.binaryOn) {
            socket.send(Buffer.from(text, "utf8"), { binary: true });
            return;
        }
        if (isBinary) {
            socket.close(1003, "binary messages are not MCP frames");
            return;
        }
        child.stdin.write(text + "\n");
    });
    socket.on("close", () => child.kill("SIGKILL"));
    socket.on("error", () => child.kill("SIGKILL"));
}

function failed(error) {
    process.stderr.write(`ws_bridge: ${error.message}\n`);
    process.exit(1);
}

const common = { maxPayload: options.maxPayload, verifyClient, handleProtocols };
if (options.tlsCert) {
    const https = createServer({ cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) });
    const server = new WebSocketServer({ server: https, ...common });
    server.on("connection", relay);
    https.on("error", failed);
    https.listen(options.port, "127.0.0.1", () => process.stdout.write(`listening ${https.address().port}\n`));
} else {
    const server = new WebSocketServer({ host: "127.0.0.1", port: options.port, ...common });
    server.on("connection", relay);
    server.on("listening", () => process.stdout.write(`listening ${server.address().port}\n`));
    server.on("error", failed);
}
process.stdin.on("end", () => {
    for (const child of children) child.kill("SIGKILL");
    process.exit(0);
});
process.stdin.resume();
