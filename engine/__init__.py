"""hubcam's rules engine for Mexican Train: standard library only, knows nothing of vision.

RULES.md is the contract. The main types:

- ``Tile``, ``domino_set``: tiles and sets (double-6 to double-18).
- ``Rules``: every variant as one frozen value; ``Rules.preset(name, players)``.
- ``Move``: one event (play, draw, pass, end_turn).
- ``RoundState``: a round's position, a value; the verbs on it are functions:
  ``legal_moves(state)``, ``judge(state, move)``, ``is_legal(state, move)``, ``apply(state, move)``.
- ``referee``: replay a log and judge every event (RULES.md 7).
- ``play_game`` and ``Scoresheet``: whole games and their scores.
"""

from engine.errors import EngineError, IllegalMoveError, ParseError, RulesError
from engine.game import play_game, play_rounds
from engine.legality import Verdict, is_legal, judge, legal_moves
from engine.moves import MEXICAN, Move
from engine.notation import from_notation, to_notation
from engine.referee import LogError, referee
from engine.rules import PRESETS, Rules
from engine.scoresheet import RoundScore, Scoresheet
from engine.state import OpenDouble, RoundState, Train
from engine.tiles import SET_SIZES, Tile, domino_set
from engine.transitions import apply

__all__ = [
    "EngineError",
    "IllegalMoveError",
    "LogError",
    "MEXICAN",
    "Move",
    "OpenDouble",
    "PRESETS",
    "ParseError",
    "RoundScore",
    "RoundState",
    "Rules",
    "RulesError",
    "SET_SIZES",
    "Scoresheet",
    "Tile",
    "Train",
    "Verdict",
    "apply",
    "domino_set",
    "from_notation",
    "is_legal",
    "judge",
    "legal_moves",
    "play_game",
    "play_rounds",
    "referee",
    "to_notation",
]
