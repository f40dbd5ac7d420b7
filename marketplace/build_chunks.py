"""Fewer JavaScript files per page: a Reflex plugin that groups the bundler's smallest shared chunks.

The production build splits every Radix Themes component, every lucide icon and each small framework module into a
file of its own, so a page asked for 45-65 files before it could run. A browser opens at most six HTTP/1.1
connections to one host: 48 files are 8 round trips back to back, 2.4 s at 300 ms, before the page's first event
can reach the server. Grouping the Radix components, the icons the pages name and the framework modules every page
loads into three long-lived (hashed, immutable) files leaves a handful. Lazily loaded libraries (Uppy, Stripe,
charts) keep their own chunks. Only the icons that pages name (`rx.icon("search")`) are grouped: the wizard's icon
picker imports all of lucide's 1,800 icons lazily, and a group of the whole package would put every one of them
into every page.

All of it is one group, one file ("shared"), with the app's own runtime (`utils/context.jsx`, Reflex's state.js and
what they import, `env.json`): a browser fetches the HTML's preloads six at a time over HTTP/1.1, and with the three
groups, the runtime, Reflex's env chunk and the connection-lost icon a page preloaded 11 modules and its stylesheet,
two waves (0.3 s more at 300 ms round trip). Every page loads all of these anyway, so one file costs no page
anything it did not already load.
"""

from __future__ import annotations

import json
import re

import reflex as rx
from reflex.components.core.foreach import Foreach

VITE_CONFIG = "vite.config.js"
# chunk name -> the packages (folders under node_modules) it takes; the first matching group wins
GROUPS = {
    "radix": ["@radix-ui", "radix-ui", "@floating-ui", "react-remove-scroll", "react-remove-scroll-bar",
              "aria-hidden", "react-style-singleton", "use-callback-ref", "use-sidecar", "classnames"],
    "framework": ["react", "react-dom", "scheduler", "react-router", "@emotion", "stylis", "socket.io-client",
                  "socket.io-parser", "engine.io-client", "engine.io-parser", "@socket.io", "sonner",
                  "universal-cookie", "cookie", "react-debounce-input", "react-helmet", "react-side-effect",
                  "react-fast-compare", "react-error-boundary", "mergician", "json5"],
}
ANCHOR = re.compile(r'(groups:\s*\[)(\s*\{\s*test:\s*/env\.json/,\s*name:\s*"reflex-env",\s*\},)')
SHARED = "shared"
# The app's runtime, outside node_modules (the bundler adds what it imports: state.js, env.json, the helpers).
RUNTIME = r"^(?!.*node_modules).*[\\/]utils[\\/]context\.jsx$"
# Reflex's connection-lost overlay (on every page) imports this icon itself, not through rx.icon.
ALWAYS_ICONS = frozenset({"wifi-off.mjs"})


ICON_PATH = "/dist/esm/icons/"  # where a static rx.icon imports its one icon from


def _group(name: str, pattern: str) -> str:
    return f"\n            {{ name: {json.dumps(name)}, test: /{pattern}/ }},"


def _packages(packages: list[str]) -> str:
    return "(" + "|".join(re.escape(p).replace("/", "\\/") for p in packages) + ")[\\\\/]"


def _icons(files: set[str]) -> str:
    """lucide's shared modules (not its barrel of every icon, not its lazy DynamicIcon map) and the named icons."""
    named = "|".join(re.escape(f) for f in sorted(files))
    return (f"lucide-react[\\\\/]dist[\\\\/]esm[\\\\/]((?!icons[\\\\/]|[dD]ynamic|lucide-react)"
            f"|icons[\\\\/]({named})$)")


def group_chunks(config: str, icon_files: set[str] | frozenset[str] = frozenset()) -> str:
    """Reflex's vite config with the one shared group first (it takes `env.json` too, which Reflex's own group
    would put in a file of its own); a changed template fails the build loudly."""
    tests = [_icons(set(icon_files) | ALWAYS_ICONS), *(_packages(packages) for packages in GROUPS.values())]
    test = "|".join([f"([\\\\/]node_modules[\\\\/]({pattern}))" for pattern in tests] + [f"({RUNTIME})"])
    grouped, count = ANCHOR.subn(lambda m: m.group(1) + _group(SHARED, test) + m.group(2), config, count=1)
    if count != 1:
        raise RuntimeError("vite.config.js has no reflex-env chunk group: update marketplace/build_chunks.py")
    return grouped


class FewerChunks(rx.plugins.Plugin):
    """Notes the icon files the pages import while they compile, then rewrites the generated vite.config.js
    (Reflex writes it anew at every compile, before the bundler runs)."""

    _compiler_can_replace_enter_component = False  # it only looks

    def __init__(self) -> None:
        self.icon_files: set[str] = set()
        self._seen: dict[int, object] = {}  # by id, holding each so that no id is reused meanwhile

    def enter_component(self, comp: object, /, **_context: object) -> None:
        """Walk the whole subtree once, ahead of the compiler: the parts Reflex memoizes into components of their
        own (a foreach's body, an rx.match's cases inside it) are compiled apart and never reach this hook, yet
        their icons are imported as soon as the page is (the category cards' six icons were six more files)."""
        stack = [comp]
        while stack:
            current = stack.pop()
            if id(current) in self._seen:
                continue
            self._seen[id(current)] = current
            path = getattr(current, "_import_path", None)
            if isinstance(path, str) and path.startswith(ICON_PATH):
                self.icon_files.add(path.removeprefix(ICON_PATH))
            stack.extend(getattr(current, "children", ()))
            if isinstance(current, rx.Component):
                stack.extend(current._get_components_in_props())
            if isinstance(current, Foreach):
                stack.append(current._render().render_component())

    def pre_compile(self, **context) -> None:  # noqa: ANN003 - Reflex's PreCompileContext keywords
        context["add_modify_task"](VITE_CONFIG, self._modify)

    def _modify(self, config: str) -> str:
        self._seen.clear()  # the pages are compiled by now; a later compile walks its own components
        return group_chunks(config, self.icon_files)
