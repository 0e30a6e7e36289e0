// Tile faces drawn as small SVGs by this code (no copied art): window.TileFaces.svg(code) → <svg>.
// Codes as in scoring/tiles.py: 1m-9m characters, 1p-9p circles, 1s-9s bamboo, 1z-7z East South
// West North White Green Red, 1f-4f flowers, 1y-4y seasons, 0x a face-down tile.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const CJK_FONT = "'Noto Sans CJK SC', 'Noto Sans CJK JP', 'WenQuanYi Micro Hei', 'PingFang SC', 'Hiragino Sans', 'Microsoft YaHei', sans-serif";
  const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
  const HONOURS = { 1: ["東", "#1c2a4a"], 2: ["南", "#1c2a4a"], 3: ["西", "#1c2a4a"], 4: ["北", "#1c2a4a"],
                    6: ["發", "#1e7b45"], 7: ["中", "#c62828"] };
  const FLOWERS = ["梅", "蘭", "菊", "竹"];
  const SEASONS = ["春", "夏", "秋", "冬"];
  const BLUE = "#1d4e9e", GREEN = "#1e7b45", RED = "#c62828";
  // pip centres in a 30 × 40 face for 1..9
  const PIPS = {
    1: [[15, 20]],
    2: [[15, 11], [15, 29]],
    3: [[8, 9], [15, 20], [22, 31]],
    4: [[9, 11], [21, 11], [9, 29], [21, 29]],
    5: [[9, 10], [21, 10], [15, 20], [9, 30], [21, 30]],
    6: [[9, 9], [21, 9], [9, 20], [21, 20], [9, 31], [21, 31]],
    7: [[7, 7], [15, 10], [23, 13], [9, 23], [21, 23], [9, 33], [21, 33]],
    8: [[9, 7], [21, 7], [9, 15.7], [21, 15.7], [9, 24.3], [21, 24.3], [9, 33], [21, 33]],
    9: [[7, 9], [15, 9], [23, 9], [7, 20], [15, 20], [23, 20], [7, 31], [15, 31], [23, 31]],
  };
  const NAMES = {};

  function el(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function glyph(svg, ch, x, y, size, fill) {
    svg.appendChild(el("text", { x, y, "font-size": size, fill, "text-anchor": "middle",
                                 "font-family": CJK_FONT, "font-weight": "700" }, ch));
  }

  function circles(svg, n) {
    const r = n === 1 ? 8 : n <= 4 ? 5 : n <= 6 ? 4.4 : 3.7;
    PIPS[n].forEach(([x, y], i) => {
      const fill = n === 1 ? RED : [BLUE, GREEN, RED][(i + n) % 3];
      svg.appendChild(el("circle", { cx: x, cy: y, r, fill }));
      svg.appendChild(el("circle", { cx: x, cy: y, r: r * 0.45, fill: "#fdfaf0" }));
    });
  }

  function bamboo(svg, n) {
    if (n === 1) {  // one tall stick with a red knot (drawn, not the traditional bird)
      svg.appendChild(el("rect", { x: 12.5, y: 7, width: 5, height: 26, rx: 2.2, fill: GREEN }));
      svg.appendChild(el("rect", { x: 11.5, y: 18.5, width: 7, height: 3, rx: 1.2, fill: RED }));
      return;
    }
    const h = n <= 4 ? 10 : n <= 6 ? 8 : 7;
    PIPS[n].forEach(([x, y], i) => {
      const centre = n % 2 === 1 && i === (n === 7 ? 0 : Math.floor(n / 2));
      svg.appendChild(el("rect", { x: x - 1.7, y: y - h / 2, width: 3.4, height: h, rx: 1.4, fill: centre ? RED : GREEN }));
      svg.appendChild(el("rect", { x: x - 1.7, y: y - 0.5, width: 3.4, height: 1, fill: "#fdfaf0" }));
    });
  }

  /** An <svg> (viewBox 30 × 40) showing the tile ``code``; its <title> is the tile's English name. */
  function svg(code) {
    const s = el("svg", { viewBox: "0 0 30 40", class: "face", role: "img", "aria-label": name(code) });
    s.appendChild(el("title", {}, name(code)));
    const n = parseInt(code[0], 10), suit = code[1];
    if (code === "0x") {
      s.appendChild(el("rect", { x: 0.75, y: 0.75, width: 28.5, height: 38.5, rx: 3.5, fill: "#2e7d5b", stroke: "#1c4f39", "stroke-width": 1.5 }));
      s.appendChild(el("rect", { x: 5, y: 5, width: 20, height: 30, rx: 2, fill: "none", stroke: "#6fb592", "stroke-width": 1 }));
      return s;
    }
    s.appendChild(el("rect", { x: 0.75, y: 0.75, width: 28.5, height: 38.5, rx: 3.5, fill: "#fdfaf0", stroke: "#9c9483", "stroke-width": 1.5 }));
    if (suit === "m") {
      glyph(s, NUMERALS[n - 1], 15, 17, 13, "#1c2a4a");
      glyph(s, "萬", 15, 35, 14, RED);
    } else if (suit === "p") {
      circles(s, n);
    } else if (suit === "s") {
      bamboo(s, n);
    } else if (suit === "z" && n === 5) {  // White dragon: an empty blue frame
      s.appendChild(el("rect", { x: 6, y: 7, width: 18, height: 26, rx: 1.5, fill: "none", stroke: BLUE, "stroke-width": 2 }));
      s.appendChild(el("rect", { x: 9, y: 10, width: 12, height: 20, fill: "none", stroke: BLUE, "stroke-width": 0.8 }));
    } else if (suit === "z") {
      const [ch, fill] = HONOURS[n];
      glyph(s, ch, 15, 27, 18, fill);
    } else if (suit === "f" || suit === "y") {
      glyph(s, (suit === "f" ? FLOWERS : SEASONS)[n - 1], 15, 28, 16, suit === "f" ? "#7b3fa0" : "#a0520a");
      s.appendChild(el("text", { x: 25, y: 9, "font-size": 8, fill: "#5f5b52", "text-anchor": "middle",
                                 "font-family": "sans-serif", "font-weight": "700" }, String(n)));
    }
    return s;
  }

  function setNames(list) {
    for (const t of list) NAMES[t.code] = t.name;
  }

  function name(code) {
    return NAMES[code] || code;
  }

  window.TileFaces = { svg, setNames, name };
})();
