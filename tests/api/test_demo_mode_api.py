"""Demo mode's routes: on by default outside production, 404 when off (APP_ENV=production turns it off)."""

from __future__ import annotations

import pytest

from marketplace.config import Settings, settings
from tests import factories

DEMO_ROUTES = [("POST", "/api/dev/switch-role", {"role": "admin"}), ("POST", "/api/admin/init-demo-data", None),
               ("GET", "/api/dev/mail", None)]


@pytest.mark.parametrize(("method", "path", "body"), DEMO_ROUTES)
def test_demo_routes_are_404_when_demo_mode_is_off(client, login, monkeypatch, method, path, body):
    login(factories.make_admin("realadmin"))
    monkeypatch.setattr(settings, "demo_mode", False)
    assert client.request(method, path, json=body).status_code == 404


def test_production_turns_demo_mode_off_and_refuses_the_default_secret():
    with pytest.raises(ValueError, match="SECRET_KEY"):
        Settings(app_env="production")
    assert Settings(app_env="production", secret_key="s" * 40).demo_enabled is False


def test_init_demo_data_needs_a_signed_in_user_in_demo_mode(client):
    assert client.post("/api/admin/init-demo-data").status_code == 401


def test_demo_accounts_count_as_confirmed():
    from sqlmodel import select

    from marketplace.db import session_scope
    from marketplace.models import User
    from marketplace.services import demo

    demo.seed()
    with session_scope() as session:
        accounts = session.exec(select(User).where(User.username.in_(["admin", "vendor", "customer"]))).all()
    assert len(accounts) == 3 and all(a.email_verified_at is not None for a in accounts)
