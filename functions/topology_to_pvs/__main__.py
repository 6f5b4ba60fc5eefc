"""Entry point of krmfn-topology-to-pvs."""

import sys


def main() -> int:
    sys.stderr.write("krmfn-topology-to-pvs: not built yet\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
