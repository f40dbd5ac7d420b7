"""The build plugin that puts the early event websocket into every page's HTML (marketplace/early_socket.py).

The script's behaviour in a browser (one socket per cold load, dialled while the HTML is parsed, adopted by
Reflex) is covered by tests/e2e/test_early_socket.py; here: that the build writes it where the HTML gets it."""

from __future__ import annotations

import json

import pytest
from reflex import constants

from marketplace.early_socket import DOCUMENT, EarlySocket, early_socket_script, with_early_socket

# The shape of the document root Reflex 0.10 compiles (app/_document.js), cut short.
DOCUMENT_ROOT = ('export function Layout({children}) {\n  return (\n    jsx("html",{lang:"en"},jsx("head",{},'
                 'jsx("script",{},"/* color mode */"),jsx("meta",{charSet:"utf-8"},)),jsx("body",{},children))\n  )\n}')


def test_the_script_goes_first_into_the_head_as_a_plain_script_element() -> None:
    written = with_early_socket(DOCUMENT_ROOT, 'const a = "b" && 1 < 2;')
    head = written.index('jsx("head",{},')
    assert written[head:].startswith('jsx("head",{},jsx("script",{},"const a = \\"b\\" && 1 < 2;"),'
                                     'jsx("script",{},"/* color mode */")')
    assert "Helmet" not in written  # head_components would be added by react-helmet after React mounts


def test_a_changed_reflex_template_fails_the_build_loudly() -> None:
    with pytest.raises(RuntimeError, match=r"_document\.js"):
        with_early_socket('jsx("html",{},jsx(Head,{},))', "x")


def test_the_script_dials_this_builds_event_address_with_reflexs_subprotocol() -> None:
    script = early_socket_script()
    assert json.dumps(constants.Endpoint.EVENT.get_url()) in script
    assert f'protocol = {json.dumps(constants.Reflex.VERSION)}' in script
    assert "%(" not in script and "window.WebSocket = WebSocket" in script


def test_the_plugin_modifies_the_document_root_at_every_compile() -> None:
    tasks = []
    EarlySocket().pre_compile(add_modify_task=lambda *task: tasks.append(task))
    [(path, modify)] = tasks
    assert path == DOCUMENT == "app/_document.js"
    first, _ = json.JSONDecoder().raw_decode(modify(DOCUMENT_ROOT).split('jsx("head",{},jsx("script",{},', 1)[1])
    assert first == early_socket_script()
