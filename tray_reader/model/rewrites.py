"""Rewrites of the Kokoro decoder graph into fewer, cheaper onnxruntime kernels, computing
the same (to float rounding).

- ``fused_instance_norms``: each AdaIN is exported as ``ReduceMean, Sub, Mul, ReduceMean,
  Add, Sqrt, Div`` (the instance norm over time) and then ``Mul(1 + gamma), Add(beta)``:
  nine passes over the tensor. onnxruntime's ``InstanceNormalization``, given ``1 + gamma``
  and ``beta`` as its scale and bias, does it in one kernel.
- ``snake_as_polynomial``: each snake activation ``x + sin(alpha x)^2 / alpha`` without
  ``Sin``, which onnxruntime runs on one core; see that function.

The fused variant also puts compiled operators (``custom_ops``) into the graph:
``fused_norm_snakes``, ``fused_dequantize`` and ``fused_stft``.

The harmonic source's STFT must stay onnxruntime's to the bit: a fifth of its bins are
numerically zero and their phase is whatever the rounding leaves, so another implementation
moves the audio (hence ``fused_stft``'s operator). Figures: docs/benchmarks.md.

onnx is imported only when a rewrite runs: the engine never needs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from tray_reader.model.graph import Graph

if TYPE_CHECKING:
    import onnx


SIN2_DEGREE = 3
"""Terms of the even polynomial standing in for sin^2 in the snake activations. Each term
is two passes over the tensor, and these elementwise kernels run on one core: degree 3 is
the fewest that kept the audio as close to the float model as degree 5 (see
docs/benchmarks.md, recipe 5)."""


def _norm_over_time(g: Graph, mean: onnx.NodeProto) -> tuple[list[onnx.NodeProto], str, float] | None:
    """If ``mean`` starts ``(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)`` over the last
    axis, its nodes, the Div that ends it and eps. ``x`` is taken to be [1, C, T], as every
    such tensor in the decoder is: shapes are unknown here (see `fused_instance_norms`)."""
    x = mean.input[0]
    axes = g.const(mean.input[1]) if len(mean.input) > 1 else None
    keepdims = {a.name: a.i for a in mean.attribute}.get("keepdims", 1)
    if axes is None or axes.tolist() not in ([2], [-1]) or keepdims != 1:
        return None
    sub = g.only_user(mean.output[0], "Sub")
    if sub is None or list(sub.input) != [x, mean.output[0]]:
        return None
    d = sub.output[0]
    users = g.users(d)
    square = next((u for u in users if u.op_type == "Mul" and list(u.input) == [d, d]), None)
    div = next((u for u in users if u.op_type == "Div" and u.input[0] == d), None)
    if square is None or div is None or len(users) != 2:
        return None
    var = g.only_user(square.output[0], "ReduceMean")
    var_axes = g.const(var.input[1]) if var is not None and len(var.input) > 1 else None
    if var is None or var_axes is None or var_axes.tolist() != axes.tolist():
        return None
    add = g.only_user(var.output[0], "Add")
    if add is None:
        return None
    eps = g.const(next((i for i in add.input if i != var.output[0]), ""))
    sqrt = g.only_user(add.output[0], "Sqrt")
    if eps is None or eps.size != 1 or sqrt is None or list(div.input) != [d, sqrt.output[0]]:
        return None
    return [mean, sub, square, var, add, sqrt, div], div.output[0], float(eps.reshape(-1)[0])


def fused_instance_norms(model: onnx.ModelProto) -> int:
    """Rewrite, in place, each instance norm over time followed (for every one of its
    users) by ``Mul(scale) -> Add(bias)`` with computed scale and bias, as one
    ``InstanceNormalization`` per user. Returns how many norms were rewritten.

    Scale and bias must be per channel ([1, C, 1], as the AdaIN's are): the graph does not
    say (shape inference stops inside the generator), so a model where they are not fails
    when it runs, which the fast model's build and its quality gate do."""
    from onnx import helper, numpy_helper

    g = Graph(model.graph)
    removed: set[str] = set()
    added: dict[str, list[onnx.NodeProto]] = {}
    flat = "instance_norm/flat"
    count = 0
    for mean in model.graph.node:
        if mean.op_type != "ReduceMean" or mean.output[0] in removed:
            continue
        found = _norm_over_time(g, mean)
        if found is None:
            continue
        nodes, normed, eps = found
        affine: list[tuple[onnx.NodeProto, onnx.NodeProto, str, str]] = []
        for mul in g.users(normed):
            scale = next((i for i in mul.input if i != normed), None) if mul.op_type == "Mul" else None
            add = g.only_user(mul.output[0], "Add") if scale is not None else None
            bias = next((i for i in add.input if i != mul.output[0]), None) if add is not None else None
            if add is None or scale is None or bias is None or scale in g.init or bias in g.init:
                affine = []
                break
            affine.append((mul, add, scale, bias))
        if not affine:
            continue
        count += 1
        removed |= {n.output[0] for n in nodes}
        for mul, add, scale, bias in affine:
            p = add.output[0]
            # At the user's Add: its scale and bias (computed from the style) are ready there.
            added[p] = [
                helper.make_node("Reshape", [scale, flat], [f"{p}/scale"], f"{p}/scale"),
                helper.make_node("Reshape", [bias, flat], [f"{p}/bias"], f"{p}/bias"),
                helper.make_node(
                    "InstanceNormalization",
                    [mean.input[0], f"{p}/scale", f"{p}/bias"],
                    [add.output[0]],
                    f"{p}/instance_norm",
                    epsilon=eps,
                ),
            ]
            removed |= {mul.output[0], add.output[0]}
    if count:
        g.replace(removed, added, [numpy_helper.from_array(np.array([-1], np.int64), flat)])
    return count


def sin2_coefficients(degree: int = SIN2_DEGREE) -> np.ndarray:
    """a_1..a_degree with sin(pi t)^2 ~ sum a_i t^(2i) on |t| <= 1/2. a_1 is pi^2, exact, so
    the activation stays relatively exact near zero, where a tiny alpha scales it by
    1/alpha; the rest by least squares on Chebyshev nodes (max error 1.8e-3 for degree 3,
    4.2e-5 for 4)."""
    t = 0.25 * (1.0 - np.cos(np.linspace(0.0, np.pi, 4001)))
    powers = np.stack([t ** (2 * i) for i in range(2, degree + 1)], axis=1)
    rest, *_ = np.linalg.lstsq(powers, np.sin(np.pi * t) ** 2 - (np.pi * t) ** 2, rcond=None)
    return np.concatenate([[np.pi**2], rest])


def _snake(
    g: Graph, sin: onnx.NodeProto
) -> tuple[list[onnx.NodeProto], str, np.ndarray, np.ndarray, str] | None:
    """If ``sin`` is in ``x + (1/alpha) * sin(alpha * x)^2`` with stored per-channel alpha and
    1/alpha: its nodes, x, alpha, 1/alpha and the output."""
    scaled = g.producer.get(sin.input[0])
    if scaled is None or scaled.op_type != "Mul":
        return None
    alpha_name = next((i for i in scaled.input if i in g.init), None)
    x = next((i for i in scaled.input if i != alpha_name), None)
    square = g.only_user(sin.output[0], "Pow")
    if alpha_name is None or x is None or square is None or g.only_user(scaled.output[0], "Sin") is None:
        return None
    two = g.const(square.input[1])
    times = g.only_user(square.output[0], "Mul")
    if two is None or two.size != 1 or float(two.reshape(-1)[0]) != 2.0 or times is None:
        return None
    inverse_name = next((i for i in times.input if i != square.output[0]), "")
    add = g.only_user(times.output[0], "Add")
    if inverse_name not in g.init or add is None or sorted(add.input) != sorted([x, times.output[0]]):
        return None
    alpha, inverse = g.const(alpha_name), g.const(inverse_name)
    assert alpha is not None and inverse is not None
    if alpha.shape != inverse.shape or alpha.ndim != 3 or alpha.shape[0] != 1 or alpha.shape[2] != 1:
        return None
    return [scaled, sin, square, times, add], x, alpha, inverse, add.output[0]


def _snakes(g: Graph) -> Iterator[tuple[list[onnx.NodeProto], str, np.ndarray, np.ndarray, str]]:
    """Each snake activation in the graph, as `_snake` finds it."""
    for sin in list(g.graph.node):
        found = _snake(g, sin) if sin.op_type == "Sin" else None
        if found is not None:
            yield found


def snake_as_polynomial(model: onnx.ModelProto, degree: int = SIN2_DEGREE) -> int:
    """Rewrite, in place, each snake activation ``x + (1/alpha) sin(alpha x)^2`` without Sin:
    with t = alpha x / pi - round(alpha x / pi), sin(alpha x)^2 = sin(pi t)^2, an even
    polynomial in t (``sin2_coefficients``) whose coefficients absorb 1/alpha. Returns how
    many were rewritten."""
    from onnx import helper, numpy_helper

    g = Graph(model.graph)
    coefficients = sin2_coefficients(degree)
    removed: set[str] = set()
    added: dict[str, list[onnx.NodeProto]] = {}
    inits = []
    for nodes, x, alpha, inverse, out in _snakes(g):
        p = out
        inits.append(numpy_helper.from_array((alpha / np.pi).astype(np.float32), f"{p}/alpha_over_pi"))
        inits += [
            numpy_helper.from_array((a * inverse).astype(np.float32), f"{p}/a{i}")
            for i, a in enumerate(coefficients, start=1)
        ]
        new = [
            helper.make_node("Mul", [x, f"{p}/alpha_over_pi"], [f"{p}/turns"], f"{p}/turns"),
            helper.make_node("Round", [f"{p}/turns"], [f"{p}/whole"], f"{p}/whole"),
            helper.make_node("Sub", [f"{p}/turns", f"{p}/whole"], [f"{p}/t"], f"{p}/t"),
            helper.make_node("Mul", [f"{p}/t", f"{p}/t"], [f"{p}/t2"], f"{p}/t2"),
            helper.make_node("Mul", [f"{p}/t2", f"{p}/a{degree}"], [f"{p}/h{degree}"], f"{p}/h{degree}"),
        ]
        for i in range(degree - 1, 0, -1):
            new += [
                helper.make_node("Add", [f"{p}/h{i + 1}", f"{p}/a{i}"], [f"{p}/s{i}"], f"{p}/s{i}"),
                helper.make_node("Mul", [f"{p}/s{i}", f"{p}/t2"], [f"{p}/h{i}"], f"{p}/h{i}"),
            ]
        new.append(helper.make_node("Add", [x, f"{p}/h1"], [out], f"{p}/snake"))
        removed |= {n.output[0] for n in nodes}
        added[out] = new
    if added:
        g.replace(removed, added, inits)
    return len(added)


def fused_norm_snakes(model: onnx.ModelProto) -> int:
    """Rewrite, in place, each ``InstanceNormalization -> snake -> QuantizeLinear`` where
    the norm's output feeds only the snake and the snake only the QuantizeLinear, as one
    ``NormSnakeQuantize`` node (see ``custom_ops``: a compiled kernel that must be
    registered with the session). Run after `fused_instance_norms` and before
    `snake_as_polynomial` (which then rewrites any snake left). Returns how many."""
    from onnx import helper, numpy_helper

    from tray_reader.model.custom_ops import DOMAIN, NORM_SNAKE

    g = Graph(model.graph)
    removed: set[str] = set()
    added: dict[str, list[onnx.NodeProto]] = {}
    inits = []
    outputs = {o.name for o in model.graph.output}
    for nodes, x, alpha, inverse, out in _snakes(g):
        norm, quantize = g.producer.get(x), g.only_user(out, "QuantizeLinear")
        if norm is None or norm.op_type != "InstanceNormalization" or quantize is None:
            continue
        shared = {u.output[0] for u in g.users(x)} != {nodes[0].output[0], nodes[-1].output[0]}
        if shared or {x, out} & outputs:
            continue  # the norm's or the snake's output is also used elsewhere
        scale = g.const(quantize.input[1])
        zero = g.const(quantize.input[2]) if len(quantize.input) > 2 else None
        if scale is None or zero is None or scale.size != 1 or zero.size != 1 or zero.dtype != np.uint8:
            continue  # the kernel quantises per tensor, to uint8
        epsilon = next((a.f for a in norm.attribute if a.name == "epsilon"), 1e-5)
        p = quantize.output[0]
        inits += [
            numpy_helper.from_array(alpha.reshape(-1).astype(np.float32), f"{p}/alpha"),
            numpy_helper.from_array(inverse.reshape(-1).astype(np.float32), f"{p}/inverse"),
        ]
        added[p] = [
            helper.make_node(
                NORM_SNAKE,
                [*norm.input[:3], f"{p}/alpha", f"{p}/inverse", *quantize.input[1:3]],
                [p],
                f"{p}/norm_snake",
                domain=DOMAIN,
                epsilon=epsilon,
            )
        ]
        removed |= {n.output[0] for n in nodes} | {norm.output[0], p}
    if added:
        g.replace(removed, added, inits)
        _import_custom_domain(model)
    return len(added)


def _per_tensor_uint8(g: Graph, dequantize: onnx.NodeProto) -> bool:
    """Whether a DequantizeLinear has a stored scalar scale and uint8 zero point."""
    if len(dequantize.input) < 3:
        return False
    scale, zero = g.const(dequantize.input[1]), g.const(dequantize.input[2])
    return scale is not None and zero is not None and scale.size == zero.size == 1 and zero.dtype == np.uint8


def fused_dequantize(model: onnx.ModelProto) -> int:
    """Rewrite, in place, each ``NormSnakeQuantize`` whose input is ``DequantizeLinear(q)``
    (the int8 convolution before it) as ``DequantizeNormSnakeQuantize(q, ...)``, and each
    whose input is ``Add(DequantizeLinear(q), residual)`` (a resblock's skip connection)
    as ``DequantizeAddNormSnakeQuantize(q, ..., residual) -> (sum, y)``, where the sum
    keeps the Add's name for its other users. The kernel dequantises row by row instead of
    onnxruntime writing the float tensor out and reading it back, with the same
    arithmetic: the audio is the same, bit for bit. Only where the dequantised tensor has
    no other user. Run after `fused_norm_snakes`. Returns how many were rewritten."""
    from onnx import helper

    from tray_reader.model.custom_ops import (
        DEQUANTIZE_ADD_NORM_SNAKE,
        DEQUANTIZE_NORM_SNAKE,
        DOMAIN,
        NORM_SNAKE,
    )

    g = Graph(model.graph)
    outputs = {o.name for o in model.graph.output}

    def dequantized(tensor: str) -> onnx.NodeProto | None:
        node = g.producer.get(tensor)
        if (
            node is None
            or node.op_type != "DequantizeLinear"
            or tensor in outputs
            or len(g.users(tensor)) != 1
        ):
            return None
        return node if _per_tensor_uint8(g, node) else None

    removed: set[str] = set()
    added: dict[str, list[onnx.NodeProto]] = {}
    place = {n.output[0]: i for i, n in enumerate(model.graph.node)}
    for norm in model.graph.node:
        if norm.domain != DOMAIN or norm.op_type != NORM_SNAKE:
            continue
        x, rest, attributes = norm.input[0], list(norm.input[1:]), {a.name: a.f for a in norm.attribute}
        source = g.producer.get(x)
        if source is None:
            continue
        dq = dequantized(x)
        if dq is not None:
            node = helper.make_node(
                DEQUANTIZE_NORM_SNAKE,
                [*dq.input[:3], *rest],
                [norm.output[0]],
                f"{norm.name}/dq",
                domain=DOMAIN,
            )
            key, gone = norm.output[0], {x, norm.output[0]}
        elif (
            source.op_type == "Add"
            and len(source.input) == 2
            and source.input[0] != source.input[1]
            and sum(u.op_type == NORM_SNAKE for u in g.users(x)) == 1  # one node makes the sum
            # The fused node stands where the norm did (the norm's scale and bias are made
            # after the Add): every other user of the sum must come after it.
            and all(place[u.output[0]] > place[norm.output[0]] for u in g.users(x) if u is not norm)
        ):
            first, second = source.input
            found = [(dequantized(t), other) for t, other in ((first, second), (second, first))]
            dq, residual = next(((d, r) for d, r in found if d is not None), (None, ""))
            if dq is None:
                continue
            node = helper.make_node(
                DEQUANTIZE_ADD_NORM_SNAKE,
                [*dq.input[:3], residual, *rest],
                [x, norm.output[0]],
                f"{norm.name}/dq_add",
                domain=DOMAIN,
            )
            key, gone = norm.output[0], {dq.output[0], x, norm.output[0]}
        else:
            continue
        node.attribute.extend(helper.make_attribute(k, v) for k, v in attributes.items())
        added[key], removed = [node], removed | gone
    if added:
        g.replace(removed, added, [])
    return len(added)


def _import_custom_domain(model: onnx.ModelProto) -> None:
    from onnx import helper

    from tray_reader.model.custom_ops import DOMAIN

    if all(o.domain != DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(DOMAIN, 1))


def _tensor_types(graph: onnx.GraphProto) -> dict[str, onnx.TypeProto.Tensor]:
    """The declared tensor types (element type, shape) of the graph's values."""
    return {
        v.name: v.type.tensor_type
        for v in [*graph.input, *graph.value_info, *graph.output]
        if v.type.HasField("tensor_type")
    }


def _real_float_signal(tensor: onnx.TypeProto.Tensor | None) -> bool:
    """Whether the STFT signal is float32, [batch, length] or [batch, length, 1]: a real
    signal, the only kind the compiled operator takes."""
    from onnx import TensorProto

    if tensor is None or tensor.elem_type != TensorProto.FLOAT or not tensor.HasField("shape"):
        return False
    dims = tensor.shape.dim
    return len(dims) == 2 or (len(dims) == 3 and dims[2].HasField("dim_value") and dims[2].dim_value == 1)


def _stft_attributes(g: Graph, node: onnx.NodeProto, overridable: set[str]) -> tuple[int, int] | None:
    """(frame step, frame length) if the compiled operator computes ``node`` (besides its
    signal, see `_real_float_signal`): onesided, a stored float32 window whose length is not a
    power of 2 (onnxruntime transforms those another way) and at most STFT_MAX_LENGTH, a
    stored frame step, and a frame length absent or the window's."""
    from tray_reader.model.custom_ops import STFT_MAX_LENGTH

    onesided = next((a.i for a in node.attribute if a.name == "onesided"), 1)
    inputs = list(node.input) + [""] * (4 - len(node.input))
    if onesided != 1 or not inputs[2] or {inputs[1], inputs[2], inputs[3]} & overridable:
        return None
    window, step = g.const(inputs[2]), g.const(inputs[1])
    length = g.const(inputs[3]) if inputs[3] else None
    if window is None or window.dtype != np.float32 or window.ndim != 1:
        return None
    n = window.shape[0]
    if n < 3 or n > STFT_MAX_LENGTH or n & (n - 1) == 0:
        return None
    if step is None or step.size != 1 or step.dtype.kind != "i" or int(step.reshape(-1)[0]) < 1:
        return None
    if inputs[3] and (length is None or length.size != 1 or int(length.reshape(-1)[0]) != n):
        return None
    return int(step.reshape(-1)[0]), n


def fused_stft(model: onnx.ModelProto) -> int:
    """Rewrite, in place, each ``STFT`` the compiled ``Stft`` operator computes (see
    ``custom_ops``: onnxruntime's output bit for bit, without its per-frame overhead) as
    that operator; others are left to onnxruntime. Returns how many were rewritten.

    The signal's shape comes from the graph, or from ONNX shape inference when the graph
    does not declare it (the decoder's comes from a Reshape to a computed shape)."""
    from onnx import helper

    from tray_reader.model.custom_ops import DOMAIN, STFT

    g = Graph(model.graph)
    overridable = {i.name for i in model.graph.input}
    found = [
        (node, attributes)
        for node in model.graph.node
        if node.op_type == "STFT"
        and node.domain in ("", "ai.onnx")
        and (attributes := _stft_attributes(g, node, overridable)) is not None
    ]
    if not found:
        return 0
    types = _tensor_types(model.graph)
    if any(not _real_float_signal(types.get(node.input[0])) for node, _ in found):
        from onnx import shape_inference

        types.update(_tensor_types(shape_inference.infer_shapes(model).graph))
    added: dict[str, list[onnx.NodeProto]] = {}
    for node, (step, length) in found:
        if not _real_float_signal(types.get(node.input[0])):
            continue
        out = node.output[0]
        added[out] = [
            helper.make_node(
                STFT,
                [node.input[0], node.input[2]],
                [out],
                f"{out}/stft",
                domain=DOMAIN,
                frame_step=step,
                frame_length=length,
            )
        ]
    if added:
        g.replace(set(added), added, [])
        _import_custom_domain(model)
    return len(added)


def simplify(model: onnx.ModelProto, fused: bool = False) -> dict[str, int]:
    """Apply the rewrites in place; how many of each were made. ``fused`` also puts the
    compiled operators in: each activation as one (`fused_norm_snakes`), reading the
    quantised convolution output before it (`fused_dequantize`), and the harmonic source's
    STFT (`fused_stft`)."""
    made = {"fused_instance_norms": fused_instance_norms(model)}
    if fused:
        made["fused_stft"] = fused_stft(model)
        made["fused_norm_snakes"] = fused_norm_snakes(model)
        made["fused_dequantize"] = fused_dequantize(model)
    made["snake_as_polynomial"] = snake_as_polynomial(model)
    return made
