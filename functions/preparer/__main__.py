"""Entry point of krmfn-preparer."""

import sys


def main() -> int:
    sys.stderr.write("krmfn-preparer: not built yet\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
