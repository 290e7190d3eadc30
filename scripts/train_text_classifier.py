"""Trains a small BiGRU text classifier over word vectors and exports it to ONNX for transformers.js.

Run by scripts/train-sentiment.ts and scripts/train-emotion.ts (npm run train:sentiment / train:emotion), which
tokenise the data with the shipped tokenizer.json (so training sees exactly the ids serving will), write it to a work
folder, and evaluate the exported model through transformers.js afterwards. Nothing at run time needs Python.

Input (the work folder): input.json (labels, hyper-parameters, examples per set) and embeddings.f32 (the initial word
table, vocabulary x dim, float32). Output: the ONNX file (inputs input_ids and attention_mask, int64 [batch, sequence];
output logits [batch, labels]) and report.json (per-epoch dev figures, the chosen epoch, the calibration).

Deterministic on CPU: one seed for initialisation, dropout and batch order; a fixed thread count (--threads).
"""

import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--threads", type=int, default=2)
    return p.parse_args()


class BiGRUClassifier(nn.Module):
    """Word vectors -> one bidirectional GRU layer -> [max, mean] over the tokens -> logits.

    The backward direction runs a forward GRU over each sequence reversed within its own length (padding stays at
    the end), so right-padded batches give every text the logits it gets alone.
    """

    def __init__(self, table, hidden, labels, dropout, emb_dropout):
        super().__init__()
        vocab, dim = table.shape
        self.embeddings = nn.Embedding(vocab, dim, padding_idx=0)
        self.embeddings.weight.data.copy_(torch.from_numpy(table))
        self.fwd = nn.GRU(dim, hidden, batch_first=True)
        self.bwd = nn.GRU(dim, hidden, batch_first=True)
        self.emb_dropout = nn.Dropout(emb_dropout)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(4 * hidden, labels)

    @staticmethod
    def reverse_index(mask):
        # Position t of a sequence of length n reads position n-1-t (t < n); padding positions read themselves.
        length = mask.sum(dim=1, keepdim=True)
        t = torch.arange(mask.shape[1], device=mask.device).unsqueeze(0).expand_as(mask)
        return torch.where(t < length, length - 1 - t, t)

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.to(torch.int64)
        x = self.emb_dropout(self.embeddings(input_ids))
        hf, _ = self.fwd(x)
        idx = self.reverse_index(mask).unsqueeze(-1)
        xr = torch.gather(x, 1, idx.expand(-1, -1, x.shape[2]))
        hr, _ = self.bwd(xr)
        hb = torch.gather(hr, 1, idx.expand(-1, -1, hr.shape[2]))
        h = torch.cat([hf, hb], dim=2)
        m = mask.unsqueeze(-1).to(h.dtype)
        mx = (h - (1.0 - m) * 1e4).max(dim=1).values
        mean = (h * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)
        return self.out(self.dropout(torch.cat([mx, mean], dim=1)))


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
        # As scripts/lib/text/bag-model.ts score(): a prediction in the gold set is a true positive, else a false
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


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    with open(os.path.join(args.work, "input.json")) as f:
        spec = json.load(f)
    hp = spec["params"]
    seed = hp["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    labels = len(spec["labels"])
    table = np.fromfile(os.path.join(args.work, "embeddings.f32"), dtype=np.float32).reshape(spec["vocab_size"], spec["dim"])
    model = BiGRUClassifier(table, hp["hidden"], labels, hp["dropout"], hp["emb_dropout"])
    train = spec["train"]
    slices = spec["selection"]
    emb_scale = hp.get("emb_lr_scale", 1.0)
    rest = [p for n, p in model.named_parameters() if not n.startswith("embeddings.")]
    opt = torch.optim.Adam(
        [{"params": [model.embeddings.weight], "scale": emb_scale}, {"params": rest, "scale": 1.0}],
        lr=hp["lr"],
        weight_decay=hp.get("weight_decay", 0.0),
    )
    rng = random.Random(seed)
    history = []
    best = (-1.0, -1)
    best_state = None
    bad = 0
    checks = max(1, int(hp.get("checks_per_epoch", 1)))
    stop = False
    # Polyak averaging: an exponential moving average of the weights after every batch, with this decay (0: off). The
    # development figures, early stopping and the exported model then use the averaged weights.
    ema_decay = float(hp.get("ema", 0.0))
    # Early on the decay is smaller, (1 + t) / (10 + t) after t batches, so that the average does not stay near the
    # initial weights.
    ema = {k: v.detach().clone().double() for k, v in model.state_dict().items()} if ema_decay > 0 else None
    updates = 0
    for epoch in range(1, hp["epochs"] + 1):
        model.train()
        lr = hp["lr"] * (hp.get("lr_decay", 1.0) ** (epoch - 1))
        for g in opt.param_groups:
            g["lr"] = lr * g["scale"]
        total, seen = 0.0, 0
        t0 = time.time()
        plan = batches(train, hp["batch"], rng, True)
        # The development figures are taken after these batches (the last one ends the epoch).
        marks = {round(len(plan) * c / checks) - 1: c for c in range(1, checks + 1)}
        for step, idx in enumerate(plan):
            if step % 500 == 0:
                print(f"  epoch {epoch}: batch {step} of {len(plan)} ({time.time() - t0:.0f} s)", flush=True)
            ids, mask, target, allowed, weight = tensors(train, idx, labels)
            z = model(ids, mask)
            z = z.masked_fill(allowed <= 0, -1e4)
            loss = (-(target * F.log_softmax(z, dim=1)).sum(dim=1) * weight).sum() / weight.sum()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            if ema is not None:
                updates += 1
                decay = min(ema_decay, (1.0 + updates) / (10.0 + updates))
                with torch.no_grad():
                    for k, v in model.state_dict().items():
                        if v.dtype.is_floating_point:
                            ema[k].mul_(decay).add_(v.double(), alpha=1.0 - decay)
                        else:
                            ema[k].copy_(v)
            total += loss.item() * len(idx)
            seen += len(idx)
            if step not in marks:
                continue
            at = epoch if checks == 1 else round(epoch - 1 + marks[step] / checks, 3)
            live = None
            if ema is not None:
                live = {k: v.clone() for k, v in model.state_dict().items()}
                model.load_state_dict({k: ema[k].to(live[k].dtype) for k in live})
            zs = [logits_of(model, s["examples"], labels) for s in slices]
            if live is not None:
                averaged = {k: v.clone() for k, v in model.state_dict().items()}
                model.load_state_dict(live)
            model.train()
            scores = {s["name"]: slice_score(z, s, labels) for z, s in zip(zs, slices)}
            mean = sum(scores.values()) / len(scores)
            history.append({"epoch": at, "train_loss": round(total / seen, 6), "dev": scores, "mean": mean})
            print(f"epoch {at}: loss {total / seen:.4f} dev " + " ".join(f"{k} {v:.4f}" for k, v in scores.items()) + f" mean {mean:.4f}", flush=True)
            if mean > best[0]:
                best = (mean, at)
                best_state = averaged if live is not None else {k: v.clone() for k, v in model.state_dict().items()}
                bad = 0
            else:
                bad += 1
                # Patience is counted in epochs' worth of checks.
                if bad >= hp.get("patience", 2) * checks:
                    stop = True
                    break
        if stop:
            break
    model.load_state_dict(best_state)
    print(f"best epoch {best[1]} (mean dev {best[0]:.4f})", flush=True)
    # The word table ships in half precision (half the size); everything below scores the rounded table.
    with torch.no_grad():
        model.embeddings.weight.copy_(model.embeddings.weight.half().float())

    # Calibration on the development slices: a temperature for honest probabilities (minimum mean log-loss), then
    # per-class offsets on the logits (the last class fixed at 0) for the highest mean dev figure; both go into the
    # output layer, so the ONNX logits are the calibrated ones.
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
    with torch.no_grad():
        model.out.weight.div_(temperature)
        model.out.bias.div_(temperature).add_(torch.tensor(offsets, dtype=torch.float32))

    model.eval()
    ids = torch.tensor([[2, 10, 11, 3]], dtype=torch.int64)
    mask = torch.ones_like(ids)
    torch.onnx.export(
        model,
        (ids, mask),
        args.out,
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}, "logits": {0: "batch"}},
        opset_version=14,
        do_constant_folding=True,
    )
    half_table(args.out)
    report = {"history": history, "best_epoch": best[1], "ema": ema_decay, "calibration": calibration, "torch": torch.__version__, "threads": args.threads}
    with open(os.path.join(args.work, "report.json"), "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
