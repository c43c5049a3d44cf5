"""Where each spoken word stands in the text as written.

Normalisation rewrites words ("42" -> "forty-two", "Dr." -> "Doctor"), so a spoken word
is matched back to the written words around it: words that read the same (letters and
digits, case ignored) are paired in order; the spoken words between two pairs share the
span of the written words between them ("forty-two" -> "42"). Pure functions.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

Span = tuple[int, int]
"""[start, end) character offsets into the original text."""

_WRITTEN_WORD = re.compile(r"\S+")


def _key(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum())


def written_words(text: str, start: int = 0) -> list[tuple[str, Span]]:
    """The whitespace-separated words of ``text`` with their spans (offset by ``start``),
    trimmed of the punctuation around them."""
    out = []
    for m in _WRITTEN_WORD.finditer(text):
        word = m.group()
        lead = len(word) - len(word.lstrip("\"'([{\u201c\u2018*_"))
        trail = len(word) - len(word.rstrip("\"')]}\u201d\u2019.,;:!?*_\u2026"))
        if lead + trail >= len(word):
            lead, trail = 0, 0
        out.append((word[lead : len(word) - trail], (start + m.start() + lead, start + m.end() - trail)))
    return out


def spoken_spans(written: str, spoken: list[str], start: int = 0) -> list[Span]:
    """For each of ``spoken`` (the normalised words of the ``written`` text, which begins at
    offset ``start`` of the original), its span in the original."""
    if not spoken:
        return []
    source = written_words(written, start)
    if not source:
        end = start + len(written)
        return [(start, end)] * len(spoken)
    matcher = SequenceMatcher(None, [_key(w) for w, _ in source], [_key(w) for w in spoken], autojunk=False)
    spans: list[Span | None] = [None] * len(spoken)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                spans[j1 + k] = source[i1 + k][1]
        elif tag in ("replace", "insert"):
            if i2 > i1:
                gap = (source[i1][1][0], source[i2 - 1][1][1])
            else:
                # Spoken words with nothing written for them ("and" in "$5.50"): the word before.
                at = source[i1 - 1][1] if i1 > 0 else source[0][1]
                gap = at
            for k in range(j1, j2):
                spans[k] = gap
    return [s if s is not None else (start, start) for s in spans]
