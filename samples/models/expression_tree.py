# Generates samples/expression-tree-pydantic.json: python expression_tree.py > ../expression-tree-pydantic.json
# (pydantic 2.14.4; the file is its model_json_schema() output, unchanged).
from __future__ import annotations
import json
from typing import Annotated, Literal, Union
from pydantic import BaseModel, Field

class Num(BaseModel):
    """A numeric literal."""
    op: Literal["num"]
    value: float

class Add(BaseModel):
    """The sum of two sub-expressions."""
    op: Literal["add"]
    left: Expr
    right: Expr

class Neg(BaseModel):
    """The negation of a sub-expression."""
    op: Literal["neg"]
    arg: Expr

class Call(BaseModel):
    """A call of a named function on a list of arguments."""
    op: Literal["call"]
    fn: str = Field(description="Function name, e.g. `max`.")
    args: list[Expr]

Expr = Annotated[Union[Num, Add, Neg, Call], Field(discriminator="op")]

class Evaluate(BaseModel):
    """Evaluate an arithmetic expression."""
    expr: Expr
    precision: int = Field(default=6, ge=0, le=15)

for m in (Num, Add, Neg, Call, Evaluate):
    m.model_rebuild()
print(json.dumps(Evaluate.model_json_schema(), indent=2))
