"""Catalog revisions (0002, 0004) and the triggers 0017 must keep, up and down on scratch SQLite files (the session
database is left alone)."""

from alembic.config import Config
from sqlalchemy import text

from alembic import command
from marketplace.config import PROJECT_ROOT
from marketplace.db import build_engine


def _migrate(engine, target: str, *, down: bool = False) -> None:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, target)


def _row(conn, sql: str):
    return conn.execute(text(sql)).one()


def test_upgrade_over_existing_agents_and_back(tmp_path):
    engine = build_engine(f"sqlite:///{tmp_path / 'old.db'}")
    _migrate(engine, "0003")
    stamp = "'2025-01-01 00:00:00.000000'"
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO users (id, username, email, role, is_vendor_approved, totp_enabled, stripe_charges_enabled,"
            f" stripe_payouts_enabled, created_at, updated_at) VALUES ('u1', 'oldvendor', 'o@x.io', 'vendor', 1, 0, 0,"
            f" 0, {stamp}, {stamp})"
        ))
        for n, status in enumerate(["approved", "approved", "pending"]):
            conn.execute(text(
                "INSERT INTO agents (id, vendor_id, name, short_description, description, price_cents, status,"
                " is_featured, rating_sum, review_count, avg_rating, sales_count, favorites_count, created_at,"
                f" updated_at) VALUES ('a{n}', 'u1', 'Legacy {n}', '', '', 500, '{status}', 0, 0, 0, 0, 0, 0,"
                f" {stamp}, {stamp})"
            ))

    _migrate(engine, "head")
    with engine.begin() as conn:
        assert _row(conn, "SELECT sum(live_count) FROM agent_listing_counts")[0] == 2
        assert _row(conn, "SELECT version FROM catalog_version")[0] == 1
        conn.execute(text("UPDATE agents SET name = 'Renamed' WHERE id = 'a0'"))
        assert _row(conn, "SELECT version FROM catalog_version")[0] == 2
        # Since 0022 the FTS index holds the live documents only (not the pending a2).
        assert _row(conn, "SELECT count(*) FROM agents_fts WHERE agents_fts MATCH 'oldvendor'")[0] == 2
        conn.execute(text("INSERT INTO agents_fts(agents_fts, rank) VALUES ('integrity-check', 1)"))

    _migrate(engine, "0003", down=True)
    with engine.begin() as conn:
        tables = {r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))}
        assert not {"agent_listing_counts", "catalog_version"} & tables
        assert _row(conn, "SELECT count(*) FROM agents_fts WHERE agents_fts MATCH 'renamed'")[0] == 1

    _migrate(engine, "head")
    with engine.begin() as conn:
        assert _row(conn, "SELECT sum(live_count) FROM agent_listing_counts")[0] == 2
        conn.execute(text("UPDATE agents SET status = 'approved' WHERE id = 'a2'"))
        assert _row(conn, "SELECT sum(live_count) FROM agent_listing_counts")[0] == 3
        assert _row(conn, "SELECT count(*) FROM agents_fts WHERE agents_fts MATCH 'oldvendor'")[0] == 3
        conn.execute(text("INSERT INTO agents_fts(agents_fts, rank) VALUES ('integrity-check', 1)"))
    engine.dispose()


def test_every_revision_goes_down_and_up_again(tmp_path):
    engine = build_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    _migrate(engine, "head")
    _migrate(engine, "0001", down=True)
    with engine.begin() as conn:
        tables = {r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))}
        triggers = conn.execute(text("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'")).scalar_one()
    assert not {"agent_listing_counts", "catalog_version", "agent_search_docs", "agents_fts"} & tables
    assert triggers == 0
    _migrate(engine, "head")
    with engine.begin() as conn:
        names = {r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))}
    assert {"agents_search_ai", "agents_counts_ai", "agents_version_insert", "users_search_au"} <= names
    engine.dispose()


def _triggers(engine) -> set[str]:
    with engine.connect() as conn:
        return {r[0] for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'"))}


def test_money_over_time_keeps_every_trigger_of_the_tables_it_rebuilds(tmp_path):
    """0017 adds foreign keys to orders and purchases, which SQLite does by copying the table: the day totals
    (0011) and the catalog version (0014) triggers must come along, and come back on the way down."""
    engine = build_engine(f"sqlite:///{tmp_path / 'money.db'}")
    _migrate(engine, "0016")
    before = _triggers(engine)
    assert {"orders_day_totals_ai", "purchases_version_insert"} <= before
    _migrate(engine, "0017")
    assert _triggers(engine) == before | {"agents_version_pricing"}
    _migrate(engine, "0016", down=True)
    assert _triggers(engine) == before
    engine.dispose()


def test_the_newer_revisions_go_down_and_up_again_keeping_every_trigger(tmp_path):
    """A revision that only adds columns must not rebuild its table on the way down (SQLite's batch mode
    copies the table and drops its triggers, which an upgrade from there does not put back): 0030 did so to
    `reviews`, and the catalog version stopped following review edits; 0031 rebuilt `users`, whose deletion
    cascaded to every purchase."""
    engine = build_engine(f"sqlite:///{tmp_path / 'newer.db'}")
    _migrate(engine, "head")
    before = _triggers(engine)
    assert {"reviews_version_update", "users_version_update", "purchases_version_insert"} <= before
    _migrate(engine, "0022", down=True)
    _migrate(engine, "head")
    assert _triggers(engine) == before
    engine.dispose()
