"""PostgreSQL answers one-word searches from kept per-prefix postings (revision 0021): the same matches, order,
pages and totals as `ts_rank_cd` over the documents, and the postings and their counts follow every change of
the documents in the writer's transaction.

SQLite's FTS5 index holds the live documents only (revision 0022): a relevance page is ranked inside the index
and its total counted from it alone; a one-word page of a kept prefix is read from the kept impacts (revision
0024). Its pages, ranks and totals equal `bm25` over an index built afresh from the live agents (ties by search
key), and the kept tables equal what the index gives (`search.check_index`), after every kind of write."""

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text

from marketplace import db
from marketplace.models import Agent, AgentStatus, AgentTag, Role
from marketplace.services import catalog
from marketplace.services.catalog import listing_sql, search
from tests.catalog_helpers import update_agent
from tests.factories import make_agent

postgres_only = pytest.mark.skipif(not db.is_postgres(), reason="the kept postings are PostgreSQL's")
sqlite_only = pytest.mark.skipif(db.is_postgres(), reason="the live-only FTS5 index is SQLite's")

WORDS = ["email", "emails", "em", "e", "policy", "policies",
         "invoice", "invoices", "the", "running", "runs", "x", "2", "gpt4", "acme", "zzz"]


@pytest.fixture
def vendor(make_user):
    return make_user("acme", role=Role.VENDOR, vendor_approved=True)


@pytest.fixture
def catalogue(vendor):
    texts = [
        ("Email Writer", "Writes emails", "Drafts emails and more emails for the team.", ["email", "writing"]),
        ("Invoice Bot", "Reads invoices", "Emails invoices; runs overnight.", ["finance"]),
        ("Running Coach", "Plans runs", "The coach emails you a plan. Running is fun.", ["health", "gpt4"]),
        ("Emailer Pro", "Mass email", "email email email", []),
        ("Quiet Agent", "Nothing here", "Mentions an emailing list once.", ["x"]),
        ("Version 2", "Second", "Model 2 of 2.", ["2"]),
        ("Policy Desk", "Checks policies", "Policy reviews.", []),  # stem "polici" is no prefix of "policy"
    ]
    return [make_agent(vendor, name, short_description=short, description=long, tags=tags)
            for name, short, long, tags in texts]


def pages(word: str, **filters: str) -> tuple[list, int]:
    """The listing page and total with the term table, and without it (ts_rank_cd over the documents)."""
    answers = []
    for terms in (True, False):
        original = search.by_terms
        if not terms:
            search.by_terms = lambda _query, _dialect: False
        listing_sql.listing_statement.cache_clear()
        try:
            with db.engine().connect() as conn:
                listing = catalog.search_agents_json(conn, catalog.parse_filters(search=word, **filters))
            answers.append((json.loads(listing.json), listing.total))
        finally:
            search.by_terms = original
            listing_sql.listing_statement.cache_clear()
    return answers[0], answers[1]


@postgres_only
def test_one_word_searches_equal_ranking_the_documents(catalogue):
    assert search.by_terms(search.parse_query("emails"), "postgresql")
    assert not search.by_terms(search.parse_query("email writer"), "postgresql")
    assert not search.by_terms(search.parse_query("café"), "postgresql")
    for word in WORDS:
        for filters in ({}, {"sort": "newest"}, {"price": "free"}, {"limit": "2", "offset": "1"}):
            with_terms, with_documents = pages(word, **filters)
            assert with_terms == with_documents, (word, filters)
    assert pages("emails")[0][1] == 5  # every agent but "Version 2" and "Policy Desk"


@postgres_only
def test_ranks_equal_ts_rank_cd(catalogue):
    """A prefix's kept total is ts_rank_cd of the prefix query x 10 (as float4), for every matching agent."""
    with db.engine().connect() as conn:
        rows = conn.execute(text("""
            SELECT s.agent_id,
                   ts_rank_cd(s.document, to_tsquery('english', 'email:*') || to_tsquery('simple', 'email:*')),
                   (SELECT (p.total / 10.0)::real FROM agent_search_postings p
                    WHERE p.prefix = 'email' AND s.doc_key = ANY(p.doc_keys))
            FROM agent_search s WHERE s.live AND s.document @@ (to_tsquery('english', 'email:*')
                                                                || to_tsquery('simple', 'email:*'))
        """)).all()
    assert len(rows) == 5 and all(rank == kept for _, rank, kept in rows)


def kept_count(prefix: str) -> int | None:
    with db.engine().connect() as conn:
        return conn.execute(text("SELECT live_count FROM agent_search_prefixes WHERE prefix = :p"),
                            {"p": prefix}).scalar()


def check_postings() -> None:
    """The kept postings are exactly what the live documents give: each live document's (prefix, total) entries,
    no other document keys, and per prefix the number of live documents with a lexeme starting with it."""
    with db.engine().connect() as conn:
        kept = conn.execute(text("""
            SELECT p.prefix, p.total, d FROM agent_search_postings p, unnest(p.doc_keys) d ORDER BY 1, 2, 3
        """)).all()
        expected = conn.execute(text("""
            SELECT e.prefix, e.total, s.doc_key FROM agent_search s, agent_search_entries(s.document) e
            WHERE s.live ORDER BY 1, 2, 3
        """)).all()
        assert kept == expected
        unknown = conn.execute(text("""
            SELECT u.lexeme FROM agent_search s, unnest(s.document) u WHERE s.live
            EXCEPT SELECT prefix FROM agent_search_prefixes
        """)).scalars().all()
        assert unknown == []
        wrong = conn.execute(text("""
            SELECT x.prefix, x.live_count, (SELECT count(*) FROM agent_search s WHERE s.live AND EXISTS (
                SELECT 1 FROM unnest(s.document) u WHERE starts_with(u.lexeme, x.prefix))) AS actual
            FROM agent_search_prefixes x
        """)).all()
        assert [row for row in wrong if row[1] != row[2]] == []


@postgres_only
def test_postings_and_counts_follow_the_documents(catalogue, make_user):
    check_postings()
    assert kept_count("email") == 5 and kept_count("invoic") == 1
    agent = catalogue[1]
    update_agent(agent.id, name="Receipt Bot")
    assert kept_count("receipt") == 1 and kept_count("invoic") == 1
    check_postings()
    with db.session_scope() as session:
        session.add(AgentTag(agent_id=agent.id, tag="ledger", position=1))
    assert kept_count("ledger") == 1
    update_agent(agent.id, status=AgentStatus.PENDING)  # unpublished: only live agents are searched
    assert kept_count("email") == 4 and kept_count("ledger") == 0 and kept_count("receipt") == 0
    check_postings()
    update_agent(agent.id, status=AgentStatus.APPROVED)
    assert kept_count("email") == 5 and kept_count("ledger") == 1
    check_postings()
    # A word new to the catalogue that is a prefix of known ones gets the postings of those it extends.
    make_agent(make_user("newvendor", role=Role.VENDOR, vendor_approved=True), "Em", description="Emails.")
    assert kept_count("em") == 6 and kept_count("email") == 6
    check_postings()
    assert pages("em")[0] == pages("em")[1]
    with db.session_scope() as session:
        session.delete(session.get(Agent, agent.id))
    assert kept_count("email") == 5 and kept_count("ledger") == 0
    check_postings()
    for word in ("email", "em", "e", "invoice", "ledger"):
        assert pages(word)[0] == pages(word)[1], word
    with db.engine().begin() as conn:
        conn.execute(text("TRUNCATE agent_search CASCADE"))
        assert conn.execute(text("SELECT count(*) FROM agent_search_postings")).scalar_one() == 0
        search.rebuild_index(conn)
    check_postings()
    assert kept_count("email") == 5
    assert pages("emails")[0] == pages("emails")[1]


@postgres_only
def test_parallel_approvals_keep_postings_and_counts_exact(vendor):
    """Packed postings are shared by many documents: approvals at the same moment wait for each other (one
    advisory lock) instead of losing an update or deadlocking."""
    pending = [make_agent(vendor, f"Parallel Mailer {n}", description=f"Sends emails, batch {n}.",
                          status=AgentStatus.PENDING) for n in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda agent: update_agent(agent.id, status=AgentStatus.APPROVED), pending))
    assert kept_count("parallel") == 6 and kept_count("email") == 6
    check_postings()
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda agent: update_agent(agent.id, status=AgentStatus.REJECTED), pending[:3]))
    assert kept_count("parallel") == 3
    check_postings()


# ---- SQLite ------------------------------------------------------------------------------------------------

SQLITE_WORDS = ["email", "emails", "em", "e", "policy", "invoice", "the", "running", "x", "2", "gpt4", "acme", "zzz",
                "email writer", "emails team", "running coach"]
VARIANTS = ({}, {"limit": "2"}, {"limit": "2", "offset": "1"}, {"limit": "3", "offset": "4"}, {"price": "free"},
            {"sort": "newest"})
_LIVE = "a.status = 'approved' AND a.deleted_at IS NULL"


def reference(words: str, *, free_only: bool = False, ranks: bool = False) -> list:
    """Every live match of `words` by `bm25` (then search key), from an FTS5 index built afresh from the live agents'
    own columns (not from `agent_search_docs` or its triggers), keyed by the same search keys; with `ranks`,
    (agent id, bm25) pairs."""
    match = search.fts5_match_expression(search.parse_query(words))
    weights = ", ".join(map(str, search.BM25_WEIGHTS))
    with db.engine().begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS temp.ref_fts"))
        conn.execute(text("CREATE VIRTUAL TABLE temp.ref_fts USING fts5(name, short_description, description, tags, "
                          "vendor, tokenize='unicode61 remove_diacritics 2')"))
        conn.execute(text(f"""
            INSERT INTO temp.ref_fts(rowid, name, short_description, description, tags, vendor)
            SELECT d.search_key, a.name, a.short_description, a.description,
                   coalesce((SELECT group_concat(t.tag, ' ') FROM agent_tags t WHERE t.agent_id = a.id), ''),
                   coalesce((SELECT u.username FROM users u WHERE u.id = a.vendor_id), '')
            FROM agents a JOIN agent_search_docs d ON d.agent_id = a.id WHERE {_LIVE}
        """))
        rows = conn.execute(text(f"""
            SELECT d.agent_id, f.r FROM (SELECT rowid AS k, bm25(ref_fts, {weights}) AS r FROM temp.ref_fts
                                    WHERE ref_fts MATCH :m) AS f
            JOIN agent_search_docs d ON d.search_key = f.k JOIN agents a ON a.id = d.agent_id
            WHERE :free = 0 OR a.price_cents = 0
            ORDER BY f.r, f.k
        """), {"m": match, "free": int(free_only)}).all()
        conn.execute(text("DROP TABLE temp.ref_fts"))
    return [tuple(row) for row in rows] if ranks else [row[0] for row in rows]


def listing(words: str, **filters: str) -> tuple[list[str], int]:
    with db.engine().connect() as conn:
        page = catalog.search_agents_json(conn, catalog.parse_filters(search=words, **filters))
    return [agent["id"] for agent in json.loads(page.json)], page.total


def check_sqlite_index() -> None:
    """The FTS index is exactly the live documents (FTS5's integrity check against its content view), and a
    document is marked live exactly when its agent is."""
    with db.engine().begin() as conn:
        search.check_index(conn)
        wrong = conn.execute(text(f"""
            SELECT a.id FROM agents a LEFT JOIN agent_search_docs d ON d.agent_id = a.id
            WHERE d.live IS NOT ({_LIVE})
        """)).scalars().all()
    assert wrong == []


def check_sqlite_pages(words_list=SQLITE_WORDS) -> None:
    for words in words_list:
        everything = reference(words)
        for filters in VARIANTS:
            ids, total = listing(words, **filters)
            if "sort" in filters:  # another order (joined with agents): the same matches
                assert total == len(everything) and len(ids) == min(24, total), (words, filters)
                assert set(ids) <= set(everything), (words, filters)
                continue
            expected = reference(words, free_only=True) if "price" in filters else everything
            offset, limit = int(filters.get("offset", 0)), int(filters.get("limit", 24))
            assert (ids, total) == (expected[offset:offset + limit], len(expected)), (words, filters)


@sqlite_only
def test_sqlite_pages_and_totals_equal_bm25_over_the_live_agents(catalogue, vendor):
    make_agent(vendor, "Hidden Emailer", description="Emails", status=AgentStatus.PENDING)
    check_sqlite_index()
    check_sqlite_pages()
    assert listing("emails") == (reference("emails"), 5)  # every live agent but "Version 2" and "Policy Desk"
    assert listing("hidden") == ([], 0)


@sqlite_only
def test_sqlite_kept_words_rank_as_bm25_to_the_last_bit(catalogue, vendor):
    """A one-word page of a kept prefix (revision 0024) is ranked from the kept impacts, not by FTS5: its ranks
    are the very doubles `bm25` gives, ties included; a word that is not a kept prefix takes FTS5's page."""
    make_agent(vendor, "Mailroom", description="email " * 7, tags=["email"])
    make_agent(vendor, "Mailroom Two", description="email " * 7, tags=["email"])  # a tie with the one above
    with db.engine().connect() as conn:
        kept = set(conn.execute(text("SELECT prefix FROM agent_search_kept")).scalars())
    assert {"email", "policy", "running", "acme", "2"} <= kept and "emai" not in kept
    found = search.matches(False, "sqlite", terms=True, page=True)
    for word in ["email", "emails", "policy", "running", "acme", "x", "2", "gpt4", "emai", "zzz"]:
        values = {**search.bind_values(search.parse_query(word), "sqlite"), "page_offset": 0, "page_limit": 100}
        with db.engine().connect() as conn:
            rows = conn.execute(select(found.c.agent_id, found.c.rank, found.c.matched)
                                .order_by(found.c.rank, found.c.search_key), values).all()
        expected = reference(word, ranks=True)
        assert [(agent_id, rank) for agent_id, rank, _ in rows] == expected, word
        assert {matched for *_, matched in rows} <= {len(expected)}, word


@sqlite_only
def test_sqlite_index_follows_every_write(catalogue, vendor, make_user):
    agent = catalogue[1]
    update_agent(agent.id, name="Receipt Bot")  # edit
    assert listing("receipt")[1] == 1 and listing("invoice")[1] == 1
    with db.session_scope() as session:  # tags
        session.add(AgentTag(agent_id=agent.id, tag="ledger", position=1))
    assert listing("ledger")[1] == 1
    update_agent(agent.id, status=AgentStatus.PENDING)  # unpublished
    assert listing("ledger") == ([], 0) and listing("emails")[1] == 4
    check_sqlite_index()
    update_agent(agent.id, name="Receipt Bot Two")  # edited while not live: stays out of the index
    assert listing("receipt") == ([], 0)
    update_agent(agent.id, status=AgentStatus.APPROVED)  # approved again
    assert listing("receipt")[1] == 1 and listing("ledger")[1] == 1
    check_sqlite_index()
    with db.session_scope() as session:  # vendor rename
        session.get(type(vendor), vendor.id).username = "zenith"
    assert listing("zenith")[1] == len(catalogue) and listing("acme") == ([], 0)
    update_agent(catalogue[0].id, deleted_at=datetime.now(UTC))  # soft delete
    assert listing("writer") == ([], 0)
    with db.session_scope() as session:  # hard delete
        session.delete(session.get(Agent, catalogue[2].id))
    check_sqlite_index()
    check_sqlite_pages()
    with db.engine().begin() as conn:
        search.rebuild_index(conn)
    check_sqlite_index()
    check_sqlite_pages(["email", "receipt", "zenith"])


@sqlite_only
def test_sqlite_parallel_approvals_keep_the_index_exact(vendor):
    pending = [make_agent(vendor, f"Parallel Mailer {n}", description=f"Sends emails, batch {n}.",
                          status=AgentStatus.PENDING) for n in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda agent: update_agent(agent.id, status=AgentStatus.APPROVED), pending))
    assert listing("parallel")[1] == 6
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda agent: update_agent(agent.id, status=AgentStatus.REJECTED), pending[:3]))
    assert listing("parallel")[1] == 3
    check_sqlite_index()
    check_sqlite_pages(["parallel", "emails"])
