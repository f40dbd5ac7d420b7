"""The one rule that gives a key its status, read from the purchase by the access rule downloads use.

- `disabled`: the agent's vendor or an admin disabled the key (or a dispute suspended the purchase);
- `active`: the purchase gives access now (`services.access.active`: a licence for good, a subscription until
  the end of its paid period and grace);
- `refunded`: no access, and the order that bought it (or an order of its subscription) was refunded;
- `expired`: no access otherwise (a subscription that ended).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, case, exists, or_
from sqlalchemy.sql.elements import ColumnElement

from marketplace.models import LicenseKey, LicenseStatus, Order, OrderStatus, Purchase
from marketplace.models.base import utcnow
from marketplace.services import access


def status_of(now: datetime | ColumnElement[datetime] | None = None) -> ColumnElement[str]:
    """SQL for the status of the `license_keys` row joined with its `purchases` row, at `now` (a moment, or a
    bound parameter for a statement built once: `services.licenses.public.KEY_READ`)."""
    moment = utcnow() if now is None else now
    refunded = or_(
        exists().where(Order.id == Purchase.order_id, Order.status == OrderStatus.REFUNDED).correlate(Purchase),
        and_(Purchase.subscription_id.is_not(None),
             exists().where(Order.subscription_id == Purchase.subscription_id,
                            Order.status == OrderStatus.REFUNDED).correlate(Purchase)),
    )
    return case(
        (LicenseKey.disabled_at.is_not(None), LicenseStatus.DISABLED.value),
        (access.active(moment), LicenseStatus.ACTIVE.value),
        (Purchase.suspended_at.is_not(None), LicenseStatus.DISABLED.value),
        (refunded, LicenseStatus.REFUNDED.value),
        else_=LicenseStatus.EXPIRED.value,
    )
