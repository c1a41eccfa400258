// Type-checks reagent's provider fixtures (responses, streams, errors) and the request bodies the
// integration tests expect against the official SDKs' TypeScript types, pinned in package.json:
// openai, @anthropic-ai/sdk, @google/genai and ollama. Each JSON document becomes a typed constant in a
// generated TypeScript file, compiled with `tsc --strict --noEmit`: a field an SDK does not know (object
// literals get excess-property checks), a missing required field or a wrong type fails the check.
//
//   node check.mjs            (after `npm ci` here; exits 1 with tsc's diagnostics on a mismatch)

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const fixtures = path.join(root, "tests/fixtures/providers");
const expected = path.join(root, "tests/integration/providers/expected");

// The JSON documents of a stream: SSE `data:` lines (with their `event:` name) or NDJSON lines.
function streamDocuments(file) {
  const text = fs.readFileSync(file, "utf8");
  if (file.endsWith(".ndjson")) {
    return text.split("\n").filter((l) => l.trim()).map((l) => ({ event: "", data: l }));
  }
  const docs = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = "";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length && data.join("\n") !== "[DONE]") docs.push({ event, data: data.join("\n") });
  }
  return docs;
}

// Which SDK type each document must satisfy; null: the SDK has no type for it (said in the report).
function responseType(provider, name, event, doc) {
  const isError = name.startsWith("error_") || event === "error" || (provider === "ollama" && "error" in doc);
  switch (provider) {
    case "openai":
      if (isError) return "{ error: OpenAIShared.ErrorObject }";
      return name.endsWith(".sse") ? "OpenAIChat.ChatCompletionChunk" : "OpenAIChat.ChatCompletion";
    case "anthropic":
      if (isError) return "AnthropicShared.ErrorResponse";
      if (name === "count_tokens.json") return "AnthropicMessages.MessageTokensCount";
      if (event === "ping") return "{ type: 'ping' }";  // sent as keep-alive; the SDK skips it untyped
      return name.endsWith(".sse") ? "AnthropicMessages.RawMessageStreamEvent" : "AnthropicMessages.Message";
    case "gemini":
      if (name === "count_tokens.json") return "Omit<Genai.CountTokensResponse, 'sdkHttpResponse'>";
      return isError ? null : "GeminiResponse";
    case "ollama":
      return isError ? "Ollama.ErrorResponse" : "OllamaChunk";
  }
  throw new Error(`unknown provider ${provider}`);
}

const requestType = {
  openai: "OpenAIChat.ChatCompletionCreateParams",
  anthropic: "AnthropicMessages.MessageCreateParams",
  gemini: "GeminiRequest",
  ollama: "Ollama.ChatRequest",
};

const header = `
import type * as OpenAIChat from "openai/resources/chat/completions";
import type * as OpenAIShared from "openai/resources/shared";
import type * as AnthropicMessages from "@anthropic-ai/sdk/resources/messages";
import type * as AnthropicShared from "@anthropic-ai/sdk/resources/shared";
import type * as Genai from "@google/genai";
import type * as Ollama from "ollama";

// JSON as it travels: enums are their string values, dates are strings, getters are not data.
type Wire<T> = T extends Date ? string
  : T extends string ? \`\${T}\`
  : T extends (infer U)[] ? Wire<U>[]
  : T extends object ? { [K in keyof T]: Wire<T[K]> }
  : T;
// What a provider sends back may leave out a field that is null: the response types of the OpenAI and
// Anthropic SDKs list such fields as required-but-nullable, and older API versions (as documented in
// the fixtures) do not send them. Nothing else is relaxed: unknown fields and wrong types still fail.
type NullableKeys<T> = { [K in keyof T]-?: null extends T[K] ? K : never }[keyof T];
type Received<T> = T extends Date ? string
  : T extends string ? \`\${T}\`
  : T extends (infer U)[] ? Received<U>[]
  : T extends object ? { [K in keyof T as K extends NullableKeys<T> ? never : K]: Received<T[K]> } &
                       { [K in keyof T as K extends NullableKeys<T> ? K : never]?: Received<T[K]> }
  : T;
// Ollama's ChatResponse declares the statistics of the final line required, but only the last line
// of a stream (done: true) carries them.
type OllamaStats = "done_reason" | "total_duration" | "load_duration" | "prompt_eval_count" |
  "prompt_eval_duration" | "eval_count" | "eval_duration";
type OllamaChunk = Omit<Ollama.ChatResponse, OllamaStats> & Partial<Pick<Ollama.ChatResponse, OllamaStats>>;
type GeminiResponse = Omit<Genai.GenerateContentResponse,
  "text" | "data" | "functionCalls" | "executableCode" | "codeExecutionResult" | "initialPromptTokenCount">;
// The REST body of generateContent, from the SDK's own types of its parts.
interface GeminiRequest {
  contents: Genai.Content[];
  systemInstruction?: Genai.Content;
  tools?: Genai.Tool[];
  toolConfig?: Genai.ToolConfig;
  generationConfig?: Genai.GenerationConfig;
}
`;

let source = header;
let count = 0;
const untyped = [];
const add = (label, type, json, wrapper) => {
  source += `\n// ${label}\nexport const doc${count++}: ${wrapper}<${type}> = ${json};\n`;
};

for (const provider of fs.readdirSync(fixtures).filter((d) => fs.statSync(path.join(fixtures, d)).isDirectory()).sort()) {
  for (const name of fs.readdirSync(path.join(fixtures, provider)).sort()) {
    const file = path.join(fixtures, provider, name);
    const docs = name.endsWith(".json") ? [{ event: "", data: fs.readFileSync(file, "utf8") }] : streamDocuments(file);
    docs.forEach(({ event, data }, i) => {
      const doc = JSON.parse(data);
      const type = responseType(provider, name, event, doc);
      const label = `${provider}/${name}${docs.length > 1 ? ` #${i + 1}` : ""}${event ? ` (${event})` : ""}`;
      if (type) add(label, type, data, "Received");
      else untyped.push(label);
    });
  }
}
for (const name of fs.readdirSync(expected).sort()) {
  const provider = name.split("_")[0];
  add(`request body ${name}`, requestType[provider], fs.readFileSync(path.join(expected, name), "utf8"), "Wire");
}

// Canaries: documents each SDK type must reject. `@ts-expect-error` makes an accepted one an error
// ("unused directive"), so a check that had stopped checking would fail here.
const canaries = [
  ["OpenAIChat.ChatCompletion", `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[],"finish":1}`],
  ["AnthropicMessages.Message", `{"id":"x","type":"message","role":"assistant","model":"m","content":[],"stop_reason":"done","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`],
  ["GeminiResponse", `{"candidates":[{"index":0,"finishReason":"stop"}]}`],
  ["OllamaChunk", `{"created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":false}`],
  ["OpenAIChat.ChatCompletionCreateParams", `{"model":"m","messages":[],"tool_choice":"sometimes"}`],
];
for (const [type, json] of canaries) {
  source += `\n// canary: must not be a ${type}\n// @ts-expect-error\nexport const canary${count++}: Received<${type}> = ${json};\n`;
}

const outDir = fs.mkdtempSync(path.join(here, ".check-"));
const generated = path.join(outDir, "fixtures.ts");
fs.writeFileSync(generated, source);
const program = ts.createProgram([generated], {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
  types: [],
  typeRoots: [path.join(here, "node_modules/@types")],
});
const diagnostics = ts.getPreEmitDiagnostics(program);
const report = ts.formatDiagnostics(diagnostics, {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => outDir,
  getNewLine: () => "\n",
});
if (diagnostics.length) {
  console.error(report);
  console.error(`${diagnostics.length} type error(s) in ${count} documents; the generated file is kept: ${generated}`);
  process.exit(1);
}
fs.rmSync(outDir, { recursive: true });
console.log(`${count - canaries.length} documents match the SDK types and ${canaries.length} wrong ones are rejected (openai, @anthropic-ai/sdk, @google/genai, ollama)`);
if (untyped.length) console.log(`not checked (no SDK type): ${untyped.join(", ")}`);
