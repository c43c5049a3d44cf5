"""Split the Kokoro graph at the encoder/decoder boundary, in memory, for streaming.

Part A (text encoder, prosody and duration predictor, alignment) maps
``tokens, style, speed`` to the decoder's frame-level inputs:

- ``asr``    float32 [1, 512, F]  aligned text features, one column per frame,
- ``f0``     float32 [1, 2F]      pitch curve (two values per frame),
- ``energy`` float32 [1, 2F]      the ``N`` (energy) curve,
- ``phase``  float32 [1, 2F, 9]   the sine source's running phase (cycles / 300),
  a cumulative sum over the whole chunk, so that windows of part B can continue it.

Part B (decoder and iSTFT-Net generator) maps ``asr, f0, energy, style`` plus a
``phase_offset`` [1, 1, 9] to ``audio``: ``FRAME_SAMPLES`` samples per frame of ``asr``.
Running part B on a window of frames with the phase offset of its first frame gives
the same sine source as the whole-chunk run; only the decoder's instance norms (which
normalise over the window) and the convolutions' edges differ, which context frames
and cross-fades hide (see ``speech.windows``).

Both parts are derived from the verified model bytes; ``cached_split`` keeps them in the
user cache, checked against checksums pinned here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tray_reader.files import sha256, write_atomic
from tray_reader.paths import cache_dir as cache_root

if TYPE_CHECKING:
    import onnx

log = logging.getLogger(__name__)

ASR = "/encoder/MatMul_1_output_0"
F0 = "/encoder/Reshape_output_0"
ENERGY = "/encoder/Reshape_1_output_0"
PHASE = "/decoder/decoder/generator/m_source/l_sin_gen/CumSum_output_0"
GEN_X = "/decoder/decoder/decode.3/Div_4_output_0"
_PHASE_USERS = "/decoder/decoder/generator/m_source/l_sin_gen/Mul_2"
PHASE_OFFSET = "phase_offset"

_RENAMES = {ASR: "asr", F0: "f0", ENERGY: "energy", PHASE: "phase", GEN_X: "x"}


class GraphSplitError(RuntimeError):
    """The model's graph does not have the structure the split expects."""


@dataclass(frozen=True)
class SplitModel:
    """Serialized part A (frame features) and part B (frames to audio)."""

    features: bytes
    decoder: bytes


def _subgraph(
    model: onnx.ModelProto, inputs: Iterable[str], outputs: Iterable[str], name: str
) -> list[onnx.NodeProto]:
    """Nodes needed to compute ``outputs`` from ``inputs``, in the model's (topological) order."""
    graph = model.graph
    producer = {o: i for i, n in enumerate(graph.node) for o in n.output if o}
    stop = set(inputs)
    needed: set[int] = set()
    todo = [o for o in outputs]
    seen: set[str] = set()
    while todo:
        t = todo.pop()
        if t in seen or t in stop:
            continue
        seen.add(t)
        idx = producer.get(t)
        if idx is None:
            continue  # an initializer or a graph input
        needed.add(idx)
        todo.extend(x for x in graph.node[idx].input if x)
    return [graph.node[i] for i in sorted(needed)]


def _check_sources(
    base: onnx.ModelProto, nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], name: str
) -> set[str]:
    """The initializers ``nodes`` use; raises if a tensor they read has no source."""
    init = {t.name for t in base.graph.initializer}
    used = {x for n in nodes for x in n.input if x}
    missing = used - {o for n in nodes for o in n.output} - {vi.name for vi in inputs} - init
    if missing:
        raise GraphSplitError(f"{name}: tensors with no source after the split: {sorted(missing)[:5]}")
    return used & init


def _model(
    base: onnx.ModelProto,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    name: str,
) -> bytes:
    """A new model of ``nodes`` with copies of the initializers they use, serialized."""
    from onnx import helper

    used = _check_sources(base, nodes, inputs, name)
    graph = helper.make_graph(
        nodes, name, inputs, outputs, initializer=[t for t in base.graph.initializer if t.name in used]
    )
    out = helper.make_model(graph, opset_imports=list(base.opset_import))
    out.ir_version = base.ir_version
    return bytes(out.SerializeToString())


def _shrink_in_place(
    model: onnx.ModelProto,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    name: str,
) -> bytes:
    """Turn ``model`` itself into the model of ``nodes`` (no copy of the weights), serialized."""
    used = _check_sources(model, nodes, inputs, name)
    graph = model.graph
    for i in reversed(range(len(graph.initializer))):
        if graph.initializer[i].name not in used:
            del graph.initializer[i]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.value_info[:]
    del graph.input[:]
    graph.input.extend(inputs)
    del graph.output[:]
    graph.output.extend(outputs)
    graph.name = name
    return bytes(model.SerializeToString())


def _rename(nodes: list[onnx.NodeProto], mapping: dict[str, str]) -> list[onnx.NodeProto]:
    import onnx

    out = []
    for n in nodes:
        c = onnx.NodeProto()
        c.CopyFrom(n)
        for i, x in enumerate(c.input):
            if x in mapping:
                c.input[i] = mapping[x]
        for i, x in enumerate(c.output):
            if x in mapping:
                c.output[i] = mapping[x]
        out.append(c)
    return out


def _copy(value: onnx.ValueInfoProto) -> onnx.ValueInfoProto:
    import onnx

    out = onnx.ValueInfoProto()
    out.CopyFrom(value)
    return out


def _float(name: str, shape: list) -> onnx.ValueInfoProto:
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def split(model_bytes: bytes) -> SplitModel:
    """Derive part A and part B from the whole model (raises GraphSplitError)."""
    # Imported here: a start-up from the cache never needs onnx (14 MB).
    import onnx
    from onnx import helper

    model = onnx.load_from_string(model_bytes)
    del model_bytes  # the caller passes a temporary: free 92 MB before the parts are made
    graph = model.graph
    producer = {o: n for n in graph.node for o in n.output}
    for t in (ASR, F0, ENERGY, PHASE):
        if t not in producer:
            raise GraphSplitError(f"the model has no tensor {t}")
    if [i.name for i in graph.input] != ["tokens", "style", "speed"] or [o.name for o in graph.output] != [
        "audio"
    ]:
        raise GraphSplitError("unexpected model inputs or outputs")
    graph_inputs = {i.name: _copy(i) for i in graph.input}
    graph_outputs = [_copy(o) for o in graph.output]

    a_nodes = _subgraph(model, ["tokens", "style", "speed"], [ASR, F0, ENERGY, PHASE], "features")
    features = _model(
        model,
        _rename(a_nodes, _RENAMES),
        [graph_inputs["tokens"], graph_inputs["style"], graph_inputs["speed"]],
        [
            _float("asr", [1, 512, "frames"]),
            _float("f0", [1, "pitch_frames"]),
            _float("energy", [1, "pitch_frames"]),
            _float("phase", [1, "pitch_frames", 9]),
        ],
        "kokoro_features",
    )

    b_nodes = _subgraph(model, [ASR, F0, ENERGY, PHASE, "style"], ["audio"], "decoder")
    b_names = {n.name for n in b_nodes}
    if _PHASE_USERS not in b_names or any(n.op_type == "CumSum" and PHASE in n.output for n in b_nodes):
        raise GraphSplitError("the sine source's phase is not where the split expects it")
    # The window's own running phase (recomputed inside part B) plus the offset of its first frame.
    cumsum = next(n for n in a_nodes if PHASE in n.output)
    local = _rename([cumsum], {PHASE: "phase_local"})[0]
    add = helper.make_node("Add", ["phase_local", PHASE_OFFSET], [PHASE], name="phase_offset_add")
    cumsum_inputs = _subgraph(model, [F0], list(cumsum.input), "phase")
    extra = [n for n in cumsum_inputs if n.name not in b_names]
    order = {n.name: i for i, n in enumerate(graph.node)}
    b_nodes = sorted([*b_nodes, *extra], key=lambda n: order[n.name])
    # Insert the recomputed cumsum and the Add right before the first user of the phase.
    first_user = next(i for i, n in enumerate(b_nodes) if PHASE in n.input)
    b_nodes[first_user:first_user] = [local, add]
    b_nodes = _rename(b_nodes, {ASR: "asr", F0: "f0", ENERGY: "energy"})
    decoder = _shrink_in_place(
        model,
        b_nodes,
        [
            _float("asr", [1, 512, "frames"]),
            _float("f0", [1, "pitch_frames"]),
            _float("energy", [1, "pitch_frames"]),
            graph_inputs["style"],
            _float(PHASE_OFFSET, [1, 1, 9]),
        ],
        graph_outputs,
        "kokoro_decoder",
    )
    return SplitModel(features, decoder)


PINNED_SHA256 = {
    "features": "a8e5a7b371fd2a6d8b1c6c25c8a33d1864fdef290cc31ff96578641af4c37788",
    "decoder": "dd39b0e2ae3c5e38441505d55d136019b1470ad35e1fb8684a5937114ce62a0d",
}
"""What `split` makes from the pinned model (deterministic; onnx 1.23.2). Only parts with
exactly these checksums are written to or read from the cache."""


def cached_split(
    load_model: Callable[[], bytes], cache_dir: Path | None = None, decoder: bool = True
) -> SplitModel:
    """The split parts, from the user cache when they are there and check out, else derived
    from ``load_model()`` (the verified model bytes) and cached if they match the pinned
    checksums. Reading the cache skips the 92 MB model and its parse: faster start-up and
    ~200 MB lower peak memory while loading. ``decoder=False``: part B is not wanted (the
    fast one is used), so a cached one is neither read nor hashed (63 MB) and comes back empty."""
    entry = (cache_dir or cache_root()) / f"split-{PINNED_SHA256['decoder'][:16]}"
    try:
        parts = SplitModel(
            (entry / "features.onnx").read_bytes(), (entry / "decoder.onnx").read_bytes() if decoder else b""
        )
        if sha256(parts.features) == PINNED_SHA256["features"] and (
            not decoder or sha256(parts.decoder) == PINNED_SHA256["decoder"]
        ):
            return parts
        log.warning("cached split model in %s is corrupt; deriving it again", entry)
    except OSError:
        pass  # not cached yet
    parts = split(load_model())
    if (
        sha256(parts.features) != PINNED_SHA256["features"]
        or sha256(parts.decoder) != PINNED_SHA256["decoder"]
    ):
        log.info("split model differs from the pinned checksums (other onnx version?); not cached")
        return parts
    try:
        for name, data in (("features.onnx", parts.features), ("decoder.onnx", parts.decoder)):
            write_atomic(entry / name, data)
    except OSError as e:
        log.warning("cannot cache the split model in %s (%s)", entry, e)
    return parts
