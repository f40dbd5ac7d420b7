"""The start-up warm-up (`marketplace/warm_up.py`) fills the per-process caches that a cold worker's first request
or tab would otherwise fill on its event loop, and freezes start-up's objects, before the worker serves; and it
runs no SQL."""

from __future__ import annotations

import asyncio
import gc

import reflex.state as reflex_state
from reflex.state import State, all_base_state_classes
from reflex.utils import serializers
from sqlalchemy import event

import marketplace.marketplace as app_module
from marketplace import db, warm_up
from marketplace.api import routing
from marketplace.state.agent_detail import ReviewView
from marketplace.state.catalog import AgentCard
from marketplace.state.plans import PlanOption


def _lifespan_names() -> list[str]:
    return [getattr(task, "__name__", "") for task in app_module.app.get_lifespan_tasks()]


def test_each_worker_warms_up_after_migrating_and_before_the_loop_is_watched():
    names = _lifespan_names()
    assert names.index("_on_start") < names.index("before_serving") < names.index("_watch_the_loop")


def test_every_state_and_the_rows_they_hold_are_found():
    assert {state.get_full_name() for state in warm_up.state_classes()} == set(all_base_state_classes)
    found = warm_up.field_types(warm_up.state_classes())
    assert {AgentCard, PlanOption, ReviewView} <= found


async def _run_before_serving() -> None:
    async with warm_up.before_serving(app_module.api):
        pass


def test_the_warm_up_fills_the_first_requests_caches_and_runs_no_statement():
    routing.documented_templates.cache_clear()
    serializers.get_serializer.cache_clear()
    serializers.get_serializer_type.cache_clear()
    reflex_state._initial_snapshot_cache.pop(State, None)
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    event.listen(db.engine(), "before_cursor_execute", seen)
    try:
        asyncio.run(_run_before_serving())
        frozen = gc.get_freeze_count()
    finally:
        event.remove(db.engine(), "before_cursor_execute", seen)
        gc.unfreeze()  # this test process is no worker: its later garbage must stay collectable

    assert statements == []
    assert routing.documented_templates.cache_info().currsize == 1  # FastAPI's route contexts built with them
    assert State in reflex_state._initial_snapshot_cache  # the default snapshot every hydrate is diffed against
    assert frozen > 0  # start-up's objects, kept out of every later full collection
    for lookup in (serializers.get_serializer, serializers.get_serializer_type):
        before = lookup.cache_info()
        lookup(AgentCard)
        assert lookup.cache_info().hits == before.hits + 1, f"{lookup.__name__}(AgentCard) was not cached"
