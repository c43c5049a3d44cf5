"""The one-speaker check: a recording of two or more people is refused, one person's is not.

Unit tests with an encoder whose embeddings are set per segment, then real recordings from
Debian packages (asterisk-core-sounds-en-wav, codec2-examples) through the real encoder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tray_reader.errors import EnrollmentError
from tray_reader.voices import checks
from tray_reader.voices.ge2e import JudgeEncoder
from tray_reader.voices.preprocess import load_audio, prepare

SEG = int(checks.SEGMENT_SECONDS * checks.RATE)


class SpeakerCodes:
    """Embeds a segment as its speaker's direction plus a little of its own: a segment's
    samples all hold the speaker's number; speakers 0, 1, 2 lie at a set cosine."""

    def __init__(self, cosine: float, jitter: float = 0.25) -> None:
        base = np.eye(8)
        self.speakers = [base[0], cosine * base[0] + np.sqrt(1 - cosine**2) * base[1]]
        self.speakers.append(cosine * base[0] + np.sqrt(1 - cosine**2) * base[2])
        self.jitter = jitter
        self.rng = np.random.default_rng(0)

    def embed(self, wav16k: np.ndarray) -> np.ndarray:
        v = self.speakers[int(wav16k[0])] + self.jitter * self.rng.normal(size=8) / np.sqrt(8)
        return v / np.linalg.norm(v)


def recording(*speakers: int) -> np.ndarray:
    return np.concatenate([np.full(SEG, s, np.float32) for s in speakers])


def test_one_speaker_passes_and_a_second_one_is_found_however_the_turns_fall():
    codes = SpeakerCodes(cosine=0.5)
    assert checks.check_one_speaker(recording(*[0] * 15), codes) < checks.TWO_SPEAKER_GAP
    for turns in ([0] * 9 + [1] * 6, [0, 0, 1, 1] * 3 + [0, 0, 1], [0] * 5 + [1] * 5 + [2] * 5):
        with pytest.raises(EnrollmentError, match="more than one person"):
            checks.check_one_speaker(recording(*turns), codes)


def test_a_short_interruption_and_a_similar_voice_are_measured_but_let_through():
    # Another voice for 4 s of 30 (two segments: less than a group) is not refused, nor is a
    # second speaker as alike as one speaker's own segments are.
    assert (
        checks.check_one_speaker(recording(*[0] * 13 + [1] * 2), SpeakerCodes(cosine=0.5))
        < checks.TWO_SPEAKER_GAP
    )
    assert (
        checks.check_one_speaker(recording(*[0] * 8 + [1] * 7), SpeakerCodes(cosine=0.97))
        < checks.TWO_SPEAKER_GAP
    )


def test_short_recordings_use_groups_of_two_and_the_stricter_limit():
    # Three segments each: groups of two are measured too, against the short recordings' limit.
    codes = SpeakerCodes(cosine=0.5)
    gap, small, large = checks.speaker_gap(recording(0, 0, 0, 1, 1, 1), codes)
    assert (small, large) == (3, 3) and gap > checks.TWO_SPEAKER_GAP_SHORT
    gap, small, large = checks.speaker_gap(recording(0, 0, 0, 0, 1, 1), codes)
    assert (small, large) == (2, 4) and gap > checks.TWO_SPEAKER_GAP_SHORT
    with pytest.raises(EnrollmentError, match=r"about 8 s of the speech, another in about 4 s"):
        checks.check_one_speaker(recording(0, 0, 0, 0, 1, 1), codes)
    too_short = recording(0, 0, 1)
    assert checks.speaker_gap(too_short, SpeakerCodes(cosine=0.5)) == (0.0, 0, 0)


ALLISON = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
CODEC2 = Path("/usr/share/codec2/wav")


@pytest.fixture(scope="module")
def judge():
    for path, package in ((ALLISON, "asterisk-core-sounds-en-wav"), (CODEC2 / "all.wav", "codec2-examples")):
        if not path.exists():
            pytest.fail(f"{package} is missing: run ./dev test (installs installer/debian-test-packages.txt)")
    return JudgeEncoder.load()


def speech(path: Path, start: float = 0.0, end: float | None = None) -> np.ndarray:
    x, rate = load_audio(path)
    return prepare(x[int(start * rate) : None if end is None else int(end * rate)], rate).speech16k


def allison(seconds: float) -> np.ndarray:
    parts = []
    for f in sorted(ALLISON.glob("*.wav")):
        x, rate = load_audio(f)
        parts += [x, np.zeros(rate // 4, np.float32)]
        if sum(len(p) for p in parts) / rate >= seconds:
            break
    return prepare(np.concatenate(parts), rate).speech16k


def test_a_real_speaker_reading_prompts_is_one_speaker(judge):
    x = allison(30.0)
    assert len(x) >= 25 * checks.RATE
    assert checks.check_one_speaker(x, judge) < checks.TWO_SPEAKER_GAP


def test_a_real_radio_speaker_is_one_speaker(judge):
    assert checks.check_one_speaker(speech(CODEC2 / "ve9qrp.wav", 60, 90), judge) < checks.TWO_SPEAKER_GAP


def test_several_real_speakers_in_turn_are_refused(judge):
    # all.wav is several of the package's recordings one after another (men and women).
    with pytest.raises(EnrollmentError, match="more than one person"):
        checks.check_one_speaker(speech(CODEC2 / "all.wav"), judge)


def test_two_real_men_on_the_radio_are_refused(judge):
    x = np.concatenate([speech(CODEC2 / "ve9qrp.wav", 0, 20), speech(CODEC2 / "vk5qi.wav")])
    with pytest.raises(EnrollmentError, match="more than one person"):
        checks.check_one_speaker(x, judge)


def test_a_woman_and_a_man_taking_turns_are_refused(judge):
    a, b = allison(16.0), speech(CODEC2 / "ve9qrp.wav", 0, 20)
    turn = 4 * checks.RATE
    x = np.concatenate([p[i * turn : (i + 1) * turn] for i in range(3) for p in (a, b)])
    with pytest.raises(EnrollmentError, match="more than one person"):
        checks.check_one_speaker(x, judge)
