// Decodes an OTLP export request with OpenTelemetry's own protobuf root (generated from
// opentelemetry-proto and shipped in @opentelemetry/otlp-transformer), for reagent's telemetry tests.
//
//   node otlp_decode.mjs FILE.pb FILE.json [traces|metrics]
//
// FILE.pb is an ExportTraceServiceRequest (ExportMetricsServiceRequest with `metrics`) in protobuf;
// FILE.json the same request in OTLP/JSON (hex ids,
// as the OTLP specification writes them), read into the same message type with its ids turned to bytes.
// Prints {"fromProtobuf": ..., "fromJson": ...}: each request as the message type reads it, in OTLP/JSON's
// conventions (hex ids, 64-bit integers as strings, enums as numbers, non-finite doubles as "NaN" and
// "Infinity", defaults left out). A field the JSON form misnames is not read, so the two then differ.
// Exits 1 when a file cannot be read or decoded.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const [pbFile, jsonFile, signal = 'traces'] = process.argv.slice(2);
const Request = signal === 'metrics'
    ? root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest
    : root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const idFields = new Set(['traceId', 'spanId', 'parentSpanId']);

// Walks `value`, turning the id fields with `convert`.
function mapIds(value, convert) {
    if (Array.isArray(value)) return value.map((item) => mapIds(item, convert));
    if (value === null || typeof value !== 'object') return value;
    const out = {};
    for (const [key, item] of Object.entries(value)) {
        out[key] = idFields.has(key) ? convert(item) : mapIds(item, convert);
    }
    return out;
}

function normalized(message) {
    const object = Request.toObject(message, { longs: String, enums: Number, bytes: String, defaults: false, json: true });
    return mapIds(object, (base64) => Buffer.from(base64, 'base64').toString('hex'));
}

try {
    const fromProtobuf = normalized(Request.decode(readFileSync(pbFile)));
    const json = JSON.parse(readFileSync(jsonFile, 'utf8'));
    const withBytes = mapIds(json, (hex) => Buffer.from(hex, 'hex').toString('base64'));
    const fromJson = normalized(Request.decode(Request.encode(Request.fromObject(withBytes)).finish()));
    process.stdout.write(JSON.stringify({ fromProtobuf, fromJson }));
} catch (error) {
    process.stderr.write(`otlp_decode: ${error.message}\n`);
    process.exit(1);
}
