"""The 1200x630 PNG a link preview shows (Open Graph's recommended size): an agent's card, or the site's.

Drawn with Pillow in the style of the catalogue's pictures (`demo_images`: the same gradient pairs, picked by the
name's digest, white type, a soft motif) with the font Pillow ships (Aileron, `ImageFont.load_default(size=...)`),
so no machine needs a font installed and every machine draws the same bytes. That font covers basic Latin only:
accented letters are drawn without their accents ('Café' -> 'Cafe'), other scripts as the font's empty box; any
text draws without failing. Long texts wrap to their lines and end with an ellipsis.
"""

from __future__ import annotations

import hashlib
import io
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from PIL import Image, ImageDraw, ImageFont

from marketplace.services.demo_images import PALETTES

WIDTH, HEIGHT = 1200, 630
MARGIN = 80
WHITE = (255, 255, 255, 255)
SOFT_WHITE = (255, 255, 255, 215)
FAINT_WHITE = (255, 255, 255, 46)
STAR_GOLD = (251, 191, 36, 255)  # the amber of the catalogue's rating stars
STAR_EMPTY = (255, 255, 255, 80)
SITE_PALETTE = ("#4f46e5", "#7c3aed")  # the first gradient pair: the product's indigo to violet
SITE_HEADLINE = "Find the perfect AI agent for every job"  # the home page's heading
SITE_TAGLINE = "Discover, buy and deploy AI agents built by expert vendors."
ELLIPSIS = "..."  # Aileron has no single-character ellipsis
MAX_CHARS = 400  # more than any line of the picture holds: the rest is never measured
DROPPED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}  # controls, format marks, lone surrogates, private use


@dataclass(frozen=True)
class AgentCard:
    """What an agent's picture shows; equal cards draw equal bytes."""

    name: str
    tagline: str  # the short description
    price: str  # money.price_label
    category: str  # '' when the agent has none
    rating: float  # average, 0-5
    reviews: int  # 0: no rating is drawn
    site: str  # the host name in the corner


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    loaded = ImageFont.load_default(size=size)
    assert isinstance(loaded, ImageFont.FreeTypeFont)  # Pillow's wheels always carry FreeType
    return loaded


@cache
def _notdef() -> bytes:
    return _glyph("\uffff")


def _glyph(char: str) -> bytes:
    image = Image.new("L", (48, 48))
    ImageDraw.Draw(image).text((4, 4), char, font=font(24), fill=255)
    return image.tobytes()


@lru_cache(maxsize=4096)
def _drawable(char: str) -> bool:
    return char.isspace() or _glyph(char) != _notdef()


def _plain_char(char: str) -> str:
    """`char`, or its letters without accents when the font lacks it and they are in it, or '' for what is never
    drawn (controls, format marks, lone surrogates)."""
    if char.isspace():
        return " "
    if unicodedata.category(char) in DROPPED_CATEGORIES:
        return ""
    if _drawable(char):
        return char
    base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return base if base and all(_drawable(c) for c in base) else char


def drawable_text(text: str) -> str:
    """`text` as this font can draw it, on one line with single spaces (its first `MAX_CHARS` characters)."""
    text = unicodedata.normalize("NFC", text[:MAX_CHARS])
    return " ".join("".join(_plain_char(c) for c in text).split())


def _width(text: str, size: int) -> float:
    return font(size).getlength(text)


def _longest_prefix(text: str, size: int, max_width: float, suffix: str = "") -> int:
    """How many characters of `text` (at least 1), followed by `suffix`, fit in `max_width` (a binary search:
    each measure lays out the whole prefix)."""
    low, high = 1, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _width(text[:middle].rstrip() + suffix, size) <= max_width:
            low = middle
        else:
            high = middle - 1
    return low


def _ellipsize(text: str, size: int, max_width: int) -> str:
    if _width(text, size) <= max_width:
        return text
    return text[:_longest_prefix(text, size, max_width, ELLIPSIS)].rstrip() + ELLIPSIS


def fit_lines(text: str, *, size: int, max_width: int, max_lines: int) -> list[str]:
    """`text` wrapped at spaces (a word wider than a line is cut) into at most `max_lines` lines, the last one
    ending with an ellipsis when the text goes on."""
    lines: list[str] = []
    rest = text[:MAX_CHARS].split(" ") if text else []
    while rest and len(lines) < max_lines:
        line = rest.pop(0)
        if _width(line, size) > max_width:  # one word longer than a line: cut it where it fills the line
            cut = _longest_prefix(line, size, max_width)
            rest.insert(0, line[cut:])
            line = line[:cut]
        while rest and _width(f"{line} {rest[0]}", size) <= max_width:
            line = f"{line} {rest.pop(0)}"
        lines.append(line)
    if rest and lines:  # it goes on: the last line takes what fits of the rest, and the ellipsis
        lines[-1] = _ellipsize(f"{lines[-1]} {' '.join(rest)}", size, max_width)
    return lines


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = int(hex_colour.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF


def palette(name: str) -> tuple[str, str]:
    """The gradient pair of the catalogue picture drawn for this name (`demo_images.render` picks it so)."""
    return PALETTES[hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()[0] % len(PALETTES)]


def _background(start: str, end: str, seed: bytes) -> Image.Image:
    """A diagonal gradient with rings in the upper right, as the catalogue's pictures have."""
    first, last = _rgb(start), _rgb(end)
    middle = tuple((a + b) // 2 for a, b in zip(first, last, strict=True))
    corners = Image.new("RGB", (2, 2))
    corners.putdata([first, middle, middle, last])
    image = corners.resize((WIDTH, HEIGHT), Image.Resampling.BILINEAR).convert("RGBA")
    rings = Image.new("RGBA", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(rings)
    cx, cy = WIDTH - 150 + seed[0] % 60, 90 + seed[1] % 80
    for radius in (150 + seed[2] % 40, 260 + seed[3] % 50, 380 + seed[4] % 60):
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), outline=(255, 255, 255, 34), width=26)
    return Image.alpha_composite(image, rings)


def _brand(image: Image.Image, colour: tuple[int, int, int]) -> None:
    """The site's mark (a robot's head, as the 🤖 beside its name in the top bar) and name, top left."""
    draw = ImageDraw.Draw(image)
    x, y = MARGIN, 60
    draw.rounded_rectangle((x, y, x + 60, y + 60), radius=16, fill=WHITE)
    draw.line((x + 30, y + 9, x + 30, y + 17), fill=colour, width=4)
    draw.ellipse((x + 26, y + 5, x + 34, y + 13), fill=colour)
    draw.rounded_rectangle((x + 12, y + 18, x + 48, y + 48), radius=8, fill=colour)
    for eye in (x + 23, x + 37):
        draw.ellipse((eye - 4, y + 28, eye + 4, y + 36), fill=WHITE)
    draw.text((x + 78, y + 30), "AgentMarket", font=font(36), fill=WHITE, anchor="lm", stroke_width=1,
              stroke_fill=WHITE)


def _pill(image: Image.Image, box: tuple[int, int, int, int], fill: tuple[int, int, int, int]) -> None:
    layer = Image.new("RGBA", image.size)
    ImageDraw.Draw(layer).rounded_rectangle(box, radius=(box[3] - box[1]) // 2, fill=fill)
    image.alpha_composite(layer)


def _star(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    points = []
    for k in range(10):
        r = radius if k % 2 == 0 else radius * 0.45
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return points


def _stars(image: Image.Image, x: int, cy: int, rating: float, size: int = 22) -> int:
    """Five stars filled to `rating` (by fractions of a star); the x where they end."""
    empty, full = Image.new("RGBA", image.size), Image.new("RGBA", image.size)
    step = size * 2 + 8
    for k in range(5):
        centre = x + size + k * step
        ImageDraw.Draw(empty).polygon(_star(centre, cy, size), fill=STAR_EMPTY)
        ImageDraw.Draw(full).polygon(_star(centre, cy, size), fill=STAR_GOLD)
    whole = int(rating)
    cut = x + whole * step + round((rating - whole) * size * 2)
    full.paste((0, 0, 0, 0), (cut, 0, WIDTH, HEIGHT))
    image.alpha_composite(empty)
    image.alpha_composite(full)
    return x + 5 * step - 8


def _text(image: Image.Image, xy: tuple[int, int], text: str, *, size: int, fill: tuple[int, int, int, int],
          anchor: str = "la", bold: bool = False) -> None:
    layer = Image.new("RGBA", image.size)
    ImageDraw.Draw(layer).text(xy, text, font=font(size), fill=fill, anchor=anchor,
                               stroke_width=2 if bold else 0, stroke_fill=fill)
    image.alpha_composite(layer)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def _headline(image: Image.Image, text: str, top: int, sizes: Sequence[int] = (76, 64)) -> int:
    """The name: one line at the larger size when it fits, else two at the smaller; the y below it."""
    width = WIDTH - 2 * MARGIN
    lines = fit_lines(text, size=sizes[0], max_width=width, max_lines=1)
    size = sizes[0]
    if len(lines) == 1 and lines[0] != text:
        size = sizes[1]
        lines = fit_lines(text, size=size, max_width=width, max_lines=2)
    for line in lines:
        _text(image, (MARGIN, top), line, size=size, fill=WHITE, bold=True)
        top += int(size * 1.2)
    return top


def agent_png(card: AgentCard) -> bytes:
    start, end = palette(card.name)
    seed = hashlib.sha256(card.name.encode("utf-8", "surrogatepass")).digest()
    image = _background(start, end, seed)
    _brand(image, _rgb(start))
    category = drawable_text(card.category)
    if category:
        label = _ellipsize(category, 28, 420)
        right = WIDTH - MARGIN
        left = right - int(_width(label, 28)) - 48
        _pill(image, (left, 66, right, 114), FAINT_WHITE)
        _text(image, ((left + right) // 2, 90), label, size=28, fill=WHITE, anchor="mm")
    below = _headline(image, drawable_text(card.name) or "AI Agent", 190)
    tagline = drawable_text(card.tagline)
    if tagline:
        for line in fit_lines(tagline, size=34, max_width=WIDTH - 2 * MARGIN, max_lines=2):
            _text(image, (MARGIN, below + 8), line, size=34, fill=SOFT_WHITE)
            below += 44
    price = drawable_text(card.price)
    price_width = int(_width(price, 40))
    _pill(image, (MARGIN, 470, MARGIN + price_width + 56, 542), WHITE)
    _text(image, (MARGIN + 28, 506), price, size=40, fill=(*_rgb(start), 255), anchor="lm", bold=True)
    if card.reviews > 0:
        x = _stars(image, MARGIN + price_width + 96, 506, min(max(card.rating, 0.0), 5.0))
        noun = "review" if card.reviews == 1 else "reviews"
        _text(image, (x + 20, 506), f"{card.rating:.1f} ({card.reviews:,} {noun})", size=32, fill=WHITE,
              anchor="lm")
    if card.site:
        _text(image, (WIDTH - MARGIN, 590), drawable_text(card.site), size=26, fill=SOFT_WHITE, anchor="rs")
    return _png(image)


def site_png(*, site: str) -> bytes:
    """The picture of the pages that are not an agent's: the name, what it is, the address."""
    start, end = SITE_PALETTE
    image = _background(start, end, hashlib.sha256(b"AgentMarket").digest())
    _brand(image, _rgb(start))
    _headline(image, SITE_HEADLINE, 220)
    _text(image, (MARGIN, 420), SITE_TAGLINE, size=36, fill=SOFT_WHITE)
    if site:
        _text(image, (WIDTH - MARGIN, 590), drawable_text(site), size=26, fill=SOFT_WHITE, anchor="rs")
    return _png(image)
