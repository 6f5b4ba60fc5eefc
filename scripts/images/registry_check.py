"""What `make push` left in a plain-HTTP registry, read over the registry API (no podman).

    .venv/bin/python scripts/images/registry_check.py HOST:PORT DIGESTS VERSION REVISION ARCH... \
        -- FUNCTION...

For every function and every tag of VERSION (scripts/images/image_tags.py):
- the tag resolves to an image index (OCI) or a manifest list (Docker) whose digest is
  the one DIGESTS gives for that reference, the same for all the tags of the function;
- the index holds exactly one manifest per ARCH, platform linux/<arch>;
- each of those images' config says its architecture, runs the function as its
  entrypoint with no command, as a non-root user, and carries the OCI labels
  org.opencontainers.image.{source,version,revision,licenses,title,description}
  (version VERSION, revision REVISION, title krmfn-<function>).
Prints, per function, the platform digests (HOST:PORT/krmfn/<fn>@sha256:... per
arch) as `<fn> <arch> <digest>` lines on stdout, for the arm64 end-to-end to pull
the exact variant; problems on stderr, exit 1 on any.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from image_tags import image_tags  # type: ignore[import-not-found]

INDEX_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
MANIFEST_TYPES = (
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
# The registry is on loopback: never through a proxy of the environment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
LABELS = ("source", "version", "revision", "licenses", "title", "description")


def get(url: str, accept: tuple[str, ...] = ()) -> tuple[dict[str, Any], str]:
    """(JSON body, Docker-Content-Digest) of a registry URL."""
    request = urllib.request.Request(url, headers={"Accept": ", ".join(accept)} if accept else {})
    with _OPENER.open(request, timeout=30) as response:
        return json.loads(response.read()), response.headers.get("Docker-Content-Digest", "")


def check(
    base: str,
    fn: str,
    tags: list[str],
    pinned: dict[str, str],
    version: str,
    revision: str,
    archs: list[str],
    out: list[str],
) -> list[str]:
    problems: list[str] = []
    repo = f"{base}/krmfn/{fn}"
    digests = set()
    index: dict[str, Any] = {}
    for tag in tags:
        ref = f"{repo}:{tag}"
        try:
            index, digest = get(f"http://{base}/v2/krmfn/{fn}/manifests/{tag}", INDEX_TYPES)
        except OSError as err:
            problems.append(f"{ref}: not in the registry ({err})")
            continue
        if index.get("mediaType") not in INDEX_TYPES:
            problems.append(f"{ref}: a {index.get('mediaType')}, not an image index")
        if pinned.get(ref) != f"{repo}@{digest}":
            problems.append(f"{ref}: registry digest {digest}, DIGESTS says {pinned.get(ref)}")
        digests.add(digest)
    if len(digests) > 1:
        problems.append(f"{repo}: its tags name {len(digests)} different indexes")
    if problems:
        return problems
    platforms = sorted(
        (m["platform"]["os"] + "/" + m["platform"]["architecture"], m["digest"], m["mediaType"])
        for m in index.get("manifests", [])
    )
    want = sorted(f"linux/{a}" for a in archs)
    if [p for p, _, _ in platforms] != want:
        return [f"{repo}: platforms {[p for p, _, _ in platforms]}, want {want}"]
    for platform, digest, media_type in platforms:
        arch = platform.split("/")[1]
        where = f"{repo}@{digest} ({platform})"
        if media_type not in MANIFEST_TYPES:
            problems.append(f"{where}: a {media_type}, not an image manifest")
            continue
        manifest, _ = get(f"http://{base}/v2/krmfn/{fn}/manifests/{digest}", MANIFEST_TYPES)
        config, _ = get(f"http://{base}/v2/krmfn/{fn}/blobs/{manifest['config']['digest']}")
        settings = config.get("config", {})
        labels = settings.get("Labels") or {}
        if config.get("architecture") != arch:
            problems.append(f"{where}: config architecture {config.get('architecture')}")
        if settings.get("Entrypoint") != [f"/opt/krmfn/bin/krmfn-{fn}"] or settings.get("Cmd"):
            problems.append(
                f"{where}: entrypoint {settings.get('Entrypoint')} cmd {settings.get('Cmd')}"
            )
        if settings.get("User", "").split(":")[0] in ("", "0", "root"):
            problems.append(f"{where}: runs as {settings.get('User') or 'root'}")
        for key in LABELS:
            if not labels.get(f"org.opencontainers.image.{key}"):
                problems.append(f"{where}: no label org.opencontainers.image.{key}")
        expect = {"version": version, "revision": revision, "title": f"krmfn-{fn}"}
        for key, value in expect.items():
            if labels.get(f"org.opencontainers.image.{key}") != value:
                got = labels.get(f"org.opencontainers.image.{key}")
                problems.append(f"{where}: org.opencontainers.image.{key} {got!r}, want {value!r}")
        annotations = manifest.get("annotations") or {}
        if (
            media_type == MANIFEST_TYPES[0]
            and annotations.get("org.opencontainers.image.revision") != revision
        ):
            problems.append(f"{where}: no revision annotation on the manifest")
        out.append(f"{fn} {arch} {repo}@{digest}")
    return problems


def main(argv: list[str]) -> int:
    if "--" not in argv or len(argv) < 7:
        print(__doc__, file=sys.stderr)
        return 2
    sep = argv.index("--")
    base, digests_file, version, revision, *archs = argv[1:sep]
    functions = argv[sep + 1 :]
    pinned = {}
    for line in Path(digests_file).read_text().splitlines():
        if line and not line.startswith("#"):
            ref, digest = line.split()
            pinned[ref] = digest
    tags = image_tags(version)
    problems: list[str] = []
    out: list[str] = []
    for fn in functions:
        problems += check(base, fn, tags, pinned, version, revision, archs, out)
    expected_refs = {f"{base}/krmfn/{fn}:{tag}" for fn in functions for tag in tags}
    if set(pinned) != expected_refs:
        problems.append(f"DIGESTS lists {sorted(set(pinned) ^ expected_refs)} unexpectedly")
    for problem in problems:
        print(f"registry_check: {problem}", file=sys.stderr)
    print("\n".join(out))
    print(
        f"registry_check: {len(functions)} functions x {len(tags)} tags, one index each with"
        f" {', '.join('linux/' + a for a in archs)}: {'FAIL' if problems else 'ok'}",
        file=sys.stderr,
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
