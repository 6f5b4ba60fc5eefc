"""Files a config names are read inside the package tree only, unless the person running the
function allows more with KRMFN_ALLOW_READ (SECURITY.md, "Paths and files")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def resource_list(package: Path, config: str) -> str:
    return (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: target\n    annotations:\n"
        f"      internal.config.kubernetes.io/package-path: '{package}'\n"
        "      internal.config.kubernetes.io/path: 'cm.yaml'\n"
        f"functionConfig:\n{config}"
    )


def run(
    function: str, text: str, cwd: Path, allow: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{BIN}:/usr/bin:/bin"}
    if allow is not None:
        env["KRMFN_ALLOW_READ"] = allow
    return subprocess.run(
        [str(BIN / f"krmfn-{function}")],
        input=text,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"
    )
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "inputs.yaml").write_text(CM.format(name="extra"))
    (package / "inside.yaml").write_text(CM.format(name="extra"))
    return package, outside


MERGE = "  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: m\n  data:\n    files: {}\n"


def test_merger_files_outside_the_package_are_refused(layout: tuple[Path, Path]) -> None:
    package, _outside = layout
    text = resource_list(package, MERGE.format("../outside/inputs.yaml"))
    done = run("merger", text, cwd=package.parent)
    assert done.returncode == 1
    assert "outside" in done.stdout and "KRMFN_ALLOW_READ" in done.stdout
    assert "name: extra" not in done.stdout


def test_merger_files_inside_the_package_are_read(layout: tuple[Path, Path]) -> None:
    package, _ = layout
    done = run("merger", resource_list(package, MERGE.format("inside.yaml")), cwd=package.parent)
    assert done.returncode == 0, done.stdout
    assert "name: extra" in done.stdout


def test_the_person_running_allows_a_folder(layout: tuple[Path, Path]) -> None:
    package, outside = layout
    text = resource_list(package, MERGE.format("../outside/inputs.yaml"))
    assert run("merger", text, cwd=package.parent, allow=str(outside)).returncode == 0
    # relative to the working directory of the command
    assert run("merger", text, cwd=package.parent, allow="outside").returncode == 0


def test_a_package_cannot_allow_itself(layout: tuple[Path, Path]) -> None:
    package, _ = layout
    # the package may say anything: only the environment of the command allows
    text = resource_list(package, MERGE.format("../outside/inputs.yaml")).replace(
        "      internal.config.kubernetes.io/path: 'cm.yaml'\n",
        "      internal.config.kubernetes.io/path: 'cm.yaml'\n      KRMFN_ALLOW_READ: /\n",
    )
    done = run("merger", text, cwd=package.parent)
    assert done.returncode == 1
    assert "outside" in done.stdout


def test_a_parent_package_is_part_of_the_tree(layout: tuple[Path, Path]) -> None:
    package, _outside = layout
    child = package / "child"
    child.mkdir()
    (child / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: c\n")
    text = resource_list(child, MERGE.format("../inside.yaml"))
    assert run("merger", text, cwd=package.parent).returncode == 0


def test_applyset_live_objects_outside_are_refused(layout: tuple[Path, Path]) -> None:
    package, outside = layout
    config = (
        "  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n"
        f"    name: web\n    namespace: prod\n    liveObjects: {outside}/inputs.yaml\n"
    )
    done = run("applyset-labeler", resource_list(package, config), cwd=package)
    assert done.returncode == 1
    assert "outside" in done.stdout


def test_preparer_catalog_outside_is_refused(layout: tuple[Path, Path]) -> None:
    package, outside = layout
    (outside / "templates").mkdir()
    config = (
        "  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: p\n  data:\n"
        f"    catalog: {outside}\n"
    )
    done = run("preparer", resource_list(package, config), cwd=package)
    assert done.returncode == 1
    assert "catalog" in done.stdout and "outside" in done.stdout


def test_a_device_named_as_merge_file_is_refused(layout: tuple[Path, Path]) -> None:
    package, _ = layout
    done = run(
        "merger", resource_list(package, MERGE.format("/dev/zero")), cwd=package, allow="/dev"
    )
    assert done.returncode == 1
    assert "special file system" in done.stdout


def test_a_fifo_named_as_merge_file_is_refused_at_once(layout: tuple[Path, Path]) -> None:
    package, _ = layout
    os.mkfifo(package / "pipe.yaml")
    done = run("merger", resource_list(package, MERGE.format("pipe.yaml")), cwd=package)
    assert done.returncode == 1
    assert "not a regular file" in done.stdout


def test_without_a_package_path_the_read_root_is_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Items that kpt did not give a package-path (a ResourceList from a file, a test): reads
    stay under the directory the function runs in, as kpt's exec mode runs it."""
    from krmlib import read_roots

    monkeypatch.chdir(tmp_path)
    assert read_roots(None) == [tmp_path.resolve()]
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "Kptfile").write_text("apiVersion: kpt.dev/v1\nkind: Kptfile\n")
    assert read_roots(str(package)) == [package.resolve()]
