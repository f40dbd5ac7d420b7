"""Which preview image a page names, and the image itself, drawn once per content and kept.

An agent's picture shows its name, short description, price label, category and rating, so it changes when one of
those does (an approved edit, a review). Its stamp is a digest of exactly what it shows: the page's `og:image`
address carries it (`preview_path`), it is the image's ETag, and it keys the in-process cache, so an edit gets a
new address at once and an unchanged agent is never redrawn. The agent itself comes from the catalogue's cached
read (`catalog.get_agent`: no statement once cached); only a live agent has a picture.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import astuple, dataclass
from decimal import Decimal
from functools import cache
from urllib.parse import urlsplit

from marketplace.config import settings
from marketplace.models import AgentPublic
from marketplace.services import catalog, money
from marketplace.services.seo import preview_image
from marketplace.services.seo.preview_image import AgentCard

DRAWING = "1"  # bump when the drawing changes, so every address and ETag changes with it
AGENT_PREFIX, SUFFIX = "/og/agents/", ".png"
SITE_PATH = "/og/site.png"
CACHE_BYTES = 16 * 1024 * 1024  # ~230 agents' pictures of ~70 KB
STAMPED_CACHE = "public, max-age=31536000, immutable"  # the address carries the stamp: it never changes
UNSTAMPED_CACHE = "public, max-age=3600"  # asked without the stamp (or an old one): look again within the hour


@dataclass(frozen=True)
class Preview:
    png: bytes
    etag: str  # the stamp

    def cache_control(self, asked_stamp: str | None) -> str:
        return STAMPED_CACHE if asked_stamp == self.etag else UNSTAMPED_CACHE


class _Kept:
    """Least recently used pictures, bounded by their total size; thread-safe (drawn on worker threads)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> bytes | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], png: bytes) -> None:
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = png
            self._bytes += len(png)
            while self._bytes > self.max_bytes and len(self._entries) > 1:
                self._bytes -= len(self._entries.popitem(last=False)[1])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


kept = _Kept(CACHE_BYTES)


def _site() -> str:
    return urlsplit(settings.public_url).netloc


def card(agent: AgentPublic) -> AgentCard:
    """What the agent's picture shows: the price by the one label rule (`money.price_label`)."""
    cents = money.round_half_up(Decimal(agent.price) * 100)
    return AgentCard(name=agent.name, tagline=agent.short_description,
                     price=money.price_label(cents, pricing_model=agent.pricing_model),
                     category=agent.category.name if agent.category else "", rating=float(agent.avg_rating),
                     reviews=agent.review_count, site=_site())


def stamp(agent_card: AgentCard) -> str:
    text = "\x1f".join(str(part) for part in (DRAWING, *astuple(agent_card)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def preview_path(*, agent: AgentPublic) -> str:
    """The address of a live agent's picture, for its page's `og:image` (make it absolute with `PUBLIC_URL`):
    `/og/agents/{id}.png?v={stamp}`, a new one whenever the picture changes."""
    return f"{AGENT_PREFIX}{agent.id}{SUFFIX}?v={stamp(card(agent))}"


def agent_preview(*, agent_id: str) -> Preview:
    """A live agent's picture (NotFound for any other id: unknown, pending, rejected or deleted)."""
    agent = catalog.get_agent(agent_id=agent_id, actor=None)  # a signed-out caller sees live agents only
    agent_card = card(agent)
    key = (agent.id, stamp(agent_card))
    png = kept.get(key)
    if png is None:
        png = preview_image.agent_png(agent_card)
        kept.put(key, png)
    return Preview(png=png, etag=key[1])


def _site_stamp(site: str) -> str:
    return hashlib.sha256(f"{DRAWING}\x1fsite\x1f{site}".encode()).hexdigest()[:16]


@cache
def _site_preview(site: str) -> Preview:
    return Preview(png=preview_image.site_png(site=site), etag=_site_stamp(site))


def site_preview() -> Preview:
    """The picture of every page that is not an agent's."""
    return _site_preview(_site())


def site_preview_path() -> str:
    """The address of the site's picture, for the `og:image` of the other pages: `/og/site.png?v={stamp}`."""
    return f"{SITE_PATH}?v={_site_stamp(_site())}"
