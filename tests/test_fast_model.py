"""The derived fast model: the dequantisation is faithful, the right nodes are chosen, and
the cache only ever hands back an intact model that passed its quality gate.

Building the derived model for real (calibration + quality gate) takes 2-3 minutes on 2 busy
cores, so it is not run here: bench/bench_fast_model.py builds it and measures it. These
tests run the real dequantisation on the real model and the loader's checks on artefacts
written by the same `store` the build uses.
"""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

from tray_reader import model_files
from tray_reader.files import sha256
from tray_reader.model import build, cache, calibration, quality, recipe


@pytest.fixture(scope="module")
def base() -> bytes:
    return model_files.kokoro_model_bytes()


@pytest.fixture(scope="module")
def dequantized(base) -> onnx.ModelProto:
    return recipe.dequantize(onnx.load_from_string(base))


def _ops(model: onnx.ModelProto, prefix: str, op: str) -> int:
    return sum(n.op_type == op and n.name.startswith(prefix) for n in model.graph.node)


def test_dequantize_makes_only_the_decoder_float(base, dequantized):
    shipped = onnx.load_from_string(base)
    for op in ("ConvInteger", "MatMulInteger"):
        assert _ops(dequantized, "/decoder/", op) == 0
        assert _ops(dequantized, "/encoder/", op) == _ops(shipped, "/encoder/", op) > 0
    assert _ops(dequantized, "/decoder/", "Conv") == _ops(shipped, "/decoder/", "ConvInteger") + _ops(
        shipped, "/decoder/", "Conv"
    )
    assert _ops(dequantized, "", "DynamicQuantizeLinear") < _ops(shipped, "", "DynamicQuantizeLinear")
    onnx.checker.check_model(dequantized)


def test_generator_scope_leaves_the_rest_of_the_decoder_as_shipped(base):
    shipped = onnx.load_from_string(base)
    model = recipe.dequantize(shipped, scope=recipe.GENERATOR)
    assert _ops(model, recipe.GENERATOR, "ConvInteger") == 0
    assert _ops(model, recipe.GENERATOR, "Conv") == 51
    for op in ("ConvInteger", "MatMulInteger"):
        assert _ops(model, "", op) - _ops(model, recipe.GENERATOR, op) == _ops(shipped, "", op) - _ops(
            shipped, recipe.GENERATOR, op
        )


def test_generator_convs_leave_conv_post_in_float(dequantized):
    nodes = recipe.generator_convs(dequantized)
    assert len(nodes) == 50
    assert all(n.startswith(recipe.GENERATOR) for n in nodes)
    assert not [n for n in nodes if "conv_post" in n]


def test_dequantized_model_sounds_like_the_shipped_one(base, dequantized, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    ids = TextFrontEnd(phonemizer).ids(phonemizer("Please open the window and turn on the light."))
    feeds = calibration.model_feeds(ids, model_files.stock_pack("af_heart"))
    shipped = quality.session_runner(base)(feeds)
    reference = quality.session_runner(dequantized.SerializeToString())(feeds)
    # The encoder is untouched, so durations (and the length) are identical; what differs
    # is the shipped model's own quantisation error, measured at ~1 dB.
    assert reference.size == shipped.size
    assert quality.log_mel_distance(reference, shipped) < 2.0


def test_split_still_finds_the_boundary_in_the_dequantized_model(dequantized):
    from tray_reader.model.split import split

    parts = split(dequantized.SerializeToString())
    decoder = onnx.load_from_string(parts.decoder)
    assert _ops(decoder, recipe.GENERATOR, "Conv") == 51


def test_log_mel_distance_grows_with_the_difference_and_ignores_silence():
    rng = np.random.default_rng(1)
    t = np.arange(24_000) / 24_000
    a = (np.sin(2 * np.pi * 220 * t) * np.hanning(t.size)).astype(np.float32)
    noise = rng.standard_normal(a.size).astype(np.float32)
    assert quality.log_mel_distance(a, a) == 0.0
    small, large = (
        quality.log_mel_distance(a, a + 0.001 * noise),
        quality.log_mel_distance(a, a + 0.05 * noise),
    )
    assert 0.0 < small < large
    assert quality.log_mel_distance(a, np.zeros_like(a)) > 20.0
    # Frames far below the reference's loudest are not counted: noise there costs nothing.
    quiet = np.concatenate([a, np.zeros(24_000, np.float32)])
    assert quality.log_mel_distance(quiet, np.concatenate([a, 1e-4 * noise])) < small + 1e-6


def _report(ref_db: list[float], shipped_db: list[float]) -> quality.QualityReport:
    return quality.QualityReport(vs_reference_db=ref_db, vs_shipped_db=shipped_db).judge()


@pytest.mark.parametrize(
    ("ref_db", "shipped_db", "passed"),
    [
        ([2.9, 2.8, 3.0, 2.7], [2.8, 2.7, 2.9, 2.6], True),  # what the recipe measures
        ([5.0, 5.2, 4.9, 5.1], [2.8, 2.7, 2.9, 2.6], False),  # far from the float model
        ([2.9, 2.8, 3.0, 2.7], [5.0, 5.2, 4.9, 5.1], False),  # far from the shipped model
        ([2.9, 2.8, 3.0, 7.0], [2.8, 2.7, 2.9, 2.6], False),  # one broken render
        ([2.9, float("nan"), 3.0, 2.7], [2.8, 2.7, 2.9, 2.6], False),  # silent / NaN audio
    ],
)
def test_quality_gate(ref_db, shipped_db, passed):
    report = _report(ref_db, shipped_db)
    assert report.passed is passed
    assert report.reason


BASE = sha256(b"base model")
OTHER = sha256(b"another base")


def _derived_bytes(base_sha256: str, cache_dir) -> bytes | None:
    """The cached fast decoder the loader would use (checked in full), read; None if none."""
    found = cache.derived_decoder_file(base_sha256, cache_dir, full=True)
    return found[0].read_bytes() if found is not None else None


def _derived_fused(base_sha256: str, cache_dir):
    """The cached fused decoder (read, checked in full) and its operator library; or None."""
    found = cache.derived_fused_file(base_sha256, cache_dir, full=True)
    return (found[0].read_bytes(), found[2]) if found is not None else None


GOOD = quality.QualityReport(
    vs_reference_db=[2.9], vs_shipped_db=[2.8], shipped_vs_reference_db=[1.0]
).judge()


def test_loader_returns_a_stored_model_that_passed(tmp_path):
    cache.store(BASE, b"derived model", GOOD, tmp_path)
    assert _derived_bytes(BASE, tmp_path) == b"derived model"


def test_loader_finds_nothing_in_an_empty_cache(tmp_path):
    assert _derived_bytes(BASE, tmp_path) is None


def test_loader_ignores_a_model_built_from_another_base(tmp_path):
    cache.store(BASE, b"derived model", GOOD, tmp_path)
    assert _derived_bytes(OTHER, tmp_path) is None


def test_loader_ignores_a_corrupt_model(tmp_path):
    path = cache.store(BASE, b"derived model", GOOD, tmp_path)
    path.write_bytes(b"derived modeL")
    assert _derived_bytes(BASE, tmp_path) is None


def test_loader_ignores_a_model_whose_checksum_file_was_rewritten(tmp_path):
    path = cache.store(BASE, b"derived model", GOOD, tmp_path)
    path.write_bytes(b"other bytes")
    (path.parent / cache.CHECKSUM_FILE).write_text(sha256(b"other bytes"))
    assert _derived_bytes(BASE, tmp_path) is None  # the report's checksum differs


def test_loader_ignores_a_model_that_failed_its_gate(tmp_path):
    bad = _report([5.0], [5.0])
    cache.store(BASE, b"derived model", bad, tmp_path)
    assert _derived_bytes(BASE, tmp_path) is None


@pytest.mark.parametrize("change", [{"recipe": recipe.RECIPE_VERSION - 1}, {"passed": "yes"}, None])
def test_loader_ignores_a_report_it_cannot_trust(tmp_path, change):
    path = cache.store(BASE, b"derived model", GOOD, tmp_path)
    report = path.parent / cache.REPORT_FILE
    if change is None:
        report.write_text("{ not json")
    else:
        report.write_text(json.dumps({**json.loads(report.read_text()), **change}))
    assert _derived_bytes(BASE, tmp_path) is None


def test_loader_ignores_an_entry_without_its_report(tmp_path):
    path = cache.store(BASE, b"derived model", GOOD, tmp_path)
    (path.parent / cache.REPORT_FILE).unlink()
    assert _derived_bytes(BASE, tmp_path) is None


def test_cache_lives_in_the_user_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    entry = cache.entry_dir(BASE)
    assert entry.parent == tmp_path / "tray-reader" / "fast-model"
    from tray_reader.model.custom_ops import source_sha256

    # A changed recipe or changed compiled operators are a new entry, built and measured anew.
    assert entry.name.endswith(f"recipe{recipe.RECIPE_VERSION}-ops{source_sha256()[:8]}")


def _fused(tmp_path, library: bytes = b"library bytes", report=None):
    lib = tmp_path / "built" / "lib.so"
    lib.parent.mkdir(exist_ok=True)
    lib.write_bytes(library)
    return (b"fused model", report or GOOD, lib)


def test_the_fused_decoder_comes_with_its_library_when_both_check_out(tmp_path):
    cache.store(BASE, b"derived model", GOOD, tmp_path, _fused(tmp_path))
    data, library = _derived_fused(BASE, tmp_path)
    assert data == b"fused model" and library.read_bytes() == b"library bytes"
    assert library.parent == cache.entry_dir(BASE, tmp_path)  # a copy in the entry, not the build's


def test_no_fused_decoder_without_a_library(tmp_path):
    cache.store(BASE, b"derived model", GOOD, tmp_path, None, "no C compiler (install gcc, or set CC)")
    assert _derived_bytes(BASE, tmp_path) == b"derived model"
    assert _derived_fused(BASE, tmp_path) is None
    report = json.loads((cache.entry_dir(BASE, tmp_path) / cache.REPORT_FILE).read_text())
    assert report["fused"] == {"passed": False, "reason": "no C compiler (install gcc, or set CC)"}


@pytest.mark.parametrize("damaged", ["model", "library", "gate", "plain decoder"])
def test_a_damaged_or_failed_fused_decoder_is_not_used(tmp_path, damaged):
    from tray_reader.model.custom_ops import LIBRARY

    bad = quality.QualityReport([9.0] * 4, [9.0] * 4, [1.0] * 4).judge()
    cache.store(
        BASE, b"derived model", GOOD, tmp_path, _fused(tmp_path, report=bad if damaged == "gate" else None)
    )
    entry = cache.entry_dir(BASE, tmp_path)
    if damaged == "model":
        (entry / cache.FUSED_FILE).write_bytes(b"fused modeL")
    elif damaged == "library":
        (entry / LIBRARY).write_bytes(b"library byteS")
    elif damaged == "plain decoder":  # the fallback must have passed its gate too
        report = json.loads((entry / cache.REPORT_FILE).read_text())
        (entry / cache.REPORT_FILE).write_text(json.dumps({**report, "passed": False}))
    assert _derived_fused(BASE, tmp_path) is None


def test_a_build_without_a_compiler_is_redone_once_there_is_one(tmp_path, monkeypatch):
    from tray_reader.model import custom_ops

    cache.store(BASE, b"derived model", GOOD, tmp_path, None, custom_ops.NO_COMPILER)
    entry = cache.entry_dir(BASE, tmp_path)
    monkeypatch.setattr(custom_ops, "compiler", lambda: None)
    assert not build._compiler_came_since(entry)
    monkeypatch.setattr(custom_ops, "compiler", lambda: "/usr/bin/cc")
    assert build._compiler_came_since(entry)
    # A compiler that failed is not retried at every setup.
    cache.store(BASE, b"derived model", GOOD, tmp_path, None, "/usr/bin/cc failed: error")
    assert not build._compiler_came_since(entry)


def test_storing_a_build_drops_the_optimised_copies_of_earlier_ones(tmp_path):
    from tray_reader.speech.sessions import OPTIMISED_DIR

    (tmp_path / OPTIMISED_DIR).mkdir()
    (tmp_path / OPTIMISED_DIR / "0123456789abcdef-ort-cpu.onnx").write_bytes(b"an earlier build, optimised")
    cache.store(BASE, b"derived model", GOOD, tmp_path)
    assert not (tmp_path / OPTIMISED_DIR).exists()
