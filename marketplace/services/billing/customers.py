"""One Stripe Customer per user, created the first time the user subscribes and reused after that, and the
clock that user's subscriptions are billed by."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import BillingCustomer, User
from marketplace.models.base import utcnow
from marketplace.services import names
from marketplace.services.billing import demo_clock
from marketplace.services.errors import NotFound
from marketplace.services.payment_errors import provider_errors


def customer_id_for(*, user: User) -> str:
    """The user's Stripe Customer id. Two first checkouts at once create one Customer (Stripe's idempotency key)
    and one row (the primary key on user_id decides; the loser reads the winner's)."""
    with session_scope() as session:
        row = session.get(BillingCustomer, user.id)
        if row is not None:
            return row.stripe_customer_id
    clock = demo_clock.clock_id_for_new_customer()
    with provider_errors():
        customer = billing.create_customer(email=user.email, name=names.greeting_name(user), user_id=user.id,
                                           test_clock=clock)
    try:
        with session_scope() as session:
            session.add(BillingCustomer(user_id=user.id, stripe_customer_id=customer.id,
                                        test_clock_id=customer.test_clock))
    except IntegrityError:
        pass
    with session_scope() as session:
        stored = session.get(BillingCustomer, user.id)
        if stored is None:  # the user was deleted meanwhile
            raise NotFound("User not found")
        return stored.stripe_customer_id


def billing_now(*, user: User | None) -> datetime:
    """'Now' as this buyer's subscriptions are billed: their Stripe Customer's test clock, or, for a buyer who has
    none yet, the clock a new Customer goes on (demo mode's clock, which an admin may have advanced), else the
    wall clock. A checkout's 'renews on' date is one month after this, as Stripe's first period end will be."""
    clock_id = None
    if user is not None:
        with session_scope() as session:
            row = session.get(BillingCustomer, user.id)
            clock_id = row.test_clock_id if row is not None else None
    if clock_id is None:
        clock_id = demo_clock.clock_id_for_new_customer()
    if clock_id is None:
        return utcnow()
    with provider_errors():
        return billing.retrieve_test_clock(clock_id).frozen_time
