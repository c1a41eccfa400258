// Checks names against OpenTelemetry's semantic conventions as the pinned @opentelemetry/semantic-conventions
// package defines them (stable and incubating exports), for reagent's telemetry tests.
//
//   node semconv_check.mjs < NAMES.json
//
// NAMES.json: {"names": ["gen_ai.operation.name", ...], "values": {"gen_ai.operation.name": ["chat"], ...}}:
// attribute and metric names, and the values seen of attributes. Prints {"unknownNames": [...],
// "unknownValues": ["key=value", ...]}: the names no export defines, and the values of attributes that
// have enumerated values (exports named KEY_VALUE_*) that are none of them. Exits 1 when the input cannot
// be read.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const exports = {
    ...require('@opentelemetry/semantic-conventions'),
    ...require('@opentelemetry/semantic-conventions/incubating'),
};
const defined = new Set(Object.values(exports).filter((value) => typeof value === 'string'));

// The enumerated values of `key`: the exports named after it with _VALUE_ (gen_ai.operation.name ->
// GEN_AI_OPERATION_NAME_VALUE_CHAT); none when the attribute has no enumeration.
function enumerated(key) {
    const prefix = key.toUpperCase().replace(/[.]/g, '_') + '_VALUE_';
    return Object.entries(exports)
        .filter(([name, value]) => name.startsWith(prefix) && typeof value === 'string')
        .map(([, value]) => value);
}

try {
    const input = JSON.parse(readFileSync(0, 'utf8'));
    const unknownNames = input.names.filter((name) => !defined.has(name));
    const unknownValues = [];
    for (const [key, values] of Object.entries(input.values ?? {})) {
        const allowed = enumerated(key);
        if (allowed.length === 0) continue;
        for (const value of values) {
            if (!allowed.includes(value)) unknownValues.push(`${key}=${value}`);
        }
    }
    process.stdout.write(JSON.stringify({ unknownNames, unknownValues }));
} catch (error) {
    process.stderr.write(`semconv_check: ${error.message}\n`);
    process.exit(1);
}
