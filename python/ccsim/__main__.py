"""``python -m ccsim``: the same command line as the ``ccsim`` script."""

import sys

from ccsim.cli import main

sys.exit(main())
