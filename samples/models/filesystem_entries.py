# Generates samples/filesystem-entries-pydantic.json: python filesystem_entries.py > ../filesystem-entries-pydantic.json
# (pydantic 2.14.4; the file is its model_json_schema() output, unchanged).
from __future__ import annotations
import json
from typing import Annotated, Literal, Union
from pydantic import BaseModel, Field

class Dir(BaseModel):
    """A directory and what it holds."""
    kind: Literal["dir"]
    name: str
    entries: list[Entry] = Field(default_factory=list)

class File(BaseModel):
    """A regular file; `aliases` are further names for it."""
    kind: Literal["file"]
    name: str
    size: int = Field(ge=0, description="Size in bytes.")
    aliases: list[Link] = Field(default_factory=list)

class Link(BaseModel):
    """A symbolic link to another entry."""
    kind: Literal["link"]
    name: str
    target: Entry

Entry = Annotated[Union[Dir, File, Link], Field(discriminator="kind")]

class CreateEntry(BaseModel):
    """Create a directory tree, a file or a link under a parent directory."""
    parent: str = Field(description="Existing directory to create it in.")
    entry: Entry
    dry_run: bool = False

for m in (Dir, File, Link, CreateEntry):
    m.model_rebuild()
print(json.dumps(CreateEntry.model_json_schema(), indent=2))
