"""The fast decoder's recipe: the shipped dynamic-int8 generator made static int8.

The shipped model quantises every Conv's input at run time (DynamicQuantizeLinear →
ConvInteger), and ConvInteger is slow. Applied to the verified model bytes:

1. ``dequantize``: each ConvInteger/MatMulInteger chain of the generator becomes a float
   Conv/MatMul with the weights the shipped model stores and the original float bias; the
   rest stays as shipped, so durations (the audio's timing) are unchanged.
2. ``quantize_generator``: onnxruntime's ``quantize_static`` (QDQ, per-channel weights,
   MinMax calibration on real sentences) on the generator's Convs except ``conv_post``,
   whose output feeds exp/sin; onnxruntime fuses each Q/DQ pair into a QLinearConv.
3. ``rewrites.simplify``: fewer kernels for the same computation; the *fused* variant also
   has the compiled operators of ``custom_ops``.

``build`` runs the recipe, the quality gate (``quality``) and stores the result (``cache``).
History and figures: docs/benchmarks.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tray_reader.model.calibration import Feeds, _Feeds
from tray_reader.model.graph import Graph
from tray_reader.model.rewrites import simplify

if TYPE_CHECKING:
    import onnx

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


class RecipeError(RuntimeError):
    """The model does not have the structure the recipe expects."""


def _only_consumer(g: Graph, tensor: str, op: str) -> onnx.NodeProto:
    node = g.only_user(tensor, op)
    if node is None:
        raise RecipeError(f"{tensor}: expected one {op} consumer, got {[u.op_type for u in g.users(tensor)]}")
    return node


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
    g = Graph(graph)

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
                return str(node.input[0])
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
        nxt = g.users(n.output[0])
        if len(nxt) == 1 and nxt[0].op_type == "Add":
            add = nxt[0]
            bias = float_bias(next(x for x in add.input if x != n.output[0]))
            cast = _only_consumer(g, add.output[0], "Cast")
        else:
            cast = _only_consumer(g, n.output[0], "Cast")
        mul = _only_consumer(g, cast.output[0], "Mul")
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


def generator_convs(model: onnx.ModelProto) -> list[str]:
    """The Conv nodes the recipe quantises: the generator's, except those kept in float."""
    return [
        n.name
        for n in model.graph.node
        if n.op_type == "Conv" and n.name.startswith(GENERATOR) and not n.name.startswith(KEEP_FLOAT)
    ]


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
