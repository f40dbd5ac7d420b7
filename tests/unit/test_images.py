"""Which image addresses pages load, and the demo agents' shipped pictures."""

from __future__ import annotations

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Agent
from marketplace.services import catalog, demo, demo_images
from marketplace.services.images import displayable_image_url, is_web_url
from marketplace.state.catalog import agent_card
from tests.factories import make_agent


@pytest.mark.parametrize("url", [
    "https://cdn.example.com/agent.png",
    "http://example.com/a.png?size=2",
    "HTTPS://EXAMPLE.COM/A.PNG",
    "/api/demo-images/blogsmith.svg?v=0123456789ab",
])
def test_web_and_own_pictures_are_shown(url):
    assert displayable_image_url(url) == url


@pytest.mark.parametrize("url", [
    None, "", "   ",
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
    "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "blob:https://example.com/1",
    "vbscript:msgbox(1)", "ftp://files.example.com/a.png", "file:///etc/passwd",
    "//evil.example.com/a.png",  # protocol-relative: another host
    "/uploads/a.png", "a.png", "/api/demo-images//evil.example.com/a.svg", "/api/demo-images\\..\\x",
    "https://", "https://a b.com/x.png", "https://example.com/\u0000.png", "http://[::1",
    "https://example.com/" + "a" * 1000,
])
def test_other_addresses_become_the_placeholder(url):
    assert displayable_image_url(url) == ""


def test_submission_and_display_share_the_rule():
    assert is_web_url("https://example.com/x.png") and not is_web_url("javascript:alert(1)")


def test_shipped_pictures_are_what_the_generator_draws():
    """The committed files match `python -m dev.demo_pictures`: deterministic, one per agent."""
    names = demo.demo_agent_names()
    files = {p.name for p in demo_images.IMAGE_DIR.glob("*.svg")}
    assert files == {f"{demo_images.slug(n)}.svg" for n in names}
    pictures = [demo_images.read(f"{demo_images.slug(n)}.svg") for n in names]
    assert pictures == [demo_images.render(n).encode() for n in names]
    assert len(set(pictures)) == len(names)  # each agent its own picture
    assert all(len(p) < 4096 and p.startswith(b"<svg") and b"<script" not in p for p in pictures)


@pytest.mark.parametrize("name", ["../demo.py", "blogsmith.svg/..", "BlogSmith.svg", "blogsmith.png", "x.svg", ""])
def test_only_shipped_file_names_are_read(name):
    assert demo_images.read(name) is None


def test_demo_agents_get_their_pictures_and_old_seeds_are_filled_in():
    demo.seed()
    with db.session_scope() as session:
        agents = session.exec(select(Agent).where(Agent.name.in_(demo.demo_agent_names()))).all()
        assert len(agents) == len(demo.demo_agent_names())
        urls = {a.name: a.image_url for a in agents}
        assert urls["BlogSmith"] == demo_images.url_for("BlogSmith")
        assert urls["BlogSmith"].startswith("/api/demo-images/blogsmith.svg?v=")
        assert len(set(urls.values())) == len(urls)
        for agent in agents[:3]:
            agent.image_url = None  # as seeded before the pictures shipped
            session.add(agent)
        agents[3].image_url = "https://vendor.example.com/own.png"  # a vendor's own picture stays
        session.add(agents[3])
        kept = agents[3].name
    demo.seed()
    with db.session_scope() as session:
        after = {a.name: a.image_url for a in session.exec(select(Agent)).all()}
    assert {name: after[name] for name in urls if name != kept} == {n: u for n, u in urls.items() if n != kept}
    assert after[kept] == "https://vendor.example.com/own.png"


@pytest.mark.parametrize(("stored", "shown"), [
    ("javascript:alert(document.cookie)", ""),  # written around the submission check (an old row, a script)
    ("https://vendor.example.com/a.png", "https://vendor.example.com/a.png"),
])
def test_agent_cards_show_only_allowed_addresses(stored, shown):
    agent = make_agent(image_url=stored)
    assert agent_card(catalog.get_agent(agent_id=agent.id)).image_url == shown
