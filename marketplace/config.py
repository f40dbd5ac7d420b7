"""One settings object, read from environment variables with safe local defaults."""

from __future__ import annotations

import ipaddress
import logging
from functools import cached_property, lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SECRET_KEY = "local-development-secret-key-change-me"

log = logging.getLogger(__name__)


class Settings(BaseSettings):
    """Environment-driven settings; `APP_ENV=production` hardens the defaults. Demo mode is on only when asked
    for (`DEMO_MODE=1`, which `make run` sets); without it the development `SECRET_KEY` is refused."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    app_env: str = "local"  # local | test | production
    secret_key: str = DEFAULT_SECRET_KEY
    public_url: str = "http://localhost:3000"
    port: int = 3000
    database_url: str = f"sqlite:///{PROJECT_ROOT / 'data' / 'marketplace.db'}"
    redis_url: str = ""
    demo_mode: bool = False  # role switcher, demo data, dev mailbox: only for `make run` (scripts/run.sh sets it)
    cors_extra_origins: str = ""  # comma separated
    # Reverse proxies in front of the app (comma-separated addresses or networks, e.g. `10.0.0.0/8, ::1`): only a
    # request from one of them has its `X-Forwarded-For` read for the client address (services/client_address.py).
    trusted_proxies: str = ""
    # > 0: the serving event loop runs in asyncio debug mode and logs each callback that held it longer than
    # this many ms ('Executing ... took 0.123 seconds', loop_watch.py); the browser suite sets 50.
    slow_callback_ms: int = 0
    # > 0: while the worker's event loop is this many ms behind, new event websockets are answered 503 and retry
    # (api/admission.py); the open tabs keep being served. 0 = admit every connection.
    admission_lag_ms: int = 1000
    catalog_cache_entries: int = 512  # listing pages cached per process, checked against catalog_version; 0 = off

    session_days: int = 14
    password_reset_minutes: int = 60  # a reset link works once, within this time
    email_verification_hours: int = 72
    guest_link_hours: int = 24  # a guest buyer's sign-in link works once, within this time

    # Mail: written to the outbox table, sent over SMTP by the app's sender; `make run` starts a local catcher here.
    smtp_url: str = "smtp://127.0.0.1:1025"  # smtp://[user:pass@]host:port (STARTTLS if offered) or smtps://
    mail_from: str = "AgentMarket <no-reply@agentmarket.test>"
    mail_retries: int = 5
    mail_retry_delay_seconds: int = 30  # doubled after each failed attempt
    webhook_retry_delay_seconds: int = 30  # seller webhooks: doubled after each failed attempt, up to an hour
    dev_mailbox_file: str = str(PROJECT_ROOT / "data" / "dev-mailbox.jsonl")  # what the local catcher keeps
    login_max_failures_per_account: int = 5
    login_max_failures_per_address: int = 20
    login_window_minutes: int = 15
    # Per client address in each window (services/ratelimit.py); 0 turns a limit off.
    rate_limit_window_minutes: int = 60
    rate_limit_register: int = 10
    rate_limit_reviews: int = 30
    rate_limit_reports: int = 10
    rate_limit_password_reset: int = 5
    rate_limit_password_reset_per_email: int = 3  # per e-mail address asked for, whoever asks
    rate_limit_verification_resend: int = 3  # per account
    # The public license API (an agent checking its key): per client address and per key, in a short window.
    rate_limit_license_window_seconds: int = 60
    rate_limit_license_per_address: int = 300
    rate_limit_license_per_key: int = 30
    rate_limit_guest_checkout: int = 10  # guest checkouts started per client address

    google_client_id: str = ""
    google_client_secret: str = ""
    google_metadata_url: str = "https://accounts.google.com/.well-known/openid-configuration"
    github_client_id: str = ""
    github_client_secret: str = ""
    github_api_base: str = "https://api.github.com"
    github_authorize_url: str = "https://github.com/login/oauth/authorize"
    github_token_url: str = "https://github.com/login/oauth/access_token"

    stripe_secret_key: str = ""
    stripe_publishable_key: str = ""
    stripe_webhook_secret: str = ""
    stripe_api_base: str = ""

    storage_backend: str = "local"  # local | s3
    storage_dir: str = str(PROJECT_ROOT / "data" / "files")
    s3_bucket: str = ""
    s3_endpoint_url: str = ""
    s3_region: str = "us-east-1"

    # Uploads (spec section 9: at most 5 files of 50 MB per agent; multipart above 100 MB).
    upload_max_file_bytes: int = 52_428_800
    upload_max_files_per_agent: int = 5
    upload_multipart_threshold_bytes: int = 104_857_600
    upload_max_open_per_vendor: int = 20  # issued, unattached, unexpired uploads
    upload_url_ttl_seconds: int = 3600  # validity of a signed upload URL
    upload_expire_hours: int = 24  # unattached uploads are deleted after this
    upload_sweep_seconds: int = 600  # how often the background task looks for expired uploads

    # Security scans of stored files (services/scanning): ClamAV's daemon on this unix socket (`make run` starts
    # one with an offline signature database under data/clamav/; production: docs/deploy.md).
    clamd_socket: str = str(PROJECT_ROOT / "data" / "clamav" / "clamd.sock")
    clamd_timeout_seconds: float = 60.0
    scan_retry_delay_seconds: int = 30  # a failed scan is retried this much later, doubling up to 6 hours
    scan_rescan_hours: int = 24  # every stored file is scanned again this often (the daily rescan)
    scan_max_unpacked_bytes: int = 1 << 30  # an archive unpacking to more is flagged, not read further
    scan_max_ratio: int = 200  # a member compressed more than this (unpacked / packed) is flagged
    scan_max_depth: int = 3  # archives inside archives deeper than this are flagged
    scan_max_members: int = 10_000

    @model_validator(mode="after")
    def _guards(self) -> Settings:
        try:
            proxy_networks(self.trusted_proxies)
        except ValueError as error:
            msg = f"TRUSTED_PROXIES must list IP addresses or networks separated by commas: {error}"
            raise ValueError(msg) from error
        if self.demo_mode and self.is_production:
            msg = "DEMO_MODE cannot be enabled in production"
            raise ValueError(msg)
        if self.secret_key == DEFAULT_SECRET_KEY and not self.demo_mode:
            # It signs upload URLs, the provider sign-in cookie and the view-count visitor hash: a key anyone can
            # read in this file is fit for the local demo only.
            msg = ("SECRET_KEY must be set to a random value of 32+ characters (the development default is "
                   "accepted only with DEMO_MODE=1)")
            raise ValueError(msg)
        if self.is_production and len(self.secret_key) < 32:
            msg = "SECRET_KEY must be set to a random value of 32+ characters in production"
            raise ValueError(msg)
        return self

    @property
    def is_production(self) -> bool:
        return self.app_env == "production"

    @property
    def demo_enabled(self) -> bool:
        return self.demo_mode

    @property
    def secure_cookies(self) -> bool:
        return self.public_url.startswith("https://")

    @cached_property
    def allowed_origins(self) -> list[str]:
        parts = urlsplit(self.public_url)
        origins = {f"{parts.scheme}://{parts.netloc}"}
        if parts.hostname == "localhost":
            origins.add(f"{parts.scheme}://127.0.0.1:{parts.port or 80}")
        origins.update(o.strip().rstrip("/") for o in self.cors_extra_origins.split(",") if o.strip())
        return sorted(origins)

    @property
    def google_configured(self) -> bool:
        return bool(self.google_client_id and self.google_client_secret)

    @property
    def github_configured(self) -> bool:
        return bool(self.github_client_id and self.github_client_secret)


@lru_cache(maxsize=8)
def proxy_networks(spec: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """`TRUSTED_PROXIES` parsed (`10.0.0.0/8`, `::1`, ...); a typo raises ValueError."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in spec.split(",") if part.strip())


settings = Settings()


def announce_demo_mode() -> None:
    """The start-up line saying whether demo mode is on: it must never be on by surprise."""
    if settings.demo_enabled:
        log.warning("demo mode is ON (DEMO_MODE=1): role switcher, demo data and the dev mailbox are open to "
                    "testers; never on a deployment real people use")
    else:
        log.warning("demo mode is off (DEMO_MODE=1 turns it on, for local testing only)")
