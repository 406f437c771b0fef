# Generates samples/json-value-pydantic.json: python json_value.py > ../json-value-pydantic.json
# (pydantic 2.14.4; the file is its model_json_schema() output, unchanged).
import json
from typing import Union
from typing_extensions import TypeAliasType
from pydantic import BaseModel, Field, JsonValue

# The recursive alias the Pydantic documentation shows for arbitrary JSON ("Named type
# aliases"): string, number, boolean, null, array of itself, map of itself.
Json = TypeAliasType(
    "Json",
    Union[str, int, float, bool, None, list["Json"], dict[str, "Json"]],
)

class SetConfig(BaseModel):
    """Store a JSON value under a configuration key."""
    key: str = Field(description="Dotted configuration key, e.g. `ui.theme`.")
    value: Json = Field(description="The value to store: any JSON.")
    labels: dict[str, JsonValue] = Field(default_factory=dict, description="Free-form labels (Pydantic's own JsonValue).")

print(json.dumps(SetConfig.model_json_schema(), indent=2))
