"""Answer shapes shared by the stand-in's own objects: `expand`, includable fields, lists, parameter checks.

localstripe expands only ids it finds directly on an object. Stripe also expands through nested objects
(`parent.subscription_details.subscription`), through lists (`data.payment.payment_intent`,
`items.data.price.product`), and has *includable* fields that are absent unless expanded
(`invoice.confirmation_secret`, `invoice.payments`). A field that cannot be expanded is refused with
Stripe's message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from localstripe import resources as ls

from dev.stripe_standin.compat import InvalidRequest

# id prefix -> store key prefix (localstripe's object names, plus ours)
PREFIXES: dict[str, str] = {
    "cus_": "customer", "pi_": "payment_intent", "ch_": "charge", "pm_": "payment_method", "in_": "invoice",
    "sub_": "subscription", "si_": "subscription_item", "price_": "price", "prod_": "product",
    "clock_": "test_helpers.test_clock", "seti_": "setup_intent", "re_": "refund", "du_": "dispute",
    "acct_": "account", "tr_": "transfer", "fee_": "application_fee", "inpay_": "invoice_payment",
    "ii_": "invoiceitem", "txn_": "balance_transaction", "po_": "payout", "card_": "card", "src_": "source",
    "il_": "line_item", "fr_": "fee_refund", "trr_": "transfer_reversal",
    "di_": "discount",
}


def lookup(object_id: str) -> Any:
    for prefix, kind in PREFIXES.items():
        if object_id.startswith(prefix):
            return ls.store.get(f"{kind}:{object_id}")
    return None


def expand_tree(expand: Any) -> dict[str, list[str]]:
    """["a.b", "a.c", "d"] -> {"a": ["b", "c"], "d": []}; refuses Stripe's limits (strings, 4 levels)."""
    if expand is None:
        return {}
    if isinstance(expand, str):
        expand = [expand]
    if not isinstance(expand, list) or not all(isinstance(e, str) for e in expand):
        raise InvalidRequest("Invalid array", param="expand")
    tree: dict[str, list[str]] = {}
    for path in expand:
        if len(path.split(".")) > 4:
            raise InvalidRequest("You cannot expand more than 4 levels of a property.", param="expand")
        head, _, rest = path.partition(".")
        tree.setdefault(head, [])
        if rest:
            tree[head].append(rest)
    return tree


def _not_expandable(path: str) -> InvalidRequest:
    return InvalidRequest(f"This property cannot be expanded ({path}).", param="expand")


def expand_value(value: Any, rest: list[str], path: str) -> Any:
    """Expand one field's value: an id becomes its object, a list's `data`, a nested object's fields."""
    if isinstance(value, str):
        obj = lookup(value)
        if obj is None:
            raise _not_expandable(path)
        return obj._export(expand=rest or None)
    if isinstance(value, dict) and value.get("object") == "list":
        return expand_dict(value, rest, path)
    if isinstance(value, dict):
        return expand_dict(value, rest, path)
    if isinstance(value, list):
        return [expand_value(item, rest, path) for item in value]
    if value is None:
        return None
    raise _not_expandable(path)


def expand_dict(data: dict[str, Any], expand: list[str], path: str = "") -> dict[str, Any]:
    for key, rest in expand_tree(expand).items():
        where = f"{path}.{key}" if path else key
        if key not in data:
            raise _not_expandable(where)
        data[key] = expand_value(data[key], rest, where)
    return data


class Resource(ls.StripeObject):
    """A stand-in object whose answer is exactly `_fields()` (plus includable fields when expanded)."""

    _includable: tuple[str, ...] = ()

    def _fields(self) -> dict[str, Any]:
        raise NotImplementedError

    def _include(self, name: str) -> Any:
        raise NotImplementedError

    def _export(self, expand: Any = None) -> dict[str, Any]:
        data = self._fields()
        tree = expand_tree(expand)
        for key, rest in tree.items():
            if key in self._includable:
                data[key] = self._include(key)
                if rest:
                    data[key] = expand_value(data[key], rest, key)
            elif key not in data:
                raise _not_expandable(key)
            else:
                data[key] = expand_value(data[key], rest, key)
        return data


def page(items: Iterable[Any], *, url: str, limit: Any = None, starting_after: Any = None,
         ending_before: Any = None, expand: Any = None) -> dict[str, Any]:
    """A Stripe list answer of already-ordered objects (newest first, as Stripe lists), with cursors."""
    limit = ls.try_convert_to_int(10 if limit is None else limit)
    if type(limit) is not int or not 1 <= limit <= 100:
        raise InvalidRequest("Invalid integer: limit must be between 1 and 100", code="parameter_invalid_integer",
                             param="limit")
    rows = list(items)
    ids = [row.id for row in rows]
    if starting_after:
        rows = rows[ids.index(starting_after) + 1:] if starting_after in ids else []
        chosen, more = rows[:limit], len(rows) > limit
    elif ending_before:
        rows = rows[:ids.index(ending_before)] if ending_before in ids else []
        chosen, more = rows[-limit:], len(rows) > limit
    else:
        chosen, more = rows[:limit], len(rows) > limit
    item_expand = [e.removeprefix("data.") for e in expand_tree_paths(expand) if e.startswith("data.")]
    return {"object": "list", "url": url, "has_more": more,
            "data": [row._export(expand=item_expand or None) for row in chosen]}


def expand_tree_paths(expand: Any) -> list[str]:
    if expand is None:
        return []
    return [expand] if isinstance(expand, str) else list(expand)


def reject_unknown(params: dict[str, Any], allowed: Iterable[str]) -> None:
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise InvalidRequest(f"Received unknown parameter: {unknown[0]}", code="parameter_unknown", param=unknown[0])


def required(params: dict[str, Any], name: str) -> Any:
    value = params.get(name)
    if value is None or value == "":
        raise InvalidRequest(f"Missing required param: {name}.", code="parameter_missing", param=name)
    return value


def as_int(value: Any, *, param: str, minimum: int | None = None) -> int:
    converted = ls.try_convert_to_int(value)
    if type(converted) is not int or (minimum is not None and converted < minimum):
        raise InvalidRequest(f"Invalid integer: {value}", code="parameter_invalid_integer", param=param)
    return converted


def as_bool(value: Any, *, param: str) -> bool:
    converted = ls.try_convert_to_bool(value)
    if type(converted) is not bool:
        raise InvalidRequest(f"Invalid boolean: {value}", param=param)
    return converted


def as_metadata(value: Any, *, param: str = "metadata") -> dict[str, str]:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise InvalidRequest("Invalid object", param=param)
    return {str(k): str(v) for k, v in value.items()}


def merge_metadata(current: dict[str, str], update: Any) -> dict[str, str]:
    """Stripe's metadata update: keys set to "" are removed, others added or replaced."""
    if update == "":
        return {}
    merged = dict(current)
    for key, value in as_metadata(update).items():
        if value == "":
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def one_of(value: Any, choices: Iterable[str], *, param: str) -> str:
    choices = list(choices)
    if value not in choices:
        raise InvalidRequest(f"Invalid {param}: must be one of {', '.join(choices)}", param=param)
    return value
