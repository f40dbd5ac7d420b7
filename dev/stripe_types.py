"""Turn the official `stripe` npm package's TypeScript definitions into dev/stripe_types.json.

The JSON is what tests/unit/test_stripe_standin_matches_stripe.py holds the stand-in and the app's requests to:
Stripe's own published types for the API version the pinned Python SDK sends, so neither can drift from Stripe
unseen. The npm package is generated from Stripe's OpenAPI specification; its `cjs/resources/*.js` give each
method's HTTP verb and path, its `.d.ts` files the parameter interfaces and the object interfaces.

    python -m dev.stripe_types [--package .tools/node_modules/stripe] [--out dev/stripe_types.json]

Output: {"stripe_npm_version", "api_version",
         "methods": {"POST /v1/setup_intents": {"params": [...], "nested": {"automatic_payment_methods": [...]}}},
         "objects": {"setup_intent": {"fields": {"status": {"values": [...]}, "automatic_payment_methods":
                                                 {"fields": [...]}, ...}}}}
Objects are keyed by their `object` string, as an answer names itself. String-literal unions drop Stripe's
`OtherString` (the SDK's room for values newer than the package): the listed values are the published ones.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PACKAGE = ROOT / ".tools" / "node_modules" / "stripe"
DEFAULT_OUT = ROOT / "dev" / "stripe_types.json"

# The resources whose methods and objects the app (and the stand-in's flows) use; paths under cjs/resources.
RESOURCES = (
    "AccountLinks", "Accounts", "ApplicationFees", "Balance", "BalanceTransactions", "BankAccounts", "Cards",
    "Charges", "Coupons", "Customers", "Discounts", "Disputes", "Events", "InvoiceItems", "InvoiceLineItems",
    "InvoicePayments", "Invoices", "LoginLinks", "PaymentIntents", "PaymentMethods", "Payouts", "Plans", "Prices",
    "Products", "PromotionCodes", "Refunds", "SetupIntents", "SubscriptionItems", "Subscriptions", "Transfers",
    "TestHelpers/TestClocks",
)
SHARED = ("shared",)

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_OPEN = re.compile(
    r"^(?:export\s+)?(?:declare\s+)?(interface|namespace|class)\s+(\w+)(?:\s+extends\s+([\w.,\s<>]+))?\s*\{$")
_PROP = re.compile(r"^(\w+)(\??):\s*(.*?);?$")
_TYPE = re.compile(r"^(?:export\s+)?(?:declare\s+)?type\s+(\w+)\s*=\s*(.*)$")
_JS_METHOD = re.compile(r"^ {4}(\w+)\([^)]*\) \{$", re.M)
_JS_REQUEST = re.compile(r"this\._makeRequest\('(\w+)',\s*[`'](.*?)[`']")
_DTS_METHOD = re.compile(r"^(\w+)\((.*)\):")
_LITERAL = re.compile(r"^'([^']*)'$")


@dataclass
class Interface:
    name: str  # qualified, e.g. SetupIntentCreateParams.AutomaticPaymentMethods
    extends: list[str] = field(default_factory=list)
    props: dict[str, str] = field(default_factory=dict)  # name -> type text


@dataclass
class Parsed:
    interfaces: dict[str, Interface] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)


def parse_dts(text: str, parsed: Parsed) -> dict[str, str]:
    """A line parser for the generated definitions (one declaration or property a line); answers the file's
    resource class's methods (name -> params interface)."""
    own: dict[str, str] = {}
    text = _COMMENT.sub("", text)
    stack: list[tuple[str, str]] = []  # (kind, qualified name); kind "block" for inline object types
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("import ", "//")):
            continue
        if pending:
            pending += " " + line
            if not line.endswith(";"):
                continue
            line, pending = pending, ""
        opened = _OPEN.match(line)
        if opened:
            kind, name, extends = opened.groups()
            qualified = f"{stack[-1][1]}.{name}" if stack and stack[-1][0] == "namespace" else name
            stack.append((kind, qualified))
            if kind == "interface":
                parents = [e.strip() for e in (extends or "").split(",") if e.strip()]
                parsed.interfaces.setdefault(qualified, Interface(qualified)).extends.extend(parents)
            continue
        if line.startswith("}"):
            if stack:
                stack.pop()
            continue
        top = stack[-1] if stack else ("", "")
        alias = _TYPE.match(line)
        if alias and top[0] in ("namespace", ""):
            if not line.endswith(";"):
                pending = line
                continue
            name = f"{top[1]}.{alias.group(1)}" if top[1] else alias.group(1)
            parsed.aliases[name] = alias.group(2).rstrip(";").strip()
            continue
        if top[0] == "class":
            method = _DTS_METHOD.match(line)
            if method:
                params = re.search(r"params\??:\s*([\w.]+)", method.group(2))
                if params:
                    own[method.group(1)] = params.group(1)
            continue
        if top[0] == "interface":
            prop = _PROP.match(line)
            if prop:
                type_text = prop.group(3)
                parsed.interfaces[top[1]].props[prop.group(1)] = type_text
                if type_text.endswith("{"):
                    stack.append(("block", ""))
            elif line.endswith("{"):
                stack.append(("block", ""))
            continue
        if line.endswith("{"):
            stack.append(("block", ""))
    return own


def parse_js(text: str) -> list[tuple[str, str, str]]:
    """(method name, HTTP verb, path template with {id}-style placeholders); a method may send to two paths
    (`accounts.retrieve`: /v1/accounts/{id}, or /v1/account without an id)."""
    found: list[tuple[str, str, str]] = []
    heads = list(_JS_METHOD.finditer(text))
    for head, after in zip(heads, [*heads[1:], None], strict=False):
        body = text[head.end():after.start() if after else len(text)]
        for verb, path in _JS_REQUEST.findall(body):
            found.append((head.group(1), verb, re.sub(r"\$\{encodeURIComponent\((\w+)\)\}", r"{\1}", path)))
    return found


def _strip(type_text: str) -> str:
    """The type without `| null`, Array<...>, Emptyable<...> around it."""
    t = type_text.strip().rstrip(";").strip()
    t = re.sub(r"\s*\|\s*null$", "", t)
    for wrapper in ("Emptyable", "Array"):
        m = re.fullmatch(rf"{wrapper}<(.*)>", t)
        if m:
            t = _strip(m.group(1))
    return t


class Resolver:
    def __init__(self, parsed: Parsed) -> None:
        self.p = parsed

    def _lookup(self, name: str, scope: str, table: dict[str, object]) -> str | None:
        parts = scope.split(".")
        for i in range(len(parts), -1, -1):
            candidate = ".".join([*parts[:i], name]) if i else name
            if candidate in table:
                return candidate
        return None

    def literals(self, type_text: str, scope: str) -> list[str] | None:
        """The string literals of a literal union (directly or through an alias), else None."""
        t = _strip(type_text)
        if re.fullmatch(r"[\w.]+", t):
            alias = self._lookup(t, scope, self.p.aliases)  # type: ignore[arg-type]
            if alias is None:
                return None
            t = _strip(self.p.aliases[alias])
        values = []
        for part in (x.strip() for x in t.split("|")):
            literal = _LITERAL.match(part)
            if literal:
                values.append(literal.group(1))
            elif part != "OtherString":
                return None
        return values or None

    def interface(self, type_text: str, scope: str) -> Interface | None:
        t = _strip(type_text)
        if not re.fullmatch(r"[\w.]+", t):
            return None
        name = self._lookup(t, scope, self.p.interfaces)  # type: ignore[arg-type]
        return self.p.interfaces.get(name) if name else None

    def props(self, iface: Interface) -> dict[str, str]:
        """Own and inherited properties (`extends PaginationParams`, `EventBase`)."""
        props: dict[str, str] = {}
        for parent in iface.extends:
            found = self.interface(parent, iface.name)
            if found is not None:
                props |= self.props(found)
        return props | iface.props


def build(package: Path) -> dict[str, object]:
    parsed = Parsed()
    cjs = package / "cjs"
    for name in SHARED:
        parse_dts((cjs / f"{name}.d.ts").read_text(), parsed)
    routes: dict[str, tuple[dict[str, str], list[tuple[str, str, str]]]] = {}
    for resource in RESOURCES:
        own = parse_dts((cjs / "resources" / f"{resource}.d.ts").read_text(), parsed)
        js = cjs / "resources" / f"{resource}.js"
        if js.exists():
            routes[resource] = (own, parse_js(js.read_text()))
    resolve = Resolver(parsed)

    methods: dict[str, object] = {}
    for class_methods, by_name in routes.values():
        for name, verb, path in by_name:
            entry: dict[str, object] = {"params": [], "nested": {}}
            iface = resolve.interface(class_methods.get(name, ""), "")
            if iface is not None:
                props = resolve.props(iface)
                entry["params"] = sorted(props)
                nested = {}
                for prop, type_text in props.items():
                    inner = resolve.interface(type_text, iface.name)
                    if inner is not None and inner.props:
                        nested[prop] = sorted(resolve.props(inner))
                entry["nested"] = dict(sorted(nested.items()))
            methods[f"{verb} {path}"] = entry

    objects: dict[str, object] = {}
    for iface in parsed.interfaces.values():
        if "." in iface.name or iface.name.startswith("Deleted"):
            continue
        props = resolve.props(iface)
        object_name = resolve.literals(props.get("object", ""), iface.name)
        # One interface per object: Event's typed variants (XxxEvent extends EventBase) add nothing.
        if not object_name or len(object_name) != 1 or (iface.name.endswith("Event") and iface.name != "EventBase"):
            continue
        fields: dict[str, object] = {}
        for prop, type_text in sorted(props.items()):
            spec: dict[str, object] = {}
            values = resolve.literals(type_text, iface.name)
            if values:
                spec["values"] = values
            inner = resolve.interface(type_text, iface.name)
            if inner is not None and inner.props:
                spec["fields"] = {
                    k: ({"values": v} if (v := resolve.literals(t, inner.name)) else {})
                    for k, t in sorted(resolve.props(inner).items())}
            fields[prop] = spec
        objects.setdefault(object_name[0], {"interface": iface.name, "fields": fields})

    api_version = re.search(r"ApiVersion = '([^']+)'", (cjs / "apiVersion.js").read_text())
    package_json = json.loads((package / "package.json").read_text())
    return {
        "stripe_npm_version": package_json["version"],
        "api_version": api_version.group(1) if api_version else None,
        "methods": dict(sorted(methods.items())),
        "objects": dict(sorted(objects.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--package", type=Path, default=DEFAULT_PACKAGE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    result = build(args.package)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")
    print(f"{args.out}: {len(result['methods'])} methods, {len(result['objects'])} objects "  # type: ignore[arg-type]
          f"(stripe npm {result['stripe_npm_version']}, API {result['api_version']})")


if __name__ == "__main__":
    main()
