"""The admin list tabs' row actions, declared as data: each one's service takes what the list state sends it."""

from __future__ import annotations

import inspect

import pytest

from marketplace.state.admin.agents import AgentsState
from marketplace.state.admin.applications import ApplicationsState
from marketplace.state.admin.approvals import PendingAgentsState
from marketplace.state.admin.customers import CustomersState, VendorsState

ACTIONS = [(state.__name__, name, action) for state in (CustomersState, VendorsState, AgentsState, ApplicationsState,
                                                         PendingAgentsState)
           for name, action in state._actions.items()]


def test_each_list_declares_its_actions():
    assert {(state, name) for state, name, _ in ACTIONS} == {
        ("CustomersState", "delete"), ("VendorsState", "delete"), ("VendorsState", "approve"),
        ("AgentsState", "approve"), ("AgentsState", "delete"), ("ApplicationsState", "approve"),
        ("ApplicationsState", "reject"), ("PendingAgentsState", "approve"), ("PendingAgentsState", "reject")}


@pytest.mark.parametrize(("state", "name", "action"), ACTIONS, ids=[f"{s}.{n}" for s, n, _ in ACTIONS])
def test_the_service_takes_the_actor_the_row_and_the_reason(state, name, action):
    parameters = inspect.signature(action.service).parameters
    sent = ["actor", action.key, *([action.reason] if action.reason else [])]
    assert all(parameters[key].kind is inspect.Parameter.KEYWORD_ONLY for key in sent)
    assert action.success[0] and action.success[1] and action.failure.endswith(".")
    if action.confirm or action.reason:  # a dialog asks first: it has a title and a confirming button
        assert action.title and action.label
