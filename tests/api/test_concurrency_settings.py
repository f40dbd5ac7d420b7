"""Platform settings changed by several admins at the same moment, over real HTTP (tests/live_api.py), on SQLite and
PostgreSQL: every change is applied, one after the other, so the audit log tells the whole story: each entry's
`from` is the previous entry's `to`, and the setting ends at the last entry's `to`.
"""

from __future__ import annotations

import json
from functools import partial

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import AuditEntry
from marketplace.services import platform
from tests import factories
from tests.live_api import LiveApi, fire

CHANGES = 8


def _chain(key: str) -> list[tuple[str, str]]:
    """The setting's audit entries as (from, to), in the one order in which they chain from the default; fails
    when two entries start from the same value (a change that did not see the one before it)."""
    with db.session_scope() as session:
        entries = session.exec(select(AuditEntry).where(AuditEntry.action == "setting.update",
                                                        AuditEntry.target_id == key)).all()
        steps = [(d["from"], d["to"]) for d in (json.loads(e.details) for e in entries)]
    following = {start: to for start, to in steps}
    assert len(following) == len(steps), f"two changes started from the same value: {sorted(steps)}"
    chain, value = [], platform.DEFAULTS[key][0]
    while value in following:
        chain.append((value, following.pop(value)))
        value = chain[-1][1]
    assert following == {}, f"entries that do not follow the one before: {following}, chain: {chain}"
    return chain


@pytest.mark.parametrize("stored", [False, True], ids=["default-not-stored", "stored"])
@pytest.mark.parametrize("round_", range(3))
def test_simultaneous_commission_changes_chain_in_the_audit_log(live_api: LiveApi, stored: bool, round_: int):
    if stored:
        platform.ensure_defaults()
    admins = [live_api.signed_in(factories.make_admin().username) for _ in range(CHANGES)]
    values = [f"{10 + n}%" for n in range(CHANGES)]
    answers = fire([partial(admin.put, f"/api/admin/settings/{platform.COMMISSION_RATE}", json={"value": value})
                    for admin, value in zip(admins, values, strict=True)])

    assert [a.status_code for a in answers] == [200] * CHANGES, [a.text for a in answers]
    chain = _chain(platform.COMMISSION_RATE)
    assert sorted(to for _, to in chain) == sorted(values)  # every change applied, each once
    assert platform.get_setting(platform.COMMISSION_RATE) == chain[-1][1]
