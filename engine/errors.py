"""The engine's exceptions: one for text that cannot be read, one for rules that do not fit."""


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ParseError(EngineError, ValueError):
    """Text (a tile, a move, a notation line, a log) that cannot be read."""


class RulesError(EngineError, ValueError):
    """A rule set that is not valid: unknown key, bad value, a deal that does not fit."""


class HandSizeRequired(RulesError):
    """No hand size given, and RULES.md 1 has none for this many players with this set."""


class IllegalMoveError(EngineError):
    """A move that is not legal in the position it was applied to."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
