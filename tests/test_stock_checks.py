"""The stock voices' word errors shipped for the guard's intelligibility check: current, complete,
what this machine measures, and used by enrolment without rendering."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

from tray_reader import model_files
from tray_reader.errors import ModelFileError
from tray_reader.speech.types import DecoderKind
from tray_reader.text.frontend import TextFrontEnd
from tray_reader.voices import guard, intelligibility, stock_checks
from tray_reader.voices.enroll import Candidate, _check_key, build_pack, check_word_errors, stock_check_kept
from tray_reader.voices.render import VoiceRenderer


@pytest.fixture(autouse=True)
def _fresh_table():
    stock_checks.samples.cache_clear()
    yield
    stock_checks.samples.cache_clear()


def _means(kind: str, part: str = "check") -> dict[str, float] | None:
    """The table's value of each voice for a decoder kind (None: no column)."""
    voices = stock_checks.samples(part).get(kind)
    if voices is None:
        return None
    return {v: s for v in voices if (s := stock_checks.shipped(DecoderKind(kind), v, part)) is not None}


@pytest.mark.parametrize("part", stock_checks.PARTS)
def test_the_table_is_current_and_covers_every_stock_voice_for_each_decoder_measured(part):
    """Measured with today's texts, recogniser and model (a change to any of them without
    `python -m tray_reader.voices.stock_checks` fails here), for the fused decoder and the
    shipped one, every stock voice, on the check's texts and on the second text."""
    assert intelligibility.available()
    table = {kind: _means(kind, part) for kind in stock_checks.samples(part)}
    assert set(table) == {DecoderKind.FUSED.value, DecoderKind.SHIPPED.value}
    names = {v.name for v in model_files.stock_voices()}
    for errors in table.values():
        assert set(errors) == names
        assert all(0.0 <= e < 0.6 for e in errors.values())
    # Each the mean of SAMPLES renders, the first exactly as enrolment renders the voice.
    for kind, voices in stock_checks.samples(part).items():
        assert all(len(s) == stock_checks.SAMPLES for s in voices.values())
        assert all(table[kind][v] == pytest.approx(np.mean(s)) for v, s in voices.items())
    # The decoders differ by a few words in 82 on most voices (so each has its own), not by
    # how well the voices are followed.
    fused, shipped = table[DecoderKind.FUSED.value], table[DecoderKind.SHIPPED.value]
    assert np.mean([abs(fused[n] - shipped[n]) for n in names]) <= 0.05
    assert stock_checks.shipped(DecoderKind.WHOLE, "af_heart", part) is None


@pytest.mark.parametrize("which", ["users_engine", "engine"])
def test_a_stock_voice_measured_here_agrees_with_the_table(which, request, phonemizer):
    """The voice hardest to follow in the table (where a word more or less shows most) says
    the check's texts on this machine, read by the fast decoder as users have it and by the
    shipped one: the recogniser's word errors are the table's mean, within what a render's
    smallest numeric change moves them (a pack changed by one part in 10^5 moved them by up
    to 0.1, docs/benchmarks.md: another processor's rounding may do as much)."""
    engine = request.getfixturevalue(which)
    # The suite builds the fused decoder (test_engine_fast.py), the one users have.
    errors = _means(engine.decoder_kind.value)
    assert errors is not None, f"no shipped word errors for the {engine.decoder_kind.value} decoder"
    voice = max(errors, key=lambda n: errors[n])
    measured = stock_checks.measure(VoiceRenderer(engine, TextFrontEnd(phonemizer)), voice)
    assert measured is not None
    assert abs(measured - errors[voice]) <= 0.1, (voice, measured, errors[voice])


def test_enrolment_takes_a_stock_voices_word_errors_from_the_table_without_rendering(
    engine, phonemizer, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # nothing measured on this machine yet
    kind = engine.decoder_kind
    errors = _means(kind.value)
    assert errors is not None
    r = VoiceRenderer(engine, TextFrontEnd(phonemizer))
    stock = Candidate("stock am_adam", {"am_adam": 1.0}, {"am_adam": 1.0})
    judge = r.render16k(build_pack(stock), 1.0, [guard.JUDGE_TEXT])
    assert stock_check_kept("am_adam", kind)
    before = r.renders
    assert check_word_errors(r, stock, judge, "am_adam") == errors["am_adam"]
    assert r.renders == before
    kept = tmp_path / "tray-reader" / "enrol-stock-checks.json"
    assert not kept.exists()
    # One render measured here before (by an older version) gives way to the table's mean.
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({_check_key(judge): {"errors": 0.99, "voice": "am_adam"}}))
    assert check_word_errors(r, stock, judge, "am_adam") == errors["am_adam"]


def test_a_missing_or_damaged_table_only_means_measuring(monkeypatch, caplog, tmp_path):
    def damaged(rel: str, sha: str) -> bytes:
        raise ModelFileError(f"The model file {rel} is corrupt (SHA-256 mismatch). Reinstall tray-reader.")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(model_files, "_checked_data_file", damaged)
    with caplog.at_level(logging.WARNING):
        assert stock_checks.shipped(DecoderKind.FUSED, "af_heart") is None
    assert "corrupt" in caplog.text and "enrolment measures them" in caplog.text
    assert not stock_check_kept("af_heart", DecoderKind.FUSED)
