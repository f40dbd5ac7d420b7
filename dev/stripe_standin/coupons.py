"""Coupons and the discounts they make on subscriptions, as Stripe documents them (API 2026-10-28.endive).

- `POST /v1/coupons`: `percent_off` (0-100) or `amount_off` with `currency`; `duration` `once`, `repeating`
  (with `duration_in_months`) or `forever`; an `id` of one's choice (taken: 400 `resource_already_exists`).
- `POST /v1/subscriptions` with `discounts=[{"coupon": id}]`: the subscription gets a Discount (`di_...`,
  `source.coupon`, `start`, and `end` = start + `duration_in_months` for a repeating one, else null) and lists
  its id in `discounts`.
- Each invoice made while the discount lasts takes it off its discountable lines (not prorations): a percent
  half up per line, or the fixed amount (at most the subtotal); `total_discount_amounts` and each line's
  `discount_amounts` say how much, `amount_due` is the total after it. A `once` discount is spent by the first
  invoice it takes something off (after a trial: the first paid invoice, not the trial's $0 one) and removed;
  a `repeating` one applies to invoices made before its `end` and is removed at the first renewal after it; a
  `forever` one stays.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from dateutil.relativedelta import relativedelta
from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import context
from dev.stripe_standin.compat import InvalidRequest
from dev.stripe_standin.shapes import Resource, as_int, as_metadata, one_of, reject_unknown, required

CREATE_PARAMS = {"id", "percent_off", "amount_off", "currency", "duration", "duration_in_months", "metadata",
                 "name", "max_redemptions", "redeem_by", "expand"}


class Coupon(Resource):
    object = "coupon"
    _id_prefix = ""

    def __init__(self, *, coupon_id: str | None, params: dict[str, Any]) -> None:
        super().__init__(id=coupon_id or ls.random_id(8))
        self.created = context.now()
        self.percent_off: float | None = None
        self.amount_off: int | None = None
        self.currency: str | None = None
        self.duration = "once"
        self.duration_in_months: int | None = None
        self.metadata = as_metadata(params.get("metadata"))
        self.name = params.get("name") or None
        self.max_redemptions: int | None = None
        self.redeem_by: int | None = None
        self.times_redeemed = 0

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "coupon", "amount_off": self.amount_off, "created": self.created,
                "currency": self.currency, "duration": self.duration, "duration_in_months": self.duration_in_months,
                "livemode": False, "max_redemptions": self.max_redemptions, "metadata": dict(self.metadata),
                "name": self.name, "percent_off": self.percent_off, "redeem_by": self.redeem_by,
                "times_redeemed": self.times_redeemed, "valid": True}

    def _off(self, amount: int, left: int) -> int:
        """What this coupon takes off a line of `amount` when `left` of a fixed amount is still to take."""
        if amount <= 0:
            return 0
        if self.percent_off is not None:
            return min(amount, int((Decimal(amount) * Decimal(str(self.percent_off)) / 100)
                                   .quantize(Decimal(1), rounding=ROUND_HALF_UP)))
        return min(amount, left)


def create_coupon(params: dict[str, Any]) -> Coupon:
    reject_unknown(params, CREATE_PARAMS)
    coupon_id = params.get("id")
    if coupon_id is not None and (not isinstance(coupon_id, str) or not coupon_id):
        raise InvalidRequest("Invalid string", param="id")
    if coupon_id and ls.store.get(f"coupon:{coupon_id}") is not None:
        raise InvalidRequest("Coupon already exists.", code="resource_already_exists", param="id")
    percent, amount = params.get("percent_off"), params.get("amount_off")
    if (percent in (None, "")) == (amount in (None, "")):
        raise InvalidRequest("You must pass exactly one of percent_off or amount_off.", param="percent_off")
    duration = one_of(params.get("duration", "once"), ("once", "repeating", "forever"), param="duration")
    months = None
    if duration == "repeating":
        months = as_int(required(params, "duration_in_months"), param="duration_in_months", minimum=1)
    elif params.get("duration_in_months") not in (None, ""):
        raise InvalidRequest("duration_in_months can only be set for repeating coupons.",
                             param="duration_in_months")
    if percent not in (None, ""):
        value = ls.try_convert_to_float(percent)
        if type(value) is not float or not 0 < value <= 100:
            raise InvalidRequest("Invalid decimal: percent_off must be greater than 0 and at most 100.",
                                 param="percent_off")
    else:
        value_off = as_int(amount, param="amount_off", minimum=1)
        currency = str(required(params, "currency")).lower()
    coupon = Coupon(coupon_id=coupon_id, params=params)
    coupon.duration, coupon.duration_in_months = duration, months
    if percent not in (None, ""):
        coupon.percent_off = value
    else:
        coupon.amount_off, coupon.currency = value_off, currency
    if params.get("max_redemptions") not in (None, ""):
        coupon.max_redemptions = as_int(params["max_redemptions"], param="max_redemptions", minimum=1)
    return coupon


def retrieve_coupon(coupon_id: str) -> Coupon:
    coupon = ls.store.get(f"coupon:{coupon_id}") if isinstance(coupon_id, str) else None
    if not isinstance(coupon, Coupon):
        raise UserError(404, f"No such coupon: '{coupon_id}'", {"code": "resource_missing", "param": "id"})
    return coupon


class Discount(Resource):
    object = "discount"
    _id_prefix = "di_"

    def __init__(self, *, coupon: Coupon, customer: str, subscription: str, start: int) -> None:
        super().__init__()
        self.coupon = coupon.id
        self.customer = customer
        self.subscription = subscription
        self.start = start
        self.end: int | None = None
        if coupon.duration == "repeating" and coupon.duration_in_months:
            self.end = int((datetime.fromtimestamp(start, UTC) + relativedelta(months=coupon.duration_in_months))
                           .timestamp())
        coupon.times_redeemed += 1

    def _coupon(self) -> Coupon:
        return retrieve_coupon(self.coupon)

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "discount", "checkout_session": None, "customer": self.customer,
                "end": self.end, "invoice": None, "invoice_item": None, "promotion_code": None,
                "source": {"coupon": self.coupon, "type": "coupon"}, "start": self.start,
                "subscription": self.subscription, "subscription_item": None}

    def live_at(self, moment: int) -> bool:
        return self.end is None or moment < self.end


def discounts_param(value: Any, *, currency: str) -> list[Coupon]:
    """`discounts=[{"coupon": id}]` on a subscription: the coupons (one at most here; a fixed amount's currency
    must be the subscription's)."""
    if value in (None, "", []):
        return []
    if not isinstance(value, list) or not all(isinstance(entry, dict) for entry in value):
        raise InvalidRequest("Invalid array", param="discounts")
    if len(value) > 1:
        raise InvalidRequest("The local Stripe stand-in takes one discount per subscription.", param="discounts")
    entry = value[0]
    reject_unknown(entry, {"coupon", "discount", "promotion_code"})
    if entry.get("coupon") in (None, ""):
        raise InvalidRequest("The local Stripe stand-in takes discounts by `coupon`.", param="discounts[0]")
    coupon = retrieve_coupon(entry["coupon"])
    if coupon.currency is not None and coupon.currency != currency:
        raise InvalidRequest(f"The coupon's currency ({coupon.currency}) does not match the subscription's "
                             f"({currency}).", param="discounts[0][coupon]")
    return [coupon]


def apply(lines: list[dict[str, Any]], discount_ids: list[str], *, at: int) -> tuple[list[str], list[dict[str, Any]]]:
    """Take the live discounts off an invoice's discountable lines (changing their `discount_amounts`); the
    discounts applied and `total_discount_amounts`."""
    applied: list[str] = []
    totals: list[dict[str, Any]] = []
    for discount_id in discount_ids:
        discount = ls.store.get(f"discount:{discount_id}")
        if not isinstance(discount, Discount) or not discount.live_at(at):
            continue
        coupon = discount._coupon()
        left, taken = coupon.amount_off or 0, 0
        for line in lines:
            if not line.get("discountable"):
                continue
            off = coupon._off(line["amount"], left)
            if off:
                line["discount_amounts"] = [*line.get("discount_amounts", []),
                                            {"amount": off, "discount": discount.id}]
                line["discounts"] = [*line.get("discounts", []), discount.id]
                taken += off
                left -= off
        if taken:
            applied.append(discount.id)
            totals.append({"amount": taken, "discount": discount.id})
    return applied, totals
