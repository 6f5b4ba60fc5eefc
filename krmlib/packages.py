"""krmlib.packages: disk and process tooling, for commands and functions that work on folders.

Package trees read and written as kpt reads them (:class:`Package`, :func:`read_package`,
:func:`write_package`), the stricter tree rules of SECURITY.md for commands
(:func:`walk_tree`, :func:`kptfile_folders`, :func:`read_tree_file`), crash-safe writes
(:func:`write_file`, :func:`tree_lock`), kpt's bookkeeping annotations, and programs run on a
ResourceList (:func:`run_program`). A function that only edits its ResourceList never needs this
module (krmlib/README.md, "Packages on disk"). Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # generated from _WHERE: tests/test_public_surface.py --write
    from ._base.errors import internal_error as internal_error
    from ._base.hashes import sha1_hex as sha1_hex
    from ._base.pkgpath import check_path_annotations as check_path_annotations
    from ._io.atomic import make_folders as make_folders
    from ._io.atomic import remove_leftovers as remove_leftovers
    from ._io.atomic import tree_lock as tree_lock
    from ._io.atomic import unfinished_folders as unfinished_folders
    from ._io.atomic import write_file as write_file
    from ._io.background import fork_safe as fork_safe
    from ._io.confine import ALLOW_READ_ENV as ALLOW_READ_ENV
    from ._io.confine import check_readable as check_readable
    from ._io.confine import command_read_root as command_read_root
    from ._io.confine import package_tree_root as package_tree_root
    from ._io.confine import read_file_text as read_file_text
    from ._io.confine import safe_target as safe_target
    from ._io.package import ANN_ID as ANN_ID
    from ._io.package import ANN_LEGACY_ID as ANN_LEGACY_ID
    from ._io.package import MAX_TREE_FILE as MAX_TREE_FILE
    from ._io.package import Package as Package
    from ._io.package import TreeError as TreeError
    from ._io.package import UnlistableFolder as UnlistableFolder
    from ._io.package import content_of as content_of
    from ._io.package import is_kpt_internal as is_kpt_internal
    from ._io.package import kptfile_folders as kptfile_folders
    from ._io.package import read_documents as read_documents
    from ._io.package import read_file as read_file
    from ._io.package import read_objects as read_objects
    from ._io.package import read_package as read_package
    from ._io.package import read_tree_bytes as read_tree_bytes
    from ._io.package import read_tree_file as read_tree_file
    from ._io.package import walk_tree as walk_tree
    from ._io.package import without_annotations as without_annotations
    from ._io.package import without_kpt_internal as without_kpt_internal
    from ._io.package import write_package as write_package
    from ._io.programs import TooMuchOutput as TooMuchOutput
    from ._io.programs import die_with_parent as die_with_parent
    from ._io.programs import run_program as run_program
    from ._io.runner import read_files as read_files

# Public name -> the module that defines it: the one list (__all__ is its keys).
_WHERE: dict[str, str] = {
    "internal_error": "_base.errors",
    "sha1_hex": "_base.hashes",
    "check_path_annotations": "_base.pkgpath",
    "make_folders": "_io.atomic",
    "remove_leftovers": "_io.atomic",
    "tree_lock": "_io.atomic",
    "unfinished_folders": "_io.atomic",
    "write_file": "_io.atomic",
    "fork_safe": "_io.background",
    "ALLOW_READ_ENV": "_io.confine",
    "check_readable": "_io.confine",
    "command_read_root": "_io.confine",
    "package_tree_root": "_io.confine",
    "read_file_text": "_io.confine",
    "safe_target": "_io.confine",
    "ANN_ID": "_io.package",
    "ANN_LEGACY_ID": "_io.package",
    "MAX_TREE_FILE": "_io.package",
    "Package": "_io.package",
    "TreeError": "_io.package",
    "UnlistableFolder": "_io.package",
    "content_of": "_io.package",
    "is_kpt_internal": "_io.package",
    "kptfile_folders": "_io.package",
    "read_documents": "_io.package",
    "read_file": "_io.package",
    "read_objects": "_io.package",
    "read_package": "_io.package",
    "read_tree_bytes": "_io.package",
    "read_tree_file": "_io.package",
    "walk_tree": "_io.package",
    "without_annotations": "_io.package",
    "without_kpt_internal": "_io.package",
    "write_package": "_io.package",
    "TooMuchOutput": "_io.programs",
    "die_with_parent": "_io.programs",
    "run_program": "_io.programs",
    "read_files": "_io.runner",
}

__all__: list[str] = list(_WHERE)

if not TYPE_CHECKING:  # type checkers read the names above, a typo stays an error

    def __getattr__(name: str) -> Any:
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        # __import__ (not importlib.import_module): the interpreter's own import, so `-X
        # importtime` lists the module under its name instead of adding its time to this line.
        value = getattr(__import__(f"krmlib.{module}", fromlist=[name]), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
