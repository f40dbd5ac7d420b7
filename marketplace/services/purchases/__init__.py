"""Buying agents: checkout, the one idempotent completion path, Stripe webhooks, and purchase history.

The modules, by what they hold (each imports the others directly; callers use the names below):
- `checkout`: the checkout page's agent and PaymentIntents opened at the terms priced on the server
  (`services/checkout_terms`, which completion and billing read back).
- `subscribe`: a monthly agent's checkout, a Stripe subscription on the buyer's Customer (`services/billing`
  records its invoices and follows it afterwards).
- `completion`: `complete_payment` (browser and webhook alike; a subscription invoice's payment goes to
  `services/billing`), refunds of payments that grant nothing,
  free claims, and who may buy (checkout and completion share it).
- `webhooks`: `handle_webhook`, each event applied once.
- `history`: purchases, orders, the payment history and the spending summary of a customer, and the order a
  success page may show.
"""

from marketplace.services.checkout_terms import CHARGES_DISABLED, NO_ACCOUNT, NO_VENDOR
from marketplace.services.purchases.checkout import (
    GUEST_FREE_CODE,
    MIN_CHARGE_CENTS,
    OFFERED_METHODS,
    CheckoutAgent,
    CheckoutIntent,
    browser_config,
    checkout_agent,
    create_payment_intent,
    quote,
)
from marketplace.services.purchases.completion import (
    COMPLETION_ATTEMPTS,
    DUPLICATE_REFUNDED,
    FOREIGN_PAYMENT,
    FREE_REASON,
    INTENT_ID_RE,
    MISMATCH,
    NOT_SUCCEEDED,
    PRICE_CHANGED,
    Completion,
    PriceChanged,
    claim_free_agent,
    complete_guest_payment,
    complete_payment,
)
from marketplace.services.purchases.history import (
    NO_RECENT_PURCHASE,
    SUCCESS_PAGE_WINDOW,
    PaymentEntry,
    PurchaseRecord,
    PurchaseSummary,
    SpendingSummary,
    list_orders,
    list_purchases,
    payment_history,
    recent_purchase,
    recent_purchase_summary,
    spending_summary,
)
from marketplace.services.purchases.webhooks import HANDLED, WebhookOutcome, handle_webhook

__all__ = [
    "CHARGES_DISABLED",
    "COMPLETION_ATTEMPTS",
    "DUPLICATE_REFUNDED",
    "FOREIGN_PAYMENT",
    "FREE_REASON",
    "GUEST_FREE_CODE",
    "HANDLED",
    "INTENT_ID_RE",
    "MIN_CHARGE_CENTS",
    "MISMATCH",
    "NOT_SUCCEEDED",
    "NO_ACCOUNT",
    "NO_RECENT_PURCHASE",
    "NO_VENDOR",
    "OFFERED_METHODS",
    "PRICE_CHANGED",
    "SUCCESS_PAGE_WINDOW",
    "CheckoutAgent",
    "CheckoutIntent",
    "Completion",
    "PaymentEntry",
    "PriceChanged",
    "PurchaseRecord",
    "PurchaseSummary",
    "SpendingSummary",
    "WebhookOutcome",
    "browser_config",
    "checkout_agent",
    "claim_free_agent",
    "complete_guest_payment",
    "complete_payment",
    "create_payment_intent",
    "handle_webhook",
    "list_orders",
    "list_purchases",
    "payment_history",
    "quote",
    "recent_purchase",
    "recent_purchase_summary",
    "spending_summary",
]
