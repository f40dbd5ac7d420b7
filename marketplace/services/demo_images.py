"""Pictures of the demo agents: one distinct SVG per agent, drawn from its name by a deterministic generator.

The files are committed under `marketplace/demo_images/` (a few hundred bytes each) and served by
`GET /api/demo-images/{slug}.svg` with a year-long immutable cache; the URL carries a digest of the file, so
a redrawn picture gets a new address. Regenerate after changing the drawing or the demo agents:
`python -m dev.demo_pictures` (a unit test checks the files match this generator).
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

IMAGE_DIR = Path(__file__).resolve().parent.parent / "demo_images"
URL_PREFIX = "/api/demo-images/"
CACHE_CONTROL = "public, max-age=31536000, immutable"
FILE_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\.svg$")
WIDTH, HEIGHT = 320, 200  # the card's proportions; pages crop with object-fit: cover

# Gradient pairs, dark enough for white initials.
PALETTES = [
    ("#4f46e5", "#7c3aed"), ("#0e7490", "#0891b2"), ("#be185d", "#db2777"), ("#15803d", "#0d9488"),
    ("#b45309", "#dc2626"), ("#1d4ed8", "#0ea5e9"), ("#6d28d9", "#c026d3"), ("#334155", "#475569"),
    ("#047857", "#65a30d"), ("#9f1239", "#7c2d12"), ("#1e3a8a", "#6d28d9"), ("#0f766e", "#1d4ed8"),
]


def slug(name: str) -> str:
    """'Report Robot' -> 'report-robot' (file names and the demo's example URLs)."""
    return re.sub(r"-+", "-", "".join(ch.lower() if ch.isalnum() else "-" for ch in name)).strip("-")


def _initials(name: str) -> str:
    words = re.findall(r"[A-Z0-9]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+", name)  # InsightLens, API Architect
    return "".join(w[0] for w in words[:2]).upper() or "?"


def _motif(kind: int, seed: bytes) -> str:
    """Decoration behind the initials, varied by the name's digest: rings, dots, waves, bars or a hexagon."""
    a, b, c = (seed[i] for i in range(3))
    if kind == 0:
        cx, cy = 60 + a % 200, 40 + b % 120
        return "".join(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="#fff" stroke-opacity=".18" '
                       f'stroke-width="10"/>' for r in (40 + c % 20, 80 + c % 30, 125 + c % 40))
    if kind == 1:
        return "".join(f'<circle cx="{20 + 40 * i}" cy="{20 + 40 * j}" r="{3 + (seed[(i + j) % 32] % 5)}" '
                       f'fill="#fff" fill-opacity=".2"/>' for i in range(8) for j in range(5))
    if kind == 2:
        return "".join(f'<path d="M0 {y} C80 {y - 30 - a % 30} 160 {y + 30 + b % 30} 320 {y - c % 25}" '
                       f'fill="none" stroke="#fff" stroke-opacity=".2" stroke-width="8"/>'
                       for y in (50, 110, 170))
    if kind == 3:
        return "".join(f'<rect x="{24 + 36 * i}" y="{HEIGHT - h}" width="24" height="{h}" rx="4" fill="#fff" '
                       f'fill-opacity=".16"/>' for i, h in enumerate(30 + seed[4 + i] % 120 for i in range(8)))
    x, y, r = 230 + a % 40, 60 + b % 80, 70 + c % 30
    points = " ".join(f"{x + r * dx:.0f},{y + r * dy:.0f}" for dx, dy in
                      ((1, 0), (0.5, 0.87), (-0.5, 0.87), (-1, 0), (-0.5, -0.87), (0.5, -0.87)))
    return f'<polygon points="{points}" fill="#fff" fill-opacity=".15"/>'


def render(name: str) -> str:
    """The SVG of one agent: same name, same bytes."""
    seed = hashlib.sha256(name.encode()).digest()
    start, end = PALETTES[seed[0] % len(PALETTES)]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}">'
        f'<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="{start}"/>'
        f'<stop offset="1" stop-color="{end}"/></linearGradient></defs>'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="url(#g)"/>{_motif(seed[1] % 5, seed[2:])}'
        f'<text x="50%" y="50%" dy=".35em" text-anchor="middle" font-family="system-ui,sans-serif" '
        f'font-size="72" font-weight="700" fill="#fff">{_initials(name)}</text></svg>\n'
    )


@cache
def read(file_name: str) -> bytes | None:
    """A shipped picture's bytes, or None for a name that is not one of the files (no paths: a fixed pattern)."""
    if not FILE_NAME.fullmatch(file_name):
        return None
    path = IMAGE_DIR / file_name
    return path.read_bytes() if path.is_file() else None


def url_for(name: str) -> str | None:
    """The address of an agent's shipped picture (with a digest of its bytes), or None when none ships."""
    data = read(f"{slug(name)}.svg")
    if data is None:
        return None
    return f"{URL_PREFIX}{slug(name)}.svg?v={hashlib.sha256(data).hexdigest()[:12]}"


def is_shipped_url(text: str) -> bool:
    """`text` is the address `url_for` gives one of the shipped pictures (a demo agent's own picture, which its
    vendor may keep when editing it)."""
    if not text.startswith(URL_PREFIX):
        return False
    file_name, _, version = text.removeprefix(URL_PREFIX).partition("?v=")
    data = read(file_name)
    return data is not None and version == hashlib.sha256(data).hexdigest()[:12]
