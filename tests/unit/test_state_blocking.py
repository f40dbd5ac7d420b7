"""`state.blocking.run`: a state's service call runs on a worker thread and hands back its result or error."""

from __future__ import annotations

import asyncio
import threading

import pytest

from marketplace.state import blocking


def test_a_call_runs_on_a_worker_thread_with_its_arguments():
    async def main() -> None:
        assert await blocking.run(threading.get_ident) != threading.get_ident()
        assert await blocking.run(lambda a, *, b: a + b, 1, b=2) == 3

    asyncio.run(main())


def test_the_loop_serves_others_while_a_call_waits():
    async def main() -> list[str]:
        order: list[str] = []
        release = threading.Event()

        async def slow() -> None:
            await blocking.run(release.wait, 5)
            order.append("slow")

        async def quick() -> None:
            order.append("quick")
            release.set()

        await asyncio.gather(slow(), quick())
        return order

    assert asyncio.run(main()) == ["quick", "slow"]


def test_an_error_reaches_the_awaiting_handler():
    def fail() -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        asyncio.run(blocking.run(fail))
