"""The page's tile-set controls in a real browser (Playwright + Debian's Chromium, as in
test_web_browser.py) against a uvicorn server with the committed models: calibrate a set from a
rendered photo of the 42 faces, see it selected in the menu, read a photo with it and learn a fix.
Skips like test_web_browser.py (no Chromium / playwright / uvicorn) and without a CJK font."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from test_web_browser import _REASON, CHROMIUM, CHROMIUM_ARGS, _free_port

pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cal_photo(tmp_path_factory):
    from datasets import faces

    if not faces.cjk_fonts():
        pytest.skip("no CJK font for the generator's procedural faces")
    from PIL import Image

    from datasets.calibration import calibration_render, tile_set

    p = tmp_path_factory.mktemp("cal") / "faces.jpg"
    Image.fromarray(calibration_render(tile_set(1), 903).image).save(p, quality=90)
    return p


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    from web.app import Settings, create_app

    mp = pytest.MonkeyPatch()
    mp.setenv("MAHJONG_TILESETS", str(tmp_path_factory.mktemp("tilesets")))
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("data")))
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    t0 = time.monotonic()
    while not srv.started:
        if not th.is_alive() or time.monotonic() - t0 > 30:
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    srv.should_exit = True
    th.join(10)
    mp.undo()


def test_calibrate_from_the_page_select_the_set_and_learn_a_fix(server, cal_photo):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        pg = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(server)
        pg.wait_for_selector("body[data-ready]", timeout=20_000)
        pg.click("#settings > summary")
        assert pg.locator("#tileset option").all_text_contents() == ["standard (not calibrated)"]
        pg.click("#calibrate-box > summary")
        small = pg.evaluate("""[...document.querySelectorAll('#settings select, #settings input[type=text], #calibrate-box .big-button')]
            .filter(e => e.offsetParent !== null).map(e => [e.id, e.getBoundingClientRect()])
            .filter(([n, r]) => r.height < 44).map(([n, r]) => n + ' ' + r.height)""")
        assert not small, small  # ≥ 44 px tap targets, as the rest of the page
        pg.fill("#cal-name", "my-set")
        pg.set_input_files("#cal-photo", str(cal_photo))
        expect(pg.locator("#cal-report")).to_contain_text("42 tiles added", timeout=60_000)
        assert pg.input_value("#tileset") == "my-set"  # the new set is selected
        assert "my-set (42 faces, 42 examples)" in pg.locator("#tileset option").all_text_contents()
        pg.check("#learn")
        assert "tile set my-set (learning)" in pg.text_content("#settings-summary")
        # a photo read with the set; a tile fixed in the picker is learned
        pg.set_input_files("#photo", str(REPO / "docs" / "demo.jpg"))
        pg.wait_for_selector("#strip button.tile", timeout=60_000)
        pg.wait_for_selector("body:not([data-busy])", state="attached", timeout=60_000)
        pg.locator("#strip button.tile").first.click()
        pg.wait_for_selector("#picker:not([hidden])")
        code = "1f" if pg.get_attribute("#strip button.tile >> nth=0", "data-tile") != "1f" else "2f"
        pg.click(f"#picker-grid button[data-code='{code}']")
        expect(pg.locator("#toast")).to_contain_text("Tile set my-set learned 1 tile", timeout=60_000)
        b.close()
    assert not errors, errors
