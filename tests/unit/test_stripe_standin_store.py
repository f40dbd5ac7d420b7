"""The stand-in's store: an index by object type, a cap on kept events, and a state file written in one piece."""

from __future__ import annotations

import pickle

from dev.stripe_standin.store import IndexedStore, Persistence


def _store() -> IndexedStore:
    store = IndexedStore()
    store._index, store._dirty = {}, False
    return store


def test_index_follows_writes_and_old_events_go():
    store = _store()
    store["customer:cus_1"] = "a"
    store["customer:cus_2"] = "b"
    store["invoice:in_1"] = "c"
    assert list(store.of("customer")) == ["a", "b"] and list(store.of("invoice")) == ["c"]
    del store["customer:cus_1"]
    assert list(store.of("customer")) == ["b"] and store._dirty
    store.MAX_EVENTS = 3
    for n in range(5):
        store[f"event:evt_{n}"] = n
    assert list(store.of("event")) == [2, 3, 4] and "event:evt_0" not in store
    store.replace_all({"price:p1": "x"})
    assert list(store.of("price")) == ["x"] and list(store.of("customer")) == []


def test_state_file_is_written_whole_and_read_back(tmp_path, monkeypatch):
    from localstripe import resources as ls

    store = _store()
    monkeypatch.setattr(ls, "store", store)
    path = tmp_path / "state.pickle"
    persistence = Persistence(path)
    store["customer:cus_1"] = {"email": "a@example.com"}
    persistence.flush()
    assert pickle.loads(path.read_bytes()) == {"customer:cus_1": {"email": "a@example.com"}}
    assert not store._dirty and not path.with_suffix(".tmp").exists()
    mtime = path.stat().st_mtime_ns
    persistence.flush()  # nothing changed: nothing written
    assert path.stat().st_mtime_ns == mtime
    store.clear()
    persistence.load()
    assert list(ls.store.of("customer")) == [{"email": "a@example.com"}]
