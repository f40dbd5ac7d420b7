"""Creating and editing agents: the draft's rules (each message), ownership, and the revision of a live agent."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Agent, AgentFile, AgentRevision, AgentStatus, AgentTag
from marketplace.services import catalog
from marketplace.services.errors import Forbidden, Invalid, InvalidParameter, NotFound, Unauthorized
from marketplace.services.vendors import agents, drafts
from marketplace.services.vendors.drafts import AgentDraft
from tests.factories import make_admin, make_agent, make_category, make_user, make_vendor


@pytest.fixture
def category():
    return make_category("Writing")


def draft(category, **changes) -> AgentDraft:
    values = {"name": "Mail Bot", "short_description": "Answers mail", "description": "Reads and answers mail.",
              "price": "29.99", "category_id": category.id, "demo_url": "https://demo.example.com",
              "image_url": None, "tags": ["mail", "ai"]}
    return AgentDraft(**{**values, **changes})


def _agent(agent_id):
    with db.session_scope() as session:
        return session.get(Agent, agent_id)


def _tags(agent_id):
    with db.session_scope() as session:
        return list(session.exec(select(AgentTag.tag).where(AgentTag.agent_id == agent_id)
                                 .order_by(AgentTag.position)).all())


def test_create_agent_is_pending_with_cents_and_tags(category):
    vendor = make_vendor()
    agent_id = agents.create_agent(actor=vendor, draft=draft(category, name="  Mail Bot  ", tags=[" AI ", "", "ai",
                                                                                                     "Mail"]))
    agent = _agent(agent_id)
    assert (agent.status, agent.name, agent.price_cents, agent.vendor_id, agent.category_id) == (
        "pending", "Mail Bot", 2999, vendor.id, category.id)
    assert _tags(agent_id) == ["ai", "mail"]
    assert catalog.list_agents().total == 0  # not public before approval


@pytest.mark.parametrize(("changes", "field", "message"), [
    ({"name": "  "}, "name", "Name is required"),
    ({"name": "x" * 201}, "name", "Name must be at most 200 characters"),
    ({"short_description": ""}, "short_description", "Short description is required"),
    ({"short_description": "x" * 501}, "short_description", "Short description must be at most 500 characters"),
    ({"description": ""}, "description", "Description is required"),
    ({"description": "x" * 20_001}, "description", "Description must be at most 20000 characters"),
    ({"price": ""}, "price", "Price is required"),
    ({"price": "abc"}, "price", "Price must be a number such as 29.99"),
    ({"price": "1e3"}, "price", "Price must be a number such as 29.99"),
    ({"price": "NaN"}, "price", "Price must be a number such as 29.99"),
    ({"price": "-1"}, "price", "Price cannot be negative"),
    ({"price": "9.999"}, "price", "Price can have at most 2 decimals"),
    ({"price": "100000.01"}, "price", "Price must be at most 100000.00"),
    ({"category_id": None}, "category_id", "Category is required"),
    ({"category_id": 999_999}, "category_id", "Category not found"),
    ({"category_id": "writing"}, "category_id", "Category not found"),
    ({"demo_url": "javascript:alert(1)"}, "demo_url", "Demo URL must be a valid http(s) URL"),
    ({"demo_url": "ftp://files.example.com"}, "demo_url", "Demo URL must be a valid http(s) URL"),
    ({"image_url": "https://"}, "image_url", "Image URL must be a valid http(s) URL"),
    ({"image_url": "https://a b.com/x.png"}, "image_url", "Image URL must be a valid http(s) URL"),
    ({"image_url": "/api/demo-images/blogsmith.svg?v=000000000000"}, "image_url",
     "Image URL must be a valid http(s) URL"),
    ({"image_url": "/api/demo-images/../secret.svg"}, "image_url", "Image URL must be a valid http(s) URL"),
    ({"tags": ["a", "b", "c", "d", "e", "f"]}, "tags", "Maximum 5 tags allowed to prevent spam"),
    ({"tags": ["x" * 51]}, "tags", "Each tag must be at most 50 characters"),
    ({"trial_days": 31}, "trial_days", drafts.TRIAL_DAYS_INVALID),
    ({"trial_days": -1}, "trial_days", drafts.TRIAL_DAYS_INVALID),
    ({"trial_days": "7.5"}, "trial_days", drafts.TRIAL_DAYS_INVALID),
    ({"trial_days": "a week"}, "trial_days", drafts.TRIAL_DAYS_INVALID),
    ({"trial_days": True}, "trial_days", drafts.TRIAL_DAYS_INVALID),
    ({"trial_days": 7, "pricing_model": "one_time"}, "trial_days", drafts.TRIAL_NEEDS_MONTHLY),
])
def test_bad_drafts_are_refused_with_their_message(category, changes, field, message):
    vendor = make_vendor()
    with pytest.raises(Invalid) as refused:
        agents.create_agent(actor=vendor, draft=draft(category, **changes))
    assert (refused.value.message, refused.value.field) == (message, field)
    with db.session_scope() as session:
        assert session.exec(select(Agent)).all() == []


def test_a_demo_agent_keeps_its_shipped_picture_on_an_edit(category):
    from marketplace.services import demo_images

    picture = demo_images.url_for("BlogSmith")
    assert picture is not None
    agent_id = agents.create_agent(actor=make_vendor(), draft=draft(category, image_url=picture))
    assert _agent(agent_id).image_url == picture


def test_control_characters_are_422(category):
    with pytest.raises(InvalidParameter, match="Name contains characters"):
        agents.create_agent(actor=make_vendor(), draft=draft(category, name="Bad\x00name"))
    agent_id = agents.create_agent(actor=make_vendor(), draft=draft(category, description="line 1\n\tline 2\r\n"))
    assert _agent(agent_id).description == "line 1\n\tline 2"


@pytest.mark.parametrize(("price", "cents"), [("0", 0), ("0.5", 50), ("10", 1000), ("29.9", 2990), (" 29.99 ", 2999),
                                              ("100000.00", 10_000_000), (".99", 99), (12, 1200), (9.5, 950)])
def test_prices_become_cents(price, cents):
    assert drafts.parse_price(price) == cents


def test_parse_tags_for_the_wizard():
    assert drafts.parse_tags(" AI, , writing ,ai,") == ["ai", "writing"]
    assert drafts.parse_tags("") == []
    with pytest.raises(Invalid, match=r"^Maximum 5 tags allowed to prevent spam$"):
        drafts.parse_tags("a,b,c,d,e,f")


def test_only_approved_vendors_create(category):
    with pytest.raises(Unauthorized):
        agents.create_agent(actor=None, draft=draft(category))
    for user in (make_user(), make_vendor(vendor_approved=False)):
        with pytest.raises(Forbidden, match="Vendor access required"):
            agents.create_agent(actor=user, draft=draft(category))


def test_editing_a_pending_or_rejected_agent_updates_it_and_resubmits(category):
    vendor = make_vendor()
    rejected = make_agent(vendor, status=AgentStatus.REJECTED, rejection_reason="No demo", tags=["old"])
    agents.update_agent(actor=vendor, agent_id=rejected.id, draft=draft(category, name="Better", price="5"))
    agent = _agent(rejected.id)
    assert (agent.status, agent.rejection_reason, agent.name, agent.price_cents) == ("pending", None, "Better", 500)
    assert _tags(rejected.id) == ["mail", "ai"]
    with db.session_scope() as session:
        assert session.exec(select(AgentRevision)).all() == []


def test_only_the_owner_edits(category):
    vendor, rival = make_vendor(), make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    with pytest.raises(Forbidden, match="You can only change your own agents"):
        agents.update_agent(actor=rival, agent_id=agent.id, draft=draft(category))
    with pytest.raises(Forbidden):
        agents.update_agent(actor=make_admin(), agent_id=agent.id, draft=draft(category))
    with pytest.raises(Forbidden):
        agents.get_editable_agent(actor=rival, agent_id=agent.id)
    with pytest.raises(Forbidden, match="Vendor access required"):
        agents.update_agent(actor=make_user(), agent_id=agent.id, draft=draft(category))
    with pytest.raises(NotFound):
        agents.update_agent(actor=vendor, agent_id="missing", draft=draft(category))
    deleted = make_agent(vendor, deleted_at=agent.created_at)
    with pytest.raises(NotFound):
        agents.update_agent(actor=vendor, agent_id=deleted.id, draft=draft(category))
    with pytest.raises(Invalid, match="Name is required"):
        agents.update_agent(actor=vendor, agent_id=agent.id, draft=draft(category, name=""))
    assert _agent(agent.id).name == agent.name


def test_editing_a_live_agent_makes_one_pending_revision_and_keeps_the_listing(category):
    vendor = make_vendor()
    live = make_agent(vendor, name="Live", category=category, tags=["old"], files=2, price_cents=1000)
    before = catalog.get_agent(agent_id=live.id)
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category, name="Renamed", tags=["new"]))
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category, name="Renamed again", tags=["new"]))
    assert catalog.get_agent(agent_id=live.id) == before  # the live listing is untouched
    with db.session_scope() as session:
        [revision] = session.exec(select(AgentRevision)).all()
        copies = session.exec(select(AgentFile).where(AgentFile.version == 2)).all()
    assert (revision.status, revision.version, revision.files_changed) == ("pending", 2, False)
    changes = json.loads(revision.changes)
    assert (changes["name"], changes["tags"], changes["price_cents"]) == ("Renamed again", ["new"], 2999)
    assert sorted(c.storage_key for c in copies) == [f"agents/{live.id}/0.zip", f"agents/{live.id}/1.zip"]
    editable = agents.get_editable_agent(actor=vendor, agent_id=live.id)
    assert editable.has_pending_revision and editable.status == "approved"
    assert (editable.draft.name, editable.draft.price, editable.draft.tags) == ("Renamed again", "29.99", ["new"])
    assert {f.id for f in editable.files} == {c.id for c in copies}
    [listed] = agents.list_own_agents(actor=vendor)
    assert listed.has_pending_revision and listed.pending_revision.version == 2 and listed.file_count == 2
    assert listed.name == "Live"


def test_saving_a_live_agent_unchanged_makes_no_revision(category):
    vendor = make_vendor()
    live = make_agent(vendor, name="Mail Bot", short_description="Answers mail", description="Reads and answers mail.",
                      category=category, tags=["mail", "ai"], demo_url="https://demo.example.com")
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category))
    with db.session_scope() as session:
        assert session.exec(select(AgentRevision)).all() == []
    assert not agents.list_own_agents(actor=vendor)[0].has_pending_revision


def test_editable_agent_of_a_new_agent(category):
    vendor = make_vendor()
    agent_id = agents.create_agent(actor=vendor, draft=draft(category))
    editable = agents.get_editable_agent(actor=vendor, agent_id=agent_id)
    assert editable.draft == draft(category, price="29.99", pricing_model="monthly", activation_limit=3,
                                   trial_days=0, version_label="1.0.0", release_notes="")
    assert (editable.status, editable.has_pending_revision, editable.files) == ("pending", False, [])


def test_trial_days_are_set_kept_and_proposed_for_new_subscribers_of_a_live_agent(category):
    """0-30 free days (a number or its text), kept by an edit that leaves them out; on a live agent a change waits
    in the pending revision (the admin sees old -> new) and the listing keeps its trial until approved."""
    from marketplace.services.admin import moderation

    assert drafts.TRIAL_DAYS_INVALID == "Free trial must be a whole number of days from 0 (no trial) to 30"
    vendor = make_vendor()
    created = agents.create_agent(actor=vendor, draft=draft(category, trial_days="14"))
    assert _agent(created).trial_days == 14
    agents.update_agent(actor=vendor, agent_id=created, draft=draft(category, name="Renamed"))
    assert _agent(created).trial_days == 14  # left out: kept
    agents.update_agent(actor=vendor, agent_id=created, draft=draft(category, pricing_model="one_time"))
    assert _agent(created).trial_days == 0  # a one-time licence has none
    live = make_agent(vendor, name="Mail Bot", short_description="Answers mail", description="Reads and answers mail.",
                      category=category, tags=["mail", "ai"], demo_url="https://demo.example.com", trial_days=7)
    assert catalog.get_agent(agent_id=live.id).trial_days == 7
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category, trial_days=30))
    assert _agent(live.id).trial_days == 7 and catalog.get_agent(agent_id=live.id).trial_days == 7
    assert agents.get_editable_agent(actor=vendor, agent_id=live.id).draft.trial_days == 30
    [revision] = [item for item in moderation.list_pending(actor=make_admin())[0] if item.agent_id == live.id]
    assert [(c.field, c.old, c.new) for c in revision.field_changes] == [("trial_days", 7, 30)]
    assert revision.trial_days == 30
    moderation.approve(actor=make_admin(), agent_id=live.id)
    assert _agent(live.id).trial_days == 30 and catalog.get_agent(agent_id=live.id).trial_days == 30


def test_trial_days_of_another_vendors_agent_are_refused(category):
    vendor, rival = make_vendor(), make_vendor()
    agent = make_agent(vendor, status=AgentStatus.APPROVED, trial_days=7)
    with pytest.raises(Forbidden, match="You can only change your own agents"):
        agents.update_agent(actor=rival, agent_id=agent.id, draft=draft(category, trial_days=0))
    with pytest.raises(Unauthorized):
        agents.update_agent(actor=None, agent_id=agent.id, draft=draft(category, trial_days=0))
    assert _agent(agent.id).trial_days == 7
