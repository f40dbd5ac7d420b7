"""Typo-tolerant search: a word of four or more letters one edit away from the catalogue's words still finds the
agents, after every exact match, on both databases."""

from datetime import UTC, datetime

import pytest

from marketplace import db
from marketplace.models import AgentStatus, Role
from marketplace.services import catalog
from marketplace.services.catalog import search
from tests.factories import make_agent, make_category


@pytest.fixture
def vendor(make_user):
    return make_user("acme", role=Role.VENDOR, vendor_approved=True)


def found(query, **filters):
    return [a.name for a in catalog.list_agents(search=query, **filters).items]


def test_edits_are_distance_one_and_long_enough():
    edits = search.edits("invoce")
    assert {"invoice", "invoke", "invoc", "nvoce", "inovce", "inxvoce"} <= edits
    assert "invoce" not in edits and "invoic" not in edits  # distance 0 and 2
    assert "invocee" not in edits  # starts with the word: its own prefix search finds it
    assert all(len(e) >= search.MIN_FUZZY_LENGTH for e in search.edits("data"))


def test_one_wrong_missing_extra_or_swapped_letter_finds_the_agent(vendor):
    make_agent(vendor, "InvoiceFlow", short_description="Reads invoices and books them in your ledger.")
    make_agent(vendor, "Spreadsheet Analyst", tags=["analytics"])
    make_agent(vendor, "Unrelated")
    assert found("invoce") == ["InvoiceFlow"]  # a letter missing
    assert found("invoixe") == ["InvoiceFlow"]  # a letter wrong
    assert found("anlytics") == ["Spreadsheet Analyst"]
    assert found("analyttics") == ["Spreadsheet Analyst"]  # a letter extra
    assert found("naalytics") == ["Spreadsheet Analyst"]  # neighbours swapped
    assert found("spreadsheet anlytics") == ["Spreadsheet Analyst"]  # with an exact word
    assert found("spredsheet anlytics") == ["Spreadsheet Analyst"]  # two words corrected
    assert found("spredsheet analy") == ["Spreadsheet Analyst"]  # the last word still typed as a prefix
    assert catalog.list_agents(search="invoce").total == 1


def test_exact_matches_come_before_typo_matches(vendor):
    # "plane" is no word of the catalogue: it matches "planet" as typed (a prefix) and "plant" by one letter.
    # The typo match has the stronger text (name and tag) and is newer, and still comes after.
    make_agent(vendor, "Star Tracker", description="Follows a planet across the sky.",
               created_at=datetime(2025, 1, 1, tzinfo=UTC))
    make_agent(vendor, "Plant Care", tags=["plant"], created_at=datetime(2025, 6, 1, tzinfo=UTC))
    assert found("plane") == ["Star Tracker", "Plant Care"]
    assert found("plane", sort="newest") == ["Star Tracker", "Plant Care"]
    page = catalog.list_agents(search="plane", limit=1, offset=1)
    assert [a.name for a in page.items] == ["Plant Care"] and page.total == 2
    page = catalog.list_agents(search="plane", limit=1)
    assert [a.name for a in page.items] == ["Star Tracker"] and page.total == 2
    assert catalog.list_agents(search="plane", limit=5, offset=2).items == []
    assert catalog.list_agents(search="plane", limit=5, offset=2).total == 2


def test_known_words_are_not_fuzzed(vendor):
    make_agent(vendor, "Date Picker")
    make_agent(vendor, "Data Cleaner")
    assert found("date") == ["Date Picker"]
    assert found("data") == ["Data Cleaner"]


def test_short_words_and_distance_two_are_not_matched(vendor):
    make_agent(vendor, "CRM Sync", tags=["crm"])
    make_agent(vendor, "InvoiceFlow", short_description="Reads invoices.")
    assert found("crn") == []  # three letters: never fuzzed
    assert found("invce") == []  # two letters off "invoice"
    assert found("ivnoxce") == []


def test_typos_combine_with_filters(vendor):
    writing = make_category("Writing", slug="writing")
    make_agent(vendor, "Robot Writer", category_id=writing.id, price_cents=500)
    make_agent(vendor, "Robot Reader", price_cents=9000)
    assert found("robto", category="writing") == ["Robot Writer"]
    assert found("robto", price="50-100") == ["Robot Reader"]
    assert found("robto", sort="price-high") == ["Robot Reader", "Robot Writer"]


def test_agents_that_are_not_live_are_never_found_through_a_typo(vendor):
    make_agent(vendor, "Zephyrix Pending", status=AgentStatus.PENDING)
    make_agent(vendor, "Quillmate Rejected", status=AgentStatus.REJECTED)
    gone = make_agent(vendor, "Marvolo Deleted")
    with db.session_scope() as session:
        agent = session.get(type(gone), gone.id)
        agent.deleted_at = datetime.now(UTC)
    make_agent(vendor, "Zorblat Live")
    assert found("zephyrix") == []
    assert found("zephyrxi") == []
    assert found("quilmate") == []
    assert found("marvlo") == []
    assert found("zorbalt") == ["Zorblat Live"]
