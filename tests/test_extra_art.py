"""Tests of the extra tile art (datasets/extra_art.py): the KDE / GNOME tileset maps, the body keying,
the sources it adds to the renderer, and ``datasets.synth --extra-art``.

No KDE or GNOME file is in the repository or in ../shared: the tests build small stand-ins (an SVG sprite
sheet with KDE's element names, a GNOME-like strip of whole-tile cells) in a temporary folder."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PIL import Image

from datasets import extra_art, faces, synth
from vision.classes import CLASS_NAMES

FACES_42 = {c for c in CLASS_NAMES if c != "0x"}


@pytest.fixture()
def extra_dir(tmp_path, monkeypatch):
    d = tmp_path / "extra"
    monkeypatch.setenv("MAHJONG_EXTRA_ART", str(d))
    faces.extra_sources.cache_clear()
    faces.set_art.cache_clear()
    yield d
    faces.extra_sources.cache_clear()
    faces.set_art.cache_clear()


@pytest.mark.parametrize("name", ["traditional", "default", "classic", "bamboo"])
def test_every_kde_map_gives_the_42_faces_once(name):
    m = extra_art.kde_map(name)
    assert len(m) == 42 and set(m.values()) == FACES_42


def test_kde_maps_follow_the_faces_as_drawn():
    # looked at face by face: winds run N S E W except in 'bamboo'; 'classic' swaps Plum and Orchid
    assert extra_art.kde_map("traditional")["WIND_1"] == "4z" and extra_art.kde_map("bamboo")["WIND_1"] == "1z"
    assert extra_art.kde_map("classic")["FLOWER_1"] == "2f" and extra_art.kde_map("default")["FLOWER_1"] == "1f"
    assert extra_art.kde_map("default")["ROD_5"] == "5p" and extra_art.kde_map("default")["BAMBOO_5"] == "5s"


def test_the_gnome_strip_has_43_cells_and_42_faces():
    cells = extra_art.GNOME_CELLS
    assert len(cells) == 43 and cells[-1] is None
    assert set(c for c in cells if c) == FACES_42 and len([c for c in cells if c]) == 42


def test_key_out_body_keeps_the_ink_and_drops_the_body():
    cell = np.zeros((100, 80, 4), np.uint8)
    cell[...] = (235, 228, 205, 255)  # tile body
    cell[40:60, 30:50, :3] = (200, 20, 30)  # red ink in the face
    a = extra_art.key_out_body(cell)
    assert a.shape[0] < 40 and a.shape[1] < 40  # cropped to the ink (+2 px)
    assert a[..., 3].max() == 255 and a[0, 0, 3] == 0  # ink opaque, body transparent
    ys, xs = np.nonzero(a[..., 3] > 128)
    assert np.allclose(a[ys, xs, :3].mean(0), (200, 20, 30), atol=1)


def test_a_blank_face_is_a_transparent_layer():
    a = extra_art._crop_to_ink(np.zeros((30, 20, 4), np.uint8))
    assert a.shape == (200, 150, 4) and a.max() == 0


def _gnome_strip(path):
    cw, ch = 40, 56
    strip = np.zeros((2 * ch, 43 * cw, 4), np.uint8)
    strip[...] = (240, 236, 220, 255)
    for i in range(43):  # a different dark mark in each cell
        strip[10 + i % 20: 30 + i % 20, i * cw + 10: i * cw + 25, :3] = (i * 5, 40, 200 - i * 4)
    Image.fromarray(strip, "RGBA").save(path)


def test_extract_gnome_writes_each_face_and_its_source(tmp_path, extra_dir):
    src = tmp_path / "themes"
    src.mkdir()
    _gnome_strip(src / "smooth.png")
    assert extra_art.main(["--gnome", str(src)]) == 0
    d = extra_dir / "gnome-smooth"
    assert {p.stem for p in d.glob("*.png")} == FACES_42
    meta = json.loads((d / "SOURCE.json").read_text())
    assert meta["licence"] == "GPL-2.0-or-later" and "gnome-mahjongg" in meta["origin"]
    assert faces.extra_sources() == {"gnome-smooth": d}
    a = faces.set_art("gnome-smooth", "7z")
    assert a is not None and a.shape == (faces.ART_H, faces.ART_W, 4) and a[..., 3].max() > 200


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert (librsvg2-bin)")
def test_extract_kde_rasterises_each_element(tmp_path, extra_dir):
    m = extra_art.kde_map("traditional")
    rects = "".join(f'<rect id="{e}" x="{(i % 10) * 30}" y="{(i // 10) * 40}" width="20" height="30" fill="#a02030"/>'
                    for i, e in enumerate(m))
    src = tmp_path / "tilesets"
    src.mkdir()
    (src / "traditional.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200">{rects}</svg>')
    assert extra_art.main(["--kde", str(src)]) == 0
    d = extra_dir / "kde-traditional"
    assert {p.stem for p in d.glob("*.png")} == FACES_42
    im = np.asarray(Image.open(d / "4z.png"))  # WIND_1 → North
    assert im.shape[0] > im.shape[1] and im[..., 3].max() == 255  # one 20×30 rect, cropped


def test_extract_names_a_missing_folder(tmp_path, extra_dir, capsys):
    assert extra_art.main(["--kde", str(tmp_path / "nope")]) == 2
    assert "no folder" in capsys.readouterr().err


def test_synth_extra_art_needs_extracted_sets_and_is_off_by_default(tmp_path, extra_dir, capsys):
    base = ["--images", "1", "--seed", "3", "--workers", "1", "--crops-only", "--size", "320x240"]
    with pytest.raises(SystemExit):  # a share is in 0..1
        synth.main(["--out", str(tmp_path / "y")] + base + ["--extra-art", "1.5"])
    assert synth.main(["--out", str(tmp_path / "x")] + base + ["--extra-art", "0.5"]) == 2
    assert "datasets.extra_art" in capsys.readouterr().err
    src = tmp_path / "themes"
    src.mkdir()
    _gnome_strip(src / "smooth.png")
    assert extra_art.main(["--gnome", str(src)]) == 0
    faces.extra_sources.cache_clear()  # the sets are looked up once per process
    assert synth.main(["--out", str(tmp_path / "a")] + base) == 0
    assert synth.main(["--out", str(tmp_path / "b")] + base + ["--extra-art", "1"]) == 0
    rec_a = json.loads((tmp_path / "a" / synth.ARGS_FILE).read_text())
    rec_b = json.loads((tmp_path / "b" / synth.ARGS_FILE).read_text())
    assert "extra_art" not in rec_a and "gnome-smooth" not in rec_a["art_sources"]  # off: as before
    assert rec_b["extra_art"] == 1 and rec_b["art_sources"] == ["gnome-smooth"]


def test_seasons_show_any_flower_plant_in_some_wide_styles():
    flags = [faces._wide_style(s).bonus_any_plant for s in range(1, 200)]
    assert 0.3 < np.mean(flags) < 0.7
    s = next(i for i in range(1, 200) if faces._wide_style(i).bonus_any_plant)
    first = faces.wide_art(s, "2y").copy()
    faces._wide_art_cached.cache_clear()
    faces._wide_style.cache_clear()
    assert np.array_equal(faces.wide_art(s, "2y"), first)  # still a pure function of (style, code)


def test_extra_art_reaches_the_rendered_faces_without_shared(tmp_path, extra_dir, monkeypatch):
    from datasets import scene as scene_mod

    src = tmp_path / "themes"
    src.mkdir()
    _gnome_strip(src / "smooth.png")
    assert extra_art.main(["--gnome", str(src)]) == 0
    faces.extra_sources.cache_clear()
    monkeypatch.setattr(faces, "tile_art_dir", lambda: None)  # no ../shared: the extracted sets still load
    assert faces.art_file("gnome-smooth", "3s") == extra_dir / "gnome-smooth" / "3s.png"
    ts = scene_mod.TileSet(np.random.default_rng(0), {"gnome-smooth": 1.0})
    assert ts.source == "gnome-smooth"
    a = faces.art("gnome-smooth", ts.style, "3s")
    assert np.array_equal(a, faces.set_art("gnome-smooth", "3s"))
    if faces.cjk_fonts():  # not the procedural fallback
        assert not np.array_equal(a, faces.proc_art(ts.style, "3s"))
