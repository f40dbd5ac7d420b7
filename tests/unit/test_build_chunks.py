"""The build plugin that groups small chunks (marketplace/build_chunks.py): which modules each group takes."""

from __future__ import annotations

import re

import pytest
import reflex as rx

from marketplace.build_chunks import FewerChunks, group_chunks

REFLEX_CONFIG = """      output: {
        codeSplitting: {
          groups: [
            {
              test: /env.json/,
              name: "reflex-env",
            },
          ],
        },
      },"""
NM = "/app/.web/node_modules/"


def _groups(config: str) -> dict[str, re.Pattern[str]]:
    """name -> the group's test, compiled (the JS regex literals used here are valid Python patterns too)."""
    found = re.findall(r'\{ name: "([\w-]+)", test: /(.+?)/ \},', config)
    return {name: re.compile(pattern) for name, pattern in found}


def _group_of(groups: dict[str, re.Pattern[str]], module: str) -> str | None:
    """The first group whose test matches, as the bundler picks."""
    return next((name for name, test in groups.items() if test.search(module)), None)


def test_named_icons_radix_framework_and_the_runtime_share_one_chunk_and_lazy_libraries_keep_theirs() -> None:
    config = group_chunks(REFLEX_CONFIG, {"search.mjs", "circle-check.mjs"})
    # first, so that env.json (a dependency of the runtime) goes into it rather than into a file of its own
    assert config.index('name: "shared"') < config.index('name: "reflex-env"')
    groups = _groups(config)
    assert list(groups) == ["shared"]
    expected = {
        f"{NM}lucide-react/dist/esm/icons/search.mjs": "shared",
        f"{NM}lucide-react/dist/esm/icons/circle-check.mjs": "shared",
        f"{NM}lucide-react/dist/esm/icons/wifi-off.mjs": "shared",  # Reflex's connection-lost overlay
        f"{NM}lucide-react/dist/esm/createLucideIcon.mjs": "shared",
        f"{NM}lucide-react/dist/esm/icons/trash-2.mjs": None,  # no page names it: only the icon picker, lazily
        f"{NM}lucide-react/dist/esm/dynamicIconImports.mjs": None,
        f"{NM}lucide-react/dist/esm/DynamicIcon.mjs": None,
        f"{NM}lucide-react/dist/esm/lucide-react.mjs": None,  # the barrel of every icon
        f"{NM}@radix-ui/themes/dist/esm/components/button.js": "shared",
        f"{NM}@radix-ui/react-dialog/dist/index.mjs": "shared",
        f"{NM}react/jsx-runtime.js": "shared",
        f"{NM}react-dom/cjs/react-dom-client.production.js": "shared",
        f"{NM}react-router/dist/production/index.mjs": "shared",
        f"{NM}socket.io-client/build/esm/index.js": "shared",
        f"{NM}react-stripe-js/dist/index.js": None,
        f"{NM}@stripe/stripe-js/dist/index.mjs": None,
        f"{NM}@uppy/core/lib/Uppy.js": None,
        f"{NM}recharts/es6/index.js": None,
        "/app/.web/app/routes/[agents]._index.jsx": None,
        "/app/.web/utils/context.jsx": "shared",  # the bundler adds state.js, env.json and the helpers it imports
        f"{NM}some-lib/utils/context.jsx": None,
    }
    assert {module: _group_of(groups, module) for module in expected} == expected


def test_without_named_icons_only_the_overlay_icon_is_shared() -> None:
    [test] = _groups(group_chunks(REFLEX_CONFIG)).values()
    assert test.search(f"{NM}lucide-react/dist/esm/icons/wifi-off.mjs")
    assert not test.search(f"{NM}lucide-react/dist/esm/icons/search.mjs")


def test_a_changed_reflex_template_fails_the_build_loudly() -> None:
    with pytest.raises(RuntimeError, match="reflex-env"):
        group_chunks("export default defineConfig({});")


def test_the_plugin_notes_the_icon_files_pages_import() -> None:
    plugin = FewerChunks()
    for component in (rx.icon("search"), rx.icon("circle_check"), rx.text("no icon")):
        plugin.enter_component(component, page_context=None, compile_context=None)
    assert plugin.icon_files == {"search.mjs", "circle-check.mjs"}
    tasks = []
    plugin.pre_compile(add_modify_task=lambda *task: tasks.append(task))
    [(path, modify)] = tasks
    assert path == "vite.config.js"
    assert 'name: "shared"' in modify(REFLEX_CONFIG) and "circle\\-check\\.mjs" in modify(REFLEX_CONFIG)


class _Listing(rx.State):
    slugs: list[str] = []


def test_the_plugin_sees_icons_inside_a_foreach_and_a_match() -> None:
    """Reflex compiles a foreach's body apart (a memoized component), where the hook does not reach."""
    plugin = FewerChunks()
    cards = rx.foreach(_Listing.slugs, lambda slug: rx.match(slug, ("code", rx.icon("code")), rx.icon("folder")))
    plugin.enter_component(rx.box(cards), page_context=None, compile_context=None)
    assert plugin.icon_files == {"code.mjs", "folder.mjs"}
