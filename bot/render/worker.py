"""A picture worker's side (bot/service/pictures.py runs the workers): a light module, so a
worker imports only the renderer (this initializer's module and the drawing functions'),
never the rest of the bot."""

import importlib

from bot import workers

FONTS = "bot.render.warm"  # importing it loads the fonts: the forkserver preloads it


def start_worker(bot_pid: int) -> None:
    """Each worker's initializer (`bot.workers.start`: no Ctrl-C, ends with the bot). The
    fonts come loaded from the forkserver (loaded here if its preload failed)."""
    workers.start(bot_pid)
    importlib.import_module(FONTS)
