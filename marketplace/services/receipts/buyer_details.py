"""The optional details a business buyer wants on its receipts (business name, billing address, tax ID): one
check for the profile form and the API. Receipts copy them when numbered, so a change shows on later ones only."""

from __future__ import annotations

import re

from marketplace.services.text import NOT_ALLOWED, has_forbidden

MAX_BUSINESS_NAME = 200
MAX_BILLING_ADDRESS = 500
MAX_ADDRESS_LINES = 6
MAX_TAX_ID = 32
# VAT numbers, EINs, GST and ABN numbers: letters and digits, with the spaces, dots, dashes and slashes they are
# written with ("DE 123 456 789", "12-3456789", "GB123.4567.89").
TAX_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ./-]*")
TAX_ID_CHARACTERS = "Tax ID may contain only letters, digits, spaces, dots, dashes and slashes"

FIELDS = (("businessName", "Business name"), ("billingAddress", "Billing address"), ("taxId", "Tax ID"))


def clean(value: str | None) -> str | None:
    """What is stored: the text trimmed (each address line too), None when empty."""
    if value is None:
        return None
    lines = [line.strip() for line in value.replace("\r\n", "\n").split("\n")]
    text = "\n".join(line for line in lines if line)
    return text or None


def errors(*, business_name: str | None, billing_address: str | None, tax_id: str | None) -> dict[str, str]:
    """Every problem by field (camelCase, as the API names them); a field left out (None) is not checked."""
    found: dict[str, str] = {}
    if business_name is not None:
        if has_forbidden(business_name):
            found["businessName"] = NOT_ALLOWED.format(label="Business name")
        elif len(clean(business_name) or "") > MAX_BUSINESS_NAME:
            found["businessName"] = f"Business name must be at most {MAX_BUSINESS_NAME} characters"
    if billing_address is not None:
        address = clean(billing_address) or ""
        if has_forbidden(billing_address, multiline=True):
            found["billingAddress"] = NOT_ALLOWED.format(label="Billing address")
        elif len(address) > MAX_BILLING_ADDRESS:
            found["billingAddress"] = f"Billing address must be at most {MAX_BILLING_ADDRESS} characters"
        elif address.count("\n") >= MAX_ADDRESS_LINES:
            found["billingAddress"] = f"Billing address must be at most {MAX_ADDRESS_LINES} lines"
    if tax_id is not None:
        value = clean(tax_id) or ""
        if has_forbidden(tax_id):
            found["taxId"] = NOT_ALLOWED.format(label="Tax ID")
        elif len(value) > MAX_TAX_ID:
            found["taxId"] = f"Tax ID must be at most {MAX_TAX_ID} characters"
        elif value and not TAX_ID_RE.fullmatch(value):
            found["taxId"] = TAX_ID_CHARACTERS
    return found
