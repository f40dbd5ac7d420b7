"""Sending the webhook outbox (`webhook_deliveries`, written by outbox.py) from any number of processes.

As the mail outbox: `drain` claims due deliveries a batch at a time with one conditional update (still due)
that moves `next_attempt_at` past a lease and counts the attempt, committed before anything is sent, so two
senders never send one delivery and a delivery whose sender died is due again once the lease ends (at least
once, never lost). Each attempt is a signed POST (signing.py) to the checked addresses (addresses.py) with a
10-second timeout; a batch's POSTs go out on `SEND_THREADS` threads and its successes are marked in one
statement. A 2xx answer marks it succeeded; anything else (another status, a timeout, a refused address) is
retried `WEBHOOK_RETRY_DELAY_SECONDS` later, doubling up to `MAX_RETRY_DELAY`, until the retry
would pass `retry_until` (24 hours after it was queued or resent): it is then marked failed and the vendor is
notified, in the transaction that marks it. Outcomes are written with a condition on the attempt (the lease is
still ours). The app runs `send_forever` as a lifespan task; tests call `drain(now=...)` with a fake clock.
Deliveries that ended more than 30 days ago are purged by the same loop (`purge_old`), in batches.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import bindparam, delete, update
from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations import webhook_http
from marketplace.models import DeliveryStatus, NotificationType, WebhookDelivery, WebhookEndpoint
from marketplace.models.base import utcnow
from marketplace.services import decisions, notifications
from marketplace.services.webhooks import addresses, signing
from marketplace.services.webhooks.worker import worker

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=1)  # a batch: CLAIM_BATCH / SEND_THREADS rounds of POSTs of at most 10 s each
CLAIM_BATCH = 16
SEND_THREADS = 8  # a batch's POSTs at once; each waits at most TIMEOUT_SECONDS, so a batch fits in its lease
_pool = ThreadPoolExecutor(max_workers=SEND_THREADS, thread_name_prefix="webhook-post")
TIMEOUT_SECONDS = 10.0
MAX_RETRY_DELAY = timedelta(hours=1)
ENDPOINT_GONE = "The endpoint was deleted"
FAILED_TITLE = "Webhook delivery failed"
KEEP_FINISHED = timedelta(days=30)  # how long the delivery log shows a delivery that ended
PURGE_BATCH = 500
PURGE_EVERY_SECONDS = 3600.0


@dataclass(frozen=True)
class Claimed:
    id: str
    endpoint_id: str
    type: str
    payload: str
    attempts: int
    retry_until: datetime


@dataclass(frozen=True)
class Target:
    url: str
    secret: str
    vendor_id: str
    live: bool


@dataclass(frozen=True)
class Outcome:
    code: int | None
    duration_ms: int | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


def aware(moment: datetime) -> datetime:
    """Columns come back without a zone (SQLite, `timestamp` on PostgreSQL): they hold UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def retry_delay(attempts: int) -> timedelta:
    return min(timedelta(seconds=settings.webhook_retry_delay_seconds * 2 ** (attempts - 1)), MAX_RETRY_DELAY)


def drain(*, now: datetime | None = None) -> int:
    """Attempt every delivery due at `now` (default: the current time); answers how many succeeded."""
    succeeded = 0
    while True:
        moment = now or utcnow()
        batch = _claim_due(moment)
        if not batch:
            return succeeded
        targets = _targets({c.endpoint_id for c in batch})
        live: list[tuple[Claimed, Target]] = []
        for claimed in batch:
            target = targets.get(claimed.endpoint_id)
            if target is None or not target.live:
                _finish(claimed, Outcome(code=None, duration_ms=None, error=ENDPOINT_GONE), moment, final=True)
            else:
                live.append((claimed, target))
        # A batch's POSTs go out together (one slow receiver does not hold the others), well inside the lease.
        outcomes = list(_pool.map(lambda pair: attempt(pair[1], pair[0]), live))
        done = [(claimed, outcome) for (claimed, _), outcome in zip(live, outcomes, strict=True) if outcome.ok]
        _mark_succeeded(done)
        succeeded += len(done)
        for (claimed, target), outcome in zip(live, outcomes, strict=True):
            if not outcome.ok:
                _finish(claimed, outcome, moment, target=target)


def _mark_succeeded(done: list[tuple[Claimed, Outcome]]) -> None:
    """Mark the batch's successes in one statement, each unless its lease ran out and another sender took it."""
    if not done:
        return
    at = utcnow()
    rows = [
        {"delivery_id": c.id, "tried": c.attempts, "code": o.code, "duration": o.duration_ms, "at": at} for c, o in done
    ]
    with session_scope() as session:
        decisions.claim_each(
            session, WebhookDelivery,
            WebhookDelivery.id == bindparam("delivery_id"), WebhookDelivery.attempts == bindparam("tried"),
            values={"status": DeliveryStatus.SUCCEEDED, "next_attempt_at": None,
                    "last_response_code": bindparam("code"), "last_duration_ms": bindparam("duration"),
                    "last_error": None, "updated_at": bindparam("at")},
            rows=rows,
        )


def _claim_due(moment: datetime) -> list[Claimed]:
    """Take up to `CLAIM_BATCH` due deliveries for one attempt each, in one committed statement."""
    table = WebhookDelivery.__table__
    due = (
        select(table.c.id)
        .where(table.c.next_attempt_at <= moment)
        .order_by(table.c.next_attempt_at, table.c.created_at)
        .limit(CLAIM_BATCH)
        .scalar_subquery()
    )
    claim = (
        update(table)
        .where(table.c.id.in_(due), table.c.next_attempt_at <= moment)
        .values(next_attempt_at=moment + LEASE, attempts=table.c.attempts + 1)
        .returning(
            table.c.id,
            table.c.endpoint_id,
            table.c.type,
            table.c.payload,
            table.c.attempts,
            table.c.retry_until,
            table.c.created_at,
        )
    )
    with session_scope() as session:
        rows = sorted(session.execute(claim).all(), key=lambda row: row.created_at)
    return [
        Claimed(
            id=r.id,
            endpoint_id=r.endpoint_id,
            type=r.type,
            payload=r.payload,
            attempts=r.attempts,
            retry_until=aware(r.retry_until),
        )
        for r in rows
    ]


def _targets(endpoint_ids: set[str]) -> dict[str, Target]:
    with session_scope() as session:
        rows = session.exec(select(WebhookEndpoint).where(WebhookEndpoint.id.in_(endpoint_ids))).all()
        return {
            e.id: Target(url=e.url, secret=e.secret, vendor_id=e.vendor_id, live=e.disabled_at is None) for e in rows
        }


def attempt(target: Target, claimed: Claimed) -> Outcome:
    """One signed POST of the delivery's payload; never raises."""
    body = claimed.payload.encode()
    started = time.monotonic()
    try:
        parts, port = addresses.target(target.url)
        checked = addresses.checked_addresses(parts.hostname or "", port)
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "AgentMarket-Webhooks/1",
            "X-AgentMarket-Event": claimed.type,
            "X-AgentMarket-Delivery": claimed.id,
            signing.HEADER: signing.signature(secret=target.secret, timestamp=int(time.time()), body=body),
        }
        code = webhook_http.post(
            parts=parts,
            port=port,
            addresses=[str(a) for a in checked],
            body=body,
            headers=headers,
            timeout=TIMEOUT_SECONDS,
        )
    except (addresses.AddressRefused, webhook_http.WebhookHttpError) as error:
        return Outcome(code=None, duration_ms=_ms(started), error=str(error)[:500])
    except Exception as error:  # a bug must not stop the queue: recorded, retried
        log.exception("webhook delivery %s: unexpected error", claimed.id)
        return Outcome(code=None, duration_ms=_ms(started), error=f"unexpected error: {error}"[:500])
    return Outcome(code=code, duration_ms=_ms(started), error=None if 200 <= code < 300 else f"HTTP {code}")


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _finish(
    claimed: Claimed, outcome: Outcome, moment: datetime, *, target: Target | None = None, final: bool = False
) -> None:
    """Record the attempt (unless the lease ran out and another sender claimed it since); a delivery that
    failed for good notifies its vendor in the same transaction."""
    values: dict[str, object] = {
        "last_response_code": outcome.code,
        "last_duration_ms": outcome.duration_ms,
        "last_error": outcome.error,
        "updated_at": utcnow(),
    }
    retry_at = moment + retry_delay(claimed.attempts)
    given_up = final or (not outcome.ok and retry_at > claimed.retry_until)
    if outcome.ok:
        values |= {"status": DeliveryStatus.SUCCEEDED, "next_attempt_at": None}
    elif given_up:
        values |= {"status": DeliveryStatus.FAILED, "next_attempt_at": None}
    else:
        values |= {"status": DeliveryStatus.PENDING, "next_attempt_at": retry_at}
    with session_scope() as session:
        won = decisions.claim_any(
            session,
            WebhookDelivery,
            WebhookDelivery.id == claimed.id,
            WebhookDelivery.attempts == claimed.attempts,
            values=values,
        )
        if won and given_up and target is not None:
            notifications.notify(
                session,
                user_id=target.vendor_id,
                type=NotificationType.OTHER,
                title=FAILED_TITLE,
                message=f"A {claimed.type} event could not be delivered to {target.url} within "
                f"24 hours ({outcome.error}). Open Webhooks in your dashboard to resend it.",
            )
    if not outcome.ok:
        log.warning(
            "webhook delivery %s (attempt %d) failed%s: %s",
            claimed.id,
            claimed.attempts,
            " for good" if given_up else f", retry at {retry_at:%H:%M:%S}",
            outcome.error,
        )


def purge_old(*, now: datetime | None = None) -> int:
    """Delete deliveries that ended (succeeded, or failed for good) more than `KEEP_FINISHED` ago, `PURGE_BATCH`
    rows per transaction so no statement holds many locks or a long write; answers how many went. A pending
    delivery (due, leased or resent) is never touched, so the delivery log keeps 30 days of history."""
    cutoff = (now or utcnow()) - KEEP_FINISHED
    table = WebhookDelivery.__table__
    purged = 0
    while True:
        old = (select(table.c.id)
               .where(table.c.status.in_((DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED)),
                      table.c.next_attempt_at.is_(None), table.c.updated_at < cutoff)
               .limit(PURGE_BATCH).scalar_subquery())
        with session_scope() as session:
            # The conditions again on the rows themselves: a row resent since the subquery chose it stays.
            gone = decisions.row_count(session.execute(delete(table).where(
                table.c.id.in_(old), table.c.next_attempt_at.is_(None), table.c.updated_at < cutoff)))
        purged += gone
        if gone < PURGE_BATCH:
            if purged:
                log.info("purged %d webhook deliveries that ended before %s", purged, f"{cutoff:%Y-%m-%d}")
            return purged


async def send_forever() -> None:
    """Lifespan task: drain on start, whenever a commit queued deliveries, and every poll interval; purge what
    ended long ago once an hour."""
    await worker.run_forever(drain, tidy=purge_old, tidy_seconds=PURGE_EVERY_SECONDS)
