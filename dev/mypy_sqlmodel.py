"""A mypy plugin: the class-level reads that SQLModel and Reflex turn into something else at run time, typed as such.

- SQLModel declares `Agent.status` as `str` (what a row holds), but on the class it is a column:
  `Agent.status.in_(...)`, `Agent.created_at.desc()` and `Agent.id == 3` (a SQL clause, not a bool) are the queries
  the services write. SQLModel's own answer is to wrap every such read in `col(...)`; here a field of a
  `table=True` model read on the class is `sqlalchemy.orm.Mapped[<its type>]`, exactly what `col()` returns.
- SQLModel's metaclass gives a table model its `__table__` (a `sqlalchemy.Table`); here it is declared.
- Reflex declares `CartState.count: int = 0`, but `CartState.count` on the class is a `Var[int]` that pages pass to
  components; here a field of a state read on the class is `reflex_base.vars.base.Var[<its type>]`.
- Reflex's `@rx.event` is a class whose `__new__` returns an `EventCallback[*args]` (typed for pyright); mypy keeps
  the class's own type for such a `__new__`, so every handler would read as a not-callable `EventNamespace`. Here
  the decorator returns what its `__new__` says: `EventCallback[<the handler's arguments after self>]`.

Rows (`agent.status`), state instances (`self.count`), class variables and methods keep their own types. Loaded by
[tool.mypy] in pyproject.toml; mypy (whose plugin interface this uses) is pinned in requirements-dev.txt.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mypy.nodes import ARG_POS, NameExpr, TypeInfo, Var
from mypy.plugin import AttributeContext, ClassDefContext, FunctionContext, Plugin
from mypy.plugins.common import add_attribute_to_class
from mypy.types import AnyType, CallableType, Instance, NoneType, Type, TypeOfAny, UnionType, get_proper_type

_SQLMODEL = "sqlmodel.main.SQLModel"
_MAPPED = "sqlalchemy.orm.base.Mapped"
_TABLE = "sqlalchemy.sql.schema.Table"
_MARK = "marketplace_sqlmodel_table"
_STATE = "reflex.state.BaseState"
_VAR = "reflex_base.vars.base.Var"
_STRING_VAR = "reflex_base.vars.sequence.StringVar"
_ARRAY_VAR = "reflex_base.vars.sequence.ArrayVar"
_NUMBER_VAR = "reflex_base.vars.number.NumberVar"
_BOOLEAN_VAR = "reflex_base.vars.number.BooleanVar"
_OBJECT_VAR = "reflex_base.vars.object.ObjectVar"
_EVENT = "reflex_base.event.EventNamespace"
_EVENT_CALLBACK = "reflex_base.event.EventCallback"


def _is_table(info: TypeInfo) -> bool:
    """A class declared with `table=True` (or inheriting from one): marked by `_declare_table`. The mark is kept in
    the class's metadata, which mypy's cache keeps (the class's keywords are not kept)."""
    return any(_MARK in klass.metadata for klass in info.mro)


class ClassReads(Plugin):
    def _info(self, fullname: str) -> TypeInfo | None:
        symbol = self.lookup_fully_qualified(fullname)
        return symbol.node if symbol is not None and isinstance(symbol.node, TypeInfo) else None

    def get_class_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        class_name, _, attribute = fullname.rpartition(".")
        info = self._info(class_name)
        if info is None or attribute.startswith("_") or attribute in ("metadata", "model_config"):
            return None
        member = info.get(attribute)
        if member is None or not isinstance(member.node, Var) or member.node.is_classvar:
            return None
        if info.has_base(_SQLMODEL) and _is_table(info):
            wrapper = self._info(_MAPPED)
            return partial(_wrapped, wrapper) if wrapper is not None else None
        if info.has_base(_STATE) and member.node.is_inferred is False and not member.node.is_property:
            return self._state_var
        return None

    def _state_var(self, ctx: AttributeContext) -> Type:
        """The Var a state field is on its class, as Reflex's `Field.__get__` overloads say for pyright: a bool is
        a BooleanVar, a number a NumberVar, a str a StringVar, a list or tuple an ArrayVar, a dict or a dataclass
        an ObjectVar (so pages can call `.length()`, `.get()`, `.contains()` and read an item's fields)."""
        if ctx.is_lvalue:
            return ctx.default_attr_type
        return self._var_of(ctx.default_attr_type) or ctx.default_attr_type

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        """A field read on an `ObjectVar[Row]` (a row in `rx.foreach`) is the Var of that field's type, as on a
        state: Reflex types it `ObjectItemOperation` (anything goes) for pyright."""
        owner, _, attribute = fullname.rpartition(".")
        if owner != _OBJECT_VAR or attribute.startswith("_"):
            return None
        return partial(self._item_var, attribute)

    def _item_var(self, attribute: str, ctx: AttributeContext) -> Type:
        holder = get_proper_type(ctx.type)
        if not isinstance(holder, Instance) or not holder.args:
            return ctx.default_attr_type
        row = get_proper_type(holder.args[0])
        if not isinstance(row, Instance):
            return ctx.default_attr_type
        member = row.type.get(attribute)
        if member is None or not isinstance(member.node, Var) or member.node.type is None:
            return ctx.default_attr_type
        return self._var_of(member.node.type) or ctx.default_attr_type

    def _var_of(self, declared: Type) -> Type | None:
        """The Var class Reflex gives a value of this type (optional values as their value's)."""
        inner = get_proper_type(declared)
        if isinstance(inner, UnionType):
            present = [get_proper_type(item) for item in inner.items]
            present = [item for item in present if not isinstance(item, NoneType)]
            if len(present) == 1:
                inner = present[0]
        name = _var_class(inner)
        info = self._info(name)
        if info is None:
            return None
        return Instance(info, [] if name == _BOOLEAN_VAR else [inner])

    def get_base_class_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return _declare_table if fullname == _SQLMODEL else None

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname != _EVENT:
            return None
        callback = self._info(_EVENT_CALLBACK)
        return partial(_event_callback, callback) if callback is not None else None


def _declare_table(ctx: ClassDefContext) -> None:
    """Mark a table model, and declare its `__table__` (set by SQLModel's metaclass): a `Table`."""
    table = ctx.cls.keywords.get("table")
    if not (isinstance(table, NameExpr) and table.fullname == "builtins.True"):
        return
    ctx.cls.info.metadata[_MARK] = {"table": True}
    table_type = ctx.api.named_type_or_none(_TABLE)
    if table_type is None:
        if not ctx.api.final_iteration:
            ctx.api.defer()
        return
    add_attribute_to_class(ctx.api, ctx.cls, "__table__", table_type, is_classvar=True)


def _var_class(declared: Type) -> str:
    if not isinstance(declared, Instance):
        return _VAR
    info = declared.type
    if info.fullname == "builtins.bool":
        return _BOOLEAN_VAR
    if info.fullname in ("builtins.int", "builtins.float", "decimal.Decimal"):
        return _NUMBER_VAR
    if info.fullname == "builtins.str":
        return _STRING_VAR
    if info.has_base("typing.Mapping"):
        return _OBJECT_VAR
    if info.has_base("typing.Sequence") or info.has_base("builtins.set"):
        return _ARRAY_VAR
    if "dataclass" in info.metadata or info.has_base("pydantic.main.BaseModel"):
        return _OBJECT_VAR
    return _VAR


def _wrapped(wrapper: TypeInfo, ctx: AttributeContext) -> Type:
    if ctx.is_lvalue:
        return ctx.default_attr_type
    return Instance(wrapper, [ctx.default_attr_type])


def _event_callback(callback: TypeInfo, ctx: FunctionContext) -> Type:
    """`@rx.event` on `def handler(self, a: A, b: B)` gives `EventCallback[A, B]`; with options only, Any."""
    if not ctx.arg_types or not ctx.arg_types[0]:
        return AnyType(TypeOfAny.special_form)
    handler = get_proper_type(ctx.arg_types[0][0])
    if not isinstance(handler, CallableType) or any(kind != ARG_POS for kind in handler.arg_kinds):
        return AnyType(TypeOfAny.special_form)
    return Instance(callback, handler.arg_types[1:])  # mypy keeps a variadic class's arguments flat


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return ClassReads
