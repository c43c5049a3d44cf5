"""The enrolment renderer keeps the model's output for a voice that says the same words again."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from tray_reader.speech.types import NEUTRAL, SAMPLE_RATE, Prosody
from tray_reader.voices import render
from tray_reader.voices.render import VoiceRenderer


class _Frontend:
    """One chunk per sentence; a phoneme per character."""

    def chunks(self, text: str) -> list[SimpleNamespace]:
        return [SimpleNamespace(phonemes=s.strip()) for s in text.split(".") if s.strip()]

    def ids(self, phonemes: str) -> list[int]:
        return [ord(c) for c in phonemes]


class _Engine:
    """A model whose audio depends on everything it is given, and which counts its runs."""

    def __init__(self, seconds_per_id: float = 0.05) -> None:
        self.runs: list[tuple[int, ...]] = []
        self.per_id = int(seconds_per_id * SAMPLE_RATE)

    def synthesize(self, ids, pack, speed, prosody=None) -> np.ndarray:
        self.runs.append(tuple(ids))
        prosody = prosody or NEUTRAL
        t = np.arange(len(ids) * self.per_id, dtype=np.float32)
        level = float(pack.mean()) + sum(ids) * 1e-4 + speed + prosody.pitch + prosody.spread
        return (0.1 * np.sin(t * level * 1e-3)).astype(np.float32)


def _pack(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((4, 1, 256)).astype(np.float32)


def test_a_voice_saying_the_same_words_again_is_not_rendered_again():
    engine = _Engine()
    r = VoiceRenderer(engine, _Frontend())  # type: ignore[arg-type]
    first = r.render(_pack(0), 1.0, ["Seven birds. A dog barked."])
    assert len(engine.runs) == 2 and r.renders == 2
    again = r.render(_pack(0), 1.0, ["Seven birds. A dog barked."])
    assert np.array_equal(first, again) and len(engine.runs) == 2 and r.renders == 2
    # One sentence said before, one new: only the new one runs the model.
    r.render(_pack(0), 1.0, ["A dog barked. The bus left."])
    assert engine.runs[2:] == [tuple(ord(c) for c in "The bus left")]
    # A caller changing its copy does not change what is kept.
    again[:] = 0
    assert np.array_equal(r.render(_pack(0), 1.0, ["Seven birds. A dog barked."]), first)


def test_another_pack_speed_or_pitch_is_rendered():
    engine = _Engine()
    r = VoiceRenderer(engine, _Frontend())  # type: ignore[arg-type]
    base = r.render(_pack(0), 1.0, ["Seven birds"])
    others = [
        r.render(_pack(1), 1.0, ["Seven birds"]),
        r.render(_pack(0), 0.9, ["Seven birds"]),
        r.render(_pack(0), 1.0, ["Seven birds"], Prosody(pitch=1.1)),
    ]
    assert len(engine.runs) == 4
    assert all(not np.array_equal(base, o) for o in others)
    # The same pack's values in another array are the same voice.
    r.render(_pack(0).copy(), 1.0, ["Seven birds"], NEUTRAL)
    assert len(engine.runs) == 4


class _Map:
    """An envelope map that halves the level and counts the chunks it filters."""

    def __init__(self) -> None:
        self.applied = 0

    def apply(self, audio: np.ndarray, rate: int) -> np.ndarray:
        assert rate == SAMPLE_RATE
        self.applied += 1
        return audio * np.float32(0.5)


def test_a_mapped_voice_is_its_kept_render_through_the_map():
    engine = _Engine()
    r = VoiceRenderer(engine, _Frontend())  # type: ignore[arg-type]
    plain = r.render(_pack(0), 1.0, ["Seven birds. A dog barked."])
    envelope = _Map()
    mapped = r.render(_pack(0), 1.0, ["Seven birds. A dog barked."], envelope=envelope)  # type: ignore[arg-type]
    assert len(engine.runs) == 2 and envelope.applied == 2
    gap = SAMPLE_RATE // 5
    speech = np.abs(plain) > 0
    assert np.allclose(mapped[speech], plain[speech] * 0.5) and np.all(mapped[-gap:] == 0)
    # The map filtered a copy: the plain voice's next render is unchanged.
    assert np.array_equal(r.render(_pack(0), 1.0, ["Seven birds. A dog barked."]), plain)


def test_what_is_kept_is_bounded(monkeypatch):
    monkeypatch.setattr(render, "KEPT_SECONDS", 2.0)
    engine = _Engine(seconds_per_id=0.1)  # 10 ids: 1 s each
    r = VoiceRenderer(engine, _Frontend())  # type: ignore[arg-type]
    for k in range(3):
        r.render(_pack(k), 1.0, ["abcdefghij"])
    assert len(engine.runs) == 3
    r.render(_pack(2), 1.0, ["abcdefghij"])  # kept
    r.render(_pack(1), 1.0, ["abcdefghij"])  # kept
    assert len(engine.runs) == 3
    r.render(_pack(0), 1.0, ["abcdefghij"])  # the oldest: dropped when the third came
    assert len(engine.runs) == 4
