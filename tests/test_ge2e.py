"""The guard's second speaker encoder: its weights read from the pinned package, and on real
renders it tells a voice saying other words from another voice."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tray_reader import model_files
from tray_reader.errors import ModelFileError
from tray_reader.voices import ge2e, guard
from tray_reader.voices.embedder import cosine


@pytest.fixture(scope="module")
def renderer(users_engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.voices.render import VoiceRenderer

    return VoiceRenderer(users_engine, TextFrontEnd(phonemizer))


def test_the_weights_are_read_from_the_checked_package_file():
    weights = ge2e.read_legacy_torch(model_files.judge_encoder_path())
    for k in range(3):
        assert weights[f"lstm.weight_ih_l{k}"].shape == (4 * 256, 40 if k == 0 else 256)
        assert weights[f"lstm.weight_hh_l{k}"].shape == (4 * 256, 256)
    assert weights["linear.weight"].shape == (256, 256)
    assert all(np.isfinite(w).all() for w in weights.values())


def test_a_voice_is_nearer_itself_saying_other_words_than_other_voices(renderer):
    judge = ge2e.JudgeEncoder.load()

    def embed(voice: str, text: str) -> np.ndarray:
        return judge.embed(renderer.render16k(model_files.stock_pack(voice), 1.0, [text]))

    for voice, others in (
        ("af_heart", ("af_bella", "bf_emma", "am_adam")),
        ("am_adam", ("am_michael", "bm_george")),
    ):
        a = embed(voice, guard.CHECK_TEXT)
        same = cosine(a, embed(voice, guard.JUDGE_TEXT))
        for other in others:
            assert same > cosine(a, embed(other, guard.JUDGE_TEXT)) + 0.03, (voice, other)


def test_partials_are_unit_vectors_one_per_1_3_seconds_and_the_level_does_not_matter(renderer):
    judge = ge2e.JudgeEncoder.load()
    audio = renderer.render16k(model_files.stock_pack("af_heart"), 1.0, [guard.CHECK_TEXT])
    windows = judge.window_embeddings(audio)
    seconds = len(audio) / 16_000
    assert abs(len(windows) - (seconds - 1.6) * 1.3) <= 2
    assert np.allclose(np.linalg.norm(windows, axis=1), 1.0, atol=1e-5)
    for db in (-20, 6):  # a quiet recording, and a loud one (the package leaves that as it is)
        assert cosine(judge.embed(audio * 10 ** (db / 20)), judge.embed(audio)) > 0.999


def test_a_weights_file_with_anything_but_tensors_is_refused(tmp_path):
    import os

    path = tmp_path / "evil.pt"
    with open(path, "wb") as f:
        for header in (0x1950A86A20F9469CFC6C, 1001, {}):
            pickle.dump(header, f)
        pickle.dump({"model_state": os.getcwd}, f)  # a function: not a tensor
    with pytest.raises(pickle.UnpicklingError, match="unexpected"):
        ge2e.read_legacy_torch(path)


def test_a_missing_package_names_the_install_command(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "resemblyzer" else real(name)
    )
    with pytest.raises(ModelFileError, match=r"pip install --no-deps resemblyzer==0\.1\.4"):
        model_files.judge_encoder_path()
