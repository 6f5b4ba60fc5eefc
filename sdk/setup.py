"""The krmlib distribution's one compiled part: ``krmlib._yaml.ccheck``, the whole-input check's event
pass on libyaml's C API (src/_ccheck.c; the metadata is in pyproject.toml).

It links Debian's libyaml (``libyaml-dev`` to build, ``libyaml-0-2`` to run). It is optional:
without a compiler or libyaml the build goes on without it, and krmlib runs its Python check
(krmlib/_yaml/syntax.py). ``KRMLIB_BUILD_EXTENSION=0`` builds a pure wheel on purpose (a wheel for
another architecture than the build machine's)."""

import os

from setuptools import Extension, setup

build = os.environ.get("KRMLIB_BUILD_EXTENSION", "1") != "0"
extensions = [
    Extension(
        "krmlib._yaml.ccheck",
        sources=["src/_ccheck.c"],
        libraries=["yaml"],
        extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        optional=True,
    )
]
setup(ext_modules=extensions if build else [])
