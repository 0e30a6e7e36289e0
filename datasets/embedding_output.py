"""Give a classifier ONNX graph a second output ``embedding``: the features the final layer reads.

``python -m datasets.embedding_output [MODEL]`` (default ``models/classifier.onnx``) rewrites the
file in place (metadata kept, plus ``embedding_dim``). It walks back from the graph's first output
(``probs``) through Softmax/Identity/Add/Reshape-like nodes to the last ``Gemm`` or ``MatMul``, and
exposes that node's activation input — for ``tilenet`` the global-average-pooled penultimate
features, (B, D) float32 — through an ``Identity`` node named ``embedding``. Running it on a graph
that already has ``embedding`` changes nothing. The calibration to a user's own tile set
(:mod:`vision.tileset`) needs this output; ``models/CONTRACT.md`` describes it.

Source: weight imprinting (Qi, Brown & Lowe, "Low-Shot Learning with Imprinted Weights", CVPR 2018)
uses exactly these pre-classifier features as class prototypes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

EMBEDDING = "embedding"
#: nodes between the final linear layer and the probabilities output that keep the class axis
_PASS = {"Softmax", "Identity", "Add", "Reshape", "Flatten", "Squeeze", "Cast", "LogSoftmax", "Sigmoid"}


def add_embedding_output(model):
    """``onnx.ModelProto`` → the same model with an ``embedding`` output (B, D) float32 (in place;
    also returned). Raises ValueError when no final Gemm/MatMul with a constant weight is found."""
    from onnx import TensorProto, helper

    g = model.graph
    if any(o.name == EMBEDDING for o in g.output):
        return model
    producer = {t: n for n in g.node for t in n.output}
    inits = {i.name: i for i in g.initializer}
    t = g.output[0].name
    for _ in range(16):
        node = producer.get(t)
        if node is None:
            raise ValueError(f"no node produces {t!r}: cannot find the final linear layer")
        if node.op_type in ("Gemm", "MatMul"):
            break
        if node.op_type not in _PASS:
            raise ValueError(f"{node.op_type} node {node.name!r} before the output: cannot find the final linear layer")
        t = next((i for i in node.input if i and i not in inits), None)
        if t is None:
            raise ValueError(f"node {node.name!r} has no activation input")
    else:
        raise ValueError("no Gemm/MatMul within 16 nodes of the output")
    feat, weight = node.input[0], node.input[1]
    if weight not in inits:
        raise ValueError(f"the final {node.op_type}'s weight {weight!r} is not a constant")
    dims = list(inits[weight].dims)
    trans_b = node.op_type == "Gemm" and any(a.name == "transB" and a.i == 1 for a in node.attribute)
    d = int(dims[1] if trans_b else dims[0])
    batch = g.input[0].type.tensor_type.shape.dim[0]
    g.node.append(helper.make_node("Identity", [feat], [EMBEDDING], name="embedding_output"))
    out = helper.make_tensor_value_info(EMBEDDING, TensorProto.FLOAT, [batch.dim_param or batch.dim_value or "batch", d])
    g.output.append(out)
    props = {p.key: p for p in model.metadata_props}
    if "embedding_dim" in props:
        props["embedding_dim"].value = str(d)
    else:
        model.metadata_props.add(key="embedding_dim", value=str(d))
    return model


def main(argv: list[str] | None = None) -> int:
    import onnx

    ap = argparse.ArgumentParser(prog="python -m datasets.embedding_output", description=__doc__.split("\n")[0])
    ap.add_argument("model", nargs="?", default=str(Path(__file__).resolve().parents[1] / "models" / "classifier.onnx"))
    a = ap.parse_args(argv)
    m = onnx.load(a.model)
    had = any(o.name == EMBEDDING for o in m.graph.output)
    add_embedding_output(m)
    onnx.checker.check_model(m)
    if not had:
        onnx.save(m, a.model)
    d = next(p.value for p in m.metadata_props if p.key == "embedding_dim") if not had else "?"
    print(f"{a.model}: output {EMBEDDING!r} " + ("already present" if had else f"added, (B, {d}) float32"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
