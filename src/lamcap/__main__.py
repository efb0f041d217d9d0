"""``python -m lamcap`` runs the command line."""

import sys

from lamcap.cli import main

sys.exit(main())
