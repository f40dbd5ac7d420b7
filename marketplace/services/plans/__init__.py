"""Vendor plans (issue 20): Free, Pro and Enterprise as data, each vendor's plan, its limit, fee and billing.

The modules, by what they hold:
- `catalog`: the plans on offer (`list_plans`, `get_plan`, `ensure_plans` at start), a vendor's plan and fee
  now (`vendor_plan_in`, `fee_for_vendor`), and the admin's edit (`update_plan`; the Free plan's fee is the
  commission rate setting).
- `current`: a vendor's plan as pages and `GET /api/vendor/plan` show it (`current_plan`), and each vendor's
  plan for admin tables (`plans_of`).
- `limits`: the agent limit at submission (`lock_submissions`, `check_room`, `room_refusal`, `limit_message`).
- `changes`: the vendor's requests (`choose_plan`, `cancel_plan`, `refresh_plan` after paying).
- `subscriptions`: a plan's Stripe subscription mirrored onto the vendor's row, and its paid invoices.
- `webhooks`: which billing events are a plan's (`is_plan_event`) and `handle`; `fees`: customers'
  subscriptions follow their vendor's plan fee from the next invoice on (`invoice.created`).
- `revenue`: the platform's plan revenue, per plan (the admin's Sales & Commissions).
- `mails`: the words of the plan mails.
"""

from marketplace.services.plans.catalog import (
    PlanView,
    ensure_plans,
    fee_for_vendor,
    get_plan,
    list_plans,
    update_plan,
)
from marketplace.services.plans.changes import PlanChange, cancel_plan, choose_plan, refresh_plan
from marketplace.services.plans.current import CurrentPlan, current_plan, plans_of
from marketplace.services.plans.limits import limit_message, room_refusal

__all__ = [
    "CurrentPlan",
    "PlanChange",
    "PlanView",
    "cancel_plan",
    "choose_plan",
    "current_plan",
    "ensure_plans",
    "fee_for_vendor",
    "get_plan",
    "limit_message",
    "list_plans",
    "plans_of",
    "refresh_plan",
    "room_refusal",
    "update_plan",
]
