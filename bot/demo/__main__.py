"""`python -m bot.demo`: see the package's docstring."""

import sys

from bot.demo import main

sys.exit(main())
