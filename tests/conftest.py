"""Shared fixtures: one migrated database per run (SQLite, or TEST_DATABASE_URL), emptied between tests."""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

_TMP = Path(tempfile.mkdtemp(prefix="marketplace-tests-"))
os.environ.setdefault("APP_ENV", "test")
# Tests run as a deployment does: demo mode off (the `demo_mode` fixture turns it on), so a key of their own.
os.environ.pop("DEMO_MODE", None)
os.environ.setdefault("SECRET_KEY", "tests-own-secret-key-0123456789-abcdefghij")
os.environ["STORAGE_DIR"] = str(_TMP / "files")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{_TMP / 'app.db'}")
os.environ["DEV_MAILBOX_FILE"] = str(_TMP / "mailbox.jsonl")  # the mail fixtures' SMTP catcher writes here
if os.environ.get("TEST_DATABASE_URL"):
    os.environ["DATABASE_URL"] = os.environ["TEST_DATABASE_URL"]

import pytest  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import text  # noqa: E402
from sqlmodel import SQLModel  # noqa: E402

from marketplace import db, migrate  # noqa: E402
from marketplace.models import User  # noqa: E402
from marketplace.services import plans, session_cache  # noqa: E402
from tests import factories  # noqa: E402

BASE_URL = "http://localhost:3000"
pytest_plugins = ["tests.mail_fixtures", "tests.payments_fixtures", "tests.s3_fixtures", "tests.live_api",
                  "tests.scan_fixtures"]


def _reset_schema() -> None:
    engine = db.engine()
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade()


@pytest.fixture(scope="session", autouse=True)
def _cheap_password_hashing() -> Iterator[None]:
    """argon2's cheapest profile for the whole run: at full cost hashing dominated the suite's time. The
    production parameters keep their own test (tests/unit/test_password_hashing.py, `production_hashing`)."""
    from argon2 import profiles

    from marketplace.services import auth

    previous = auth.use_hashing(profiles.CHEAPEST)
    yield
    auth.use_hashing(previous)


@pytest.fixture
def production_hashing() -> Iterator[None]:
    """The real argon2 cost, for the test that checks it (every other test hashes cheaply)."""
    from marketplace.services import auth

    previous = auth.use_hashing(auth.PRODUCTION_HASHING)
    yield
    auth.use_hashing(previous)


@pytest.fixture(scope="session", autouse=True)
def _database() -> Iterator[None]:
    _reset_schema()
    yield
    db.engine().dispose()


def empty_database() -> None:
    """Every table emptied, then the reference data the migrations seed (the plans, the receipt counters) put
    back, as every database has it."""
    engine = db.engine()
    tables = [t.name for t in reversed(SQLModel.metadata.sorted_tables)]
    with engine.begin() as conn:
        # DELETE, children first, on both databases: PostgreSQL's TRUNCATE makes new files for every table and
        # index it empties, about 1 s for these tables on a CI machine, after each of 2,000 tests; a DELETE of
        # the few rows a test wrote takes milliseconds. The sequences then start again at 1, as TRUNCATE's
        # RESTART IDENTITY did.
        for name in tables:
            conn.execute(text(f"DELETE FROM {name}"))
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT setval(oid::regclass, 1, false) FROM pg_class"
                              " WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace"))
        conn.execute(text("INSERT INTO receipt_counters (name, last_number) VALUES ('receipt', 0), ('credit_note', 0)"))
    session_cache.clear()  # the rows went by raw SQL, which the cache's commit hook does not see
    plans.ensure_plans()


@pytest.fixture(autouse=True)
def _empty_tables() -> Iterator[None]:
    yield
    empty_database()


@functools.cache
def shared_api(secret_key: str, secure_cookies: bool) -> FastAPI:
    """One API app per set of the settings `create_api` reads when it builds: FastAPI prepares an app's routes
    on its first request (a pydantic adapter per parameter and answer, 1-2 s of CPU), which a new app per test
    paid ~1,000 times a run. The app keeps nothing of a test's own; what it caches (documented paths, the
    compiled pages) is the same for every test."""
    from marketplace.api.app import create_api

    return create_api()


def browser_client(**kwargs: object) -> TestClient:
    """A client that behaves as the site's pages do: it sends the site's Origin on every request (the API
    refuses writes without it, api/security.py). Use as a context manager; each has its own cookie jar."""
    from marketplace.config import settings

    api = shared_api(settings.secret_key, settings.secure_cookies)
    return TestClient(api, base_url=BASE_URL, headers={"Origin": BASE_URL}, **kwargs)


@pytest.fixture
def demo_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Demo mode on for one test (role switcher, demo data, the dev mailbox), as `make run` has it."""
    from marketplace.config import settings

    monkeypatch.setattr(settings, "demo_mode", True)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with browser_client() as test_client:
        yield test_client


@pytest.fixture
def make_user():
    """`factories.make_user`, except that a vendor is unapproved unless `vendor_approved=True`."""

    def _make(username: str | None = None, *, vendor_approved: bool = False, **fields: object) -> User:
        return factories.make_user(username, vendor_approved=vendor_approved, **fields)

    return _make


@pytest.fixture
def login(client: TestClient):
    """Sign `client` in as the given user (password defaults to the factory's)."""

    def _login(user: User, password: str = factories.PASSWORD) -> TestClient:
        response = client.post("/api/login", json={"username": user.username, "password": password})
        assert response.status_code == 200, response.text
        return client

    return _login
