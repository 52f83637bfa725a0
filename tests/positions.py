"""Building round states for tests from short texts (the notation of engine/notation.py)."""

from __future__ import annotations

from engine import Move, RoundState, Tile, apply, domino_set, from_notation, judge
from engine.legality import Verdict


def position(
    rules: str = "players=2,set=6,hand_size=7",
    trains: str = "-/-/-",
    hands: str | None = None,
    *,
    engine: int | None = None,
    open_doubles: str = "-",
    boneyard: str | None = None,
    turn: int = 0,
    flags: str = "",
) -> RoundState:
    """A position. With ``hands`` given, tiles that are nowhere else go to the boneyard,
    or, when ``boneyard`` is given, to the last seat's hand.

    ``hands=None`` means the camera case: hands and boneyard unknown.
    """
    highest = int(dict(item.split("=") for item in rules.split(",")).get("set", 12))
    engine = highest if engine is None else engine
    if hands is None:
        hands_text, boneyard_text = "?", "?"
    else:
        used = {Tile(engine, engine)}
        for part in (trains + "/" + hands + "/" + (boneyard or "-")).replace("*", "").split("/"):
            used |= {Tile.parse(text) for text in part.split(".") if text != "-"}
        rest = ".".join(map(str, sorted(domino_set(highest) - used, reverse=True)))
        if boneyard is None:
            hands_text, boneyard_text = hands, rest or "-"
        else:
            seats = hands.split("/")
            seats[-1] = ".".join(part for part in (seats[-1], rest) if part and part != "-") or "-"
            hands_text, boneyard_text = "/".join(seats), boneyard
    text = f"{rules} {engine} {trains} {open_doubles} {hands_text} {boneyard_text} {turn} {flags}"
    return from_notation(text.strip())


def verdict(state: RoundState, move: str) -> Verdict:
    return judge(state, Move.parse(move))


def reason(state: RoundState, move: str) -> str | None:
    return verdict(state, move).reason


def play(state: RoundState, *moves: str) -> RoundState:
    for move in moves:
        state = apply(state, Move.parse(move))
    return state
