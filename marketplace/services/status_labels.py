"""One set of words for the statuses people read (order history, My Agents, mails): 'Completed', 'Cancelled',
'Past due'. Stripe's and the database's values ('canceled', 'past_due') are codes, never shown as they are."""

from __future__ import annotations

from marketplace.models import OrderStatus, SubscriptionStatus

ORDER_LABELS: dict[str, str] = {OrderStatus.PROCESSING: "Processing", OrderStatus.COMPLETED: "Completed",
                OrderStatus.FAILED: "Failed", OrderStatus.REFUNDED: "Refunded"}
SUBSCRIPTION_LABELS: dict[str, str] = {
    SubscriptionStatus.INCOMPLETE: "Incomplete", SubscriptionStatus.INCOMPLETE_EXPIRED: "Expired",
    SubscriptionStatus.TRIALING: "Trial", SubscriptionStatus.ACTIVE: "Active", SubscriptionStatus.PAST_DUE: "Past due",
    SubscriptionStatus.UNPAID: "Unpaid", SubscriptionStatus.CANCELED: "Cancelled", SubscriptionStatus.PAUSED: "Paused",
}


def order_label(status: str) -> str:
    return ORDER_LABELS.get(status, status.replace("_", " ").capitalize())


def subscription_label(status: str) -> str:
    return SUBSCRIPTION_LABELS.get(status, status.replace("_", " ").capitalize())
