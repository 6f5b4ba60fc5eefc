"""Entry point of krmfn-interface-expander."""

import sys


def main() -> int:
    sys.stderr.write("krmfn-interface-expander: not built yet\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
