"""Turn the krmfn exec functions of every Kptfile under a folder into images (in place).

    .venv/bin/python scripts/images/to_image.py DIR PREFIX TAG FUNCTION...

Every `exec: krmfn-<fn>` (or `exec: krmfn <fn>`) line of a pipeline becomes
`image: PREFIX/<fn>:TAG` (PREFIX: localhost/krmfn, or REGISTRY/krmfn), keeping the
line's indentation, list dash and comment. A krmfn exec line that cannot become an
image (arguments, a function not in FUNCTION...) is an error naming the file and
line: the copy would not be a test of the images then.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LINE = re.compile(
    r"""^(?P<lead>\s*(?:-\s+)?)exec:\s*(?P<q>["']?)(?P<cmd>krmfn(?:-|\s+)[^"'#]*?[^\s"'#])(?P=q)"""
    r"""(?P<tail>\s*(?:#.*)?)$"""
)


def rewrite(root: Path, prefix: str, tag: str, functions: set[str]) -> list[str]:
    """Rewrite the Kptfiles under root; the lines that could not be rewritten."""
    bad = []
    for kptfile in sorted(root.rglob("Kptfile")):
        text = kptfile.read_text()
        out = []
        for n, line in enumerate(text.splitlines(keepends=True), 1):
            body = line.rstrip("\r\n")
            m = LINE.match(body)
            if m:
                words = m["cmd"].split()
                if words[0] == "krmfn":
                    fn, extra = (words[1:2] or [""])[0], words[2:]
                else:
                    fn, extra = words[0][len("krmfn-") :], words[1:]
                if fn not in functions or extra:
                    bad.append(f"{kptfile}:{n}: cannot run as an image: {body.strip()}")
                else:
                    new = f"{m['lead']}image: {prefix}/{fn}:{tag}{m['tail']}"
                    out.append(new + line[len(body) :])
                    continue
            elif re.match(r"^\s*(?:-\s+)?exec:.*\bkrmfn\b", body):
                bad.append(f"{kptfile}:{n}: unrecognised krmfn exec line: {body.strip()}")
            out.append(line)
        new_text = "".join(out)
        if new_text != text:
            kptfile.write_text(new_text)
    return bad


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    bad = rewrite(Path(argv[1]), argv[2], argv[3], set(argv[4:]))
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
