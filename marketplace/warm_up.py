"""Each app worker pays its one-time costs at start-up, before it serves a socket, not in a browser's first events.

A worker is a process of its own (with Redis the app runs several), and its caches start empty. Without this, the
first request or tab that reached a cold worker filled them on the worker's one event loop, stalling every tab it
served (measured with the loop timed around each callback, benchmarks/README.md "CPU per step", issue 35):
- FastAPI 0.165 builds the route contexts of its included routers (a pydantic adapter per parameter, 154 routes)
  when it first routes a request, any request (pages are mounted behind the API's routes), and
  `api/routing.MethodGuard` reads the documented paths from them: 220-240 ms of CPU;
- Reflex looks up a serializer once per type (`get_serializer`, cached per process, through ABC subclass checks):
  the first delta carrying a page's rows paid ~20 ms;
- the default snapshot of every state, which each hydrate is diffed against (`_diff_against_initial_state`), is
  computed by the first hydrate of a process that did not compile the frontend: 5-12 ms;
- anyio's asyncio backend is imported by the first `to_thread` call (serving a page file): ~10 ms;
- and, later on, the garbage collector's full collections walked every object the worker had made at start-up
  (migrations, the API's route contexts, the states' classes and caches): 60-110 ms of CPU each, on whichever
  callback they fell (the browser suite's loop watch counts them apart, `loop_watch.py`). Once start-up is done,
  those objects live as long as the worker: they are collected once and frozen (`gc.freeze`, as Reflex does in
  the parent process before it forks the workers), and later collections walk only what came after.

Lifespan start-up runs before the worker accepts a connection (Granian and Uvicorn wait for it), so no browser
waits on any of this. The caches above are per process, so they are filled on a thread of the state pool (the
worker's other start-up tasks keep the loop); anyio's worker threads belong to the loop, so its first call is
made from the loop. Nothing here reads or writes user data or the database: it reads class definitions, the
routes and the states' default values.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import typing
from collections.abc import AsyncIterator, Iterator

from fastapi import FastAPI
from reflex.state import BaseState, State, _diff_against_initial_state
from reflex.utils import serializers
from starlette.concurrency import run_in_threadpool

from marketplace.api import routing
from marketplace.state import blocking


def state_classes(root: type[BaseState] = State) -> Iterator[type[BaseState]]:
    """`root` and every state below it."""
    yield root
    for substate in root.get_substates():
        yield from state_classes(substate)


def field_types(states: typing.Iterable[type[BaseState]]) -> set[type]:
    """Every class a state's field or computed var can hold, the fields of dataclass rows included: the types
    whose values reach a delta (`list[AgentCard]` -> `list`, `AgentCard` and the types of its fields)."""
    found: set[type] = set()

    def walk(annotation: object) -> None:
        for argument in typing.get_args(annotation):
            walk(argument)
        if typing.get_origin(annotation) is not None or not isinstance(annotation, type) or annotation in found:
            return
        found.add(annotation)
        if dataclasses.is_dataclass(annotation):
            for hint in typing.get_type_hints(annotation).values():
                walk(hint)

    for state in states:
        for field in state.get_fields().values():
            walk(getattr(field, "outer_type_", None))  # set in Field.__init__, untyped for mypy
        for computed in state.computed_vars.values():
            walk(computed._var_type)
    return found


def _fill_process_caches(api: FastAPI) -> None:
    """What every worker process computes once: the API's route contexts and documented paths, the serializer of
    each type a state holds, the states' default snapshot (its own event loop: no state manager is reached)."""
    routing.documented_templates(api)
    for type_ in field_types(state_classes()):
        serializers.get_serializer(type_)
        serializers.get_serializer_type(type_)
    asyncio.run(_diff_against_initial_state(State, {}, []))


def _nothing() -> None:
    """A call for anyio's first worker thread to run (importing its asyncio backend)."""


@contextlib.asynccontextmanager
async def before_serving(api: FastAPI) -> AsyncIterator[None]:
    """The lifespan step (see the module's docstring): the worker serves once it is done."""
    await blocking.run(_fill_process_caches, api)
    await run_in_threadpool(_nothing)  # anyio's `to_thread`, as Starlette's file responses call it
    gc.collect()
    gc.freeze()
    yield
