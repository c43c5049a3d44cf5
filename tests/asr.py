"""Offline speech recognition for tests (pocketsphinx's bundled US English model, through
`tray_reader.voices.intelligibility`).

Shared by every test that checks synthesised or captured speech is intelligible.
"""

from __future__ import annotations

from tray_reader.voices.intelligibility import LEAD_SILENCE, recognise, wer, words  # noqa: F401


def word_recall(expected: str, heard: str) -> float:
    """Share of the expected words that appear in what was heard (order-free, per word)."""
    want = words(expected)
    got = set(words(heard))
    return sum(w in got for w in want) / max(1, len(want))
