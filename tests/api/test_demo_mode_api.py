"""Demo mode: off unless DEMO_MODE=1 (every demo route then answers 404, whatever APP_ENV), the development
SECRET_KEY only with it, the dev mailbox for admins only, and each role switch and demo-data load audited."""

from __future__ import annotations

import logging

import pytest
from sqlmodel import select

from marketplace.config import DEFAULT_SECRET_KEY, Settings, announce_demo_mode, settings
from marketplace.db import session_scope
from marketplace.models import AuditEntry, Role, User
from marketplace.services import demo, mail, users
from marketplace.services.errors import Forbidden, Invalid, NotFound, Unauthorized
from tests import factories

DEMO_ROUTES = [("POST", "/api/dev/switch-role", {"role": "admin"}), ("POST", "/api/admin/init-demo-data", None),
               ("GET", "/api/dev/mail", None)]
KEY = "k" * 40


def _audit() -> list[AuditEntry]:
    with session_scope() as session:
        return list(session.exec(select(AuditEntry).order_by(AuditEntry.created_at)).all())


@pytest.mark.parametrize(("method", "path", "body"), DEMO_ROUTES)
def test_demo_routes_are_404_without_demo_mode(client, login, method, path, body):
    assert settings.demo_enabled is False  # nothing asked for it: the tests start as a deployment does
    login(factories.make_admin("realadmin"))
    assert client.request(method, path, json=body).status_code == 404


@pytest.mark.parametrize("app_env", ["local", "test", "staging", "production"])
def test_demo_mode_is_on_only_when_asked_for(app_env):
    assert Settings(app_env=app_env, secret_key=KEY).demo_enabled is False
    if app_env != "production":
        assert Settings(app_env=app_env, secret_key=KEY, demo_mode=True).demo_enabled is True


@pytest.mark.parametrize("app_env", ["local", "test", "staging", "production"])
def test_the_default_secret_key_is_refused_unless_demo_mode_is_on(app_env):
    with pytest.raises(ValueError, match="SECRET_KEY"):
        Settings(app_env=app_env, secret_key=DEFAULT_SECRET_KEY)
    if app_env != "production":
        assert Settings(app_env=app_env, secret_key=DEFAULT_SECRET_KEY, demo_mode=True).demo_enabled


def test_production_refuses_demo_mode_and_short_keys():
    with pytest.raises(ValueError, match="DEMO_MODE cannot be enabled in production"):
        Settings(app_env="production", secret_key=KEY, demo_mode=True)
    with pytest.raises(ValueError, match="SECRET_KEY"):
        Settings(app_env="production", secret_key="short-but-not-default")


def test_the_start_says_whether_demo_mode_is_on(caplog, monkeypatch):
    with caplog.at_level(logging.INFO, logger="marketplace.config"):
        announce_demo_mode()
        monkeypatch.setattr(settings, "demo_mode", True)
        announce_demo_mode()
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["demo mode is off", "demo mode is ON"]


# --- the dev mailbox: admins only -----------------------------------------------------------------------------


def test_the_dev_mailbox_is_for_admins(client, login, demo_mode):
    mail.send(mail.OutgoingMail(to="victim@example.com", subject="Reset your password",
                                text="http://x.test/reset-password?token=secret"))
    assert client.get("/api/dev/mail").status_code == 401
    for role in (Role.USER, Role.VENDOR):
        login(factories.make_user(role=role))
        refused = client.get("/api/dev/mail")
        assert refused.status_code == 403 and refused.json()["message"] == "Admin access required"
    login(factories.make_admin())
    assert [m["subject"] for m in client.get("/api/dev/mail").json()] == ["Reset your password"]


def test_the_dev_mailbox_service_checks_the_reader_and_the_input(demo_mode):
    with pytest.raises(Unauthorized):
        demo.dev_mailbox(actor=None)
    with pytest.raises(Forbidden):
        demo.dev_mailbox(actor=factories.make_user())
    with pytest.raises(Invalid):
        demo.dev_mailbox(actor=factories.make_admin(), limit=0)


# --- role switches and demo-data loads -----------------------------------------------------------------------


def test_a_role_switch_is_audited_in_its_transaction(client, login, demo_mode):
    tester = factories.make_user("tester")
    login(tester)
    assert client.post("/api/dev/switch-role", json={"role": "admin"}).status_code == 200
    [entry] = _audit()
    assert (entry.actor_id, entry.action, entry.target_type, entry.target_id) == (
        tester.id, "demo.switch_role", "user", tester.id)
    assert '"from": "user"' in entry.details and '"to": "admin"' in entry.details
    # A refused switch records nothing.
    assert client.post("/api/dev/switch-role", json={"role": "overlord"}).status_code == 400
    assert len(_audit()) == 1


def test_role_switch_permission_and_input(demo_mode):
    with pytest.raises(Unauthorized):
        users.switch_role(actor=None, role="admin")
    with pytest.raises(Invalid):
        users.switch_role(actor=factories.make_user(), role="root")
    assert _audit() == []


def test_loading_demo_data_is_for_admins_and_audited(client, login, demo_mode):
    assert client.post("/api/admin/init-demo-data").status_code == 401
    login(factories.make_user("curious"))
    refused = client.post("/api/admin/init-demo-data")
    assert refused.status_code == 403 and refused.json()["message"] == "Admin access required"
    with session_scope() as session:
        assert session.exec(select(User).where(User.username == "vendor")).first() is None  # nothing loaded
    admin = factories.make_admin("loader")
    login(admin)
    assert client.post("/api/admin/init-demo-data").json() == {"message": "Demo data initialized"}
    [entry] = _audit()
    assert (entry.actor_id, entry.action, entry.target_type) == (admin.id, "demo.load_data", "platform")


def test_init_demo_data_needs_demo_mode_first():
    with pytest.raises(NotFound):
        demo.init_demo_data(actor=factories.make_admin())
    with pytest.raises(NotFound):
        demo.dev_mailbox(actor=factories.make_admin())
    assert _audit() == []
