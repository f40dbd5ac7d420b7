"""`decisions.claim`: of requests deciding the same row at the same moment, exactly one wins."""

from __future__ import annotations

import threading

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
