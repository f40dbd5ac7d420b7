"""`state.service_calls`: a handler's service call runs on the state pool, and each way it can fail comes back as
the spec's events: signed out signs in again, a refusal is a toast with its reason, the unexpected is logged."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
import reflex as rx

from marketplace.services.errors import Conflict, DomainError, Forbidden, Invalid, TooManyRequests, Unauthorized
from marketplace.state.admin.page import ADMIN_ONLY_MESSAGE, AdminToast
from marketplace.state.display import logged_out_again
from marketplace.state.service_calls import QUIET, Outcome, Toast, attempt


def _js(events: list) -> list[str]:
    return [f"{name}={value}" for event in events for name, value in event.args]


def _same(events: list, expected: list) -> bool:
    """Reflex events have no equality of their own; their JavaScript says what they do."""
    return _js(events) == _js(expected)


def _raise(error: Exception) -> None:
    raise error


def _call(failures, fn, *args, **kwargs) -> Outcome:
    return asyncio.run(attempt(failures, fn, *args, **kwargs))


def test_the_service_runs_on_a_worker_thread_and_its_value_comes_back():
    done = _call(Toast(), lambda *, a: (a, threading.get_ident()), a=7)
    assert not done.failed and done.events == [] and done.message == ""
    assert done.value[0] == 7 and done.value[1] != threading.get_ident()


def test_signed_out_signs_in_again():
    done = _call(Toast("Not deactivated"), _raise, Unauthorized("Sign in"))
    assert done.failed and done.signed_out and done.refusal is None
    assert _same(done.events, logged_out_again())
    on_load = _call(Toast(on_load=True), _raise, Unauthorized("Sign in"))
    assert _same(on_load.events, logged_out_again(on_load=True))


def test_a_refusal_is_a_toast_with_the_services_reason_or_the_fallback():
    refused = Conflict("Already reported")
    done = _call(Toast("Report failed", "Failed to submit report"), _raise, refused)
    assert done.refusal is refused and not done.signed_out and done.message == "Already reported"
    assert _same(done.events, [rx.toast.error("Report failed", description="Already reported")])
    assert not _same(done.events, [rx.toast.error("Report failed", description="Failed to submit report")])
    wordless = _call(Toast("Report failed", "Failed to submit report"), _raise, Invalid(""))
    assert _same(wordless.events, [rx.toast.error("Report failed", description="Failed to submit report")])


def test_which_refusals_show_their_reason():
    fixed = Toast(fallback="Failed to submit review. Please try again.", reasons=(TooManyRequests,))
    assert _call(fixed, _raise, Invalid("Too long")).message == "Failed to submit review. Please try again."
    assert _call(fixed, _raise, TooManyRequests("Slow down")).message == "Slow down"
    assert _call(Toast(fallback="Failed", reasons=False), _raise, Invalid("No")).message == "Failed"


def test_no_title_no_toast_and_the_page_shows_the_message():
    done = _call(Toast(None), _raise, Invalid("Card declined"))
    assert done.events == [] and done.message == "Card declined"


def test_quiet_turns_signed_out_into_a_refusal_like_any_other():
    done = _call(QUIET, _raise, Unauthorized("Sign in"))
    assert done.events == [] and done.message == "Sign in" and not done.signed_out
    assert isinstance(done.refusal, Unauthorized)


def test_the_unexpected_propagates_unless_asked_for(caplog):
    with pytest.raises(RuntimeError):
        _call(Toast(), _raise, RuntimeError("database down"))
    with caplog.at_level(logging.ERROR):
        done = _call(Toast(fallback="Failed to create agent", unexpected=True, log="agent submission failed"),
                     _raise, RuntimeError("database down"))
    assert done.failed and done.refusal is None and done.message == "Failed to create agent"
    assert _same(done.events, [rx.toast.error("Error", description="Failed to create agent")])
    assert [r.getMessage() for r in caplog.records] == ["agent submission failed"]
    assert caplog.records[0].exc_info is not None


def test_the_value_of_a_failed_call_is_never_read():
    with pytest.raises(RuntimeError):
        _ = _call(QUIET, _raise, Invalid("No")).value


def test_admin_failures_read_as_admin_failed_shows_them():
    refused = _call(AdminToast("Failed to approve agent."), _raise,
                    Invalid("An agent without files cannot be approved"))
    assert refused.message == "Failed to approve agent. An agent without files cannot be approved."
    assert _same(refused.events, [rx.toast.error("Error", description=refused.message)])
    assert _call(AdminToast(), _raise, Unauthorized("x")).signed_out
    assert ADMIN_ONLY_MESSAGE in " ".join(_js(_call(AdminToast(), _raise, Forbidden("x")).events))
    with pytest.raises(RuntimeError):
        _call(AdminToast("Failed."), _raise, RuntimeError("bug"))
    assert _call(AdminToast("Failed.", unexpected=True), _raise, RuntimeError("bug")).message == "Failed."
    assert isinstance(_call(AdminToast(), _raise, DomainError("x")).refusal, DomainError)
