"""Fewer JavaScript files per page: a Reflex plugin that groups the bundler's smallest shared chunks.

The production build splits every Radix Themes component, every lucide icon and each small framework module into a
file of its own, so a page asked for 45-65 files before it could run. A browser opens at most six HTTP/1.1
connections to one host: 48 files are 8 round trips back to back, 2.4 s at 300 ms, before the page's first event
can reach the server. Grouping the Radix components, the icons the pages name and the framework modules every page
loads into three long-lived (hashed, immutable) files leaves a handful. Lazily loaded libraries (Uppy, Stripe,
charts) keep their own chunks. Only the icons that pages name (`rx.icon("search")`) are grouped: the wizard's icon
picker imports all of lucide's 1,800 icons lazily, and a group of the whole package would put every one of them
into every page.
"""

from __future__ import annotations

import json
import re

import reflex as rx

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
ANCHOR = re.compile(r'(name:\s*"reflex-env",\s*\},)')


ICON_PATH = "/dist/esm/icons/"  # where a static rx.icon imports its one icon from


def _group(name: str, pattern: str) -> str:
    return f"\n            {{ name: {json.dumps(name)}, test: /[\\\\/]node_modules[\\\\/]{pattern}/ }},"


def _packages(packages: list[str]) -> str:
    return "(" + "|".join(re.escape(p).replace("/", "\\/") for p in packages) + ")[\\\\/]"


def _icons(files: set[str]) -> str:
    """lucide's shared modules (not its barrel of every icon, not its lazy DynamicIcon map) and the named icons."""
    named = "|".join(re.escape(f) for f in sorted(files))
    return (f"lucide-react[\\\\/]dist[\\\\/]esm[\\\\/]((?!icons[\\\\/]|[dD]ynamic|lucide-react)"
            f"|icons[\\\\/]({named})$)")


def group_chunks(config: str, icon_files: set[str] | frozenset[str] = frozenset()) -> str:
    """Reflex's vite config with the extra chunk groups; a changed template fails the build loudly."""
    groups = "".join(_group(name, _packages(packages)) for name, packages in GROUPS.items())
    if icon_files:
        groups = _group("icons", _icons(set(icon_files))) + groups
    grouped, count = ANCHOR.subn(lambda m: m.group(1) + groups, config, count=1)
    if count != 1:
        raise RuntimeError("vite.config.js has no reflex-env chunk group: update marketplace/build_chunks.py")
    return grouped


class FewerChunks(rx.plugins.Plugin):
    """Notes the icon files the pages import while they compile, then rewrites the generated vite.config.js
    (Reflex writes it anew at every compile, before the bundler runs)."""

    _compiler_can_replace_enter_component = False  # it only looks

    def __init__(self) -> None:
        self.icon_files: set[str] = set()

    def enter_component(self, comp: object, /, **_context: object) -> None:
        path = getattr(comp, "_import_path", None)
        if isinstance(path, str) and path.startswith(ICON_PATH):
            self.icon_files.add(path.removeprefix(ICON_PATH))

    def pre_compile(self, **context) -> None:  # noqa: ANN003 - Reflex's PreCompileContext keywords
        context["add_modify_task"](VITE_CONFIG, lambda config: group_chunks(config, self.icon_files))
