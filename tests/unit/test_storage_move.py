"""`move` on both backends: what attach uses so an attached file can no longer be replaced through its upload URL."""

import pytest

from marketplace.integrations.storage import ObjectNotFound


@pytest.fixture(params=["local", "s3"])
def storage(request):
    return request.getfixturevalue(f"{request.param}_storage")


def test_move_keeps_the_bytes_under_the_new_key_and_drops_the_old(storage):
    storage.put("uploads/a", b"x" * 1000)
    storage.move("uploads/a", "agents/1/b")
    assert storage.head("uploads/a") is None
    assert storage.head("agents/1/b") == 1000
    assert b"".join(storage.iter_chunks("agents/1/b")) == b"x" * 1000


def test_moving_a_missing_object_says_so(storage):
    with pytest.raises(ObjectNotFound):
        storage.move("uploads/missing", "agents/1/c")
