// The official MCP TypeScript SDK as a client of engram, as a new user
// would run it: over stdio (`engram mcp`) and over Streamable HTTP
// (`engram serve`, /mcp). Each session initializes, lists the tools, calls
// every tool (the SDK checks each structuredContent against the tool's
// outputSchema), and sends a lone surrogate, which must be answered, not
// left to time out.
//
//   node mcp_session.mjs ENGRAM_BINARY MODELS_DIR
//
// Run by scripts/node_test.sh from the directory the SDK is installed in.
import { rmSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { privateHome, startServe } from "./engram_serve.mjs";

const [engram, models] = process.argv.slice(2);
const { home, env } = privateHome("engram-mcp-sdk-", models);
const TOOLS = ["memory_search", "memory_add", "memory_update", "memory_forget", "memory_list",
               "memory_scopes"];
// A call that hangs is a failure: every request gets 20 s.
const options = { timeout: 20000 };

function check(condition, what) {
  if (!condition) throw new Error(what);
}

function text(result) {
  return result.content.map((c) => c.text).join("\n");
}

async function session(name, transport, scope) {
  const client = new Client({ name: "engram-test", version: "1.0.0" });
  await client.connect(transport, options);
  const server = client.getServerVersion();
  check(server.name === "engram", `${name}: server ${JSON.stringify(server)}`);

  const { tools } = await client.listTools({}, options);
  check(JSON.stringify(tools.map((t) => t.name)) === JSON.stringify(TOOLS),
        `${name}: tools ${tools.map((t) => t.name)}`);
  for (const t of tools) {
    check(t.title && t.annotations && t.outputSchema, `${name}: ${t.name} lacks title/annotations/outputSchema`);
  }

  const call = async (tool, args) => {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, options);
    check(!result.isError, `${name}: ${tool} failed: ${text(result)}`);
    check(result.structuredContent !== undefined, `${name}: ${tool} has no structuredContent`);
    return result;
  };
  const added = await call("memory_add", { content: "Maya is allergic to peanuts", tags: ["family"] });
  check(added.structuredContent.facts[0].scope === scope, `${name}: added to ${JSON.stringify(added.structuredContent)}`);
  const standup = await call("memory_add", { content: "Standup is at 9:30", kind: "fact" });
  const id = standup.structuredContent.facts[0].id;
  const found = await call("memory_search", { query: "what is Maya allergic to", k: 3 });
  check(found.structuredContent.hits[0].fact.content === "Maya is allergic to peanuts",
        `${name}: search found ${text(found)}`);
  check(text(found).includes(`scope ${scope}, kind fact, created`), `${name}: search text ${text(found)}`);
  await call("memory_update", { id, content: "Standup is at 10:00" });
  const listed = await call("memory_list", { limit: 10, tag: null });
  check(listed.structuredContent.count === 2, `${name}: list ${text(listed)}`);
  const scopes = await call("memory_scopes", {});
  check(scopes.structuredContent.scopes.some((s) => s.name === scope && s.writable),
        `${name}: scopes ${text(scopes)}`);
  const forgot = await call("memory_forget", { tag: "family" });
  check(forgot.structuredContent.forgotten === 1, `${name}: forget ${text(forgot)}`);

  // A client that cut an emoji in half: "\ud83d" alone goes on the wire as
  // the escape \ud83d, which engram reads as U+FFFD.
  const cut = await call("memory_add", { content: "party time \ud83d" });
  const stored = await call("memory_search", { query: "party time", k: 1 });
  check(stored.structuredContent.hits[0].fact.content === "party time \ufffd",
        `${name}: the lone surrogate came back as ${JSON.stringify(stored.structuredContent.hits[0])}`);
  check(cut.structuredContent.facts.length === 1, `${name}: ${text(cut)}`);

  await client.close();
  console.log(`mcp_sdk_test: ${name}: initialize, ${tools.length} tools listed and called, lone surrogate answered`);
}

let failed = false;
let server;
try {
  await session("stdio", new StdioClientTransport({ command: engram, args: ["mcp", "--scope", "bob"], env, stderr: "inherit" }), "bob");
  server = await startServe(engram, ["--mcp-scope", "alice"], env);
  await session("http", new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)), "alice");
} catch (e) {
  console.error(`mcp_sdk_test: ${e.stack || e}`);
  failed = true;
} finally {
  if (server) await server.stop();
  rmSync(home, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
