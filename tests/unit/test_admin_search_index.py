"""Admin searches: substrings anywhere in a word, ignoring case, on every searched column; on PostgreSQL each
searched expression is served by its trigram index (revision 0021), on SQLite a term of three or more characters
by the FTS5 trigram shadows (revision 0023), rather than a scan of the table; either way the rows and totals are
exactly what the scan gives, and the shadows follow every write."""

from __future__ import annotations

from sqlalchemy import select, text

from marketplace import db
from marketplace.models import Agent, Order, OrderStatus, Role, User
from marketplace.services import table_search as text_search
from marketplace.services.admin import catalog, people, sales
from tests.factories import ago, make_admin, make_agent, make_order, make_user, make_vendor

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
            # SQLite has no trigram index: revision 0021 leaves its schema alone (0023 adds the FTS5 shadows).
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


def test_sqlite_reads_a_search_of_three_characters_or_more_from_the_fts5_shadow():
    engine = db.engine()
    with engine.connect() as conn:
        if engine.dialect.name != "sqlite":
            # PostgreSQL keeps its trigram indexes: revision 0023 creates nothing there.
            found = conn.execute(text("SELECT tablename FROM pg_tables WHERE tablename LIKE 'admin_search_%'"))
            assert found.scalars().all() == []
            return
        for model, columns in ((User, 4), (Agent, 2), (Order, 2)):
            table = model.__table__
            for term, indexed in (("abc", True), ("ab", False)):
                query = select(text_search.source(table, term).c.id)
                plan = " ".join(str(row[-1]) for row in conn.execute(text("EXPLAIN QUERY PLAN " + str(query.compile(
                    engine, compile_kwargs={"literal_binds": True})))))
                assert (f"admin_search_{table.name}_fts VIRTUAL TABLE" in plan) == indexed, (term, plan)
            kept = text_search.SHADOWED[table.name]
            assert len(kept) - columns == (4 if table.name != "orders" else 3)  # id, filters, created_at
            assert all(name in table.c for name in kept)


def _scan_customers(term: str) -> tuple[list[str], int]:
    """What the table scan gives, on the users table itself (no shadow)."""
    like = text_search.pattern(term)
    conditions = [User.role == Role.USER, User.deleted_at.is_(None),
                  text_search.matches(like, User.username, User.email, User.first_name, User.last_name)]
    with db.session_scope() as session:
        ids = session.exec(select(User.id).where(*conditions).order_by(User.created_at.desc(), User.id.desc())
                           ).scalars().all()
    return list(ids), len(ids)


def test_rows_and_totals_are_what_the_scan_gives():
    admin = make_admin()
    names = ("Ann Lee", "anna_lee", "ANNALEE", "100%_off", "100xyoff", "Zoë Ångström", "ZOË ÅNGSTRÖM", "Léa",
             'quote"me', "tab\\slash", "plain")
    for n, name in enumerate(names):
        make_user(f"u{n}x", email=f"u{n}@mail{n}.test", first_name=name, last_name=f"Last{n}",
                  created_at=ago(hours=n))
    make_user("gone", first_name="Ann Lee", deleted_at=ago(days=1))
    make_vendor("annvendor", first_name="Ann Lee")
    terms = ("ann", "ANN", "nn", "a", "lee", "nna_", "0%_o", "%", "_", "100%", "zoë", "ZOË", "ångström",
             "léa", "LÉA", 'e"m', "\\s", "b\\sl", "u1", "mail1", "@mail", "nothing-matches", "ll", "xyz")
    for term in terms:
        ids, total = _scan_customers(term)
        rows, got = people.list_customers(actor=admin, search=term, limit=100)
        assert ([r.id for r in rows], got) == (ids, total), term
    # A page past the end still says how many there are; a page in the middle is the scan's slice.
    everyone, count = _scan_customers("mail")
    assert count == len(names)
    assert people.list_customers(actor=admin, search="mail", limit=3, offset=100) == ([], count)
    rows, got = people.list_customers(actor=admin, search="mail", limit=3, offset=4)
    assert ([r.id for r in rows], got) == (everyone[4:7], count)


def test_the_shadows_follow_every_write():
    admin = make_admin()
    buyer = make_user("firstname", email="first@shop.test", first_name="Quentin")
    vendor = make_vendor("shopkeeper")
    agent = make_agent(vendor, "Ledger Keeper", short_description="Keeps books")
    order = make_order(agent, buyer)

    def customers(term: str) -> list[str]:
        return [r.id for r in people.list_customers(actor=admin, search=term)[0]]

    def agents(term: str, status: str | None = None) -> list[str]:
        return [r.id for r in catalog.list_agents(actor=admin, search=term, status=status)[0]]

    def commissions(term: str) -> list[str]:
        return [r.order_id for r in sales.list_commissions(actor=admin, search=term)[0]]

    assert customers("quent") == [buyer.id] and agents("ledger") == [agent.id] and commissions("ledger") == [order.id]
    with db.session_scope() as session:
        session.execute(text("UPDATE users SET first_name = 'Rosalind', email = 'ros@shop.test' WHERE id = :id"),
                        {"id": buyer.id})
        session.execute(text("UPDATE agents SET name = 'Tally Clerk', status = 'pending' WHERE id = :id"),
                        {"id": agent.id})
        session.execute(text("UPDATE orders SET customer_email = 'ros@shop.test' WHERE id = :id"), {"id": order.id})
    assert customers("quent") == [] and customers("rosal") == [buyer.id] and customers("ros@shop") == [buyer.id]
    assert agents("ledger") == [] and agents("tally") == [agent.id]
    assert agents("tally", "pending") == [agent.id] and agents("tally", "approved") == []
    assert commissions("first@") == [] and commissions("ros@shop") == [order.id]
    with db.session_scope() as session:  # filtered and ordered columns follow too
        session.execute(text("UPDATE users SET role = 'vendor' WHERE id = :id"), {"id": buyer.id})
        session.execute(text("UPDATE agents SET deleted_at = created_at WHERE id = :id"), {"id": agent.id})
        session.execute(text("UPDATE orders SET status = :s WHERE id = :id"),
                        {"s": OrderStatus.FAILED, "id": order.id})
    assert customers("rosal") == []
    assert [r.id for r in people.list_vendors(actor=admin, search="rosal")[0]] == [buyer.id]
    assert agents("tally") == [] and commissions("ros@shop") == []
    with db.session_scope() as session:
        session.execute(text("UPDATE orders SET status = :s WHERE id = :id"),
                        {"s": OrderStatus.REFUNDED, "id": order.id})
    assert commissions("ros@shop") == [order.id]
    with db.session_scope() as session:
        session.execute(text("DELETE FROM orders WHERE id = :id"), {"id": order.id})
    assert commissions("ros@shop") == [] and commissions("tally") == []
    if db.engine().dialect.name == "sqlite":
        with db.engine().connect() as conn:  # the copies and the index hold exactly the tables' rows
            for table in text_search.SHADOWED:
                copied = conn.execute(text(f"SELECT count(*) FROM admin_search_{table}")).scalar_one()
                assert copied == conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one(), table
                conn.execute(text(f"INSERT INTO admin_search_{table}_fts(admin_search_{table}_fts) "
                                  "VALUES ('integrity-check')"))


def test_the_migration_builds_the_shadows_for_rows_that_existed_before_it():
    from alembic.config import Config

    from alembic import command
    from marketplace import migrate
    from marketplace.config import PROJECT_ROOT

    admin = make_admin()
    # The rows are written first and the schema then taken back to before 0023 (the models of today could not
    # write to the tables of then): 0023 and later must build the shadows from what is already there.
    buyer = make_user("earlybird", last_name="Prewrittenson")
    agent = make_agent(make_vendor("earlyvendor"), "Preexisting Planner")
    order = make_order(agent, buyer)
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    try:
        with db.engine().begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0022")
    finally:
        migrate.upgrade()
    assert [r.id for r in people.list_customers(actor=admin, search="writtenso")[0]] == [buyer.id]
    assert [r.id for r in catalog.list_agents(actor=admin, search="existing plan")[0]] == [agent.id]
    assert [r.order_id for r in sales.list_commissions(actor=admin, search="earlybird@")[0]] == [order.id]
