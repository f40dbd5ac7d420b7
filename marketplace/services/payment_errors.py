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
