"""A self-contained confetti burst (assets/confetti.jsx): CSS-animated pieces that remove themselves."""

from __future__ import annotations

import reflex as rx


class Confetti(rx.NoSSRComponent):
    library = "$/public/confetti.jsx"
    tag = "Confetti"

    count: rx.Var[int]
    duration_ms: rx.Var[int]


confetti = Confetti.create
