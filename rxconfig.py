"""Reflex configuration, derived from the one settings object."""

import reflex as rx

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
