"""Scoring, calibration and export of the BiGRU text classifiers (scripts/train_text_classifier.py): batches of
similar length, the development figures each slice is judged by, the temperature and class offsets fitted on them, and
the ONNX export with a half-precision word table."""

import math

import numpy as np
import torch


def batches(examples, batch, rng, shuffle):
    """Batches of similar length (less padding): sort by length within shuffled pools of 50 batches."""
    order = list(range(len(examples)))
    if shuffle:
        rng.shuffle(order)
    pool = batch * 50
    out = []
    for s in range(0, len(order), pool):
        chunk = sorted(order[s : s + pool], key=lambda i: len(examples[i]["ids"]))
        out.extend(chunk[b : b + batch] for b in range(0, len(chunk), batch))
    if shuffle:
        rng.shuffle(out)
    return out


def tensors(examples, idx, labels):
    n = max(len(examples[i]["ids"]) for i in idx)
    ids = torch.zeros((len(idx), n), dtype=torch.int64)
    mask = torch.zeros((len(idx), n), dtype=torch.int64)
    for r, i in enumerate(idx):
        seq = examples[i]["ids"]
        ids[r, : len(seq)] = torch.tensor(seq, dtype=torch.int64)
        mask[r, : len(seq)] = 1
    target = torch.tensor([examples[i].get("target", [0.0] * labels) for i in idx], dtype=torch.float32)
    allowed = torch.tensor([examples[i].get("allowed", [1.0] * labels) for i in idx], dtype=torch.float32)
    weight = torch.tensor([examples[i].get("weight", 1.0) for i in idx], dtype=torch.float32)
    return ids, mask, target, allowed, weight


def logits_of(model, examples, labels, batch=256):
    model.eval()
    out = np.zeros((len(examples), labels), dtype=np.float64)
    with torch.no_grad():
        for idx in batches(examples, batch, None, False):
            ids, mask, _, _, _ = tensors(examples, idx, labels)
            out[idx] = model(ids, mask).double().numpy()
    return out


def predict(z, allowed=None):
    if allowed is not None:
        z = np.where(np.array(allowed) > 0, z, -1e9)
    return z.argmax(axis=1)


def slice_score(z, s, labels):
    """The figure a development slice is judged by: accuracy (a prediction in the gold set), or macro recall."""
    allowed = s.get("allowed")
    pred = predict(z, allowed)
    gold = [set(e["gold"]) for e in s["examples"]]
    if s["metric"] == "macro_recall":
        first = [e["gold"][0] for e in s["examples"]]
        recalls = []
        for k in range(labels):
            n = sum(1 for g in first if g == k)
            if n:
                recalls.append(sum(1 for g, p in zip(first, pred) if g == k and p == k) / n)
        return sum(recalls) / len(recalls)
    if s["metric"] == "macro_f1":
        # As scripts/lib/text/classifier-eval.ts score(): a prediction in the gold set is a true positive, else a false
        # positive of its class and a false negative of the first gold label.
        tp, fp, fn = [0] * labels, [0] * labels, [0] * labels
        for e, p in zip(s["examples"], pred):
            if p in e["gold"]:
                tp[p] += 1
            else:
                fp[p] += 1
                fn[e["gold"][0]] += 1
        return sum(0.0 if tp[k] == 0 else 2 * tp[k] / (2 * tp[k] + fp[k] + fn[k]) for k in range(labels)) / labels
    return sum(1 for g, p in zip(gold, pred) if p in g) / len(gold)


def mean_nll(zs, slices, temperature):
    total = 0.0
    for z, s in zip(zs, slices):
        zz = z / temperature
        if s.get("allowed") is not None:
            zz = np.where(np.array(s["allowed"]) > 0, zz, -1e9)
        zz = zz - zz.max(axis=1, keepdims=True)
        logp = zz - np.log(np.exp(zz).sum(axis=1, keepdims=True))
        total += -np.mean([math.log(max(sum(math.exp(logp[i, k]) for k in e["gold"]), 1e-12)) for i, e in enumerate(s["examples"])])
    return total / len(slices)


def half_table(path):
    """Stores the word table as float16: Gather reads half-precision rows and a Cast widens only the rows read."""
    import onnx
    from onnx import helper, numpy_helper

    m = onnx.load(path)
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    for node in list(g.node):
        if node.op_type == "Gather" and node.input[0] in inits and len(inits[node.input[0]].dims) == 2 and inits[node.input[0]].dims[0] > 1000:
            table = numpy_helper.to_array(inits[node.input[0]]).astype(np.float16)
            inits[node.input[0]].CopyFrom(numpy_helper.from_array(table, node.input[0]))
            out = node.output[0]
            node.output[0] = out + "_half"
            cast = helper.make_node("Cast", [out + "_half"], [out], to=onnx.TensorProto.FLOAT, name=node.name + "_widen")
            pos = list(g.node).index(node)
            g.node.insert(pos + 1, cast)
    onnx.checker.check_model(m)
    onnx.save(m, path)


def calibrate(model, spec):
    """A temperature for honest probabilities (minimum mean log-loss), then per-class offsets on the logits (the last
    class fixed at 0) for the highest mean dev figure, both on the development slices."""
    slices, labels = spec["selection"], len(spec["labels"])
    zs = [logits_of(model, s["examples"], labels) for s in slices]
    temperature = 1.0
    for t in [round(0.5 + 0.05 * i, 2) for i in range(151)]:
        if mean_nll(zs, slices, t) < mean_nll(zs, slices, temperature) - 1e-12:
            temperature = t
    offsets = [0.0] * labels
    calibration = {"temperature": temperature, "offsets": offsets, "rule": spec.get("offset_rule", "none")}
    if spec.get("fit_offsets"):
        grid = [round(-1.5 + 0.1 * i, 2) for i in range(31)]

        def mean_score(o):
            return sum(slice_score(z / temperature + np.array(o), s, labels) for z, s in zip(zs, slices)) / len(slices)

        before = mean_score(offsets)
        # Coordinate ascent over the free classes, twice round; ties keep the smaller offset.
        for _ in range(2):
            for k in range(labels - 1):
                best_o, best_s = offsets[k], mean_score(offsets)
                for v in sorted(grid, key=abs):
                    trial = list(offsets)
                    trial[k] = v
                    sc = mean_score(trial)
                    if sc > best_s + 1e-9:
                        best_o, best_s = v, sc
                offsets[k] = best_o
        calibration.update(offsets=offsets, mean_dev_before=before, mean_dev_after=mean_score(offsets))
        print(f"offsets {offsets}: mean dev {before:.4f} -> {mean_score(offsets):.4f}", flush=True)
    print(f"temperature {temperature}", flush=True)
    return calibration


def export(model, path):
    model.eval()
    ids = torch.tensor([[2, 10, 11, 3]], dtype=torch.int64)
    mask = torch.ones_like(ids)
    torch.onnx.export(
        model,
        (ids, mask),
        path,
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}, "logits": {0: "batch"}},
        opset_version=14,
        do_constant_folding=True,
    )
    half_table(path)
