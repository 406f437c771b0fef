#!/usr/bin/env bash
# Rebuilds the large benchmark inputs (issue 13) into OUT_DIR (default: target/bench-inputs):
#   github-webhooks-mcp.json      MCP tools/list, one tool per webhook event (a oneOf of its payloads)
#   github-rest-mcp.json          MCP tools/list, one tool per REST operation
#   github-components-schema.json every component schema as one bare schema
# from the npm packages pinned in package.json, installed with the machine's npm. Then:
#   SCHEMALENS_BENCH_INPUTS=OUT_DIR cargo bench --bench projection
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../target/bench-inputs}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$work/"
(cd "$work" && npm install --no-audit --no-fund --silent)
python3 "$here/build.py" "$work/node_modules" "$out"
ls -l "$out"
