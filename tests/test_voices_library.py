"""The voice library on disk: names, save/list/pack, corrupt files, export/import, mix, default."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tray_reader import model_files
from tray_reader.errors import VoiceError
from tray_reader.speech.envelope import CEPS, EnvelopeMap
from tray_reader.speech.types import Prosody
from tray_reader.voices.library import VoiceInfo, VoiceLibrary


@pytest.fixture
def lib(tmp_path):
    return VoiceLibrary(tmp_path)


def _pack(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 0.1, model_files.PACK_SHAPE).astype(np.float32)


def _user(lib: VoiceLibrary) -> list[str]:
    return [v.name for v in lib.list() if v.kind != "stock"]


@pytest.mark.parametrize(
    "name", ["", "../evil", "a/b", "a\\b", ".hidden", "x" * 41, "with space", "nul\0", "-dash", "é"]
)
def test_bad_names_are_refused(lib, name):
    with pytest.raises(VoiceError):
        lib.save(VoiceInfo(name, "enrolled"), _pack())
    assert not list(lib.base.rglob("*.npy"))


def test_stock_names_cannot_be_taken(lib):
    with pytest.raises(VoiceError, match="stock voice"):
        lib.save(VoiceInfo("af_sarah", "enrolled"), _pack())


def test_save_list_pack_round_trip(lib):
    pack = _pack(1)
    lib.save(VoiceInfo("me", "enrolled", scores={"similarity": 0.8}, consent=True), pack)
    assert _user(lib) == ["me"]
    assert np.array_equal(lib.pack("me"), pack)
    info = lib.info("me")
    assert info.consent and info.scores["similarity"] == 0.8 and info.created
    assert lib.pack("af_sarah").shape == model_files.PACK_SHAPE
    with pytest.raises(VoiceError, match="already exists"):
        lib.save(VoiceInfo("me", "enrolled"), pack)


def test_unknown_voice_lists_the_choices(lib):
    lib.save(VoiceInfo("me", "enrolled"), _pack())
    with pytest.raises(VoiceError, match="Available: .*af_sarah.*me"):
        lib.pack("nobody")


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: (d / "bad.json").write_text("{not json"),
        lambda d: (d / "bad.json").write_text(json.dumps({"format": "something-else", "name": "bad"})),
        lambda d: (d / "bad.npy").write_bytes(b"\x93NUMPY garbage"),
        lambda d: (d / "bad.npy").unlink(),
        lambda d: np.save(d / "bad.npy", np.zeros((3, 3), np.float32)),
        lambda d: np.save(d / "bad.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True),
        lambda d: np.save(d / "bad.npy", np.ones(model_files.PACK_SHAPE, np.float32)),  # checksum
    ],
)
def test_a_corrupt_voice_is_reported_and_skipped(lib, damage):
    lib.save(VoiceInfo("good", "enrolled"), _pack(1))
    lib.save(VoiceInfo("bad", "enrolled"), _pack(2))
    damage(lib.dir)
    assert _user(lib) == ["good"]
    assert len(lib.problems) == 1 and "bad" in lib.problems[0]
    with pytest.raises(VoiceError):
        lib.pack("bad")


def test_foreign_files_in_the_folder_do_not_break_listing(lib):
    lib.save(VoiceInfo("good", "enrolled"), _pack(1))
    (lib.dir / "notes.txt").write_text("hello")
    (lib.dir / "..json").write_text("{}")
    assert _user(lib) == ["good"]


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({}, Prosody()),  # a voice made before pitch was matched
        ({"pitch": 1.2}, Prosody(1.2, 1.0)),
        ({"pitch": 0.9, "pitch_range": 0.7}, Prosody(0.9, 0.7)),
        ({"pitch": "high"}, Prosody()),
        ({"pitch": 50.0}, Prosody()),  # outside PITCH_LIMITS: a damaged file
    ],
)
def test_a_voice_reads_with_its_stored_pitch(lib, settings, expected):
    lib.save(VoiceInfo("me", "enrolled", settings=settings, consent=True), _pack())
    assert lib.info("me").prosody == expected
    assert VoiceInfo("af_heart", "stock").prosody == Prosody()


def _envelope() -> EnvelopeMap:
    return EnvelopeMap(tuple(range(4, 30)), np.linspace(-3, 1, 26), np.eye(CEPS - 1) * 1.2)


def test_a_voice_reads_through_its_stored_envelope_map_and_a_damaged_one_is_ignored(lib):
    lib.save(VoiceInfo("me", "enrolled", settings={"envelope": _envelope().to_json()}, consent=True), _pack())
    stored = lib.info("me").envelope
    assert stored is not None and stored.bands == _envelope().bands
    np.testing.assert_allclose(stored.matrix, _envelope().matrix, atol=1e-5)
    damaged = {"envelope": {**_envelope().to_json(), "matrix": [[1.0, 2.0]]}}
    lib.save(VoiceInfo("bad", "enrolled", settings=damaged, consent=True), _pack())
    assert lib.info("bad").envelope is None  # read as it would be without one
    assert lib.info("af_heart").envelope is None


def test_export_import_round_trip(lib, tmp_path):
    pack = _pack(3)
    settings = {"speed": 1.1, "pitch": 0.8, "pitch_range": 1.3, "envelope": _envelope().to_json()}
    lib.save(VoiceInfo("me", "enrolled", method="top-5 blend", settings=settings, consent=True), pack)
    out = tmp_path / "me.npz"
    lib.export("me", out)
    other = VoiceLibrary(tmp_path / "other")
    info = other.import_file(out)
    assert info.name == "me" and info.method == "top-5 blend" and info.speed == 1.1 and info.consent
    assert other.info("me").prosody == Prosody(0.8, 1.3)
    kept = other.info("me").envelope
    assert kept is not None and np.allclose(kept.mean, _envelope().mean, atol=1e-5)
    assert np.array_equal(other.pack("me"), pack)
    assert other.import_file(out, name="me2").name == "me2"


def test_export_to_a_folder_or_into_a_missing_one_is_refused(lib, tmp_path):
    with pytest.raises(VoiceError, match="is a folder; give a file name in it, e.g. .*af_sarah.npz"):
        lib.export("af_sarah", tmp_path)
    with pytest.raises(VoiceError, match="is not a directory; create it first"):
        lib.export("af_sarah", tmp_path / "typo" / "sarah.npz")
    assert not (tmp_path / "typo").exists()  # a mistyped folder is not made


def test_import_refuses_foreign_and_pickled_files(lib, tmp_path):
    (tmp_path / "text.npz").write_text("not a zip")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, pack=_pack(), meta=np.array([{"evil": 1}], dtype=object))
    for path in (tmp_path / "text.npz", pickled, tmp_path / "missing.npz"):
        with pytest.raises(VoiceError):
            lib.import_file(path)
    assert _user(lib) == []


def test_mix_is_the_weighted_blend(lib):
    info = lib.mix("blend", [("af_sarah", 3.0), ("bf_emma", 1.0)])
    expected = 0.75 * model_files.stock_pack("af_sarah") + 0.25 * model_files.stock_pack("bf_emma")
    assert np.allclose(lib.pack("blend"), expected, atol=1e-6)
    assert info.kind == "mixed"
    lib.mix("blend2", [("blend", 0.5), ("am_adam", 0.5)])  # user voices mix too
    assert np.allclose(
        lib.pack("blend2"), 0.5 * expected + 0.5 * model_files.stock_pack("am_adam"), atol=1e-6
    )


def test_mix_weights_too_large_to_add_up_still_blend(lib):
    info = lib.mix("huge", [("af_sarah", 1e308), ("bf_emma", 1e308)])
    expected = 0.5 * model_files.stock_pack("af_sarah") + 0.5 * model_files.stock_pack("bf_emma")
    assert np.allclose(lib.pack("huge"), expected, atol=1e-6)
    assert info.method == "mix af_sarah:0.5 bf_emma:0.5"


@pytest.mark.parametrize(
    "parts", [[], [("af_sarah", 0.0)], [("af_sarah", -1.0)], [("af_sarah", float("nan"))]]
)
def test_mix_weights_are_validated(lib, parts):
    with pytest.raises(VoiceError):
        lib.mix("m", parts)


def test_use_rename_remove_keep_the_default_consistent(lib):
    assert lib.default_voice() is None
    lib.mix("m", [("af_sarah", 1.0)])
    lib.use("m")
    assert lib.default_voice() == "m"
    lib.rename("m", "n")
    assert lib.default_voice() == "n" and _user(lib) == ["n"]
    lib.remove("n")
    assert lib.default_voice() is None and _user(lib) == []
    lib.use("bf_emma")
    assert lib.default_voice() == "bf_emma"
    with pytest.raises(VoiceError):
        lib.use("nobody")
    with pytest.raises(VoiceError):
        lib.remove("af_sarah")


def test_speak_resolves_user_voices(tmp_path, monkeypatch):
    from tray_reader import speak

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    VoiceLibrary().mix("mine", [("af_sarah", 1.0)])
    assert np.array_equal(speak.voice_pack("mine"), model_files.stock_pack("af_sarah"))
    with pytest.raises(VoiceError):
        speak.voice_pack("../../etc/passwd")


def test_say_and_export_read_an_enrolled_voice_at_its_pitch_and_speed(tmp_path, monkeypatch):
    from tray_reader import speak
    from tray_reader.speech.engine import KokoroEngine

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    settings = {"speed": 0.9, "pitch": 1.15, "pitch_range": 0.8, "envelope": _envelope().to_json()}
    VoiceLibrary().save(VoiceInfo("me", "enrolled", settings=settings, consent=True), _pack(4))
    engine = KokoroEngine(session=None, threads=1)  # no sessions: only its settings are read
    monkeypatch.setattr(speak.KokoroEngine, "load", classmethod(lambda cls, threads, fast=True: engine))
    monkeypatch.setattr(speak, "EnglishPhonemizer", lambda: lambda text: text)
    synth, pack, speed = speak.one_shot_synthesizer("me", None, None)
    assert synth.engine is engine and engine.prosody == Prosody(1.15, 0.8) and speed == 0.9
    assert engine.envelope is not None and engine.envelope.bands == _envelope().bands
    assert np.array_equal(pack, _pack(4))
    speak.one_shot_synthesizer("af_heart", None, None)
    assert engine.prosody == Prosody()  # a stock voice reads at the model's own pitch
    assert engine.envelope is None  # ... and through no map
