"""The "did you mean" of every error that names an unknown word (a rule, a preset, a log's key,
a setting, a command or an option).

>>> did_you_mean("--jsn", ["--json", "--overlay", "--set"])
" (did you mean '--json'?)"
>>> did_you_mean("zzz", ["json"])
''
>>> nearest_or_all("zzz", ["json", "set"])
' (expected one of json, set)'
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, known: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'X'?)`` for the known word nearest ``word``, or "" where none is as near as ``cutoff``."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def nearest_or_all(word: str, known: Iterable[str], cutoff: float = 0.6) -> str:
    """``did_you_mean``, or where no known word is near, `` (expected one of ...)`` listing them all."""
    known = list(known)
    return did_you_mean(word, known, cutoff) or f" (expected one of {', '.join(known)})"
