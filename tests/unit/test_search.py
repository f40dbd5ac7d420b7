from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from marketplace import db
from marketplace.models import AgentStatus, AgentTag, Role, User
from marketplace.services import catalog
from marketplace.services.catalog import search
from marketplace.services.errors import InvalidParameter
from tests.catalog_helpers import check_search_index, search_documents, update_agent
from tests.factories import ago, make_agent, make_category


@pytest.fixture
def vendor(make_user):
    return make_user("acme", role=Role.VENDOR, vendor_approved=True)


def found(query, **filters):
    return [a.name for a in catalog.list_agents(search=query, **filters).items]


def test_parse_query_keeps_letters_and_digits():
    assert search.parse_query(None) is None
    assert search.parse_query("   ") is None
    assert search.parse_query("!!! ---") is None
    assert search.parse_query("E-mail  writer_2 GPT-4!").words == ("e", "mail", "writer", "2", "gpt", "4")
    assert search.parse_query("Café").words == ("café",)
    with pytest.raises(InvalidParameter, match=r"^search"):
        search.parse_query("a" * 201)


def test_fts5_expression_quotes_every_word_and_prefixes():
    query = search.parse_query('agents "OR" NEAR email')
    assert search.fts5_match_expression(query) == '"agent"* AND "or"* AND "near"* AND "email"*'


def test_name_match_outranks_description_match(vendor):
    make_agent(vendor, "Invoice Helper", description="Mentions a newsletter once.", created_at=ago(days=1, seconds=-2))
    make_agent(vendor, "Newsletter Writer", description="Drafts emails.", created_at=ago(days=1, seconds=-1))
    make_agent(vendor, "Unrelated", description="Nothing to see.", created_at=ago(days=1, seconds=-3))
    assert found("newsletter") == ["Newsletter Writer", "Invoice Helper"]


def test_short_description_outranks_description(vendor):
    make_agent(vendor, "Alpha", description="This one can summarise meetings.", created_at=ago(days=1, seconds=-2))
    make_agent(vendor, "Beta", short_description="Summarise meetings", created_at=ago(days=1, seconds=-1))
    assert found("summarise meetings") == ["Beta", "Alpha"]


def test_tag_and_vendor_username_matches_are_found(make_user, vendor):
    other = make_user("zephyrlabs", role=Role.VENDOR, vendor_approved=True)
    make_agent(vendor, "Tagged", tags=["kubernetes", "devops"])
    make_agent(other, "By Zephyr")
    make_agent(vendor, "Neither")
    assert found("kubernetes") == ["Tagged"]
    assert found("zephyrlabs") == ["By Zephyr"]


def test_last_word_matches_as_prefix(vendor):
    make_agent(vendor, "Automation Studio")
    make_agent(vendor, "Spreadsheet Analyst", tags=["analytics"])
    assert found("automati") == ["Automation Studio"]
    assert found("auto") == ["Automation Studio"]
    assert found("spreadsheet analy") == ["Spreadsheet Analyst"]
    assert found("analytics spread") == ["Spreadsheet Analyst"]
    assert found("zzz") == []


def test_every_word_must_match(vendor):
    make_agent(vendor, "Email Writer")
    make_agent(vendor, "Email Sorter")
    assert found("email writer") == ["Email Writer"]
    assert set(found("email")) == {"Email Writer", "Email Sorter"}


def test_plural_query_finds_singular(vendor):
    make_agent(vendor, "Support Agent")
    assert found("agents") == ["Support Agent"]


def test_query_syntax_is_not_interpreted(vendor):
    make_agent(vendor, "Plain Name")
    for query in ['"', "name:*", "NOT plain", "plain & | !", "' OR 1=1 --", "(plain", "plain*", "NEAR(plain)"]:
        catalog.list_agents(search=query)  # never an error
    assert found("plain*") == ["Plain Name"]


def test_blank_or_punctuation_search_does_not_filter(vendor):
    make_agent(vendor, "One")
    make_agent(vendor, "Two")
    assert len(found("")) == 2
    assert len(found("  ?! ")) == 2


def test_search_hides_agents_that_are_not_live(vendor):
    make_agent(vendor, "Robot Live")
    make_agent(vendor, "Robot Pending", status=AgentStatus.PENDING)
    make_agent(vendor, "Robot Rejected", status=AgentStatus.REJECTED)
    assert found("robot") == ["Robot Live"]


def test_search_combines_with_filters_and_explicit_sort(vendor):
    writing = make_category("Writing", slug="writing")
    make_agent(vendor, "Robot cheap", price_cents=500, category_id=writing.id, ratings=(5,))
    make_agent(vendor, "Robot pricey", price_cents=9000, category_id=writing.id, ratings=(4,))
    make_agent(vendor, "Robot elsewhere", price_cents=9000, ratings=(5,))
    make_agent(vendor, "Human", price_cents=9000, category_id=writing.id)
    assert found("robot", category="writing", sort="price-high") == ["Robot pricey", "Robot cheap"]
    assert set(found("robot", price="50-100")) == {"Robot elsewhere", "Robot pricey"}
    assert found("robot", rating="5", sort="price-low") == ["Robot cheap", "Robot elsewhere"]
    page = catalog.list_agents(search="robot", limit=1, offset=1, sort="price-low")
    assert page.total == 3 and len(page.items) == 1


def test_relevance_ties_break_by_index_key(vendor):
    """Equal ranks: by the document's key in the search index (PostgreSQL `doc_key`, SQLite `search_key`), the
    order the agents were indexed in (their creation), so that a page of a large tie is the index's first keys
    and never needs every tie's agent id."""
    agents = [make_agent(vendor, "Same Robot", price_cents=0) for _ in range(3)]
    expected = [a.id for a in agents]
    for filters in ({}, {"price": "free"}):  # ranked inside the FTS index, and joined with agents
        assert [a.id for a in catalog.list_agents(search="robot", **filters).items] == expected
    assert [a.id for a in catalog.list_agents(search="robot", limit=1, offset=1).items] == expected[1:2]


def test_index_follows_edits_to_agents_tags_and_vendor(make_user, vendor):
    agent = make_agent(vendor, "Quasar", tags=["astronomy"], description="Looks at stars")
    assert found("quasar") == ["Quasar"]

    update_agent(agent.id, name="Pulsar", short_description="Radio", description="Listens to noise")
    assert found("quasar") == []
    assert found("pulsar radio noise") == ["Pulsar"]
    assert found("stars") == []

    update_agent(agent.id, sales_count=5, avg_rating=4.0)  # counters do not disturb the index
    with db.session_scope() as session:
        session.add(AgentTag(agent_id=agent.id, tag="telescope", position=1))
        session.delete(session.get(AgentTag, (agent.id, "astronomy")))
    assert found("telescope") == ["Pulsar"]
    assert found("astronomy") == []

    with db.session_scope() as session:
        session.get(User, vendor.id).username = "orbitalworks"
    assert found("orbitalworks") == ["Pulsar"]
    assert found("acme") == []

    other = make_user("novaco", role=Role.VENDOR)
    update_agent(agent.id, vendor_id=other.id)
    assert found("novaco") == ["Pulsar"]
    assert found("orbitalworks") == []
    check_search_index()

    with db.session_scope() as session:
        session.delete(session.get(type(agent), agent.id))
    assert agent.id not in search_documents()
    check_search_index()


def test_index_survives_a_vendor_being_deleted(make_user):
    vendor = make_user("shortlived", role=Role.VENDOR)
    agent = make_agent(vendor, "Comet", tags=["ice"])
    with db.session_scope() as session:
        session.delete(session.get(User, vendor.id))  # agents.vendor_id is set to NULL
    assert found("shortlived") == []
    assert found("comet ice") == ["Comet"]
    assert catalog.get_agent(agent_id=agent.id).vendor is None
    check_search_index()


def test_rebuild_index_restores_documents(vendor):
    make_agent(vendor, "Nebula", tags=["gas"])
    with db.engine().begin() as conn:
        table = "agent_search" if conn.dialect.name == "postgresql" else "agent_search_docs"
        conn.execute(text(f"DELETE FROM {table}"))
    assert found("nebula") == []
    with db.engine().begin() as conn:
        search.rebuild_index(conn)
    assert found("nebula gas") == ["Nebula"]
    check_search_index()


def test_search_follows_status_changes(vendor):
    agent = make_agent(vendor, "Glacier Monitor")
    assert found("glacier") == ["Glacier Monitor"]
    update_agent(agent.id, status=AgentStatus.PENDING)
    assert found("glacier") == []
    update_agent(agent.id, status=AgentStatus.APPROVED)
    assert found("glacier") == ["Glacier Monitor"]
    update_agent(agent.id, deleted_at=datetime.now(UTC))
    assert found("glacier") == []
    assert catalog.list_agents(search="glacier").total == 0
    check_search_index()


def test_search_total_counts_every_page(vendor):
    for n in range(5):
        make_agent(vendor, f"Harbor Pilot {n}", price_cents=100 * n)
    make_agent(vendor, "Harbor Hidden", status=AgentStatus.PENDING)
    page = catalog.list_agents(search="harbor", limit=2, offset=2)
    assert (len(page.items), page.total) == (2, 5)
    assert catalog.list_agents(search="harbor", limit=2, offset=10).total == 5
    assert catalog.list_agents(search="harbor", price="0-10", limit=2).total == 4
