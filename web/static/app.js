// The mahjong-score phone page: photo → reading → tap a tile to fix it → score; table settlement.
// Talks to the JSON API of web/app.py; settings are remembered in localStorage.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const STORE = "mahjong-score:v1";
  const WINDS = [["E", "East"], ["S", "South"], ["W", "West"], ["N", "North"]];
  const CHECKS = ["not_winner", "last_tile", "first_turn", "announced_wait", "kong_on_kong"];
  // the settings that say how a hand was won: a non-winner's are greyed out and not sent (the API refuses
  // them with winner false, as the command line refuses them with --not-winner)
  const WON_INPUTS = ["win_by", "last_tile", "first_turn", "kong_on_kong", "winning_tile"];
  const ROLE_LABEL = { concealed: "concealed", winning: "winning tile", exposed: "exposed meld",
                       "concealed-kong": "concealed kong", bonus: "flowers & seasons" };
  const PICKER_GROUPS = [
    ["Characters", ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"]],
    ["Circles", ["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p"]],
    ["Bamboo", ["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s"]],
    ["Winds and dragons", ["1z", "2z", "3z", "4z", "5z", "6z", "7z"]],
    ["Flowers and seasons", ["1f", "2f", "3f", "4f", "1y", "2y", "3y", "4y"]],
    ["Face down", ["0x"]],
  ];

  let meta = null;                       // GET /api/rulesets
  let saved = load();
  const state = { mode: null, file: null, photoId: null, fixes: {}, adds: [], last: null, seq: 0, pickPos: null };

  // a reading's confidence as the command line shows it (vision.decode.format_confidence): never
  // "100%", which a referee reads as certain
  function percentSure(p) {
    if (p >= 0.995) return ">99%";
    if (p > 0 && p < 0.005) return "<1%";
    return `${Math.round(p * 100)}%`;
  }

  function load() {
    try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (e) { return {}; }
  }
  function store() {
    try { localStorage.setItem(STORE, JSON.stringify(saved)); } catch (e) { /* private mode: not remembered */ }
  }

  // the hand being worked on — the photo's id on the server and the corrections made, or the typed hand — kept in
  // this tab's sessionStorage, so that a reload (a phone reloads a tab left for the camera) or Back and Forward
  // bring it back (a tester's three corrections were lost to a reload, and the typed hand with them)
  const WORK = "mahjong-score:work";
  function keepWork() {
    const work = { mode: state.mode, photoId: state.photoId, fixes: state.fixes, adds: state.adds,
                   notation: $("notation").value, ruleset: $("ruleset").value };
    try { sessionStorage.setItem(WORK, JSON.stringify(work)); } catch (e) { /* private mode: not kept */ }
  }
  function keptWork() {
    try { return JSON.parse(sessionStorage.getItem(WORK)) || {}; } catch (e) { return {}; }
  }

  // ------------------------------------------------------------------ helpers
  class ApiErr extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  async function api(path, opts) {
    let resp;
    try {
      resp = await fetch(path, opts);
    } catch (e) {
      throw new ApiErr(0, "cannot reach the server (" + e.message + ")");
    }
    let body = null;
    try { body = await resp.json(); } catch (e) { body = null; }
    if (!resp.ok) {
      throw new ApiErr(resp.status, (body && body.error) || (resp.status + " " + resp.statusText));
    }
    return body;
  }

  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "class") e.className = attrs[k];
      else if (k === "text") e.textContent = attrs[k];
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== false) e.setAttribute(k, attrs[k]);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  function showError(msg) {
    const e = $("error");
    e.textContent = msg || "";
    e.hidden = !msg;
    if (msg) e.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  let toastTimer = null;
  function toast(msg) {
    const t = $("toast");
    t.textContent = msg;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, 2500);
  }

  function busy(on, text) {
    document.body.toggleAttribute("data-busy", on);
    $("busy").textContent = text || "Working…";
    $("busy").hidden = !on;
  }

  // "002_b9f4c4575200caaf.txt:13" → "002:13" (the seed document and line)
  function shortSource(src) {
    return String(src || "").replace(/\b(\d{3})_[0-9a-f]{8,}\.txt:/g, "$1:");
  }

  function windButtons(containerId, name, onChange) {
    const box = $(containerId);
    box.textContent = "";
    for (const [code, label] of WINDS) {
      const input = h("input", { type: "radio", name, value: code, "aria-label": label });
      input.addEventListener("change", onChange);
      box.append(h("label", { title: label }, input, h("span", { text: code })));
    }
  }
  function radioValue(name) {
    const r = document.querySelector(`input[name="${name}"]:checked`);
    return r ? r.value : null;
  }
  function setRadio(name, value) {
    const r = document.querySelector(`input[name="${name}"][value="${value}"]`);
    if (r) r.checked = true;
  }

  // ------------------------------------------------------------------ settings
  function rulesetMeta(id) {
    return meta.rulesets.find((r) => r.id === id) || meta.rulesets[0];
  }

  function buildRulesetControls() {
    const rs = rulesetMeta($("ruleset").value);
    // flags
    const flags = (saved.flags || {})[rs.id] || [];
    const fbox = $("flags");
    fbox.textContent = "";
    for (const f of rs.flags) {
      const cb = h("input", { type: "checkbox", value: f, "data-flag": f });
      cb.checked = flags.includes(f);
      cb.addEventListener("change", settingsChanged);
      fbox.append(h("label", {}, cb, " " + f));
    }
    $("flags-box").hidden = rs.flags.length === 0;
    // options
    const opts = (saved.options || {})[rs.id] || {};
    const obox = $("options");
    obox.textContent = "";
    if (!rs.options.length) obox.append(h("p", { class: "muted small", text: "This ruleset has no options." }));
    for (const o of rs.options) {
      const sel = h("select", { "data-option": o.name, "data-default": String(o.default) });
      for (const c of o.choices) {
        const label = String(c) + (String(c) === String(o.default) ? " (default)" : "");
        sel.append(h("option", { value: String(c), text: label }));
      }
      sel.value = o.name in opts ? String(opts[o.name]) : String(o.default);
      sel.addEventListener("change", settingsChanged);
      obox.append(h("label", { class: "field option" },
        h("span", { class: "opt-name", text: o.name + (o.ambiguity ? "  [" + o.ambiguity + "]" : "") }),
        sel, h("span", { class: "small muted", text: pageWords(o.doc) })));
    }
  }

  function readSettings() {
    const s = {
      ruleset: $("ruleset").value,
      seat_wind: radioValue("seat") || "E",
      round_wind: radioValue("round") || "E",
      win_by: $("win_by").value,
      dealer: $("dealer").value,
      dealer_streak: $("dealer_streak").value || "0",
      discards: $("discards").value,
      winning_tile: $("winning_tile").value.trim(),
      exposed: $("exposed").value.trim(),
      tileset: $("tileset").value,
      learn: $("learn").checked,
    };
    for (const c of CHECKS) s[c] = $(c).checked;
    s.flags = [...document.querySelectorAll("#flags input[data-flag]:checked")].map((e) => e.value);
    s.options = {};
    for (const sel of document.querySelectorAll("#options select[data-option]")) {
      if (sel.value !== sel.dataset.default) s.options[sel.dataset.option] = sel.value;
    }
    return s;
  }

  function applySettings(s) {
    const rs = s.ruleset || "nts";
    if (meta.rulesets.some((r) => r.id === rs)) $("ruleset").value = rs;
    setRadio("seat", s.seat_wind || "E");
    setRadio("round", s.round_wind || "E");
    if (s.win_by) $("win_by").value = s.win_by;
    $("dealer").value = s.dealer || "";
    $("dealer_streak").value = s.dealer_streak || "0";
    $("discards").value = s.discards || "";
    $("winning_tile").value = s.winning_tile || "";
    $("exposed").value = s.exposed || "";
    $("learn").checked = !!s.learn;
    for (const c of CHECKS) $(c).checked = !!s[c];
    syncWinner();
    buildRulesetControls();
  }

  function syncWinner() {
    const nw = $("not_winner").checked;
    for (const id of WON_INPUTS) {
      $(id).disabled = nw;
      $(id).title = nw ? "a hand that did not go mahjong was not won: untick “Not the winner” to set it" : "";
    }
  }

  function summarize(s) {
    const parts = [s.ruleset, "seat " + s.seat_wind, "round " + s.round_wind, s.not_winner ? "not winner" : s.win_by];
    if (s.tileset) parts.push("tile set " + s.tileset + (s.learn ? " (learning)" : ""));
    const n = Object.keys(s.options).length + s.flags.length;
    if (n) parts.push(n + " option" + (n > 1 ? "s" : ""));
    // (the photo's overrides, kept in the page's storage: a web tester's next photo was refused for melds typed
    // for the one before, and the summary had not shown them)
    if (s.winning_tile && !s.not_winner) parts.push("winning tile " + s.winning_tile);
    if (s.exposed) parts.push("melds " + s.exposed);
    $("settings-summary").textContent = parts.join(" · ");
  }

  let rescoreTimer = null;
  function settingsChanged(ev) {
    if (ev && ev.target && ev.target.id === "ruleset") buildRulesetControls();
    syncWinner();
    saveSettings();
    if (state.mode) {
      clearTimeout(rescoreTimer);
      rescoreTimer = setTimeout(rescore, 250);
    }
  }

  function saveSettings() {
    const s = readSettings();
    saved.ctx = Object.assign({}, s, { flags: undefined, options: undefined });
    saved.flags = Object.assign({}, saved.flags, { [s.ruleset]: s.flags });
    saved.options = Object.assign({}, saved.options, { [s.ruleset]: s.options });
    store();
    summarize(s);
  }

  function rescore() {
    if (state.mode === "photo") scorePhoto();
    else if (state.mode === "notation") scoreNotation();
  }

  // ------------------------------------------------------------------ scoring
  function contextJSON(s) {
    const won = !s.not_winner;  // (a non-winner's win circumstances stay in the settings, unsent)
    return {
      seat_wind: s.seat_wind, round_wind: s.round_wind, winner: won, win_by: won ? s.win_by : "discard",
      last_tile: won && s.last_tile, first_turn: won && s.first_turn, announced_wait: s.announced_wait,
      kong_on_kong: won && s.kong_on_kong, dealer: s.dealer === "" ? null : s.dealer === "true",
      dealer_streak: count(s.dealer_streak, 0), discards: count(s.discards, null), flags: s.flags,
    };
  }

  // a count box's value: its digits as a number, blank as `blank`; anything else as typed, for the server to
  // refuse by name (parseInt had read a tester's discards "1e1" as 1 and "2.7" as 2, and scored them)
  function count(value, blank) {
    const v = String(value ?? "").trim();
    return v === "" ? blank : /^\d+$/.test(v) ? parseInt(v, 10) : v;
  }

  async function scorePhoto() {
    if (!state.file && !state.photoId) return;
    const s = readSettings();
    const c = contextJSON(s);
    const fd = new FormData();
    if (state.photoId) fd.append("photo_id", state.photoId);
    else {
      fd.append("image", state.file, state.file.name || "photo.jpg");
      if (state.turn !== null && state.turn !== undefined) fd.append("turn", String(state.turn));
    }
    fd.append("ruleset", s.ruleset);
    for (const k of ["seat_wind", "round_wind", "win_by", "winner", "last_tile", "first_turn",
                     "announced_wait", "kong_on_kong", "dealer_streak"]) fd.append(k, String(c[k]));
    if (c.dealer !== null) fd.append("dealer", String(c.dealer));
    if (c.discards !== null) fd.append("discards", String(c.discards));
    fd.append("flags", s.flags.join(","));
    fd.append("options", JSON.stringify(s.options));
    fd.append("fixes", Object.entries(state.fixes).map(([k, v]) => k + "=" + v).join(","));
    if (state.adds.length) fd.append("adds", state.adds.map(([k, v]) => k + "=" + v).join(","));
    if (s.winning_tile && !s.not_winner) fd.append("winning_tile", s.winning_tile);
    if (s.exposed) fd.append("exposed", s.exposed);
    if ((s.winning_tile && !s.not_winner) || s.exposed) {
      // (cleared for the next photo; kept in the page's storage as the overrides are, so that a reload between
      // two photos does not read the next with the last one's)
      saved.overridden = true;
      store();
    }
    if (s.tileset) fd.append("tileset", s.tileset);
    if (s.tileset && s.learn) fd.append("learn", "true");
    const seq = ++state.seq;
    busy(true, state.photoId ? "Scoring…" : "Reading the photo…");
    try {
      const res = await api("/api/score", { method: "POST", body: fd });
      if (seq !== state.seq) return;
      showError("");
      state.photoId = res.photo_id;
      state.last = res;
      state.before = null;
      keepWork();
      renderPhoto(res);
      if (state.refocus !== null && state.refocus !== undefined) {
        // (a keyboard user's focus had dropped to the page after a pick, and Tab began again at the top)
        const b = document.querySelector(`#strip button[data-pos="${state.refocus}"]`);
        if (b) b.focus({ preventScroll: true });
        state.refocus = null;
      }
      renderScore(res.score, res);
      if (res.learned) toast(`Tile set ${res.tileset} learned ${res.learned} tile${res.learned > 1 ? "s" : ""}`);
      else if (res.not_learned) toast(`Tile set ${res.tileset}: ${res.not_learned}`);
    } catch (e) {
      if (seq !== state.seq) return;
      if (e.status === 404 && state.photoId && state.file) {  // the server forgot the photo: upload again
        state.photoId = null;
        busy(false);
        return scorePhoto();
      }
      if (e.status === 404 && state.photoId && !state.file) {
        // a photo brought back after a reload that the server no longer holds (restarted, or past its last few)
        state.photoId = null;
        state.mode = null;
        keepWork();
        showError("The photo you were working on is no longer on the server (it keeps only the last few): " +
                  "take or choose it again.");
        return;
      }
      if (state.before && e.status >= 400 && e.status < 500) {
        // a correction refused: the reading shown is the one before it, and so are the corrections (a
        // refused add kept in them had made the tile at its number edit the add, with no way to undo it)
        state.fixes = state.before.fixes;
        state.adds = state.before.adds;
        if ("photoId" in state.before) {  // (a "Read it as taken" refused: the turned reading stands again)
          state.photoId = state.before.photoId;
          state.turn = state.before.turn;
          keepWork();
        }
      }
      state.before = null;
      showError(pageWords(e.message));  // (a correction refused: "Fix: there is no tile 17 …")
    } finally {
      if (seq === state.seq) busy(false);
    }
  }

  // the Overrides (winning tile, exposed melds) emptied for another hand than theirs, with `said` as a toast when
  // there were any
  function clearOverrides(said) {
    const had = $("winning_tile").value.trim() || $("exposed").value.trim();
    $("winning_tile").value = "";
    $("exposed").value = "";
    saved.overridden = false;
    saved.overriddenHand = "";
    saveSettings();
    if (had) toast(said);
  }

  async function scoreNotation() {
    const notation = $("notation").value.trim();
    if (!notation) return;
    // the Overrides' winning tile is the hand's it was given for (a photo's, or the last typed hand's): another hand
    // is scored without it, however it is scored — sent, re-scored for a setting, brought back after a reload (a web
    // tester's 1z, typed there for one hand, was held against the next: "winning tile 1z is not among the concealed
    // tiles"; a reviewer's photo's 5p scored a typed hand without a word)
    if ((saved.overriddenHand && saved.overriddenHand !== notation) || saved.overridden) {
      clearOverrides("Overrides cleared for the new hand");
    }
    const s = readSettings();
    const body = { notation, ruleset: s.ruleset, context: contextJSON(s), options: s.options };
    if (s.winning_tile && !s.not_winner) {
      body.winning_tile = s.winning_tile;
      saved.overriddenHand = notation;  // (the hand it was given for: cleared when another is typed)
      store();
    }
    const seq = ++state.seq;
    busy(true, "Scoring…");
    try {
      const res = await api("/api/hand", { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify(body) });
      if (seq !== state.seq) return;
      showError("");
      $("result").hidden = true;
      keepWork();
      renderScore(res, null);
    } catch (e) {
      if (seq !== state.seq) return;
      $("score").hidden = true;
      showError(pageWords(e.message));  // (a refusal naming the command line's --win-by, --not-winner, …)
    } finally {
      if (seq === state.seq) busy(false);
    }
  }

  // the reader's advice names command-line options: on the page, its own controls
  // (checked against every message of vision/decode.py and vision/pipeline.py that names a flag:
  // tests/test_web_browser.py runs them through it)
  const PAGE_WORDS = [
    // (a suggested tile beside one the user left out stands for it, vision.pipeline._fixes_after_adds)
    [/--add \d+=\w+(?:,\d+=\w+)*(?: or \d+=\w+(?:,\d+=\w+)*)* stands for the tile you leave out: keep tile (\d+) in the hand instead/g,
     "the tile to add stands for the one you left out: keep tile $1 in the hand instead"],
    // (advice on a tile the user added, vision.pipeline: the picker of an added tile has "Take out this added tile")
    [/it is a tile you added: leave out --add \d+=\w+/g, "it is a tile you added: tap it and “Take out this added tile”"],
    [/add it as (\w+) instead: it is a tile you added \(--add \d+=\w+\)/g,
     "take out the tile you added and add it as $1 instead"],
    // (the user's --fix numbers as they read with a suggested --add: the page keeps its taps on their tiles itself)
    [/; with --add \d+=\w+, your corrections are --fix [\w=,-]+/g, ""],
    // (a flower read among the hand's tiles, vision.decode._extra_tile_hint: left out, then added as a bonus tile)
    [/count it as a bonus tile with --fix \d+=- --add \d+=(\w+)/g,
     "count it as a bonus tile: mark it “Not in the hand”, then “+ Add a missed tile”, choosing $1"],
    // (a tile set by the user whose box was left out: added instead, vision.pipeline)
    [/ in place of --fix \d+=\w+/g, ", instead of setting that box"],
    [/which you leave out with --fix \d+=-/g, "which you marked “Not in the hand”"],
    // (a doubtful box counted as a tile of the hand, vision.pipeline._doubtful_sureness)
    [/check it \(--fix \d+=- if it is no tile, --fix \d+=TILE if it is another\)/g,
     "tap it: “Not in the hand” if it is no tile, its face if it is another"],
    [/\(no --fix \d+=-\)/g, "(untick “Not in the hand”)"],
    [/set its face with --fix \d+=TILE/g, "set its face by tapping it"],
    [/set their faces with --fix \d+=TILE(?:,\d+=TILE)*/g, "set their faces by tapping them"],
    [/leave (it|them) out with --fix \d+=-(?:,\d+=-)*/g, "mark $1 “Not in the hand” in the tile picker"],
    [/correct it with --fix \d+=TILE instead/g, "correct it by tapping it instead"],
    [/\(also --add (\d+)=(\w+)\)/g, "(also as tile $1)"],
    [/is also given with --fix (\d+)=(\w+);/g, "is also given to tile $1;"],
    // (flowers/seasons far from the row counted as the hand's, vision.pipeline._far_counted_sureness)
    [/if the hand's, say so with --fix \d+=\w+(?:,\d+=\w+)*/g, "if the hand's, confirm them by tapping each and choosing its face"],
    // (a tile left out beside a non-winner's concealed tiles, vision.decode._beside_left_out_sureness)
    [/say so with --fix \d+=-(?:,\d+=-)+/g, "mark them “Not in the hand” in the tile picker"],
    [/say so with --fix \d+=-/g, "mark it “Not in the hand” in the tile picker"],
    // (a tile laid sideways boxed as two halves, vision.decode._boxed_twice_hint)
    [/if it is one, set it with --fix (\d+)=(\w+),(\d+)=- --winning-tile \w+/g,
     "if it is one, tap tile $1 and choose $2, mark tile $3 “Not in the hand”, and type $2 in “Winning tile” under Overrides in Settings"],
    [/if it is one, set it with --fix (\d+)=(\w+),(\d+)=-/g,
     "if it is one, tap tile $1 and choose $2, and mark tile $3 “Not in the hand”"],
    // (a tile over lying beside a flower, vision.decode._beside_bonus_words)
    [/if it is one, set it with --fix \d+=(\w+)/g, "if it is one, tap it and choose $1"],
    // (a hand one misread tile from legal, each tile and face named, vision.decode._one_change_hint)
    [/\(--fix (\d+)=(\w+)\)/g, "(tap tile $1 and choose $2)"],
    // (a flower set apart where a winner's tile lies, the hand a tile short, vision.decode.winning_apart_words)
    [/if it is the (\w+), set it with --fix \d+=\w+/g, "if it is the $1, tap it and choose $1"],
    // (a box read as a flower touching the tiles it would complete, vision.decode.flower_beside_alike)
    [/if it is an? (\w+), set it with --fix \d+=\w+/g, "if it is one, tap it and choose $1"],
    [/say which tile won with --winning-tile/g, "say which tile won in “Winning tile” (Overrides)"],
    [/given with --winning-tile/g, "given in “Winning tile” (Overrides)"],
    [/or give --winning-tile\)/g, "or type it in “Winning tile” under Overrides in Settings)"],
    [/or give --winning-tile TILE/g, "or type it in “Winning tile” under Overrides in Settings"],
    [/your --winning-tile/g, "your “Winning tile”"],
    [/--(fix|add) '/g, (m, w) => (w === "fix" ? "Fix '" : "Add '")],
    [/with --fix POS=-/g, "with “Not in the hand” in the tile picker"],
    [/\(--fix POS=-[^)]*\)/g, "(“Not in the hand”)"],
    [/correct them with --fix POS=5z/g, "tap them and choose White (5z)"],
    [/(correct (?:it|them|tiles|a tile)|set them) with --fix(?: POS=[^\s),;]+)?/g, "$1 by tapping the tile"],
    [/one you added with --add/g, "one you added"],
    [/--add the tile the photo missed/g, "add the tile the photo missed with “+ Add a missed tile”"],
    [/ \(e\.g\. --add \d+=\w+\)/g, ""],
    // (a second loose flowers' note whose faces the first one's --add already adds)
    [/count (it|them) with the --add above \(([^)]*)\)/g, "count $1 with “+ Add a missed tile”, as above ($2)"],
    // (a rival region's bonus tile whose face the classifier is unsure of, vision.pipeline.rival_words: its likeliest
    // faces said, the one to pick the one the photo shows)
    [/count (it|them) with --add \d+=FACE \(FACE the face it shows: ([^)]*)\)/g,
     "count $1 with “+ Add a missed tile”, choosing the face it shows ($2)"],
    // (a loose flower's note: the page's button chooses the place, so only the faces to pick are said)
    [/count (it|them) with --add (\d+=\w+(?:,\d+=\w+)*)/g,
     (m, it, adds) => `count ${it} with “+ Add a missed tile”, choosing ` + adds.split(",").map((a) => a.split("=")[1]).join(", then ")],
    // (the face to pick is said, Face down for 0x: a reviewer's page said only "add it with “+ Add a missed tile”"
    // of a pung's third tile, 7s)
    [/add (it|them) with --add (\d+=\w+(?:,\d+=\w+)*)/g,
     (m, it, adds) => `add ${it} with “+ Add a missed tile”, choosing ` +
       adds.split(",").map((a) => (a.split("=")[1] === "0x" ? "Face down" : a.split("=")[1])).join(", then ")],
    [/add (it|them) with --add/g, "add $1 with “+ Add a missed tile”"],
    [/with --add(?: POS=TILE| \d+=\w+)?/g, "with “+ Add a missed tile”"],
    [/\(--add\)/g, "(“+ Add a missed tile”)"],
    // (each tile that would make a 13-tile row a winning or legal hand, with the place it goes: "a 2s (--add 4=2s)")
    // (not "as tile N": the page's button adds the tile at its own place, among the concealed tiles, which is where
    // it counts the same; a web tester was told "as tile 7" and the button said "as tile 1")
    [/ \(--add \d+=\w+\)/g, " (with “+ Add a missed tile”)"],
    [/--add (\d+)=(\w+):/g, "Adding $2 as tile $1:"],
    [/--add \d+=\w+/g, "“+ Add a missed tile”"],
    [/your corrections \(--fix\/--add(?:\/--exposed)?\)/g, "your corrections"],
    // (a reading refused with the user's taps said as "(your corrections: 13=-)", the command line's --fix: a new
    // user's; said as the taps were)
    [/your corrections: ((?:\d+=[\w-]+(?:, )?)+)/g, (m, list) => "your corrections: " + list.split(", ").map((c) => {
      const [pos, tile] = c.split("=");
      return tile === "-" ? `tile ${pos} not in the hand` : `tile ${pos} set to ${tile}`;
    }).join(", ")],
    [/--fix\/--add(?:\/--exposed)?/g, "corrections"],
    // (a hand of another game's size: the ruleset is chosen in Settings; the page said "(--ruleset hk-tw-16)")
    [/\(--ruleset ([\w-]+)\)/g, "(choose $1 under Ruleset in Settings)"],
    [/\(--ruleset; `mahjong-score rules` lists them\)/g, "(choose it under Ruleset in Settings)"],
    [/give --not-winner/g, "tick “Not the winner” in Settings"],
    [/leave out --not-winner/g, "untick “Not the winner” in Settings"],
    [/\(POS=-\)/g, "(“Not in the hand”)"],
    [/--fix (\d+)=-:/g, "Tile $1, “Not in the hand”:"],
    [/--fix(?=:)/g, "Fix"],
    [/--add(?=:)/g, "Add"],
    // (melds read among the concealed tiles of their row, vision.decode._among_concealed_sureness)
    [/name the melds on the table with --exposed, or give --exposed none/g,
     "type the melds on the table in “Exposed melds” (Overrides), or “none” if there are none"],
    [/\(e\.g\. --exposed "([^"]*)"\)/g, "(e.g. “$1”)"],
    // (a run of tiles (alike, or a chow) holding a sideways one, vision.decode._claimed_in_row_sureness)
    [/name the melds on the table with --exposed "([^"]*)"; if not, give --exposed none/g,
     "type “$1” in “Exposed melds” (Overrides); if not, type “none” there"],
    // (a concealed kong short of a face between its backs, vision.decode._short_kong_hint)
    [/name it with the melds on the table, --exposed "([^"]*)"/g, "type “$1” in “Exposed melds” (Overrides)"],
    // (… and a run holding a sideways tile too, named together: vision.decode._stacked_kong_sureness)
    [/with both: --exposed "([^"]*)"/g, "with both: type “$1” in “Exposed melds” (Overrides)"],
    // (an exposed pung with a tile lying over the others, vision.decode._stacked_kong_sureness)
    [/name the melds on the table with --exposed "([^"]*)"/g, "type “$1” in “Exposed melds” (Overrides)"],
    [/--exposed/g, "“Exposed melds” (Overrides)"],
    [/--winning-tile (\w+):/g, "Winning tile $1 (Overrides):"],
    // the scoring's refusals and notes (scoring/rulesets/*.py: /api/hand, /api/settle, a photo's score), rule
    // names and option docs that name the command line's circumstances: the Settings controls that set them
    [/--flag ([a-z][a-z0-9-]*) --not-winner/g, "tick “$1” in Ruleset flags and “Not the winner”"],
    [/score it with --not-winner/g, "tick “Not the winner” in Settings"],
    [/--not-winner/g, "“Not the winner”"],
    // the API's checks of a settlement's fields, counted from 0 (players.1.score is the second player's)
    [/players\.(\d+)\.(score|hand|name): Input should be/g, (m, i, f) => `Player ${+i + 1}'s ${f} should be`],
    [/^notation: String should have at least 1 character$/, "type a hand first, e.g. 123m456p789s11z [777p]"],
    // the API's checks of the count boxes (scoring.hand MAX_DISCARDS, MAX_DEALER_STREAK: the boxes' max): a new
    // user's "-3" had been told "context.discards: Input should be a valid integer"
    // (not a field of another object's, players.0.dealer_streak: a reviewer's)
    [/(?<![\w.])(?:context\.)?(discards|dealer_streak): (?:Input should be|Value error, must be a whole number)[^;]*/g,
     (m, f) => f === "discards" ? "“Discards on the table” must be a whole number from 0 to 144"
       : "“Dealer streak” must be a whole number from 0 to 99"],
    [/needs --win-by ([a-z-]+(?: or [a-z-]+)*)/g,
     (m, w) => `needs “Winning tile came from” set to ${w.split(" or ").map(winFrom).join(" or ")} in Settings`],
    [/not --win-by ([a-z-]+)/g, (m, w) => `not ${winFrom(w)} (“Winning tile came from”)`],
    [/--win-by ([a-z-]+)/g, (m, w) => `“Winning tile came from: ${winFrom(w)}”`],
    [/needs --announced-wait/g, "needs “Announced a waiting hand” ticked in Settings"],
    [/--announced-wait --flag/g, "“Announced a waiting hand” and --flag"],
    [/--announced-wait/g, "“Announced a waiting hand”"],
    [/--flag ([a-z][a-z0-9-]*)/g, "the flag “$1”"],
    [/need --discards N/g, "need “Discards on the table” in Settings"],
    [/--discards(?: N)?/g, "“Discards on the table”"],
    [/--dealer-streak/g, "“Dealer streak”"],
    [/--dealer\/--not-dealer/g, "“Dealer”"],
    [/--last-tile/g, "“Won on the last tile”"],
    [/--first-turn/g, "“Won on the first turn”"],
    [/--kong-on-kong/g, "“Kong on kong”"],
    [/or read the photo another way up \(--turn DEG; --turn 0: as it is stored\)/g, "or turn the photo the right way up and read it again"],
    // (a photo read turned by the reader's guess, vision.pipeline: the page reads a photo as it is stored only by its turn)
    [/; if the tiles stand upright in the photo as taken, read it so with --turn 0/g,
     "; if the tiles stand upright in the photo as taken, the reader guessed wrong: tap “Read it as taken” under the " +
     "photo (after a reload, choose the photo again first)"],
  ];
  // a win_by value as the page's "Winning tile came from" menu says it ("dead-wall" → "the dead wall")
  function winFrom(value) {
    const o = [...document.querySelectorAll("#win_by option")].find((e) => e.value === value);
    return o ? o.textContent.replace(/\s*\(.*\)$/, "") : value;
  }
  // (a note's role as the layout names it, "concealed-kong: four tiles with face-down ones (tiles 13-16)": said in
  // words, as the tiles' legend says them; a new user read the role names as jargon)
  const ROLE_NOTE = { "concealed-kong": "Concealed kong", exposed: "Exposed meld", winning: "Winning tile",
                      bonus: "Flowers & seasons", ignored: "Not in the hand" };
  PAGE_WORDS.push([/^(concealed-kong|exposed|winning|bonus|ignored): /, (m, r) => ROLE_NOTE[r] + ": "]);
  function pageWords(text) {
    return PAGE_WORDS.reduce((t, [re, to]) => t.replace(re, to), text);
  }
  window.mahjongPageWords = pageWords;  // (for the browser test of the messages)

  // ------------------------------------------------------------------ rendering
  function clearResult() {
    $("result").hidden = true;
    $("score").hidden = true;
    $("annotated").removeAttribute("src");
    $("overlay").textContent = "";
  }

  // `leastPos`: the number of the tile to check first in an unsure reading (marked), else null
  function tileButton(t, leastPos) {
    const code = t.tile || t.raw;
    const cls = ["tile"];
    if (t.role === "winning") cls.push("winning");
    if (t.changed) cls.push("changed");
    if (t.fixed) cls.push("fixed");
    if (t.pos === leastPos) cls.push("least-sure");
    const label = `Tile ${t.pos}: ${TileFaces.name(code)}` + (t.fixed ? " (fixed)" : "") +
                  (t.changed ? ` (read as ${t.raw}, changed to make a legal hand)` : "") +
                  (t.pos === leastPos ? " (least sure: check it)" : "");
    return h("button", { type: "button", class: cls.join(" "), "data-pos": t.pos, "data-tile": code,
                         "aria-label": label, onclick: () => openPicker(t.pos) },
             TileFaces.svg(code), h("span", { class: "cap", text: `${t.pos}:${code}` }));
  }

  function renderPhoto(res) {
    $("result").hidden = false;
    const img = $("annotated");
    img.src = res.annotated;
    // how the photo was turned to be read, under it (the note saying so is far below on a phone)
    const frame = [], deg = res.photo.straightened || 0;
    if (deg) frame.push(`straightened (turned ${Math.round(Math.abs(deg))}° ${deg > 0 ? "anticlockwise" : "clockwise"}: ` +
                        "its rows ran off level)");
    if (res.photo.turned) frame.push(`turned ${res.photo.turned}° clockwise`);
    $("photo-frame").hidden = !frame.length;
    $("photo-frame").textContent = frame.length ? `The photo was read ${frame.join(", then ")}, as shown.` : "";
    if (res.photo.turned && state.file) {
      // (the reader turned the photo by its own guess: a phone user whose tiles stood upright as taken had no way to
      // say so, where the command line has --turn 0; read anew, the corrections of the turned reading do not apply)
      $("photo-frame").append(" ", h("button", { type: "button", id: "as-taken", onclick: () => {
        // (what to go back to if the photo read as taken is refused: a reviewer's page had kept sending turn 0 with
        // the turned reading's corrections)
        state.before = { fixes: state.fixes, adds: state.adds, photoId: state.photoId, turn: state.turn };
        state.turn = 0;
        state.photoId = null;
        state.fixes = {};
        state.adds = [];
        keepWork();
        scorePhoto();
      } }, "Read it as taken"));
    }
    const ov = $("overlay");
    ov.textContent = "";
    // the image shows the whole photo, or (a hand small in its photo) only res.photo.view, enlarged
    const [VX, VY, VX1, VY1] = res.photo.view || [0, 0, res.photo.width, res.photo.height];
    const W = VX1 - VX, H = VY1 - VY;
    // every box can be tapped: those left out of the hand too (one the user left out is put back with
    // "Undo fix"), under the hand's tiles so that a box overlapping one never takes its tap
    // (CSS .tapzone.out: lower; out of the tab order, so a keyboard reaches the hand's tiles first)
    for (const t of res.tiles) {
      if (t.box[2] <= VX || t.box[3] <= VY || t.box[0] >= VX1 || t.box[1] >= VY1) continue;  // (outside the view)
      const [x0, y0, x1, y1] = [Math.max(t.box[0], VX) - VX, Math.max(t.box[1], VY) - VY,
                                Math.min(t.box[2], VX1) - VX, Math.min(t.box[3], VY1) - VY];
      const out = t.role === "ignored";
      const b = h("button", { type: "button", class: out ? "tapzone out" : "tapzone", "data-pos": t.pos,
                              "aria-label": `Tile ${t.pos} in the photo${out ? " (not in the hand)" : ""}`,
                              onclick: () => openPicker(t.pos) });
      if (out) b.tabIndex = -1;
      b.style.left = (100 * x0 / W) + "%";
      b.style.top = (100 * y0 / H) + "%";
      b.style.width = (100 * (x1 - x0) / W) + "%";
      b.style.height = (100 * (y1 - y0) / H) + "%";
      ov.append(b);
    }
    $("reading").textContent = res.reading;
    // the score's confidence, where doubts that cannot change the score (which flowers/seasons, loose ones) made
    // the reading less sure than the score: said beside it (a director saw a reading "(3% sure)" scored as sure)
    const shown = res.confidence_shown || percentSure(res.confidence);
    const score = typeof res.score_confidence === "number" ? percentSure(res.score_confidence) : shown;
    const over = typeof res.review_below === "number" && res.confidence < res.review_below &&
      res.score_confidence >= res.review_below;  // (the score over the bar the reading is under: say why, as table)
    $("confidence").textContent = !res.legal ? "" : score === shown ? `(${shown} sure)` :
      `(${shown} sure; the score ${score} sure` +
      (over ? ": the rest of the doubt is in flowers/seasons that cannot change it)" : ")");
    const prob = $("problem");
    prob.hidden = res.legal;
    const p = pageWords(res.problem || "unknown problem");
    const count = p.match(/^found (\d+) tiles in the hand.*? has (\d+)/);
    const hint = count && Number(count[1]) > Number(count[2])
      ? " Tap a box that is not the hand's and choose “Not in the hand”, or tap a misread tile to correct it."
      : p.startsWith("found ") ? " Add a tile the photo missed (+ below), or tap a tile to correct it."
      // (a new user read "tap a tile only if it is misread" as contradicting the problem's "correct it by tapping")
      : p.startsWith("not a ") ? " The tiles are shown as read: check the least sure first and tap one that is " +
        "misread; if every tile is right, check the Settings (the winner, where the winning tile came from)."
      : " Tap the misread tiles to correct them.";
    prob.textContent = res.legal ? "" : "Not a legal hand: " + p + "." + hint;
    const leastPos = renderUnsure(res);
    const byPos = new Map(res.tiles.map((t) => [t.pos, t]));
    const strip = $("strip");
    strip.textContent = "";
    const seen = new Set();
    let previous = null, sets = null;
    const addGroup = (tiles) => {  // consecutive groups with the same role share one label
      const roles = [...new Set(tiles.map((t) => t.role))];
      const label = roles.map((r) => ROLE_LABEL[r] || r).join(" + ");
      if (label !== previous) {
        sets = h("div", { class: "sets" });
        strip.append(h("div", { class: "group" }, h("span", { class: "label", text: label }), sets));
        previous = label;
      }
      sets.append(h("div", { class: "tiles" }, ...tiles.map((t) => tileButton(t, leastPos))));
    };
    for (const g of res.groups) {
      const tiles = g.tiles.map((p) => byPos.get(p)).filter((t) => t && t.role !== "ignored");
      if (!tiles.length) continue;
      tiles.forEach((t) => seen.add(t.pos));
      addGroup(tiles);
    }
    // tiles outside the layout's groups (flowers and seasons), by role
    const rest = res.tiles.filter((t) => t.role !== "ignored" && !seen.has(t.pos));
    for (const role of [...new Set(rest.map((t) => t.role))]) addGroup(rest.filter((t) => t.role === role));
    // boxes the user left out of the hand ("-" fixes): each can be put back
    const dropped = res.tiles.filter((t) => t.dropped);
    if (dropped.length) {
      strip.append(h("div", { class: "group" }, h("span", { class: "label", text: "Left out by you" }),
        h("div", { class: "sets" }, ...dropped.map((t) => h("button", {
          type: "button", class: "put-back", "data-pos": t.pos, "aria-label": `Put tile ${t.pos} back`,
          onclick: () => { delete state.fixes[t.pos]; scorePhoto(); } }, `Tile ${t.pos}: put back`)))));
    }
    // a tile the detector missed: added before the first concealed tile of the hand's row
    const conc = res.tiles.filter((t) => t.role === "concealed").map((t) => t.pos);
    const addAt = conc.length ? Math.min(...conc) : res.tiles.length + 1;
    strip.append(h("button", { type: "button", class: "add-tile", id: "add-tile",
                               "aria-label": "Add a tile the photo's reading missed",
                               onclick: () => openPicker(addAt, true) }, "+ Add a missed tile"));
    const qt = $("quick-total");
    qt.hidden = !res.score;
    if (res.score) $("quick-total-value").textContent = String(res.score.total);
    const notes = $("reading-notes");
    notes.textContent = "";
    for (const c of res.changed) {
      notes.append(h("li", { text: `Tile ${c.pos} was read as ${c.raw}; ${c.tile} makes a legal hand.` }));
    }
    for (const n of res.notes) notes.append(h("li", { text: pageWords(n) }));
  }

  // a legal reading less sure than the API's review_below (vision.batch.REVIEW_BELOW: batch's needs-review,
  // audit's UNSURE) is said beside the score, with the tile to check first and how to correct it (a tournament
  // director's page showed "Score 25" in large type from a reading 18 % sure, with only a grey "(18% sure)").
  // renderUnsure returns the number of the tile to check first (marked in the strip), else null.
  function isUnsure(res) {
    if (!res || !res.legal) return false;
    if (res.no_winning_tile) return true;
    if (typeof res.unsure === "boolean") return res.unsure;
    return typeof res.review_below === "number" && res.confidence < res.review_below;
  }
  // a winner's hand scored with no winning tile marked (the API's no_winning_tile): scored with no wait (it had said
  // the score "guesses which tile completed the hand", which it does not: a new user's)
  const NO_WINNING_TILE = "No winning tile marked: scored with no wait (no rule on the wait or the winning tile " +
    "applies). " +
    "Type it in “Winning tile” under Overrides in Settings.";
  function renderUnsure(res) {
    const box = $("unsure");
    box.textContent = "";
    box.hidden = !isUnsure(res);
    if (box.hidden) return null;
    if (res.no_winning_tile && !res.unsure) {
      box.append(h("strong", { text: NO_WINNING_TILE }));
      return null;
    }
    if (res.no_winning_tile) box.append(h("strong", { text: NO_WINNING_TILE + " " }));
    // (a photo of a non-winner's tile count read as a non-winner's hand though nobody said so: said first, the note
    // far below had been the only word of it — a web tester's 13-tile photo showed "Score 0")
    const unsaid = (res.notes || []).find((n) => n.startsWith("the hand's row shows"));
    if (unsaid) {
      box.append(h("strong", { text: "Scored as a hand that did not win: " + unsaid.split(":")[0].replace(
        "the hand's row shows", "the hand's row shows only") + ". Tick “Not the winner” if it did not win, or add the " +
        "tile the photo missed (see the notes). " }));
    }
    const below = typeof res.review_below === "number" ? res.review_below : 1;
    // the least sure tile is named as the one to check when the classifier doubted it (below the same bar, as
    // the command line's "least sure tile"); when every tile is read surely, the doubt is in what was assumed
    const least = res.least_sure && res.least_sure.probability < below ? res.least_sure : null;
    // (the score's confidence where it differs from the reading's: doubts that cannot change the score are none of
    // it, and the box is shown by it; a tester's page said "2% sure" of a score 68 % sure)
    const readingSure = res.confidence_shown || percentSure(res.confidence);
    const scoreSure = typeof res.score_confidence === "number" ? percentSure(res.score_confidence) : readingSure;
    box.append(h("strong", { text: (scoreSure === readingSure ? `Unsure reading (${readingSure} sure): `
                                     : `Unsure score (${scoreSure} sure; the reading ${readingSure}): `) +
                                   "check it before you use the score." }));
    const notes = res.notes.length ? "the notes below say what else was assumed" : "";
    if (least) {
      // (a tile the reading changed is shown as changed: a tester read "tile 1, read as 1f" beside a 1y)
      const shownTile = (res.tiles || []).find((t) => t.pos === least.pos);
      const taken = shownTile && shownTile.tile && shownTile.tile !== least.tile ? `, taken as ${shownTile.tile}` : "";
      box.append(` Least sure: tile ${least.pos}, read as ${least.tile} (${percentSure(least.probability)} sure)` +
                 `${taken}.` +
                 " Tap a wrong tile to correct it" + (notes ? "; " + notes + "." : "."));
      box.append(h("button", { type: "button", class: "check-tile", "data-pos": least.pos,
                               onclick: () => openPicker(least.pos) }, `Check tile ${least.pos}`));
    } else {
      const p = res.least_sure;
      box.append((p ? ` Each tile is read at least ${Math.floor(p.probability * 100)}% sure (the least, tile ${p.pos})` +
                      (notes ? "; check what the notes below say was assumed." : ".") : "") +
                 " Tap a wrong tile to correct it.");
    }
    return least ? least.pos : null;
  }

  function renderScore(score, photoRes) {
    const box = $("score");
    if (!score) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    $("total").textContent = String(score.total);
    // (a 13-tile photo is scored as a non-winner's hand though "Not the winner" is not ticked: the card says so,
    // as the command line's [non-winner, …] does; a new user's card had said only "= 0 points")
    $("summary").textContent = score.summary.replace(/^total:\s*\d+\s*/, "") + " — " + score.ruleset_name +
      (score.winner === false ? " — scored as a non-winner's hand" : "");
    const su = $("score-unsure");  // (the total, far below the warning on a phone, says it too)
    // (a typed hand with no winning tile is scored with no wait as a photo's is: a web tester's typed hand showed its
    // total as plainly as a sure one, the 26–30 it could be only in a grey note at the card's foot)
    const typedGuess = !photoRes && score.winner !== false && score.no_winning_tile;
    su.hidden = !isUnsure(photoRes) && !typedGuess;
    su.textContent = su.hidden ? "" : typedGuess
      ? "No winning tile given: scored with no wait (no rule on the wait or the winning tile applies; see the " +
        "notes below). " +
        "Add win:TILE to the hand before you use this total."
      : (photoRes.unsure || !photoRes.no_winning_tile
      ? `From an unsure reading (${photoRes.confidence_shown || percentSure(photoRes.confidence)} ` +
        "sure): check the tiles above before you use this total."
      : "With no winning tile marked: give it in Settings before you use this total.");
    const st = $("status");
    st.hidden = score.allowed;
    st.textContent = score.allowed ? "" : pageWords(score.status);
    $("decomposition").textContent = score.hand + " — " + score.decomposition;
    const ol = $("lines");
    ol.textContent = "";
    for (const ln of score.lines) {
      const src = shortSource(ln.source) + (ln.option ? " · " + ln.option : "");
      ol.append(h("li", {},
        h("div", { class: "head" },
          h("span", { class: "name", text: pageWords(ln.name) + (ln.detail ? "  [" + ln.detail + "]" : "") }),
          h("span", { class: "amt", text: ln.amount })),
        h("span", { class: "src", title: ln.source, text: src })));
    }
    const notes = $("score-notes");
    notes.textContent = "";
    for (const a of score.alternatives) notes.append(h("li", { text: "Same total: " + a }));
    // (the rules earned that do not count, as the CLI's explanation lists them: a referee adding by hand)
    for (const x of score.set_aside || []) {
      notes.append(h("li", { title: x, text: shortSource(x.charAt(0).toUpperCase() + x.slice(1)) }));
    }
    for (const n of score.notes) notes.append(h("li", { text: pageWords(n) }));  // (hk-tw-16: "need --discards N")
    const changed = Object.entries(score.changed_options).map(([k, v]) => `${k}=${v}`);
    if (changed.length) notes.append(h("li", { text: "Options: " + changed.join(", ") }));
    // to the table
    const tt = $("to-table");
    tt.textContent = "";
    tableNames().forEach((name, i) => {
      tt.append(h("button", { type: "button", text: name, onclick: () => {
        const rows = [...document.querySelectorAll("#players .player")];
        const row = rows[i];
        const box = row.querySelector(".p-score");
        // (the table's first score brings its ruleset: a new user's nts score had been settled under the table's
        // rode-draak, where that hand is refused, with only a toast to say so)
        const first = rows.every((r) => r === row || !r.querySelector(".p-score").value.trim()
                                        && !r.querySelector(".p-hand").value.trim());
        const moved = first && score.ruleset !== $("t-ruleset").value;
        if (moved) $("t-ruleset").value = score.ruleset;
        box.value = String(score.total);
        box.dataset.ruleset = score.ruleset;  // (a score of another ruleset is named when the table settles)
        row.querySelector(".p-hand").value = "";
        saveTable();
        const other = score.ruleset !== $("t-ruleset").value;
        toast(`${name}'s score set to ${score.total} in the table` +
              (moved ? ` (the table now settles under ${score.ruleset}, the score's ruleset)` :
               other ? ` (scored under ${score.ruleset}; the table settles under ${$("t-ruleset").value})` : ""));
      } }));
    });
  }

  // ------------------------------------------------------------------ tile picker
  function openPicker(pos, adding) {
    const res = state.last;
    if (!res) return;
    const t = adding ? { pos, tile: null, raw: "5z", top: [], fixed: false }
                     : res.tiles.find((x) => x.pos === pos);
    if (!t) return;
    state.pickPos = pos;
    state.adding = !!adding;
    if (adding) {  // a tile the detector missed: it becomes tile `pos`
      $("picker-title").textContent = `Add the missed tile as tile ${pos}`;
      $("picker-sub").textContent = "Choose the tile the photo's reading left out.";
      $("picker-top").textContent = "";
      const grid = $("picker-grid");
      grid.textContent = "";
      for (const [title, codes] of PICKER_GROUPS) {
        grid.append(h("h3", { text: title }), h("div", { class: "picker-grid" }, ...codes.map((c) => pickButton(c, c, false))));
      }
      $("picker-undo").hidden = true;
      $("picker-drop").hidden = true;
      $("picker").hidden = false;
      document.body.classList.add("modal-open");
      pickerEntry();
      const first = grid.querySelector("button");
      if (first) first.focus({ preventScroll: true });
      return;
    }
    const code = t.tile || t.raw;
    $("picker-title").textContent = `Tile ${pos}: ${TileFaces.name(code)}`;
    $("picker-sub").textContent = "Read as " + t.top.filter(([c, p], i) => i === 0 || p >= 0.01)
      .map(([c, p]) => `${c} ${Math.round(p * 100)}%`).join(", ") +
                                  (t.dropped ? " — left out of the hand by you (Undo fix puts it back)"
                                   : t.role === "ignored" ? " — not in the hand: a face set here is not counted " +
                                     "(a tile the reading missed: “+ Add a missed tile”)"
                                   : t.fixed ? " — fixed by you" : "");
    const top = $("picker-top");
    top.textContent = "";
    top.append(h("span", { class: "small muted", text: "Likely:" }));
    t.top.filter(([c, p], i) => i === 0 || p >= 0.01)
      .forEach(([c, p]) => top.append(pickButton(c, `${Math.round(p * 100)}%`, c === code)));
    const grid = $("picker-grid");
    grid.textContent = "";
    for (const [title, codes] of PICKER_GROUPS) {
      grid.append(h("h3", { text: title }), h("div", { class: "picker-grid" }, ...codes.map((c) => pickButton(c, c, c === code))));
    }
    $("picker-undo").hidden = !t.fixed;
    $("picker-undo").textContent = t.added ? "Take out this added tile" : "Undo fix";
    // (an added tile is taken out by undoing it, not by "-"; a box out of the hand is out already)
    $("picker-drop").hidden = !!t.added || t.role === "ignored";
    $("picker").hidden = false;
    document.body.classList.add("modal-open");
    pickerEntry();
    const first = grid.querySelector("button.current") || grid.querySelector("button");
    if (first) first.focus({ preventScroll: true });
  }

  function pickButton(code, caption, current) {
    return h("button", { type: "button", class: "pick" + (current ? " current" : ""), "data-code": code,
                         "aria-label": TileFaces.name(code), onclick: () => choose(code) },
             TileFaces.svg(code), h("span", { class: "cap", text: caption }));
  }

  // the picker is a history entry of its own: a phone's Back closes it (a tester's Back with the picker open left
  // the page, and the reading with it)
  function pickerEntry() {
    if (!(history.state && history.state.picker)) history.pushState({ picker: true }, "");
  }

  function closePicker() {
    if ($("picker").hidden) return;
    if (history.state && history.state.picker) history.back();  // (its popstate finds the picker closed)
    $("picker").hidden = true;
    document.body.classList.remove("modal-open");
    const pos = state.pickPos;
    state.pickPos = null;
    const b = document.querySelector(`#strip button[data-pos="${pos}"]`);
    if (b) b.focus({ preventScroll: true });
  }

  // each added tile's number now, by its index in state.adds: an add's number moves up by one for
  // every later add at or before it (as vision.pipeline.parse_additions places them)
  function addedNumbers() {
    let placed = [];
    state.adds.forEach(([p], j) => {
      placed = placed.map(([q, k]) => [q >= Number(p) ? q + 1 : q, k]);
      placed.push([Number(p), j]);
    });
    return placed;
  }

  // the index in state.adds of tile `pos`, when the reading shown has it as an added tile; else -1
  function addedAt(pos) {
    const shown = state.last && (state.last.tiles || []).find((x) => x.pos === pos);
    const hit = shown && shown.added && addedNumbers().find(([q]) => q === Number(pos));
    return hit ? hit[1] : -1;
  }

  // the corrections before a change, restored when the server refuses it
  function keepBefore() {
    state.before = { fixes: { ...state.fixes }, adds: state.adds.map((a) => [...a]) };
  }

  // where a face-down tile added with "+ Add a missed tile" goes: after the last tile of a concealed kong short
  // of one (a group of 1-3 tiles, one face-down) or of two tiles of one face off the hand's row (a kong whose
  // backs were not boxed), as vision.pipeline.add_tiles takes it; null when there is none (the reader then
  // refuses it, saying why). The button's own place, before the hand's first concealed tile, is no kong's (a
  // tester could add no face-down tile on the page)
  function kongSpot(res) {
    const byPos = new Map((res.tiles || []).map((t) => [t.pos, t]));
    // (the hand's groups first: a group with a back among the boxes left out may be a wall's or a discard's)
    const groups = res.groups || [];
    for (const g of [...groups.filter((x) => x.role !== "ignored"), ...groups.filter((x) => x.role === "ignored")]) {
      const ts = g.tiles.map((p) => byPos.get(p)).filter(Boolean);
      const down = ts.some((t) => t.face_down || t.raw === "0x" || t.tile === "0x");
      const twin = ts.length === 2 && !down && !g.main_row && ts[0].raw && ts[0].raw === ts[1].raw;
      if (ts.length && ts.length < 4 && (down || twin)) return Math.max(...g.tiles) + 1;
    }
    return null;
  }

  // where a playing tile added with "+ Add a missed tile" goes when two tiles of its face lie apart off the hand's
  // row (a pung whose third tile was not boxed): after them, as the reader's note says; null otherwise (the
  // button's place: a reviewer's 7s added there made the pair apart and it a concealed pung, 42 points for 40)
  function pungSpot(res, code) {
    const byPos = new Map((res.tiles || []).map((t) => [t.pos, t]));
    for (const g of res.groups || []) {
      const ts = g.tiles.map((p) => byPos.get(p)).filter(Boolean);
      const twin = ts.length === 2 && !g.main_row && ts.every((t) => t.raw === code && !t.face_down);
      if (twin) return Math.max(...g.tiles) + 1;
    }
    return null;
  }

  function choose(code) {
    let pos = state.pickPos;
    if (pos === null) return;
    if (state.adding && code === "0x" && state.last) pos = kongSpot(state.last) ?? pos;
    else if (state.adding && state.last) pos = pungSpot(state.last, code) ?? pos;
    const j = state.adding ? -1 : addedAt(pos);
    keepBefore();
    if (state.adding) {  // tiles from `pos` on move up by one: so do their fixes
      const moved = {};
      for (const [k, v] of Object.entries(state.fixes)) moved[Number(k) >= pos ? Number(k) + 1 : k] = v;
      state.fixes = moved;
      state.adds.push([pos, code]);
      state.adding = false;
    } else if (j >= 0) {  // a tile the user added: its face is the add's (the reader refuses a fix of it)
      state.adds[j] = [state.adds[j][0], code];
    } else {
      state.fixes[pos] = code;
    }
    closePicker();
    state.refocus = pos;  // (the strip drawn again after the pick: its tile takes the focus back, scorePhoto)
    scorePhoto();
  }

  // "Undo fix" on a tile the user added takes it out: the tiles after it move down by one, and so do
  // their fixes; the other adds are kept at their numbers now
  function undoAt(pos) {
    keepBefore();
    const j = addedAt(pos);
    if (j < 0) {
      delete state.fixes[pos];
      return;
    }
    const rest = addedNumbers().filter(([, k]) => k !== j)
      .map(([q, k]) => [q > pos ? q - 1 : q, state.adds[k][1]]).sort((a, b) => a[0] - b[0]);
    state.adds = rest;
    const moved = {};
    for (const [k, v] of Object.entries(state.fixes)) {
      if (Number(k) !== Number(pos)) moved[Number(k) > pos ? Number(k) - 1 : k] = v;
    }
    state.fixes = moved;
  }

  // ------------------------------------------------------------------ table
  //: default player names: not wind letters, which would read as seats once another player is East
  const DEFAULT_NAMES = ["Player 1", "Player 2", "Player 3", "Player 4"];

  function tableNames() {
    return [...document.querySelectorAll("#players .p-name")].map((e, i) => e.value.trim() || DEFAULT_NAMES[i]);
  }

  function buildTable() {
    const t = saved.table || {};
    // names saved by an older page were the wind letters E S W N: replaced by the defaults
    const old = Array.isArray(t.names) && t.names.join(",") === "E,S,W,N";
    const names = t.names && !old ? t.names : DEFAULT_NAMES;
    const box = $("players");
    box.textContent = "";
    names.forEach((name, i) => {
      const east = h("input", { type: "radio", name: "t-east", value: String(i) });
      const won = h("input", { type: "radio", name: "t-winner", value: String(i) });
      box.append(h("div", { class: "player" },
        h("div", { class: "player-head" },
          h("input", { class: "p-name", type: "text", value: name, "aria-label": `Player ${i + 1} name`, maxlength: "24",
                       placeholder: DEFAULT_NAMES[i] }),
          h("label", { class: "pill" }, east, h("span", { text: "East" })),
          h("label", { class: "pill" }, won, h("span", { text: "Won" }))),
        h("div", { class: "player-body" },
          h("input", { class: "p-score", type: "number", min: "0", inputmode: "numeric", placeholder: "score",
                       "aria-label": `Player ${i + 1} score`, value: (t.scores || [])[i] || "",
                       "data-ruleset": (t.score_rulesets || [])[i] || "" }),
          h("input", { class: "p-hand", type: "text", placeholder: "or hand: 123m456p…", autocapitalize: "off",
                       spellcheck: "false", "aria-label": `Player ${i + 1} hand`, value: (t.hands || [])[i] || "" }))));
    });
    setRadio("t-east", String(t.east || 0));
    // (no winner chosen until the user picks one: a fresh page had Player 1 checked, and a missed tap settled the
    // table with Player 1 paid as the winner)
    // (a table saved by an older page holds winner 0 whatever was ticked, Player 1 being checked by default: only a
    // winner the user picked is put back)
    if (t.winner_picked && t.winner !== undefined && t.winner !== null) setRadio("t-winner", String(t.winner));
    setRadio("t-round", t.round_wind || "E");
    $("t-winning").value = t.winning_tile || "";
    $("t-win-by").value = t.win_by || "discard";
    $("t-settle-options").value = t.settle_options || "";
    if (t.ruleset && meta.rulesets.some((r) => r.id === t.ruleset)) $("t-ruleset").value = t.ruleset;
    box.addEventListener("input", (ev) => {  // a score typed in is the table's own
      if (ev.target.classList.contains("p-score")) ev.target.dataset.ruleset = "";
    });
    box.addEventListener("input", saveTable);
    box.addEventListener("change", saveTable);
  }

  function saveTable() {
    const rows = [...document.querySelectorAll("#players .player")];
    const w = radioValue("t-winner");
    saved.table = {
      names: rows.map((r) => r.querySelector(".p-name").value),
      scores: rows.map((r) => r.querySelector(".p-score").value),
      score_rulesets: rows.map((r) => r.querySelector(".p-score").dataset.ruleset || ""),
      hands: rows.map((r) => r.querySelector(".p-hand").value),
      east: parseInt(radioValue("t-east") || "0", 10),
      winner: w === null ? null : w === "" ? "" : parseInt(w, 10),
      winner_picked: w !== null,
      round_wind: radioValue("t-round") || "E",
      ruleset: $("t-ruleset").value,
      winning_tile: $("t-winning").value,
      win_by: $("t-win-by").value,
      settle_options: $("t-settle-options").value,
    };
    store();
  }

  function parsePairs(text) {
    // NAME=VALUE items split at a comma followed by NAME= only: a comma inside a value belongs to it (hk-tw-16's
    // cash=E:5,S:3, 004:42-43), as a batch manifest's settle cell reads it (vision.manifest.settle_cell_items)
    const out = {};
    for (const item of text.split(/,(?=\s*[\w-]+\s*=)/)) {
      const s = item.trim();
      if (!s) continue;
      const i = s.indexOf("=");
      if (i < 1) throw new Error(`settlement option "${s}" must be NAME=VALUE`);
      out[s.slice(0, i).trim()] = s.slice(i + 1).trim();
    }
    return out;
  }

  async function settleTable() {
    saveTable();
    // (the last settlement is hidden before this one is checked: a tester's refused hand had left the previous
    // hand's payments shown under the new inputs)
    $("t-result").hidden = true;
    const t = saved.table;
    const names = tableNames();
    let settleOptions;
    try { settleOptions = parsePairs(t.settle_options || ""); } catch (e) { showError(e.message); return; }
    if (t.winner === null || t.winner === undefined) {
      showError("say who won: tick “Won” on the winner's row, or “Nobody won (void hand)”");
      return;
    }
    // a score is a whole number: parseInt had read "1.000" (a Dutch 1000), "1.5" and "1e3" as 1 and settled
    // the table with it; a number box's text it cannot read at all ("1,000") is refused alike
    const inputs = [...document.querySelectorAll("#players .p-score")];
    const bad = names.findIndex((name, i) => !(t.hands[i] || "").trim() && (
      (inputs[i] && inputs[i].validity && inputs[i].validity.badInput) ||
      (String(t.scores[i]).trim() !== "" && !/^\d+$/.test(String(t.scores[i]).trim()))));
    if (bad >= 0) {
      const typed = String(t.scores[bad]).trim();
      // (a minus sign: a hand's score is never below 0 — a web tester's "-5" had been told of dots and commas)
      showError(/^-\s*\d/.test(typed)
        ? `${names[bad]}'s score “${typed}” is below 0: a hand's score is 0 or more (what a player pays is settled ` +
          "from the four scores)"
        : `${names[bad]}'s score ${typed ? `“${typed}” ` : ""}must be a whole number of points, with no ` +
          `dots or commas (1000, not 1.000 or 1,000)`);
      return;
    }
    const players = names.map((name, i) => {
      const p = { name };
      const hand = (t.hands[i] || "").trim();
      if (hand) p.hand = hand;
      else if (String(t.scores[i]).trim() !== "") p.score = parseInt(String(t.scores[i]).trim(), 10);
      return p;
    });
    const body = { ruleset: t.ruleset, players, east: names[t.east] || names[0],
                   winner: t.winner === "" ? null : names[t.winner], round_wind: t.round_wind,
                   win_by: t.win_by, settle_options: settleOptions,
                   options: (saved.options || {})[t.ruleset] || {} };
    // the winning tile is the winner's hand's: sent only with it (the API refuses one with a score alone, or
    // with nobody won; a tile left typed from an earlier table would otherwise stop the settlement)
    const winnerHand = players.find((p) => p.name === body.winner && p.hand);
    if (t.winning_tile.trim() && winnerHand) body.winning_tile = t.winning_tile.trim();
    busy(true, "Settling…");
    try {
      const res = await api("/api/settle", { method: "POST", headers: { "Content-Type": "application/json" },
                                             body: JSON.stringify(body) });
      showError("");
      // a score copied from a hand scored under another ruleset than the table's
      const warnings = names.map((name, i) => ({ name, rs: (t.score_rulesets || [])[i], typed: players[i].score }))
        .filter((w) => t.winner !== "" && w.typed !== undefined && w.rs && w.rs !== t.ruleset)  // (void: all 0)
        .map((w) => `${w.name}'s score ${w.typed} was scored under ${w.rs}, not ${t.ruleset}: score the hand ` +
                    `again under ${t.ruleset}, or type its hand here, before paying`);
      renderSettlement(res, warnings);
    } catch (e) {
      $("t-result").hidden = true;
      showError(pageWords(e.message));
    } finally {
      busy(false);
    }
  }

  function renderSettlement(res, warnings = []) {
    $("t-result").hidden = false;
    // the ruleset's name, and the settlement scheme only when it is not the ruleset's own id
    const rs = meta.rulesets.find((r) => r.id === res.ruleset);
    const scheme = res.scheme && res.scheme !== res.ruleset ? ` (settlement ${res.scheme})` : "";
    // a score to check (copied from a hand scored under another ruleset) makes the settlement provisional,
    // said above its numbers (a new user's page paid out +240 with the warning under the transfers)
    $("t-title").textContent = `${rs ? rs.name : res.ruleset}${scheme} — ` + (res.winner ? `${res.winner} won` : "void hand")
      + (warnings.length ? " — provisional" : "");
    const warn = $("t-warnings");
    warn.textContent = "";
    for (const w of warnings) warn.append(h("li", { class: "warning", text: w }));
    warn.hidden = !warnings.length;
    const tb = $("t-net");
    tb.textContent = "";
    for (const p of Object.keys(res.net)) {
      const n = res.net[p];
      tb.append(h("tr", {}, h("td", { text: p }), h("td", { text: res.seats[p] || "" }),
                  h("td", { text: String(res.scores[p] ?? "") }),
                  h("td", { class: n > 0 ? "plus" : n < 0 ? "minus" : "", text: (n > 0 ? "+" : "") + n })));
    }
    const ol = $("t-transfers");
    ol.textContent = "";
    for (const tr of res.transfers) {
      ol.append(h("li", {}, h("strong", { text: `${tr.payer} pays ${tr.payee} ${tr.amount}` }),
                  h("span", { class: "small muted", text: " " + shortSource(tr.reason) })));
    }
    const notes = $("t-notes");
    notes.textContent = "";
    for (const n of res.notes) notes.append(h("li", { text: pageWords(n) }));
    for (const [p, c] of Object.entries(res.cash || {})) notes.append(h("li", { text: `cash ${p}: ${c}` }));
    $("t-result").scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  // ------------------------------------------------------------------ tabs
  function showTab(which) {
    const hand = which === "hand";
    $("view-hand").hidden = !hand;
    $("view-table").hidden = hand;
    $("tab-hand").setAttribute("aria-selected", String(hand));
    $("tab-table").setAttribute("aria-selected", String(!hand));
    showError("");
  }

  // ------------------------------------------------------------------ tile sets
  async function loadTilesets(selected) {
    let res;
    try { res = await api("/api/tilesets"); } catch (e) { return; }  // no tile sets: the menu stays standard
    const sel = $("tileset");
    const want = selected !== undefined ? selected : (sel.value || res.default || "");
    sel.replaceChildren(h("option", { value: "", text: "standard (not calibrated)" }));
    for (const t of res.tilesets) {
      sel.append(h("option", { value: t.name, text: `${t.name} (${t.classes} faces, ${t.examples} examples)` }));
    }
    for (const u of res.unreadable || []) {  // a damaged profile file: named, not choosable
      sel.append(h("option", { value: "", text: `${u.name} (unreadable: see the server)`, disabled: true, title: u.error }));
    }
    sel.value = res.tilesets.some((t) => t.name === want) ? want : "";
  }

  async function calibrate() {
    const f = $("cal-photo").files[0];
    $("cal-photo").value = "";
    if (!f) return;
    const name = $("cal-name").value.trim();
    if (!name) { showError("Give the tile set a name first."); return; }
    const fd = new FormData();
    fd.append("image", f, f.name || "calibration.jpg");
    fd.append("name", name);
    fd.append("tiles", $("cal-tiles").value.trim());
    fd.append("replace", String($("cal-replace").checked));
    busy(true, "Calibrating…");
    try {
      const r = await api("/api/tilesets", { method: "POST", body: fd });
      showError("");
      const s = r.separation;
      const p = r.photos[0];
      let text = `Tile set ${r.name}: ${r.added} tiles added, now ${s.examples} examples of ${s.classes} faces. ` +
                 `The standard reader got ${p.model_right} of ${p.tiles} right.`;
      if (s.min_margin !== null) text += ` Closest faces: ${s.closest.map((c) => c.tile + "~" + c.nearest).join(", ")}.`;
      if (p.doubtful.length) text += " Check: " + p.doubtful.map((d) => `tile ${d.pos} (${d.expected}, looks like ${d.read})`).join(", ") + ".";
      if ((p.unsure || []).length) text += " Read less surely as another face: " +
        p.unsure.map((d) => `tile ${d.pos} (${d.expected} as ${d.read})`).join(", ") + ".";
      await loadTilesets(r.name);  // the menu holds and selects the new set before the report shows
      settingsChanged();
      $("cal-report").textContent = text;
      $("cal-report").hidden = false;
    } catch (e) {
      showError(e.message);
    } finally {
      busy(false);
    }
  }

  // ------------------------------------------------------------------ start
  async function start() {
    windButtons("seat", "seat", settingsChanged);
    windButtons("round", "round", settingsChanged);
    windButtons("t-round", "t-round", saveTable);
    try {
      meta = await api("/api/rulesets");
    } catch (e) {
      showError("Cannot load the rulesets: " + e.message);
      return;
    }
    TileFaces.setNames(meta.tiles);
    for (const sel of [$("ruleset"), $("t-ruleset")]) {
      for (const r of meta.rulesets) sel.append(h("option", { value: r.id, text: `${r.name} (${r.id})` }));
    }
    $("t-ruleset").value = "rode-draak";
    applySettings(saved.ctx || {});
    await loadTilesets((saved.ctx || {}).tileset);
    summarize(readSettings());
    buildTable();
    if (!meta.models) {
      const note = $("models-note");
      note.hidden = false;
      note.textContent = "Photo reading is unavailable on this server: " + meta.models_error +
                         ". You can still type the hand.";
    }
    $("cal-photo").addEventListener("change", calibrate);
    for (const id of ["ruleset", "win_by", "dealer", "dealer_streak", "discards", "winning_tile", "exposed",
                      "tileset", "learn", ...CHECKS]) {
      $(id).addEventListener("change", settingsChanged);
    }
    for (const id of ["t-ruleset", "t-winning", "t-win-by", "t-settle-options", "t-void"]) $(id).addEventListener("change", saveTable);
    $("photo").addEventListener("change", () => {
      const f = $("photo").files[0];
      if (!f) return;
      clearResult();  // a new photo: the previous reading is not shown under its error
      if (f.size > meta.max_upload_bytes) {
        showError(`The photo is ${(f.size / 1048576).toFixed(1)} MB; the limit is ${(meta.max_upload_bytes / 1048576).toFixed(0)} MB.`);
        return;
      }
      // the Overrides are the photo's: those a previous photo (or typed hand) was scored with are not this one's
      if (saved.overridden || saved.overriddenHand) clearOverrides("Overrides cleared for the new photo");
      state.mode = "photo";
      state.file = f;
      state.photoId = null;
      state.turn = null;  // (the reader's own turn: a new photo is not read as the last one was asked)
      state.fixes = {};
      state.adds = [];
      state.last = null;
      $("photo").value = "";
      keepWork();
      scorePhoto();
    });
    $("notation").addEventListener("input", keepWork);
    window.addEventListener("popstate", () => { if (!$("picker").hidden) closePicker(); });
    $("notation-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      state.mode = "notation";
      scoreNotation();
    });
    $("tab-hand").addEventListener("click", () => showTab("hand"));
    $("tab-table").addEventListener("click", () => showTab("table"));
    $("t-settle").addEventListener("click", settleTable);
    $("picker-cancel").addEventListener("click", closePicker);
    $("picker-drop").addEventListener("click", () => choose("-"));  // a false detection: not the hand's
    $("picker-undo").addEventListener("click", () => {
      undoAt(state.pickPos);
      closePicker();
      scorePhoto();
    });
    $("picker").addEventListener("click", (ev) => { if (ev.target === $("picker")) closePicker(); });
    document.addEventListener("keydown", (ev) => {
      if ($("picker").hidden) return;
      if (ev.key === "Escape") closePicker();
      if (ev.key === "Tab") {  // (the picker keeps the focus while open: Tab had moved on to the tiles behind it)
        const all = [...$("picker").querySelectorAll("button, [href], input, select")].filter((e) => e.offsetParent !== null);
        if (!all.length) return;
        const i = all.indexOf(document.activeElement);
        if (ev.shiftKey && i <= 0) { all[all.length - 1].focus(); ev.preventDefault(); }
        else if (!ev.shiftKey && (i === -1 || i === all.length - 1)) { all[0].focus(); ev.preventDefault(); }
      }
    });
    // the hand worked on before a reload: its photo read again from the server's copy with its corrections, or the
    // typed hand scored again
    const work = keptWork();
    if (typeof work.notation === "string" && !$("notation").value) $("notation").value = work.notation;
    // (this tab's ruleset: another tab may have saved another since, and the hand is read again under this one's)
    if (work.ruleset && work.ruleset !== $("ruleset").value && meta.rulesets.some((r) => r.id === work.ruleset)) {
      $("ruleset").value = work.ruleset;
      buildRulesetControls();
      summarize(readSettings());
    }
    if (work.mode === "photo" && work.photoId && meta.models) {
      state.mode = "photo";
      state.photoId = work.photoId;
      state.fixes = work.fixes && typeof work.fixes === "object" ? work.fixes : {};
      state.adds = Array.isArray(work.adds) ? work.adds : [];
      scorePhoto();
    } else if (work.mode === "notation" && $("notation").value.trim()) {
      state.mode = "notation";
      scoreNotation();
    }
    document.body.setAttribute("data-ready", "");
  }

  document.addEventListener("DOMContentLoaded", start);
})();
