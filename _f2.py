import numpy as np
from datasets import faces
import vision.glyphs as G
from datasets.realcrops import real_root, load_real
from vision.classes import CLASS_NAMES
R = G.load_glyph_reader(2)
chars = G.CHAR_NUMERALS
cols = R.top_cols
rend = []
for style in range(0, 24, 2):
    for code in ("1m", "2m", "3m", "7m", "9m"):
        rend.append((np.ascontiguousarray(faces.compose_face(faces.proc_art(style, code), (235, 230, 215), 150, 200, 12)[..., :3]), int(code[0])))
imgs, y, names = load_real(real_root())
real = [(imgs[i], int(CLASS_NAMES[y[i]][0])) for i in range(len(y)) if CLASS_NAMES[y[i]].endswith('m')]
def acc(data, frac):
    ok = wrong = 0
    for im, n in data:
        p = G._region(im, frac); st = R._best_steps([p])[0]
        sc = np.array([st[list(c)].max() for c in cols])
        if sc.max() > G.NUMERAL_NOISE:
            ok += sc.argmax() + 1 == n; wrong += sc.argmax() + 1 != n
    return ok, wrong
for frac in [(0.1, 0.05, 0.9, 0.5), (0.1, 0.05, 0.9, 0.45), (0.15, 0.08, 0.85, 0.45), (0.05, 0.05, 0.95, 0.42), (0.0, 0.0, 1.0, 0.45), (0.1, 0.1, 0.9, 0.5), (0.2, 0.05, 0.8, 0.5)]:
    print(frac, 'renders', acc(rend, frac), 'of', len(rend), 'real', acc(real, frac), 'of', len(real), flush=True)
