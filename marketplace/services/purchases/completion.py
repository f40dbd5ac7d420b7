"""Purchase completion: one idempotent path, shared by the browser and the webhook, and free claims.

The browser's `POST /api/purchase/complete` and the `payment_intent.succeeded` webhook both end in
`complete_payment`, which trusts nothing but the PaymentIntent retrieved from Stripe. Exactly one Order
(orders.payment_intent_id is unique) and one Purchase (unique user+agent) result however often, in whatever
order and however concurrently it runs: the unique constraints decide races, the loser re-reads.

Also here, because checkout and completion must agree on it: who may get an agent (`purchasable`). The terms
a payment carries are checked by `services/checkout_terms`' one parser.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import SQLColumnExpression, false, literal, update
from sqlalchemy import select as sql_select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, select

from marketplace.db import autocommit_scope, session_scope
from marketplace.integrations import payments
from marketplace.models import (
    Agent,
    AgentStatus,
    NotificationType,
    Order,
    OrderKind,
    OrderStatus,
    PricingModel,
    Purchase,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import (
    access,
    checkout_terms,
    decisions,
    guest_checkout,
    licenses,
    mail,
    mail_texts,
    money,
    names,
    notifications,
    plans,
    promotions,
    webhooks,
)
from marketplace.services.billing import invoices
from marketplace.services.checkout_terms import CheckoutTerms, Route, TermsError
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_user
from marketplace.services.receipts import issue as receipts

log = logging.getLogger(__name__)

FREE_REASON = "Free agent: no payment taken"
NOT_SUCCEEDED = "Payment was not successful"
FOREIGN_PAYMENT = "This payment was not made for a purchase on this marketplace"
MISMATCH = "Payment does not match this purchase"
DUPLICATE_REFUNDED = "You already own this agent. This payment has been refunded."
PRICE_CHANGED = "The agent's price changed during checkout. This payment has been refunded: please check out again."
INTENT_ID_RE = re.compile(r"^pi_[A-Za-z0-9_]{1,250}$")
COMPLETION_ATTEMPTS = 5


class PriceChanged(Invalid):
    """The payment matches the quote it was made for, but the price or rate has moved since: it is refunded
    and grants nothing (the buyer checks out again at the new terms)."""


@dataclass(frozen=True)
class Completion:
    order: Order
    purchase: Purchase | None
    created: bool


def live_agent(session: Session, agent_id: str) -> Agent:
    agent = session.get(Agent, agent_id) if isinstance(agent_id, str) and agent_id else None
    if agent is None or agent.status != AgentStatus.APPROVED or agent.deleted_at is not None:
        raise NotFound("Agent not found")
    return agent


def purchasable(session: Session, buyer: User, agent_id: str) -> Agent:
    """A live agent this buyer may get: not their own, not already owned (checkout, payment and free claim)."""
    agent = live_agent(session, agent_id)
    if agent.vendor_id == buyer.id:
        raise Forbidden("You cannot buy your own agent")
    if _owns(session, buyer.id, agent.id):
        raise Conflict("You already own this agent")
    return agent


def _owns(session: Session, user_id: str, agent_id: str) -> bool:
    """Owning is having access now (the one rule): a lapsed subscriber may buy or subscribe again."""
    return access.has_access(session, user_id=user_id, agent_id=agent_id)


@dataclass(frozen=True)
class _Verified:
    intent: payments.Intent
    terms: CheckoutTerms  # as the intent carries them, checked against it and the database
    agent_name: str
    customer_email: str
    buyer_name: str  # the username, as the vendor's sale notification names the buyer
    buyer_greeting: str  # names.greeting_name, as the receipt greets them
    buyer: User  # as read with the agent (the receipt's guest sign-in link needs the row)
    vendor_contact: tuple[str, str] | None  # the live vendor's e-mail and greeting, for the sale e-mail
    vendor_webhooks: webhooks.Endpoints | None  # as read with the agent (None: read when recording)
    seller_name: str | None = None  # the receipt's seller, as read with the agent (None: read when recording)


@dataclass(frozen=True)
class _Known:
    """What one statement read: the order a payment already made (and its purchase), the agent, the buyer and
    the agent's vendor; None where not asked for or not found."""
    order: Order | None
    purchase: Purchase | None
    agent: Agent | None
    buyer: User | None
    vendor: User | None
    vendor_webhooks: str | None = None  # webhooks.endpoints_column
    vendor_applied_name: str | None = None  # the business name of the vendor's approved application


# Built once: an alias of a wide table costs milliseconds of Python to build, and a statement made of the same
# objects is found in SQLAlchemy's compiled cache.
_BUYER, _VENDOR = aliased(User, name="buyer"), aliased(User, name="vendor")
_ANCHOR = sql_select(literal(1).label("one")).subquery("anchor")
_HOOKS = webhooks.endpoints_column(Agent.vendor_id)
_APPLIED = receipts.applied_business_name(_VENDOR.id)


def _read(session: Session, *, intent_id: str | None, agent_id: str | None, user_id: str | None) -> _Known:
    """Everything a completion reads before it writes, in one round trip: outer joins from a one-row anchor,
    so each part is found or not on its own."""
    buyer, vendor, anchor = _BUYER, _VENDOR, _ANCHOR

    def matches(column: SQLColumnExpression[str], value: str | None) -> ColumnElement[bool]:
        return column == value if isinstance(value, str) and value else false()

    statement = (sql_select(Order, Purchase, Agent, buyer, vendor, _HOOKS, _APPLIED).select_from(anchor)
                 .outerjoin(Order, matches(Order.payment_intent_id, intent_id))
                 .outerjoin(Purchase, Purchase.order_id == Order.id)
                 .outerjoin(Agent, matches(Agent.id, agent_id))
                 .outerjoin(buyer, matches(buyer.id, user_id))
                 .outerjoin(vendor, vendor.id == Agent.vendor_id))
    order, purchase, agent, buyer_row, vendor_row, hooks, applied = session.exec(statement).one()  # type: ignore[call-overload]  # SQLModel exec() has no overload for 7 entities
    return _Known(order=order, purchase=purchase, agent=agent, buyer=buyer_row, vendor=vendor_row,
                  vendor_webhooks=hooks, vendor_applied_name=applied)


def _verify(intent: payments.Intent, *, actor: User | None, agent_id: str | None, user_id: str | None,
            known: _Known) -> _Verified:
    """Check the retrieved intent's terms against the intent itself, the database and the caller; raise on any
    mismatch. `known` holds the rows read before the retrieval for the agent and buyer the caller named; they are
    used only if they are the ones the payment names (else, e.g. for the webhook, which names none, they are
    read now)."""
    try:
        terms = CheckoutTerms.from_metadata(intent.metadata, destination=intent.transfer_destination)
    except TermsError as error:
        log.info("payment %s refused: %s", intent.id, error.message)
        raise Invalid(FOREIGN_PAYMENT if error.missing else MISMATCH) from error
    if actor is not None and terms.buyer_id != actor.id:
        raise Forbidden("This payment belongs to another account")
    if user_id is not None and user_id != terms.buyer_id:
        raise Forbidden("This payment belongs to another account")
    if agent_id is not None and agent_id != terms.agent_id:
        raise Invalid(MISMATCH)
    if intent.status != "succeeded":
        raise Invalid(NOT_SUCCEEDED)

    agent, buyer, vendor = known.agent, known.buyer, known.vendor
    if agent is None or agent.id != terms.agent_id or buyer is None or buyer.id != terms.buyer_id:
        with autocommit_scope() as session:
            known = _read(session, intent_id=None, agent_id=terms.agent_id, user_id=terms.buyer_id)
        agent, buyer, vendor = known.agent, known.buyer, known.vendor
    if agent is None:
        raise NotFound("Agent not found")
    if buyer is None:
        raise Invalid(FOREIGN_PAYMENT)
    vendor_contact = (vendor.email, names.greeting_name(vendor)) if vendor and vendor.deleted_at is None else None

    if intent.currency != terms.currency:
        raise Invalid(MISMATCH)
    if intent.amount != terms.amount:
        raise Invalid("Payment amount does not match the agent's price")
    if terms.price_usd_cents != agent.price_cents or (
            terms.currency == "eur" and terms.rate != checkout_terms.checkout_rate_for("eur")):
        raise PriceChanged(PRICE_CHANGED)
    if terms.vendor_id != agent.vendor_id:
        raise Invalid(MISMATCH)
    if terms.route.split and intent.application_fee_amount != terms.fee:
        raise Invalid(MISMATCH)
    return _Verified(intent=intent, terms=terms, agent_name=agent.name, customer_email=buyer.email,
                     buyer_name=buyer.username, buyer_greeting=names.greeting_name(buyer), buyer=buyer,
                     vendor_contact=vendor_contact,
                     vendor_webhooks=webhooks.endpoints_of(known.vendor_webhooks),
                     seller_name=receipts.seller_name_of(vendor, known.vendor_applied_name))


def _existing(session: Session, intent_id: str) -> Completion | None:
    known = _read(session, intent_id=intent_id, agent_id=None, user_id=None)
    return None if known.order is None else Completion(order=known.order, purchase=known.purchase, created=False)


def _record(v: _Verified) -> Completion:
    """Insert order, purchase, sales count and notification in one transaction; the first writer wins."""
    for _attempt in range(COMPLETION_ATTEMPTS):
        try:
            with session_scope() as session:
                # The INSERT comes first so the transaction starts by taking the write lock (SQLite).
                t = v.terms
                order = Order(
                    user_id=t.buyer_id, agent_id=t.agent_id, vendor_id=t.vendor_id, agent_name=v.agent_name,
                    customer_email=v.customer_email, status=OrderStatus.COMPLETED, currency=t.currency,
                    total_amount_cents=t.amount, original_price_usd_cents=t.price_usd_cents, exchange_rate=t.rate,
                    commission_rate=t.fee_rate, commission_split_enabled=t.route.split,
                    vendor_amount_cents=t.vendor_share, platform_fee_cents=t.fee, split_block_reason=t.route.reason,
                    payment_intent_id=v.intent.id, promotion_code=t.promotion_code, discount_cents=t.discount_amount,
                )
                session.add(order)
                session.flush()
                if t.promotion_code_id:  # the buyer's hold on the code becomes its redemption, with the order
                    promotions.redeem(session, code_id=t.promotion_code_id, buyer_id=t.buyer_id, order_id=order.id,
                                      payment_intent_id=v.intent.id)
                held, owned = access.purchase_and_access(session, user_id=t.buyer_id, agent_id=t.agent_id)
                if owned:
                    if not t.amount:
                        raise Conflict("You already own this agent")  # a free claim: nothing to keep
                    # A second payment for an agent already owned (two tabs): the order keeps the money
                    # trail (and its receipt, which the refund's credit note refers to); the caller refunds it.
                    _number_receipt(session, v, order)
                    return Completion(order=order, purchase=None, created=True)
                purchase = _licence(session, v, order, held)
                session.exec(update(Agent).where(Agent.id == t.agent_id).values(sales_count=Agent.sales_count + 1))
                if t.vendor_id:
                    notifications.notify(
                        session, user_id=t.vendor_id, type=NotificationType.SALE, title="New sale",
                        message=f"{v.buyer_name} bought {v.agent_name} for "
                                f"{money.format_amount(t.amount, t.currency)}.",
                    )
                # A new row has no key yet; a lapsed row taken over keeps its key.
                key = (licenses.ensure_key if held else licenses.issue_key)(session, purchase=purchase)
                _queue_purchase_mail(session, v, order, license_key=key.key)
                if v.vendor_webhooks != []:
                    webhooks.enqueue(session, vendor_id=t.vendor_id, type=webhooks.events.SALE_COMPLETED,
                                     obj=webhooks.order_object(order), endpoints=v.vendor_webhooks)
                _number_receipt(session, v, order)  # last: see issue_at_payment
            return Completion(order=order, purchase=purchase, created=True)
        except IntegrityError:
            # Another completion of this intent (or another purchase of this agent) won the race.
            with autocommit_scope() as session:
                done = _existing(session, v.intent.id)
            if done is not None:
                return done
    raise Conflict("The purchase could not be recorded, please retry")


def _number_receipt(session: Session, v: _Verified, order: Order) -> None:
    """The order's receipt, numbered with it: the buyer and seller as read before the payment was verified and
    the card the intent's retrieval gave (a free claim reads its seller here: it read no vendor before)."""
    seller = v.seller_name if v.seller_name is not None else receipts.seller_name_of_vendor(session, order.vendor_id)
    receipts.issue_at_payment(session, order, buyer=v.buyer, seller_name=seller, card=v.intent.card)


def _licence(session: Session, v: _Verified, order: Order, purchase: Purchase | None) -> Purchase:
    """The buyer's purchase, for good: a new row, or the lapsed one (`purchase`, an ended subscription) taken
    over, since there is one row per buyer and agent."""
    t = v.terms
    if purchase is None:
        purchase = Purchase(user_id=t.buyer_id, agent_id=t.agent_id, order_id=order.id,
                            purchase_price_cents=t.amount, currency=t.currency)
        session.add(purchase)
        session.flush()
        return purchase
    purchase.order_id, purchase.subscription_id = order.id, None
    purchase.purchase_price_cents, purchase.currency, purchase.purchased_at = t.amount, t.currency, utcnow()
    session.add(purchase)
    session.flush()
    access.set_until(session, where=Purchase.id == purchase.id, until=None)  # a licence: for good
    return purchase


def _queue_purchase_mail(session: Session, v: _Verified, order: Order, *, license_key: str) -> None:
    """The buyer's receipt (with the license key) and the vendor's sale e-mail, sent once the purchase is
    committed."""
    amount, currency = money.format_cents(v.terms.amount), v.terms.currency
    mail.send_after_commit(session, mail_texts.receipt(
        to=v.customer_email, name=v.buyer_greeting, agent_name=v.agent_name, amount=amount, currency=currency,
        order_id=order.id, agent_id=v.terms.agent_id, license_key=license_key,
        sign_in_token=guest_checkout.sign_in_token(session, buyer=v.buyer)))
    if v.vendor_contact is not None and v.terms.amount:
        email, greeting = v.vendor_contact
        mail.send_after_commit(session, mail_texts.sale(
            to=email, name=greeting, agent_name=v.agent_name, amount=amount, currency=currency, order_id=order.id))


def complete_payment(
    *, actor: User | None, payment_intent_id: str, agent_id: str | None = None, user_id: str | None = None,
    from_webhook: bool = False,
) -> Completion:
    """Record the purchase paid by this PaymentIntent (idempotent).

    A browser call (`from_webhook=False`) must come from the signed-in buyer the intent was made for;
    the webhook acts for the buyer named in the intent's metadata. A payment that cannot grant the agent
    is refunded: one made at a price or rate that has changed since (`PriceChanged`), or a second one for
    an agent the buyer already owns (Conflict to the browser; the webhook gets the refunded order).
    """
    if not from_webhook:
        actor = require_user(actor)
    if not isinstance(payment_intent_id, str) or not INTENT_ID_RE.match(payment_intent_id):
        raise Invalid("Invalid payment intent id")
    # One statement: the order this payment already made, else the agent and buyer the caller names (the
    # browser names both), so that verifying needs no further read. The unique payment_intent_id still decides
    # a race between two first completions (`_record`).
    with autocommit_scope() as session:
        known = _read(session, intent_id=payment_intent_id, agent_id=agent_id,
                      user_id=actor.id if actor is not None else user_id)
    done = None if known.order is None else Completion(order=known.order, purchase=known.purchase, created=False)
    if done is not None:
        if actor is not None and done.order.user_id != actor.id:
            raise Forbidden("This payment belongs to another account")
        if agent_id is not None and done.order.agent_id != agent_id:
            raise Invalid(MISMATCH)
        if done.order.invoice_id:  # a subscription's invoice: its own rules for a duplicate
            paid = invoices.recorded(actor=actor, invoice_id=done.order.invoice_id)
            if paid is not None:
                return Completion(order=paid.order, purchase=paid.purchase, created=False)
    else:
        with provider_errors():
            intent = payments.retrieve_payment_intent(payment_intent_id)
        if intent is None:
            raise Invalid("Payment not found")
        if not intent.metadata.get("agentId"):  # no checkout metadata: a subscription invoice's payment?
            paid = invoices.record_payment(actor=actor, payment_intent_id=intent.id, agent_id=agent_id,
                                           user_id=user_id)
            if paid is None:
                raise Invalid(FOREIGN_PAYMENT)
            return Completion(order=paid.order, purchase=paid.purchase, created=paid.created)
        try:
            verified = _verify(intent, actor=actor, agent_id=agent_id, user_id=user_id, known=known)
        except PriceChanged:
            _refund(intent.id, split=intent.transfer_destination is not None, why="the price changed during checkout")
            raise
        done = _record(verified)
    if done.purchase is None and done.order.kind == OrderKind.PURCHASE:
        done = _refund_duplicate(done)
        if not from_webhook:
            raise Conflict(DUPLICATE_REFUNDED)
    return done


def complete_guest_payment(*, payment_intent_id: str, agent_id: str | None = None) -> Completion:
    """A signed-out guest's checkout records its payment as the webhook would (for the buyer the payment was
    made for; nothing the browser says is trusted), and sees the order only if that buyer is an unclaimed guest
    account: a signed-in account's payment stays its owner's to see."""
    done = complete_payment(actor=None, payment_intent_id=payment_intent_id, agent_id=agent_id, from_webhook=True)
    guest_checkout.require_guest_buyer(user_id=done.order.user_id)
    return done


def _refund_duplicate(done: Completion) -> Completion:
    """A paid order that granted nothing (the buyer already owned the agent, e.g. paid in two tabs): give
    the money back. Safe to repeat: the refund's idempotency key is the payment's, and a failed refund
    (provider down) leaves the order as it was, to be retried by the next call or webhook delivery."""
    order = done.order
    if order.status == OrderStatus.REFUNDED:
        return done
    refund_id = _refund(order.payment_intent_id, split=order.commission_split_enabled,
                        why="the buyer already owned the agent")
    with session_scope() as session:  # the browser and a webhook may both get here: the first one marks it
        marked = decisions.claim_any(session, Order, Order.id == order.id, Order.status != OrderStatus.REFUNDED,
                                     values={"status": OrderStatus.REFUNDED, "refund_id": refund_id})
        stored = session.exec(select(Order).where(Order.id == order.id)).one()
        if marked:
            receipts.issue_credit_note(session, stored)
    return Completion(order=stored, purchase=None, created=done.created)


def _refund(intent_id: str, *, split: bool, why: str) -> str:
    """The whole payment back, once per payment whoever asks (browser or webhook, now or later)."""
    with provider_errors():
        refund_id = payments.refund_payment(intent_id=intent_id, reverse_split=split,
                                            idempotency_key=f"refund-{intent_id}")
    log.info("payment %s refunded (%s): %s", intent_id, refund_id, why)
    return refund_id


NOT_FREE_WITH_CODE = "This code does not make this agent free."
CODE_NOT_FOR_MONTHLY = "A monthly agent's promotion code is applied at checkout."


def claim_free_agent(*, actor: User | None, agent_id: str, promotion_code: str | None = None) -> Completion:
    """A price-0 agent, or a one-time agent a promotion code takes the whole price off (`promotion_code`,
    recorded with the code as a free claim): one order (no payment) and one purchase, idempotent per buyer and
    agent."""
    buyer = require_user(actor)
    applied = None
    with session_scope() as session:
        agent = purchasable(session, buyer, agent_id)
        if promotion_code and agent.price_cents != 0:
            applied = promotions.apply_code(session, code=promotion_code, buyer=buyer, agent=agent)
            if agent.pricing_model != PricingModel.ONE_TIME:
                raise Invalid(CODE_NOT_FOR_MONTHLY, field="promotionCode")
            if applied.discount_usd_cents < agent.price_cents:
                raise Invalid(NOT_FREE_WITH_CODE, field="promotionCode")
        elif agent.price_cents != 0:
            raise Invalid("This agent is not free")
        vendor_id, agent_name, price_cents = agent.vendor_id, agent.name, agent.price_cents
    terms = CheckoutTerms.build(agent_id=agent_id, buyer_id=buyer.id, vendor_id=vendor_id,
                                route=Route(split=False, reason=FREE_REASON), price_usd_cents=price_cents,
                                currency="usd", rate=Decimal(1), fee_rate=plans.fee_for_vendor(vendor_id=vendor_id),
                                discount_usd_cents=applied.discount_usd_cents if applied else 0,
                                promotion_code=applied.code if applied else None,
                                promotion_code_id=applied.code_id if applied else None)
    verified = _Verified(
        intent=payments.Intent(id=f"free_{buyer.id}_{agent_id}", client_secret="", status="succeeded", amount=0,
                               currency="usd", metadata={}),
        terms=terms, agent_name=agent_name, customer_email=buyer.email, buyer_name=buyer.username,
        buyer_greeting=names.greeting_name(buyer), buyer=buyer,
        vendor_contact=None,  # a free claim sends no sale e-mail
        vendor_webhooks=None,  # the vendor's endpoints are read when the claim is recorded
    )
    with promotions.holding(applied=applied, buyer_id=buyer.id, agent_id=agent_id,
                            discount_cents=terms.discount_amount, currency="usd",
                            payment_intent_id=verified.intent.id):
        return _record(verified)  # redeems a code's hold with the order
