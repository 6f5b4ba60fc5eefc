"""The allocation and injection pass of `krmfn specialize` on trees of 250 to 1,000 NF packages.

A tree is copies of examples/free5gc-two-clusters's UPF and SMF packages as the pipeline leaves
them (rendered, claims written, no ledger): four UPFs and one SMF per workload cluster, the
SMF depending on the UPFs (every UPF package of the tree, as configinject-fn takes every
deployment repository's). Measured: CPU seconds (user+sys of this process: no subprocess runs in
the pass) of one `Run.specialize` pass that allocates everything and writes the ledger and the
packages, then of a second pass that finds nothing to do. The kpt renders around it are per
package (one `kpt fn render` each, measured apart on the example).

    python bench/specialize_scale.py [SIZE...]     # default: 250 500 1000
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from krmfn.ipam_allocator.space import read_space
from krmfn.ipam_allocator.specialize import Run
from krmlib.packages import read_objects

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "free5gc-two-clusters"
UPFS_PER_CLUSTER = 4


def specialized_example(work: Path) -> Path:
    tree = work / "example"
    shutil.copytree(EXAMPLE, tree)
    bindir = Path(sys.executable).parent
    subprocess.run(
        [str(bindir / "krmfn"), "specialize", str(tree), "-q"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return tree


def build(example: Path, target: Path, packages: int) -> None:
    clusters = (packages + UPFS_PER_CLUSTER) // (UPFS_PER_CLUSTER + 1)
    names = [f"c{k:03d}" for k in range(clusters)]
    shutil.copytree(
        example / "network", target / "network", ignore=shutil.ignore_patterns("ledger.yaml")
    )
    inventory = target / "network" / "inventory.yaml"
    text = inventory.read_text()
    head = text[: text.index("  clusters:")]
    inventory.write_text(head + "  clusters:\n" + "".join(f"  - {n}\n" for n in names))
    made = 0
    for name in names:
        for j in range(UPFS_PER_CLUSTER + 1):
            if made == packages:
                return
            source = example / (
                "regional/free5gc-smf" if j == UPFS_PER_CLUSTER else "edge01/free5gc-upf"
            )
            # the SMF of a cluster depends on that cluster's UPFs: free5gc-upf-<cluster>
            upf = f"upf{j}/free5gc-upf-{name}"
            folder = target / name / ("free5gc-smf" if j == UPFS_PER_CLUSTER else upf)
            shutil.copytree(source, folder)
            for path in folder.rglob("*.yaml"):
                body = path.read_text()
                body = re.sub(r"\b(edge01|regional)\b", name, body)
                body = body.replace("packageName: free5gc-upf", f"packageName: free5gc-upf-{name}")
                path.write_text(body)
            for path in (folder / "Kptfile",):
                path.write_text(re.sub(r"\b(edge01|regional)\b", name, path.read_text()))
            made += 1


def measure(size: int, example: Path) -> tuple[int, float, float, int]:
    with tempfile.TemporaryDirectory(prefix="krmfn-bench-specialize-") as tmp:
        root = Path(tmp) / "tree"
        build(example, root, size)
        run = Run(root, root / "network", root / "network" / "ledger.yaml", quiet=True)
        space = read_space([o for o in read_objects(root / "network") if o.kind != "IpamLedger"])
        start = time.process_time()
        run.specialize(space, 1)
        first = time.process_time() - start
        start = time.process_time()
        dirty = run.specialize(space, 2)
        second = time.process_time() - start
        lines = (root / "network" / "ledger.yaml").read_text().count("\n- {")
        assert not dirty, "the second pass changed packages"
        return len(run.packages), first, second, lines


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or [250, 500, 1000]
    with tempfile.TemporaryDirectory(prefix="krmfn-bench-example-") as tmp:
        example = specialized_example(Path(tmp))
        print("| packages | ledger lines | first pass CPU s | per package ms | second pass CPU s |")
        print("|---:|---:|---:|---:|---:|")
        for size in sizes:
            count, first, second, lines = measure(size, example)
            print(
                f"| {count:,} | {lines:,} | {first:.2f} | {1000 * first / count:.1f} "
                f"| {second:.2f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
