"""What /agents/{id} reads (services/agent_page.py): the same answers as the five services it replaces, in one
statement for a signed-in viewer once the catalog cache holds the agent and its reviews (issue 21)."""

from __future__ import annotations

import pytest

from marketplace.services import agent_page, catalog, favorites, reports
from marketplace.services import reviews as review_service
from marketplace.services.errors import NotFound
from tests import factories
from tests.catalog_helpers import statements


def test_the_page_answers_as_the_services_it_replaces() -> None:
    vendor, viewer = factories.make_vendor(), factories.make_user()
    agent = factories.make_agent(vendor)
    other = factories.make_buyer(agent)
    review_service.submit_review(actor=other, agent_id=agent.id, rating=4, comment="Good")
    favorites.add_favorite(actor=viewer, agent_id=agent.id)
    factories.make_report(agent, viewer)
    factories.make_purchase(viewer, agent)

    page = agent_page.agent_page(agent_id=agent.id, actor=viewer)
    assert page.agent == catalog.get_agent(agent_id=agent.id, actor=viewer)
    assert page.reviews == review_service.list_reviews(agent_id=agent.id, actor=viewer)
    assert [r.comment for r in page.reviews.items] == ["Good"]
    assert (page.is_favorited, page.has_reported, page.bought, page.may_review) == (True, True, True, True)
    assert reports.has_reported(actor=viewer, agent_id=agent.id).has_reported

    reviewer = agent_page.agent_page(agent_id=agent.id, actor=other)
    assert (reviewer.is_favorited, reviewer.has_reported, reviewer.bought, reviewer.may_review) == (
        False, False, True, True)
    stranger = agent_page.agent_page(agent_id=agent.id, actor=factories.make_user())
    assert (stranger.is_favorited, stranger.has_reported, stranger.bought, stranger.may_review) == (
        False, False, False, False)
    signed_out = agent_page.agent_page(agent_id=agent.id, actor=None)
    assert (signed_out.is_favorited, signed_out.has_reported, signed_out.bought) == (False, False, False)


def test_a_pending_agent_shows_to_its_vendor_only() -> None:
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, status="pending")
    assert agent_page.agent_page(agent_id=agent.id, actor=vendor).agent.id == agent.id
    for actor in (None, factories.make_user()):
        with pytest.raises(NotFound):
            agent_page.agent_page(agent_id=agent.id, actor=actor)


def test_a_cached_agent_costs_one_statement_for_a_signed_in_viewer() -> None:
    viewer = factories.make_user()
    agent = factories.make_agent(factories.make_vendor())
    agent_page.agent_page(agent_id=agent.id, actor=viewer)  # fills the catalog cache
    # Besides the cache's own check of the catalog version (none on PostgreSQL once its listener has caught up).
    seen = [s for s in statements(lambda: agent_page.agent_page(agent_id=agent.id, actor=viewer))
            if "catalog_version" not in s]
    assert len(seen) == 1 and "favorites" in seen[0] and "reports" in seen[0] and "purchases" in seen[0], seen
    assert [s for s in statements(lambda: agent_page.agent_page(agent_id=agent.id, actor=None))
            if "catalog_version" not in s] == []
