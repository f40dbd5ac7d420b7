"""Subscriptions and their paid invoices, as rows: the subscription row (made from the Stripe subscription's
metadata, which the checkout wrote), one order per paid invoice, and the access a paid period gives.

`record_paid_invoice` is the one path for the checkout page's `complete` call and the `invoice.paid` webhook:
they may both arrive, in either order, any number of times. `orders.invoice_id` is unique, so exactly one
order per invoice results; the purchase (unique per user and agent) is created once and reused by a lapsed
subscriber who subscribes again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.integrations import billing, payments
from marketplace.models import (
    Agent,
    NotificationType,
    Order,
    OrderKind,
    OrderStatus,
    Purchase,
    Subscription,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import (
    access,
    decisions,
    guest_checkout,
    licenses,
    mail,
    mail_texts,
    money,
    names,
    notifications,
    promotions,
    webhooks,
)
from marketplace.services.checkout_terms import CheckoutTerms, TermsError
from marketplace.services.errors import Conflict, Invalid
from marketplace.services.receipts import issue as receipts

ATTEMPTS = 5
FOREIGN_SUBSCRIPTION = "This subscription was not made on this marketplace"


@dataclass(frozen=True)
class Recorded:
    order: Order
    purchase: Purchase | None
    created: bool
    # A first payment for an agent the buyer already had access to (two tabs): it granted nothing, and the
    # caller refunds it and ends that subscription.
    duplicate: bool = False


def ensure_row(sub: billing.Subscription) -> Subscription:
    """The row of a Stripe subscription, made from its metadata the first time it is seen (the checkout makes
    it right after creating the subscription; a webhook makes it if the checkout never got that far)."""
    with session_scope() as session:
        row = session.exec(select(Subscription).where(Subscription.stripe_subscription_id == sub.id)).first()
        if row is not None:
            return row
    try:  # the terms checkout wrote on the subscription: its invoices are recorded at them
        terms = CheckoutTerms.from_metadata(sub.metadata, destination=sub.transfer_destination, with_amount=True)
    except TermsError as error:
        raise Invalid(FOREIGN_SUBSCRIPTION) from error
    try:
        with session_scope() as session:
            agent = session.get(Agent, terms.agent_id)
            user = session.get(User, terms.buyer_id)
            if agent is None or user is None:
                raise Invalid(FOREIGN_SUBSCRIPTION)
            row = Subscription(
                user_id=user.id, agent_id=agent.id, vendor_id=terms.vendor_id, agent_name=agent.name,
                stripe_subscription_id=sub.id, stripe_customer_id=sub.customer, stripe_price_id=sub.price_id,
                status=sub.status, price_cents=terms.monthly_amount, currency=terms.currency,
                original_price_usd_cents=terms.price_usd_cents, exchange_rate=terms.rate,
                commission_rate=terms.fee_rate, commission_split_enabled=terms.route.split,
                current_period_end=sub.current_period_end, cancel_at_period_end=sub.cancel_at_period_end)
            session.add(row)
            session.flush()
            return row
    except IntegrityError:
        with session_scope() as session:  # made at the same moment by another delivery or the browser
            return session.exec(select(Subscription).where(Subscription.stripe_subscription_id == sub.id)).one()


def _kind(invoice: billing.Invoice) -> str:
    return OrderKind.SUBSCRIPTION if invoice.billing_reason == "subscription_create" else OrderKind.RENEWAL


def _existing(session: Session, invoice_id: str) -> Recorded | None:
    order = session.exec(select(Order).where(Order.invoice_id == invoice_id)).first()
    if order is None:
        return None
    purchase = session.exec(select(Purchase).where(Purchase.user_id == order.user_id,
                                                   Purchase.agent_id == order.agent_id)).first()
    # Still to refund (processing), or refunded while another subscription or licence gives the access.
    duplicate = order.kind == OrderKind.SUBSCRIPTION and (order.status == OrderStatus.PROCESSING or (
        order.status == OrderStatus.REFUNDED and purchase is not None
        and purchase.subscription_id != order.subscription_id))
    return Recorded(order=order, purchase=None if duplicate else purchase, created=False, duplicate=duplicate)


def existing_order(invoice_id: str) -> Recorded | None:
    with session_scope() as session:
        return _existing(session, invoice_id)


def record_paid_invoice(invoice: billing.Invoice, sub: billing.Subscription) -> Recorded:
    """One order for a paid invoice of `sub` (idempotent), the access it pays for, the receipt, and the vendor's
    sale notice and e-mail. An invoice that arrives after the subscription ended records the money only."""
    if invoice.status != "paid":
        raise Invalid("This invoice is not paid")
    if invoice.subscription_id != sub.id:
        raise Invalid("This invoice does not belong to this subscription")
    done = existing_order(invoice.id)
    if done is not None:
        return done
    row = ensure_row(sub)
    for _attempt in range(ATTEMPTS):
        try:
            with session_scope() as session:
                recorded = _insert(session, invoice, row, split_reason=sub.metadata.get("splitBlockReason"),
                                   card=sub.default_card)
            return recorded
        except IntegrityError:
            done = existing_order(invoice.id)
            if done is not None:
                return done
    raise Conflict("The payment could not be recorded, please retry")


def _insert(session: Session, invoice: billing.Invoice, row: Subscription, *, split_reason: str | None,
            card: payments.CardUsed | None = None) -> Recorded:
    terms = CheckoutTerms.of_subscription(row, amount=invoice.amount_paid, split_reason=split_reason)
    kind = _kind(invoice)
    if kind == OrderKind.RENEWAL and row.trial_end is not None and session.exec(
            select(Order.id).where(Order.subscription_id == row.id)).first() is None:
        kind = OrderKind.SUBSCRIPTION  # the first charge after a free trial is the subscription's first payment
    # The INSERT comes first: it takes the write lock (SQLite) and the unique invoice_id decides who records it.
    order = Order(
        user_id=row.user_id, agent_id=row.agent_id, vendor_id=row.vendor_id, agent_name=row.agent_name,
        customer_email="", status=OrderStatus.COMPLETED, currency=invoice.currency, total_amount_cents=terms.amount,
        original_price_usd_cents=terms.price_usd_cents, exchange_rate=terms.rate, commission_rate=terms.fee_rate,
        commission_split_enabled=terms.route.split, vendor_amount_cents=terms.vendor_share,
        platform_fee_cents=terms.fee, split_block_reason=terms.route.reason,
        payment_intent_id=invoice.payment_intent_id or invoice.id, kind=kind, subscription_id=row.id,
        invoice_id=invoice.id, promotion_code=_code_of(invoice), discount_cents=invoice.discount_amount,
    )
    session.add(order)
    session.flush()
    code_id = invoice.subscription_metadata.get("promotionCodeId")
    if code_id and kind == OrderKind.SUBSCRIPTION and row.user_id:
        # The buyer's hold on the code becomes its redemption with the first payment (or, after a trial that
        # redeemed it already, names this order).
        promotions.redeem_for_subscription(session, code_id=code_id, buyer_id=row.user_id, order_id=order.id,
                                           payment_intent_id=invoice.payment_intent_id)
    current = session.get(Subscription, row.id)
    buyer = session.get(User, row.user_id) if row.user_id else None
    if current is None or buyer is None:  # the buyer's account was deleted: the money trail stays
        return Recorded(order=order, purchase=None, created=True)
    order.customer_email = buyer.email
    # The receipt is numbered with the order, last in the transaction (a duplicate first payment's too: its
    # refund's credit note refers to it), with the card the subscription charges.
    seller = receipts.seller_name_of_vendor(session, row.vendor_id)
    if kind == OrderKind.SUBSCRIPTION and access.has_access(session, user_id=buyer.id,
                                                              agent_id=current.agent_id or "") \
            and not _own_trial(session, current):
        session.flush()  # granted nothing: processing until the caller has refunded it
        decisions.claim_any(session, Order, Order.id == order.id, values={"status": OrderStatus.PROCESSING})
        session.refresh(order)
        receipts.issue_at_payment(session, order, buyer=buyer, seller_name=seller, card=card)
        return Recorded(order=order, purchase=None, created=True, duplicate=True)
    purchase = _grant(session, current, order, period_end=invoice.period_end)
    key = licenses.ensure_key(session, purchase=purchase) if purchase is not None else None
    if kind == OrderKind.SUBSCRIPTION:
        session.exec(update(Agent).where(Agent.id == current.agent_id).values(sales_count=Agent.sales_count + 1))
    _tell(session, current, buyer, order, period_end=invoice.period_end or current.current_period_end,
          license_key=key.key if key else "")
    _announce(session, current, order)
    receipts.issue_at_payment(session, order, buyer=buyer, seller_name=seller, card=card)
    return Recorded(order=order, purchase=purchase, created=True)


def _code_of(invoice: billing.Invoice) -> str | None:
    """The promotion code an invoice was discounted by (the subscription's, whose Stripe coupon took
    `discount_amount` off it), as the order snapshots it; none once the code's months are over."""
    return (invoice.subscription_metadata.get("promotionCode") or None) if invoice.discount_amount else None


def _own_trial(session: Session, row: Subscription) -> bool:
    """The buyer's access to the agent is this subscription's own free trial (not another subscription's)."""
    return row.trial_end is not None and session.exec(select(Purchase.id).where(
        Purchase.user_id == row.user_id, Purchase.agent_id == row.agent_id,
        Purchase.subscription_id == row.id)).first() is not None


def _grant(session: Session, row: Subscription, order: Order, *, period_end: datetime | None) -> Purchase | None:
    """Access to the end of the paid period: a new purchase, this subscription's purchase extended, or a lapsed
    one (an old subscription or licence that no longer gives access) taken over."""
    if row.agent_id is None or row.user_id is None:
        return None
    now = utcnow()
    until = period_end if period_end is not None else row.current_period_end
    if until is not None:
        until += access.RENEWAL_SLACK
    if row.ended_at is not None:
        until = now  # paid after the end (a late webhook): the money is recorded, access stays ended
    purchase = session.exec(select(Purchase).where(Purchase.user_id == row.user_id,
                                                   Purchase.agent_id == row.agent_id)).first()
    if purchase is None:
        purchase = Purchase(user_id=row.user_id, agent_id=row.agent_id, order_id=order.id,
                            purchase_price_cents=order.total_amount_cents, currency=order.currency,
                            subscription_id=row.id)
        session.add(purchase)
        session.flush()
        access.set_until(session, where=Purchase.id == purchase.id, until=until)
        return purchase
    if purchase.subscription_id == row.id:
        if until is not None and purchase.access_until is not None:
            access.set_until(session, where=Purchase.id == purchase.id, until=until, only="later")
        if purchase.order_id is None:  # a free trial's purchase: its first charge is the order it came from
            purchase.order_id, purchase.purchase_price_cents = order.id, order.total_amount_cents
            session.add(purchase)
            session.flush()
        return purchase
    if order.kind != OrderKind.SUBSCRIPTION:
        return purchase  # a late renewal of an older subscription: the purchase is a newer one's now
    purchase.subscription_id, purchase.order_id = row.id, order.id
    purchase.purchase_price_cents, purchase.currency, purchase.purchased_at = (
        order.total_amount_cents, order.currency, now)
    session.add(purchase)
    session.flush()
    access.set_until(session, where=Purchase.id == purchase.id, until=until)
    return purchase


def _tell(session: Session, row: Subscription, buyer: User, order: Order, *, period_end: datetime | None,
          license_key: str) -> None:
    """The buyer's receipt (with the license key), and the vendor's sale notification and e-mail, sent once this
    commits."""
    amount, currency = money.format_cents(order.total_amount_cents), order.currency
    if order.kind == OrderKind.SUBSCRIPTION:
        text = mail_texts.receipt(to=buyer.email, name=names.greeting_name(buyer), agent_name=row.agent_name,
                                  amount=amount, currency=currency, order_id=order.id, agent_id=row.agent_id or "",
                                  license_key=license_key,
                                  sign_in_token=guest_checkout.sign_in_token(session, buyer=buyer),
                                  renews_on=long_date(period_end) if period_end else None)
    else:
        text = mail_texts.renewal_receipt(
            to=buyer.email, name=names.greeting_name(buyer), agent_name=row.agent_name, amount=amount,
            currency=currency, order_id=order.id, renews_on=long_date(period_end) if period_end else "")
    mail.send_after_commit(session, text)
    vendor = session.get(User, row.vendor_id) if row.vendor_id and order.total_amount_cents else None
    if vendor is None or vendor.deleted_at is not None:
        return
    verb = "subscribed to" if order.kind == OrderKind.SUBSCRIPTION else "renewed"
    notifications.notify(session, user_id=vendor.id, type=NotificationType.SALE, title="New sale",
                         message=f"{buyer.username} {verb} {row.agent_name} for "
                                 f"{mail_texts.amount_text(amount, currency)}.")
    mail.send_after_commit(session, mail_texts.sale(to=vendor.email, name=names.greeting_name(vendor),
                                                    agent_name=row.agent_name, amount=amount, currency=currency,
                                                    order_id=order.id))


def _announce(session: Session, row: Subscription, order: Order) -> None:
    """The vendor's webhooks, in this transaction: a first payment is a sale, a later one a renewal."""
    if order.kind == OrderKind.SUBSCRIPTION:
        webhooks.enqueue(session, vendor_id=row.vendor_id, type=webhooks.events.SALE_COMPLETED,
                         obj=webhooks.order_object(order))
    else:
        webhooks.enqueue(session, vendor_id=row.vendor_id, type=webhooks.events.SUBSCRIPTION_RENEWED,
                         obj={**webhooks.subscription_object(row), "latestOrder": webhooks.order_object(order)})


def long_date(moment: datetime) -> str:
    """'December 24, 2026': how the mails name a renewal or end date."""
    return f"{moment:%B} {moment.day}, {moment.year}"
