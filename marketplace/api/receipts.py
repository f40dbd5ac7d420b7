"""An order's receipt (and its credit note once refunded), and a vendor's plan payment's receipt: a printable
HTML page and a PDF. Only the buyer (the vendor, for a plan) and admins read them; for anyone else there is
none (404)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from marketplace.api.deps import OptionalUser
from marketplace.services import receipts

router = APIRouter(prefix="/api", tags=["receipts"])
_PRIVATE = {"Cache-Control": "no-store"}


# `response_class=Response` and the 200's type spelled out: the errors stay documented (and sent) as JSON.
@router.get("/user/orders/{order_id}/receipt", response_class=Response,
            responses={200: {"content": {"text/html": {}}, "description": "The receipt page (printable)"}})
def order_receipt(order_id: str, user: OptionalUser) -> HTMLResponse:
    """The receipt page (numbered at payment; an older order's on first read); a refunded order's page also shows
    its credit note."""
    view = receipts.receipt_of(actor=user, order_id=order_id)
    return HTMLResponse(receipts.html(view), headers=_PRIVATE)


@router.get("/user/orders/{order_id}/receipt.pdf", response_class=Response,
            responses={200: {"content": {"application/pdf": {}}, "description": "The receipt as a PDF"}})
def order_receipt_pdf(order_id: str, user: OptionalUser) -> Response:
    """The same receipt (and credit note) as a PDF download."""
    return _pdf(receipts.receipt_of(actor=user, order_id=order_id))


@router.get("/vendor/plan/payments/{payment_id}/receipt", response_class=Response,
            responses={200: {"content": {"text/html": {}}, "description": "The plan payment's receipt page"}})
def plan_payment_receipt(payment_id: str, user: OptionalUser) -> HTMLResponse:
    """The receipt of one of the vendor's plan payments (the marketplace is the seller); the vendor who paid and
    admins only, anyone else 404."""
    return HTMLResponse(receipts.html(receipts.plan_receipt_of(actor=user, payment_id=payment_id)), headers=_PRIVATE)


@router.get("/vendor/plan/payments/{payment_id}/receipt.pdf", response_class=Response,
            responses={200: {"content": {"application/pdf": {}}, "description": "The plan receipt as a PDF"}})
def plan_payment_receipt_pdf(payment_id: str, user: OptionalUser) -> Response:
    """The same receipt as a PDF download."""
    return _pdf(receipts.plan_receipt_of(actor=user, payment_id=payment_id))


def _pdf(view: receipts.ReceiptView) -> Response:
    """A receipt (and its credit note) as a private PDF download."""
    headers = {**_PRIVATE, "Content-Disposition": f'attachment; filename="{receipts.pdf_filename(view)}"'}
    return Response(receipts.pdf(view), media_type="application/pdf", headers=headers)
