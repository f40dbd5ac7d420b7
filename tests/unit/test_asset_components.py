"""The React wrappers of our own JSX (components/asset_component.py): each imports its file from /public by the
class's name, and a wrapper naming a file that is not in assets/ fails when it is defined, not in the build."""

from __future__ import annotations

import re

import pytest

from marketplace.components.asset_component import ASSETS, AssetComponent
from marketplace.components.confetti import Confetti
from marketplace.components.stripe_payment import StripePaymentForm
from marketplace.components.uppy import UppyUpload


@pytest.mark.parametrize(("wrapper", "asset"), [(StripePaymentForm, "stripe_payment_form.jsx"),
                                                 (UppyUpload, "uppy_upload.jsx"), (Confetti, "confetti.jsx")])
def test_a_wrapper_loads_the_component_its_jsx_exports_under_the_class_name(
    wrapper: type[AssetComponent], asset: str
) -> None:
    component = wrapper.create()
    assert (component.library, component.tag) == (f"$/public/{asset}", wrapper.__name__)
    assert f"import('$/public/{asset}').then((mod) => mod.{wrapper.__name__})" in component._get_dynamic_imports()
    assert re.search(rf"^export function {wrapper.__name__}\b", (ASSETS / asset).read_text(), re.M)


def test_a_wrapper_of_a_missing_file_is_refused_when_defined() -> None:
    with pytest.raises(FileNotFoundError, match=re.escape("assets/missing.jsx")):
        type("Missing", (AssetComponent,), {"__module__": __name__, "asset": "missing.jsx"})
