"""The one bridge from what the camera saw to the rules: a table's layout and readings in, RULES.md
section 8's flags out.

Geometry (``vision.trains``) says which tile touches which and which half faces the hub; this
module alone asks whether the pips agree. A tile read unsurely is flagged ``unreadable_tile`` and
judged no further: a join is only called illegal between two sure readings.

>>> import numpy as np
>>> from vision.trains import Layout, Train
>>> corners = np.zeros((4, 2), np.float32)
>>> seen = [Sighting(corners, (9, 9)), Sighting(corners, (9, 4)), Sighting(corners, (5, 11))]
>>> layout = Layout(None, 0, (Train(90.0, (1, 2), (0, 0)),), (), ())
>>> [(flag.kind.value, flag.train, flag.index) for flag in table_flags(seen, layout, highest=12)]
[('illegal_join', 0, 1)]
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.tiles import Tile
from vision.flags import Flag, FlagKind
from vision.observation import Reason, Sighting
from vision.read.pip_reader import MIN_CONFIDENCE, SURE
from vision.trains import Layout, Train

NOT_A_TILE = frozenset({Reason.ODD_SHAPE, Reason.PART_OF_TILE, Reason.ACROSS_TWO, Reason.OTHER_POSE, Reason.ON_HUB})
"""Boxes left out because they are not one face-up tile: no part of the table's layout."""
UNREADABLE = frozenset({Reason.READ_UNSURE, Reason.NO_COUNT, Reason.BEYOND_FRAME, Reason.FOUND_UNSURELY})
"""Tiles found whose pips could not be read with confidence (RULES.md 8 ``unreadable_tile``)."""


def in_layout(tile: Sighting) -> bool:
    """Whether a tile found takes part in the table's layout (a box that is no tile does not)."""
    return tile.reason not in NOT_A_TILE


def sure_pips(tile: Sighting) -> tuple[int, int] | None:
    """The pips read, where they were read with confidence (a twin of a surer tile's reading too:
    it is a duplicate, judged as read)."""
    return tile.pips if tile.reason is None or tile.reason is Reason.READ_ALIKE else None


@dataclass(frozen=True)
class RulesPrior:
    """How far a legal table may sway a reading. Each join of a train says two halves should be
    alike (the engine's two halves, and each train's first inner end, its value): where a half's
    reading is close between counts, the count that makes the joins match is taken, jointly for the
    halves that meet. A half read surely is never changed, so a confident mismatch stays an
    ``illegal_join``."""

    sure: float = SURE
    """A half read at least this surely is taken as read: the pip reader's SURE."""
    close: float = 0.03
    """Below ``sure``, the counts at least this share of the likeliest count's probability are the
    half's candidates."""
    mismatch: float = 0.05
    """How likely a join is not to match, as the prior sees it (plays against the rules are rare):
    a leaf takes the count that matches where that count is at least this share as likely as its own."""

    def candidates(self, odds: np.ndarray) -> list[int]:
        best = int(odds.argmax())
        if odds[best] >= self.sure:
            return [best]
        return [count for count in np.argsort(-odds).tolist() if odds[count] >= self.close * odds[best]]


RULES_PRIOR = RulesPrior()
"""Chosen on the tuning tables (seed 77) by benchmarks/rules_prior.py (benchmarks/results/rules_prior.md)."""

Half = tuple[int, int]
"""A tile's half: (tile id, 0 or 1 as in its ``pips``)."""


def with_rules_prior(tiles: Sequence[Sighting], layout: Layout, prior: RulesPrior = RULES_PRIOR) -> list[Sighting]:
    """``tiles`` with the halves that meet at a train's joins read jointly (``RulesPrior``). Only a
    half read surely (``prior.sure``) vouches for a count: unsure halves agreeing prove nothing (a
    dark photo's halves are misread alike). A tile whose halves change takes its sure neighbours'
    word as its confidence. A tile read unsurely stays unsure whatever its neighbours say: it is
    flagged ``unreadable_tile``, not guessed (letting sure neighbours settle it gave as many false
    flags of other kinds as it took away: benchmarks/HISTORY.md)."""
    readable = {tile_id for tile_id, tile in enumerate(tiles) if _weighable(tile)}
    chosen: dict[Half, int] = {}
    vouched: dict[Half, list[int]] = {}
    for centre, leaves in _meetings(layout):
        centre = [half for half in centre if half[0] in readable]
        leaves = [half for half in leaves if half[0] in readable]
        odds = {half: _odds(tiles, half) for half in centre + leaves}
        anchors = {half: int(each.argmax()) for half, each in odds.items() if each.max() >= prior.sure}
        if not anchors or len(odds) < 2:
            continue
        options = sorted(set(anchors.values()))
        alike, kept = _agree([odds[h] for h in centre], [odds[h] for h in leaves], options, prior)
        chosen.update(zip(centre + leaves, alike + kept, strict=True))
        for half in centre + leaves:
            met = [other for other in centre + leaves if other != half and (half in centre or other in centre)]
            vouched[half] = [anchors[other] for other in met if other in anchors]
    revised = list(tiles)
    for tile_id in {tile_id for tile_id, _ in chosen}:
        tile = tiles[tile_id]
        assert tile.pips is not None and tile.odds is not None
        pips = (chosen.get((tile_id, 0), tile.pips[0]), chosen.get((tile_id, 1), tile.pips[1]))
        if pips == tile.pips:
            continue
        sure = min(_posterior(tile.odds[side], pips[side], vouched.get((tile_id, side), []), prior) for side in (0, 1))
        unsure = sure < MIN_CONFIDENCE or tile.reason is Reason.READ_UNSURE
        reason = Reason.READ_UNSURE if unsure else None
        revised[tile_id] = replace(tile, pips=pips, confidence=sure, reason=reason)
    return revised


def each_tile_once(tiles: Sequence[Sighting], highest: int | None, prior: RulesPrior = RULES_PRIOR) -> list[Sighting]:
    """``tiles`` with a tile read as one seen already read again where a half was close between counts
    (below ``prior.sure``): a set holds each tile once, so the likeliest reading of its candidates that
    no other tile shows is taken, if it is worth it (two sets mixed are as rare as a mismatch:
    ``prior.mismatch``). The least sure twin goes first; a tile read surely stays a ``duplicate_tile``.
    A reading taken so is as sure as it is against the one it replaces.

    >>> six, three_or_two = [0.0] * 6 + [1.0], [0.0, 0.0, 0.4, 0.6, 0.0, 0.0, 0.0]
    >>> twin = Sighting(np.zeros((4, 2)), (6, 3), 0.6, odds=np.array([six, three_or_two]))
    >>> [tile.pips for tile in each_tile_once([Sighting(np.zeros((4, 2)), (6, 3)), twin], highest=6)]
    [(6, 3), (6, 2)]
    >>> sure_twin = replace(twin, odds=np.array([six, [0.0, 0.0, 0.1, 0.9, 0.0, 0.0, 0.0]]))
    >>> [tile.pips for tile in each_tile_once([Sighting(np.zeros((4, 2)), (6, 3)), sure_twin], highest=6)]
    [(6, 3), (6, 3)]
    """
    revised = list(tiles)
    seen = Counter(Tile(*pips) for tile in tiles if (pips := _sure_in_layout(tile)) is not None)
    for tile_id in sorted(range(len(tiles)), key=lambda index: tiles[index].confidence):
        tile, pips = tiles[tile_id], _sure_in_layout(tiles[tile_id])
        if pips is None or tile.odds is None or seen[Tile(*pips)] < 2:
            continue
        odds = tile.odds
        read_as = float(odds[0][pips[0]] * odds[1][pips[1]])
        others = [
            (float(odds[0][a] * odds[1][b]), (a, b))
            for a in prior.candidates(odds[0])
            for b in prior.candidates(odds[1])
            if seen[Tile(a, b)] == 0 and (highest is None or max(a, b) <= highest)
        ]
        likeliest, other = max(others, default=(0.0, pips))
        if likeliest < prior.mismatch * read_as:
            continue
        seen[Tile(*pips)] -= 1
        seen[Tile(*other)] += 1
        sure = likeliest / (likeliest + prior.mismatch * read_as)
        revised[tile_id] = replace(
            tile, pips=other, confidence=sure, reason=None if sure >= MIN_CONFIDENCE else Reason.READ_UNSURE
        )
    return revised


def _sure_in_layout(tile: Sighting) -> tuple[int, int] | None:
    return sure_pips(tile) if in_layout(tile) else None


def _weighable(tile: Sighting) -> bool:
    """A reading the prior may weigh: pips and their odds, read surely or only unsurely (not a box
    that is no tile, nor one the frame cuts or the detector doubts)."""
    return (
        tile.odds is not None and tile.pips is not None and tile.reason in (None, Reason.READ_UNSURE, Reason.READ_ALIKE)
    )


def _odds(tiles: Sequence[Sighting], half: Half) -> np.ndarray:
    odds = tiles[half[0]].odds
    assert odds is not None
    return odds[half[1]]


def _meetings(layout: Layout) -> list[tuple[list[Half], list[Half]]]:
    """Where halves meet, as (halves that must be alike, halves that should match them): the
    engine's two halves and each train's first inner end; then each join along a train."""
    meetings: list[tuple[list[Half], list[Half]]] = []
    firsts = [(train.tile_ids[0], train.inner_halves[0]) for train in layout.trains if train.tile_ids]
    if layout.engine is not None:
        meetings.append(([(layout.engine, 0), (layout.engine, 1)], firsts))
    for train in layout.trains:
        ends = list(zip(train.tile_ids, train.inner_halves, strict=True))
        for (before, inner_before), (after, inner_after) in itertools.pairwise(ends):
            meetings.append(([(before, 1 - inner_before)], [(after, inner_after)]))
    return meetings


def _agree(
    centre: list[np.ndarray], leaves: list[np.ndarray], options: list[int], prior: RulesPrior
) -> tuple[list[int], list[int]]:
    """The counts of the ``centre`` halves (alike) and of each leaf, most likely jointly, the centre's
    among ``options`` (counts a sure half vouches for): a leaf takes the centre's count where that
    is one of its candidates and worth a match, else its own. Centre halves that cannot share an
    option are each taken as read."""
    penalty = math.log(prior.mismatch)
    own = [int(odds.argmax()) for odds in leaves]
    open_to = [set(prior.candidates(odds)) for odds in leaves]
    options = [value for value in options if all(value in prior.candidates(odds) for odds in centre)]
    if not options:
        return [int(odds.argmax()) for odds in centre], own

    def leaf(value: int, odds: np.ndarray, mine: int, candidates: set[int]) -> tuple[float, int]:
        """A leaf's log-probability and count beside a centre read ``value``: the match, or its own at
        the mismatch's cost, whichever is likelier."""
        if value in candidates and _log(odds[value]) >= _log(odds[mine]) + penalty:
            return _log(odds[value]), value
        return _log(odds[mine]) + penalty, mine

    scored = []
    for value in options:
        answers = [leaf(value, *each) for each in zip(leaves, own, open_to, strict=True)]
        score = sum(_log(odds[value]) for odds in centre) + sum(part for part, _ in answers)
        scored.append((score, value, [count for _, count in answers]))
    _, value, kept = max(scored, key=lambda option: option[:2])
    return [value] * len(centre), kept


def _log(probability: float) -> float:
    return math.log(max(float(probability), 1e-12))


def _posterior(odds: np.ndarray, count: int, neighbours: list[int], prior: RulesPrior) -> float:
    """The probability of ``count`` for a half, given the counts its sure neighbours at the joins read."""
    weight = np.ones_like(odds)
    for value in neighbours:
        agrees = np.arange(len(odds)) == value
        weight *= np.where(agrees, 1.0, prior.mismatch)
    weighed = odds * weight
    return float(weighed[count] / max(weighed.sum(), 1e-12))


def train_pips(tiles: Sequence[Sighting], train: Train) -> list[tuple[int, int] | None]:
    """Each tile of ``train`` as ``(inner end, outer end)``; None where it was not read surely."""
    ordered: list[tuple[int, int] | None] = []
    for tile_id, inner in zip(train.tile_ids, train.inner_halves, strict=True):
        pips = sure_pips(tiles[tile_id])
        ordered.append(None if pips is None else (pips[inner], pips[1 - inner]))
    return ordered


def table_flags(tiles: Sequence[Sighting], layout: Layout, highest: int | None) -> list[Flag]:
    """RULES.md 8's flags for the table: each names its kind, train and index (None off the trains),
    the tiles at fault (indices into ``tiles``) and a message a person understands. A box the
    detector doubts that lies in no train or line of play is no flag: it is more often a
    printed tile, a card or a shadow than a tile."""
    flags: list[Flag] = []
    place = {tile_id: (number, index) for number, train in enumerate(layout.trains)
             for index, tile_id in enumerate(train.tile_ids)}  # fmt: skip
    engine = None if layout.engine is None else sure_pips(tiles[layout.engine])
    for number, train in enumerate(layout.trains):
        flags += _train_flags(tiles, train, number, None if engine is None else engine[0])
    laid = {*place, *(tile_id for chain in layout.chains for tile_id in chain), layout.engine}
    for tile_id, tile in enumerate(tiles):
        if not in_layout(tile):
            continue
        train, index = place.get(tile_id, (None, None))
        where = _where(tile_id, train, index)
        if tile.reason in UNREADABLE and (tile_id in laid or tile.reason is not Reason.FOUND_UNSURELY):
            flags.append(
                _flag(FlagKind.UNREADABLE_TILE, train, index, [tile_id], f"{where} could not be read with confidence")
            )
        pips = sure_pips(tile)
        if pips is not None and highest is not None and max(pips) > highest:
            text = f"{where} reads {pips[0]}-{pips[1]}, above the double-{highest} set's highest"
            flags.append(_flag(FlagKind.OUT_OF_SET, train, index, [tile_id], text))
    flags += _duplicates(tiles, place)
    return flags


def _train_flags(tiles: Sequence[Sighting], train: Train, number: int, engine: int | None) -> list[Flag]:
    """A train's mismatched joins and its open double at the end (RULES.md 8)."""
    flags: list[Flag] = []
    open_end, previous = engine, None
    ordered = train_pips(tiles, train)
    for index, (tile_id, pips) in enumerate(zip(train.tile_ids, ordered, strict=True)):
        if pips is not None and open_end is not None and pips[0] != open_end:
            joined = [tile_id] if previous is None else [previous, tile_id]
            what = "the engine" if previous is None else f"the {open_end} before it"
            text = f"train {number + 1}: the {pips[0]}-{pips[1]} (tile {index + 1}) does not match {what} ({open_end})"
            flags.append(_flag(FlagKind.ILLEGAL_JOIN, number, index, joined, text))
        open_end, previous = (None if pips is None else pips[1]), tile_id
    last = ordered[-1] if ordered else None
    if last is not None and last[0] == last[1]:
        text = f"train {number + 1} ends in the double {last[0]}-{last[1]}: it must be satisfied before other play"
        flags.append(_flag(FlagKind.UNSATISFIED_DOUBLE, number, len(ordered) - 1, [train.tile_ids[-1]], text))
    return flags


def _duplicates(tiles: Sequence[Sighting], place: dict[int, tuple[int, int]]) -> list[Flag]:
    """Each tile seen surely a second time (two sets mixed, or a misread)."""
    flags, first_seen = [], {}
    for tile_id, tile in enumerate(tiles):
        pips = sure_pips(tile) if in_layout(tile) else None
        if pips is None:
            continue
        domino = Tile(*pips)
        if domino not in first_seen:
            first_seen[domino] = tile_id
            continue
        train, index = place.get(tile_id, (None, None))
        twice = f"tiles {first_seen[domino] + 1} and {tile_id + 1}"
        text = f"the {domino} is seen twice ({twice}): two sets mixed, or a misread"
        flags.append(_flag(FlagKind.DUPLICATE_TILE, train, index, [first_seen[domino], tile_id], text))
    return flags


def _where(tile_id: int, train: int | None, index: int | None) -> str:
    if train is None or index is None:
        return f"tile {tile_id + 1}"
    return f"tile {tile_id + 1} (train {train + 1}, place {index + 1})"


def _flag(kind: FlagKind, train: int | None, index: int | None, tile_ids: list[int], message: str) -> Flag:
    return Flag(kind, train, index, tuple(tile_ids), message)
