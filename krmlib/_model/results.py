"""Results: the v1 ``results`` list, with explicit severity; pass/fail is computed from them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from krmlib._base.errors import KrmError

    from .object import KubeObject


class Severity(StrEnum):
    """A result's severity; any ``error`` result makes the function exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


_FIELDS = (
    "message",
    "severity",
    "resource_ref",
    "field_path",
    "current_value",
    "proposed_value",
    "file_path",
    "file_index",
    "tags",
)


class Result:
    """One entry of ``results``. Severity is always written out.

    Immutable (nothing assigns to a Result once made); equal when every field is equal."""

    __slots__ = _FIELDS
    __hash__ = None  # type: ignore[assignment]  # unhashable, as its dict fields are

    def __init__(
        self,
        message: str,
        severity: Severity = Severity.ERROR,
        resource_ref: dict[str, str] | None = None,
        field_path: str | None = None,
        current_value: Any = None,
        proposed_value: Any = None,
        file_path: str | None = None,
        file_index: int | None = None,
        tags: dict[str, str] | None = None,
    ) -> None:
        self.message = message
        self.severity = severity
        self.resource_ref = resource_ref
        self.field_path = field_path
        self.current_value = current_value
        self.proposed_value = proposed_value
        self.file_path = file_path
        self.file_index = file_index
        self.tags: dict[str, str] = {} if tags is None else tags

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"Result({fields})"

    def to_dict(self) -> dict[str, Any]:
        """The result as the v1 ``results`` entry kpt reads (``resourceRef``, ``field``,
        ``file``, ``tags``; only the parts that are set)."""
        out: dict[str, Any] = {"message": self.message, "severity": self.severity.value}
        if self.resource_ref:
            out["resourceRef"] = dict(self.resource_ref)
        if self.field_path:
            fld: dict[str, Any] = {"path": self.field_path}
            if self.current_value is not None:
                fld["currentValue"] = self.current_value
            if self.proposed_value is not None:
                fld["proposedValue"] = self.proposed_value
            out["field"] = fld
        if self.file_path:
            file: dict[str, Any] = {"path": self.file_path}
            if self.file_index is not None:
                file["index"] = self.file_index
            out["file"] = file
        if self.tags:
            out["tags"] = dict(sorted(self.tags.items()))
        return out

    def sort_key(self) -> tuple[Any, ...]:
        """The key of :meth:`Results.sorted`: severity, file, index, item, field, message."""
        ref = self.resource_ref or {}
        return (
            _RANK[self.severity],
            self.file_path or "",
            self.file_index if self.file_index is not None else -1,
            ref.get("apiVersion", ""),
            ref.get("kind", ""),
            ref.get("namespace", ""),
            ref.get("name", ""),
            self.field_path or "",
            self.message,
        )

    def __str__(self) -> str:
        where = ""
        if self.resource_ref:
            ref = self.resource_ref
            where = f" [{ref.get('kind')}/{ref.get('name')}]"
        if self.field_path:
            where += f" {self.field_path}"
        return f"{self.severity.value}:{where} {self.message}"


class Results:
    """The results of one run: ``results.error(msg, obj=, field=)``, ``.warning``, ``.info``."""

    def __init__(self) -> None:
        self._items: list[Result] = []  # only appended to: positions stay
        # (position, package folder) of results about an item of a package folder (kpt fn
        # render: a subpackage's items name their own folder), for relative_to_package
        self._pending: list[tuple[int, str]] = []
        # hash of a result's written form → the position of the result with that hash, or the
        # positions when two share it (not the forms themselves: thousands of results would hold
        # each one's text twice; nor a list per hash: memory)
        self._seen: dict[int, int | list[int]] = {}

    def add(self, result: Result) -> Result:
        """Add a result; the same result twice is kept once."""
        key = repr(result.to_dict())
        seen, at = self._seen, len(self._items)
        same = seen.setdefault(hash(key), at)
        if same == at:
            self._items.append(result)
            return result
        positions = [same] if isinstance(same, int) else same
        if not any(repr(self._items[i].to_dict()) == key for i in positions):
            positions.append(at)
            seen[hash(key)] = positions
            self._items.append(result)
        return result

    def _make(
        self,
        severity: Severity,
        message: str,
        obj: KubeObject | None,
        field: str | None,
        current: Any,
        proposed: Any,
        tags: dict[str, str] | None,
        file: str | None,
    ) -> Result:
        ref = obj.ref() if obj is not None else None
        file_path = file
        index: int | None = None
        package: str | None = None
        if obj is not None and file is None:
            try:
                file_path = obj.path
                raw = obj.annotations.get("internal.config.kubernetes.io/index")
                index = int(raw) if raw and raw.isdigit() else None
                if file_path and obj.may_mention("package-path"):
                    # a subpackage's item (kpt fn render): its path is relative to its own
                    # folder; relative_to_package makes it the rendered package's
                    package = obj.package_path
            except Exception:  # an unreadable item still gets its result
                file_path = None
        count = len(self._items)
        result = self.add(
            Result(
                message=message,
                severity=severity,
                resource_ref=ref,
                field_path=field,
                current_value=current,
                proposed_value=proposed,
                file_path=file_path,
                file_index=index if file_path else None,
                tags=dict(tags or {}),
            )
        )
        if package and len(self._items) > count:
            self._pending.append((count, package))
        return result

    def error(
        self,
        message: str,
        obj: KubeObject | None = None,
        field: str | None = None,
        *,
        current: Any = None,
        proposed: Any = None,
        tags: dict[str, str] | None = None,
        file: str | None = None,
    ) -> Result:
        """Add an error result and return it: the function fails (exit 1), and kpt leaves the
        package as it was.

        ``obj``: the item the result is about (its resourceRef, file and index); ``field``: the
        path in it (``spec.replicas``); ``current`` and ``proposed``: the value found and the
        value wanted; ``tags``: free-form labels; ``file``: a file path when there is no item.
        The same result twice is kept once."""
        return self._make(Severity.ERROR, message, obj, field, current, proposed, tags, file)

    def warning(
        self,
        message: str,
        obj: KubeObject | None = None,
        field: str | None = None,
        *,
        current: Any = None,
        proposed: Any = None,
        tags: dict[str, str] | None = None,
        file: str | None = None,
    ) -> Result:
        """Add a warning result and return it (the function still passes); the arguments
        are :meth:`error`'s."""
        return self._make(Severity.WARNING, message, obj, field, current, proposed, tags, file)

    def info(
        self,
        message: str,
        obj: KubeObject | None = None,
        field: str | None = None,
        *,
        current: Any = None,
        proposed: Any = None,
        tags: dict[str, str] | None = None,
        file: str | None = None,
    ) -> Result:
        """Add an info result and return it (a note for the user); the arguments are
        :meth:`error`'s."""
        return self._make(Severity.INFO, message, obj, field, current, proposed, tags, file)

    def from_error(self, exc: KrmError) -> Result:
        """The error result for an expected failure."""
        message = str(exc)
        ref = None
        file_path = exc.file
        if exc.obj is not None:
            try:
                ref = exc.obj.ref()
                file_path = file_path or exc.obj.path
            except Exception:
                ref = None
        index: int | None = None
        package: str | None = None
        if exc.obj is not None and file_path:
            raw = exc.obj.annotations.get("internal.config.kubernetes.io/index", "")
            index = int(raw) if raw.isdigit() else None
            if not exc.file and exc.obj.may_mention("package-path"):
                with contextlib.suppress(Exception):
                    package = exc.obj.package_path
        count = len(self._items)
        result = self.add(
            Result(
                message=message,
                resource_ref=ref,
                field_path=exc.field,
                file_path=file_path,
                file_index=index,
            )
        )
        if package and len(self._items) > count:
            self._pending.append((count, package))
        return result

    def relative_to_package(self, folder: str | None) -> None:
        """Give results about a subpackage's item the file path relative to ``folder``, the
        package being rendered (``db/db.yaml``, not the subpackage's ``db.yaml``); the runner
        calls it after the function ran."""
        import posixpath

        pending, self._pending = self._pending, []
        if not folder:
            return
        for position, package in pending:
            if position >= len(self._items):
                continue
            result = self._items[position]
            sub = posixpath.relpath(posixpath.normpath(package), posixpath.normpath(folder))
            if result.file_path and sub != "." and not sub.startswith(".."):
                result.file_path = posixpath.join(sub, result.file_path)

    @property
    def has_errors(self) -> bool:
        """Whether a result has severity ``error`` (the function then exits 1)."""
        return any(r.severity is Severity.ERROR for r in self._items)

    def sorted(self) -> list[Result]:
        """The results in the order they are written: errors first, then by file, item and
        field (deterministic output)."""
        return sorted(self._items, key=Result.sort_key)

    def __iter__(self) -> Iterator[Result]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)
