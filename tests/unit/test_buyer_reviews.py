"""Reviews from buyers (issue 33): half stars for an average rating, and demo reviews written by demo buyers."""

from __future__ import annotations

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Review
from marketplace.services import catalog, demo, reviews
from marketplace.state.agent_detail import agent_view
from marketplace.state.catalog import star_fill
from tests import factories


@pytest.mark.parametrize(("average", "drawn"), [
    ("4.50", (4, True)),  # four and a half, not five full stars
    ("4.5", (4, True)),
    ("4.74", (4, True)),
    ("4.75", (5, False)),
    ("5.00", (5, False)),
    ("4.24", (4, False)),
    ("4.25", (4, True)),
    ("0.00", (0, False)),
    ("0.3", (0, True)),
    ("1", (1, False)),
    ("7", (5, False)),  # bounded
    ("-1", (0, False)),
    ("n/a", (0, False)),
])
def test_star_fill_rounds_to_the_nearest_half_star(average, drawn):
    assert star_fill(average) == drawn


def test_the_agent_page_draws_four_and_a_half_stars_for_4_5():
    agent = factories.make_agent(factories.make_vendor())
    factories.make_review(agent, rating=5)
    factories.make_review(agent, rating=4)
    view = agent_view(catalog.get_agent(agent_id=agent.id))
    assert (view.rating, view.stars, view.half_star) == ("4.5", 4, True)


def test_every_demo_review_comes_from_a_demo_buyer():
    demo.seed()
    with db.session_scope() as session:
        seeded = session.exec(select(Review.user_id, Review.agent_id)).all()
        assert seeded, "the demo has reviews"
        assert all(reviews.may_review(session, user_id=user_id, agent_id=agent_id) for user_id, agent_id in seeded)
    listed = reviews.list_reviews(agent_id=seeded[0][1]).items
    assert listed and all(r.verified_purchase for r in listed)
