"""Importing this module loads the picture fonts (`image.warm_up`, about a second of CPU).

The picture workers' forkserver (bot/service/pictures.py) preloads it: every worker forked
from it starts with the fonts loaded, one replaced after a crash included.
"""

from bot.render.image import warm_up

warm_up()
