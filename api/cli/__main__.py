"""``python -m api.cli``: the ``hubcam`` command."""

import sys

from api.cli import main

sys.exit(main())
