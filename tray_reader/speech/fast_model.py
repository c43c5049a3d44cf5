"""A faster Kokoro model derived from the shipped one: static int8 convolutions in the generator.

The shipped model is dynamic int8: every Conv/MatMul quantises its input at run time
(DynamicQuantizeLinear → ConvInteger/MatMulInteger → rescale), and ConvInteger is slow
(~65 % of the time). The recipe, applied to the verified model bytes:

1. ``dequantize``: each ConvInteger/MatMulInteger chain of the generator becomes a float
   Conv/MatMul with the weights the shipped model stores, ``(w_q - zero_point) * scale``,
   and the original float bias (what the shipped model approximates at run time). The
   rest stays as shipped (so durations, and the audio's timing, are unchanged). Output
   tensor names are kept, so ``split_model`` still finds the encoder/decoder boundary.
2. ``quantize_generator``: onnxruntime's ``quantize_static`` (QDQ, per-channel weights,
   MinMax calibration on real sentences and stock voices) on the generator's Conv nodes,
   all except ``conv_post`` (its output feeds exp/sin: quantising it ruins the audio).
   onnxruntime fuses each Q/DQ pair around a Conv into one QLinearConv.
3. ``graph_rewrites.simplify``: the AdaIN instance norms become one kernel each and the
   snake activations lose their single-threaded Sin, computing the same (see that module;
   0.87x the time with 2 threads). A second variant, the *fused* decoder, has each
   norm + snake + quantise (reading the int8 convolution's output before it) and the
   harmonic source's STFT as compiled operators instead (``custom_ops``; ~0.75x the time
   again, the STFT and the dequantisation bit for bit); it is built only where a C
   compiler builds their library.
4. ``measure_quality``: held-out sentences rendered by the shipped, the float reference
   (whole decoder dequantised) and the derived model (each variant); log-mel distances in dB. The gate (``GATE``) was
   set from bench/bench_fast_model.py, where a recogniser checked the same renders.

The result is a build artefact, cached in the user's cache dir under a key made of the
base model's SHA-256 and ``RECIPE_VERSION``, with its own SHA-256 and the quality report
beside it. Building takes 1–4 minutes on 2 cores, so it never runs when the daemon starts:
``build`` is for ``tray-reader doctor --build-fast-model`` or the installer, and
``derived_decoder_bytes`` (cheap: read + hash) returns the cached part B (see
``split_model``) only when its checksum and its quality report both check out; otherwise
the engine keeps the shipped one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tray_reader.paths import cache_dir as cache_root
from tray_reader.speech.graph_rewrites import simplify

if TYPE_CHECKING:
    import onnx

log = logging.getLogger(__name__)

RECIPE_VERSION = 7
"""Bump when anything below changes the derived bytes (sentences, voices, options). The
cache key also holds the compiled operators' source hash (see ``entry_dir``)."""

DECODER = "/decoder/"
"""Name prefix of the decoder's nodes. Only these are changed: the encoder (~3 % of the
time) stays as shipped, so durations, and with them the audio's timing, are unchanged."""
GENERATOR = "/decoder/decoder/generator/"
"""Name prefix of the waveform generator's nodes (~91 % of the run time)."""
KEEP_FLOAT = ("/decoder/decoder/generator/conv_post/",)
"""Generator nodes left in float: conv_post's output goes through exp and sin."""

CALIBRATION_SENTENCES = (
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Would you like a cup of tea, or shall we go for a walk instead?",
    "In nineteen ninety two, the company sold its first computer for three thousand dollars.",
    "She sells sea shells by the sea shore, and the shells she sells are surely seashells!",
)
CALIBRATION_VOICES = ("af_heart", "am_michael", "bf_emma", "bm_george")

HELD_OUT_SENTENCES = (
    "The weather today is cold and windy with some rain in the afternoon.",
    "Please open the window and turn on the light in the kitchen.",
    "My brother bought three books and a new computer last week.",
    "Scientists measured the temperature of the ocean at several depths.",
)
HELD_OUT_VOICES = ("af_heart", "am_adam")


@dataclass(frozen=True)
class QualityGate:
    """Largest spectral differences the derived model may have (mean over held-out renders).

    Measured with bench/bench_fast_model.py (4 held-out renders): the shipped model is
    0.98–1.13 dB from the float one; the derived model (recipe 2) 2.8–3.1 dB from the float
    and 2.6–2.8 dB from the shipped one, and pocketsphinx heard as many words in it (mean
    word recall 0.96 vs 0.94 for the shipped model; recipe 1: 0.93). The limits leave ~1.5 dB of
    headroom above that; a broken model (silent, NaN) fails them outright."""

    max_vs_reference_db: float = 4.5
    """Log-mel distance to the dequantised float model."""
    max_vs_shipped_db: float = 4.5
    """Log-mel distance to the shipped model."""
    max_single_db: float = 6.0
    """No single held-out render may be further than this from the reference."""


GATE = QualityGate()


# --- 1. dequantise ----------------------------------------------------------------------


class RecipeError(RuntimeError):
    """The model does not have the structure the recipe expects."""


def _consumers(graph: onnx.GraphProto) -> dict[str, list[onnx.NodeProto]]:
    out: dict[str, list[onnx.NodeProto]] = {}
    for n in graph.node:
        for x in n.input:
            out.setdefault(x, []).append(n)
    return out


def _only_consumer(consumers: dict[str, list[onnx.NodeProto]], tensor: str, op: str) -> onnx.NodeProto:
    users = consumers.get(tensor, [])
    if len(users) != 1 or users[0].op_type != op:
        raise RecipeError(f"{tensor}: expected one {op} consumer, got {[u.op_type for u in users]}")
    return users[0]


def dequantize(model: onnx.ModelProto, scope: str = DECODER) -> onnx.ModelProto:
    """A copy of ``model`` with the ConvInteger/MatMulInteger chains whose names start with
    ``scope`` made float again.

    The chains (as onnxruntime's dynamic quantiser writes them)::

        x ─► DynamicQuantizeLinear ─► x_q, x_scale, x_zp
        ConvInteger(x_q, w_q, x_zp, w_zp) [─► Add(bias_q)] ─► Cast ─► Mul(x_scale·w_scale) ─► y
        MatMulInteger(x_q, w_q, x_zp, w_zp) ─► Cast ─► Mul(x_scale·w_scale) ─► y

    become ``Conv(x, w, bias) ─► y`` / ``MatMul(x, w) ─► y``; nodes left without a
    consumer (the quantisers, the bias quantisation) are then removed.
    """
    # Imported here, as in the other build steps: the engine reads the cached decoder
    # through this module without ever needing onnx.
    import onnx
    from onnx import helper, numpy_helper

    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    init = {t.name: t for t in graph.initializer}
    producer = {o: n for n in graph.node for o in n.output}
    consumers = _consumers(graph)

    def const(name: str) -> np.ndarray:
        if name not in init:
            raise RecipeError(f"{name} is not a stored constant")
        return numpy_helper.to_array(init[name])

    def weight_scale(scale_tensor: str) -> np.ndarray:
        # x_scale (from DynamicQuantizeLinear) times the weight's stored scale.
        mul = producer.get(scale_tensor)
        if mul is None or mul.op_type != "Mul":
            raise RecipeError(f"{scale_tensor}: expected Mul(x_scale, w_scale)")
        stored = [x for x in mul.input if x in init]
        if len(stored) != 1:
            raise RecipeError(f"{mul.name}: expected one stored scale")
        return const(stored[0]).astype(np.float32)

    def float_bias(bias_q: str) -> str:
        # Reshape(Cast(Floor(Div(bias, scale)))): the float bias is the Div's stored input.
        node = producer.get(bias_q)
        for op in ("Reshape", "Cast", "Floor", "Div"):
            if node is None or node.op_type != op:
                raise RecipeError(f"{bias_q}: unexpected bias quantisation")
            if op == "Div":
                if node.input[0] not in init:
                    raise RecipeError(f"{node.name}: the bias is not stored")
                return node.input[0]
            node = producer.get(node.input[0])
        raise AssertionError("unreachable")

    new_nodes: dict[str, onnx.NodeProto] = {}  # name of the replaced node -> its float version
    new_init: list[onnx.TensorProto] = []
    made: dict[str, np.ndarray] = {}
    for n in graph.node:
        if n.op_type not in ("ConvInteger", "MatMulInteger") or not n.name.startswith(scope):
            continue
        quantiser = producer.get(n.input[0])
        if quantiser is None or quantiser.op_type != "DynamicQuantizeLinear":
            raise RecipeError(f"{n.name}: its input is not dynamically quantised")
        w_q = const(n.input[1]).astype(np.float32)
        w_zp = const(n.input[3]).astype(np.float32) if len(n.input) > 3 and n.input[3] else 0.0
        bias: str | None = None
        nxt = consumers.get(n.output[0], [])
        if len(nxt) == 1 and nxt[0].op_type == "Add":
            add = nxt[0]
            bias = float_bias(next(x for x in add.input if x != n.output[0]))
            cast = _only_consumer(consumers, add.output[0], "Cast")
        else:
            cast = _only_consumer(consumers, n.output[0], "Cast")
        mul = _only_consumer(consumers, cast.output[0], "Mul")
        scale = weight_scale(next(x for x in mul.input if x != cast.output[0]))
        base_name = n.name.removesuffix("_quant")
        # Shared weights (one stored tensor, several nodes) stay shared.
        w_name = f"{n.input[1]}_dequantized"
        if n.op_type == "ConvInteger":
            # Per output channel (axis 0) or per tensor.
            shape = (-1,) + (1,) * (w_q.ndim - 1)
            w = (w_q - np.reshape(w_zp, shape)) * np.reshape(scale, shape)
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            node = helper.make_node(
                "Conv",
                [quantiser.input[0], w_name, *([bias] if bias else [])],
                [mul.output[0]],
                base_name,
                **attrs,
            )
        else:
            # Per output column (last axis) or per tensor.
            w = (w_q - w_zp) * scale
            node = helper.make_node("MatMul", [quantiser.input[0], w_name], [mul.output[0]], base_name)
        w = w.astype(np.float32)
        if w_name not in made:
            made[w_name] = w
            new_init.append(numpy_helper.from_array(w, w_name))
        elif not np.array_equal(made[w_name], w):
            raise RecipeError(f"{n.name}: a shared weight with a different scale")
        new_nodes[mul.name] = node

    nodes = [new_nodes.get(n.name, n) for n in graph.node]
    del graph.node[:]
    graph.node.extend(_live(nodes, {o.name for o in graph.output}))
    graph.initializer.extend(new_init)
    used = {x for n in graph.node for x in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    del graph.value_info[:]  # shapes of removed tensors; onnxruntime infers what it needs
    return out


def _live(nodes: list[onnx.NodeProto], outputs: set[str]) -> list[onnx.NodeProto]:
    """The nodes that contribute to ``outputs``, in their original order."""
    needed = set(outputs)
    keep = [False] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        if any(o in needed for o in nodes[i].output):
            keep[i] = True
            needed.update(x for x in nodes[i].input if x)
    return [n for n, k in zip(nodes, keep, strict=True) if k]


# --- 2. static int8 generator -----------------------------------------------------------


def generator_convs(model: onnx.ModelProto) -> list[str]:
    """The Conv nodes the recipe quantises: the generator's, except those kept in float."""
    return [
        n.name
        for n in model.graph.node
        if n.op_type == "Conv" and n.name.startswith(GENERATOR) and not n.name.startswith(KEEP_FLOAT)
    ]


Feeds = dict[str, np.ndarray]


def model_feeds(ids: Sequence[int], pack: np.ndarray, speed: float = 1.0) -> Feeds:
    """The model's inputs for one chunk of phoneme ids (as the engine builds them)."""
    return {
        "tokens": np.array([[0, *ids, 0]], dtype=np.int64),
        "style": np.ascontiguousarray(pack[len(ids)], dtype=np.float32).reshape(1, 256),
        "speed": np.array([speed], dtype=np.float32),
    }


def sentence_feeds(renders: Iterable[tuple[str, str]]) -> list[Feeds]:
    """Model inputs for (sentence, stock voice) pairs, phonemised by the product's front end."""
    from tray_reader import model_files
    from tray_reader.speech.frontend import TextFrontEnd
    from tray_reader.speech.g2p import EnglishPhonemizer

    phonemize = EnglishPhonemizer()
    frontend = TextFrontEnd(phonemize)
    return [model_feeds(frontend.ids(phonemize(s)), model_files.stock_pack(v)) for s, v in renders]


def calibration_renders() -> list[tuple[str, str]]:
    """Each calibration sentence in one stock voice (calibration runs the float model
    unoptimised, so a few inputs already take a while)."""
    return list(zip(CALIBRATION_SENTENCES, CALIBRATION_VOICES, strict=True))


def held_out_renders() -> list[tuple[str, str]]:
    """Each held-out sentence in one of the held-out voices, in turn."""
    return [(s, HELD_OUT_VOICES[i % len(HELD_OUT_VOICES)]) for i, s in enumerate(HELD_OUT_SENTENCES)]


class _Feeds:
    """The CalibrationDataReader protocol over a list of feeds."""

    def __init__(self, feeds: list[Feeds]) -> None:
        self._feeds = feeds
        self._it = iter(feeds)

    def get_next(self) -> Feeds | None:
        return next(self._it, None)

    def rewind(self) -> None:  # pragma: no cover - only some calibrators call it
        self._it = iter(self._feeds)


def quantize_generator(fp32: onnx.ModelProto, calibration: list[Feeds]) -> onnx.ModelProto:
    """Static QDQ int8 (per-channel, MinMax) of the generator's Convs in the float model."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    nodes = generator_convs(fp32)
    if not nodes:
        raise RecipeError("the model has no generator Conv nodes")
    with tempfile.TemporaryDirectory(prefix="tray-reader-quant-") as tmp:
        # A path, not the proto: quantize_static would move the proto's weights to a
        # temporary external-data file, leaving the caller's copy pointing at it.
        src, out = Path(tmp) / "float.onnx", Path(tmp) / "derived.onnx"
        onnx.save(fp32, src)
        quantize_static(
            src,
            out,
            _Feeds(calibration),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv"],
            nodes_to_quantize=nodes,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            extra_options={"CalibTensorRangeSymmetric": False},
        )
        derived = onnx.load(out)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in derived.graph.initializer):
        raise RecipeError("the quantised model still refers to an external data file")
    return derived


# --- 3. quality -------------------------------------------------------------------------

SAMPLE_RATE = 24_000


def _mel_bank(n_fft: int, n_mels: int) -> np.ndarray:
    edges = 700.0 * (
        10 ** (np.linspace(0.0, 2595.0 * np.log10(1.0 + SAMPLE_RATE / 1400.0), n_mels + 2) / 2595.0) - 1.0
    )
    bins = np.fft.rfftfreq(n_fft, 1 / SAMPLE_RATE)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    return np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)


def log_mel_distance(reference: np.ndarray, other: np.ndarray, n_fft: int = 1024, hop: int = 256) -> float:
    """Mean absolute log-mel difference (dB, 80 bands, floor -80 dB) over the frames of
    ``reference`` within 60 dB of its loudest; the same measure as bench/audio_metrics.py."""
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
    from tray_reader.speech.engine import _session

    session = _session(model, threads, library=library)
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


# --- cache ------------------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry_dir(base_sha256: str, cache_dir: Path | None = None) -> Path:
    """Where the decoder derived from the model with this SHA-256 by this recipe (and these
    compiled operators' source) lives."""
    from tray_reader.speech.custom_ops import source_sha256

    root = cache_dir if cache_dir is not None else cache_root()
    return root / "fast-model" / f"{base_sha256[:16]}-recipe{RECIPE_VERSION}-ops{source_sha256()[:8]}"


MODEL_FILE = "decoder.onnx"
"""Part B (decoder + generator, see ``split_model``) of the derived model: the only part
that differs from the shipped model, and the only one the engine loads from here."""
CHECKSUM_FILE = "decoder.onnx.sha256"
FUSED_FILE = "decoder-fused.onnx"
"""The fused variant of part B: needs the operator library beside it (``custom_ops``)."""
REPORT_FILE = "quality.json"


def _usable_report(base_sha256: str, cache_dir: Path | None) -> dict | None:
    """The cache entry's report if it is for this base model and recipe and the fast
    decoder passed its gate; else None (saying why in the log)."""
    entry = entry_dir(base_sha256, cache_dir)
    try:
        report = json.loads((entry / REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(report, dict):
        return None
    if report.get("base_sha256") != base_sha256 or report.get("recipe") != RECIPE_VERSION:
        log.warning("fast model in %s was built from something else; ignored", entry)
        return None
    if report.get("passed") is not True:
        log.info("fast model in %s failed its quality gate (%s); ignored", entry, report.get("reason"))
        return None
    return report


def derived_decoder_bytes(base_sha256: str, cache_dir: Path | None = None) -> bytes | None:
    """The cached fast decoder for the model with ``base_sha256`` if it is there, intact and
    passed its quality gate; else None (the caller uses the shipped one). Never builds."""
    report = _usable_report(base_sha256, cache_dir)
    if report is None:
        return None
    entry = entry_dir(base_sha256, cache_dir)
    try:
        recorded = (entry / CHECKSUM_FILE).read_text(encoding="utf-8").split()[0]
        data = (entry / MODEL_FILE).read_bytes()
    except (OSError, IndexError):
        return None
    if _sha256(data) != recorded or recorded != report.get("model_sha256"):
        log.warning("fast model in %s does not match its checksum; ignored", entry)
        return None
    return data


def derived_fused_decoder(base_sha256: str, cache_dir: Path | None = None) -> tuple[bytes, Path] | None:
    """The cached fused decoder and the operator library it needs, if both are there and
    match the checksums in the report, and both it and the fast decoder passed their
    quality gates; else None. The fast decoder's own bytes are checked only if it is
    loaded (as the fallback): reading and hashing both would add ~0.15 s to start-up.
    Never builds."""
    from tray_reader.speech.custom_ops import LIBRARY

    report = _usable_report(base_sha256, cache_dir)
    fused = (report or {}).get("fused") or {}
    if fused.get("passed") is not True:
        return None
    entry = entry_dir(base_sha256, cache_dir)
    try:
        data = (entry / FUSED_FILE).read_bytes()
        library = (entry / LIBRARY).read_bytes()
    except OSError:
        return None
    if _sha256(data) != fused.get("model_sha256") or _sha256(library) != fused.get("library_sha256"):
        log.warning("fused decoder in %s does not match its checksums; ignored", entry)
        return None
    return data, entry / LIBRARY


@dataclass
class BuildResult:
    """What ``build`` made and where."""

    path: Path
    passed: bool
    report: QualityReport
    seconds: float
    fused: QualityReport | None = None
    """The fused variant's report; None when it was not built (see ``fused_reason``)."""
    fused_reason: str = ""


def derive(base: bytes, calibration: list[Feeds]) -> tuple[bytes, bytes, bytes]:
    """(float reference, derived model, its fused variant) from the shipped bytes.

    The reference has the whole decoder in float (the quality gate's yardstick). The
    derived model has only the generator in float before its Convs are quantised: the rest
    of the decoder stays as shipped, which keeps the file at ~99 MB instead of ~200 MB and
    its split and load as fast as the shipped model's, for the same speed (measured)."""
    import onnx

    model = onnx.load_from_string(base)
    reference = dequantize(model, scope=DECODER).SerializeToString()
    quantized = quantize_generator(dequantize(model, scope=GENERATOR), calibration).SerializeToString()
    del model
    variants = []
    for fused in (False, True):
        derived = onnx.load_from_string(quantized)
        made = simplify(derived, fused=fused)
        # Fused, every snake is in a NormSnakeQuantize: none is left for the polynomial.
        expected = [k for k in made if not (fused and k == "snake_as_polynomial")]
        if not all(made[k] for k in expected):
            raise RecipeError(f"the graph rewrites found nothing to rewrite: {made}")
        variants.append(derived.SerializeToString())
    return reference, variants[0], variants[1]


def build(base: bytes, cache_dir: Path | None = None, threads: int = 2) -> BuildResult:
    """Derive the fast model from ``base``, check it, and cache its decoder with the report.

    A model that fails the gate is still written (for inspection) but
    ``derived_decoder_bytes`` will not return it."""
    from tray_reader.speech.custom_ops import build_library
    from tray_reader.speech.split_model import split

    t0 = time.perf_counter()
    reference, derived, fused = derive(base, sentence_feeds(calibration_renders()))
    shipped_run, reference_run = session_runner(base, threads), session_runner(reference, threads)
    held_out = sentence_feeds(held_out_renders())
    report = measure_quality(shipped_run, reference_run, session_runner(derived, threads), held_out)
    with tempfile.TemporaryDirectory(prefix="tray-reader-ops-") as tmp:
        built = build_library(Path(tmp))
        fused_part = None
        if built.path is not None:
            fused_report = measure_quality(
                shipped_run, reference_run, session_runner(fused, threads, built.path), held_out
            )
            fused_part = (split(fused).decoder, fused_report, built.path)
        del reference, shipped_run, reference_run
        path = store(_sha256(base), split(derived).decoder, report, cache_dir, fused_part, built.reason)
    return BuildResult(
        path,
        report.passed,
        report,
        time.perf_counter() - t0,
        fused_part[1] if fused_part else None,
        built.reason,
    )


def store(
    base_sha256: str,
    decoder: bytes,
    report: QualityReport,
    cache_dir: Path | None = None,
    fused: tuple[bytes, QualityReport, Path] | None = None,
    fused_reason: str = "",
) -> Path:
    """Write a derived decoder, its SHA-256 and its quality report into the cache entry;
    with ``fused``, also the fused variant (decoder, report, operator library to copy)."""
    from tray_reader.speech.custom_ops import LIBRARY

    entry = entry_dir(base_sha256, cache_dir)
    entry.mkdir(parents=True, exist_ok=True)
    for old in entry.parent.glob(f"{base_sha256[:16]}-recipe*"):
        if old != entry:  # an earlier recipe's build: never loaded again
            shutil.rmtree(old, ignore_errors=True)
    # The report goes first out and last in: without it the entry is ignored, so a reader
    # never pairs a new model with an old report.
    (entry / REPORT_FILE).unlink(missing_ok=True)
    digest = _sha256(decoder)
    _write_atomic(entry / MODEL_FILE, decoder)
    _write_atomic(entry / CHECKSUM_FILE, f"{digest}  {MODEL_FILE}\n".encode())
    fused_meta: dict[str, object] = {"passed": False, "reason": fused_reason or "not built"}
    if fused is not None:
        fused_decoder, fused_report, library = fused
        library_bytes = library.read_bytes()
        _write_atomic(entry / FUSED_FILE, fused_decoder)
        _write_atomic(entry / LIBRARY, library_bytes)
        fused_meta = {
            "model_sha256": _sha256(fused_decoder),
            "library_sha256": _sha256(library_bytes),
            **asdict(fused_report),
        }
    else:
        (entry / FUSED_FILE).unlink(missing_ok=True)
        (entry / LIBRARY).unlink(missing_ok=True)
    meta = {
        "recipe": RECIPE_VERSION,
        "base_sha256": base_sha256,
        "model_sha256": digest,
        "onnxruntime": _ort_version(),
        **asdict(report),
        "fused": fused_meta,
    }
    _write_atomic(entry / REPORT_FILE, json.dumps(meta, indent=1).encode())
    return entry / MODEL_FILE


def _ort_version() -> str:
    import onnxruntime

    return onnxruntime.__version__


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def shipped_sha256() -> str:
    """SHA-256 of the joined shipped model, from the manifest (no need to read the model)."""
    from tray_reader import model_files

    return str(model_files.manifest()["kokoro_model"]["sha256"])


def cached_decoder(cache_dir: Path | None = None) -> bytes | None:
    """The usable fast decoder for the shipped model, or None: what the engine loads when
    there is no usable fused one."""
    return derived_decoder_bytes(shipped_sha256(), cache_dir)


def cached_fused_decoder(cache_dir: Path | None = None) -> tuple[bytes, Path] | None:
    """The usable fused decoder for the shipped model and its operator library, or None."""
    return derived_fused_decoder(shipped_sha256(), cache_dir)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tray_reader.speech.fast_model``: build the cached fast model unless a
    usable one is there (``--force`` rebuilds, ``--check`` only looks).

    For ``./dev setup``, the installer or ``tray-reader doctor --build-fast-model``;
    never the daemon."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tray_reader.speech.fast_model", description=main.__doc__)
    ap.add_argument("--check", action="store_true", help="only say whether a usable fast model is cached")
    ap.add_argument("--force", action="store_true", help="build again even if a usable one is cached")
    ap.add_argument("--cache-dir", type=Path, help=f"instead of {cache_root()}")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    return build_command(args.cache_dir, args.threads, check=args.check, force=args.force, out=print)


def fused_status(entry: Path) -> dict:
    """The fused decoder's part of the report in ``entry`` ({} when there is none): its
    checksums and gate, or the reason it was not built."""
    try:
        report = json.loads((entry / REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    fused = report.get("fused") if isinstance(report, dict) else None
    return fused if isinstance(fused, dict) else {}


def _compiler_came_since(entry: Path) -> bool:
    """Whether the build in ``entry`` had no C compiler for the fused decoder, and one is
    there now (so that a later `./dev setup` builds it; a failing compiler is not retried)."""
    from tray_reader.speech.custom_ops import NO_COMPILER, compiler

    return fused_status(entry).get("reason") == NO_COMPILER and compiler() is not None


def build_command(
    cache_dir: Path | None, threads: int, *, check: bool, force: bool, out: Callable[[str], None]
) -> int:
    """Check for, or build, the fast model, saying what happens; 0 when a usable one is there."""
    from tray_reader import model_files

    entry = entry_dir(shipped_sha256(), cache_dir)
    usable = cached_decoder(cache_dir) is not None
    if usable and not check and _compiler_came_since(entry):
        out("a C compiler is there now: building again, with the fused decoder")
        force = True
    if check or (usable and not force):
        fused = " (fused decoder too)" if cached_fused_decoder(cache_dir) is not None else ""
        out(f"fast model in {entry}: {'usable' + fused if usable else 'none usable'}")
        return 0 if usable else 1
    out(f"building the fast model into {entry} (one to four minutes)…")
    result = build(model_files.kokoro_model_bytes(), cache_dir, threads)
    verdict = "passed" if result.passed else "FAILED (the shipped model stays in use)"
    out(f"quality gate {verdict}: {result.report.reason}; {result.seconds:.0f} s")
    if result.fused is None:
        out(f"fused decoder not built: {result.fused_reason} (the fast decoder is used without it)")
    else:
        verdict = "passed" if result.fused.passed else "FAILED (the fast decoder is used without it)"
        out(f"fused decoder: quality gate {verdict}: {result.fused.reason}")
    return 0 if result.passed else 1


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    sys.exit(main())
