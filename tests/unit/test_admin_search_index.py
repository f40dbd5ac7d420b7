"""Admin searches: substrings anywhere in a word, ignoring case, on every searched column; on PostgreSQL each
searched expression is served by its trigram index (revision 0021) rather than a scan of the table."""

from __future__ import annotations

from sqlalchemy import select, text

from marketplace import db
from marketplace.models import Agent, Order, User
from marketplace.services import table_search as text_search
from marketplace.services.admin import catalog, people, sales
from tests.factories import make_admin, make_agent, make_order, make_user, make_vendor

# What the admin searches match (services/admin/people.py, catalog.py, sales.py), each with its index.
SEARCHED = ((User, "username"), (User, "email"), (User, "first_name"), (User, "last_name"), (Agent, "name"),
            (Agent, "short_description"), (Order, "agent_name"), (Order, "customer_email"))


def _index(model: type, column: str) -> str:
    return f"ix_trgm_{model.__tablename__}_{column}"


def test_substrings_inside_words_on_every_searched_column():
    admin = make_admin()
    buyer = make_user("quietbuyer", email="Mailbox.Owner@Shop.test", first_name="Wilhelmina", last_name="Zorgdrager")
    other = make_user("someoneelse")
    vendor = make_vendor("tradesman")
    agent = make_agent(vendor, "Spreadsheet Whisperer", short_description="Balances ledgers overnight")
    make_agent(vendor, "Unrelated")
    make_order(agent, buyer)
    make_order(make_agent(vendor, "Other"), other)
    for term in ("ETBUY", "box.own", "HELMI", "gdrag"):
        assert [r.id for r in people.list_customers(actor=admin, search=term)[0]] == [buyer.id], term
    assert [r.id for r in people.list_vendors(actor=admin, search="desma")[0]] == [vendor.id]
    for term in ("dsheet whis", "LEDGERS OVER"):
        assert [r.id for r in catalog.list_agents(actor=admin, search=term)[0]] == [agent.id], term
    for term in ("eet whisp", "owner@shop"):
        rows, total = sales.list_commissions(actor=admin, search=term)
        assert [r.agent_name for r in rows] == ["Spreadsheet Whisperer"] and total == 1, term
    assert people.list_customers(actor=admin, search="x%y")[1] == 0  # wildcards stay literal


def test_postgresql_reads_each_searched_expression_from_its_trigram_index():
    engine = db.engine()
    with engine.connect() as conn:
        if engine.dialect.name != "postgresql":
            # SQLite has no trigram index: the revision leaves its schema alone.
            found = conn.execute(text("SELECT name FROM sqlite_master WHERE name LIKE 'ix_trgm_%'")).scalars().all()
            assert found == []
            return
        found = set(conn.execute(text("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'ix_trgm_%'")).scalars())
        assert found == {_index(model, column) for model, column in SEARCHED}
        conn.execute(text("SET LOCAL enable_seqscan = off"))  # tiny test tables: only ask whether it can be used
        for model, column in SEARCHED:
            query = select(model.id).where(text_search.matches(text_search.pattern("abcd"), getattr(model, column)))
            plan = "\n".join(conn.execute(text("EXPLAIN " + str(query.compile(
                engine, compile_kwargs={"literal_binds": True})))).scalars())
            assert _index(model, column) in plan, plan
