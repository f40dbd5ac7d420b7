"""The display records the catalog pages render: prices, ratings, tag truncation, status labels, /agents links; listing
pages' cards built once per page; the session token read from the cookie header."""

from __future__ import annotations

from datetime import UTC, datetime

from marketplace.models import AgentPublic, CategoryRef, VendorRef
from marketplace.services.auth import SESSION_COOKIE
from marketplace.services.catalog.listing import AGENT_LIST, AgentListing
from marketplace.state import catalog as catalog_state
from marketplace.state.agent_detail import agent_view, long_date
from marketplace.state.catalog import agent_card, agents_url, price_parts, rating_label
from marketplace.state.session import session_token


def _agent(**fields: object) -> AgentPublic:
    base: dict[str, object] = {
        "id": "a1", "name": "BlogSmith", "short_description": "Blog posts", "description": "Long text",
        "price": "29.99", "tags": ["writing", "seo", "chatgpt"], "is_featured": True, "is_approved": True,
        "status": "approved", "avg_rating": "4.25", "review_count": 4, "vendor_id": "v1",
        "vendor": VendorRef(id="v1", username="vendor"),
        "category_id": 1, "category": CategoryRef(id=1, name="Content Creation", slug="content-creation", emoji="✍️"),
        "created_at": datetime(2025, 3, 5, 12, tzinfo=UTC), "updated_at": datetime(2025, 11, 20, 8, tzinfo=UTC),
    }
    return AgentPublic(**(base | fields))


def test_prices_read_per_month_or_one_time_amounts_or_free() -> None:
    assert price_parts("29.99", "monthly") == ("$29.99", "/month")
    assert price_parts("49.00", "one_time") == ("$49.00", " one-time")
    assert price_parts("0.00", "monthly") == ("Free", "")
    assert price_parts("0", "one_time") == ("Free", "")
    assert price_parts("1215.83", "monthly") == ("$1,215.83", "/month")


def test_ratings_show_one_decimal() -> None:
    assert rating_label("4.25") == "4.3"  # half up, not Python's half to even
    assert rating_label("4.24") == "4.2"
    assert rating_label("4.50") == "4.5"
    assert rating_label("0.00") == "0.0"
    assert rating_label("not a number") == "0.0"


def test_card_keeps_two_tags_and_counts_the_rest() -> None:
    card = agent_card(_agent(tags=["a", "b", "c", "d", "e"]), {"a1"})
    assert card.tags == ["a", "b"]
    assert card.more_tags == 3
    assert card.bought is True
    assert (card.price, card.category_name, card.vendor_name) == ("$29.99", "Content Creation", "vendor")
    assert card.price_suffix == "/month"
    licence = agent_card(_agent(price="49.00", pricing_model="one_time"))
    assert (licence.price, licence.price_suffix, licence.is_free) == ("$49.00", " one-time", False)
    assert agent_view(_agent(price="49.00", pricing_model="one_time")).price_suffix == " one-time"
    short = agent_card(_agent(tags=["only"], price="0.00", image_url=None, category=None, vendor=None))
    assert (short.tags, short.more_tags, short.bought, short.is_free) == (["only"], 0, False, True)
    assert (short.image_url, short.category_name, short.vendor_name) == ("", "", "")


def test_detail_status_labels_and_dates() -> None:
    assert agent_view(_agent()).status_label == "Approved"
    assert agent_view(_agent(status="rejected")).status_label == "Rejected"
    assert agent_view(_agent(status="pending")).status_label == "Pending"
    assert agent_view(_agent(status="something-else")).status_label == "Pending"
    view = agent_view(_agent())
    assert (view.created, view.updated) == ("March 5, 2025", "November 20, 2025")
    assert view.stars == 4
    half = agent_view(_agent(avg_rating="4.50"))
    assert (half.stars, half.half_star) == (4, True)  # four and a half stars, not five (issue 33)
    assert agent_view(_agent(category=None)).category_name == "Uncategorized"
    assert long_date(datetime(2024, 1, 9, tzinfo=UTC)) == "January 9, 2024"


def test_agents_links_leave_out_defaults_and_repeat_tags() -> None:
    assert agents_url() == "/agents"
    assert agents_url(search="", category="all", price="any") == "/agents"
    assert agents_url(search="blog post", category="marketing", price="100+") == (
        "/agents?search=blog+post&category=marketing&price=100%2B"
    )
    assert agents_url(tag=["automation", "writing"], rating="4+") == "/agents?tag=automation&tag=writing&rating=4%2B"


def test_filter_labels_cover_exactly_the_service_filters() -> None:
    from marketplace.services import catalog
    from marketplace.state.catalog import BROWSE_PRICES, HOME_PRICES, PRICE_LABELS, RATING_LABELS

    assert PRICE_LABELS == {
        "any": "Any price", "free": "Free", "0-10": "$0 - $10", "10-50": "$10 - $50", "50-100": "$50 - $100",
        "100+": "$100+", "1-25": "$1 - $25", "26-50": "$26 - $50", "51-100": "$51 - $100",
    }
    assert RATING_LABELS == {"any": "Any rating", "5": "5 stars", "4+": "4+ stars", "3+": "3+ stars", "2+": "2+ stars"}
    assert set(PRICE_LABELS) == {catalog.ANY, *catalog.PRICE_RANGES}
    assert set(RATING_LABELS) == {catalog.ANY, *catalog.RATING_FILTERS}
    assert BROWSE_PRICES == ("any", "free", "0-10", "10-50", "50-100", "100+")
    assert HOME_PRICES == ("any", "free", "1-25", "26-50", "51-100", "100+")


def test_address_filter_values_read_as_the_service_reads_them() -> None:
    from marketplace.services import catalog

    # An unescaped '+' arrives as a space: "100+" -> "100 ", "4+" -> "4 ".
    assert [catalog.price_filter(v) for v in ("100 ", "100", " FREE", "10-50", "bogus", "", None)] == [
        "100+", "100+", "free", "10-50", "any", "any", "any",
    ]
    assert [catalog.rating_filter(v) for v in ("4 ", "3", "2", "5", "5+", "1", None)] == [
        "4+", "3+", "2+", "5", "any", "any", "any",
    ]
    assert catalog.parse_filters(price="100 ", rating="4 ").price == catalog.PRICE_RANGES["100+"]
    assert catalog.parse_filters(rating="3").min_rating == 3.0


def test_a_listing_page_cards_are_built_once_and_bought_marks_go_on_copies(monkeypatch) -> None:
    listing = AgentListing(json=AGENT_LIST.dump_json([_agent(), _agent(id="a2", name="Other")], by_alias=True)
                           .decode(), total=2)
    built: list[str] = []
    real = catalog_state.agent_card
    monkeypatch.setattr(catalog_state, "agent_card", lambda agent, *a: built.append(agent.id) or real(agent, *a))
    cards = catalog_state._listing_cards.cards(listing)
    again = catalog_state._listing_cards.cards(AgentListing(json=listing.json, total=2))
    assert again is cards and built == ["a1", "a2"]  # the same page text: the same cards, built once
    assert cards == tuple(agent_card(a) for a in listing.page().items)
    marked = catalog_state.with_bought(cards, {"a2"})
    assert [c.bought for c in marked] == [False, True] and marked[0] is cards[0]
    assert [c.bought for c in cards] == [False, False]  # the shared cards keep no viewer's marks


def test_the_session_token_is_read_from_the_cookie_header() -> None:
    assert session_token(f"theme=dark; {SESSION_COOKIE}=abc123; other=1") == "abc123"
    assert session_token("theme=dark") is None
    assert session_token("") is None
    assert session_token(f'{SESSION_COOKIE}="unterminated') is None  # unparsable: no session
