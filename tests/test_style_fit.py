"""The style fit: a channel-robust loss, and SPSA that moves towards a voice it can reach."""

from __future__ import annotations

import time

import numpy as np
import pytest
import soxr

from tray_reader import model_files
from tray_reader.voices import style_fit
from tray_reader.voices.library import VoiceInfo, VoiceLibrary
from tray_reader.voices.style_fit import FitSettings, StyleFit

TEXT = "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow."


@pytest.fixture(scope="module")
def split_engine(users_engine):
    engine = users_engine
    if engine.decoder is None:
        pytest.skip("the model could not be split")
    return engine


@pytest.fixture(scope="module")
def ids(phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    front = TextFrontEnd(phonemizer)
    return [i for chunk in front.chunks(TEXT) for i in front.ids(chunk.phonemes)]


@pytest.mark.parametrize("other_languages", [False, True])
def test_the_subspace_spans_real_differences_between_stock_voices(other_languages):
    directions, spread = style_fit.subspace(6, other_languages)
    assert directions.shape == (6, 128) and np.all(np.diff(spread) <= 0) and spread[0] > 0
    unit = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    assert np.allclose(unit @ unit.T, np.eye(6), atol=1e-4)


def test_the_fit_s_default_subspace_reaches_the_other_languages_voices():
    """The other languages' timbres (their mean over lengths) lie further inside the 54 packs'
    16 directions than inside the English packs' (docs/benchmarks.md: residuals 0.9-2.1)."""
    dims = FitSettings().dims
    assert FitSettings().other_languages

    def residual(directions: np.ndarray) -> float:
        q, _ = np.linalg.qr(directions.T.astype(np.float64))
        rows = np.stack(
            [model_files.other_pack(n)[:, 0, :128].mean(axis=0) for n in model_files.other_voices()]
        )
        centred = rows - rows.mean(axis=0)
        return float(np.linalg.norm(centred - centred @ q @ q.T))

    english, _ = style_fit.subspace(dims, False)
    joined, _ = style_fit.subspace(dims, True)
    assert residual(joined) < 0.8 * residual(english)


@pytest.fixture(scope="module")
def heart_and_adam(split_engine, ids):
    def speak(name: str) -> np.ndarray:
        audio = split_engine.synthesize(ids, model_files.stock_pack(name), 1.0)
        return soxr.resample(audio, 24_000, 16_000).astype(np.float32)

    return speak("af_heart"), speak("am_adam")


def _equalised(audio: np.ndarray, gain) -> np.ndarray:
    """`audio` through a fixed filter of gain `gain(frequency)`."""
    spec = np.fft.rfft(audio.astype(np.float64))
    f = np.fft.rfftfreq(len(audio), 1 / 16_000)
    return np.fft.irfft(spec * gain(f), len(audio)).astype(np.float32)


@pytest.mark.parametrize("channel_order", [0, 3])
def test_the_loss_ignores_a_fixed_channel_but_not_another_voice(heart_and_adam, channel_order):
    heart, other = heart_and_adam
    tilted = _equalised(heart, lambda f: (1 + 2 * (f / 8000)) * 0.3)  # a microphone's tilt and a gain
    bands = np.ones(40, bool)
    a, b, c = (style_fit.frames(x, bands, channel_order) for x in (heart, tilted, other))
    same = style_fit.nearest_frame_distance(a, b)
    different = style_fit.nearest_frame_distance(a, c)
    assert same < 0.5 * different


def test_a_smooth_channel_keeps_where_the_voice_s_resonances_lie(heart_and_adam):
    """Each band's mean removed, a narrow lift of the spectrum (where a voice's resonances
    lie, which a microphone's smooth colour does not move) is mostly removed with it; the
    mean's three smoothest components removed, the tilt still cancels and the lift counts."""
    heart, _ = heart_and_adam
    tilted = _equalised(heart, lambda f: (1 + 2 * (f / 8000)) * 0.3)
    lifted = _equalised(heart, lambda f: np.where((f > 1000) & (f < 1600), 2.8, 1.0))
    bands = np.ones(40, bool)

    def distance(x: np.ndarray, order: int) -> float:
        return style_fit.nearest_frame_distance(
            style_fit.frames(heart, bands, order), style_fit.frames(x, bands, order)
        )

    assert distance(lifted, 3) > 1.5 * distance(lifted, 0)
    assert distance(lifted, 3) > 4 * distance(tilted, 3)


def test_spsa_moves_towards_a_voice_inside_the_subspace(split_engine, ids, tmp_path):
    start = model_files.stock_pack("af_heart")
    directions, _ = style_fit.subspace(2, FitSettings().other_languages)
    goal = np.array([1.2, -1.0])
    target = start.copy()
    target[:, 0, :128] += (goal.astype(np.float32) @ directions)[None, :]
    recording = soxr.resample(split_engine.synthesize(ids, target, 1.0), 24_000, 16_000).astype(np.float32)
    # Probes over the whole sentence (no random crops): the test checks where the steps go.
    settings = FitSettings(
        dims=2, max_norm=2.0, perturbation=0.3, first_step=0.7, check_every=2, max_steps=6, crop_frames=400
    )
    fit = StyleFit(split_engine, ids, start, recording, settings)
    result = fit.run(time.monotonic() + 600)
    assert result.steps == 6 and result.evaluations == 1 + 2 * 6 + 3
    assert result.loss < result.start_loss
    assert float(np.dot(result.z, goal)) > 0  # moved towards the goal, not away
    assert np.linalg.norm(result.z) <= settings.max_norm + 1e-6
    assert result.pack.shape == start.shape and np.array_equal(result.pack[..., 128:], start[..., 128:])

    # A fitted voice survives export and import bit for bit, with its info.
    lib = VoiceLibrary(tmp_path / "a")
    info = VoiceInfo(
        name="fitted",
        kind="enrolled",
        method="fitted style from stock af_heart",
        scores={"judged": {"kept": "fitted style from stock af_heart", "ahs": 0.5, "stock_ahs": 0.6}},
        settings={"speed": 1.0, "fit_z": [round(float(x), 4) for x in result.z]},
        consent=True,
    )
    saved = lib.save(info, result.pack)
    lib.export("fitted", tmp_path / "fitted.npz")
    other = VoiceLibrary(tmp_path / "b")
    back = other.import_file(tmp_path / "fitted.npz")
    assert np.array_equal(other.pack("fitted"), result.pack)
    assert (
        back.scores == saved.scores
        and back.settings == saved.settings
        and back.pack_sha256 == saved.pack_sha256
    )


@pytest.mark.parametrize("came_closer", [False, True])
def test_a_fit_that_never_came_closer_is_not_a_voice_of_its_own(monkeypatch, came_closer):
    """A fit whose held-out loss never fell keeps its start's pack: enrolment then has no
    fitted voice to judge, rather than the start's voice again under another name."""
    import threading
    from types import SimpleNamespace

    from tray_reader.voices import enroll

    start = model_files.stock_pack("af_heart")
    made: list[np.ndarray] = []

    class _Fit:
        def __init__(self, _engine, _ids, pack, _recording, settings) -> None:
            self.pack, self.settings = pack, settings

        def run(self, _deadline, _cancel, report):
            report(3, 1.0)
            z = np.full(2, 0.5 if came_closer else 0.0)
            pack = self.pack.copy()
            pack[:, 0, 0] += np.float32(z[0])
            made.append(pack)
            return style_fit.FitResult(pack, z, 1.0, 0.9 if came_closer else 1.0, 7, 20, 1.0)

    monkeypatch.setattr(enroll, "StyleFit", _Fit)
    renderer = SimpleNamespace(ids=lambda _text: [[5, 6, 7]], engine=None)
    settings = enroll.EnrollSettings(fit_steps=120)
    fitted, steps = enroll._fit_style(
        renderer,  # type: ignore[arg-type]
        enroll.Candidate("stock af_heart", {"af_heart": 1.0}, {"af_heart": 1.0}),
        ["x"],
        np.zeros(16_000, np.float32),
        settings,
        threading.Event(),
        lambda _f, _m: None,
        enroll._Pace(settings),
    )
    assert steps == 7 and np.array_equal(made[0][..., 1:], start[..., 1:])
    if came_closer:
        assert fitted is not None and fitted.pack is made[0]
        assert fitted.label == "fitted style from stock af_heart"
    else:
        assert fitted is None
