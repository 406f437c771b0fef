"""Writes MCP tools/list manifests of real packages' Pydantic models, one tool per model, each
tool's inputSchema being the model's `model_json_schema()` with Pydantic's DEFAULT settings (what
a user's code sends when it makes a tool of the model). Usage: pydantic_models.py OUT_DIR

Which models: every source below names a module, the models it always takes (the large and
recursive ones users actually send), and a cap; the rest of the module's models, sorted by name
and without streaming events, are sampled at an even stride up to the cap. The packages are
pinned in requirements.txt, so the selection is the same on every run.
"""

import importlib
import inspect
import json
import re
import sys
from pathlib import Path

import pydantic

# (manifest, module, always-included models, cap)
SOURCES = [
    (
        "pydantic-openai-types",
        "openai.types.chat",
        ["ChatCompletion", "ChatCompletionMessage", "ChatCompletionMessageToolCall"],
        20,
    ),
    (
        "pydantic-openai-responses",
        "openai.types.responses",
        ["Response", "ResponseInputItem", "ResponseOutputMessage", "FunctionTool", "FileSearchTool"],
        40,
    ),
    (
        "pydantic-anthropic-types",
        "anthropic.types",
        ["Message", "ToolUseBlock", "Usage", "ContentBlock", "MessageTokensCount"],
        45,
    ),
    (
        "pydantic-mcp-types",
        "mcp.types",
        ["Tool", "CallToolResult", "CreateMessageRequestParams", "InitializeResult", "ElicitRequestParams"],
        40,
    ),
    (
        "pydantic-qdrant-models",
        "qdrant_client.http.models",
        ["Filter", "QueryRequest", "SearchRequest", "PointStruct", "CreateCollection", "Prefetch", "FormulaQuery"],
        45,
    ),
    (
        "pydantic-google-genai-types",
        "google.genai.types",
        ["Schema", "GenerateContentConfig", "FunctionDeclaration", "Tool", "Content", "LiveConnectConfig", "GenerateContentResponse"],
        40,
    ),
    ("pydantic-ollama", "ollama", ["ChatRequest", "GenerateRequest", "Message", "Tool"], 30),
    ("pydantic-openapi-v31", "openapi_pydantic.v3.v3_1", ["OpenAPI", "Schema", "Components", "Operation"], 30),
    ("pydantic-cohere", "cohere", ["ChatMessage", "ToolV2", "JsonResponseFormat", "ToolResult", "EmbedInput"], 35),
    ("pydantic-langchain-messages", "langchain_core.messages", ["AIMessage", "ToolMessage", "HumanMessage"], 20),
]

STREAMED = re.compile(r"Event|Delta|Chunk|Stream")


def models_of(module_name):
    module = importlib.import_module(module_name)
    found = {}
    for name in sorted(dir(module)):
        value = getattr(module, name)
        if inspect.isclass(value) and issubclass(value, pydantic.BaseModel) and value is not pydantic.BaseModel:
            found[name] = value
    return found


def chosen(found, always, cap):
    picked = [n for n in always if n in found]
    rest = [n for n in found if n not in picked and not STREAMED.search(n)]
    room = max(cap - len(picked), 0)
    if rest and room:
        stride = max(len(rest) / room, 1)
        picked += [rest[int(i * stride)] for i in range(min(room, len(rest)))]
    return picked


def tool_of(name, model):
    try:
        schema = model.model_json_schema()
    except Exception as e:  # a model Pydantic cannot describe: said, not hidden
        print(f"  skipped {model.__module__}.{name}: {type(e).__name__}: {e}", file=sys.stderr)
        return None
    description = (inspect.getdoc(model) or f"{model.__module__}.{name}").split("\n\n")[0]
    return {"name": name, "description": description[:1000], "inputSchema": schema}


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    index = ["manifest\tmodule\tmodel"]
    for manifest, module, always, cap in SOURCES:
        found = models_of(module)
        tools = [t for t in (tool_of(n, found[n]) for n in chosen(found, always, cap)) if t]
        (out / f"{manifest}.json").write_text(json.dumps({"tools": tools}, indent=1))
        index += [f"{manifest}\t{module}\t{t['name']}" for t in tools]
        print(f"{manifest}: {len(tools)} tools from {module}", file=sys.stderr)
    # Not `.json`: the harness reads every `*.json` in the folder as a manifest.
    (out / "pydantic-models.tsv").write_text("\n".join(index) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
