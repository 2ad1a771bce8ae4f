"""Domain errors: their message is shown to a player as it is."""


class GameError(ValueError):
    """An action the rules do not allow; the game is left unchanged."""
