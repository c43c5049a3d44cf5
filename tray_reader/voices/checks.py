"""Is this one person speaking, recorded well enough to make a voice from? (numpy; the
speaker check also uses the speaker encoder.)

Each refusal raises EnrollmentError with what to do; nothing is saved. The measures:

* voiced fraction: the share of 20 ms speech frames with a clear pitch period
  (normalised autocorrelation peak > 0.5). Noise has almost none; speech about a third to
  three quarters.
* pitch steadiness: music (and a held tone) stays on one pitch for long stretches; speech
  glides. The share of voiced frames whose pitch is within 1 % of the frame before.
* tail decay: at the ends of words, dry speech falls 20-40 dB within 100 ms; in a
  reverberant room the tail hides that fall. The 98th percentile of the level's fall over
  100 ms, counted only when the recording is quiet enough between words for the fall to be
  seen.
* one speaker: 2 s segments embedded by the second speaker encoder (ge2e.py, the one that tells
  voices of the same sex apart best on 2 s) and grouped by average linkage; two groups each
  of at least 4-6 s whose segments are much less alike across the groups than within each
  are two people (or more: several speakers in turn form such groups too).
* length: the speech time against the time the text given takes to read (much longer: refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tray_reader.errors import EnrollmentError
from tray_reader.voices.measure import autocorrelation, windows

RATE = 16_000
FRAME = 320  # 20 ms
HOP10 = 160  # 10 ms, for the level's fall

MIN_VOICED = 0.12
"""Below this voiced fraction the recording is noise, whispering or no speech."""
NOISE_SNR_DB = 8.0
"""A recording whose loud parts stand less than this above its quiet ones is mostly noise
(speech drowned in hiss, a fan or a radio channel), however much pitch is still heard in it:
a voice made from it would copy the noise. Clean recordings measure 20-80 dB, speech under
white noise of its own level about 7 dB. Only with a voiced share below `NOISY_VOICED`:
music and speech without pauses measure low too, since the quiet parts are then the notes'
or syllables' own."""
NOISY_VOICED = 0.4
"""Voiced share under which a low `NOISE_SNR_DB` means noise (clean speech mostly 0.4-0.9)."""
MAX_STEADY = 0.75
"""Above this share of steady-pitch voiced frames (with many voiced frames) it is music or a tone."""
MIN_FALL_DB = 15.0
"""A 98th-percentile 100 ms fall below this, with pauses deep enough to show one, is heavy
reverberation (dry speech: 24-45 dB on the bench's real speakers; a 1 s reverb tail: 10 dB)."""
MIN_PAUSE_DEPTH_DB = 18.0
"""Pauses at least this far below the speech: a missing fall is then the room, not noise."""
SEGMENT_SECONDS = 2.0
GROUPS_OF_THREE = 9
"""From this many segments (18 s of speech) a group is 3 segments, below it 2."""
TWO_SPEAKER_GAP = 0.16
"""Two groups of at least 3 segments whose segments are this much less alike across the groups
(mean cosine) than within the less consistent of the two are two speakers. One speaker's 30 s
(22 real recordings: prompts, an audiobook, radio) measured at most 0.12; two real speakers
joined (15+15 s, 21+9 s or 4 s turns; same sex too) 0.10-0.51, 165 of 169 at 0.16 or more; the
four missed are pairs of women, the second speaking 9 s (bench/bench_speakers.py).
The speaker encoder the search uses told these apart less well (one speaker up to 0.20)."""
TWO_SPEAKER_GAP_SHORT = 0.21
"""The same for groups of 2 segments (under 18 s of speech), where one speaker measured up to 0.17
and two caught are about two thirds."""
CHARS_PER_SECOND = 14.0
"""A typical reading rate (about 150 words a minute) for the length check."""
LENGTH_RATIO = 2.0
"""A recording this many times longer than its text's reading time is refused (a shorter one
may say part of its text: enrolment finds which part, `align`)."""


class Encoder(Protocol):
    """A speaker encoder (ge2e.JudgeEncoder, embedder.SpeakerEmbedder)."""

    def embed(self, wav16k: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class SpeechMeasures:
    """What the checks measured on a recording (kept with the voice's info for support)."""

    voiced: float
    """Share of frames with a clear pitch period."""
    steady: float
    """Share of voiced frames on the same pitch as the frame before."""
    fall_db: float
    """98th percentile of the level's fall over 100 ms (dB)."""
    pause_depth_db: float
    """Speech level minus the quiet between words (dB): how well a fall can be seen."""


def pitch_track(x16k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(F0 Hz per FRAME or 0, voicing strength, frame level dB) by autocorrelation."""
    _ac, lag, strength, power = autocorrelation(x16k, FRAME, 500)
    f0 = np.where(strength > 0.5, RATE / lag, 0.0)
    return f0, strength, 10 * np.log10(power + 1e-12)


def measure(x16k: np.ndarray) -> SpeechMeasures:
    f0, _strength, level = pitch_track(x16k)
    loud = level > np.percentile(level, 95) - 30
    voiced_frames = (f0 > 0) & loud
    voiced = float(voiced_frames.sum() / max(1, loud.sum()))
    both = voiced_frames[1:] & voiced_frames[:-1]
    same = np.abs(np.log2(np.maximum(f0[1:], 1) / np.maximum(f0[:-1], 1))) < 0.0145
    steady = float((both & same).sum() / max(1, both.sum()))
    lv = 10 * np.log10((windows(x16k, HOP10 * 2, HOP10) ** 2).mean(axis=1) + 1e-12)
    fall = lv[:-10] - lv[10:]
    fall_db = float(np.percentile(fall, 98)) if len(fall) else 0.0
    pause_depth = float(np.percentile(lv, 95) - np.percentile(lv, 5))
    return SpeechMeasures(voiced, steady, fall_db, pause_depth)


def check_sound(
    x16k: np.ndarray, speech_seconds: float, text: str | None = None, snr_db: float | None = None
) -> SpeechMeasures:
    """Refuse noise, music, heavy reverberation and a recording far longer than its text; the measures.
    ``snr_db`` (`Recording.snr_db`) lets a recording drowned in noise be told so."""
    m = measure(x16k)
    if snr_db is not None and snr_db < NOISE_SNR_DB and m.voiced < NOISY_VOICED:
        raise EnrollmentError(
            f"This recording is mostly noise: its loudest parts are only {max(snr_db, 0.0):.0f} dB "
            "above its quietest (clear speech stands 20 dB or more above the quiet between words), "
            f"and a voice's pitch is heard in {m.voiced:.0%} of it. A voice made from it would copy "
            "the hiss, fan, traffic or radio channel. Record yourself "
            "reading aloud in a quiet room, close to the microphone."
        )
    if m.voiced < MIN_VOICED:
        raise EnrollmentError(
            f"This does not sound like speech (only {m.voiced:.0%} of it has a voice's pitch): "
            "it may be noise, hiss or whispering. Record yourself reading aloud in a quiet room."
        )
    if m.steady > MAX_STEADY and m.voiced > 0.6:
        raise EnrollmentError(
            "This sounds like music or a held tone, not speech (the pitch stays on one note "
            f"{m.steady:.0%} of the time). Record your speaking voice with no music playing."
        )
    if m.pause_depth_db > MIN_PAUSE_DEPTH_DB and m.fall_db < MIN_FALL_DB:
        raise EnrollmentError(
            "The room echoes too much: the ends of words ring on "
            f"(the sound falls only {m.fall_db:.0f} dB in 0.1 s). Record in a smaller or softer "
            "room (curtains, a sofa), closer to the microphone."
        )
    if text and text.strip():
        expected = len(" ".join(text.split())) / CHARS_PER_SECOND
        if speech_seconds > expected * LENGTH_RATIO + 3:
            raise EnrollmentError(
                f"The recording is much longer than its text: {speech_seconds:.0f} s of speech for "
                f"about {expected:.0f} s of reading. Record only the passage, or give all the words said."
            )
    return m


def speaker_gap(x16k: np.ndarray, encoder: Encoder) -> tuple[float, int, int]:
    """(the largest gap between two groups of the recording's segments, the smaller group's
    segments, the larger one's): the gap is the mean cosine within the less consistent group
    minus the mean cosine across.

    Average-linkage grouping of SEGMENT_SECONDS segments; every pair of groups of at least the
    least size (3 segments from GROUPS_OF_THREE on, else 2) met while merging is measured, so a recording of
    three people in turn is measured at the stage where they are three groups."""
    seg = int(SEGMENT_SECONDS * RATE)
    n = len(x16k) // seg
    least = 3 if n >= GROUPS_OF_THREE else 2
    if n < 2 * least:
        return 0.0, 0, 0
    e = np.stack([encoder.embed(x16k[i * seg : (i + 1) * seg]) for i in range(n)]).astype(np.float64)
    e /= np.linalg.norm(e, axis=1, keepdims=True) + 1e-12
    sims = e @ e.T
    groups = [[i] for i in range(n)]

    def within(g: list[int]) -> float:
        block = sims[np.ix_(g, g)]
        return float((block.sum() - np.trace(block)) / (len(g) * (len(g) - 1)))

    measured: list[tuple[float, int, int]] = []
    while len(groups) > 1:
        big = [g for g in groups if len(g) >= least]
        for a in range(len(big)):
            for b in range(a + 1, len(big)):
                gap = min(within(big[a]), within(big[b])) - float(sims[np.ix_(big[a], big[b])].mean())
                lo, hi = sorted((len(big[a]), len(big[b])))
                measured.append((gap, lo, hi))
        pairs = [
            (float(sims[np.ix_(groups[a], groups[b])].mean()), a, b)
            for a in range(len(groups))
            for b in range(a + 1, len(groups))
        ]
        _, a, b = max(pairs)
        groups[a] = groups[a] + groups.pop(b)
    if not measured:
        return 0.0, 0, 0
    best = max(m[0] for m in measured)
    # The sizes told: of the largest groups about as far apart (a voice's 2 s pieces split in
    # two measure nearly the same gap to the other voice as all of them).
    _, small, large = max((m for m in measured if m[0] >= best - 0.25 * abs(best)), key=lambda m: m[1] + m[2])
    return best, small, large


def check_one_speaker(x16k: np.ndarray, encoder: Encoder) -> float:
    """Refuse a recording of two or more people; the gap measured (`speaker_gap`)."""
    gap, small, large = speaker_gap(x16k, encoder)
    long_enough = len(x16k) // int(SEGMENT_SECONDS * RATE) >= GROUPS_OF_THREE
    if small and gap >= (TWO_SPEAKER_GAP if long_enough else TWO_SPEAKER_GAP_SHORT):
        raise EnrollmentError(
            "This sounds like more than one person speaking (one voice in about "
            f"{large * SEGMENT_SECONDS:.0f} s of the speech, another in about {small * SEGMENT_SECONDS:.0f} s). "
            "Record only your own voice, with no one else talking and no radio or TV in the background."
        )
    return gap
