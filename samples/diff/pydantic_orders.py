"""Two versions of a Pydantic model set, written as an MCP tools/list result each.

    python3 pydantic_orders.py   # writes orders-v1.json and orders-v2.json beside this file

The models use what Pydantic users write by default: open models, `Optional[...]` (`anyOf`
with `null`), `Literal` tags in a discriminated union, enums, `Field` bounds, nested models
behind `$ref`. Version 2 is a realistic release: some fields tightened, some loosened, a model
renamed without changing it, a payment method added and one dropped.
"""
import enum
import json
import pathlib
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

HERE = pathlib.Path(__file__).parent


def v1():
    class Status(str, enum.Enum):
        open = "open"
        paid = "paid"
        shipped = "shipped"
        cancelled = "cancelled"

    class Address(BaseModel):
        street: str
        city: str
        postcode: str = Field(max_length=12)
        country: str = Field(min_length=2, max_length=2, description="ISO country code")

    class Card(BaseModel):
        method: Literal["card"]
        number: str = Field(pattern=r"^[0-9]{12,19}$")
        holder: Optional[str] = None

    class Invoice(BaseModel):
        method: Literal["invoice"]
        days: int = Field(default=30, ge=7, le=60)

    class Voucher(BaseModel):
        method: Literal["voucher"]
        code: str

    class Line(BaseModel):
        sku: str
        quantity: int = Field(ge=1, le=100)
        note: Optional[str] = None

    class CreateOrder(BaseModel):
        """Create an order."""

        customer: str
        lines: list[Line] = Field(min_length=1)
        ship_to: Address
        payment: Annotated[Union[Card, Invoice, Voucher], Field(discriminator="method")]
        coupon: Optional[str] = None
        priority: int = 0

    class ListOrders(BaseModel):
        """List orders."""

        status: Optional[Status] = None
        limit: int = Field(default=20, ge=1, le=200)

    return [("create_order", CreateOrder), ("list_orders", ListOrders)]


def v2():
    class Status(str, enum.Enum):
        open = "open"
        paid = "paid"
        shipped = "shipped"

    class PostalAddress(BaseModel):
        street: str
        city: str
        postcode: str = Field(max_length=10)
        country: str = Field(min_length=2, max_length=2, description="ISO 3166-1 alpha-2 country code")

    class Card(BaseModel):
        method: Literal["card"]
        number: str = Field(pattern=r"^[0-9]{12,19}$")
        holder: Optional[str] = None

    class Invoice(BaseModel):
        method: Literal["invoice"]
        days: int = Field(default=30, ge=7, le=90)

    class Wallet(BaseModel):
        method: Literal["wallet"]
        provider: Literal["apple", "google"]

    class Line(BaseModel):
        model_config = ConfigDict(extra="forbid")

        sku: str
        quantity: int = Field(ge=1, le=50)
        note: Optional[str] = None

    class CreateOrder(BaseModel):
        """Create an order."""

        customer: str
        lines: list[Line] = Field(min_length=1)
        ship_to: PostalAddress
        payment: Annotated[Union[Card, Invoice, Wallet], Field(discriminator="method")]
        coupon: Optional[str] = None
        priority: float = 0
        gift_message: Optional[str] = Field(default=None, max_length=200)

    class ListOrders(BaseModel):
        """List orders."""

        status: Optional[Status] = None
        limit: int = Field(default=20, ge=1, le=200)
        customer: Optional[str] = None

    return [("create_order", CreateOrder), ("list_orders", ListOrders)]


def manifest(models):
    return {
        "tools": [
            {"name": name, "description": (model.__doc__ or "").strip(), "inputSchema": model.model_json_schema()}
            for name, model in models
        ]
    }


if __name__ == "__main__":
    import pydantic

    for version, models in [("v1", v1()), ("v2", v2())]:
        path = HERE / f"orders-{version}.json"
        path.write_text(json.dumps(manifest(models), indent=2) + "\n")
        print(f"{path.name}: pydantic {pydantic.VERSION}")
