"""Demo mode's one Stripe test clock: new customers live on it, and an admin can advance it to watch renewals,
failed payments and lapses happen (`POST /api/dev/advance-clock`)."""

from __future__ import annotations

from marketplace.config import settings


def clock_id_for_new_customer() -> str | None:
    """The clock a new Stripe Customer goes on: the demo clock in demo mode, none (the wall clock) otherwise."""
    if not settings.demo_mode:
        return None
    return None
