"""States never block the event loop: no event handler (nor computed var) calls a service directly.

Reflex 0.10 runs a plain `def` handler, and every line of an `async` one up to its next `await`, on the event
loop that serves all the worker's websockets. So a handler reaches the database, Stripe, storage or mail only as
`await blocking.run(service.fn, ...)` or `await service_calls.attempt(failures, service.fn, ...)` (which awaits
`blocking.run` and turns the failures into toasts): the service is passed, never called. This test reads the source of
`marketplace/state` and follows each handler into the private methods and state-module functions it calls; a
call into `marketplace.services` (other than the pure rules below) or to the event-loop `current_user()` fails.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

STATE_DIR = Path(__file__).resolve().parents[2] / "marketplace" / "state"

# Service rules that only compute (validation, formatting, permission checks on a user in hand): no database,
# Stripe, storage or mail, so a handler may call them directly. A module ends with '.'.
PURE_SERVICE_CALLS = (
    "marketplace.services.errors.",
    "marketplace.services.money.",
    "marketplace.services.pricing.",  # what a pricing model means in words and its first renewal date
    "marketplace.services.names.",
    "marketplace.services.text.",
    "marketplace.services.sign_in_errors.",
    "marketplace.services.permissions.",
    "marketplace.services.auth.password_error",
    "marketplace.services.auth.registration_errors",
    "marketplace.services.users.profile_errors",
    "marketplace.services.guest_checkout.details_errors",  # the guest form's messages, from the text in hand
    "marketplace.services.guest_checkout.GuestDetails",  # a dataclass
    "marketplace.services.images.displayable_image_url",
    "marketplace.services.catalog.download_url",
    "marketplace.services.seo.page_head.agent_title",  # the tab's title, from the name in hand
    "marketplace.services.catalog.price_filter",
    "marketplace.services.catalog.rating_filter",
    "marketplace.services.views.visitor_key",
    "marketplace.services.views.record_view_soon",  # hands the count to its own bounded pool and returns at once
    "marketplace.services.purchases.browser_config",  # reads the configured keys; no call to Stripe
    "marketplace.services.downloads.archive_name",
    "marketplace.services.vendors.drafts.AgentDraft",
    "marketplace.services.vendors.drafts.parse_tags",
    "marketplace.services.vendors.drafts.parse_activation_limit",
    "marketplace.services.vendors.drafts.parse_trial_days",
    "marketplace.services.vendors.payouts.requirement_labels",  # Stripe's keys as words, from a status in hand
    "marketplace.services.accounts.confirmation_notice",  # the words for a user in hand
    "marketplace.services.billing.card_update_path",  # a page address from an id in hand
    "marketplace.services.plans.limit_message",  # the limit's words for a plan in hand
    "marketplace.services.client_address.client_address",  # the peer and a header in hand, the configured proxies
    "marketplace.services.return_paths.",  # `?next=` checked as text: a path of this site's pages or home
    "marketplace.services.payment_errors.buyer_message",  # Stripe's error code in hand, in a buyer's words
    "marketplace.services.status_labels.",  # a status in hand, in words
    "marketplace.services.receipts.receipt_path",  # an order's receipt address, from its id in hand
    "marketplace.services.receipts.buyer_details.errors",  # the receipt details form's messages, from the text
)


@dataclass
class Module:
    """One parsed state module: what its names stand for, its functions and its classes."""

    name: str  # 'dashboard.py', 'vendor/page.py'
    dotted: str  # 'marketplace.state.dashboard'
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted path
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)


def parse(name: str, dotted: str, source: str) -> Module:
    module = Module(name=name, dotted=dotted)
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                module.imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.imports[alias.asname] = alias.name
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.functions[node.name] = node
        elif isinstance(node, ast.ClassDef) and not any("dataclass" in ast.unparse(d) for d in node.decorator_list):
            module.classes[node.name] = node
    return module


def state_modules() -> dict[str, Module]:
    """Every module of `marketplace/state` by dotted name."""
    modules = {}
    for path in sorted(STATE_DIR.rglob("*.py")):
        relative = path.relative_to(STATE_DIR)
        dotted = ".".join(("marketplace", "state", *relative.with_suffix("").parts)).removesuffix(".__init__")
        modules[dotted] = parse(relative.as_posix(), dotted, path.read_text())
    return modules


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *parts]
    return None


class Checker:
    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules

    def _class(self, module: Module, name: str) -> tuple[Module, ast.ClassDef] | None:
        if name in module.classes:
            return module, module.classes[name]
        target = module.imports.get(name, "")
        owner, _, class_name = target.rpartition(".")
        if owner in self.modules and class_name in self.modules[owner].classes:
            return self.modules[owner], self.modules[owner].classes[class_name]
        return None

    def _method(self, module: Module, cls: ast.ClassDef, name: str, seen: set[str] | None = None
                ) -> tuple[Module, ast.ClassDef, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """`self.name` as Python finds it: in the class, else in its bases (state modules only)."""
        for node in cls.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                return module, cls, node
        seen = seen or set()
        for base in cls.bases:
            parts = _dotted(base)
            found = self._class(module, parts[-1]) if parts and len(parts) == 1 else None
            if found and f"{found[0].dotted}.{found[1].name}" not in seen:
                seen.add(f"{found[0].dotted}.{found[1].name}")
                if method := self._method(*found, name, seen):
                    return method
        return None

    def blocking_calls(self, module: Module, cls: ast.ClassDef | None,
                       function: ast.FunctionDef | ast.AsyncFunctionDef,
                       visited: set[int] | None = None) -> Iterator[str]:
        """Each call made on the event loop by `function` (and what it calls in the state layer) that blocks."""
        visited = visited if visited is not None else set()
        if id(function) in visited:
            return
        visited.add(id(function))
        for node in ast.walk(function):
            if not isinstance(node, ast.Call) or (parts := _dotted(node.func)) is None:
                continue
            if parts[-1] == "current_user":
                yield ".".join(parts)
            elif parts[0] == "self" and len(parts) == 2 and cls is not None:
                if method := self._method(module, cls, parts[1]):
                    yield from self.blocking_calls(*method, visited)
            elif len(parts) == 1 and parts[0] in module.functions:
                yield from self.blocking_calls(module, None, module.functions[parts[0]], visited)
            else:
                target = ".".join([module.imports.get(parts[0], parts[0]), *parts[1:]])
                owner, _, name = target.rpartition(".")
                if owner in self.modules and name in self.modules[owner].functions:
                    yield from self.blocking_calls(self.modules[owner], None, self.modules[owner].functions[name],
                                                   visited)
                elif target.startswith("marketplace.services.") and not target.startswith(PURE_SERVICE_CALLS):
                    yield ".".join(parts)


def _runs_on_the_loop(node: ast.stmt) -> bool:
    """A Reflex event handler (any public method) or a computed var: both run on the event loop."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    decorators = [ast.unparse(d) for d in node.decorator_list]
    if any(d in ("staticmethod", "classmethod") for d in decorators):
        return False
    return not node.name.startswith("_") or any(d.startswith(("rx.var", "property")) for d in decorators)


def offenders(modules: dict[str, Module]) -> list[str]:
    checker = Checker(modules)
    found = []
    for module in modules.values():
        for cls in module.classes.values():
            for node in cls.body:
                where = f"{module.name}::{cls.name}.{getattr(node, 'name', '')}"
                if _runs_on_the_loop(node):
                    found += [f"{where} calls {call}" for call in checker.blocking_calls(module, cls, node)]
    return found


def test_no_state_handler_calls_a_service_on_the_event_loop():
    assert offenders(state_modules()) == []


# --- the check itself catches what it is for --------------------------------------------------------------------

_EXAMPLE = '''
import reflex as rx
from marketplace.services import money, purchases
from marketplace.services.vendors import applications as vendors
from marketplace.state import blocking
from marketplace.state.service_calls import Toast, attempt


def _orders(user):
    return purchases.list_orders(actor=user)


class Example(rx.State):
    total: str = ""

    @rx.event
    def plain(self) -> None:
        purchases.list_orders(actor=None)

    @rx.event
    async def awaited(self) -> None:
        self.total = money.format_amount(await blocking.run(purchases.total, actor=await self.viewer()), "usd")

    @rx.event
    async def called_in_async(self) -> None:
        vendors.apply_with_profile(actor=await self.viewer())

    @rx.event
    def through_a_helper(self) -> None:
        self._refresh()

    def _refresh(self) -> None:
        _orders(self.current_user())

    @rx.var
    def computed(self) -> str:
        return str(purchases.total(actor=None))

    async def on_a_worker(self) -> None:
        await blocking.run(_orders, None)

    @rx.event
    async def through_the_helper(self) -> None:
        done = await attempt(Toast("Not loaded"), purchases.total, actor=await self.viewer())
        if done.failed:
            return

    @rx.event
    async def called_for_the_helper(self) -> None:
        await attempt(Toast(), _orders, purchases.list_orders(actor=None))


class Child(Example):
    @rx.event
    def inherited_helper(self) -> None:
        self._refresh()
'''


def test_the_check_finds_each_way_a_handler_can_block():
    example = parse("example.py", "marketplace.state.example", _EXAMPLE)
    assert sorted(offenders({example.dotted: example})) == sorted([
        "example.py::Example.plain calls purchases.list_orders",
        "example.py::Example.called_in_async calls vendors.apply_with_profile",
        "example.py::Example.through_a_helper calls self.current_user",
        "example.py::Example.through_a_helper calls purchases.list_orders",
        "example.py::Example.computed calls purchases.total",
        "example.py::Example.called_for_the_helper calls purchases.list_orders",
        "example.py::Child.inherited_helper calls self.current_user",
        "example.py::Child.inherited_helper calls purchases.list_orders",
    ])
