"""The webhook sender's waking (services/background.py): the outbox wakes it after a commit, the app runs it."""

from __future__ import annotations

from marketplace.services import background

POLL_SECONDS = 2.0

worker = background.Worker("webhooks", poll_seconds=lambda: POLL_SECONDS)
