"""``python -m ccsim``: the same command line as the ``ccsim`` script."""

import sys

from ccsim.cli import main

if __name__ == "__main__":  # not when a spawned worker process imports it
    sys.exit(main())
