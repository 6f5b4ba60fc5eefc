"""Copy a trimmed Python runtime out of a Debian-based image into a root folder.

Run inside the build stage of Dockerfiles/Dockerfile with the base image's own
Python (``python3 slim_runtime.py /runtime``). The folder it writes is the whole
root filesystem of the function images' first layer:

- the interpreter (its real file and the ``python3`` names pointing at it);
- the standard library, without what a KRM function never imports: ensurepip,
  idlelib, tkinter, turtle, lib2to3, distutils, venv, sqlite3, dbm, curses,
  pydoc_data, the test suites, the static library under config-3.x, and the
  extension modules for a terminal, sound, databases, TLS and the C tests;
- the shared libraries the interpreter and the kept extension modules load
  (found with ldd), the dynamic loader, an ld.so cache, and the libraries of
  APP_LIBS, which the app layer's extension modules load (libyaml for krmlib's
  C input check, krmlib._yaml.ccheck);
- /etc/passwd and /etc/group naming root, nobody (65534) and nonroot (65532),
  a world-writable /tmp (the working directory), and nothing else: no shell,
  no pip, no apt or dpkg, no documentation or locales.

Bytecode is compiled for every module kept, hash-based and unchecked (valid
whatever the file times after a copy into a layer; nobody can write it at run
time anyway). The virtual environment of the functions is added by a later
layer; its shared libraries must load against this runtime (the Dockerfile
checks that by importing every krmfn module in a chroot).
"""

from __future__ import annotations

import compileall
import os
import py_compile
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

# Standard-library entries (files or packages, relative to the stdlib folder) left out.
STDLIB_DROP = {
    "ensurepip",
    "idlelib",
    "tkinter",
    "turtle.py",
    "turtledemo",
    "lib2to3",
    "distutils",
    "venv",
    "sqlite3",
    "dbm",
    "curses",
    "pydoc_data",
    "test",
    "unittest/test",
    "ctypes/test",
    "idle_test",
    "__phello__",
    "site-packages",
    "dist-packages",
}
# Extension modules (lib-dynload) left out: by the name before the first dot.
DYNLOAD_DROP = re.compile(
    r"^(_test\w*|_ctypes_test|_xx\w*|xxlimited\w*|_tkinter|_curses\w*|readline|_sqlite3|_dbm|"
    r"_gdbm|nis|ossaudiodev|audioop|_ssl|_hashlib|_crypt|_lsprof)$"
)
GLIBC_EXTRA = ("libgcc_s.so.1", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1")
# Shared libraries of the app layer (/opt/krmfn, added later): krmlib._yaml.ccheck links
# libyaml (Debian's libyaml-0-2; PyYAML's wheel carries its own copy inside its module).
# Found beside libc; the base must have them (base-image.sh installs libyaml-dev).
APP_LIBS = ("libyaml-0.so.2",)
# Shared libraries never copied even if ldd names them (the virtual dynamic object).
NOT_FILES = {"linux-vdso.so.1", "linux-gate.so.1"}


def copy_path(src: Path, root: Path) -> None:
    """Copy src (and every symlink on the way to its file) to the same path under root."""
    seen: set[Path] = set()
    while src not in seen:
        seen.add(src)
        parent = Path(os.path.realpath(src.parent))
        dest = root / parent.relative_to("/") / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            target = os.readlink(src)
            if not dest.is_symlink():
                dest.unlink(missing_ok=True)
                dest.symlink_to(target)
            src = (parent / target) if not os.path.isabs(target) else Path(target)
            continue
        if not dest.exists():
            shutil.copy2(src, dest)
        return


def mirror_top_symlinks(root: Path) -> None:
    """Merged /usr: /bin, /lib, /lib64, /sbin are links into /usr; keep them so."""
    for entry in Path("/").iterdir():
        if entry.is_symlink() and entry.name in {"bin", "lib", "lib32", "lib64", "libx32", "sbin"}:
            (root / entry.name).symlink_to(os.readlink(entry))


def ldd(paths: list[Path]) -> set[Path]:
    """Every shared library (and the loader) the given ELF files need."""
    needed: set[Path] = set()
    for path in paths:
        out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
        if out.returncode != 0 and "not a dynamic executable" in out.stdout + out.stderr:
            continue
        for raw in out.stdout.splitlines():
            line = raw.strip()
            if "not found" in line:
                sys.exit(f"slim_runtime: {path} needs {line}, which this base lacks")
            m = re.match(r"^(\S+)(?: => (\S+))? \(0x[0-9a-f]+\)$", line)
            if not m:
                continue
            lib = m.group(2) or m.group(1)
            if lib in NOT_FILES or not lib.startswith("/"):
                continue
            needed.add(Path(lib))
    return needed


def app_libs(libc_dir: Path) -> set[Path]:
    """APP_LIBS and what they load, from libc's folder or its /usr twin (a base without
    merged /usr keeps libc in /lib and the other libraries in /usr/lib)."""
    folders = [libc_dir]
    if not libc_dir.is_relative_to("/usr"):
        folders.append(Path("/usr") / libc_dir.relative_to("/"))
    found: set[Path] = set()
    for name in APP_LIBS:
        paths = [folder / name for folder in folders if (folder / name).exists()]
        if not paths:
            sys.exit(f"slim_runtime: {name} is not in {folders} (the base lacks libyaml-0-2)")
        found |= {paths[0], *ldd(paths[:1])}
    return found


def copy_stdlib(stdlib: Path, root: Path) -> list[Path]:
    """Copy the standard library less STDLIB_DROP; return the extension modules kept."""
    dest_root = root / Path(os.path.realpath(stdlib)).relative_to("/")
    dynload = Path(sysconfig.get_path("platstdlib")) / "lib-dynload"
    kept_ext: list[Path] = []

    def ignore(folder: str, names: list[str]) -> set[str]:
        rel = Path(folder).relative_to(stdlib)
        out = {n for n in names if n == "__pycache__" or (rel / n).as_posix() in STDLIB_DROP}
        out |= {n for n in names if n in STDLIB_DROP and rel == Path(".")}
        out |= {n for n in names if n.startswith("config-")}
        if Path(folder) == dynload:
            out |= {n for n in names if DYNLOAD_DROP.match(n.split(".", 1)[0])}
        return out

    shutil.copytree(stdlib, dest_root, ignore=ignore, symlinks=True)
    if dynload.is_dir() and not dynload.is_relative_to(stdlib):
        shutil.copytree(dynload, root / dynload.relative_to("/"), ignore=ignore, symlinks=True)
    for ext in (root / dynload.relative_to("/")).glob("*.so"):
        kept_ext.append(dynload / ext.name)
    return kept_ext


def write_etc(root: Path) -> None:
    etc = root / "etc"
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text(
        "root:x:0:0:root:/root:/sbin/nologin\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n"
        "nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n"
    )
    (etc / "group").write_text("root:x:0:\nnogroup:x:65534:\nnonroot:x:65532:\n")
    for conf in ("ld.so.conf", "ld.so.conf.d"):
        src = Path("/etc") / conf
        if src.is_dir():
            shutil.copytree(src, etc / conf)
        elif src.is_file():
            shutil.copy2(src, etc / conf)
    subprocess.run(["ldconfig", "-r", str(root)], check=True)
    (root / "tmp").mkdir()
    (root / "tmp").chmod(0o1777)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: slim_runtime.py ROOT")
    root = Path(sys.argv[1])
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    mirror_top_symlinks(root)

    python = Path(os.path.realpath(sys.executable))
    copy_path(python, root)
    for name in ("python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        alias = python.parent / name
        if alias.exists():
            copy_path(alias, root)
    # The link sys.executable was started through (e.g. /usr/bin/python3).
    copy_path(Path(sys.executable), root)

    kept_ext = copy_stdlib(Path(sysconfig.get_path("stdlib")), root)
    elves = [python, *kept_ext]
    libpython = sysconfig.get_config_var("LDLIBRARY")
    libdir = sysconfig.get_config_var("LIBDIR")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and libpython and libdir:
        shared = Path(libdir) / libpython
        if shared.exists():  # else ldd finds the interpreter's libpython by its soname
            elves.append(shared)
    libs = ldd(elves)
    # Beside libc: libgcc_s (glibc loads it when a thread is cancelled) and the
    # stubs manylinux wheels still link (their code lives in libc since 2.34).
    for lib in list(libs):
        if lib.name.startswith("libc.so"):
            libs |= {lib.parent / n for n in GLIBC_EXTRA if (lib.parent / n).exists()}
            libs |= app_libs(lib.parent)
    for lib in sorted(libs):
        copy_path(lib, root)

    write_etc(root)
    ok = compileall.compile_dir(
        root / Path(os.path.realpath(sysconfig.get_path("stdlib"))).relative_to("/"),
        quiet=1,
        workers=0,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        ddir=os.path.realpath(sysconfig.get_path("stdlib")),
    )
    if not ok:
        sys.exit("slim_runtime: compiling the standard library failed")


if __name__ == "__main__":
    main()
