"""Runtime and development requirements stay apart and in step with pyproject.toml.

requirements.txt pins what production installs; requirements-dev.txt adds the test tools, stand-ins and linters;
pyproject.toml names the app's direct runtime dependencies as compatible ranges. That the runtime pins are enough
to start the app is proved by scripts/runtime_check.sh (in `make test`); these tests keep the files honest.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
# Imported only inside `try: ... except ImportError` (Authlib's newer HTTP client, used when installed).
OPTIONAL_IMPORTS = {"httpx2"}
DEV_TOOLS = {"pytest", "playwright", "schemathesis", "moto", "localstripe", "aiosmtpd", "oidc-provider-mock", "flask",
             "ruff", "import-linter"}


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def _pins(file_name: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / file_name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line == "-r requirements.txt":
            continue
        name, sep, version = line.partition("==")
        assert sep and version and not re.search(r"[\s;<>~!,]", version), f"{file_name}: not an exact pin: {line}"
        assert _name(name) not in pins, f"{file_name}: {name} pinned twice"
        pins[_name(name)] = version
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(raw) for raw in project["dependencies"]]


def _third_party_imports() -> set[str]:
    """Top-level names the app imports (its package, the migrations and rxconfig.py), standard library aside."""
    files = [*(ROOT / "marketplace").rglob("*.py"), *(ROOT / "alembic").rglob("*.py"), ROOT / "rxconfig.py"]
    names: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in {"marketplace", "rxconfig"}}


def test_development_requirements_add_to_the_runtime_ones_without_repeating_them():
    dev_file = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    assert "-r requirements.txt" in dev_file.splitlines()
    runtime, dev = _pins("requirements.txt"), _pins("requirements-dev.txt")
    assert sorted(set(runtime) & set(dev)) == []
    assert sorted(set(runtime) & DEV_TOOLS) == [], "a test or lint tool in the runtime requirements"
    assert set(dev) >= DEV_TOOLS


def test_every_declared_dependency_is_pinned_in_the_runtime_requirements_within_its_range():
    runtime = _pins("requirements.txt")
    for requirement in _declared():
        name = _name(requirement.name)
        assert name in runtime, f"{requirement.name} is declared in pyproject.toml but not pinned in requirements.txt"
        assert requirement.specifier.contains(runtime[name]), f"{name}=={runtime[name]} is outside {requirement}"
        for extra in requirement.extras:  # psycopg[binary]: the extra's package is pinned too
            assert f"{name}-{extra}" in runtime, f"{requirement} needs {name}-{extra} pinned"


def test_every_package_the_app_imports_is_a_declared_runtime_dependency():
    """A package the app imports but gets only through another one (or through a dev tool) is gone when that
    one drops it. (What the app needs without importing it, like Starlette's `itsdangerous`, is named in
    pyproject.toml by hand and proved by the runtime check.)"""
    declared = {_name(r.name) for r in _declared()}
    providers = packages_distributions()
    missing = {}
    for module in sorted(_third_party_imports() - OPTIONAL_IMPORTS):
        distributions = {_name(d) for d in providers.get(module, [])}
        assert distributions, f"the app imports {module}, which no installed distribution provides"
        if not distributions & declared:
            missing[module] = sorted(distributions)
    assert missing == {}, f"imported by the app but not in pyproject.toml's dependencies: {missing}"
