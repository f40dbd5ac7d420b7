"""What the admin moderation tabs make of the services' answers: failure texts, cards, ranking links."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from marketplace.services.admin.catalog import AdminAgentRow
from marketplace.services.admin.moderation import FieldChange, FileInfo, PendingItem, VendorInfo
from marketplace.services.errors import Conflict, NotFound
from marketplace.services.scanning import ScanView
from marketplace.state.admin.analytics import _category_href, _count
from marketplace.state.admin.approvals import _pending_card, _reviewed_card
from marketplace.state.admin.page import failure_text
from marketplace.state.admin.reports import report_type

WHEN = datetime(2025, 1, 5, 15, 4, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")


def _item(**fields: object) -> PendingItem:
    values: dict = dict(kind="agent", agent_id="a1", revision_id=None, name="Inbox Pilot", short_description="Short",
                        description="Long", price_cents=2999, pricing_model="monthly", demo_url=None, image_url=None,
                        tags=["mail"],
                        category_id=1, category_name="Productivity", vendor=VendorInfo("v1", "vendor", "v@x.test"),
                        submitted_at=WHEN, file_count=2)
    values.update(fields)
    return PendingItem(**values)


def _row(**fields: object) -> AdminAgentRow:
    values: dict = dict(id="a2", name="Spam Cannon", short_description="", description="", price_cents=0,
                        pricing_model="monthly",
                        status="rejected", is_approved=False, avg_rating=0.0, review_count=0, vendor_id=None,
                        vendor_username=None, category_id=None, category_name=None, demo_url=None, image_url=None,
                        tags=[], created_at=WHEN)
    values.update(fields)
    return AdminAgentRow(**values)


def test_failure_text_adds_the_services_reason_as_a_sentence():
    assert failure_text(Conflict("An agent without files cannot be approved"), "Failed to approve agent.") == (
        "Failed to approve agent. An agent without files cannot be approved.")
    assert failure_text(NotFound("Gone."), "Failed to reject vendor.") == "Failed to reject vendor. Gone."
    assert failure_text(RuntimeError("db down"), "Failed to approve vendor.") == "Failed to approve vendor."


def test_pending_card_of_a_new_agent_and_of_a_revision():
    card = _pending_card(_item(), ZoneInfo("Europe/Berlin"))
    assert (card.price, card.category, card.vendor_username, card.is_revision) == (
        "$29.99/month", "Productivity", "vendor", False)
    assert card.submitted == "Jan 5, 2025" and card.submitted_at == "Jan 5, 2025 • 4:04 PM"  # local time
    revision = _pending_card(_item(kind="revision", revision_id="r1", price_cents=0, category_name=None, vendor=None,
                                   changed_fields=["price_cents", "tags", "demo_url"], files_added=["new.py"],
                                   files_removed=["old.py"],
                                   field_changes=[FieldChange("price_cents", 1900, 0),
                                                  FieldChange("tags", ["mail"], []),
                                                  FieldChange("demo_url", None, "https://demo.test")],
                                   files=[FileInfo("f1", "new.py", 1536, "text/x-python")]), UTC_ZONE)
    assert (revision.price, revision.category, revision.vendor_username) == ("Free", "Uncategorized", "Unknown")
    assert revision.is_revision and [(c.label, c.old, c.new) for c in revision.changes] == [
        ("Price", "$19.00/month", "Free"), ("Tags", "mail", "No tags"), ("Demo URL", "—", "https://demo.test")]
    assert [(f.name, f.size, f.checked_type, f.href) for f in revision.files] == [
        ("new.py", "1.5 KB", "text/x-python", "/api/admin/agent-files/f1")]
    assert (revision.files_added, revision.files_removed) == (["new.py"], ["old.py"])


def test_pending_files_show_their_scan_and_every_finding_to_the_admin():
    secret = {"kind": "secret", "name": "AWS access key", "member": "conf/.env", "detail": "AKIA…MPLE"}
    files = [FileInfo("f1", "agent.zip", 10, "application/zip",
                      ScanView(status="flagged", findings=[{"kind": "code", "name": "reverse_shell", "member": "run.sh",
                                                            "detail": ""}, secret])),
             FileInfo("f2", "README.md", 5, "text/markdown", ScanView(status="clean")),
             FileInfo("f3", "new.py", 5, "text/x-python")]
    card = _pending_card(_item(files=files), UTC_ZONE)
    assert [(f.scan, f.scan_status, f.findings) for f in card.files] == [
        ("Flagged for review (reverse_shell in run.sh)", "flagged",
         ["code: reverse_shell in run.sh", "secret: AWS access key in conf/.env (AKIA…MPLE)"]),
        ("Scanned: no threats found", "clean", []),
        ("Scan pending", "pending", []),
    ]
    # A new agent shows the label its first version will have; a revision the live one and the new one.
    assert _pending_card(_item(version_label="0.9.0"), UTC_ZONE).version == "0.9.0"
    assert _pending_card(_item(kind="revision", revision_id="r1", version_label="1.1.0",
                               current_version_label="1.0.0"), UTC_ZONE).version == "1.0.0 → 1.1.0"
    assert _pending_card(_item(kind="revision", revision_id="r1", current_version_label="1.0.0"),
                         UTC_ZONE).version == ""


def test_a_revision_that_changes_the_pricing_model_shows_old_and_new():
    """Each price reads under the model it was set with: the live one monthly, the proposed one a licence."""
    revision = _pending_card(_item(kind="revision", revision_id="r1", price_cents=4900, pricing_model="one_time",
                                   changed_fields=["price_cents", "pricing_model"],
                                   field_changes=[FieldChange("price_cents", 1900, 4900),
                                                  FieldChange("pricing_model", "monthly", "one_time")]), UTC_ZONE)
    assert revision.price == "$49.00 one-time"
    assert [(c.label, c.old, c.new) for c in revision.changes] == [
        ("Price", "$19.00/month", "$49.00 one-time"),
        ("Pricing model", "Monthly subscription", "One-time licence")]
    same_price = _pending_card(_item(kind="revision", revision_id="r2", pricing_model="monthly",
                                     field_changes=[FieldChange("pricing_model", "one_time", "monthly")]), UTC_ZONE)
    assert (same_price.price, [(c.old, c.new) for c in same_price.changes]) == (
        "$29.99/month", [("One-time licence", "Monthly subscription")])
    assert _reviewed_card(_row(price_cents=4900, pricing_model="one_time"), UTC_ZONE).price == "$49.00 one-time"


def test_reviewed_card_shows_the_decision_date_and_reason():
    card = _reviewed_card(_row(rejection_reason="Add a README", reviewed_at=datetime(2025, 2, 1, tzinfo=UTC)), UTC_ZONE)
    assert (card.vendor, card.category, card.date, card.reason) == ("Unknown", "Uncategorized", "Feb 1, 2025",
                                                                    "Add a README")
    assert _reviewed_card(_row(), UTC_ZONE).date == "Jan 5, 2025"  # no decision time recorded: the creation date


def test_ranking_texts_and_links():
    assert (_count(1, "sale", "sales"), _count(3, "sale", "sales")) == ("1 sale", "3 sales")
    assert _category_href("code-review") == "/agents?category=code-review"
    assert (report_type("broken"), report_type("")) == ("Broken", "Report")
