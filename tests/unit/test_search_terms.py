"""PostgreSQL answers one-word searches from `agent_search_terms` (revision 0014): the same matches, ranks and
pages as `ts_rank_cd` over the documents, and the table follows every change of the documents."""

import json

import pytest
from sqlalchemy import text

from marketplace import db
from marketplace.models import Agent, AgentStatus, AgentTag, Role
from marketplace.services import catalog
from marketplace.services.catalog import listing_sql, search
from tests.catalog_helpers import update_agent
from tests.factories import make_agent

pytestmark = pytest.mark.skipif(not db.is_postgres(), reason="the term table is PostgreSQL's")

WORDS = ["email", "emails", "em", "invoice", "invoices", "the", "running", "runs", "x", "2", "gpt4", "acme", "zzz"]


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
    assert pages("emails")[0][1] == 5  # every agent but "Version 2"


def test_ranks_equal_ts_rank_cd(catalogue):
    with db.engine().connect() as conn:
        rows = conn.execute(text("""
            SELECT s.agent_id,
                   ts_rank_cd(s.document, to_tsquery('english', 'email:*') || to_tsquery('simple', 'email:*')),
                   (SELECT sum(t.score)::real FROM agent_search_terms t
                    WHERE t.agent_id = s.agent_id AND starts_with(t.lexeme, 'email'))
            FROM agent_search s WHERE s.live AND s.document @@ (to_tsquery('english', 'email:*')
                                                                || to_tsquery('simple', 'email:*'))
        """)).all()
    assert len(rows) == 5 and all(rank == summed for _, rank, summed in rows)


def terms_of(agent_id: str) -> set[str]:
    with db.engine().connect() as conn:
        return set(conn.execute(text("SELECT lexeme FROM agent_search_terms WHERE agent_id = :a"),
                                {"a": agent_id}).scalars())


def test_terms_follow_the_documents(catalogue, make_user):
    agent = catalogue[1]
    assert {"invoic", "invoice", "bot"} <= terms_of(agent.id)
    update_agent(agent.id, name="Receipt Bot")
    assert "receipt" in terms_of(agent.id) and "invoice" not in terms_of(agent.id) and "invoic" in terms_of(agent.id)
    with db.session_scope() as session:
        session.add(AgentTag(agent_id=agent.id, tag="ledger", position=1))
    assert "ledger" in terms_of(agent.id)
    update_agent(agent.id, status=AgentStatus.PENDING)  # only live agents are searched
    assert terms_of(agent.id) == set()
    update_agent(agent.id, status=AgentStatus.APPROVED)
    assert "ledger" in terms_of(agent.id)
    with db.session_scope() as session:
        session.delete(session.get(Agent, agent.id))
    assert terms_of(agent.id) == set()
    with db.engine().begin() as conn:
        conn.execute(text("TRUNCATE agent_search CASCADE"))
        assert conn.execute(text("SELECT count(*) FROM agent_search_terms")).scalar_one() == 0
        search.rebuild_index(conn)
        assert conn.execute(text("SELECT count(DISTINCT agent_id) FROM agent_search_terms")).scalar_one() == 5
    assert pages("emails")[0] == pages("emails")[1]
