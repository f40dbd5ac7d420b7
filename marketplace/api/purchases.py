"""Checkout, purchase completion, the Stripe webhook, purchase/order history, downloads."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from marketplace.api.deps import OptionalUser, client_address
from marketplace.models.commerce import (
    ClaimFreeIn,
    CompleteIn,
    OrderPublic,
    PaymentIntentIn,
    PaymentIntentPublic,
    PurchaseCompletePublic,
    PurchasedAgentPublic,
    PurchasePublic,
    StripeConfigPublic,
)
from marketplace.services import billing, catalog, downloads, guest_checkout, money, purchases, receipts

router = APIRouter(prefix="/api", tags=["purchases"])


def _completion(done: purchases.Completion) -> PurchaseCompletePublic:
    return PurchaseCompletePublic(already_recorded=not done.created, order_id=done.order.id,
                                  purchase_id=done.purchase.id if done.purchase else None)


@router.get("/stripe/config", response_model=StripeConfigPublic)
def stripe_config() -> StripeConfigPublic:
    """Publishable key and Stripe.js URL for the checkout page (the local stand-in's when configured)."""
    config = purchases.browser_config()
    return StripeConfigPublic(publishable_key=config.publishable_key, stripe_js_url=config.stripe_js_url)


@router.post("/purchase/create-payment-intent", response_model=PaymentIntentPublic)
def create_payment_intent(body: PaymentIntentIn, request: Request, user: OptionalUser) -> PaymentIntentPublic:
    """Signed out with `isGuestCheckout`: 403 while the admin has guest checkout off, 409 for an e-mail that
    belongs to an account, 429 past the per-address limit."""
    guest = guest_checkout.GuestDetails(email=body.customer_email or "", name=body.customer_name or "",
                                        address=client_address(request)) if body.is_guest_checkout else None
    intent = purchases.create_payment_intent(actor=user, agent_id=body.agent_id, guest=guest,
                                             promotion_code=body.promotion_code or None)
    return PaymentIntentPublic(
        client_secret=intent.client_secret,
        payment_intent_id=intent.payment_intent_id,
        currency=intent.currency,
        display_amount=intent.display_amount,
        exchange_rate=money.format_rate(intent.exchange_rate),
        supported_payment_methods=intent.supported_payment_methods,
        commission_split_enabled=intent.commission_split_enabled,
        split_block_reason=intent.split_block_reason,
        mode=intent.mode,
        subscription_id=intent.subscription_id,
        promotion_code=intent.promotion_code,
        discount_amount=money.format_cents(intent.discount_amount) if intent.promotion_code else None,
        intent_type=intent.intent_type,
        trial_days=intent.trial_days,
        trial_end=intent.trial_end,
        trial_used=intent.trial_used,
        due_today_amount=money.format_cents(intent.due_today) if intent.mode == "subscription" else None,
        monthly_amount=money.format_cents(intent.monthly_amount) if intent.mode == "subscription" else None,
        promotion_months=intent.promotion_months,
    )


@router.post("/purchase/complete", response_model=PurchaseCompletePublic)
def complete_purchase(body: CompleteIn, user: OptionalUser) -> PurchaseCompletePublic:
    """Signed out with `isGuestCheckout`: recorded for the guest account the payment (or the free trial's
    subscription) was made for (403 if it was not made by a guest checkout)."""
    if body.subscription_id and not body.payment_intent_id:  # a free trial: its card was saved (confirmSetup)
        if body.is_guest_checkout and user is None:
            row = billing.complete_guest_trial(subscription_id=body.subscription_id, agent_id=body.agent_id)
        else:
            row = billing.complete_trial(actor=user, subscription_id=body.subscription_id, agent_id=body.agent_id)
        return PurchaseCompletePublic(already_recorded=False, subscription_id=row.id, trial_end=row.trial_end)
    if body.is_guest_checkout and user is None:
        done = purchases.complete_guest_payment(payment_intent_id=body.payment_intent_id, agent_id=body.agent_id)
    else:
        done = purchases.complete_payment(actor=user, payment_intent_id=body.payment_intent_id,
                                          agent_id=body.agent_id, user_id=body.user_id)
    return _completion(done)


@router.post("/purchase/claim-free", response_model=PurchaseCompletePublic, status_code=201)
def claim_free(body: ClaimFreeIn, user: OptionalUser) -> PurchaseCompletePublic:
    return _completion(purchases.claim_free_agent(actor=user, agent_id=body.agent_id,
                                                  promotion_code=body.promotion_code or None))


@router.post("/stripe/webhook")
async def stripe_webhook(request: Request) -> dict[str, str | bool]:
    """Signed by Stripe; verified on the raw body. Exempt from the Origin check (server-to-server)."""
    payload = await request.body()
    outcome = await run_in_threadpool(purchases.handle_webhook, payload=payload,
                                      signature=request.headers.get("stripe-signature"))
    return {"received": True, "result": outcome.result}


@router.get("/user/purchases", response_model=list[PurchasePublic])
def user_purchases(user: OptionalUser) -> list[PurchasePublic]:
    return [
        PurchasePublic(
            id=r.purchase.id,
            purchased_at=r.purchase.purchased_at,
            purchase_price=money.format_cents(r.purchase.purchase_price_cents),
            currency=r.purchase.currency,
            agent=PurchasedAgentPublic(
                id=r.agent.id, name=r.agent.name, short_description=r.agent.short_description,
                description=r.agent.description, image_url=r.agent.image_url, demo_url=r.agent.demo_url,
                file_url=catalog.download_url(r.agent.id) if r.has_files else None,
            ),
            order=OrderPublic.of(r.order) if r.order else None,
            license_key=r.license_key,
            license_key_disabled_reason=r.license_key_disabled_reason,
            version_label=r.version_label,
            new_version=r.new_version,
        )
        for r in purchases.list_purchases(actor=user)
    ]


@router.get("/user/orders", response_model=list[OrderPublic])
def user_orders(user: OptionalUser) -> list[OrderPublic]:
    """Each paid order carries `receiptNumber` (its receipt at `/api/user/orders/{id}/receipt`)."""
    orders = purchases.list_orders(actor=user)
    numbers = receipts.receipt_numbers(actor=user, orders=orders)
    return [OrderPublic.of(order, receipt_number=numbers.get(order.id)) for order in orders]


@router.get("/agents/{agent_id}/download", response_class=StreamingResponse)
def download_agent(agent_id: str, user: OptionalUser,
                   version: Annotated[str | None, Query(max_length=100)] = None) -> StreamingResponse:
    """The agent's current approved files as one zip, streamed (constant memory); each download is logged.
    `?version=1.4.0`: that version, if it is the current one or one of the two before it (older: 404)."""
    archive = downloads.agent_archive(actor=user, agent_id=agent_id, version=version)
    headers = {"Content-Disposition": f'attachment; filename="{archive.filename}"', "Cache-Control": "no-store"}
    if archive.size is not None:
        headers["Content-Length"] = str(archive.size)
    return StreamingResponse(archive.chunks, media_type="application/zip", headers=headers)
