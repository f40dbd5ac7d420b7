"""`python -m dev.stripe_standin --port 8420`: localstripe + our compatibility layer + the Stripe.js shim."""

from __future__ import annotations

import argparse
import ipaddress
import itertools
import logging
import os
import sys
from pathlib import Path

from aiohttp import web

from dev.stripe_standin import context, invoices
from dev.stripe_standin.server import create_app


def _days(value: str) -> tuple[int, ...]:
    try:
        days = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError("comma-separated whole days, e.g. 1,3,7") from None
    if not days or any(b <= a for a, b in itertools.pairwise(days)) or days[0] <= 0:
        raise argparse.ArgumentTypeError("increasing positive days, e.g. 1,3,7")
    return days


def _loopback(host: str) -> str:
    if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
        raise argparse.ArgumentTypeError("the stand-in only listens on loopback addresses")
    return host


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dev.stripe_standin", description=__doc__)
    parser.add_argument("--port", type=int, default=8420)
    parser.add_argument("--host", type=_loopback, default="127.0.0.1")
    parser.add_argument("--webhook-url", help="deliver events here, e.g. http://localhost:3000/api/stripe/webhook")
    parser.add_argument("--webhook-secret", help="signing secret for --webhook-url (STRIPE_WEBHOOK_SECRET)")
    parser.add_argument("--webhook-events", help="comma-separated event types to send (default: all)")
    parser.add_argument("--state-file", type=Path, help="keep objects across restarts in this pickle file")
    parser.add_argument("--api-version", default=context.CURRENT_API_VERSION,
                        help="events' API version, like a webhook endpoint's (default: the pinned SDK's)")
    parser.add_argument("--retry-days", default="1,3,7", type=_days,
                        help="retries of a failed renewal, in days after the first failure (default 1,3,7)")
    parser.add_argument("--after-retries", choices=("canceled", "unpaid", "past_due"), default="canceled",
                        help="the subscription when the last retry fails (default canceled)")
    parser.add_argument("--tick", type=float, default=10.0,
                        help="seconds between runs of the wall clock's renewals (0: only POST /_standin/tick)")
    parser.add_argument("--delay-ms", type=float, default=float(os.environ.get("STANDIN_DELAY_MS") or 0),
                        help="answer every /v1 API call this late, like Stripe over the internet (default: "
                             "STANDIN_DELAY_MS, else 0)")
    parser.add_argument("--quiet", action="store_true", help="no access log")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="stripe-standin: %(message)s")
    context.default_api_version = args.api_version
    invoices.dunning.retry_days = args.retry_days
    invoices.dunning.after_retries = args.after_retries
    events = [e.strip() for e in args.webhook_events.split(",")] if args.webhook_events else None
    app = create_app(state_file=args.state_file, webhook_url=args.webhook_url, webhook_secret=args.webhook_secret,
                     webhook_events=events, tick_seconds=args.tick, delay_ms=args.delay_ms)
    access_log = None if args.quiet else logging.getLogger("aiohttp.access")
    print(f"stripe-standin listening on http://{args.host}:{args.port}", flush=True)
    web.run_app(app, host=args.host, port=args.port, access_log=access_log, print=None,
                handle_signals=True)


if __name__ == "__main__":
    main()
