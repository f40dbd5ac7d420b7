"""/demo-setup: demo data and the role switch for testers. Exists only in demo mode (the services check too)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import reflex as rx

from marketplace.config import settings
from marketplace.models import Role
from marketplace.services import demo, names, users
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.session import SessionState, ViewerMixin, flash_and_go


class DemoSetupState(ViewerMixin, rx.State):
    demo_enabled: bool = False
    initializing: bool = False
    switching: str = ""  # the role being switched to

    @rx.event
    def on_load(self) -> None:
        self.reset()
        self.demo_enabled = settings.demo_enabled

    @rx.event
    async def initialize(self) -> AsyncIterator[Any]:
        if self.initializing:
            return
        self.initializing = True
        yield
        # On the state pool: the demo accounts' passwords are hashed (argon2), seconds of CPU in all.
        done = await attempt(Toast("Initialization Failed", "Failed to initialize demo data"), demo.init_demo_data,
                             actor=await self.viewer())
        if done.failed:
            self.initializing = False
            yield done.events
            return
        self.initializing = False
        yield rx.toast("Demo Data Initialized",
                       description="Platform is ready for testing with all settings configured")

    @rx.event
    async def switch_role(self, role: str) -> AsyncIterator[Any]:
        if self.switching or role not in {r.value for r in Role} or role == (await self.get_state(SessionState)).role:
            return
        self.switching = role
        yield
        done = await attempt(Toast("Switch Failed", "Failed to switch role"), users.switch_role,
                             actor=await self.viewer(), role=role)
        if done.failed:
            self.switching = ""
            yield done.events
            return
        user = done.value
        # A full page load, so the top bar, menus and every page see the new role.
        yield flash_and_go("Role Switched Successfully", f"You are now testing as {names.with_article(user.role)}",
                           "/demo-setup")
