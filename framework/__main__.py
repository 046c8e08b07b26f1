"""``python -m framework``: the engine's command line."""

import sys

from framework.cli import main

sys.exit(main())
