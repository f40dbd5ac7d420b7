"""The Overview tab: platform statistics from the sales summary (with the commission editor); the Pending
Actions counts come from the page state, which keeps them current."""

from __future__ import annotations

from marketplace.state.admin.commission import SalesSummary
from marketplace.state.admin.page import AdminState


class OverviewState(SalesSummary, AdminState):
    pass
