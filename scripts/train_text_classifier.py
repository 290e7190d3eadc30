"""Trains a small BiGRU text classifier over word vectors and exports it to ONNX for transformers.js.

Run by scripts/train-sentiment.ts and scripts/train-emotion.ts (npm run train:sentiment / train:emotion), which
tokenise the data with the shipped tokenizer.json (so training sees exactly the ids serving will), write it to a work
folder, and evaluate the exported model through transformers.js afterwards. Nothing at run time needs Python.

Input (the work folder): input.json (labels, hyper-parameters, examples per set) and embeddings.f32 (the initial word
table, vocabulary x dim, float32). Output: the ONNX file (inputs input_ids and attention_mask, int64 [batch, sequence];
output logits [batch, labels]) and report.json (per-epoch dev figures, the chosen epoch, the calibration).

With params.members > 1 the model is an ensemble: member i is trained from seed + i (`--member i` trains one alone,
so that several run at once; it keeps its best development check in the work folder), and the exported model answers
the mean of the members' logits, calibrated as one.

Deterministic on CPU: one seed for initialisation, dropout and batch order; a fixed thread count (--threads).
"""

import argparse
import hashlib
import json
import os
import random
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

from text_classifier_scoring import batches, calibrate, export, logits_of, slice_score, tensors


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out")
    p.add_argument("--threads", type=int, default=2)
    # Train only member i of the ensemble (seed + i) and save it in the work folder; without it, the members missing
    # there are trained in turn, combined, calibrated and exported.
    p.add_argument("--member", type=int, default=None)
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


class Ensemble(nn.Module):
    """The mean of its members' logits: members trained alike from different seeds disagree on different texts."""

    def __init__(self, members):
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, input_ids, attention_mask):
        return torch.stack([m(input_ids, attention_mask) for m in self.members]).mean(dim=0)


def load_spec(work):
    with open(os.path.join(work, "input.json"), "rb") as f:
        raw = f.read()
    spec = json.loads(raw)
    spec["_sha256"] = hashlib.sha256(raw).hexdigest()
    table = np.fromfile(os.path.join(work, "embeddings.f32"), dtype=np.float32).reshape(spec["vocab_size"], spec["dim"])
    return spec, table


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def make_optimizer(model, hp):
    rest = [p for n, p in model.named_parameters() if not n.startswith("embeddings.")]
    return torch.optim.Adam(
        [{"params": [model.embeddings.weight], "scale": hp.get("emb_lr_scale", 1.0)}, {"params": rest, "scale": 1.0}],
        lr=hp["lr"],
        weight_decay=hp.get("weight_decay", 0.0),
    )


def ema_update(ema, model, updates, ema_decay):
    # Early on the decay is smaller, (1 + t) / (10 + t) after t batches, so that the average does not stay near the
    # initial weights.
    decay = min(ema_decay, (1.0 + updates) / (10.0 + updates))
    with torch.no_grad():
        for k, v in model.state_dict().items():
            if v.dtype.is_floating_point:
                ema[k].mul_(decay).add_(v.double(), alpha=1.0 - decay)
            else:
                ema[k].copy_(v)


def dev_scores(model, ema, slices, labels):
    """The development figures (of the averaged weights when ema is on) and the weights they were taken with."""
    live = None
    if ema is not None:
        live = {k: v.clone() for k, v in model.state_dict().items()}
        model.load_state_dict({k: ema[k].to(live[k].dtype) for k in live})
    zs = [logits_of(model, s["examples"], labels) for s in slices]
    checked = {k: v.clone() for k, v in model.state_dict().items()}
    if live is not None:
        model.load_state_dict(live)
    model.train()
    return {s["name"]: slice_score(z, s, labels) for z, s in zip(zs, slices)}, checked


def run_epoch(run, epoch):
    """One pass over the training batches with its development checks; True when early stopping says stop."""
    model, hp, labels, train = run["model"], run["hp"], run["labels"], run["spec"]["train"]
    model.train()
    lr = hp["lr"] * (hp.get("lr_decay", 1.0) ** (epoch - 1))
    for g in run["opt"].param_groups:
        g["lr"] = lr * g["scale"]
    total, seen, t0 = 0.0, 0, time.time()
    plan = batches(train, hp["batch"], run["rng"], True)
    checks = run["checks"]
    # The development figures are taken after these batches (the last one ends the epoch).
    marks = {round(len(plan) * c / checks) - 1: c for c in range(1, checks + 1)}
    for step, idx in enumerate(plan):
        if step % 500 == 0:
            print(f"  {run['tag']}epoch {epoch}: batch {step} of {len(plan)} ({time.time() - t0:.0f} s)", flush=True)
        ids, mask, target, allowed, weight = tensors(train, idx, labels)
        z = model(ids, mask).masked_fill(allowed <= 0, -1e4)
        loss = (-(target * F.log_softmax(z, dim=1)).sum(dim=1) * weight).sum() / weight.sum()
        if not torch.isfinite(loss):
            # A diverged run would go on scoring and exporting a model that answers one class for everything.
            raise SystemExit(f"training diverged: the loss is {loss.item()} at epoch {epoch}, batch {step}; try a lower --lr or fewer words")
        run["opt"].zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        run["opt"].step()
        if run["ema"] is not None:
            run["updates"] += 1
            ema_update(run["ema"], model, run["updates"], run["ema_decay"])
        total += loss.item() * len(idx)
        seen += len(idx)
        if step not in marks:
            continue
        at = epoch if checks == 1 else round(epoch - 1 + marks[step] / checks, 3)
        scores, checked = dev_scores(model, run["ema"], run["spec"]["selection"], labels)
        mean = sum(scores.values()) / len(scores)
        run["history"].append({"epoch": at, "train_loss": round(total / seen, 6), "dev": scores, "mean": mean})
        print(f"{run['tag']}epoch {at}: loss {total / seen:.4f} dev " + " ".join(f"{k} {v:.4f}" for k, v in scores.items()) + f" mean {mean:.4f}", flush=True)
        if mean > run["best"][0]:
            run["best"], run["best_state"], run["bad"] = (mean, at), checked, 0
        else:
            run["bad"] += 1
            # Patience is counted in epochs' worth of checks.
            if run["bad"] >= hp.get("patience", 2) * checks:
                return True
    return False


def train_member(spec, table, seed, tag=""):
    """One model trained from this seed, with the weights of its best development check."""
    hp = spec["params"]
    seed_all(seed)
    labels = len(spec["labels"])
    model = BiGRUClassifier(table, hp["hidden"], labels, hp["dropout"], hp["emb_dropout"])
    # Polyak averaging: an exponential moving average of the weights after every batch, with this decay (0: off). The
    # development figures, early stopping and the exported model then use the averaged weights.
    ema_decay = float(hp.get("ema", 0.0))
    run = {
        "model": model, "hp": hp, "labels": labels, "spec": spec, "tag": tag,
        "opt": make_optimizer(model, hp), "rng": random.Random(seed),
        "checks": max(1, int(hp.get("checks_per_epoch", 1))),
        "ema": {k: v.detach().clone().double() for k, v in model.state_dict().items()} if ema_decay > 0 else None,
        "ema_decay": ema_decay, "updates": 0, "history": [], "best": (-1.0, -1), "best_state": None, "bad": 0,
    }
    for epoch in range(1, hp["epochs"] + 1):
        if run_epoch(run, epoch):
            break
    model.load_state_dict(run["best_state"])
    print(f"{tag}best epoch {run['best'][1]} (mean dev {run['best'][0]:.4f})", flush=True)
    return model, {"seed": seed, "history": run["history"], "best_epoch": run["best"][1], "best_mean": run["best"][0]}


def member_paths(work, i):
    return os.path.join(work, f"member-{i}.pt"), os.path.join(work, f"member-{i}.json")


def train_and_save_member(work, spec, table, i):
    """Member i (seed + i) of the ensemble, saved with the digest of the input it was trained on."""
    model, report = train_member(spec, table, spec["params"]["seed"] + i, tag=f"[member {i}] " if spec["params"].get("members", 1) > 1 else "")
    weights, meta = member_paths(work, i)
    torch.save(model.state_dict(), weights)
    with open(meta, "w") as f:
        json.dump({**report, "input_sha256": spec["_sha256"]}, f)


def load_member(work, spec, table, i):
    """Member i from the work folder; trained here when missing or trained on another input."""
    weights, meta = member_paths(work, i)
    report = None
    if os.path.exists(meta):
        with open(meta) as f:
            report = json.load(f)
    if report is None or report.get("input_sha256") != spec["_sha256"]:
        train_and_save_member(work, spec, table, i)
        with open(meta) as f:
            report = json.load(f)
    hp = spec["params"]
    model = BiGRUClassifier(table, hp["hidden"], len(spec["labels"]), hp["dropout"], hp["emb_dropout"])
    model.load_state_dict(torch.load(weights))
    return model, report


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    spec, table = load_spec(args.work)
    if args.member is not None:
        train_and_save_member(args.work, spec, table, args.member)
        return
    if not args.out:
        sys.exit("--out is required unless --member is given")
    count = int(spec["params"].get("members", 1))
    loaded = [load_member(args.work, spec, table, i) for i in range(count)]
    members = [m for m, _ in loaded]
    for m in members:
        # The word table ships in half precision (half the size); everything below scores the rounded table.
        with torch.no_grad():
            m.embeddings.weight.copy_(m.embeddings.weight.half().float())
    model = members[0] if count == 1 else Ensemble(members)
    calibration = calibrate(model, spec)
    # Both go into the output layers, so the ONNX logits are the calibrated ones (the mean of the members' logits
    # moves by the offsets when each member's does).
    with torch.no_grad():
        for m in members:
            m.out.weight.div_(calibration["temperature"])
            m.out.bias.div_(calibration["temperature"]).add_(torch.tensor(calibration["offsets"], dtype=torch.float32))
    export(model, args.out)
    first = loaded[0][1]
    report = {
        "history": first["history"],
        "best_epoch": first["best_epoch"],
        "members": [{k: r[k] for k in ("seed", "best_epoch", "best_mean", "history")} for _, r in loaded],
        "ema": float(spec["params"].get("ema", 0.0)),
        "calibration": calibration,
        "torch": torch.__version__,
        "threads": args.threads,
    }
    with open(os.path.join(args.work, "report.json"), "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
