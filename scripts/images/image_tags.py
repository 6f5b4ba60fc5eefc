"""Image tags of a release, derived from the project's version (never `latest`).

    python3 scripts/images/image_tags.py [PYPROJECT]   # one tag a line, the full one first

A release X.Y.Z is tagged vX.Y.Z plus the moving tags vX.Y and vX (they follow
the newest build of that line). A pre-release (X.Y.Z-rc.1) or a version with
build metadata gets its full tag only ('+' is not allowed in a tag: '_'), so a
moving tag never points at a pre-release. A version that is not semver is an
error naming the file and the value.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

SEMVER = re.compile(
    r"^(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)"
    r"(?:-(?P<pre>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


def image_tags(version: str) -> list[str]:
    """The tags of one build: [vX.Y.Z, vX.Y, vX] for a release, [vFULL] otherwise."""
    m = SEMVER.match(version)
    if m is None:
        raise ValueError(f"version {version!r} is not semver (X.Y.Z[-pre][+build])")
    full = "v" + version.replace("+", "_")
    if m["pre"] or m["build"]:
        return [full]
    return [full, f"v{m['major']}.{m['minor']}", f"v{m['major']}"]


def project_version(pyproject: Path) -> str:
    with pyproject.open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def main(argv: list[str]) -> int:
    pyproject = Path(argv[1] if len(argv) > 1 else Path(__file__).parents[2] / "pyproject.toml")
    version = project_version(pyproject)
    try:
        tags = image_tags(version)
    except ValueError as err:
        print(f"image_tags: {pyproject}: [project] {err}", file=sys.stderr)
        return 1
    print("\n".join(tags))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
