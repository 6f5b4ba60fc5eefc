"""Entry point of krmfn-merger."""

import sys


def main() -> int:
    sys.stderr.write("krmfn-merger: not built yet\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
