"""The payments integration's failures as domain errors, translated in this one place.

`integrations/payments.py` raises its own errors (integrations import no service); every service that calls it
does so inside `provider_errors`, so a state shows a toast and the API answers a status for each of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from marketplace.integrations import payments
from marketplace.services.errors import BadGateway, Invalid, ServiceUnavailable


@contextmanager
def provider_errors(failure: str | None = None) -> Iterator[None]:
    """Payments not configured -> 503; Stripe failing -> 502, saying `failure` (what could not be done) when
    given; a webhook that does not check out -> 400."""
    try:
        yield
    except payments.PaymentsNotConfigured as exc:
        raise ServiceUnavailable(exc.message) from exc
    except payments.PaymentProviderError as exc:
        raise BadGateway(failure or exc.message) from exc
    except payments.InvalidWebhook as exc:
        raise Invalid(exc.message) from exc


# What a buyer reads when Stripe's own message is meant for developers ('The provided PaymentMethod has failed
# authentication...'): by Stripe's error code.
AUTHENTICATION_FAILED = "Your bank could not confirm this payment. Try again or use another card."
_BUYER_TEXTS = {"payment_intent_authentication_failure": AUTHENTICATION_FAILED,
                "setup_intent_authentication_failure": AUTHENTICATION_FAILED}


def buyer_message(*, code: str, message: str) -> str:
    """The refusal the checkout shows for Stripe's error `code` and `message`: our words where Stripe's are a
    developer's, else Stripe's (its card messages are written for buyers)."""
    return _BUYER_TEXTS.get(code if isinstance(code, str) else "", message)
