"""The preview pictures: 1200x630 PNGs for any text, long texts fitted, and a stamp that follows what is drawn."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image

from marketplace.services.seo import preview_image, previews
from marketplace.services.seo.preview_image import AgentCard, drawable_text, fit_lines
from tests.factories import make_agent, make_category

CARD = AgentCard(name="InvoiceFlow", tagline="Invoices on autopilot", price="$29.99/month",
                 category="Business Automation", rating=4.5, reviews=12, site="localhost:3000")


def _open(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@pytest.mark.parametrize("name", [
    "", " ", "A" * 5000, "Café Über-Agent", "日本語のエージェント", "وكيل الفواتير", "🤖🚀 Emoji Bot",
    "Lone \ud800 surrogate", "Tab\tnew\nline\x00null\u200bzero-width", "W" * 300, "a " * 400,
    "</title><script>alert(1)</script>", "\U0001F600" * 100,
])
def test_any_name_draws_a_1200x630_png(name):
    png = preview_image.agent_png(replace(CARD, name=name, tagline=name, category=name))
    image = _open(png)
    assert (image.format, image.size) == ("PNG", (1200, 630))


def test_the_site_picture_is_a_1200x630_png():
    image = _open(preview_image.site_png(site="market.example"))
    assert (image.format, image.size) == ("PNG", (1200, 630))


def test_without_reviews_no_rating_is_drawn():
    assert preview_image.agent_png(replace(CARD, reviews=0, rating=0)) != preview_image.agent_png(CARD)
    assert preview_image.agent_png(replace(CARD, reviews=0, rating=0)) == \
        preview_image.agent_png(replace(CARD, reviews=0, rating=4.0))  # an average without reviews is not shown


def test_text_is_made_drawable_accents_folded_and_invisible_characters_dropped():
    assert drawable_text("Café  Über\tAgent") == "Cafe Uber Agent"
    assert drawable_text("a\x00b\u200bc\ud800d\ue000e") == "abcde"
    assert drawable_text("日本") == "日本"  # no such letters in the font: drawn as its box, not dropped


def test_long_text_wraps_to_its_lines_and_ends_with_an_ellipsis():
    text = "Extraordinarily long agent name " * 10
    lines = fit_lines(drawable_text(text), size=64, max_width=1040, max_lines=2)
    assert len(lines) == 2 and lines[-1].endswith("...")
    assert all(preview_image.font(64).getlength(line) <= 1040 for line in lines)
    word = fit_lines("X" * 500, size=64, max_width=1040, max_lines=2)
    assert len(word) == 2 and word[1].endswith("...")
    assert fit_lines("Short name", size=64, max_width=1040, max_lines=2) == ["Short name"]


def test_the_stamp_follows_what_the_picture_shows():
    category = make_category("Data Analysis")
    agent = previews.catalog.get_agent(agent_id=make_agent(category=category, ratings=(5, 4)).id)
    card = previews.card(agent)
    assert (card.price, card.category, card.rating, card.reviews) == ("$29.99/month", "Data Analysis", 4.5, 2)
    path = previews.preview_path(agent=agent)
    assert path == f"/og/agents/{agent.id}.png?v={previews.stamp(card)}"
    for change in ({"price": "49.00"}, {"pricing_model": "one_time"}, {"avg_rating": "4.00"}, {"review_count": 3},
                   {"name": "Other"}, {"short_description": "Other"}, {"category": None}):
        assert previews.preview_path(agent=agent.model_copy(update=change)) != path
    assert previews.preview_path(agent=agent.model_copy(update={"view_count": 9})) == path
    assert previews.card(agent.model_copy(update={"price": "0.00"})).price == "Free"
