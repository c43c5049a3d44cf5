"""How well a voice is understood: an offline recogniser's word error rate on a known text.

The recogniser is pocketsphinx (BSD; its bundled US English model), an optional dependency
(the `enrol` extra, which the README's setup installs). Without it nothing is checked and
`word_errors` says so by returning None. Enrolment uses it to pass over a made voice that is
understood less well than the nearest stock voice saying the same words (`guard.decide`);
the tests and the enrolment bench use the same functions.
"""

from __future__ import annotations

import re

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


def recognise(audio: np.ndarray, rate: int) -> str:
    """The words the recogniser hears in float32 mono ``audio`` sampled at ``rate``."""
    from pocketsphinx import Decoder

    audio = np.concatenate([np.zeros(int(LEAD_SILENCE * rate), np.float32), np.asarray(audio, np.float32)])
    pcm16 = soxr.resample(audio, rate, RATE) if rate != RATE else audio
    pcm16 = (np.clip(pcm16, -1.0, 1.0) * 32767).astype(np.int16)
    decoder = Decoder(samprate=RATE, loglevel="FATAL", maxhmmpf=MAX_HMMS_PER_FRAME)
    decoder.start_utt()
    decoder.process_raw(pcm16.tobytes(), full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    return hyp.hypstr if hyp is not None else ""


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
