"""Records and configs as declared: :class:`Record`, :class:`FunctionConfig`, :func:`Field`,
the validators' decorators, and each class read once, on first use (the layer without pydantic).

A :class:`Record` declares its fields as class annotations with defaults, like a dataclass; a
default may be a :func:`Field` with an ``alias`` (the name users write: ``apiVersion``), a
``default_factory`` and constraints (``min_length``, ``gt``, ``ge``, ``le``). ``Record(**data)``
and ``Record.model_validate(data)`` take fields by name or alias and check every value against
its annotation, as pydantic's lax mode does (the configs were pydantic models before krmlib 0.2.x
and the errors read the same): ``"3"`` is an int, ``"yes"`` a bool, an int a float, never an int
a string. Supported annotations: ``str``, ``bool``, ``int``, ``float``, ``Any``, ``Literal[...]``,
``X | None``, unions of those, ``list[T]``, ``tuple[T, ...]``, ``dict[K, V]`` and nested Records:
what a YAML config holds (bytes, from ``!!binary``, read as text).

Unknown fields are errors; defaults are validated like given values. ``@field_validator(name)``
checks a field after its type (``mode="before"``: the raw value, before it); with a third
parameter it gets a :class:`~krmlib.ValidationInfo` whose ``data`` holds the fields validated
so far.
``@model_validator(mode="before")`` rewrites the raw input, ``mode="after"`` checks the record.
A validator raises ``ValueError`` to reject (``Value error, <message>``).

Each class is read once, on first use: its fields, and each annotation as a shape (a tuple) that
one walker, :func:`krmlib._config.parse._check`, follows for every value (the walker, the
scalar rules and :class:`~krmlib.RecordError` live in :mod:`.parse`, so that a config's parse
runs in one module). A failure raises :class:`~krmlib.RecordError`, whose ``errors()`` has
pydantic's shape (``type``, ``loc``, ``msg``, ``input``, ``ctx``).

Why not pydantic: importing it costs about 100 ms, more than a function's whole start-up budget
(issue 17.3). pydantic stays for :meth:`KubeObject.as_model` only.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

from . import parse as _parse
from .parse import API_VERSION, MISSING, Form

if TYPE_CHECKING:  # type variables for the checker: a bound by name makes a ForwardRef, whose
    # compile() builds the AST types (about 10 M instructions at start-up, issue 37)
    from krmlib._model.object import KubeObject

    T = TypeVar("T")
    R = TypeVar("R", bound="Record")
    C = TypeVar("C", bound="FunctionConfig")
Shape = tuple[Any, ...]  # an annotation as the validator reads it (_shape)


class FieldInfo:
    """One field: its name, alias, type, default and constraints (``Record.model_fields``)."""

    def __init__(
        self,
        default: Any = MISSING,
        *,
        alias: str | None = None,
        default_factory: Callable[[], Any] | None = None,
        min_length: int | None = None,
        gt: float | None = None,
        ge: float | None = None,
        le: float | None = None,
    ) -> None:
        if default is not MISSING and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.name = ""
        self.annotation: Any = None
        self.default, self.alias, self.default_factory = default, alias, default_factory
        self.min_length, self.gt, self.ge, self.le = min_length, gt, ge, le

    def is_required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    def get_default(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default

    def __repr__(self) -> str:
        return (
            f"FieldInfo(name={self.name!r}, alias={self.alias!r}, annotation={self.annotation!r})"
        )


def Field(
    *,
    default: Any = MISSING,
    alias: str | None = None,
    default_factory: Callable[[], Any] | None = None,
    min_length: int | None = None,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
) -> Any:
    """A field's default, alias, factory or constraints: ``x: int = Field(default=1, ge=0)``."""
    return FieldInfo(
        default,
        alias=alias,
        default_factory=default_factory,
        min_length=min_length,
        gt=gt,
        ge=ge,
        le=le,
    )


class _Hook:
    """A validator as declared in a class body (collected when the class is first used)."""

    def __init__(self, kind: str, mode: str, names: tuple[str, ...], func: Any) -> None:
        self.kind, self.mode, self.names = kind, mode, names
        self.func: Callable[..., Any] = func.__func__ if isinstance(func, classmethod) else func
        self.takes_info = self.func.__code__.co_argcount >= 3


def field_validator(
    name: str, *names: str, mode: Literal["before", "after"] = "after"
) -> Callable[[T], T]:
    """Declare ``(cls, value[, info]) -> value`` as a check of the named fields."""
    return lambda func: typing.cast(Any, _Hook("field", mode, (name, *names), func))


def model_validator(*, mode: Literal["before", "after"]) -> Callable[[T], T]:
    """Declare ``(cls, raw) -> raw`` (``before``) or ``(self) -> self`` (``after``)."""
    return lambda func: typing.cast(Any, _Hook("model", mode, (), func))


class _Schema:
    """A Record class read once: its fields in order, their shapes and the validators."""

    def __init__(self, cls: type[Record]) -> None:
        hooks = [v for k in reversed(cls.__mro__) for v in vars(k).values() if isinstance(v, _Hook)]
        self.fields: dict[str, FieldInfo] = {}
        # per field: name, info, shape, steps (its validators; None: its type), has limits
        self.plan: list[tuple[str, FieldInfo, Shape, tuple[_Hook | None, ...], bool]] = []
        for name, annotation in _hints(cls).items():
            if name.startswith("_") or get_origin(annotation) is ClassVar:
                continue
            declared = getattr(cls, name, MISSING)
            if not isinstance(declared, FieldInfo):
                declared = FieldInfo(declared)
            info = FieldInfo.__new__(FieldInfo)  # a copy: a subclass may annotate it anew
            info.__dict__.update(vars(declared), name=name, annotation=annotation)
            if info.alias is None and cls.CAMEL_CASE and "_" in name.strip("_"):
                info.alias = camel_case(name)  # KRM spells fields in camelCase
            self.fields[name] = info
            mine = [h for h in hooks if name in h.names]
            before = [h for h in mine if h.mode == "before"]
            steps = (*before, None, *[h for h in mine if h.mode == "after"])
            limits = (info.min_length, info.gt, info.ge, info.le) != (None,) * 4
            self.plan.append((name, info, _shape(annotation), steps, limits))
        for hook in hooks:
            unknown = [n for n in hook.names if n not in self.fields]
            if unknown:
                raise TypeError(f"{cls.__name__}: a validator names unknown fields {unknown}")
        self.before = [h for h in hooks if h.kind == "model" and h.mode == "before"]
        self.after = [h for h in hooks if h.kind == "model" and h.mode == "after"]


def _hints(cls: type[Record]) -> dict[str, Any]:
    """``typing.get_type_hints(cls)`` without ``typing.ForwardRef``: each postponed annotation is
    evaluated with ``eval`` in its class's namespace and module, as get_type_hints does, but
    ForwardRef's ``compile()`` would build the AST types (about 10 M instructions, issue 37).
    Anything eval does not settle plainly (a name it cannot find, a quoted name left inside,
    ``Annotated``) is left to get_type_hints, for its answer and its error."""
    hints: dict[str, Any] = {}
    try:
        for base in reversed(cls.__mro__):
            namespace = dict(vars(base))
            annotations = namespace.get("__annotations__")
            if not isinstance(annotations, dict) or not annotations:
                continue
            module = sys.modules.get(base.__module__)
            for name, written in annotations.items():
                value = (
                    eval(written, namespace, vars(module) if module else {})
                    if isinstance(written, str)
                    else written
                )
                hints[name] = types.NoneType if value is None else value
    except Exception:
        return typing.get_type_hints(cls)
    if not all(map(_settled, hints.values())):
        return typing.get_type_hints(cls)
    return hints


def _settled(hint: Any) -> bool:
    """Whether an evaluated annotation holds no name left to evaluate (nor ``Annotated``)."""
    if isinstance(hint, (str, typing.ForwardRef)):
        return False
    origin = get_origin(hint)
    if origin is Literal:
        return True
    return origin is not typing.Annotated and all(map(_settled, get_args(hint)))


def camel_case(name: str) -> str:
    """``init_containers`` → ``initContainers``: a field name as KRM spells it."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class _RecordMeta(type):
    def _krm_schema(cls) -> _Schema:
        """The class as read on first use (how the walker, in :mod:`.parse`, reads it)."""
        return _schema(cls)

    @property
    def model_fields(cls) -> dict[str, FieldInfo]:
        """Field name → :class:`FieldInfo` (``alias``, ``annotation``, ``default``), in order."""
        return dict(_schema(cls).fields)


def _schema(cls: Any) -> _Schema:
    schema = cls.__dict__.get("__krm_schema__")
    if schema is None:
        schema = _Schema(cls)
        type.__setattr__(cls, "__krm_schema__", schema)
    assert isinstance(schema, _Schema)
    return schema


@typing.dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field,))
class Record(metaclass=_RecordMeta):
    """A frozen record of validated fields (see the module's documentation).

    The type checker sees a subclass as a frozen keyword-only dataclass (``dataclass_transform``,
    PEP 681): ``Config(nmae="x")``, a missing required field or a value of the wrong type is an
    error before the function runs; at run time the fields are checked as described above.
    """

    # Each snake_case field without an alias also takes its camelCase name (``init_containers``
    # reads ``initContainers``): declared once for the class. True for a FunctionConfig.
    CAMEL_CASE: ClassVar[bool] = False

    def __init__(self, **data: Any) -> None:
        self.__dict__.update(type(self).model_validate(data).__dict__)

    @classmethod
    def model_validate(cls: type[R], data: Any) -> R:
        """The record from plain data (fields by name or alias); RecordError lists failures."""
        return _parse.validated(cls, data)

    def model_copy(self: R, *, update: Mapping[str, Any] | None = None) -> R:
        """A copy with some fields (by name) replaced, not validated (as pydantic's)."""
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__, **(update or {}))
        return copy

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__.get(name) for name in _schema(type(self)).fields)

    def __eq__(self, other: object) -> bool:
        """Equal when of one class with equal fields (not what form a config came from)."""
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        fields = _schema(type(self)).fields
        inner = ", ".join(f"{name}={self.__dict__.get(name)!r}" for name in fields)
        return f"{type(self).__name__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")


class FunctionConfig(Record):
    """Base of every function's config (krmlib/README.md, "Config", says it for users).

    The typed form is ``<API_VERSION> <KIND>`` with the fields under ``spec`` (without ``KIND``
    only the ConfigMap form is accepted); the ConfigMap form has one kebab-case ``data`` key per
    field (``parent-kind``), ``CONFIGMAP_KEYS`` maps a key to a dotted path of a nested field, a
    list field takes ``a,b``, a map field ``a=b,c=d``. A snake_case field is read and named by
    its camelCase name (``CAMEL_CASE``); defaults are validated like given values.
    """

    API_VERSION: ClassVar[str] = API_VERSION
    KIND: ClassVar[str] = ""
    CAMEL_CASE: ClassVar[bool] = True  # ``init_containers`` is written ``initContainers``
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {}
    # Keys of the ConfigMap form this config refuses (key → why), e.g. a field too rich for text.
    CONFIGMAP_REFUSED: ClassVar[dict[str, str]] = {}

    @property
    def form(self) -> Form:
        """``spec`` (typed form, or no config) or ``data`` (ConfigMap form); the form is not
        part of the config's value (equality compares the fields only)."""
        form: Form = self.__dict__.get("_form", "spec")
        return form

    def field_path(self, path: str) -> str:
        """A field (by alias: ``parent.name``) as the user writes it: ``spec.parent.name`` (typed
        form, or no config) or ``data.parent-name`` (``files[0]`` is ``data.files``)."""
        return _parse._in_form(type(self), path, self.form)

    @classmethod
    def configmap_keys(cls) -> dict[str, str]:
        """ConfigMap key → dotted field path (by alias)."""
        return _parse.configmap_keys(cls)

    @classmethod
    def configmap_key_of(cls, path: str) -> str:
        """``data.<key>`` of the ConfigMap key holding the field at ``path`` (or its parent)."""
        return _parse.configmap_key_of(cls, path)

    @classmethod
    def from_configmap(cls: type[C], data: Mapping[str, Any], obj: KubeObject | None = None) -> C:
        """The model from ConfigMap ``data`` (strings); an unknown key is an error."""
        return _parse.from_configmap(cls, data, obj)


def _shape(annotation: Any) -> Shape:
    """An annotation as the walker (``parse._check``) reads it, ``(kind, ...)``; TypeError if
    not supported."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is Any:
        return ("any",)
    if origin is None and annotation in _parse.SCALARS:
        return ("scalar", _parse.SCALARS[annotation])
    if origin is None and isinstance(annotation, type) and issubclass(annotation, Record):
        return ("record", annotation)
    if origin is Literal:
        shown = [repr(a) for a in args]
        expected = f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else shown[0]
        return ("literal", args, expected)
    if origin is dict:
        return ("dict", _shape(args[0]), _shape(args[1]))
    if origin is list or (origin is tuple and args[1:] == (...,)):
        return ("sequence", origin, _shape(args[0]))
    if origin in (Union, types.UnionType):
        members = [m for m in args if m is not type(None)]
        return ("union", len(members) < len(args), tuple(_shape(m) for m in members))
    raise TypeError(f"krmlib records do not support the annotation {annotation!r}")


__all__ = [
    "MISSING",
    "Field",
    "FieldInfo",
    "FunctionConfig",
    "Record",
    "field_validator",
    "model_validator",
]
