"""Receipts and credit notes of orders (issue 32).

- `numbering`: gap-free numbers per sequence, taken in the transaction that writes the document.
- `issue`: numbering an order's receipt when it is paid (else on first read) and its credit note on first read,
  with a snapshot of what each says.
- `documents`: who may read them and their printed text; `render`: the HTML page and the PDF.
- `plan_receipts`: receipts of vendors' plan payments (the marketplace is the seller), same sequence.
- `buyer_details`: the optional business name, billing address and tax ID of the buyer's profile.
"""

from marketplace.services.receipts.documents import (
    NOT_FOUND,
    Document,
    ReceiptView,
    receipt_numbers,
    receipt_of,
    receipt_path,
)
from marketplace.services.receipts.issue import OPERATOR, format_number, issue_at_payment, line_of
from marketplace.services.receipts.numbering import take_number
from marketplace.services.receipts.plan_receipts import (
    PlanPaymentLine,
    issue_for_plan_payment,
    plan_payments,
    plan_receipt_of,
    plan_receipt_path,
)
from marketplace.services.receipts.render import html, pdf, pdf_filename

__all__ = [
    "NOT_FOUND",
    "OPERATOR",
    "Document",
    "PlanPaymentLine",
    "ReceiptView",
    "format_number",
    "html",
    "issue_at_payment",
    "issue_for_plan_payment",
    "line_of",
    "pdf",
    "pdf_filename",
    "plan_payments",
    "plan_receipt_of",
    "plan_receipt_path",
    "receipt_numbers",
    "receipt_of",
    "receipt_path",
    "take_number",
]
