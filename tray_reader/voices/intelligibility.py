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

import contextlib
import json
import logging
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import soxr

log = logging.getLogger(__name__)

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


def _pcm16(audio: np.ndarray, rate: int) -> bytes:
    """What the recogniser hears of float32 mono ``audio`` at ``rate``: LEAD_SILENCE, then the
    audio, as 16-bit samples at RATE."""
    audio = np.concatenate([np.zeros(int(LEAD_SILENCE * rate), np.float32), np.asarray(audio, np.float32)])
    pcm16 = soxr.resample(audio, rate, RATE) if rate != RATE else audio
    return bytes((np.clip(pcm16, -1.0, 1.0) * 32767).astype(np.int16).tobytes())


def _decoder() -> Any:  # a pocketsphinx Decoder
    from pocketsphinx import Decoder

    return Decoder(samprate=RATE, loglevel="FATAL", maxhmmpf=MAX_HMMS_PER_FRAME)


def _heard(decoder: Any, pcm: bytes) -> Any:
    """``decoder`` (a new one: each utterance is heard afresh) after hearing ``pcm`` (`_pcm16`)."""
    decoder.start_utt()
    decoder.process_raw(pcm, full_utt=True)
    decoder.end_utt()
    return decoder


def _decode(audio: np.ndarray, rate: int) -> Any:  # a pocketsphinx Decoder
    return _heard(_decoder(), _pcm16(audio, rate))


def recogniser_version() -> str:
    """What identifies the recogniser's results: its version and the search cap."""
    from importlib.metadata import version

    return f"pocketsphinx {version('pocketsphinx')} maxhmmpf {MAX_HMMS_PER_FRAME} lead {LEAD_SILENCE}"


def recognise(audio: np.ndarray, rate: int) -> str:
    """The words the recogniser hears in float32 mono ``audio`` sampled at ``rate``."""
    hyp = _decode(audio, rate).hyp()
    return hyp.hypstr if hyp is not None else ""


class RecogniserProcess:
    """The recogniser in a process of its own, so that it hears one audio while this process
    renders the next: pocketsphinx holds Python's lock while it decodes, so a thread would not
    run beside it. Each audio is heard by a fresh decoder, as `recognise` hears it (the same
    words); the process makes the next decoder while it waits. Started at the first `submit`;
    `close` stops it (by its PID). If it cannot start or dies, what it had not answered is
    heard here instead."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._failed = False
        self._waiting: list[tuple[int, bytes]] = []  # sent, not yet answered: (ticket, pcm)
        self._answers: dict[int, str] = {}
        self._tickets = 0

    def submit(self, audio16k: np.ndarray) -> int:
        """Start hearing ``audio16k`` (float32 mono, RATE); returns a ticket for `heard`."""
        ticket, self._tickets = self._tickets, self._tickets + 1
        pcm = _pcm16(audio16k, RATE)
        self._waiting.append((ticket, pcm))
        process = self._started()
        if process is not None and process.stdin is not None:
            try:
                process.stdin.write(len(pcm).to_bytes(4, "little") + pcm)
                process.stdin.flush()
            except OSError:
                self._lost()
        return ticket

    def heard(self, ticket: int) -> str:
        """The words heard in the audio of ``ticket`` (waits for them)."""
        while ticket not in self._answers:
            process = self._process
            line = b""
            if process is not None and process.stdout is not None and not self._failed:
                with contextlib.suppress(OSError):
                    line = process.stdout.readline()
            if not line:
                self._lost()
                continue
            answered, _pcm = self._waiting.pop(0)
            self._answers[answered] = json.loads(line)["heard"]
        return self._answers.pop(ticket)

    def close(self) -> None:
        """Stop the process (anything still being heard is dropped)."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            process.kill()  # by its PID: it was hearing audio no one waits for now
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> RecogniserProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _started(self) -> subprocess.Popen[bytes] | None:
        if self._process is None and not self._failed:
            try:
                self._process = subprocess.Popen(
                    [sys.executable, "-m", __name__],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            except OSError as e:
                log.warning("the recogniser's own process did not start (%s); hearing in this one instead", e)
                self._failed = True
        return self._process

    def _lost(self) -> None:
        """The process is gone: hear what it had not answered here."""
        if not self._failed:
            log.warning("the recogniser's own process stopped; hearing in this one instead")
        self._failed = True
        self.close()
        for ticket, pcm in self._waiting:
            hyp = _heard(_decoder(), pcm).hyp()
            self._answers[ticket] = hyp.hypstr if hyp is not None else ""
        self._waiting.clear()


def _serve(source: BinaryIO, sink: BinaryIO) -> None:
    """`RecogniserProcess`'s other end: audio in (a 4-byte little-endian length, then that
    many bytes of `_pcm16`), one JSON line of the words heard out, until ``source`` ends."""
    decoder = _decoder()
    while len(head := source.read(4)) == 4:
        pcm = source.read(int.from_bytes(head, "little"))
        hyp = _heard(decoder, pcm).hyp()
        sink.write(json.dumps({"heard": hyp.hypstr if hyp is not None else ""}).encode() + b"\n")
        sink.flush()
        decoder = _decoder()  # made while the next audio is on its way


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


if __name__ == "__main__":
    _serve(sys.stdin.buffer, sys.stdout.buffer)
