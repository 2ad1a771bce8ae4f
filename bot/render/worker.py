"""A picture worker's side (bot/service/pictures.py runs the workers): a light module, so a
worker imports only the renderer (this initializer's module and the drawing functions'),
never the rest of the bot."""

import importlib
import signal

FONTS = "bot.render.warm"  # importing it loads the fonts: the forkserver preloads it


def start_worker() -> None:
    """Each worker's initializer. Ctrl-C in a terminal reaches the whole process group,
    and the bot's own stop ends the workers: no traceback of theirs. The fonts come
    loaded from the forkserver (loaded here if its preload failed)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    importlib.import_module(FONTS)
