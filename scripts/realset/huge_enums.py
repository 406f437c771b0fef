"""Writes one MCP tools/list manifest of Pydantic tools whose fields are enums as large as real
registries make them: every lexer name, alias and MIME type Pygments knows, every IANA zone of
tzdata, every Pygments style, and Python's HTTPStatus (an integer enum). Pydantic's DEFAULT
`model_json_schema()`, as for the other Pydantic sources. Usage: huge_enums.py OUT_DIR"""

import enum
import http
import importlib.resources
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Literal, Optional

import pygments.lexers
import pygments.styles
from pydantic import BaseModel, Field

LEXERS = list(pygments.lexers.get_all_lexers())
ALIASES = sorted({a for lexer in LEXERS for a in lexer[1]})
LEXER_NAMES = sorted({lexer[0] for lexer in LEXERS} - set(ALIASES))
MIME_TYPES = sorted({m for lexer in LEXERS for m in lexer[3]} - set(ALIASES) - set(LEXER_NAMES))
ZONES = importlib.resources.files("tzdata").joinpath("zones").read_text().split()
STYLES = sorted(pygments.styles.get_all_styles())

TimeZone = enum.Enum("TimeZone", {z.replace("/", "_").replace("-", "_").replace("+", "plus"): z for z in ZONES})


class HighlightCode(BaseModel):
    """Highlights source code with Pygments."""

    code: str
    lexer: Literal[tuple(ALIASES + LEXER_NAMES + MIME_TYPES)] = Field(
        description="A lexer name, alias or MIME type Pygments knows"
    )
    style: Literal[tuple(STYLES)] = "default"


class GuessLexer(BaseModel):
    """Names the lexer for a MIME type."""

    mime_type: Literal[tuple(MIME_TYPES)]
    fallback: Optional[Literal[tuple(ALIASES)]] = None


class ConvertTime(BaseModel):
    """Converts a time between IANA zones."""

    time: datetime
    from_zone: TimeZone
    to_zone: TimeZone
    also_in: list[TimeZone] = []


class HttpReply(BaseModel):
    """Answers a request with an HTTP status."""

    status: http.HTTPStatus
    retry_on: Optional[list[http.HTTPStatus]] = None
    body: Optional[str] = None


class Schedule(BaseModel):
    """A meeting in several zones, each with its highlighted agenda."""

    title: str
    zones: dict[str, TimeZone]
    agenda: list[HighlightCode] = []


def main(out):
    tools = [
        {"name": m.__name__, "description": m.__doc__, "inputSchema": m.model_json_schema()}
        for m in (HighlightCode, GuessLexer, ConvertTime, HttpReply, Schedule)
    ]
    Path(out, "pydantic-huge-enums.json").write_text(json.dumps({"tools": tools}, indent=1))
    print(f"pydantic-huge-enums: {len(tools)} tools", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
