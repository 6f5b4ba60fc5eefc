"""libyaml's parser, loaded without running PyYAML's package ``__init__`` (start-up, issue 17.3).

krmlib reads every input through libyaml's event parser (``yaml._yaml.CParser``, the binding the
pinned PyYAML wheel ships). ``import yaml`` costs about 12 ms before a function has read a byte:
its ``__init__`` imports the pure-Python reader (one regular expression over all of Unicode, about
3.5 ms to compile), scanner, parser, composer, constructor, resolver, emitter, serializer and
representer, none of which the event parser uses. When it is imported, the binding itself needs
only ``yaml.error``, ``yaml.tokens``, ``yaml.events`` and ``yaml.nodes`` (small modules of plain
classes) and one error class from each of the other modules.

So, when nothing has imported PyYAML yet, :func:`_load` creates the ``yaml`` package from its spec
without running its ``__init__`` (the usual lazy module of PEP 562): the four small modules are the
real ones, the error classes of the others are stand-ins with the same bases and messages, lent
to the binding while it is imported. The first use of any other name of the package (``import
yaml; yaml.safe_load``, ``from yaml import ...``, ``yaml.reader``: the full loader below, a
preparer plugin, a test) runs the real ``__init__`` in that same module, which reuses the loaded
modules and binding, and gives the binding PyYAML's own error classes back. Before that, an error
the binding raises is a stand-in (a ``yaml.MarkedYAMLError`` or ``yaml.YAMLError`` with the same
fields and message), so krmlib catches those two, never the per-module classes. When PyYAML is
already imported, the binding is used as it is.

Every step of this may fail safe: if loading the package without its ``__init__`` fails in any way
(a PyYAML whose layout changed, say), what it left in ``sys.modules`` goes and a plain ``import
yaml`` is used; if PyYAML has no libyaml binding at all, :data:`CParser` is PyYAML's pure-Python
parser with the same methods (slower, same events), and :data:`FALLBACK` says which.

None of this happens when krmlib is imported: the binding is loaded when a parse first needs it
(see :func:`__getattr__` below), and a function that never parses through it never loads it.

``tests/test_libyaml.py`` checks both paths give the same values and messages and that PyYAML works
as usual afterwards; ``tests/test_startup_imports.py`` that a function's start-up does not run it.
"""

from __future__ import annotations

import _thread
import sys
from types import ModuleType
from typing import Any

# module → the error class the binding takes from it when imported, and that class's base.
_STAND_INS = (
    ("scanner", "ScannerError", "MarkedYAMLError"),
    ("parser", "ParserError", "MarkedYAMLError"),
    ("composer", "ComposerError", "MarkedYAMLError"),
    ("constructor", "ConstructorError", "MarkedYAMLError"),
    ("emitter", "EmitterError", "YAMLError"),
    ("serializer", "SerializerError", "YAMLError"),
    ("representer", "RepresenterError", "YAMLError"),
)


def _reader_error(base: type) -> type:
    """``yaml.reader.ReaderError`` (bad bytes or characters): its fields, and the real class's
    message (importing ``yaml.reader`` then, on that error only)."""

    def __init__(
        self: Any, name: Any, position: Any, character: Any, encoding: Any, reason: Any
    ) -> None:
        self.name, self.position, self.character = name, position, character
        self.encoding, self.reason = encoding, reason

    def __str__(self: Any) -> str:
        from yaml.reader import ReaderError

        return str(ReaderError.__str__(self))

    namespace = {"__init__": __init__, "__str__": __str__, "__module__": "yaml.reader"}
    return type("ReaderError", (base,), namespace)


def _load() -> tuple[ModuleType, str]:
    """``yaml._yaml``: the binding as loaded, or loaded now without PyYAML's ``__init__``; on
    any failure of that shortcut, through a plain ``import yaml`` (see :func:`_plain`). With
    how: "" (the binding), "import" (the shortcut failed) or "python" (no binding)."""
    if "yaml" in sys.modules:  # PyYAML imported already: its binding as it is
        return _plain("")
    before = {name for name in sys.modules if name == "yaml" or name.startswith("yaml.")}
    try:
        return _shortcut(), ""
    except Exception:
        for name in [n for n in sys.modules if n == "yaml" or n.startswith("yaml.")]:
            if name not in before:
                del sys.modules[name]
        return _plain("import")


def _plain(how: str) -> tuple[ModuleType, str]:
    """The binding after a plain ``import yaml``; without one, a module whose ``CParser`` is
    PyYAML's pure-Python reader, scanner, parser and composer (the binding's methods)."""
    try:
        import yaml._yaml

        return yaml._yaml, how
    except ImportError:
        pass
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class PyParser(Reader, Scanner, Parser, Composer):
        """The libyaml binding's CParser, in pure Python."""

        def __init__(self, stream: Any) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)

    module = ModuleType("krmlib._pyparser")
    module.CParser = PyParser  # type: ignore[attr-defined]
    return module, "python"


def _shortcut() -> ModuleType:
    """``yaml._yaml`` loaded without PyYAML's ``__init__`` (raises when that cannot be done)."""
    from importlib.util import find_spec, module_from_spec

    spec = find_spec("yaml")
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        raise ImportError("yaml is not the package we know")
    package = module_from_spec(spec)
    sys.modules["yaml"] = package
    stand_ins: list[tuple[str, type]] = []
    try:
        error = __import__("yaml.error", fromlist=["YAMLError"])
        for small in ("tokens", "events", "nodes"):
            __import__(f"yaml.{small}")
        stand_ins.append(("reader", _reader_error(error.YAMLError)))
        for module, name, base in _STAND_INS:
            namespace = {"__module__": f"yaml.{module}"}
            stand_ins.append((module, type(name, (getattr(error, base),), namespace)))
        for module, cls in stand_ins:
            holder = ModuleType(f"yaml.{module}")
            setattr(holder, cls.__name__, cls)
            setattr(package, module, holder)
        binding: ModuleType = __import__("yaml._yaml", fromlist=["CParser"])
    except BaseException:  # no libyaml binding, say: _load falls back to a plain import
        del sys.modules["yaml"]
        raise
    finally:
        for module, _ in stand_ins:  # lent to the binding only while it was imported
            if module in package.__dict__:
                delattr(package, module)

    def complete(name: str) -> Any:
        """The first use of a name the package does not have yet: run its ``__init__``."""
        del package.__dict__["__getattr__"]
        spec.loader.exec_module(package)  # type: ignore[union-attr]
        for module, cls in stand_ins:
            setattr(binding, cls.__name__, getattr(getattr(package, module), cls.__name__))
        return getattr(package, name)

    package.__dict__["__getattr__"] = complete
    return binding


# The binding is loaded on first use, not when krmlib is imported (issue 37): a function whose
# input the C check (krmlib._yaml.ccheck) accepts and whose items the text readers read never
# parses through it, and loading it (PyYAML's small modules, the Cython ``yaml._yaml``) cost
# every function about 0.5-0.75 MB of peak RSS and 4 ms of CPU at start. The names below are
# declared for the type checker and set by :func:`_bind` when one of them is first read
# (``libyaml.CParser``: the module's ``__getattr__``, PEP 562). So a module that uses them
# imports this module and reads ``libyaml.X`` where it parses, never ``from .libyaml import X``
# at its top (that would load the binding there). An ``except libyaml.YAMLError`` clause is
# evaluated only when an exception reaches it, after the parser that raised it was made.
CParser: Any
YAMLError: type[Exception]
MarkedYAMLError: Any
AliasEvent: Any
DocumentEndEvent: Any
DocumentStartEvent: Any
MappingEndEvent: Any
MappingStartEvent: Any
ScalarEvent: Any
SequenceEndEvent: Any
SequenceStartEvent: Any
StreamEndEvent: Any
MappingNode: Any
SequenceNode: Any
FALLBACK: str  # "" (libyaml), "import" or "python" (see _load)

_EVENTS = (
    "AliasEvent",
    "DocumentEndEvent",
    "DocumentStartEvent",
    "MappingEndEvent",
    "MappingStartEvent",
    "ScalarEvent",
    "SequenceEndEvent",
    "SequenceStartEvent",
    "StreamEndEvent",
)
_LAZY = frozenset(("CParser", "YAMLError", "MarkedYAMLError", "MappingNode", "SequenceNode"))
_LAZY |= {"FALLBACK", *_EVENTS}


def _bind() -> None:
    """Load the binding (:func:`_load`) and set this module's names from it."""
    binding, how = _load()
    events, nodes, error = (sys.modules[f"yaml.{name}"] for name in ("events", "nodes", "error"))
    names = globals()
    for name in _EVENTS:
        names[name] = getattr(events, name)
    names["MappingNode"], names["SequenceNode"] = nodes.MappingNode, nodes.SequenceNode
    names["YAMLError"], names["MarkedYAMLError"] = error.YAMLError, error.MarkedYAMLError
    names["FALLBACK"] = how
    names["CParser"] = binding.CParser  # last: set only once every other name is


# One load, whatever the threads: two loads would make two sets of event classes, and a parser
# of one set read by the other's names (the image stage's probe reads cases from threads).
_BINDING = _thread.allocate_lock()


def __getattr__(name: str) -> Any:
    """The first read of a name of the binding loads it (later reads find the name set)."""
    if name in _LAZY:
        with _BINDING:
            if "CParser" not in globals():  # (set last by _bind)
                _bind()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
