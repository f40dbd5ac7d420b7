"""A self-contained confetti burst (assets/confetti.jsx): CSS-animated pieces that remove themselves."""

from __future__ import annotations

import reflex as rx

from marketplace.components.asset_component import AssetComponent


class Confetti(AssetComponent):
    asset = "confetti.jsx"

    count: rx.Var[int]
    duration_ms: rx.Var[int]


confetti = Confetti.create
