"""The console script krmfn-nfdeploy (the function is declared in krmfn.registry)."""

import sys

from krmfn.registry import entry_point

main = entry_point(__package__ or "krmfn.nfdeploy")

if __name__ == "__main__":
    sys.exit(main())
