"""Text front end: raw text in, chunks of phonemes (with their sentence and pause) out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from tray_reader import model_files
from tray_reader.speech.types import TextChunk

Phonemizer = Callable[[str], str]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class TextFrontEnd:
    """Normalises text, splits it into sentences and chunks, and phonemises each chunk."""

    def __init__(self, phonemize: Phonemizer) -> None:
        self._phonemize = phonemize
        self._vocab = model_files.vocab()

    def ids(self, phonemes: str) -> list[int]:
        return [self._vocab[c] for c in phonemes if c in self._vocab]

    def chunks(self, text: str) -> Iterator[TextChunk]:
        for i, sentence in enumerate(s for s in _SENTENCE_END.split(text.strip()) if s):
            yield TextChunk(sentence, self._phonemize(sentence), i, 0.3)
