"""Reflex event handlers never `setattr` a name sent by the browser: typing goes through the one whitelisted
`FormState.set_field`, which writes only the fields its state lists and clears their errors."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

from marketplace.state.account_recovery import ForgotPasswordState, ResetPasswordState
from marketplace.state.account_security import AccountSecurityState
from marketplace.state.accounts import LoginState, SignupState
from marketplace.state.dashboard import DashboardState
from marketplace.state.forms import FormState
from marketplace.state.vendors.application import VendorApplicationState

STATE_DIR = Path(__file__).resolve().parents[2] / "marketplace" / "state"
FORMS = (LoginState, SignupState, ForgotPasswordState, ResetPasswordState, AccountSecurityState, DashboardState,
         VendorApplicationState)


def _event_handlers(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(ast.unparse(d).startswith("rx.event") for d in node.decorator_list)]


def test_no_event_handler_calls_setattr_but_the_whitelisted_setter():
    offenders = []
    for path in sorted(STATE_DIR.rglob("*.py")):
        for handler in _event_handlers(ast.parse(path.read_text())):
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr"
                   for n in ast.walk(handler)):
                offenders.append(f"{path.name}:{handler.name}")
    assert offenders == ["forms.py:set_field"]


def _set_field(state: type[FormState]):
    return state.event_handlers["set_field"].fn


def test_set_field_writes_a_listed_field_and_clears_its_error():
    form = SimpleNamespace(FORM_FIELDS=DashboardState.FORM_FIELDS, form_email="old@example.com",
                           errors={"email": "Invalid email address", "first_name": "First name is required"})
    _set_field(DashboardState)(form, "form_email", "new@example.com")
    assert form.form_email == "new@example.com"
    assert form.errors == {"first_name": "First name is required"}


@pytest.mark.parametrize("name", ["role", "user_id", "errors", "FORM_FIELDS", "email", "is_vendor_approved"])
def test_set_field_ignores_any_name_not_listed(name: str):
    form = SimpleNamespace(FORM_FIELDS=DashboardState.FORM_FIELDS, errors={"email": "Invalid email address"})
    _set_field(DashboardState)(form, name, "admin")
    assert not hasattr(form, name) or getattr(form, name) != "admin"
    assert form.errors == {"email": "Invalid email address"}


def test_set_field_takes_text_only():
    form = SimpleNamespace(FORM_FIELDS=LoginState.FORM_FIELDS, username="ann", errors={})
    _set_field(LoginState)(form, "username", {"not": "text"})
    assert form.username == "ann"


@pytest.mark.parametrize("state", FORMS, ids=lambda state: state.__name__)
def test_every_listed_field_is_a_text_field_of_its_state(state: type[FormState]):
    assert state.FORM_FIELDS
    for attribute in state.FORM_FIELDS:
        assert state.__fields__[attribute].default == "", attribute
