"""Games as the service keeps them: rules, seats, rounds of events, leftover hands, an audit trail.

No rule is decided here: every event is judged by the engine (``engine.legality.judge``) against the
state the engine replays from the stored events, and only legal events are stored. This module is
the bookkeeping around that: ids and tokens, rounds, hands scored from photos and corrected, the
scoresheet.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.tables import Audit, Event, Game, Hand, Round, now
from engine import LogError, RoundScore, Rules, RulesError, Scoresheet
from engine.errors import ParseError
from engine.game import engines, starter_of
from engine.legality import Verdict
from engine.referee import read_log, replay, state_json
from engine.state import RoundState, hand_points
from engine.tiles import parse_in_set

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Game codes are read out across a table: no 0/O or 1/I/L to mix up."""
CODE_LENGTH = 6
DEAL_KEYS = ("engine", "starter", "hands", "boneyard")


class GameError(Exception):
    """A request the games cannot take; ``status`` is its HTTP code, the message its detail."""

    status = 422

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.extra = extra


class NotFound(GameError):
    status = 404


class Unauthorized(GameError):
    status = 401


class Forbidden(GameError):
    status = 403


class Conflict(GameError):
    status = 409


class Illegal(GameError):
    """An event the referee refuses (RULES.md 7); the game is unchanged."""

    status = 409


@dataclass(frozen=True)
class Created:
    game: dict[str, Any]
    token: str


def create_game(session: Session, body: dict[str, Any]) -> Created:
    """A new game with its first round dealt as ``body`` says (RULES.md 7's ``rules``, and optionally
    ``names``, ``engine``, ``starter``, ``hands``, ``boneyard``); its write token is returned once."""
    try:
        rules = Rules.from_dict(body.get("rules"))
    except RulesError as error:
        raise GameError(f"rules: {error}") from None
    names = _names(body.get("names"), rules.players)
    deal = {key: body[key] for key in DEAL_KEYS if body.get(key) is not None}
    _check_deal(rules, deal)
    token = secrets.token_urlsafe(24)
    for _ in range(10):  # a clash of codes is rare; try another
        game = Game(id=_new_code(), token_sha256=_digest(token), rules=rules.to_dict(), names=names)
        session.add(game)
        session.add(Round(game=game, number=0, deal=deal))
        try:
            session.commit()
            return Created(game_json(session, game), token)
        except IntegrityError:
            session.rollback()
    raise Conflict("could not find a free game code; try again")


def load(session: Session, game_id: str, for_update: bool = False) -> Game:
    """The game with this code; ``for_update`` locks it until the commit (PostgreSQL) so that two
    workers cannot judge events against the same state."""
    query = select(Game).where(Game.id == game_id.upper())
    if for_update:
        query = query.with_for_update()
    game = session.scalars(query).first()
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return game


def check_token(game: Game, token: str | None) -> None:
    if not token:
        raise Unauthorized("this changes the game: send its token (Authorization: Bearer TOKEN)")
    if not can_write(game, token):
        raise Forbidden(f"wrong token for game {game.id}")


def can_write(game: Game, token: str | None) -> bool:
    """Whether ``token`` is the game's write token (compared in constant time)."""
    return bool(token) and hmac.compare_digest(_digest(token or ""), game.token_sha256)


def add_event(session: Session, game: Game, event: Any) -> dict[str, Any]:
    """Judge ``event`` (RULES.md 7) in the current round and store it if legal; raises Illegal with the
    verdict otherwise, storing nothing."""
    round_ = game.rounds[-1]
    events = _live_events(session, round_)
    try:
        log = read_log(_log(game, round_, [*(e.event for e in events), event]))
        verdicts, after = replay(log)  # raises too for a draw that must name its tile
    except LogError as error:
        raise GameError(str(error).replace(f"events[{len(events)}]", "event")) from None
    verdict = verdicts[-1]  # the stored events are all legal: the last verdict is the new event's
    if not verdict.legal:
        raise Illegal(verdict.message, verdict=_verdict_json(len(events), verdict))
    seq = session.scalar(select(func.count()).select_from(Event).where(Event.round_id == round_.id)) or 0
    session.add(Event(round_id=round_.id, seq=seq, event=log.moves[-1].to_event()))
    _commit(session)
    return {
        "round": round_.number,
        "event": len(events),
        "verdict": _verdict_json(len(events), verdict),
        "state": state_json(after),
    }


def undo(session: Session, game: Game) -> dict[str, Any]:
    """Take back the current round's last event (kept, marked undone, and written to the audit trail)."""
    round_ = game.rounds[-1]
    events = _live_events(session, round_)
    if not events:
        raise Conflict(f"nothing to undo in round {round_.number}")
    last = events[-1]
    last.undone = now()
    session.add(Audit(game_id=game.id, action="undo", detail={"round": round_.number, "event": last.event}))
    _commit(session)
    return round_json(session, game, round_)


def new_round(session: Session, game: Game, body: dict[str, Any]) -> dict[str, Any]:
    """The next round: by default the next engine down and the next starter (RULES.md 1, 5)."""
    rules = Rules.from_dict(game.rules)
    number = len(game.rounds)
    if number >= len(engines(rules)):
        raise Conflict(f"the game has had all its {number} rounds")
    deal = {key: body[key] for key in DEAL_KEYS if body.get(key) is not None}
    deal.setdefault("engine", engines(rules)[number])
    deal.setdefault("starter", starter_of(number, game.rounds[0].deal.get("starter", 0), rules.players))
    _check_deal(rules, deal)
    round_ = Round(game=game, number=number, deal=deal)
    session.add(round_)
    _commit(session)
    return round_json(session, game, round_)


def score_hand(session: Session, game: Game, number: int, seat: int, reading: dict[str, Any]) -> dict[str, Any]:
    """A seat's leftover hand as a photo read it (``hubcam score`` JSON): its sure tiles are counted,
    the unsure ones left for the review step."""
    round_ = _round(game, number)
    _check_seat(game, seat)
    highest = game.rules["set"]
    tiles = [
        f"{t['pips'][0]}-{t['pips'][1]}"
        for t in reading["tiles"]
        if t.get("pips") and "reason" not in t and max(t["pips"]) <= highest
    ]
    hand = _hand(session, round_, seat) or Hand(round_id=round_.id, seat=seat)
    hand.tiles, hand.reading, hand.reviewed, hand.updated = tiles, reading, False, now()
    session.add(hand)
    session.add(
        Audit(
            game_id=game.id,
            action="hand_scored",
            detail={"round": number, "seat": seat, "tiles": tiles, "image": reading.get("image")},
        )
    )
    _commit(session)
    return hand_json(game, hand)


def correct_hand(session: Session, game: Game, number: int, seat: int, tiles: Any) -> dict[str, Any]:
    """The review step: a person's list of the tiles in the hand replaces what was read; the audit trail
    keeps both."""
    round_ = _round(game, number)
    _check_seat(game, seat)
    rules = Rules.from_dict(game.rules)
    if not isinstance(tiles, list):
        raise GameError("tiles: expected a list of tiles like '12-5'")
    try:
        read = [parse_in_set(text if isinstance(text, str) else repr(text), rules.set) for text in tiles]
    except ParseError as error:
        raise GameError(f"tiles: {error}") from None
    if len(set(read)) != len(read):
        raise GameError("tiles: a tile is listed twice (each exists once in the set)")
    hand = _hand(session, round_, seat) or Hand(round_id=round_.id, seat=seat, tiles=[])
    before = list(hand.tiles)
    hand.tiles, hand.reviewed, hand.updated = [str(tile) for tile in read], True, now()
    session.add(hand)
    session.add(
        Audit(
            game_id=game.id,
            action="hand_corrected",
            detail={"round": number, "seat": seat, "before": before, "after": hand.tiles},
        )
    )
    _commit(session)
    return hand_json(game, hand)


def game_json(session: Session, game: Game) -> dict[str, Any]:
    rounds = [round_json(session, game, round_) for round_ in game.rounds]
    return {
        "id": game.id,
        "rules": game.rules,
        "names": game.names,
        "created": game.created.isoformat(),
        "rounds": rounds,
        "scoresheet": _scoresheet(game, rounds).to_json() | {"names": game.names},
    }


def round_json(session: Session, game: Game, round_: Round) -> dict[str, Any]:
    events = [event.event for event in _live_events(session, round_)]
    _, state = replay(read_log(_log(game, round_, events)))
    hands = {hand.seat: hand_json(game, hand) for hand in _hands(session, round_)}
    return {
        "round": round_.number,
        "deal": round_.deal,
        "events": events,
        "state": state_json(state),
        "hands": [hands.get(seat) for seat in range(len(game.names))],
        "scores": _round_scores(game, state, hands),
    }


def hand_json(game: Game, hand: Hand) -> dict[str, Any]:
    rules = Rules.from_dict(game.rules)
    tiles = [parse_in_set(text, rules.set) for text in hand.tiles]
    reading = hand.reading or {}
    return {
        "seat": hand.seat,
        "tiles": hand.tiles,
        "total": hand_points(tiles, rules.double_blank_points),
        "reviewed": hand.reviewed,
        "uncertain": len(reading.get("uncertain", [])) + len(reading.get("cut_by_frame", [])),
        "reading": hand.reading,
    }


def scoresheet(session: Session, game: Game) -> Scoresheet:
    """The rounds whose every seat has a score (a finished round with known hands, or every leftover
    hand scored)."""
    return _scoresheet(game, [round_json(session, game, round_) for round_ in game.rounds])


def _scoresheet(game: Game, rounds: list[dict[str, Any]]) -> Scoresheet:
    """The scoresheet of rounds as ``round_json`` gives them."""
    rules = Rules.from_dict(game.rules)
    rows = [
        RoundScore(
            round_["round"],
            round_["deal"].get("engine", rules.set),
            round_["deal"].get("starter", 0),
            tuple(round_["scores"]),
            "out" if 0 in round_["scores"] else "blocked",
            len(round_["events"]),
        )
        for round_ in rounds
        if round_["scores"] is not None
    ]
    return Scoresheet.from_rounds(rules, rows)


def audit_json(session: Session, game: Game) -> list[dict[str, Any]]:
    rows = session.scalars(select(Audit).where(Audit.game_id == game.id).order_by(Audit.id))
    return [{"at": row.at.isoformat(), "action": row.action, **row.detail} for row in rows]


def _round_scores(game: Game, state: RoundState, hands: dict[int, dict[str, Any]]) -> list[int] | None:
    scores = state.scores()
    if state.round_over and scores is not None:
        return scores
    if len(hands) == len(game.names):
        return [hands[seat]["total"] for seat in range(len(game.names))]
    return None


def _log(game: Game, round_: Round, events: list[Any]) -> dict[str, Any]:
    return {"rules": game.rules, **round_.deal, "events": events}


def _verdict_json(index: int, verdict: Verdict) -> dict[str, Any]:
    return {"event": index, "legal": verdict.legal, "reason": verdict.reason, "message": verdict.message}


def _live_events(session: Session, round_: Round) -> list[Event]:
    query = select(Event).where(Event.round_id == round_.id, Event.undone.is_(None)).order_by(Event.seq)
    return list(session.scalars(query))


def _hands(session: Session, round_: Round) -> list[Hand]:
    return list(session.scalars(select(Hand).where(Hand.round_id == round_.id).order_by(Hand.seat)))


def _hand(session: Session, round_: Round, seat: int) -> Hand | None:
    return session.scalars(select(Hand).where(Hand.round_id == round_.id, Hand.seat == seat)).first()


def _round(game: Game, number: int) -> Round:
    if not 0 <= number < len(game.rounds):
        raise NotFound(f"game {game.id} has no round {number} (rounds 0 to {len(game.rounds) - 1})")
    return game.rounds[number]


def _check_seat(game: Game, seat: int) -> None:
    if not 0 <= seat < len(game.names):
        raise NotFound(f"game {game.id} has no seat {seat} (seats 0 to {len(game.names) - 1})")


def _check_deal(rules: Rules, deal: dict[str, Any]) -> None:
    try:
        read_log({"rules": rules.to_dict(), **deal, "events": []})
    except LogError as error:
        raise GameError(str(error)) from None


def _names(names: Any, players: int) -> list[str]:
    if names is None:
        return [f"seat {seat}" for seat in range(players)]
    if not isinstance(names, list) or len(names) != players or not all(isinstance(n, str) for n in names):
        raise GameError(f"names: expected a list of {players} names (one per player), got {names!r:.60}")
    if any(not 0 < len(name.strip()) <= 40 for name in names):
        raise GameError("names: each name must have 1 to 40 characters")
    return [name.strip() for name in names]


def _commit(session: Session) -> None:
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict("the game changed at the same moment (another device); reload and try again") from None


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
