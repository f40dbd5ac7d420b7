"""Subscriptions (Stripe Billing): customers, the rows mirrored from Stripe, paid invoices as orders, the
customer's cancel/resume and card update, and the billing webhooks.

The modules, by what they hold:
- `customers`: one Stripe Customer per user (`customer_id_for`) and the clock that bills them (`billing_now`);
  `demo_clock`: demo mode's test clock.
- `records`: the subscription row and one order per paid invoice (`record_paid_invoice`), access to the period end.
- `lifecycle`: Stripe's view mirrored (`mirror`), past due and its grace, the end of access, `cancel_subscription`,
  `resume_subscription`, `list_subscriptions`, and `end_subscription_now` (a refund ends one at once).
- `invoices`: the first payment from the checkout page and the `invoice.*` / `customer.subscription.*` events.
- `card`: the update-card page (`start_card_update`, `finish_card_update`).
- `payment_methods`: the Payment tab's saved cards (`list_cards`, `start_adding_card`, `make_default`,
  `remove_card`), read from and written to Stripe only.
- `trials`: free trials (`trial_days_for`, `record_trial`, `trial_will_end`); `trial_start`: checkout's
  completion call for one (`complete_trial`).
- `webhooks`: which events are billing's (`HANDLERS`) and `handle`.
The subscription checkout itself (pricing, routing, who may buy) is in `services/purchases/subscribe.py`.
"""

from marketplace.services.billing.card import CardUpdate, finish_card_update, start_card_update
from marketplace.services.billing.customers import billing_now
from marketplace.services.billing.lifecycle import (
    SubscriptionView,
    cancel_subscription,
    card_update_path,
    end_subscription_now,
    list_subscriptions,
    resume_subscription,
)
from marketplace.services.billing.trial_start import complete_guest_trial, complete_trial

__all__ = [
    "CardUpdate",
    "SubscriptionView",
    "billing_now",
    "cancel_subscription",
    "card_update_path",
    "complete_guest_trial",
    "complete_trial",
    "end_subscription_now",
    "finish_card_update",
    "list_subscriptions",
    "resume_subscription",
    "start_card_update",
]
