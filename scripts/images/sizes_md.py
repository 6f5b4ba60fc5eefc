"""Replace one generated section of Dockerfiles/SIZES.md with the text on stdin.

    python3 scripts/images/sizes_md.py Dockerfiles/SIZES.md sizes < section.md

A section is the text between `<!-- begin NAME -->` and `<!-- end NAME -->`;
the rest of the file (written by hand) stays as it is. A missing section is
appended under a heading of its name. The file is rewritten only if it changes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def replace_section(text: str, name: str, body: str) -> str:
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{body.strip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        return pattern.sub(lambda _: block, text, count=1)
    return text.rstrip("\n") + f"\n\n## {name}\n\n{block}\n"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: sizes_md.py FILE SECTION < text", file=sys.stderr)
        return 2
    path, name = Path(argv[1]), argv[2]
    old = path.read_text() if path.exists() else "# Image sizes\n"
    new = replace_section(old, name, sys.stdin.read())
    if new != old:
        path.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
