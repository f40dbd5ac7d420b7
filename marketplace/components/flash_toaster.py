"""The app's toaster, which also shows the toast a page left for the next one (`state.session.flash_and_go`).

The flash waits in sessionStorage across a full page load. Reading it here, once the toaster has mounted, costs
the server nothing; asking for it from the page's on_load cost every page load and every navigation one browser
round trip and one more event (a `call_script` answered by a callback), about a millisecond of the worker's CPU
each (benchmarks/README.md, "Websocket load").
"""

from __future__ import annotations

import json

from reflex.components.sonner.toast import Toaster
from reflex.vars.base import Var, VarData

from marketplace.state.session import FLASH_KEY

_KEY = json.dumps(FLASH_KEY)
# Runs after the Toaster child has mounted (a parent's effects run after its children's); the timeout lets the
# toaster subscribe first. `toast` is imported by the Toaster's own hook.
_SHOW_FLASH = (
    "useEffect(() => {"
    f" const raw = sessionStorage.getItem({_KEY});"
    " if (!raw) { return; }"
    f" sessionStorage.removeItem({_KEY});"
    " let flash; try { flash = JSON.parse(raw); } catch (e) { return; }"
    " const show = flash.error ? toast.error : toast;"
    " window.setTimeout(() => show(String(flash.title || ''), {description: String(flash.description || '')}), 0);"
    " }, [])"
)


class FlashToaster(Toaster):
    """Sonner's toaster as `rx.toast.provider` makes it, plus the hand-off of the previous page's toast."""

    def add_hooks(self) -> list[Var | str]:
        return [*super().add_hooks(),
                Var(_js_expr=_SHOW_FLASH, _var_data=VarData(imports={"react": ["useEffect"]}))]


flash_toaster = FlashToaster.create
