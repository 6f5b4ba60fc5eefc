"""Entry point of krmfn-applyset-labeler."""

import sys


def main() -> int:
    sys.stderr.write("krmfn-applyset-labeler: not built yet\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
