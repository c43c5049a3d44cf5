"""A graph's producers, consumers and constants, for the recipe and the rewrites to match patterns."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx


class Graph:
    """Producers, consumers and constants of a graph, for matching patterns."""

    def __init__(self, graph: onnx.GraphProto) -> None:
        from onnx import numpy_helper

        self.graph = graph
        self.init = {t.name: t for t in graph.initializer}
        self.producer = {o: n for n in graph.node for o in n.output}
        self.consumers: dict[str, list[onnx.NodeProto]] = {}
        for n in graph.node:
            for x in dict.fromkeys(n.input):  # a node reading a tensor twice is one consumer
                self.consumers.setdefault(x, []).append(n)
        self._to_array = numpy_helper.to_array

    def const(self, name: str) -> np.ndarray | None:
        """The value of a stored or Constant-node tensor, else None."""
        if name in self.init:
            return self._to_array(self.init[name])
        node = self.producer.get(name)
        if (
            node is not None
            and node.op_type == "Constant"
            and node.attribute
            and node.attribute[0].name == "value"
        ):
            return self._to_array(node.attribute[0].t)
        return None

    def users(self, tensor: str) -> list[onnx.NodeProto]:
        return self.consumers.get(tensor, [])

    def only_user(self, tensor: str, op: str) -> onnx.NodeProto | None:
        users = self.users(tensor)
        return users[0] if len(users) == 1 and users[0].op_type == op else None

    def replace(self, removed: set[str], added: dict[str, list[onnx.NodeProto]], inits: Iterable) -> None:
        """Drop the nodes in ``removed``; put each list in ``added`` where the node it is keyed
        by stood (inputs are produced earlier, so the order stays topological). Nodes are
        known by their first output: names may be empty, tensor names are unique."""
        nodes = []
        for n in self.graph.node:
            nodes.extend(added.get(n.output[0], []))
            if n.output[0] not in removed:
                nodes.append(n)
        del self.graph.node[:]
        self.graph.node.extend(nodes)
        self.graph.initializer.extend(inits)
        used = {x for n in self.graph.node for x in n.input}
        kept = [t for t in self.graph.initializer if t.name in used]
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept)
