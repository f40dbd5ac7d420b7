"""One Stripe Customer per user, created the first time the user subscribes and reused after that."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.models import BillingCustomer, User
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
