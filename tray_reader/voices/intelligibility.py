"""How well a voice is understood: an offline recogniser's word error rate on a known text;
and the words of a recording given without its text.

The recogniser is pocketsphinx (BSD; its bundled US English model), an optional dependency
(the `enrol` extra, which the README's setup installs). Without it nothing is checked and
`word_errors` says so by returning None. Enrolment uses it to pass over a made voice that is
understood less well than the nearest stock voice saying the same words (`guard.decide`),
and, when no text is given, to hear what the recording says (`transcribe`), kept only when
the recogniser is sure of it; the tests and the enrolment bench use the same functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import soxr

RATE = 16_000
LEAD_SILENCE = 0.3
"""Seconds of silence put before the audio: pocketsphinx misses a first word that starts at
once (its cepstral mean starts from what comes first), and audio heard from a device always
has silence before it."""
MAX_HMMS_PER_FRAME = 3000
"""The recogniser's search is capped at this many active HMMs per frame (its default is ten
times more): it bounds the time a breathy or unclear voice takes to recognise, where the
search otherwise widens, and leaves what clear voices are heard to say as it was
(docs/benchmarks.md)."""


def available() -> bool:
    """Whether the recogniser is installed."""
    try:
        import pocketsphinx  # noqa: F401
    except ImportError:
        return False
    return True


SURE = 0.5
"""Least mean posterior of the words heard for `Heard.sure`: between English read clearly over
a wideband channel, which it hears mostly right, and both English over a telephone or radio
channel and other languages, which it hears as other words (bench/asr_confidence.py; the
figures are in docs/benchmarks.md)."""
MIN_HEARD_WORDS = 8
"""Fewer words heard than this: too few to match by (as `align.MIN_WORDS`)."""


@dataclass(frozen=True)
class Heard:
    """What the recogniser heard in a recording, and how sure it is."""

    text: str
    confidence: float
    """The mean posterior probability of the words heard (0 when none were)."""
    words: int

    @property
    def sure(self) -> bool:
        """Whether the words are likely to be the ones said: enough of them, heard surely."""
        return self.words >= MIN_HEARD_WORDS and self.confidence >= SURE


def _decode(audio: np.ndarray, rate: int) -> Any:  # a pocketsphinx Decoder
    from pocketsphinx import Decoder

    audio = np.concatenate([np.zeros(int(LEAD_SILENCE * rate), np.float32), np.asarray(audio, np.float32)])
    pcm16 = soxr.resample(audio, rate, RATE) if rate != RATE else audio
    pcm16 = (np.clip(pcm16, -1.0, 1.0) * 32767).astype(np.int16)
    decoder = Decoder(samprate=RATE, loglevel="FATAL", maxhmmpf=MAX_HMMS_PER_FRAME)
    decoder.start_utt()
    decoder.process_raw(pcm16.tobytes(), full_utt=True)
    decoder.end_utt()
    return decoder


def recogniser_version() -> str:
    """What identifies the recogniser's results: its version and the search cap."""
    from importlib.metadata import version

    return f"pocketsphinx {version('pocketsphinx')} maxhmmpf {MAX_HMMS_PER_FRAME} lead {LEAD_SILENCE}"


def recognise(audio: np.ndarray, rate: int) -> str:
    """The words the recogniser hears in float32 mono ``audio`` sampled at ``rate``."""
    hyp = _decode(audio, rate).hyp()
    return hyp.hypstr if hyp is not None else ""


def transcribe(audio16k: np.ndarray) -> Heard:
    """The words heard in ``audio16k`` and the recogniser's mean posterior of them (fillers
    and silences left out; a word's alternative pronunciation marker dropped)."""
    decoder = _decode(audio16k, RATE)
    said = [(s.word, float(s.prob)) for s in decoder.seg() if s.word[:1] not in "<[" and s.word.strip()]
    text = " ".join(re.sub(r"\(\d+\)$", "", w) for w, _ in said)
    confidence = float(np.mean([p for _, p in said])) if said else 0.0
    return Heard(text, confidence, len(said))


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def wer(expected: str, heard: str) -> float:
    """Word error rate: the word-level edit distance over the number of expected words."""
    want, got = words(expected), words(heard)
    d = np.arange(len(got) + 1)
    for i, w in enumerate(want, 1):
        prev, d[0] = d.copy(), i
        for j, g in enumerate(got, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (w != g))
    return float(d[-1]) / max(1, len(want))


def word_errors(audio16k: np.ndarray, text: str) -> float | None:
    """The recogniser's word error rate on ``audio16k`` saying ``text``; None without it."""
    if not available():
        return None
    return wer(text, recognise(audio16k, RATE))
