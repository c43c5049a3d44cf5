"""Offline speech recognition for tests (pocketsphinx's bundled US English model).

Shared by every test that checks synthesised or captured speech is intelligible.
"""

from __future__ import annotations

import re

import numpy as np
import soxr

LEAD_SILENCE = 0.3
"""Seconds of silence put before the audio: pocketsphinx misses a first word that starts at
once (its cepstral mean starts from what comes first), and audio heard from a device always
has silence before it. A read now starts 10 ms before its first sound."""


def recognise(audio: np.ndarray, rate: int) -> str:
    """The words pocketsphinx hears in float32 mono `audio` sampled at `rate`."""
    from pocketsphinx import Decoder

    audio = np.concatenate([np.zeros(int(LEAD_SILENCE * rate), np.float32), np.asarray(audio, np.float32)])
    pcm16 = soxr.resample(audio, rate, 16_000)
    pcm16 = (np.clip(pcm16, -1.0, 1.0) * 32767).astype(np.int16)
    decoder = Decoder(samprate=16_000, loglevel="FATAL")
    decoder.start_utt()
    decoder.process_raw(pcm16.tobytes(), full_utt=True)
    decoder.end_utt()
    hyp = decoder.hyp()
    return hyp.hypstr if hyp is not None else ""


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def word_recall(expected: str, heard: str) -> float:
    """Share of the expected words that appear in what was heard (order-free, per word)."""
    want = words(expected)
    got = set(words(heard))
    return sum(w in got for w in want) / max(1, len(want))
