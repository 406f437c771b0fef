"""Counts, per manifest in DIR, what the issue asks the real set to cover: tools, schemas that
accept anything (`{}` or a description alone), `anyOf` with a null alternative, recursive
definitions, open objects, and the largest enum. Usage: stats.py DIR"""

import json
import sys
from pathlib import Path

ANNOTATIONS = {"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly"}


def walk(node, seen):
    if isinstance(node, dict):
        if not (set(node) - ANNOTATIONS):
            seen["any"] += 1
        alts = node.get("anyOf") or node.get("oneOf") or []
        if any(isinstance(a, dict) and a.get("type") == "null" for a in alts):
            seen["anyOf-null"] += 1
        if node.get("additionalProperties") is True or node.get("additionalProperties") == {}:
            seen["open"] += 1
        if isinstance(node.get("enum"), list):
            seen["max-enum"] = max(seen["max-enum"], len(node["enum"]))
        for k, v in node.items():
            if k not in ("enum", "const", "default", "examples"):
                walk(v, seen)
    elif isinstance(node, list):
        for v in node:
            walk(v, seen)


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#"):
            out.add(r.rsplit("/", 1)[-1] if r.startswith("#/") else "#")
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def recursive(schema):
    defs = schema.get("$defs") or schema.get("definitions") or {}
    graph = {}
    for name, d in defs.items():
        out = set()
        refs(d, out)
        graph[name] = out
    everywhere = set()
    refs(schema, everywhere)
    if "#" in everywhere:
        return True

    def reaches(start):
        stack, seen = list(graph.get(start, ())), set()
        while stack:
            n = stack.pop()
            if n == start:
                return True
            if n not in seen:
                seen.add(n)
                stack.extend(graph.get(n, ()))
        return False

    return any(reaches(n) for n in graph)


def main(folder):
    total = {"tools": 0, "any": 0, "anyOf-null": 0, "open": 0, "recursive": 0, "max-enum": 0}
    print("| manifest | tools | `{}`-like | anyOf+null | open objects | recursive tools | largest enum |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(Path(folder).glob("*.json")):
        if path.name.endswith(".cases.json"):
            continue
        tools = json.loads(path.read_text())["tools"]
        seen = {"any": 0, "anyOf-null": 0, "open": 0, "max-enum": 0}
        rec = 0
        for t in tools:
            walk(t["inputSchema"], seen)
            rec += recursive(t["inputSchema"])
        print(f"| {path.stem} | {len(tools)} | {seen['any']} | {seen['anyOf-null']} | {seen['open']} | {rec} | {seen['max-enum']} |")
        total["tools"] += len(tools)
        for k in ("any", "anyOf-null", "open"):
            total[k] += seen[k]
        total["recursive"] += rec
        total["max-enum"] = max(total["max-enum"], seen["max-enum"])
    print(f"| **all** | {total['tools']} | {total['any']} | {total['anyOf-null']} | {total['open']} | {total['recursive']} | {total['max-enum']} |")


if __name__ == "__main__":
    main(sys.argv[1])
