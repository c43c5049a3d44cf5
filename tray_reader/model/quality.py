"""How far a derived decoder's audio is from the float model and the shipped one: the gate it must pass.

``log_mel_distance`` is the project's one spectral distance: the bench and the tests use it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tray_reader.model.calibration import Feeds
from tray_reader.speech.types import SAMPLE_RATE


@dataclass(frozen=True)
class QualityGate:
    """Largest spectral differences the derived model may have (mean over held-out renders).

    Set from bench/bench_fast_model.py, where a recogniser heard the derived model's renders
    as well as the shipped one's: the limits leave headroom above the distances measured
    there (docs/benchmarks.md), and a broken model (silent, NaN) fails them outright."""

    max_vs_reference_db: float = 4.5
    """Log-mel distance to the dequantised float model."""
    max_vs_shipped_db: float = 4.5
    """Log-mel distance to the shipped model."""
    max_single_db: float = 6.0
    """No single held-out render may be further than this from the reference."""


GATE = QualityGate()


def _mel_bank(n_fft: int, n_mels: int) -> np.ndarray:
    edges = 700.0 * (
        10 ** (np.linspace(0.0, 2595.0 * np.log10(1.0 + SAMPLE_RATE / 1400.0), n_mels + 2) / 2595.0) - 1.0
    )
    bins = np.fft.rfftfreq(n_fft, 1 / SAMPLE_RATE)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    return np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)


def log_mel_distance(reference: np.ndarray, other: np.ndarray, n_fft: int = 1024, hop: int = 256) -> float:
    """Mean absolute log-mel difference (dB, 80 bands, floor -80 dB) over the frames of
    ``reference`` within 60 dB of its loudest; frames shorter than ``n_fft`` are padded."""
    n = min(reference.size, other.size)
    bank = _mel_bank(n_fft, 80)
    specs = []
    for x in (reference[:n], other[:n]):
        x = np.pad(np.asarray(x, np.float64), (0, max(0, n_fft - n)))
        frames = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop] * np.hanning(n_fft)
        specs.append(10 * np.log10((np.abs(np.fft.rfft(frames, axis=1)) ** 2) @ bank.T + 1e-8))
    ref, oth = specs
    loud = ref.max(axis=1) > ref.max() - 60
    return float(np.mean(np.abs(np.maximum(ref, -80) - np.maximum(oth, -80))[loud]))


@dataclass
class QualityReport:
    """Log-mel distances (dB) of the derived model's held-out renders."""

    vs_reference_db: list[float] = field(default_factory=list)
    """Derived vs the dequantised float model, one per render."""
    vs_shipped_db: list[float] = field(default_factory=list)
    """Derived vs the shipped model."""
    shipped_vs_reference_db: list[float] = field(default_factory=list)
    """The shipped quantisation's own error, for scale."""
    passed: bool = False
    reason: str = ""

    def judge(self, gate: QualityGate = GATE) -> QualityReport:
        ref, shp = float(np.mean(self.vs_reference_db)), float(np.mean(self.vs_shipped_db))
        worst = max(self.vs_reference_db)
        problems = []
        if not np.isfinite([ref, shp, worst]).all():
            problems.append("non-finite audio or distance")
        if ref > gate.max_vs_reference_db:
            problems.append(f"mean distance to the float model {ref:.2f} dB > {gate.max_vs_reference_db}")
        if shp > gate.max_vs_shipped_db:
            problems.append(f"mean distance to the shipped model {shp:.2f} dB > {gate.max_vs_shipped_db}")
        if worst > gate.max_single_db:
            problems.append(f"worst render {worst:.2f} dB > {gate.max_single_db}")
        self.passed = not problems
        self.reason = "; ".join(problems) or (
            f"mean {ref:.2f} dB from the float model, {shp:.2f} dB from the shipped one"
        )
        return self


Run = Callable[[Feeds], np.ndarray]


def session_runner(model: bytes, threads: int = 2, library: Path | None = None) -> Run:
    """Runs a whole model with the engine's session options (and ``library``'s operators)."""
    from tray_reader.speech.sessions import make_session

    session = make_session(model, threads, library=library)
    return lambda feeds: np.asarray(session.run(None, feeds)[0], np.float32).reshape(-1)


def measure_quality(shipped: Run, reference: Run, derived: Run, feeds: list[Feeds]) -> QualityReport:
    report = QualityReport()
    for f in feeds:
        s, r, d = shipped(f), reference(f), derived(f)
        if not (np.isfinite(d).all() and np.abs(d).max() > 1e-3):
            d = np.zeros_like(r) + np.nan
        report.vs_reference_db.append(log_mel_distance(r, d))
        report.vs_shipped_db.append(log_mel_distance(s, d))
        report.shipped_vs_reference_db.append(log_mel_distance(r, s))
    return report.judge()
