// Writes MCP tools/list manifests of real packages' Zod 4 schemas, one tool per exported schema,
// each tool's inputSchema being `z.toJSONSchema(schema)` with Zod's DEFAULT settings (draft
// 2020-12, cycles as $ref). A schema those settings refuse ("cannot be represented", a
// z.custom() inside) is exported again with { unrepresentable: "any" }, as a user would, which
// writes `{}` there; the tool's description says so. Usage: node zod_schemas.mjs NODE_MODULES OUT
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, out] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "x.js"));
const load = async (spec) => import(pathToFileURL(require.resolve(spec)).href);
const z = await load("zod");

// [manifest, module, how to find its schemas, cap]: the schemas are taken in name order.
const SOURCES = [
  ["zod-mcp-sdk-types", "@modelcontextprotocol/sdk/types.js", (m) => m, /Schema$/, 60],
  ["zod-openai-agents-protocol", "@openai/agents-core", (m) => m.protocol, /./, 60],
];

const isZod = (s) => s && typeof s === "object" && s._zod;

function exported(schema) {
  try {
    return { schema: z.toJSONSchema(schema), note: "" };
  } catch (e) {
    return {
      schema: z.toJSONSchema(schema, { unrepresentable: "any" }),
      note: ` (exported with unrepresentable: "any": ${e.message})`,
    };
  }
}

for (const [manifest, spec, pick, name, cap] of SOURCES) {
  const found = Object.entries(pick(await load(spec)))
    .filter(([k, s]) => name.test(k) && isZod(s))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const stride = Math.max(found.length / cap, 1);
  const chosen = [];
  for (let i = 0; i < Math.min(cap, found.length); i++) chosen.push(found[Math.floor(i * stride)]);
  const tools = chosen.map(([k, s]) => {
    const { schema, note } = exported(s);
    return {
      name: k.replace(/Schema$/, ""),
      description: `${spec} ${k}${note}`,
      inputSchema: schema,
    };
  });
  writeFileSync(path.join(out, `${manifest}.json`), JSON.stringify({ tools }, null, 1));
  console.error(`${manifest}: ${tools.length} tools from ${spec}`);
}
