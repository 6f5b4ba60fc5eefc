"""krmfn prepare-all explains itself (REASON, progress, -o, -q/-v), --check, and stays inside
its root (writes) and the package tree (reads)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
BIN = Path(sys.executable).parent

KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: krmfn-preparer
    configPath: preparer.yaml
"""
PREPARER = """\
apiVersion: krmfn.dev/v1alpha1
kind: Preparer
metadata:
  name: preparer
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  catalog: catalog
{plugins}"""
TOPOLOGY = """\
apiVersion: topology.nephio.org/v1alpha1
kind: Template
metadata:
  name: upf
spec:
  templateId: nf/upf:v1
---
apiVersion: topology.nephio.org/v1alpha1
kind: Site
metadata:
  name: edge
spec:
  {site}
---
apiVersion: topology.nephio.org/v1alpha1
kind: Placement
metadata:
  name: cu
spec:
  templates:
  - template: upf
    sites: [edge]
{merge}"""
TEMPLATE_KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf
  annotations:
    config.kubernetes.io/local-config: "true"
    catalog.nephio.org/id: nf/upf:v1
pipeline:
  mutators:
  - exec: krmfn-preparer
"""
SITE = """\
apiVersion: metadata.nephio.org/v1alpha1
kind: Site
metadata:
  name: site
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  region: {region}
"""
WAITING_PLUGIN = """\
import sys

from krmlib import ResourceList, run


def process(rl: ResourceList, config: None) -> None:
    data = rl.function_config.get("data", {}) if rl.function_config else {}
    target = rl.items.find(data["apiVersion"], data["kind"], data["name"])
    target.annotations["nephio.org/prepared"] = "false"  # never ready


sys.exit(run(process, None, name="never-ready"))
"""


def krmfn(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "krmfn"), *args],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{BIN}:/usr/bin:/bin", **(env or {})},
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def table(stdout: str) -> dict[str, dict[str, str]]:
    lines = stdout.strip().splitlines()
    header = lines[0].split()
    assert header == ["ID", "TEMPLATE", "SITE", "PREPARED", "APPROVED", "REASON"]
    out = {}
    for line in lines[1:]:
        cells = line.split(None, 5)
        out[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
    return out


def make_tree(
    root: Path,
    *,
    site: str = "siteId: us/lab-1",
    merge: str = "",
    plugins: str = "",
    catalog: bool = True,
) -> Path:
    dep = root / "dep"
    dep.mkdir(parents=True)
    (root / "Kptfile").write_text(KPTFILE.split("pipeline:", maxsplit=1)[0].format(name="tree"))
    (dep / "Kptfile").write_text(KPTFILE.format(name="dep"))
    (dep / "preparer.yaml").write_text(PREPARER.format(plugins=plugins))
    (dep / "topology.yaml").write_text(TOPOLOGY.format(site=site, merge=merge))
    if catalog:
        upf = root / "catalog/templates/upf"
        upf.mkdir(parents=True)
        (upf / "Kptfile").write_text(TEMPLATE_KPTFILE)
        for name, region in (("lab-1", "lab"), ("dal-1", "dallas")):
            folder = root / f"catalog/sites/{name}"
            folder.mkdir(parents=True)
            kptfile = TEMPLATE_KPTFILE.split("pipeline:", maxsplit=1)[0]
            (folder / "Kptfile").write_text(kptfile.replace("nf/upf:v1", f"us/{name}"))
            (folder / "site.yaml").write_text(SITE.format(region=region))
    return root


# --- REASON ----------------------------------------------------------------------------------


def test_reason_for_a_missing_catalog(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", catalog=False)
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    row = table(done.stdout)["dep"]
    assert row["PREPARED"] == "no"
    assert "template nf/upf:v1 is not in the catalog" in row["REASON"]
    assert "catalog 'catalog' not found" in row["REASON"]


def test_reason_for_an_unknown_site_id(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", site="siteId: us/atlantis-9")
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    reason = table(done.stdout)["dep"]["REASON"]
    assert reason.startswith("error: ") and "site us/atlantis-9 is not in the catalog" in reason


def test_reason_for_a_site_selection_matching_nothing(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", site="select: {metadata: {Site.region: atlantis}}")
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    reason = table(done.stdout)["dep"]["REASON"]
    assert "no catalog site matches Site.region=atlantis" in reason


def test_reason_for_an_unprepared_merge_input(tmp_path: Path) -> None:
    plugins = textwrap.indent(
        "plugins:\n- apiVersion: example.com/v1\n  kind: Widget\n  exec: plugins/never.py\n",
        "  ",
    )
    merge = "    merge:\n    - {apiVersion: example.com/v1, kind: Widget, name: w}\n"
    root = make_tree(tmp_path / "tree", plugins=plugins, merge=merge)
    (root / "plugins").mkdir()
    (root / "plugins/never.py").write_text(WAITING_PLUGIN)
    (root / "dep/widget.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
    )
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1, done.stderr
    reason = table(done.stdout)["dep"]["REASON"]
    assert "waiting for Widget w" in reason


def test_reason_for_a_plugin_error_and_nothing_written(tmp_path: Path) -> None:
    plugins = textwrap.indent(
        "plugins:\n- apiVersion: example.com/v1\n  kind: Widget\n"
        '  exec: sh -c "echo widget backend unreachable >&2; exit 3"\n',
        "  ",
    )
    root = make_tree(tmp_path / "tree", plugins=plugins)
    (root / "dep/widget.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
    )
    before = snapshot(root)
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    reason = table(done.stdout)["dep"]["REASON"]
    assert reason.startswith("error: ") and "widget backend unreachable" in reason
    assert "nothing written" in reason
    assert snapshot(root) == before


# --- progress, formats, verbosity --------------------------------------------------------------


def test_progress_for_every_package_and_timings_in_the_summary(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    done = krmfn("prepare-all", str(root), "-v")
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stderr.splitlines() if line.startswith("pass ")]
    assert any("[1/1]" in line and " dep: changed" in line for line in progress)
    assert any(" dep/upf-us-lab-1: changed" in line for line in progress)
    assert any("deployment.yaml" in line for line in progress)  # -v names the files
    summary = done.stderr.strip().splitlines()[-1]
    assert summary.startswith("prepare-all: 2 deployment(s), 2 prepared, 0 not prepared")
    assert " pass(es) in " in summary and "s with " in summary
    assert "SECONDS" in done.stdout.splitlines()[0]


def test_quiet_prints_nothing_on_stderr(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    done = krmfn("prepare-all", "-q", str(root))
    assert done.returncode == 0
    assert done.stderr == ""
    assert table(done.stdout)["dep/upf-us-lab-1"]["PREPARED"] == "yes"
    assert table(done.stdout)["dep/upf-us-lab-1"]["APPROVED"] == "yes"  # auto-approved


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_machine_readable_output(tmp_path: Path, form: str) -> None:
    root = make_tree(tmp_path / "tree", site="select: {metadata: {Site.region: atlantis}}")
    done = krmfn("prepare-all", "-q", "-o", form, str(root))
    assert done.returncode == 1
    doc = json.loads(done.stdout) if form == "json" else yaml.safe_load(done.stdout)
    (package,) = doc["packages"]
    assert package["id"] == "dep" and package["prepared"] is False
    assert "atlantis" in package["reason"]
    assert doc["summary"]["packages"] == 1 and doc["summary"]["seconds"] > 0


def test_jobs_one_and_two_give_the_same_tree(tmp_path: Path) -> None:
    one = make_tree(tmp_path / "one", site="select: {metadata: {Site.region: dal*}}")
    two = make_tree(tmp_path / "two", site="select: {metadata: {Site.region: dal*}}")
    assert krmfn("prepare-all", "-q", "-j", "1", str(one)).returncode == 0
    assert krmfn("prepare-all", "-q", "-j", "2", str(two)).returncode == 0
    assert snapshot(one) == snapshot(two)


def test_a_rerun_prepares_nothing_again(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    assert krmfn("prepare-all", str(root)).returncode == 0
    before = snapshot(root)
    again = krmfn("prepare-all", str(root))
    assert again.returncode == 0
    assert snapshot(root) == before
    assert "changed" not in again.stderr.split("prepare-all:")[0].replace("0 changed", "")
    assert "prepared already" in again.stderr


# --- --check -----------------------------------------------------------------------------------


def test_check_on_an_unprepared_tree_changes_nothing_and_lists_it(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    before = snapshot(root)
    done = krmfn("prepare-all", "--check", str(root))
    assert done.returncode == 1
    assert snapshot(root) == before
    row = table(done.stdout)["dep"]
    assert row["REASON"].startswith("would change ")
    assert "dep" in done.stderr.splitlines()[-1]  # the not-clean list
    assert "would change" in done.stderr


def test_check_on_a_prepared_tree_passes(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    assert krmfn("prepare-all", "-q", str(root)).returncode == 0
    before = snapshot(root)
    done = krmfn("prepare-all", "--check", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    assert snapshot(root) == before
    assert all(row["PREPARED"] == "yes" for row in table(done.stdout).values())


def test_check_fails_on_a_tree_that_stays_unprepared(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", site="select: {metadata: {Site.region: atlantis}}")
    assert krmfn("prepare-all", "-q", str(root)).returncode == 1
    done = krmfn("prepare-all", "--check", str(root))
    assert done.returncode == 1
    assert "atlantis" in table(done.stdout)["dep"]["REASON"]


def test_usage_errors(tmp_path: Path) -> None:
    assert krmfn("prepare-all", "-q", "-v", str(tmp_path)).returncode == 2
    assert krmfn("prepare-all", "-j", "0", str(tmp_path)).returncode == 2
    assert krmfn("prepare-all", "-o", "xml", str(tmp_path)).returncode == 2
    assert krmfn("prepare-all", "--catalog", str(tmp_path / "no"), str(tmp_path)).returncode == 2
    usage = krmfn("prepare-all", "--help")
    assert usage.returncode == 0 and "--check" in usage.stdout and "--jobs" in usage.stdout


def test_help_and_the_readme_give_the_same_options() -> None:
    """`krmfn prepare-all --help` and the synopsis of krmfn/preparer/README.md "prepare-all"
    name the same options, and every option --help explains is in that README section."""
    usage = krmfn("prepare-all", "--help").stdout
    section = (ROOT / "krmfn/preparer/README.md").read_text().split("\n## prepare-all\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    synopsis = section.split("(module", 1)[0]

    def options(text: str) -> set[str]:
        return set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", text))

    assert options(usage.split("\n\n", 1)[0]) == options(synopsis)
    explained = re.findall(r"^  (--?[a-z][a-z-]*)", usage, re.MULTILINE)
    assert explained and set(explained) <= options(section)


# --- confinement -------------------------------------------------------------------------------


def test_a_symlinked_subfolder_leaving_the_root_is_not_written(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    outside = tmp_path / "outside"
    outside.mkdir()
    # the child deployment folder the Placement creates already exists as a link to elsewhere
    (root / "dep/upf-us-lab-1").symlink_to(outside, target_is_directory=True)
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    assert list(outside.iterdir()) == []
    assert "symbolic link" in table(done.stdout)["dep"]["REASON"]


def test_a_catalog_reached_through_a_symlink_is_refused(tmp_path: Path) -> None:
    elsewhere = make_tree(tmp_path / "elsewhere")
    root = make_tree(tmp_path / "tree", catalog=False)
    (root / "dep/catalog").symlink_to(elsewhere / "catalog", target_is_directory=True)
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    assert "outside" in done.stdout and "KRMFN_ALLOW_READ" in done.stdout
    allowed = krmfn("prepare-all", str(root), env={"KRMFN_ALLOW_READ": str(elsewhere)})
    assert allowed.returncode == 0, allowed.stdout


def test_a_preparer_config_outside_the_tree_is_refused(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    secret = tmp_path / "secret.yaml"
    secret.write_text((root / "dep/preparer.yaml").read_text())
    kptfile = root / "dep/Kptfile"
    kptfile.write_text(kptfile.read_text().replace("preparer.yaml", "../../secret.yaml"))
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    assert "outside" in table(done.stdout)["dep"]["REASON"]


def test_an_exec_plugin_outside_the_tree_is_refused(tmp_path: Path) -> None:
    plugins = textwrap.indent(
        f"plugins:\n- apiVersion: example.com/v1\n  kind: Widget\n  exec: {tmp_path}/evil.py\n",
        "  ",
    )
    root = make_tree(tmp_path / "tree", plugins=plugins)
    (tmp_path / "evil.py").write_text("import pathlib; pathlib.Path('/tmp/x').touch()\n")
    (root / "dep/widget.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
    )
    done = krmfn("prepare-all", str(root))
    assert done.returncode == 1
    assert "program" in done.stdout and "outside" in done.stdout


def test_a_fifo_named_as_config_is_refused_at_once(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    (root / "dep/preparer.yaml").unlink()
    os.mkfifo(root / "dep/preparer.yaml")
    done = subprocess.run(
        [str(BIN / "krmfn"), "prepare-all", "-q", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
    )
    assert done.returncode == 1
    assert "not a regular file" in done.stdout


def test_a_timed_out_plugin_is_killed_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild-alive"
    plugins = textwrap.indent(
        "plugins:\n- apiVersion: example.com/v1\n  kind: Widget\n  timeout: 1\n"
        f'  exec: sh -c "(sleep 3; touch {marker}) & sleep 30"\n',
        "  ",
    )
    root = make_tree(tmp_path / "tree", plugins=plugins)
    (root / "dep/widget.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
    )
    done = krmfn("prepare-all", "-q", str(root))
    assert done.returncode == 1
    assert "timed out" in table(done.stdout)["dep"]["REASON"]
    subprocess.run(["sleep", "4"], check=True)
    assert not marker.exists(), "a child of the plugin kept running after the timeout"


# --- deployment create -------------------------------------------------------------------------


def test_deployment_create_refuses_a_template_with_a_link(tmp_path: Path) -> None:
    template = tmp_path / "template"
    shutil.copytree(ROOT / "examples/oran-cu/catalog/templates/upf", template)
    (tmp_path / "secret.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")
    (template / "stolen.yaml").symlink_to(tmp_path / "secret.yaml")
    done = krmfn("deployment", "create", str(template), str(tmp_path / "out"))
    assert done.returncode == 1
    assert "symbolic link" in done.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_deployment_create_ignores_path_annotations_of_merge_files(tmp_path: Path) -> None:
    template = tmp_path / "template"
    shutil.copytree(ROOT / "examples/oran-cu/catalog/templates/upf", template)
    outside = tmp_path / "outside"
    outside.mkdir()
    merge = tmp_path / "merge.yaml"
    merge.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n"
        "  annotations:\n    internal.config.kubernetes.io/path: '../outside/x.yaml'\n"
    )
    out = tmp_path / "o"
    done = krmfn("deployment", "create", str(template), "--merge", str(merge), str(out))
    assert done.returncode == 0, done.stderr
    assert list(outside.iterdir()) == []
    assert "name: extra" in (out / "configmap_extra.yaml").read_text()
    assert all(p.resolve().is_relative_to(out.resolve()) for p in out.rglob("*"))
