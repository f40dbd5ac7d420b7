"""Products and Prices with today's Stripe shapes (localstripe only knows the 2018 Plan/Product pair).

Prices: `unit_amount` (or `unit_amount_decimal`), `currency`, `product` or `product_data`, `recurring`
(`interval` day|week|month|year, `interval_count`), `lookup_key` unique across prices (another price's key is
refused unless `transfer_lookup_key=true`, which moves it and sends `price.updated` for the old one),
`nickname`, `metadata`, `active`, `tax_behavior`. Lists filter by `lookup_keys[]`, `product`, `currency`,
`type`, `active`, `recurring[interval]`, newest first. Prices cannot be deleted (Stripe archives them).
"""

from __future__ import annotations

import time
from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import context
from dev.stripe_standin.compat import InvalidRequest
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.shapes import (
    Resource,
    as_bool,
    as_int,
    as_metadata,
    merge_metadata,
    one_of,
    page,
    reject_unknown,
    required,
)

INTERVALS = ("day", "week", "month", "year")


def _newest_first(rows: list[Any]) -> list[Any]:
    return sorted(rows, key=lambda r: (r.created, getattr(r, "_seq", 0)), reverse=True)


class Product(Resource):
    object = "product"
    _id_prefix = "prod_"
    CREATE = {"id", "name", "active", "description", "metadata", "images", "url", "statement_descriptor",
              "tax_code", "unit_label", "shippable", "type", "default_price_data", "marketing_features", "expand"}
    UPDATE = {"name", "active", "description", "metadata", "images", "url", "statement_descriptor", "tax_code",
              "unit_label", "shippable", "default_price", "marketing_features", "expand"}

    def __init__(self, **params: Any) -> None:
        reject_unknown(params, self.CREATE - {"expand", "default_price_data"})
        name = required(params, "name")
        if not isinstance(name, str):
            raise InvalidRequest("Invalid string", param="name")
        object_id = params.get("id")
        if object_id is not None and ls.store.get(f"product:{object_id}") is not None:
            raise InvalidRequest("Product already exists.", code="resource_already_exists", param="id")
        super().__init__(object_id)
        self._seq = time.perf_counter_ns()
        self.name = name
        self.active = as_bool(params.get("active", True), param="active")
        self.description = params.get("description")
        self.metadata = as_metadata(params.get("metadata"))
        self.images = list(params.get("images") or [])
        self.url = params.get("url")
        self.statement_descriptor = params.get("statement_descriptor")
        self.tax_code = params.get("tax_code")
        self.unit_label = params.get("unit_label")
        self.shippable = None if params.get("shippable") is None else as_bool(params["shippable"], param="shippable")
        self.type = params.get("type") or "service"
        self.marketing_features = list(params.get("marketing_features") or [])
        self.default_price = None
        self.updated = self.created

    @classmethod
    def _api_create(cls, **params: Any) -> Product:
        default_price_data = params.pop("default_price_data", None)
        product = cls(**params)
        emit("product.created", product)
        if default_price_data is not None:
            if not isinstance(default_price_data, dict):
                raise InvalidRequest("Invalid object", param="default_price_data")
            price = Price._api_create(**default_price_data, product=product.id)
            product.default_price = price.id
        return product

    @classmethod
    def _api_update(cls, id: str, **params: Any) -> Product:
        reject_unknown(params, cls.UPDATE)
        product = cls._api_retrieve(id)
        before = product._fields()
        if "metadata" in params:
            product.metadata = merge_metadata(product.metadata, params.pop("metadata"))
        if "active" in params:
            product.active = as_bool(params.pop("active"), param="active")
        if "default_price" in params:
            price = Price._api_retrieve(params.pop("default_price"))
            if price.product != product.id:
                raise InvalidRequest("The default price must belong to this product.", param="default_price")
            product.default_price = price.id
        for key, value in params.items():
            setattr(product, key, value)
        product.updated = context.now()
        after = product._fields()
        emit("product.updated", product, previous={k: v for k, v in before.items() if after.get(k) != v})
        return product

    @classmethod
    def _api_delete(cls, id: str) -> Any:
        product = cls._api_retrieve(id)
        if any(p.product == id for p in ls.store.of("price")):
            raise InvalidRequest("This product cannot be deleted because it has one or more user-created prices.")
        del ls.store[f"product:{id}"]
        emit("product.deleted", product)
        return ls.DeletedObject(id, "product")

    @classmethod
    def _api_list_all(cls, url: str, **params: Any) -> dict[str, Any]:  # type: ignore[override]
        reject_unknown(params, {"active", "ids", "limit", "starting_after", "ending_before", "expand"})
        rows = [p for p in ls.store.of("product") if isinstance(p, Product)]
        if params.get("active") is not None:
            active = as_bool(params["active"], param="active")
            rows = [p for p in rows if p.active == active]
        if params.get("ids") is not None:
            rows = [p for p in rows if p.id in set(params["ids"])]
        return page(_newest_first(rows), url=url, limit=params.get("limit"),
                    starting_after=params.get("starting_after"), ending_before=params.get("ending_before"),
                    expand=params.get("expand"))

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "product", "active": self.active, "created": self.created,
                "default_price": self.default_price, "description": self.description, "images": self.images,
                "livemode": False, "marketing_features": self.marketing_features, "metadata": dict(self.metadata),
                "name": self.name, "package_dimensions": None, "shippable": self.shippable,
                "statement_descriptor": self.statement_descriptor, "tax_code": self.tax_code, "type": self.type,
                "unit_label": self.unit_label, "updated": self.updated, "url": self.url}


def upgrade_loaded(product: Any) -> None:
    """A product pickled by an older stand-in (plain localstripe) gains today's fields (state files survive)."""
    if isinstance(product, Product):
        return
    product.__class__ = Product
    product._seq = 0
    for name, value in {"default_price": None, "images": [], "marketing_features": [], "tax_code": None,
                        "unit_label": None, "updated": product.created}.items():
        if name not in vars(product):
            setattr(product, name, value)
    product.metadata = product.metadata or {}


def _product_named(product_id: Any, *, param: str = "product") -> Product:
    if not isinstance(product_id, str) or ls.store.get(f"product:{product_id}") is None:
        raise UserError(404, f"No such product: '{product_id}'", {"code": "resource_missing", "param": param})
    return ls.store.get(f"product:{product_id}")


def _recurring(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidRequest("Invalid object", param="recurring")
    interval = one_of(value.get("interval"), INTERVALS, param="recurring[interval]")
    count = as_int(value.get("interval_count", 1), param="recurring[interval_count]", minimum=1)
    limit = {"day": 365, "week": 52, "month": 12, "year": 1}[interval]
    if count > limit:
        raise InvalidRequest("The maximum billing interval is one year (1 year, 12 months, or 52 weeks).",
                             param="recurring[interval_count]")
    usage = one_of(value.get("usage_type", "licensed"), ("licensed",), param="recurring[usage_type]")
    return {"interval": interval, "interval_count": count, "meter": None, "trial_period_days": None,
            "usage_type": usage}


class Price(Resource):
    object = "price"
    _id_prefix = "price_"
    CREATE = {"currency", "unit_amount", "unit_amount_decimal", "product", "product_data", "recurring",
              "lookup_key", "transfer_lookup_key", "nickname", "metadata", "active", "tax_behavior",
              "billing_scheme", "expand"}
    UPDATE = {"active", "lookup_key", "transfer_lookup_key", "metadata", "nickname", "tax_behavior", "expand"}

    def __init__(self, **params: Any) -> None:
        reject_unknown(params, self.CREATE - {"expand"})
        currency = required(params, "currency")
        if not isinstance(currency, str) or len(currency) != 3:
            raise InvalidRequest(f"Invalid currency: {currency}", param="currency")
        if params.get("unit_amount") is not None:
            amount = as_int(params["unit_amount"], param="unit_amount", minimum=0)
        elif params.get("unit_amount_decimal") is not None:
            decimal = ls.try_convert_to_float(params["unit_amount_decimal"])
            if type(decimal) is not float or decimal < 0 or decimal != int(decimal):
                raise InvalidRequest("The stand-in supports whole-cent unit_amount_decimal only.",
                                     param="unit_amount_decimal")
            amount = int(decimal)
        else:
            raise InvalidRequest("Missing required param: unit_amount.", code="parameter_missing",
                                 param="unit_amount")
        one_of(params.get("billing_scheme", "per_unit"), ("per_unit",), param="billing_scheme")
        if (params.get("product") is None) == (params.get("product_data") is None):
            raise InvalidRequest("You must specify either `product` or `product_data` when creating a price.",
                                 param="product")
        recurring = _recurring(params.get("recurring"))
        lookup_key = params.get("lookup_key")
        if lookup_key is not None and (not isinstance(lookup_key, str) or not 0 < len(lookup_key) <= 200):
            raise InvalidRequest("Invalid lookup_key", param="lookup_key")
        transfer = as_bool(params.get("transfer_lookup_key", False), param="transfer_lookup_key")
        holder = _price_with_key(lookup_key) if lookup_key else None
        if holder is not None and not transfer:
            raise InvalidRequest(f"A price ({holder.id}) already uses that lookup key.", param="lookup_key")
        tax_behavior = one_of(params.get("tax_behavior", "unspecified"), ("inclusive", "exclusive", "unspecified"),
                              param="tax_behavior")
        if params.get("product") is not None:
            product_id = _product_named(params["product"]).id
        else:
            data = params["product_data"]
            if not isinstance(data, dict):
                raise InvalidRequest("Invalid object", param="product_data")
            reject_unknown(data, {"name", "active", "metadata", "statement_descriptor", "tax_code", "unit_label",
                                  "id"})
            product_id = Product._api_create(**data).id
        super().__init__()
        self._seq = time.perf_counter_ns()
        self.product = product_id
        self.currency = currency.lower()
        self.unit_amount = amount
        self.recurring = recurring
        self.type = "recurring" if recurring else "one_time"
        self.lookup_key = lookup_key
        self.nickname = params.get("nickname")
        self.metadata = as_metadata(params.get("metadata"))
        self.active = as_bool(params.get("active", True), param="active")
        self.tax_behavior = tax_behavior
        if holder is not None:
            _take_key(holder)

    @classmethod
    def _api_create(cls, **params: Any) -> Price:
        price = cls(**params)
        emit("price.created", price)
        return price

    @classmethod
    def _api_retrieve(cls, id: str) -> Price:
        price = ls.store.get(f"price:{id}") if isinstance(id, str) else None
        if price is None:
            raise UserError(404, f"No such price: '{id}'", {"code": "resource_missing", "param": "price"})
        return price

    @classmethod
    def _api_update(cls, id: str, **params: Any) -> Price:
        reject_unknown(params, cls.UPDATE)
        params.pop("expand", None)
        price = cls._api_retrieve(id)
        before = price._fields()
        if "lookup_key" in params:
            key = params["lookup_key"] or None
            holder = _price_with_key(key) if key else None
            if holder is not None and holder is not price:
                if not as_bool(params.get("transfer_lookup_key", False), param="transfer_lookup_key"):
                    raise InvalidRequest(f"A price ({holder.id}) already uses that lookup key.", param="lookup_key")
                _take_key(holder)
            price.lookup_key = key
        if "active" in params:
            price.active = as_bool(params["active"], param="active")
        if "metadata" in params:
            price.metadata = merge_metadata(price.metadata, params["metadata"])
        if "nickname" in params:
            price.nickname = params["nickname"] or None
        if "tax_behavior" in params:
            price.tax_behavior = one_of(params["tax_behavior"], ("inclusive", "exclusive", "unspecified"),
                                        param="tax_behavior")
        after = price._fields()
        emit("price.updated", price, previous={k: v for k, v in before.items() if after.get(k) != v})
        return price

    @classmethod
    def _api_delete(cls, id: str) -> Any:
        raise UserError(400, "Prices cannot be deleted; set `active=false` to archive one.")

    @classmethod
    def _api_list_all(cls, url: str, **params: Any) -> dict[str, Any]:  # type: ignore[override]
        reject_unknown(params, {"active", "currency", "product", "type", "lookup_keys", "recurring", "limit",
                                "starting_after", "ending_before", "expand", "created"})
        rows = [p for p in ls.store.of("price") if isinstance(p, Price)]
        if params.get("active") is not None:
            active = as_bool(params["active"], param="active")
            rows = [p for p in rows if p.active == active]
        for name in ("currency", "product", "type"):
            if params.get(name) is not None:
                rows = [p for p in rows if getattr(p, name) == str(params[name]).lower()
                        or getattr(p, name) == params[name]]
        if params.get("lookup_keys") is not None:
            keys = params["lookup_keys"]
            keys = [keys] if isinstance(keys, str) else list(keys)
            if len(keys) > 10:
                raise InvalidRequest("You can pass at most 10 lookup keys.", param="lookup_keys")
            rows = [p for p in rows if p.lookup_key in keys]
        recurring = params.get("recurring")
        if isinstance(recurring, dict) and recurring.get("interval"):
            rows = [p for p in rows if p.recurring and p.recurring["interval"] == recurring["interval"]]
        return page(_newest_first(rows), url=url, limit=params.get("limit"),
                    starting_after=params.get("starting_after"), ending_before=params.get("ending_before"),
                    expand=params.get("expand"))

    def _amount_decimal(self) -> str:
        return str(self.unit_amount)

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "price", "active": self.active, "billing_scheme": "per_unit",
                "created": self.created, "currency": self.currency, "custom_unit_amount": None, "livemode": False,
                "lookup_key": self.lookup_key, "metadata": dict(self.metadata), "nickname": self.nickname,
                "product": self.product, "recurring": dict(self.recurring) if self.recurring else None,
                "tax_behavior": self.tax_behavior, "tiers_mode": None, "transform_quantity": None,
                "type": self.type, "unit_amount": self.unit_amount, "unit_amount_decimal": self._amount_decimal()}

    def _plan(self) -> dict[str, Any]:
        """The legacy `plan` object Stripe still puts beside `price` on subscription items."""
        recurring = self.recurring or {"interval": None, "interval_count": None, "usage_type": "licensed"}
        return {"id": self.id, "object": "plan", "active": self.active, "amount": self.unit_amount,
                "amount_decimal": self._amount_decimal(), "billing_scheme": "per_unit", "created": self.created,
                "currency": self.currency, "interval": recurring["interval"],
                "interval_count": recurring["interval_count"], "livemode": False, "metadata": dict(self.metadata),
                "meter": None, "nickname": self.nickname, "product": self.product, "tiers_mode": None,
                "transform_usage": None, "trial_period_days": None, "usage_type": recurring["usage_type"]}


def _price_with_key(key: str) -> Price | None:
    return next((p for p in ls.store.of("price") if isinstance(p, Price) and p.lookup_key == key), None)


def _take_key(holder: Price) -> None:
    before = holder._fields()
    holder.lookup_key = None
    emit("price.updated", holder, previous={"lookup_key": before["lookup_key"]})
