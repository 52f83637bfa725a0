"""The house rules a game may set (RULES.md 6), for the page's "new game" form."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from engine.rules import VARIANT_HELP, VARIANTS

router = APIRouter(tags=["rules"])


@router.get("/rules", summary="The rule variants: each one's values (default first) and what it means")
def variants() -> dict[str, Any]:
    return {
        "variants": {
            name: {"values": list(values), "help": VARIANT_HELP.get(name, "")} for name, values in VARIANTS.items()
        }
    }
