"""Promotion codes: vendors and admins make them (`codes`), checkout applies them and holds one redemption per
buyer, completion redeems it and an abandoned checkout releases it (`redemptions`)."""

from marketplace.services.promotions.codes import (
    CodeView,
    create_code,
    deactivate_code,
    list_codes,
)
from marketplace.services.promotions.forms import (
    AMOUNT,
    PERCENT,
    CodeForm,
    checkout_months,
    create_from_form,
    describe,
    months_label,
    pickable_agents,
)
from marketplace.services.promotions.redemptions import (
    EXPIRED,
    FIRST_PURCHASE_ONLY,
    NOT_VALID,
    USED_BY_YOU,
    USED_UP,
    Applied,
    apply_code,
    holding,
    redeem,
    redeem_for_subscription,
    release_expired_holds,
    release_for_intent,
)

__all__ = [
    "AMOUNT",
    "EXPIRED",
    "FIRST_PURCHASE_ONLY",
    "NOT_VALID",
    "PERCENT",
    "USED_BY_YOU",
    "USED_UP",
    "Applied",
    "CodeForm",
    "CodeView",
    "apply_code",
    "checkout_months",
    "create_code",
    "create_from_form",
    "deactivate_code",
    "describe",
    "holding",
    "list_codes",
    "months_label",
    "pickable_agents",
    "redeem",
    "redeem_for_subscription",
    "release_expired_holds",
    "release_for_intent",
]
