#!/usr/bin/env bash
# Rebuilds the real set (issue 10) into OUT_DIR (default: target/realset): MCP tools/list
# manifests of real packages' Pydantic models and Zod 4 schemas and of real MCP servers, each
# with <name>.cases.json payloads beside it, from the packages pinned in requirements.txt and
# package.json, installed with the machine's python3 (a venv) and npm into a temporary folder.
# Then, from the repository:
#   SCHEMALENS_REALSET=OUT_DIR cargo test --release --test provider_acceptance real_inputs -- --nocapture
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../target/realset}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
cp "$here/package.json" "$work/"
# No install scripts: nothing here needs a native build, and none may download binaries.
(cd "$work" && npm install --no-audit --no-fund --silent --ignore-scripts)

rm -f "$out"/*.json
"$work/venv/bin/python" "$here/pydantic_models.py" "$out"
"$work/venv/bin/python" "$here/huge_enums.py" "$out"
node "$here/zod_schemas.mjs" "$work/node_modules" "$out"
node "$here/mcp_servers.mjs" "$work/node_modules" "$out"
"$work/venv/bin/python" "$here/payloads.py" "$out"
python3 "$here/stats.py" "$out" | tee "$out/STATS.md"
