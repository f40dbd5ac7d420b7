"""Reflex configuration, derived from the one settings object."""

import reflex as rx
from reflex.constants import StateManagerMode

from marketplace.build_chunks import FewerChunks
from marketplace.config import settings
from marketplace.early_socket import EarlySocket

config = rx.Config(
    app_name="marketplace",
    frontend_port=settings.port,
    backend_port=settings.port,
    deploy_url=settings.public_url,
    api_url=settings.public_url,
    cors_allowed_origins=settings.allowed_origins,
    redis_url=settings.redis_url or None,
    # Without Redis one worker serves every tab: its states stay in memory. Reflex's default there, the disk
    # manager, pickled each touched state to a file after every event (14% of the worker's time at 40 browsers,
    # benchmarks/README.md "Websocket load") only so that a restarted process could read them back, and the pages
    # load their data from the database on every page load anyway.
    state_manager_mode=StateManagerMode.REDIS if settings.redis_url else StateManagerMode.MEMORY,
    # A tab's Redis lock is not extended while its event runs: the state's write must land within this. At
    # Reflex's 10 s saturated workers refused handlers' writes (`LockExpiredError`: 62 at 1,000 browsers on 3
    # workers; with the opportunistic lock, whose write-back waits for the tab's running event, 10 at 200 on one);
    # at 30 s none were seen. The cost: the tabs of a worker killed outright wait up to 30 s.
    redis_lock_expiration=30_000,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    plugins=[
        FewerChunks(),
        EarlySocket(),  # the event websocket is dialled by the HTML, while the modules load
        # The app's Radix theme (the plugin replaces the deprecated `rx.App(theme=...)`).
        rx.plugins.RadixThemesPlugin(theme=rx.theme(accent_color="violet", gray_color="slate", radius="large")),
    ],
    disable_plugins=[rx.plugins.SitemapPlugin],
)
