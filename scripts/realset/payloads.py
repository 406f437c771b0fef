"""Writes, beside each manifest in DIR, `<manifest>.cases.json` in the corpus' form: payloads
generated from each tool's own inputSchema, kept only when the original schema accepts them
(`jsonschema`, the dialect the schema names, else 2020-12). These are what proves "no valid
payload lost" in tests/provider_acceptance.rs (`SCHEMALENS_REALSET`).

Each tool gets up to one payload per variant: the required properties only; every property;
every property with the i-th alternative of each union (i = 1, 2, 3); every property with
`null` wherever a union allows it; every property with an extra key in each open object; and
`{}`-typed values ("Any") filled with an object, a list, a string. Recursion stops at a fixed
depth by taking required properties only. Usage: payloads.py DIR"""

import copy
import json
import re
import sys
from pathlib import Path

import jsonschema

MAX_DEPTH = 6
# Values one payload may hold before the rest is filled minimally: a recursive model with many
# optional recursive fields (OpenAPI's Schema) otherwise grows as (fields) ** depth.
BUDGET = 400
SAMPLE_STRINGS = {
    "date-time": "2024-05-06T07:08:09Z",
    "date": "2024-05-06",
    "time": "07:08:09Z",
    "email": "someone@example.com",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "uri-reference": "https://example.com/a",
    "iri": "https://example.com/a",
    "uuid": "123e4567-e89b-42d3-a456-426614174000",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
    "duration": "P1D",
    "binary": "YWJj",
    "byte": "YWJj",
    "base64": "YWJj",
    "regex": "^a",
    "json-pointer": "/a",
}
ANY_VALUES = [{"any": [1, "two", None]}, [1, {"k": "v"}], "anything"]


class Generator:
    def __init__(self, root, variant):
        self.root = root
        self.kind, self.pick = variant
        self.left = BUDGET

    def frugal(self, depth):
        return self.kind == "minimal" or depth >= MAX_DEPTH or self.left <= 0

    def resolve(self, ref):
        if ref == "#":
            return self.root
        if not ref.startswith("#/"):
            return {}
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def value(self, s, depth):
        self.left -= 1
        if s is True or s == {}:
            return "x" if self.frugal(depth) else ANY_VALUES[self.pick % len(ANY_VALUES)]
        if not isinstance(s, dict):
            return None
        if "$ref" in s:
            target = self.resolve(s["$ref"])
            rest = {k: v for k, v in s.items() if k != "$ref"}
            return self.value({**target, **rest} if rest and isinstance(target, dict) else target, depth)
        if "const" in s:
            return s["const"]
        if s.get("enum"):
            return s["enum"][self.pick % len(s["enum"])]
        if "allOf" in s:
            merged = {k: v for k, v in s.items() if k != "allOf"}
            for part in s["allOf"]:
                part = self.resolve(part["$ref"]) if isinstance(part, dict) and "$ref" in part else part
                if isinstance(part, dict):
                    merged.setdefault("properties", {}).update(part.get("properties", {}))
                    merged["required"] = sorted(set(merged.get("required", [])) | set(part.get("required", [])))
                    for k, v in part.items():
                        if k not in ("properties", "required"):
                            merged.setdefault(k, v)
            return self.value(merged, depth)
        alternatives = s.get("anyOf") or s.get("oneOf")
        if alternatives:
            return self.value(self.alternative(s, alternatives, depth), depth)
        t = s.get("type")
        if isinstance(t, list):
            if self.kind == "nulls" and "null" in t:
                return None
            others = [x for x in t if x != "null"] or ["null"]
            t = others[self.pick % len(others)]
        if t is None:
            t = "object" if "properties" in s else "array" if "items" in s else None
        if t is None:
            return self.value({}, depth)
        return getattr(self, "a_" + t)(s, depth)

    def alternative(self, s, alternatives, depth):
        nulls = [a for a in alternatives if isinstance(a, dict) and a.get("type") == "null"]
        others = [a for a in alternatives if not (isinstance(a, dict) and a.get("type") == "null")] or alternatives
        if nulls and (self.kind == "nulls" or self.frugal(depth)):
            return nulls[0]
        chosen = others[0] if self.kind in ("minimal", "full", "extra") else others[self.pick % len(others)]
        base = {k: v for k, v in s.items() if k not in ("anyOf", "oneOf", "discriminator")}
        return {**base, **chosen} if base and isinstance(chosen, dict) and "$ref" not in chosen else chosen

    def a_null(self, s, depth):
        return None

    def a_boolean(self, s, depth):
        return self.pick % 2 == 0

    def a_integer(self, s, depth):
        low = s.get("minimum", s.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in s else 0))
        high = s.get("maximum", s.get("exclusiveMaximum", low + 10) - (1 if "exclusiveMaximum" in s else 0))
        value = int(max(min(1, high), low))
        m = s.get("multipleOf")
        return int(value - value % m + (m if value % m else 0)) if isinstance(m, int) and m else value

    def a_number(self, s, depth):
        if "multipleOf" in s or "minimum" in s or "maximum" in s or "exclusiveMinimum" in s:
            return self.a_integer(s, depth)
        return 1.5

    def a_string(self, s, depth):
        if "default" in s and isinstance(s["default"], str):
            text = s["default"]
        elif isinstance(s.get("examples"), list) and s["examples"] and isinstance(s["examples"][0], str):
            text = s["examples"][0]
        else:
            text = SAMPLE_STRINGS.get(s.get("format"), "abc")
        low, high = s.get("minLength", 0), s.get("maxLength", 10**6)
        text = (text + "a" * low)[: max(high, low)] if len(text) < low else text[:high]
        if "pattern" in s and not re.search(s["pattern"], text):
            for candidate in ("a", "A", "1", "abc-1", "a_b", "x1", "0x1", "2024-05-06"):
                if re.search(s["pattern"], candidate):
                    return candidate
        return text

    def a_array(self, s, depth):
        if self.frugal(depth):
            count = s.get("minItems", 0)
        else:
            count = max(s.get("minItems", 1), 1)
        count = min(count, s.get("maxItems", count))
        prefix = s.get("prefixItems") or (s["items"] if isinstance(s.get("items"), list) else [])
        items = s.get("items") if isinstance(s.get("items"), dict) else {}
        out = [self.value(p, depth + 1) for p in prefix]
        out += [self.value(items, depth + 1) for _ in range(max(count - len(out), 0))]
        return out

    def a_object(self, s, depth):
        props = s.get("properties", {})
        required = s.get("required", [])
        every = not self.frugal(depth)
        out = {k: self.value(v, depth + 1) for k, v in props.items() if every or k in required}
        extra = s.get("additionalProperties", True)
        if self.kind == "extra" and extra is not False and not self.frugal(depth) and not s.get("patternProperties"):
            out["extra_key"] = self.value(extra if isinstance(extra, dict) else {}, depth + 1)
        elif isinstance(extra, dict) and extra and not props and every:
            out["key"] = self.value(extra, depth + 1)
        if not out and s.get("minProperties", 0) > 0 and isinstance(extra, dict):
            out["key"] = self.value(extra, depth + 1)
        return out


VARIANTS = [("minimal", 0), ("full", 0), ("alt", 1), ("alt", 2), ("alt", 3), ("nulls", 0), ("extra", 0)]


def validator_for(schema):
    named = str(schema.get("$schema", ""))
    cls = jsonschema.Draft7Validator if "draft-07" in named else jsonschema.Draft202012Validator
    return cls(schema)


def cases_for(tool):
    schema = tool["inputSchema"]
    validator = validator_for(schema)
    cases, seen = [], set()
    for kind, pick in VARIANTS:
        try:
            payload = Generator(schema, (kind, pick)).value(copy.deepcopy(schema), 0)
        except (RecursionError, KeyError, TypeError, AttributeError, ZeroDivisionError, re.error) as e:
            print(f"  {tool['name']} {kind}{pick}: not generated: {type(e).__name__}", file=sys.stderr)
            continue
        text = json.dumps(payload, sort_keys=True)
        if text in seen:
            continue
        seen.add(text)
        if validator.is_valid(payload):
            cases.append({"payload": payload, "valid": True, "truth": "jsonschema", "note": f"generated: {kind} {pick}"})
    return cases


def main(folder):
    for path in sorted(Path(folder).glob("*.json")):
        if path.name.endswith(".cases.json"):
            continue
        tools = json.loads(path.read_text())["tools"]
        per_tool = {t["name"]: cases_for(t) for t in tools}
        out = path.with_name(f"{path.stem}.cases.json")
        out.write_text(json.dumps({"manifest": path.name, "generator": "scripts/realset/payloads.py", "tool_cases": per_tool}, indent=1))
        count = sum(map(len, per_tool.values()))
        bare = sum(1 for c in per_tool.values() if not c)
        print(f"{path.stem}: {count} valid payloads, {bare} of {len(tools)} tools without one", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
