// Starts real MCP servers installed from npm over stdio and writes each one's `tools/list` (all
// pages) as a manifest, as a client receives it. No server is given a real credential or a
// database: keys are placeholders, telemetry is off, and a server that cannot list its tools
// that way is reported and skipped. Usage: node mcp_servers.mjs NODE_MODULES OUT
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, out] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "x.js"));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");

const bin = (name) => path.join(path.resolve(modules), ".bin", name);
const quiet = { DO_NOT_TRACK: "1", MDB_MCP_TELEMETRY: "disabled", NO_UPDATE_NOTIFIER: "1" };
// [manifest, command, args, env]
const SERVERS = [
  ["mcp-mongodb", bin("mongodb-mcp-server"), [], {}],
  ["mcp-firecrawl", bin("firecrawl-mcp"), [], { FIRECRAWL_API_KEY: "fc-placeholder" }],
];

async function listTools(command, args, env) {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...process.env, ...quiet, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "schemalens-realset", version: "1" });
  await client.connect(transport);
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  return tools;
}

const within = (ms, p) =>
  Promise.race([p, new Promise((_, no) => setTimeout(() => no(new Error(`no answer in ${ms} ms`)), ms))]);

for (const [manifest, command, args, env] of SERVERS) {
  try {
    const tools = await within(60000, listTools(command, args, env));
    writeFileSync(path.join(out, `${manifest}.json`), JSON.stringify({ tools }, null, 1));
    console.error(`${manifest}: ${tools.length} tools`);
  } catch (e) {
    console.error(`${manifest}: skipped: ${e.message}`);
  }
}
process.exit(0);
