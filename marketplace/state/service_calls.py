"""One way for a state handler to call a service and tell the user what went wrong: the spec's toasts, written once.

A handler writes `done = await attempt(Toast("Not deactivated"), licenses.deactivate_instance, actor=user, ...)`:
the service runs on the state pool (`blocking.run`, never on the event loop) and the answer is an `Outcome`, the
service's value or the events that say why not. Signed out: `logged_out_again()`. A refusal (`DomainError`): an
error toast with the service's reason. Anything else, where the handler asks for it: logged with the exception
and shown with the toast's generic text; where it does not, it propagates as it always did. What stays in the
handler is its own: which flags to reset, and where a field's message goes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, ParamSpec, Protocol, TypeVar, cast

import reflex as rx

from marketplace.services.errors import DomainError, Unauthorized
from marketplace.state import blocking
from marketplace.state.display import logged_out_again

LOG = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")



@dataclass(frozen=True)
class Shown:
    """What the user is shown for a failed call: the events for the browser and the words they carry."""

    events: list[rx.event.EventSpec]
    message: str = ""  # the service's reason, or the generic text ("" when signed out)
    signed_out: bool = False  # the events sign in again


class Failures(Protocol):
    """How a failed call looks; `None` for an error it does not handle (the call raises it again)."""

    def shown(self, error: Exception) -> Shown | None: ...


@dataclass(frozen=True)
class Toast:
    """The failures of an account page's call: signed out signs in again; a refusal or an unexpected error is an
    error toast titled `title` (`None`: no toast, the handler puts `Outcome.message` on the page)."""

    title: str | None = "Error"
    fallback: str = ""  # the words for a refusal without a message, and for an unexpected failure
    reasons: bool | tuple[type[DomainError], ...] = True  # which refusals show the service's message (the others,
    # and unexpected failures, show `fallback`)
    unexpected: bool = False  # also catch what is not a DomainError (logged); False: it propagates
    on_load: bool = False  # from an on_load handler: the signed-out toast waits for the toaster
    signed_out: bool = True  # False: signed out is a refusal like any other
    log: str = "state call failed"  # the log line for an unexpected failure

    def shown(self, error: Exception) -> Shown | None:
        if isinstance(error, Unauthorized) and self.signed_out:
            return Shown(logged_out_again(on_load=self.on_load), signed_out=True)
        if not isinstance(error, DomainError):
            if not self.unexpected:
                return None
            LOG.error("%s", self.log, exc_info=error)
        reasons = self.reasons if isinstance(self.reasons, tuple) else (DomainError,) if self.reasons else ()
        message = (error.message or self.fallback) if isinstance(error, reasons) else self.fallback
        return Shown([rx.toast.error(self.title, description=message)] if self.title is not None else [], message)


QUIET = Toast(None, signed_out=False)  # every refusal comes back as its message, for the page to show


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """What a service call came to: its value, or the error and what the user is shown for it."""

    result: R | None = None
    error: Exception | None = None
    shown: Shown = Shown([])

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def value(self) -> R:
        """The service's answer; read only after `failed` said no."""
        if self.error is not None:
            raise RuntimeError("the call failed; its value was read") from self.error
        return cast(R, self.result)

    @property
    def events(self) -> list[rx.event.EventSpec]:
        return self.shown.events

    @property
    def message(self) -> str:
        return self.shown.message

    @property
    def signed_out(self) -> bool:
        return self.shown.signed_out

    @property
    def refusal(self) -> DomainError | None:
        """The service's own refusal (not signed out shown as such), for a handler that places its words."""
        error = self.error
        return error if isinstance(error, DomainError) and not self.signed_out else None


async def attempt(failures: Failures, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> Outcome[R]:
    """`fn(*args, **kwargs)` on the state pool; a failure `failures` handles comes back with what to show."""
    try:
        return Outcome(await blocking.run(fn, *args, **kwargs))
    except Exception as error:
        shown = failures.shown(error)
        if shown is None:
            raise
        return Outcome(None, error, shown)
