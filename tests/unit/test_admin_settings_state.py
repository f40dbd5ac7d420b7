"""/admin/settings' own checks: a commission value must be a number; refusals and failures read as the spec's toasts."""

from __future__ import annotations

import pytest

from marketplace.services.errors import Conflict, Invalid
from marketplace.state.admin.commission import INVALID_VALUE, is_number
from marketplace.state.admin.settings import PAYMENT_FAILED, failure_toast


@pytest.mark.parametrize(("text", "expected"), [
    ("15", True), ("15.5", True), (" 0 ", True), ("-1", True), ("150", True),  # bounds are the server's
    ("", False), ("  ", False), ("abc", False), ("nan", False), ("15%", False),
])
def test_is_number(text, expected):
    assert is_number(text) is expected


def test_failure_toasts():
    refused = Invalid("Exchange rate must be a positive number with at most 4 decimals")
    assert failure_toast(refused, invalid=INVALID_VALUE, failed=PAYMENT_FAILED) == (
        "Invalid value", "Exchange rate must be a positive number with at most 4 decimals")
    assert failure_toast(Invalid(""), invalid=INVALID_VALUE, failed=PAYMENT_FAILED) == INVALID_VALUE
    assert failure_toast(Conflict("x"), invalid=INVALID_VALUE, failed=PAYMENT_FAILED) == (
        "Error", "Failed to update payment settings.")
    assert failure_toast(RuntimeError("db down"), invalid=INVALID_VALUE, failed=PAYMENT_FAILED) == PAYMENT_FAILED
