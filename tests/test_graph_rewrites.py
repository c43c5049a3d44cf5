"""The decoder graph rewrites (tray_reader/model/rewrites.py) compute what the exported graph computes.

Each rewrite is run on small graphs written the way the Kokoro export writes its AdaIN
norms and snake activations, and onnxruntime runs both versions on the same inputs. That
the real decoder has these patterns, and still sounds right once rewritten, is checked in
test_engine_fast.py (the fast model's build applies them and must pass its quality gate).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tray_reader.model import rewrites as gr

C, T = 16, 300


def _model(nodes, inputs, output, inits=()) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name, shape in inputs],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in output],
        list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"]).run(
        None, feeds
    )


def _ops(model: onnx.ModelProto) -> list[str]:
    return [n.op_type for n in model.graph.node]


def _norm(p: str, x: str, axes: str = "axes") -> list[onnx.NodeProto]:
    """An instance norm over time as exported: (x - mean) / sqrt(var + eps)."""
    return [
        helper.make_node("ReduceMean", [x, axes], [f"{p}mean"], keepdims=1),
        helper.make_node("Sub", [x, f"{p}mean"], [f"{p}d"]),
        helper.make_node("Mul", [f"{p}d", f"{p}d"], [f"{p}d2"]),
        helper.make_node("ReduceMean", [f"{p}d2", axes], [f"{p}var"], keepdims=1),
        helper.make_node("Add", [f"{p}var", "eps"], [f"{p}var_eps"]),
        helper.make_node("Sqrt", [f"{p}var_eps"], [f"{p}std"]),
        helper.make_node("Div", [f"{p}d", f"{p}std"], [f"{p}normed"]),
    ]


def _affine(p: str, normed: str, scale: str, bias: str, out: str) -> list[onnx.NodeProto]:
    return [
        helper.make_node("Mul", [scale, normed], [f"{p}scaled"]),
        helper.make_node("Add", [f"{p}scaled", bias], [out]),
    ]


NORM_CONSTANTS = (
    numpy_helper.from_array(np.array([2], np.int64), "axes"),
    numpy_helper.from_array(np.array([1], np.int64), "channels"),
    numpy_helper.from_array(np.array(1e-5, np.float32), "eps"),
)


@pytest.fixture
def norm_feeds():
    rng = np.random.default_rng(1)
    return {
        # A channel at a large offset and one nearly constant: where a naive variance fails.
        "x": (rng.normal(size=(1, C, T)) * np.linspace(0.01, 5, C)[None, :, None] + 30).astype(np.float32),
        "g1": rng.normal(1, 0.3, (1, C, 1)).astype(np.float32),
        "b1": rng.normal(0, 0.3, (1, C, 1)).astype(np.float32),
        "g2": rng.normal(1, 0.3, (1, C, 1)).astype(np.float32),
        "b2": rng.normal(0, 0.3, (1, C, 1)).astype(np.float32),
    }


def _inputs(names):
    shapes = {"x": [1, C, "T"]}
    return [(n, shapes.get(n, [1, C, 1])) for n in names]


def test_an_adain_becomes_one_instance_norm_with_the_same_output(norm_feeds):
    nodes = _norm("n/", "x") + _affine("a/", "n/normed", "g1", "b1", "y")
    model = _model(nodes, _inputs(["x", "g1", "b1"]), ["y"], NORM_CONSTANTS)
    feeds = {k: norm_feeds[k] for k in ("x", "g1", "b1")}
    before = _run(model, feeds)[0]

    assert gr.fused_instance_norms(model) == 1
    assert sorted(set(_ops(model))) == ["InstanceNormalization", "Reshape"]
    after = _run(model, feeds)[0]
    np.testing.assert_allclose(after, before, atol=2e-4, rtol=1e-4)


def test_a_norm_shared_by_two_adains_becomes_one_instance_norm_each(norm_feeds):
    # The export shares one norm between the parallel resblocks that read the same input.
    nodes = (
        _norm("n/", "x")
        + _affine("a/", "n/normed", "g1", "b1", "y1")
        + _affine("b/", "n/normed", "g2", "b2", "y2")
    )
    model = _model(nodes, _inputs(["x", "g1", "b1", "g2", "b2"]), ["y1", "y2"], NORM_CONSTANTS)
    before = _run(model, norm_feeds)

    assert gr.fused_instance_norms(model) == 1
    assert _ops(model).count("InstanceNormalization") == 2 and "ReduceMean" not in _ops(model)
    for a, b in zip(_run(model, norm_feeds), before, strict=True):
        np.testing.assert_allclose(a, b, atol=2e-4, rtol=1e-4)


@pytest.mark.parametrize(
    "change",
    [
        "over channels",  # a layer norm, not an instance norm
        "stored scale",  # not the AdaIN's style-dependent scale: left as it is
        "normed also read elsewhere",
    ],
)
def test_lookalikes_are_left_alone(norm_feeds, change):
    axes = "channels" if change == "over channels" else "axes"
    nodes = _norm("n/", "x", axes) + _affine("a/", "n/normed", "g1", "b1", "y")
    inputs, outputs = ["x", "g1", "b1"], ["y"]
    inits = list(NORM_CONSTANTS)
    if change == "stored scale":
        inputs.remove("g1")
        inits.append(numpy_helper.from_array(norm_feeds["g1"], "g1"))
    if change == "normed also read elsewhere":
        nodes.append(helper.make_node("Relu", ["n/normed"], ["side"]))
        outputs.append("side")
    model = _model(nodes, _inputs(inputs), outputs, inits)
    ops = _ops(model)
    assert gr.fused_instance_norms(model) == 0
    assert _ops(model) == ops


def test_the_sin_squared_polynomial_is_accurate_over_a_whole_period():
    a = gr.sin2_coefficients()
    t = np.linspace(-0.5, 0.5, 200_001)
    poly = sum(c * t ** (2 * i) for i, c in enumerate(a, start=1))
    err = np.abs(poly - np.sin(np.pi * t) ** 2)
    assert err.max() < SIN2_ERROR
    # Near zero it must stay relatively exact too: a tiny alpha scales it up by 1/alpha.
    near = np.abs(t) < 0.05
    assert (err[near] / np.maximum(np.sin(np.pi * t[near]) ** 2, 1e-300)).max() < 1e-3


SIN2_ERROR = 2e-3
"""Largest error of the shipped degree's polynomial for sin^2 over a period (1.8e-3 for
degree 3, far below the int8 step of the convolution that reads the activation)."""


def _snake_model(alpha: np.ndarray, inverse: np.ndarray) -> onnx.ModelProto:
    nodes = [
        helper.make_node("Mul", ["alpha", "x"], ["ax"]),
        helper.make_node("Sin", ["ax"], ["s"]),
        helper.make_node("Pow", ["s", "two"], ["s2"]),
        helper.make_node("Mul", ["inverse", "s2"], ["scaled"]),
        helper.make_node("Add", ["x", "scaled"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(alpha, "alpha"),
        numpy_helper.from_array(inverse, "inverse"),
        numpy_helper.from_array(np.array(2.0, np.float32), "two"),
    ]
    return _model(nodes, [("x", [1, C, "T"])], ["y"], inits)


def test_snake_without_sin_gives_the_same_activation():
    rng = np.random.default_rng(2)
    # As in the model: mostly 0.1-2.3, a few tiny and a few negative.
    alpha = rng.uniform(0.1, 2.3, (1, C, 1)).astype(np.float32)
    alpha[0, :3, 0] = [1e-4, -0.026, -3e-3]
    inverse = (1 / alpha).astype(np.float32)
    model = _snake_model(alpha, inverse)
    x = (rng.normal(size=(1, C, T)) * 4).astype(np.float32)  # many periods of sin(alpha x)
    before = _run(model, {"x": x})[0]

    assert gr.snake_as_polynomial(model) == 1
    assert "Sin" not in _ops(model) and "Pow" not in _ops(model)
    after = _run(model, {"x": x})[0]
    # The graph computes the polynomial (to float32 rounding)...
    turns = x.astype(np.float64) * alpha / np.pi
    t = turns - np.round(turns)
    poly = sum(c * t ** (2 * i) for i, c in enumerate(gr.sin2_coefficients(), start=1))
    np.testing.assert_allclose(after, x + poly * inverse, rtol=1e-4, atol=1e-4)
    # ...which is the activation, within the polynomial's error scaled by 1/alpha.
    snake = before - x  # compare the activation's own term, not just x + small
    bound = SIN2_ERROR / np.abs(alpha) + 1e-4 * (1 + np.abs(snake))
    assert (np.abs((after - x) - snake) <= bound).all()
    # Tiny alphas stay relatively exact (the error bound above says nothing for them).
    tiny = np.abs(alpha[0, :, 0]) < 0.03
    assert tiny.any()
    np.testing.assert_allclose((after - x)[:, tiny], snake[:, tiny], rtol=2e-3, atol=1e-6)


def test_a_sin_that_is_not_a_snake_is_left_alone():
    alpha = np.full((1, C, 1), 0.5, np.float32)
    model = _snake_model(alpha, (1 / alpha).astype(np.float32))
    cube = numpy_helper.from_array(np.array(3.0, np.float32), "two")  # sin^3: something else
    model.graph.initializer[2].CopyFrom(cube)
    ops = _ops(model)
    assert gr.snake_as_polynomial(model) == 0
    assert _ops(model) == ops
