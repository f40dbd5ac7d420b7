"""PostgreSQL answers one-word searches from kept per-prefix postings (revision 0021): the same matches, order,
pages and totals as `ts_rank_cd` over the documents, and the postings and their counts follow every change of
the documents in the writer's transaction."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text

from marketplace import db
from marketplace.models import Agent, AgentStatus, AgentTag, Role
from marketplace.services import catalog
from marketplace.services.catalog import listing_sql, search
from tests.catalog_helpers import update_agent
from tests.factories import make_agent

pytestmark = pytest.mark.skipif(not db.is_postgres(), reason="the kept postings are PostgreSQL's")

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


def test_one_word_searches_equal_ranking_the_documents(catalogue):
    assert search.by_terms(search.parse_query("emails"), "postgresql")
    assert not search.by_terms(search.parse_query("email writer"), "postgresql")
    assert not search.by_terms(search.parse_query("café"), "postgresql")
    for word in WORDS:
        for filters in ({}, {"sort": "newest"}, {"price": "free"}, {"limit": "2", "offset": "1"}):
            with_terms, with_documents = pages(word, **filters)
            assert with_terms == with_documents, (word, filters)
    assert pages("emails")[0][1] == 5  # every agent but "Version 2" and "Policy Desk"


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
