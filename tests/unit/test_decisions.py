"""`decisions.claim`: of requests deciding the same row at the same moment, exactly one wins."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from marketplace import db
from marketplace.models import ApplicationStatus, VendorApplication
from marketplace.services import decisions
from marketplace.services.errors import Conflict
from tests import factories


def _decide(application_id: str, status: str) -> None:
    with db.session_scope() as session:
        decisions.claim(session, VendorApplication, VendorApplication.id == application_id,
                        VendorApplication.status == ApplicationStatus.PENDING, values={"status": status},
                        conflict="Already decided")


def test_one_of_many_simultaneous_claims_wins():
    application = factories.make_application(factories.make_user())
    outcomes: list[str] = []
    barrier = threading.Barrier(10)

    def run(status: str) -> None:
        barrier.wait()
        try:
            _decide(application.id, status)
            outcomes.append(status)
        except Conflict:
            outcomes.append("conflict")

    statuses = [ApplicationStatus.APPROVED, ApplicationStatus.REJECTED] * 5
    threads = [threading.Thread(target=run, args=(status,)) for status in statuses]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [o for o in outcomes if o != "conflict"]
    assert len(winners) == 1 and outcomes.count("conflict") == 9
    with db.session_scope() as session:
        assert session.get(VendorApplication, application.id).status == winners[0]


def test_a_claim_on_a_decided_row_is_a_conflict_and_changes_nothing():
    application = factories.make_application(factories.make_user(), status=ApplicationStatus.REJECTED)
    with pytest.raises(Conflict, match="Already decided"):
        _decide(application.id, ApplicationStatus.APPROVED)
    with db.session_scope() as session:
        assert session.get(VendorApplication, application.id).status == ApplicationStatus.REJECTED


def test_claim_any_counts_the_rows_this_request_won():
    user = factories.make_user()
    first, second = factories.make_application(user), factories.make_application(factories.make_user())
    with db.session_scope() as session:
        won = decisions.claim_any(session, VendorApplication,
                                  VendorApplication.id.in_([first.id, second.id]),
                                  VendorApplication.status == ApplicationStatus.PENDING,
                                  values={"status": ApplicationStatus.REJECTED})
    assert won == 2
    with db.session_scope() as session:
        assert decisions.claim_any(session, VendorApplication, VendorApplication.id == first.id,
                                   VendorApplication.status == ApplicationStatus.PENDING,
                                   values={"status": ApplicationStatus.APPROVED}) == 0


# --- no service decides a status any other way --------------------------------------------------------------

SERVICES = Path(decisions.__file__).parent


def _status_writes(source: str) -> list[int]:
    """Lines that change a `status` other than through `decisions.claim`/`claim_any`: an assignment to
    `<row>.status` (plain, augmented, annotated or in a tuple), `setattr(<row>, "status", ...)`, or an
    `update(...).values(status=...)`. A new row's initial status (`Agent(status=...)`) is not a decision."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            elements = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
            if any(isinstance(e, ast.Attribute) and e.attr == "status" for e in elements):
                found.append(node.lineno)
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value == "status"):
                found.append(node.lineno)
            if (isinstance(func, ast.Attribute) and func.attr == "values"
                    and any(k.arg == "status" for k in node.keywords)
                    and any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == "update"
                            for n in ast.walk(func.value))):
                found.append(node.lineno)
    return found


def test_services_change_a_status_only_through_a_claim():
    offenders = [f"{path.relative_to(SERVICES.parent.parent)}:{line}"
                 for path in sorted(SERVICES.rglob("*.py")) if path != Path(decisions.__file__)
                 for line in _status_writes(path.read_text(encoding="utf-8"))]
    assert offenders == [], "decide with services/decisions.claim (a conditional update), not a read-then-write"


@pytest.mark.parametrize("source", [
    "agent.status = 'approved'",
    "row.status, row.refund_id = 'refunded', refund_id",
    "self.report.status: str = wanted",
    "setattr(application, 'status', 'rejected')",
    "session.execute(update(Agent).where(Agent.id == x).values(status='pending'))",
    "session.exec(sa.update(Report).where(Report.id == x).values(status=wanted, note=n))",
])
def test_the_scan_finds_each_way_of_writing_a_status(source):
    assert _status_writes(source) == [1]


@pytest.mark.parametrize("source", [
    "Agent(vendor_id=v, status=AgentStatus.PENDING)",
    "insert(Order).values(status='completed')",
    "decisions.claim(session, Agent, Agent.id == x, values={'status': 'approved'}, conflict='c')",
    "agent.name = 'x'; ok = agent.status == 'approved'",
])
def test_the_scan_lets_new_rows_claims_and_reads_be(source):
    assert _status_writes(source) == []
