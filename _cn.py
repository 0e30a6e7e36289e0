import numpy as np
from datasets.realcrops import *
from vision.classify import TALL, TALL_STRICT
from vision.classes import CLASS_NAMES
from vision.glyphs import load_glyph_reader, _region, ocr_root, OCR_CHARSET
root = real_root(); imgs, y, names = load_real(root)
runs, wide = model_runs(['models/classifier.onnx'], imgs)
aspect = np.array([i.shape[0] / i.shape[1] for i in imgs]); tall = aspect >= TALL_STRICT; tallish = (aspect >= TALL) & ~tall
up, pr, turn = turn_search(runs[0], wide, tall, tallish)
R = load_glyph_reader(2)
chars = [""] + (ocr_root() / OCR_CHARSET).read_text(encoding="utf-8").splitlines() + [" "]
idx = {c: i for i, c in enumerate(chars) if c}
CN = ["一", "二", "三", "四", "五伍", "六", "七", "八", "九"]
cols = [[idx[g] for g in s if g in idx] for s in CN]
m = [i for i in range(len(y)) if CLASS_NAMES[y[i]].endswith('m')]
for frac in [(0.0, 0.0, 1.0, 0.5), (0.1, 0.05, 0.9, 0.5), (0.05, 0.0, 0.95, 0.55)]:
    ok = 0; rows = []
    for i in m:
        im = np.rot90(imgs[i], turn[i]) if turn[i] else imgs[i]
        # crop is the tile's grown box: take the tile part (the photo is the whole tile here)
        p = _region(np.ascontiguousarray(im), frac)
        st = R._best_steps([p])[0]
        sc = np.array([st[c].max() for c in cols])
        true = int(CLASS_NAMES[y[i]][0])
        ok += int(sc.argmax() + 1 == true and sc.max() > 0.3)
        rows.append((names[i], true, int(sc.argmax()) + 1, round(float(sc.max()), 2), CLASS_NAMES[pr[i].argmax()], round(float(pr[i].max()), 2)))
    print(frac, 'read right', ok, 'of', len(m))
    for r in rows:
        if r[4] != f'{r[1]}m' or r[2] != r[1]: print('   ', r)
