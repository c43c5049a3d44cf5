"""Readable names for the Voice menu: the user's voices first, then stock voices by accent
and gender ("Heart — American, female"). Ids stay what `voices`, `say --voice` and
`ctl status` use; only the menu shows these labels."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

ACCENTS = {"a": "American", "b": "British"}
"""First letter of a stock id."""
GENDERS = {"f": "female", "m": "male"}
"""Second letter of a stock id."""
OWN_VOICES = "Your voices"


def is_stock_id(name: str) -> bool:
    return len(name) > 3 and name[0] in ACCENTS and name[1] in GENDERS and name[2] == "_"


def readable(name: str) -> str:
    """'af_heart' -> 'Heart — American, female'; any other name as it is."""
    if not is_stock_id(name):
        return name
    return f"{name[3:].replace('_', ' ').title()} — {ACCENTS[name[0]]}, {GENDERS[name[1]]}"


def menu_groups(names: Iterable[str], stock: Sequence[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """[(group title, [(id, label)])]: the user's own voices first, then each accent and
    gender of the stock voices (American before British, female before male)."""
    stock_set = set(stock)
    own: list[tuple[str, str]] = []
    grouped: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name in names:
        if name in stock_set and is_stock_id(name):
            grouped.setdefault((name[0], name[1]), []).append((name, readable(name)))
        else:
            own.append((name, name))
    out = [(OWN_VOICES, own)] if own else []
    for key in sorted(grouped, key=lambda k: (list(ACCENTS).index(k[0]), list(GENDERS).index(k[1]))):
        title = f"{ACCENTS[key[0]]} {GENDERS[key[1]]}"
        out.append((title, sorted(grouped[key], key=lambda e: e[1])))
    return out
