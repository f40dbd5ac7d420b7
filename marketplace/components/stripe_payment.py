"""The Stripe Payment Element (accordion layout) plus its submit button, as a Reflex component.

The React side is assets/stripe_payment_form.jsx (built on @stripe/react-stripe-js). It only loads Stripe.js,
mounts the element, confirms the payment and reports what happened; the state decides what that means and the
server verifies the PaymentIntent before anything is recorded.
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.event import no_args_event_spec, passthrough_event_spec

from marketplace.components.asset_component import AssetComponent

REACT_STRIPE = "@stripe/react-stripe-js@7.0.1"
STRIPE_JS = "@stripe/stripe-js@10.2.1"  # react-stripe-js 7 asks for >=10 <11; payments.REAL_STRIPE_JS_URL follows it


class StripePaymentForm(AssetComponent):
    """<Elements options={{clientSecret, appearance}}> + <PaymentElement layout=accordion> + submit button."""

    asset = "stripe_payment_form.jsx"
    lib_dependencies: list[str] = [REACT_STRIPE, STRIPE_JS]

    # Where Stripe.js comes from and the key it is started with (GET /api/stripe/config gives the same pair).
    stripe_js_url: rx.Var[str]
    publishable_key: rx.Var[str]
    # The PaymentIntent's client secret: the only thing the browser needs to confirm that one payment.
    client_secret: rx.Var[str]
    # Where Stripe sends the browser back if a payment method needs a redirect.
    return_url: rx.Var[str]
    # 'setup' when client_secret is a SetupIntent's (a card saved with confirmSetup); else a payment.
    intent_type: rx.Var[str]
    # Text of the submit button, e.g. 'Complete Payment • $29.99', 'Processing...', 'Redirecting...'.
    button_label: rx.Var[str]
    # The server's say on whether the button may be pressed (a payment is in flight or done).
    disabled: rx.Var[bool]
    # The last attempt's refusal, shown above the button ('Payment Error' and the message); empty: none.
    error_message: rx.Var[str]
    appearance: rx.Var[dict]

    # Reflex declares an event trigger by a call in its annotation, which only pyright reads (hence the ignores).
    # The buyer pressed the button and the confirmation with Stripe has started.
    on_start: rx.EventHandler[no_args_event_spec]  # type: ignore[type-arg,valid-type]
    # Stripe says the PaymentIntent (or SetupIntent) succeeded: its id.
    on_succeeded: rx.EventHandler[passthrough_event_spec(str)]  # type: ignore[type-arg,valid-type]
    # Confirmation ended in another status (processing, requires_action...): that status.
    on_incomplete: rx.EventHandler[passthrough_event_spec(str)]  # type: ignore[type-arg,valid-type]
    # Stripe refused or failed: its message (may be empty) and its error code (may be empty).
    on_error: rx.EventHandler[passthrough_event_spec(str, str)]  # type: ignore[type-arg,valid-type]
    # Stripe.js could not be loaded: a message.
    on_load_error: rx.EventHandler[passthrough_event_spec(str)]  # type: ignore[type-arg,valid-type]


stripe_payment_form = StripePaymentForm.create


def payment_element(state: Any, *, return_url: str, button_label: Any, disabled: Any, error_message: Any,
                    setup: bool = False, intent_type: Any = None, on_load_error: Any = None) -> rx.Component:
    """The Payment Element wired to a paying state by one convention: the state holds `stripe_js_url`,
    `publishable_key` and `client_secret`, and answers `payment_started`, `payment_succeeded(intent id)`,
    `payment_incomplete(status)`, `payment_failed(message)` and, unless `on_load_error` is given,
    `stripe_unavailable(message)`. `setup`: the secret is a SetupIntent's (a card saved, nothing paid);
    `intent_type`: the same decided at run time (a Var: 'setup' or 'payment', e.g. a free trial's checkout)."""
    return stripe_payment_form(
        stripe_js_url=state.stripe_js_url,
        publishable_key=state.publishable_key,
        client_secret=state.client_secret,
        **({"intent_type": "setup"} if setup else {"intent_type": intent_type} if intent_type is not None else {}),
        return_url=return_url,
        button_label=button_label,
        disabled=disabled,
        error_message=error_message,
        on_start=state.payment_started,
        on_succeeded=state.payment_succeeded,
        on_incomplete=state.payment_incomplete,
        on_error=state.payment_failed,
        on_load_error=on_load_error if on_load_error is not None else state.stripe_unavailable,
        width="100%",
    )
