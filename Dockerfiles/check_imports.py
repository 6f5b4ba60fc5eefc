"""Build-time check of the trimmed runtime plus /opt/krmfn (run in a chroot as uid 65532).

Imports every module of krmlib and krmfn, runs every krmfn console script with
--help, checks that what the images must not hold is absent, and that the
modules the functions need from the standard library work (hashing without
OpenSSL, JSON, difflib), and that krmlib's whole-input check runs on its C
extension (krmlib._yaml.ccheck over the runtime's libyaml), not the Python
fallback. Exits non-zero with the reason on the first failure.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import pkgutil
import subprocess
import sys


def main() -> None:
    failures: list[str] = []
    for top in ("krmlib", "krmfn"):
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{top}."):
            try:
                importlib.import_module(info.name)
            except Exception as err:  # report every module that fails
                failures.append(f"import {info.name}: {type(err).__name__}: {err}")
    scripts = [
        ep.name
        for ep in importlib.metadata.distribution("krmfn").entry_points
        if ep.group == "console_scripts"
    ]
    for name in scripts:
        done = subprocess.run(
            [f"/opt/krmfn/bin/{name}", "--help"], capture_output=True, text=True, check=False
        )
        if done.returncode != 0 or not done.stdout.strip():
            failures.append(f"{name} --help: exit {done.returncode}: {done.stderr[-400:]}")
    for absent in ("pip", "setuptools", "ensurepip", "idlelib", "tkinter", "lib2to3", "test"):
        if importlib.util.find_spec(absent) is not None:
            failures.append(f"{absent} should not be in the image")
    syntax = importlib.import_module("krmlib._yaml.syntax")
    if not syntax.has_c_check():
        failures.append(
            "krmlib._yaml.ccheck does not load: the functions would run the slow Python check"
            " (a pure krmlib wheel, or libyaml-0.so.2 missing from the runtime)"
        )
    empty_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    if hashlib.sha256(b"").hexdigest() != empty_sha256:
        failures.append("hashlib.sha256 gives a wrong digest")
    if failures:
        sys.exit("check_imports: " + "\n  ".join(["the image is incomplete:", *failures]))
    print(f"check_imports: {len(scripts)} console scripts and every module ok")


if __name__ == "__main__":
    main()
