"""See the scorecard pictures as a phone shows them: `python tools/preview_pictures.py [DIR]`.

Plays seeded games of 1, 2, 3, 5 and 8 players (long names in three scripts, computer
players among them) and writes, for each language and table size, mid-game and final, a
"phone" PNG: every picture of the message scaled as Discord scales an embed image on a
412 px screen (to fit `image.BOX`, 292 × 300 px), one under the other, as the message
shows them. Open them with any viewer.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from a checkout, installed or not
    sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from bot.engine import Game, Leave, Pass, Score  # noqa: E402
from bot.i18n import rules_name, t  # noqa: E402
from bot.render.image import BOX, scorecard_pngs  # noqa: E402

NAMES = [
    "Ann",
    "🤖 Bot 1 (perfect)",
    "Борис Константинович Ивановски",  # 30 characters
    "अनीता कुमारी शर्मा वर्मा सिंह",
    "a_player_with_a_very_long_name_32",
    "Zoë 🎲✨",
    "🤖 Bot 2 (easy)",
    "राहुल",
]


def bot_name(lang: str, name: str) -> str:
    """A computer player's name as the bot gives it in `lang`; other names as they are."""
    if not name.startswith("🤖"):
        return name
    n, level = name.split()[2], name.split("(")[1].rstrip(")")
    return t("bots.name", lang, n=n, level=t(f"bots.level_{level}", lang))


def play(rules: str, players: list[str], seed: int, turns: int | None) -> Game:
    rng = random.Random(seed)
    game = Game.new(rules, players)
    done = 0
    while not game.finished and (turns is None or done < turns):
        who = game.player
        game, _ = game.apply(game.draw(who, rng))
        while game.can_roll(who) and rng.random() < 0.5:
            game, _ = game.apply(game.draw(who, rng))
        options = game.options()
        if options:
            best = max(options, key=lambda o: o.points + rng.random() * 10)
            game, _ = game.apply(Score(who, best.row))
        else:
            game, _ = game.apply(Pass(who))
        done += 1
    return game


def phone(pngs: list[bytes]) -> Image.Image:
    """The pictures as the message shows them: each fitted to the box, 8 px apart."""
    shown = []
    for png in pngs:
        img = Image.open(io.BytesIO(png)).convert("RGB")
        scale = min(1.0, BOX[0] / img.width, BOX[1] / img.height)
        size = (round(img.width * scale), round(img.height * scale))
        shown.append(img.resize(size, Image.Resampling.LANCZOS))
    sheet = Image.new("RGB", (BOX[0] + 16, sum(s.height + 8 for s in shown) + 8), (49, 51, 56))
    y = 8
    for img in shown:
        sheet.paste(img, (8, y))
        y += img.height + 8
    return sheet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    scratch = Path(tempfile.gettempdir()) / "pictures"
    parser.add_argument("out", nargs="?", default=scratch, type=Path)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--langs", default="en,ru,hi")
    parser.add_argument("--players", default="1,2,3,5,8")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for lang in args.langs.split(","):
        for n in map(int, args.players.split(",")):
            names = [bot_name(lang, NAMES[i]) for i in (0, 2, 1, 3, 4, 5, 6, 7)[:n]]
            for final in (False, True):
                game = play(args.rules, names, seed=n, turns=None if final else 7 * n)
                if final and n >= 5:  # someone left: their row shows muted
                    game = play(args.rules, names, seed=n, turns=3 * n)
                    game, _ = game.apply(Leave(names[-1]))
                    game = play_on(game, seed=n)
                key = "final" if final else "running"
                name = rules_name(args.rules, lang)
                title = t(f"image.titles.{key}", lang, rules=name, game=42, round=game.round)
                pngs = scorecard_pngs(
                    game.rules, [(c.name, c) for c in game.cards], lang, title=title, final=final
                )
                path = args.out / f"{args.rules}-{lang}-{n}-{key}.png"
                phone(pngs).save(path)
                sizes = ", ".join("×".join(map(str, Image.open(io.BytesIO(p)).size)) for p in pngs)
                print(f"{path}: {len(pngs)} picture(s), {sizes}")


def play_on(game: Game, seed: int) -> Game:
    """`game` played to its end by the same seeded random player."""
    rng = random.Random(seed)
    while not game.finished:
        who = game.player
        game, _ = game.apply(game.draw(who, rng))
        options = game.options()
        if options:
            game, _ = game.apply(Score(who, max(options, key=lambda o: o.points).row))
        else:
            game, _ = game.apply(Pass(who))
    return game


if __name__ == "__main__":
    main()
