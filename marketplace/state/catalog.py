"""Catalog pages' states: landing/home, /agents (browse) and /categories.

The states only adapt: they read the address or the form, call `services.catalog`, and keep small
display records (dataclasses) for the pages to render.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any
from urllib.parse import parse_qsl, urlencode

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import AgentPublic, CategoryPublic, StatsPublic
from marketplace.services import auth, catalog, images, money, pricing
from marketplace.services.catalog.search import MAX_QUERY_LENGTH
from marketplace.services.errors import DomainError
from marketplace.services.seo import public_pages
from marketplace.services.text import is_digits
from marketplace.state import blocking
from marketplace.state.changes import assign
from marketplace.state.forms import take_submitted
from marketplace.state.service_calls import QUIET, attempt
from marketplace.state.session import ViewerMixin

# The server's plain HTML of /agents and / lists the same pages (services/seo/public_pages.py).
PAGE_SIZE = public_pages.BROWSE_PAGE_SIZE
FEATURED_LIMIT = public_pages.FEATURED_LIMIT
HOME_CATEGORY_LIMIT = 8
CARD_TAGS = 2

# The browse page's category filter (spec section 2); other categories appear only while selected.
BROWSE_CATEGORIES = (
    "content-creation", "business-automation", "data-analysis", "customer-support", "marketing", "development-tools",
)  # fmt: skip
ALL = "all"
ANY = catalog.ANY


def _price_filter_text(key: str) -> str:
    """A price filter's label: "free" -> "Free", "0-10" -> "$0 - $10", "100+" -> "$100+"."""
    return "Free" if key == "free" else "$" + key.replace("-", " - $")


# Which filters exist, and how an address's values read, is `services.catalog`'s; only the texts are here.
PRICE_LABELS = {ANY: "Any price", **{key: _price_filter_text(key) for key in catalog.PRICE_RANGES}}
BROWSE_PRICES = (ANY, *catalog.BROWSE_PRICES)
HOME_PRICES = (ANY, *catalog.HOME_PRICES)
RATING_LABELS = {ANY: "Any rating", **{key: f"{key} stars" for key in catalog.RATING_FILTERS}}
RELEVANCE = "relevance"
SORT_LABELS = {
    "popularity": "Most Popular",
    "rating": "Highest Rated",
    "newest": "Newest",
    "price-low": "Price: Low to High",
    "price-high": "Price: High to Low",
}
DEFAULT_SORT = "popularity"
POPULAR_TAGS = ("automation", "chatgpt", "productivity", "analytics", "writing")
SEARCH_MAX = MAX_QUERY_LENGTH  # the search box's max_length: the service's limit


# ---- display records ------------------------------------------------------------------------------


@dataclasses.dataclass
class Option:
    value: str = ""
    label: str = ""


@dataclasses.dataclass
class AgentCard:
    """What an agent card shows."""

    id: str = ""
    name: str = ""
    short_description: str = ""
    price: str = ""  # "$29.99", or "Free"
    price_suffix: str = ""  # "/month", " one-time", or "" when free (money.price_parts)
    is_free: bool = False
    rating: str = "0.0"
    review_count: int = 0
    image_url: str = ""
    category_name: str = ""
    category_emoji: str = ""
    vendor_name: str = ""
    tags: list[str] = dataclasses.field(default_factory=list)  # at most CARD_TAGS
    more_tags: int = 0
    is_featured: bool = False
    bought: bool = False
    trial_offer: str = ""  # 'Free for 7 days, then $29.99/month', or ''


@dataclasses.dataclass
class CategoryCard:
    id: int = 0
    slug: str = ""
    name: str = ""
    emoji: str = ""
    description: str = ""
    agent_count: int = 0


def price_parts(price: str, pricing_model: str) -> tuple[str, str]:
    """The API's price string and pricing model as the catalogue shows them (money's one rule):
    ("29.99", "monthly") -> ("$29.99", "/month"), ("49.00", "one_time") -> ("$49.00", " one-time"),
    "0.00" -> ("Free", "")."""
    try:
        cents = money.round_half_up(Decimal(price) * 100)
    except (InvalidOperation, ValueError):
        return price, ""
    return money.price_parts(cents, pricing_model=pricing_model)


def trial_offer(agent: AgentPublic) -> str:
    """'Free for 7 days, then $29.99/month' for a monthly agent with a free trial (services/pricing), else ''."""
    try:
        cents = money.round_half_up(Decimal(agent.price) * 100)
    except (InvalidOperation, ValueError):
        return ""
    return pricing.trial_offer(trial_days=agent.trial_days, pricing_model=agent.pricing_model, price_cents=cents)


def rating_label(avg_rating: str) -> str:
    """"4.25" -> "4.3": one decimal, rounded half up as people expect."""
    try:
        return str(Decimal(avg_rating).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    except InvalidOperation:
        return "0.0"


def star_fill(avg_rating: str) -> tuple[int, bool]:
    """The stars drawn for an average rating: (full stars, a half star after them), the average rounded half up
    to the nearest half star: "4.5" -> (4, True), "4.74" -> (4, True), "4.75" -> (5, False), "0" -> (0, False)."""
    try:
        halves = int((Decimal(avg_rating) * 2).quantize(Decimal("1"), rounding=ROUND_HALF_UP))
    except (InvalidOperation, ValueError):
        return 0, False
    halves = min(max(halves, 0), 10)
    return halves // 2, halves % 2 == 1


def agent_card(agent: AgentPublic, bought: set[str] | frozenset[str] = frozenset()) -> AgentCard:
    return AgentCard(
        id=agent.id,
        name=agent.name,
        short_description=agent.short_description,
        price=(parts := price_parts(agent.price, agent.pricing_model))[0],
        price_suffix=parts[1],
        is_free=parts[0] == "Free",
        rating=rating_label(agent.avg_rating),
        review_count=agent.review_count,
        image_url=images.displayable_image_url(agent.image_url),
        category_name=agent.category.name if agent.category else "",
        category_emoji=agent.category.emoji if agent.category else "",
        vendor_name=agent.vendor.username if agent.vendor else "",
        tags=agent.tags[:CARD_TAGS],
        more_tags=max(len(agent.tags) - CARD_TAGS, 0),
        is_featured=agent.is_featured,
        bought=agent.id in bought,
        trial_offer=trial_offer(agent),
    )


def category_card(category: CategoryPublic) -> CategoryCard:
    return CategoryCard(id=category.id, slug=category.slug, name=category.name, emoji=category.emoji,
                        description=category.description, agent_count=category.agent_count)


def options(values: Iterable[str], labels: dict[str, str], counts: dict[str, int] | None = None) -> list[Option]:
    """Select options; with `counts`, each counted value's label ends with its count ("Writing (4)")."""
    counts = counts or {}
    return [Option(value=v, label=labels.get(v, v) + (f" ({counts[v]})" if v in counts else "")) for v in values]


def agents_url(**params: str | list[str]) -> str:
    """/agents with the non-default filters as query parameters (defaults are left out)."""
    query = [
        (name, v)
        for name, value in params.items()
        for v in (value if isinstance(value, list) else [value])
        if v and v not in (ALL, ANY)
    ]
    return f"/agents?{urlencode(query)}" if query else "/agents"


# ---- landing and home ---------------------------------------------------------------------------


class _ListingCards:
    """The cards of listing pages, built once per page: a page comes from the catalogue's cache (the same JSON text
    until the catalogue changes), and parsing it and building its cards was most of what a filter change or a
    visit of `/agents` did for it. Kept by the page's text (a string's hash is computed once), least recently used
    dropped first. The cards are shared by every tab showing the page: no handler changes a card in place, and the
    viewer's "bought" marks are put on copies (`with_bought`)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._cards: OrderedDict[str, tuple[AgentCard, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def cards(self, listing: catalog.AgentListing) -> tuple[AgentCard, ...]:
        with self._lock:
            found = self._cards.get(listing.json)
            if found is not None:
                self._cards.move_to_end(listing.json)
                return found
        built = tuple(agent_card(a) for a in listing.page().items)
        with self._lock:
            self._cards[listing.json] = built
            while len(self._cards) > self.capacity:
                self._cards.popitem(last=False)
        return built


_listing_cards = _ListingCards(256)


def with_bought(cards: Iterable[AgentCard], bought: set[str] | frozenset[str]) -> list[AgentCard]:
    """The shared cards, each the viewer bought marked on a copy of its own."""
    return [dataclasses.replace(c, bought=True) if c.id in bought else c for c in cards]


def _shown_page(query: dict[str, Any], page: int) -> tuple[int, int, tuple[AgentCard, ...]]:
    """The page of agents asked for as (page number, total, cards); paged past the end (the list shrank), the last
    page and its number."""
    result = catalog.list_agents_json(**query)
    if result.total and result.json == "[]" and page > 1:
        page = (result.total + PAGE_SIZE - 1) // PAGE_SIZE
        result = catalog.list_agents_json(**{**query, "offset": (page - 1) * PAGE_SIZE})
    return page, result.total, _listing_cards.cards(result)


@dataclasses.dataclass(frozen=True)
class _Home:
    stats: StatsPublic
    categories: list[CategoryCard]
    category_options: list[Option]
    featured: list[AgentCard]


def _home_reads(token: str | None) -> _Home:
    """The home page's reads and cards, built in one trip to the state pool: each trip costs the loop a
    hand-off, and the cards built here are work the loop does not do. All but the viewer's purchases come from
    the catalogue's cache. The spec: a failed featured load shows no agents rather than an error."""
    try:
        featured = _listing_cards.cards(catalog.list_agents_json(featured=True, limit=FEATURED_LIMIT))
    except DomainError:
        featured = ()
    bought = frozenset(catalog.purchased_agent_ids(actor=auth.user_for_token(token)) if featured and token else ())
    categories = catalog.list_categories()
    return _Home(stats=catalog.stats(), categories=[category_card(c) for c in categories[:HOME_CATEGORY_LIMIT]],
                 category_options=[Option(ALL, "All categories"), *(Option(c.slug, c.name) for c in categories)],
                 featured=with_bought(featured, bought))


class HomeState(ViewerMixin, rx.State):
    """Stats, categories and featured agents for `/`, plus the quick search that leads to /agents."""

    total_agents: int = 0
    total_categories: int = 0
    total_users: int = 0
    categories: list[CategoryCard] = []
    category_options: list[Option] = []
    featured: list[AgentCard] = []
    loading: bool = True
    query: str = ""
    query_category: str = ALL
    query_price: str = ANY

    @rx.event
    async def on_load(self) -> AsyncIterator[None]:
        if (self.query, self.query_category, self.query_price, self.loading) != ("", ALL, ANY, True):
            self.query, self.query_category, self.query_price = "", ALL, ANY  # a new tab starts so: no delta
            self.loading = True
            yield
        home = await blocking.run(_home_reads, self._token())
        # A tab that comes back to the page is sent what changed since (a new agent, a sale's count), not it all.
        assign(self, total_agents=home.stats.total_agents, total_categories=home.stats.total_categories,
               total_users=home.stats.total_users, categories=home.categories,
               category_options=home.category_options, featured=home.featured, loading=False)

    @rx.event
    def set_query(self, value: str) -> None:
        self.query = value

    @rx.event
    def set_query_category(self, value: str) -> None:
        self.query_category = value

    @rx.event
    def set_query_price(self, value: str) -> None:
        self.query_price = value

    @rx.event
    def quick_search(self, form: dict | None = None) -> EventSpec:
        take_submitted(self, form, {"search": "query"})
        return rx.redirect(agents_url(search=self.query.strip(), category=self.query_category,
                                      price=self.query_price))


# ---- /agents ------------------------------------------------------------------------------------


def _query_pairs(query: str) -> list[tuple[str, str]]:
    return parse_qsl(query or "", keep_blank_values=False)


def _history_script(method: str, address: str) -> str:
    """JS that writes `address` into the current history entry (replaceState) or a new one (pushState); React
    Router's own entry state is kept, so its Back/Forward bookkeeping still holds."""
    return f"window.history.{method}(window.history.state, '', {json.dumps(address)});"


ADDRESS_CHANGED_ID = "agents-address-changed"
# Back/Forward between two of the page's own entries: React Router, which never saw them pushed, may see no change
# of location (so no on_load runs). A popstate listener, installed once per document, presses the page's hidden
# button; its event carries the live address (Reflex fills the query from window.location when it sends).
FOLLOW_BACK_JS = (
    "if (!window.__mpAgentsBack) { window.__mpAgentsBack = () => {"
    " if (/^\\/agents\\/?$/.test(window.location.pathname))"
    f" document.getElementById({json.dumps(ADDRESS_CHANGED_ID)})?.click(); }};"
    " window.addEventListener('popstate', window.__mpAgentsBack); }"
)


class BrowseState(ViewerMixin, rx.State):
    """Filters live in the address. Each change the user makes is a new history entry (pushState, unseen by the
    client router, so the page is not reloaded and a search being typed is never overwritten), and Back returns to
    the filters before it: the popped address is read again, by on_load when React Router notices the change, else
    by `follow_address` (see FOLLOW_BACK_JS). A search typed in several pauses is one entry (the first edit pushes,
    the following edits replace it). An address the page corrects (a page past the last one) is replaced."""

    search: str = ""
    category: str = ALL
    price: str = ANY
    rating: str = ANY
    sort: str = ""  # "" = the default (best match while searching, else most popular)
    tags: list[str] = []
    page: int = 1
    cards: list[AgentCard] = []
    total: int = 0
    loading: bool = True
    failed: str = ""
    category_options: list[Option] = []
    price_options: list[Option] = options(BROWSE_PRICES, PRICE_LABELS)
    rating_options: list[Option] = options(RATING_LABELS, RATING_LABELS)
    # (slug, name) pairs: a tuple, which Reflex hands back as it is; a dict came back wrapped in its mutation proxy,
    # which made each of `_update_options`' lookups a wrapped call.
    _category_names: tuple[tuple[str, str], ...] = ()
    # Agents per filter option under the other filters (`catalog.agent_facets`), shown beside the options.
    _category_counts: dict[str, int] = {}
    _price_counts: dict[str, int] = {}
    _rating_counts: dict[str, int] = {}
    _shown: str = ""  # the address of what the page shows (what the current history entry says)
    _typing: bool = False  # the last change was a search edit: the next one replaces its entry
    # The viewer's bought agents as read when the page was opened: a filter or search change reuses them (a
    # purchase happens on another page, and coming back runs on_load, which reads them again).
    _bought: list[str] = []

    # -- computed from plain vars only (no database) --

    @rx.var
    def sort_value(self) -> str:
        if self.sort:
            return self.sort
        return RELEVANCE if self.search.strip() else DEFAULT_SORT

    @rx.var
    def result_text(self) -> str:
        return f"{self.total} agent{'' if self.total == 1 else 's'} found"

    @rx.var
    def page_count(self) -> int:
        return max((self.total + PAGE_SIZE - 1) // PAGE_SIZE, 1)

    @rx.var
    def page_numbers(self) -> list[int]:
        """Pages to offer as buttons: first, last and two around the current one; 0 marks a gap."""
        count = max((self.total + PAGE_SIZE - 1) // PAGE_SIZE, 1)
        wanted = sorted({1, count, *range(max(self.page - 2, 1), min(self.page + 2, count) + 1)})
        shown: list[int] = []
        for number in wanted:
            if shown and number - shown[-1] > 1:
                shown.append(0)
            shown.append(number)
        return shown

    @rx.var
    def has_filters(self) -> bool:
        return bool(self.search.strip() or self.category != ALL or self.price != ANY or self.rating != ANY
                    or self.tags or self.sort)

    # -- address <-> filters --

    def _read_address(self, categories: list[CategoryPublic]) -> str | None:
        """Set the filters from the address; returns the `page` it asked for, as written (None if none)."""
        pairs = _query_pairs(self.router.url.query)
        first: dict[str, str] = {}
        for name, value in pairs:
            first.setdefault(name, value.strip())
        search = first.get("search", "")
        sort = first.get("sort", "").lower()
        wanted = [v.strip().lower() for n, v in pairs if n == "tag" and v.strip()]
        page = first.get("page", "1")
        # Set only what the address changed: a visit of the address the page showed last sends no filter again.
        assign(self, search=search, price=catalog.price_filter(first.get("price")),
               rating=catalog.rating_filter(first.get("rating")),
               sort=sort if sort in SORT_LABELS or (sort == RELEVANCE and search) else "",
               tags=list(dict.fromkeys(wanted))[: catalog.MAX_TAGS],
               page=int(page) if is_digits(page) and 0 < int(page) <= 100_000 else 1,
               category=self._resolve_category(first.get("category", ALL).lower(), categories))
        return first.get("page")

    def _resolve_category(self, ref: str, categories: list[CategoryPublic]) -> str:
        """A slug for the select: numeric ids (the landing page links by id) become their slug."""
        self._category_names = tuple((c.slug, c.name) for c in categories)
        if ref in ("", ALL, ANY):
            return ALL
        if ref.isdigit():
            by_id = {str(c.id): c.slug for c in categories}
            return by_id.get(ref, ref)
        return ref

    def _update_options(self) -> None:
        """The filters' options, set where they changed: a navigation builds them before the cards (the filters
        of the address) and again with the counts, and sending all three lists each time was most of `/agents`'
        delta."""
        names = dict(self._category_names)
        values = list(BROWSE_CATEGORIES)
        if self.category != ALL and self.category not in values:
            values.append(self.category)
        labels = {v: names.get(v, v.replace("-", " ").title()) for v in values}
        prices = list(BROWSE_PRICES)
        if self.price not in prices:
            prices.append(self.price)
        assign(self, category_options=[Option(ALL, "All categories"), *options(values, labels, self._category_counts)],
               price_options=options(prices, PRICE_LABELS, self._price_counts),
               rating_options=options(RATING_LABELS, RATING_LABELS, self._rating_counts))

    def _address(self) -> str:
        url = agents_url(search=self.search.strip(), category=self.category, price=self.price, rating=self.rating,
                         sort=self.sort, tag=self.tags)
        if self.page > 1:
            url += ("&" if "?" in url else "?") + f"page={self.page}"
        return url

    def _query(self) -> dict[str, Any]:
        """`catalog.list_agents`'s arguments for the filters shown (read here, on the loop, not by the worker)."""
        return dict(
            search=self.search.strip() or None,
            category=None if self.category == ALL else self.category,
            price=None if self.price == ANY else self.price,
            rating=None if self.rating == ANY else self.rating,
            sort=self.sort or (None if self.search.strip() else DEFAULT_SORT),
            tags=self.tags,
            limit=PAGE_SIZE,
            offset=(self.page - 1) * PAGE_SIZE,
        )

    async def _fetch(self, *, reread_bought: bool = False) -> None:
        if reread_bought:
            viewer = await self.viewer()  # signed out: no purchases to read
            self._bought = sorted(await blocking.run(catalog.purchased_agent_ids, actor=viewer)) if viewer else []
        done = await attempt(QUIET, _shown_page, self._query(), self.page)
        if done.failed:
            assign(self, cards=[], total=0, failed=done.message)
            return
        page, total, cards = done.value
        assign(self, page=page, total=total, cards=with_bought(cards, set(self._bought)), failed="")

    async def _count_options(self) -> None:
        """The counts beside the filter options, read after the cards are shown (a search's counts group all its
        matches, which costs more than one page)."""
        query = {name: value for name, value in self._query().items() if name not in ("sort", "limit", "offset")}
        done = await attempt(QUIET, catalog.agent_facets, **query)
        if done.failed:
            return  # the list has said what is wrong
        facets = done.value
        self._category_counts = {c.slug: c.count for c in facets.categories}
        self._price_counts = {p.value: p.count for p in facets.prices}
        self._rating_counts = {r.value: r.count for r in facets.ratings}
        self._update_options()

    async def _refresh(self, *, scroll: bool = False, typing: bool = False) -> AsyncIterator[Any]:
        """Show the filters just changed and record them in the address: a new history entry, except while the
        user goes on typing a search (its entry is replaced)."""
        replace = typing and self._typing
        self._typing = typing
        self.loading = True
        yield
        self._update_options()
        await self._fetch()
        self.loading = False
        address = self._address()
        script = "" if address == self._shown else _history_script("replaceState" if replace else "pushState",
                                                                    address)
        self._shown = address
        if scroll:
            script += " window.scrollTo({top: 0, behavior: 'smooth'});"
        if script:
            yield rx.call_script(script)
        else:
            yield
        await self._count_options()

    # -- events --

    async def _show_address(self) -> AsyncIterator[Any]:
        """Show the filters of the address: skeletons first unless it is what the page already shows (then the
        cards are only refreshed in place)."""
        self._typing = False
        asked = self._read_address(await blocking.run(catalog.list_categories))
        if self._address() != self._shown or not self.cards:
            self.loading = True
            self.cards = []
            yield
        self._update_options()
        await self._fetch(reread_bought=True)
        assign(self, loading=False)
        self._shown = self._address()
        if asked is not None and asked != (str(self.page) if self.page > 1 else None):
            # ?page=99 of 3 pages (or page=0, page=x): the address says what is shown, in place of what was asked
            yield rx.call_script(_history_script("replaceState", self._shown))
        else:
            yield
        await self._count_options()

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        """A visit, or Back/Forward to one of the page's entries that React Router noticed."""
        async for update in self._show_address():
            yield update
        yield rx.call_script(FOLLOW_BACK_JS)

    @rx.event
    async def follow_address(self) -> AsyncIterator[Any]:
        """Back/Forward between the page's own entries (pressed by FOLLOW_BACK_JS): show the popped address."""
        async for update in self._show_address():
            yield update

    @rx.event
    async def set_search(self, value: str) -> AsyncIterator[Any]:
        self.search = value
        self.page = 1
        if self.sort == RELEVANCE and not value.strip():
            self.sort = ""
        async for update in self._refresh(typing=True):
            yield update

    @rx.event
    async def set_category(self, value: str) -> AsyncIterator[Any]:
        self.category, self.page = value, 1
        async for update in self._refresh():
            yield update

    @rx.event
    async def set_price(self, value: str) -> AsyncIterator[Any]:
        self.price, self.page = value, 1
        async for update in self._refresh():
            yield update

    @rx.event
    async def set_rating(self, value: str) -> AsyncIterator[Any]:
        self.rating, self.page = value, 1
        async for update in self._refresh():
            yield update

    @rx.event
    async def set_sort(self, value: str) -> AsyncIterator[Any]:
        self.sort = "" if value == DEFAULT_SORT and not self.search.strip() else value
        self.page = 1
        async for update in self._refresh():
            yield update

    @rx.event
    async def toggle_tag(self, tag: str) -> AsyncIterator[Any]:
        self.tags = [t for t in self.tags if t != tag] if tag in self.tags else [*self.tags, tag]
        self.page = 1
        async for update in self._refresh():
            yield update

    @rx.event
    async def go_to_page(self, number: int) -> AsyncIterator[Any]:
        self.page = min(max(number, 1), max((self.total + PAGE_SIZE - 1) // PAGE_SIZE, 1))
        async for update in self._refresh(scroll=True):
            yield update

    @rx.event
    async def clear_filters(self) -> AsyncIterator[Any]:
        self.search, self.category, self.price, self.rating, self.sort, self.tags, self.page = (
            "", ALL, ANY, ANY, "", [], 1,
        )
        async for update in self._refresh():
            yield update


# ---- /categories --------------------------------------------------------------------------------


class CategoriesState(ViewerMixin, rx.State):
    categories: list[CategoryCard] = []
    loading: bool = True

    @rx.event
    async def on_load(self) -> AsyncIterator[None]:
        self.loading = True
        yield
        self.categories = [category_card(c) for c in await blocking.run(catalog.list_categories)]
        self.loading = False
