"""One way to wrap a React component of our own: its JSX in assets/, a thin Python class here.

The Stripe Payment Element, the Uppy upload widget and the confetti burst are such components. The JSX holds the
browser-only work (it reaches for `window`: Stripe.js, Uppy's restore store), so they render on the client only;
the Python class declares the props and events the states use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import reflex as rx

ASSETS = Path(__file__).resolve().parents[2] / "assets"


class AssetComponent(rx.NoSSRComponent):
    """A subclass names its file (`asset`, under assets/, which Reflex serves as /public) and lists the pinned npm
    packages that file imports (`lib_dependencies`); the file exports a component named like the subclass."""

    asset: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not (ASSETS / cls.asset).is_file():  # a wrong name fails here, not in the frontend build
            raise FileNotFoundError(f"{cls.__name__}: assets/{cls.asset} does not exist")
        cls.library = f"$/public/{cls.asset}"
        cls.tag = cls.__name__
