"""``mahjong-score audit``: check a disputed score against the photo (or the hand in notation).

The hand is scored as ``photo``/``hand`` would, the total is compared with the claim, and — when the
claimed breakdown is given (``--claimed-lines FILE.json``, or the JSON inline) — rule by rule:

* **missing** — a rule that counts but is not in the claim (e.g. a missing doubling);
* **not added** — a claimed rule this hand earns that is not added: a rule that counts excludes it, it is below the
  highest of its group (NTS's footnotes, 002:70-74), or a special hand replaces the ordinary count it belongs to;
* **not earned** — a claimed rule that does not apply to this hand (or is not a rule of the ruleset); on a
  winner's hand given no winning tile, a rule of the winning tile is ``not earned without a winning tile``, with
  the tile(s) that score the claimed total, if any (:func:`scoring.engine.winning_tile_effect`);
* **meld status** — the claim has the concealed version of a set where the hand has the exposed one,
  or the reverse (rules whose ids differ only by exposed/concealed/open/closed);
* **wrong value** — the rule counts, with other points / doublings / fixed value / cash / multiplier
  than claimed;
* **limit** — a claimed limit or special hand that the hand is not, or the reverse.

Claimed lines (JSON): a list of ``{"rule": id or "name": text, "points": n, "doublings": n,
"fixed": n, "cash": n, "multiplier": x, "count": n}`` (any of the amounts; a rule's id always names that rule;
else names match the rule's name or English gloss, either half, case- and punctuation-insensitive, and then
part of one — a prefix, or words within — when one rule alone has it, among the lines that counted first:
"pair of dragons" is value-pair, "concealed kong" the concealed kong the hand has; the verdict says which rule
such a line was taken as, :func:`resolve_claims`), or a score JSON object with ``"lines"`` (``mahjong-score hand
--json`` output). A rule claimed on several lines adds up, by id or by a name that names no rule (whose sum is
taken with a left-out line near the name that has that amount: one difference, still a mismatch).

With claimed lines, the verdict also says what they add up to under the ruleset's own arithmetic
(:func:`add_up_claims`: its combine step, points × 2^doublings, a special hand's fixed value, a multiplier,
cash apart) beside the claimed total, so that a slip in the adding up is told from a rule disagreement; it
does not change the verdict (see :class:`AuditResult`).

Exit code: 0 the claim matches (same total and, with claimed lines, no line differs), 1 it does
not, 2 bad input (unreadable photo, no legal reading, bad claim file, claimed amounts too large to add
up). The annotated photo is written
to ``--annotate FILE`` or, by default, next to the photo as ``NAME.RULESET.audit.jpg`` (never over the input).
"""
from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from scoring import HandError, RulesetError, ScoredHand, load_ruleset, score_hand
from scoring.engine import (Line, Ruleset, WinningTileEffect, normal_count, not_added_reason, rule_name,
                            winning_tile_effect)

_STATUS_WORDS = {"exposed", "concealed", "open", "closed"}
_AMOUNTS = ("points", "doublings", "fixed", "cash", "multiplier")
#: the keys a claimed line may have: those of a scored line in ``hand --json`` (a claim may be one, or a hand
#: scored under other options) and ``limit``; any other is refused, as a misspelt amount ("doubling") would
#: otherwise go uncompared
CLAIM_KEYS = frozenset({"rule", "name", "kind", "value", "count", "source", "detail", "option", "applies_to",
                        "limit", *_AMOUNTS})


@dataclass(frozen=True)
class Claimed:
    """One claimed line: the rule id (resolved, or None when unknown), the text given, amounts; ``partial``:
    the rule was taken from part of its name (:func:`partial_name_rules`; the verdict says so);
    ``candidates``: the ids of the rules part of whose names ``given`` is, when it names several (then
    ``rule`` is None)."""

    rule: str | None
    given: str
    amounts: Mapping[str, float]
    count: int | None = None
    partial: bool = False
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class Difference:
    """One way the claim differs from the score: ``what`` (missing / not earned / meld status /
    wrong value / limit / unknown rule), the rule ids, the claimed and computed amounts, and a
    one-line ``message``."""

    what: str
    rule: str | None
    message: str
    claimed: Mapping[str, float] | None = None
    computed: Mapping[str, float] | None = None
    computed_rule: str | None = None
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "rule": self.rule, "computed_rule": self.computed_rule,
                "claimed": dict(self.claimed) if self.claimed is not None else None,
                "computed": dict(self.computed) if self.computed is not None else None,
                "source": self.source, "message": self.message}


@dataclass(frozen=True)
class TakenAs:
    """A claimed line's text (``given``) taken as the rule ``rule`` from part of its name
    (:func:`partial_name_rules`), and the verdict's line that says so (``message``:
    ``'pair of dragons' taken as value-pair (…; 002_…:12)``)."""

    given: str
    rule: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"given": self.given, "rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class LinesTotal:
    """What the claimed lines add up to under the ruleset's own arithmetic (:func:`add_up_claims`), beside
    the claimed total: ``total`` and ``claimed_total`` in the ruleset's points; ``formula`` how the total is
    reached (``28 = 28 points``, ``64 = 16 points × 2^2``, ``1000 fixed × 2^1 = 2000``); ``not_added``: the
    claimed lines the arithmetic leaves out (beside a special hand's value only the lines that go with it
    count), ``no_amount``: the claimed lines that give no amount, each as ``name amount``; ``cash``: the
    claimed cash, paid apart; ``message``: the verdict's line, without its ``arithmetic:`` head."""

    total: int
    claimed_total: int
    formula: str
    message: str
    not_added: tuple[str, ...] = ()
    no_amount: tuple[str, ...] = ()
    cash: float = 0

    @property
    def adds_up(self) -> bool:
        """Whether the claimed lines make the claimed total."""
        return self.total == self.claimed_total

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "claimed": self.claimed_total, "adds_up": self.adds_up,
                "formula": self.formula, "not_added": list(self.not_added), "no_amount": list(self.no_amount),
                "cash": self.cash, "message": self.message}


@dataclass(frozen=True)
class AuditResult:
    """The comparison: ``match``, the claimed and computed totals, the differences by rule and
    hints about the total (doublings, limit) when no breakdown was claimed; ``lines_total``: what the
    claimed lines add up to (None without claimed lines). It does not decide ``match``: claimed lines that do
    not make the claimed total either differ from the hand's (a difference: no match already), or go with a
    total that differs, or the total is right and the lines still are the hand's — a line claimed without an
    amount ("counted"), a mahjong the ruleset refuses, 0 whatever its lines — where the claim is right.
    ``taken_as``: the claimed lines taken as a rule from part of its name (:class:`TakenAs`)."""

    claimed_total: int
    computed_total: int
    differences: tuple[Difference, ...] = ()
    hints: tuple[str, ...] = ()
    lines_total: LinesTotal | None = None
    taken_as: tuple[TakenAs, ...] = ()

    @property
    def match(self) -> bool:
        return self.claimed_total == self.computed_total and not self.differences

    def to_json(self) -> dict[str, Any]:
        return {"match": self.match, "claimed": self.claimed_total, "computed": self.computed_total,
                "difference": self.claimed_total - self.computed_total,
                "claimed_lines_total": self.lines_total.to_json() if self.lines_total is not None else None,
                "taken_as": [t.to_json() for t in self.taken_as],
                "differences": [d.to_json() for d in self.differences], "hints": list(self.hints)}


# ------------------------------------------------------------------------------ claims
def _norm(text: str) -> str:
    """Lower case, punctuation other than letters/digits dropped, runs of spaces as one space
    (``"Four-Pungs!"`` and ``"four pungs"`` compare equal)."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]+|_", " ", text.lower())).strip()


def _names(rule_id: str, name: str, gloss: str = "", bare: bool = False) -> set[str]:
    """What a claimed ``rule``/``name`` may say for a rule: its id, its name, its English gloss, and
    either half of a name or gloss split at `` — ``, ``:`` or ``;`` (``"Vier pungs"``,
    ``"Four Pungs"`` for ``Vier pungs — Four Pungs: 4 pungs/kongs and a pair``), normalized by
    :func:`_norm`; ``bare``: those of the name and gloss without what they say in brackets
    (``"concealed kong of simples"`` for ``… (2-8)``) — which often tells two rules apart
    (``Pung hoekstenen (dicht)`` / ``(open)``), so :func:`resolve_claims` takes them only when one
    rule alone has that name."""
    out = set() if bare else {_norm(rule_id), _norm(rule_id.replace("-", " "))}
    for text in (name, gloss):
        if not text:
            continue
        t = _unbracketed(text) if bare else text
        out.add(_norm(t))
        for part in re.split(r"\s+[—–-]\s+|[:;]", t):
            if _norm(part):
                out.add(_norm(part))
    out.discard("")
    return out


def _unbracketed(text: str) -> str:
    """``text`` without what it says in round brackets (``"Pung hoekstenen (dicht)"`` → ``"Pung hoekstenen "``)."""
    return re.sub(r"\([^)]*\)", " ", text)


#: words a claimed name shares with many rules' names, which name none of them (closest_rule's fallback)
_COMMON = frozenset("the and for with one each all any not are has its this that een van het per".split())


#: the rule kinds a claimed amount is of (a claimed doubling means a rule that gives doublings)
_KIND_OF_AMOUNT = {"points": ("points",), "doublings": ("doublings",), "fixed": ("fixed", "limit"),
                   "cash": ("cash",), "multiplier": ("multiplier",)}


def _claim_kinds(amounts: Mapping[str, float] | None) -> set[str] | None:
    """The rule kinds the claimed ``amounts`` are of (``{"doublings": 3}`` → ``{"doublings"}``), None when
    the amounts say none (no amounts, or only zeros)."""
    if not amounts:
        return None
    kinds = {k for a, v in amounts.items() if v for k in _KIND_OF_AMOUNT.get(a, ())}
    return kinds or None


def _words(text: str) -> set[str]:
    """The words of ``text`` a name is matched by: normalized (:func:`_norm`), ``'s`` dropped, a plural ``s``
    dropped (words over 3 letters), words under 3 letters and :data:`_COMMON` left out."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w
            for w in _norm(re.sub(r"['’]s\b", "", text)).split() if len(w) >= 3 and w not in _COMMON}


def _name_parts(r) -> list[str]:
    """The names a rule is called by, split as :func:`_names` splits them (halves at `` — ``, ``:``, ``;``) and
    at commas, normalized."""
    out = []
    for t in (r.name, r.gloss or ""):
        for p in re.split(r"\s+[—–-]\s+|[:;,]", t):
            if _norm(p):
                out.append(_norm(p))
    return out


#: how many other words a rule's name part may have for a one-word claim to name it (_one_word)
_ONE_WORD_OTHERS = 1


def _one_word(key: str, rs: Ruleset, kinds: set[str] | None) -> list[tuple[Any, float]]:
    """For a claimed name of one word that is a whole word of a rule's name part (:func:`_name_parts`) with at
    most :data:`_ONE_WORD_OTHERS` other words: those rules, the fewest other words first, then the one whose
    part starts with the word ("schoon" is *Schoon spel*, clean, before *Zeer schoon*, very clean), then the
    ruleset's order; with the claim's ``kinds``, only the rules of those kinds (a claimed doubling: not
    *De Zeven Tweelingen (schoon)*, a limit hand). Each with the closeness ``1 / (1 + other words)``. []
    when none (then :func:`_near` measures as for longer names)."""
    if len(key.split()) != 1 or len(_words(key)) != 1:
        return []
    (word,) = _words(key)
    hits = []
    for k, r in enumerate(rs.rules):
        best = None
        for part in _name_parts(r):
            ws = [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in part.split()]
            if word in ws:
                rank = (len(ws) - 1, ws[0] != word)
                best = rank if best is None or rank < best else best
        if best is not None:
            hits.append((best, k, r))
    # (a word that is no more than a part of a rule's name names none: "pung" is in a score of names)
    hits = [h for h in hits if h[0][0] <= _ONE_WORD_OTHERS]
    if kinds is not None:
        hits = [h for h in hits if h[2].kind in kinds]
    return [(r, 1.0 / (1 + other)) for (other, _), _, r in sorted(hits, key=lambda h: (h[0], h[1]))]


def _near(given: str, rs: Ruleset, amounts: Mapping[str, float] | None = None) -> tuple[list[tuple[Any, float]], bool]:
    """([(rule, closeness)] of the rules of ``rs`` whose id, name or gloss, or a half of one, is close to
    ``given``, closest first, True); with none close, ([(rule, 0.0)] of the rules that have every word of
    ``given``, singular, among theirs, when at most two have them, or [], False).

    Close: a one-word name that is a whole word of rules' names, those rules (:func:`_one_word`: the fewest
    other words first); else :class:`difflib.SequenceMatcher` ratio ≥ 0.6, or ≥ 0.8 to a part between
    commas, ties in the ruleset's order. ``amounts``: the claimed amounts — of the rules close, those of
    the kind claimed come first (a claimed doubling: a rule that gives doublings; claimed points, one that
    gives points); when none close is of that kind, the one or two rules of that kind that have every word
    of ``given`` are taken instead, the closest by ratio first ("pung draken" claimed as a doubling: the
    doubling for a dragon pung, value-pung, not the points of pung-honours-exposed)."""
    import difflib

    key = _norm(given)
    kinds = _claim_kinds(amounts)
    one = _one_word(key, rs, kinds)
    if one:
        return one, True
    ranked: list[tuple[float, int]] = []
    best_ratio: dict[int, float] = {}
    for k, r in enumerate(rs.rules):
        names = dict.fromkeys(_names(r.id, r.name, r.gloss), 0.6)
        # and each part of a name or gloss between commas, closer (0.8: "each one" is 0.6 of "each dragon"): a new
        # user's "pair of dragons" had been offered seven pairs of winds/dragons, not the rule glossed "pair of
        # dragons, own wind or round wind"
        for t in (r.name, r.gloss or ""):
            for p in re.split(r"[,;:—–]|\s-\s", t):
                names.setdefault(_norm(p), 0.8)
        ratios = [(difflib.SequenceMatcher(None, key, n).ratio() if n else 0.0, cutoff) for n, cutoff in names.items()]
        best_ratio[k] = max((x for x, _ in ratios), default=0.0)
        close = [x for x, cutoff in ratios if x >= cutoff]
        if close:
            ranked.append((max(close), k))
    ranked.sort(key=lambda t: (-t[0], t[1]))
    want = _words(given) if key else set()
    hits = [k for k, r in enumerate(rs.rules)
            if want and want <= _words(f"{r.id.replace('-', ' ')} {r.name} {r.gloss or ''}")]
    if kinds is not None and not any(rs.rules[k].kind in kinds for _, k in ranked):
        of_kind = sorted((k for k in hits if rs.rules[k].kind in kinds), key=lambda k: (-best_ratio[k], k))
        if 0 < len(of_kind) <= 2:
            return [(rs.rules[k], best_ratio[k]) for k in of_kind], True
    if ranked:
        if kinds is not None:  # (stable: the kind claimed first, each part in its order)
            ranked.sort(key=lambda t: rs.rules[t[1]].kind not in kinds)
        return [(rs.rules[k], x) for x, k in ranked], True
    # every word of the claim (singular) among a rule's words: "flower" for the rule glossed
    # "flower or season"; named when at most two rules have them
    if 0 < len(hits) <= 2:
        return [(rs.rules[k], 0.0) for k in hits], False
    return [], False


#: how much less close than the closest a rule may be and still be one a claimed name does not tell from it
#: ("pung of dragons" is 0.74 of hk-tw-16's "pung/kong of Red dragon", 0.70 of its Green and White)
NEAR_TIE = 0.05


def near_rules(given: str, rs: Ruleset, tie: float | None = None,
               amounts: Mapping[str, float] | None = None) -> list[str]:
    """The ids of the rules of ``rs`` a claimed name ``given`` is close to, closest first (:func:`_near`):
    the lines a claim that names no rule may mean; ``tie``: only those at most that much less close than
    the closest (the name does not tell them apart; both rules of a word match are); ``amounts``: the
    claimed amounts (rules of their kind first, :func:`_near`)."""
    near, ranked = _near(given, rs, amounts)
    if tie is not None and ranked and near:
        near = [(r, x) for r, x in near if x >= near[0][1] - tie]
    return [r.id for r, _ in near]


def closest_rule(given: str, rs: Ruleset, amounts: Mapping[str, float] | None = None) -> str | None:
    """The rule of ``rs`` whose id, name or gloss (or a half of one) is closest to ``given`` (:func:`_near`: a
    one-word name, the rule whose name has that word and the fewest others; else
    :func:`difflib.get_close_matches`' measure, cutoff 0.6; 0.8 for a part between commas; with ``amounts``,
    the claimed amounts, a rule of their kind first), as ``id (label)``; with none that close, the one or
    two rules that have every word of it, joined by "or"; None when nothing is close."""
    near, ranked = _near(given, rs, amounts)
    if not near:
        return None
    return _rule_list([r for r, _ in (near[:1] if ranked else near)])


def _rule_list(rules: Sequence) -> str:
    """Rules as ``id (label)``, joined by "or": what "did you mean …?" offers."""
    return " or ".join(f"{r.id} ({r.label()})" for r in rules)


#: the largest claimed amounts read as a claim (:func:`read_claimed_lines`; beyond them a line is bad input, exit
#: 2): no ruleset here comes near them — its largest line is a special hand's 2000 (nts), a hand's doublings are
#: counted in ones and tens — and :func:`add_up_claims` counts points × 2^doublings exactly, so a claimed 1e20
#: doublings (2^(10^20)) would never finish and 1e308 filled 13 GB; 2^64 already is past any score. Amounts:
#: points, fixed (limit), cash, multiplier, each in absolute value; a ``count`` is not added up, so not bounded
CLAIM_MAX_DOUBLINGS = 64
CLAIM_MAX_AMOUNT = 10**9
#: the largest claim read (bytes of its JSON) and the most lines in it: a hand scores a few dozen lines at most
#: (a tester's 10 MB claim of 300 000 lines took 73 s and 410 MB to refuse line by line)
CLAIM_MAX_BYTES = 1_000_000
CLAIM_MAX_LINES = 500


def read_claimed_lines(path: str | Path, ruleset: str | None = None) -> list[dict[str, Any]]:
    """The claimed lines from a JSON file — or the JSON itself, when the text starts with ``[`` or
    ``{`` — (a list of line objects, or an object with ``lines``).

    Raises HandError (exit 2) for a missing file, bad JSON (nested too deep, a number too long to read), a claim
    over :data:`CLAIM_MAX_BYTES` or of more than :data:`CLAIM_MAX_LINES` lines, a line without rule/name, an unknown key
    (:data:`CLAIM_KEYS`), or an amount that is not a finite number or is beyond :data:`CLAIM_MAX_DOUBLINGS` /
    :data:`CLAIM_MAX_AMOUNT`, and for an object that names another ruleset than ``ruleset`` (``hand --json``
    of a hand scored under another: its lines are another ruleset's, and only the totals' mismatch had said so).
    """
    text = str(path).strip()
    inline = text.startswith(("[", "{"))
    p = Path("<inline JSON>") if inline else Path(path)
    def too_big(size: str) -> HandError:  # (a tester's 10 MB claim of 300 000 lines took 73 s and 410 MB)
        return HandError(f"--claimed-lines {p}: {size} bytes, more than a claim's {CLAIM_MAX_BYTES:,}: a hand's "
                         f"claimed breakdown is a few lines")

    size = len(text.encode("utf-8", "surrogatepass")) if inline else 0
    if size > CLAIM_MAX_BYTES:
        raise too_big(f"{size:,}")

    def read_limited() -> bytes:  # (at most one byte past the limit: a pipe or /dev/stdin has no size to ask)
        with open(p, "rb") as f:
            data = f.read(CLAIM_MAX_BYTES + 1)
        if len(data) > CLAIM_MAX_BYTES:
            raise too_big(f"over {CLAIM_MAX_BYTES:,}")
        return data

    def once(pairs):  # (the parser keeps the last of a key given twice: a claimed amount lost unsaid)
        keys = [k for k, _ in pairs]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:
            raise HandError(f"--claimed-lines {p}: the key {twice!r} is given twice in one object; give each once")
        return dict(pairs)

    try:
        data = json.loads(text if inline else _json_text(read_limited()), object_pairs_hook=once)
    except FileNotFoundError:
        try:  # (a tester's inline null, 42 or "mahjong" had been told "no such file")
            json.loads(text)
        except ValueError:
            raise HandError(f"--claimed-lines {p}: no such file") from None
        raise HandError(f"--claimed-lines: {_short(text)} is no file, and as JSON no list of "
                        f"{{\"rule\": …, \"points\"/\"doublings\": …}}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise HandError(f"--claimed-lines {p}: cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise HandError(f"--claimed-lines {p}: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except HandError:  # (a key given twice: `once` says so; HandError is a ValueError)
        raise
    except ValueError as e:  # (a number of 5 001 digits: Python's limit on reading integers, a traceback)
        raise HandError(f"--claimed-lines {p}: not a claim ({_short(str(e))})") from None
    except RecursionError:  # (a tester's 3 000 nested lists)
        raise HandError(f"--claimed-lines {p}: its JSON nests too deep to be a claim (a list of line objects)") from None
    if isinstance(data, dict) and isinstance(data.get("lines"), list):
        said = data.get("ruleset")
        if ruleset is not None and isinstance(said, str) and said.strip().lower() != ruleset.lower():
            raise HandError(f"--claimed-lines {p}: the claim was scored under {_short(said)}, the audit is under "
                            f"{ruleset}: give -r {said.strip()}, or a claim scored under {ruleset}")
        data = data["lines"]
    if not isinstance(data, list):
        raise HandError(f"--claimed-lines {p}: expected a JSON list of {{\"rule\": …, \"points\"/\"doublings\": …}}")
    if len(data) > CLAIM_MAX_LINES:
        raise HandError(f"--claimed-lines {p}: {len(data):,} lines, more than a claim's {CLAIM_MAX_LINES}: a hand's "
                        f"claimed breakdown is a few lines")
    for k, ln in enumerate(data, 1):
        unknown = sorted(a for a in ln if a not in CLAIM_KEYS) if isinstance(ln, dict) else []
        if unknown:
            # (a referee's "doubling": 3 had been passed over, and the claim compared as a MATCH without it)
            near = difflib.get_close_matches(unknown[0], sorted(CLAIM_KEYS), n=1)
            raise HandError(f"--claimed-lines {p}: item {k}: unknown key {_short(unknown[0])}"
                            + (f" (did you mean {near[0]}?)" if near else "")
                            + f"; a line's keys are {', '.join(sorted(CLAIM_KEYS))}")
        if not isinstance(ln, dict) or not (ln.get("rule") or ln.get("name")):
            raise HandError(f"--claimed-lines {p}: item {k} must be an object with \"rule\" or \"name\"")
        if not isinstance(ln.get("rule") or ln.get("name"), str):
            raise HandError(f"--claimed-lines {p}: item {k}: the rule or name must be text, "
                            f"not {ln.get('rule') or ln.get('name')!r}")
        for a in _AMOUNTS + ("count",):
            if a in ln and not _finite_number(ln[a]):
                raise HandError(f"--claimed-lines {p}: item {k}: {a} must be a number, not {_short(ln[a])}")
        # (a tester's count -5 and kind "bogus" had been taken)
        if "count" in ln and (ln["count"] < 1 or ln["count"] != int(ln["count"])):
            raise HandError(f"--claimed-lines {p}: item {k}: count must be a whole number ≥ 1 (how many times the "
                            f"line counts), not {_short(ln['count'])}")
        # (a tester's doublings 1.5 were added up as 2^1.5 = 56.6, "rounded", and -3 as 2^-3: a hand's doublings
        # are whole and none takes one away)
        if "doublings" in ln and (ln["doublings"] < 0 or ln["doublings"] != int(ln["doublings"])):
            raise HandError(f"--claimed-lines {p}: item {k}: doublings must be a whole number ≥ 0, not "
                            f"{_short(ln['doublings'])}")
        if "kind" in ln and ln["kind"] not in CLAIM_KINDS:
            raise HandError(f"--claimed-lines {p}: item {k}: kind must be one of {', '.join(CLAIM_KINDS)}, not "
                            f"{_short(ln['kind'])}")
        if ruleset is not None and isinstance(ln.get("rule"), str) and isinstance(ln.get("name"), str):
            _same_rule(p, k, ln["rule"], ln["name"], ruleset)
        if isinstance(ln.get("limit"), (int, float)) and not _finite_number(ln["limit"]):  # (read when a number)
            raise HandError(f"--claimed-lines {p}: item {k}: limit must be a number, not {_short(ln['limit'])}")
        for a in (*_AMOUNTS, "limit"):
            bound = CLAIM_MAX_DOUBLINGS if a == "doublings" else CLAIM_MAX_AMOUNT
            if isinstance(ln.get(a), (int, float)) and abs(ln[a]) > bound:
                raise HandError(f"--claimed-lines {p}: item {k} ({_short(ln.get('rule') or ln.get('name'))}): "
                                f"{a} {_short(ln[a])} is more than any hand scores (a claim gives at most {bound:,}); "
                                f"check the amount")
    # (each line's doublings within bound, a claim's together could still make 2^128: all of them add up)
    together = sum(abs(ln["doublings"]) for ln in data if isinstance(ln.get("doublings"), (int, float)))
    if together > CLAIM_MAX_DOUBLINGS:
        raise HandError(f"--claimed-lines {p}: the claimed doublings add up to {together:g}, more than any hand "
                        f"scores (a claim gives at most {CLAIM_MAX_DOUBLINGS} in all); check the amounts")
    return data


#: the kinds a claimed line may say (a scored line's ``kind``)
CLAIM_KINDS = ("points", "doublings", "fixed", "limit", "multiplier", "cash", "note")


def _same_rule(p: Path, k: int, rule: str, name: str, ruleset: str) -> None:
    """HandError when a claimed line's ``rule`` is a rule id of ``ruleset`` and its ``name`` is none of that
    rule's names (a tester's {"rule": "mahjong", "name": "Four Pungs"} had been taken as mahjong alone, a MATCH);
    a line of ``hand --json`` gives both, alike."""
    try:
        rs = load_ruleset(ruleset)
    except RulesetError:
        return
    r = next((x for x in rs.rules if x.id == rule.strip()), None)
    if r is None:
        return
    said = _norm(name)
    if said and said not in _names(r.id, r.name, r.gloss) | {_norm(r.label()), _norm(r.name)}:
        raise HandError(f"--claimed-lines {p}: item {k} gives the rule {r.id} ({r.label()}) and the name "
                        f"{_short(name)}, which is not its name: give one of them")


def _json_text(data: bytes) -> str:
    """A claim file's text: UTF-8 (a byte-order mark allowed, as Windows Notepad writes it) or UTF-16 with its
    byte-order mark (Notepad's "Unicode"), as a batch manifest is read. Raises UnicodeDecodeError."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


def _finite_number(v: Any) -> bool:
    """True for an int or float (not a bool) that is finite as a float (JSON gives NaN, Infinity and
    integers of any length: ``float()`` of a 400-digit integer overflows)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


#: a claimed name longer than this is cut where a verdict says it back (a tester's 5 000-letter name was echoed whole)
SAID_CHARS = 240


def _said(given: str, quoted: bool = True) -> str:
    """A claimed name as a verdict says it back: ``repr`` (as it is, ``quoted`` False), cut to :data:`SAID_CHARS`
    characters with its whole length said (the longest rule name with its English gloss, rode-draak's, is 233)."""
    say = repr if quoted else str
    return say(given) if len(given) <= SAID_CHARS else say(given[:SAID_CHARS]) + f"… ({len(given):,} characters)"


def _short(v: Any) -> str:
    """``repr(v)`` cut to 40 characters (the error stays one short line)."""
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _can_count(rule, scored: ScoredHand) -> bool:
    """``rule``'s ``when`` holds under the options ``scored`` was scored with (a rule of another setting of an
    option can never count there)."""
    opts = getattr(scored, "options", None) or {}
    return not any(k in opts and opts[k] != v for k, v in rule.when.items())


def _countable(rules: list, scored: ScoredHand, amounts: Mapping[str, float] | None) -> list:
    """Of several ``rules`` one name names, those that can count under the options ``scored`` was scored with
    (:func:`_can_count`) and are of the kind of the claimed ``amounts`` (:func:`_claim_kinds`), when any are; all of
    them otherwise, or when there is one. A referee's "Par", the swedish sheet's row name of pair, was "names 3
    rules": pair (the default, pair_by_discard=scores) and two of pair_by_discard=zero, one a note worth nothing."""
    if len(rules) < 2:
        return rules
    kinds = _claim_kinds(amounts)
    return [r for r in rules if _can_count(r, scored) and (kinds is None or r.kind in kinds)] or rules


def bare_name_rules(given: str, rs: Ruleset) -> list:
    """The rules of ``rs`` that ``given`` names once what their names say in brackets is left out
    ("Pung hoekstenen" names both "(dicht)" and "(open)")."""
    key = _norm(given)
    return [r for r in rs.rules if key in _names(r.id, r.name, r.gloss, bare=True)]


#: the shortest word that lets a claimed text be taken as part of a rule's name (:func:`partial_name_rules`): a
#: claim must have a word of 4 letters or more, not in :data:`PARTIAL_COMMON`, that is a whole word of the name
#: ("won" +2 had been taken as only-possible-tile); in Chinese characters 2 ("三元" of 小三元), whose names are
#: words of one or two characters written without spaces
PARTIAL_MIN = 4
PARTIAL_MIN_CJK = 2

#: words that name no rule by themselves when a claim is matched by part of a name (:func:`partial_name_rules`),
#: beside :data:`_COMMON`; singular (a plural ``s`` is dropped before they are looked up, :func:`_words): the
#: sets, tiles and points every name speaks of (English, Dutch, Swedish: pair/paar, pung/pong, kong, chow, tile,
#: steen, hand, point/punt/poäng), winning (won, win, winning), and the state a name says in brackets (dicht,
#: open: "(dicht)" had been taken as pung-terminals-concealed). "concealed" and "exposed" are kept as words that
#: name: with a set they tell a rule family ("concealed kong"), and alone they match several rules, offered as
#: candidates. A claim of such words only is "not a rule", with its candidates (did you mean …)
PARTIAL_COMMON = _COMMON | frozenset(
    "won win winning pair paar pung pong kong chow tile steen stenen hand point punt punten poäng dicht open"
    .split())


def _cjk(text: str) -> bool:
    """``text`` has a CJK ideograph (hk-tw-16's names: written without spaces between words)."""
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


def _part_of(key: str, name: str) -> bool:
    """The normalized claim ``key`` is part of the normalized ``name``: it starts a word of it and runs on
    from there (``"concealed kong"`` of ``"four concealed kongs"``, not ``"ong"`` of ``"kong"``); in Chinese
    characters, anywhere in it (``"三元"`` of ``"小三元"``)."""
    if _cjk(key):
        return key in name
    return re.search(r"(?:^| )" + re.escape(key), name) is not None


def partial_name_rules(given: str, rules: Sequence, amounts: Mapping[str, float] | None = None) -> list:
    """The rules among ``rules`` (:class:`scoring.engine.Rule`) part of whose own name or English gloss, as the
    ruleset data gives them, ``given`` is, case and punctuation aside (:func:`_norm`): from the start of a word
    on, a prefix or the words within (:func:`_part_of`; ``"pair of dragons"`` of value-pair's *pair of dragons,
    own wind or round wind*, ``"Pong/kong i drakar"`` of swedish value-pung's *Pong/kong i drakar /egen el
    rondens vind*), what the name, gloss or claim says in round brackets left out (``"(dicht)"`` names none, and
    hk-tw-16's 嚦咕 glossed "… (no 四喜/三元/三風, no 門清)" is no part of "三元"). [] for a claim with no word of
    :data:`PARTIAL_MIN` letters or more outside :data:`PARTIAL_COMMON` (``"won"``, ``"pung"``, ``"tiles"``),
    and a rule is found only where such a word of the claim is a whole word of its name (a plural ``s`` aside:
    ``"Four Pung"`` of *Four Pungs*, not ``"drag"`` of *dragons*); in Chinese characters, [] for fewer than
    :data:`PARTIAL_MIN_CJK`. With claimed ``amounts`` other than zeros, only the rules of their kind
    (:func:`_claim_kinds`: a claimed ``fixed`` of 1000 as "a limit hand" is no part of rode-draak's *a limit hand
    entirely in the hand*, a doubling; hk-tw-16's note 不計字, glossed "四喜/三元/三風 …", no line "三元" +40
    means). :func:`resolve_claims` takes the rule when one alone is found."""
    key = _norm(_unbracketed(given))
    if _cjk(key):
        if len(key) < PARTIAL_MIN_CJK:
            return []
        telling = None
    else:
        telling = {w for w in _words(key) if len(w) >= PARTIAL_MIN and w not in PARTIAL_COMMON}
        if not telling:
            return []
    kinds = _claim_kinds(amounts)

    def part(text: str) -> bool:
        name = _norm(_unbracketed(text))
        return _part_of(key, name) and (telling is None or bool(telling & _words(name)))

    return [r for r in rules if (kinds is None or r.kind in kinds) and any(part(t) for t in (r.name, r.gloss) if t)]


def rule_by_id(given: str, rs: Ruleset, scored: ScoredHand) -> str | None:
    """The rule id ``given`` is — of a rule of ``rs`` or of a line ``scored`` counted —, case and punctuation
    aside (``"Value Pair"`` is ``value-pair``); None when it is none. An id always names its rule, whatever
    names the rules have."""
    key = _norm(given)
    return next((r for r in [*(x.id for x in rs.rules), *(ln.rule for ln in scored.lines)] if _norm(r) == key),
                None)


def resolve_claims(lines: Sequence[Mapping[str, Any]], rs: Ruleset, scored: ScoredHand) -> list[Claimed]:
    """Claimed lines with their rule ids (:class:`Claimed`), first found of: the rule's id
    (:func:`rule_by_id`: always that rule); its name or gloss, or a half of one, among the lines that counted,
    then among all rules of the ruleset; that name without what it says in brackets, when one rule alone has
    it; part of a name (:func:`partial_name_rules`: a prefix or the words within), when one line that counted
    alone has it, else one rule of the ruleset alone (``partial``; the verdict says which rule it was taken
    as); then a name with every word of one rule's name that counted and 0.9 like it (:func:`nearly_named`, also
    ``partial``). None when no rule is found, or several are (a name without its brackets that two rules share, or
    part of several rules' names: those are the ``candidates``, the lines that counted when several of them are)."""
    out = []
    glosses = {r.id: r.gloss for r in rs.rules}
    for ln in lines:
        given = str(ln.get("rule") or ln.get("name"))
        key = _norm(given)
        amounts = {a: float(ln[a]) for a in _AMOUNTS if a in ln}
        if "limit" in ln and isinstance(ln["limit"], (int, float)) and not isinstance(ln["limit"], bool):
            amounts["fixed"] = float(ln["limit"])
        if ln.get("kind") and ln.get("rule") and set(ln) >= {"points", "doublings", "fixed"}:
            # a score JSON line: keep only the amount of its kind
            kind = ln["kind"]
            amounts = {"points": {"points": float(ln["points"])}, "doublings": {"doublings": float(ln["doublings"])},
                       "fixed": {"fixed": float(ln["fixed"])}, "limit": {"fixed": float(ln["fixed"])},
                       "cash": {"cash": float(ln.get("cash", 0))},
                       "multiplier": {"multiplier": float(ln.get("multiplier", 1))}}.get(kind, {})
        by_id = rule_by_id(given, rs, scored)
        named = [cl for cl in scored.lines if key in _names(cl.rule, cl.name, glosses.get(cl.rule, ""))]
        # one name for a rule's points and its cash (暗槓): each amount claimed goes to the line that has it,
        # a claim of both on one line (as a score sheet shows them) split in two (by an id, "concealed-kong", also
        # the cash rule's gloss: only when the id's line has one of the amounts)
        parts = [(cl.rule, {k: v for k, v in amounts.items() if k in _amounts(cl)}) for cl in named]
        parts = [(r, a) for r, a in parts if a]
        if len(parts) > 1 and by_id in (None, *(r for r, _ in parts)):
            # (an amount no such line has, a ×1 or a doubling, goes with the first: compared there)
            rest = {k: v for k, v in amounts.items() if not any(k in a for _, a in parts)}
            out.extend(Claimed(r, given, {**a, **(rest if k == 0 else {})}, ln.get("count"))
                       for k, (r, a) in enumerate(parts))
            continue
        rid = by_id or ((parts[0][0] if parts else named[0].rule) if named else None)
        if rid is None:
            for r in rs.rules:
                if key in _names(r.id, r.name, r.gloss) | {_norm(r.label())}:
                    rid = r.id
                    break
        partial, candidates = False, ()
        if rid is None:  # the name without what a rule's name says in brackets, when one rule alone has it
            hits = _countable(bare_name_rules(given, rs), scored, amounts)
            rid, partial = (hits[0].id, True) if len(hits) == 1 else (None, False)
            if not hits:  # (a name two rules share without brackets stays theirs: compare names both)
                rid, partial, candidates = _by_part(given, rs, scored, amounts)
            if rid is None and not candidates:  # a rule's name but for a word or a slash (taken as, said)
                rid = nearly_named(given, rs, scored, amounts)
                partial = rid is not None
        out.append(Claimed(rid, given, amounts, ln.get("count"), partial, candidates))
    return out


#: a claimed name this close to a rule's id, name or gloss, or a half of one (:class:`difflib.SequenceMatcher`
#: ratio of the texts as :func:`_norm` makes them), with no word that one lacks, names that rule when it is the only
#: such rule among the lines that counted (:func:`nearly_named`): a tester's "pung of dragons, own wind or round
#: wind", value-pung's gloss with "pung/kong" said "pung" (0.94), had been "not earned: … is not a rule of nts", a
#: MISMATCH on a right claim (value-pair's "pair of dragons, …" is as like it, but lacks "pung"); "won on the last
#: tile" is 0.73 of only-possible-tile's "won on the only possible tile", and stays a name that names no rule
NEARLY_SAME = 0.9

#: words whose leaving out changes what a name means, not how it is said (:func:`nearly_named`): a negation, a
#: set's state, who drew, a count ("concealed kong shown" is 0.9 of hk-tw-16's "concealed kong not shown";
#: "concealed kongs" of nts's "three concealed kongs")
MEANING_WORDS = frozenset(
    "no not non without never concealed exposed open dicht closed self shown drawn only all little big small great "
    "one two three four five six seven eight nine ten twice thrice half full pure mixed".split())


def nearly_named(given: str, rs: Ruleset, scored: ScoredHand,
                 amounts: Mapping[str, float] | None = None) -> str | None:
    """The id of the one rule of ``rs`` that counted in ``scored`` and is of the kind of the claimed ``amounts``
    (:func:`_claim_kinds`; any kind without them) whose id, name or gloss, or a half of one (:func:`_names`), has
    every word of the claimed name ``given``, is at least :data:`NEARLY_SAME` like it, and lacks of it no word of
    :data:`MEANING_WORDS` nor a digit (a word left out, "pung" said for "pung/kong"); None when no rule is, or
    several are. A rule that did not count is left to the comparison of loose names (:func:`compare`)."""
    import difflib

    key = _norm(given)
    words = set(key.split())
    if not words:
        return None
    kinds = _claim_kinds(amounts)
    counted = {ln.rule for ln in scored.lines}

    def near(n: str) -> bool:
        lacks = set(n.split()) - words
        return (words <= set(n.split()) and not lacks & MEANING_WORDS and not any(w.isdigit() for w in lacks)
                and difflib.SequenceMatcher(None, key, n).ratio() >= NEARLY_SAME)

    hits = [r.id for r in rs.rules if r.id in counted and (kinds is None or r.kind in kinds)
            and any(near(n) for n in _names(r.id, r.name, r.gloss) if n)]
    return hits[0] if len(hits) == 1 else None


def _by_part(given: str, rs: Ruleset, scored: ScoredHand,
             amounts: Mapping[str, float]) -> tuple[str | None, bool, tuple[str, ...]]:
    """(rule id, True, ()) for the one rule part of whose name ``given`` is (:func:`partial_name_rules`, with the
    claimed ``amounts``) among the rules whose lines counted, else among all rules of ``rs``; (None, False, the
    ids of the rules it is part of: those that counted when several did, else all) when several are; (None,
    False, ()) when none."""
    counted = {ln.rule for ln in scored.lines}
    hit = partial_name_rules(given, [r for r in rs.rules if r.id in counted], amounts)
    if not hit:
        hit = partial_name_rules(given, rs.rules, amounts)
        # a rule that did not count, found by the claim's words in its order, while a line that counted has all of
        # them in another order and the amount's kind: the name is a loose one, compared as such (a referee's
        # "dragon pung" +1 dbl had been taken as Little Three Dragons' "2 dragon pungs", where value-pung,
        # "pung/kong of dragons", counted +1 dbl)
        telling = _words(_norm(_unbracketed(given))) - PARTIAL_COMMON
        kinds = _claim_kinds(amounts)
        if hit and telling and any(telling <= _words(f"{r.name} {r.gloss or ''}") and (kinds is None or r.kind in kinds)
                                   for r in rs.rules if r.id in counted):
            return None, False, ()
    if len(hit) == 1:
        return hit[0].id, True, ()
    return None, False, tuple(r.id for r in hit)


def _amounts(ln: Line) -> dict[str, float]:
    if ln.kind == "points":
        return {"points": float(ln.points)}
    if ln.kind == "doublings":
        return {"doublings": float(ln.doublings)}
    if ln.kind in ("fixed", "limit"):
        return {"fixed": float(ln.fixed)}
    if ln.kind == "cash":
        return {"cash": float(ln.cash)}
    if ln.kind == "multiplier":
        return {"multiplier": float(ln.multiplier)}
    return {}


def _claimed_line(c: Claimed, rule, amount: str, value: float) -> Line:
    """One amount of the claimed line ``c`` as a line of the score, for the ruleset's arithmetic: of the kind
    of the amount (a claimed ``fixed`` of a limit hand: a ``limit`` line, its value as claimed), with the rule's
    id, name, source and ``with_fixed`` where ``c`` names a rule of the ruleset (``rule``; else None: the
    claimed text as its id and name)."""
    kind = amount
    if amount == "fixed":
        kind = rule.kind if rule is not None and rule.kind in ("fixed", "limit") else "fixed"
    v = int(value) if float(value).is_integer() else value  # (2^1, not 2^1.0, in the formula)
    return Line(rule=c.rule or c.given, name=rule.label() if rule is not None else c.given, kind=kind, value=v,
                count=1, source=rule.source if rule is not None else "",
                applies_to=rule.applies_to if rule is not None else "winner",
                with_fixed=rule.with_fixed if rule is not None else False, **{amount: v})


def _line_key(ln: Line) -> tuple:
    """What a line adds (its rule, kind and amounts), not how it is explained: a ruleset's count may give a
    line back with another detail (rode-draak names the limit hand a doubling doubles)."""
    return ln.rule, ln.kind, ln.points, ln.doublings, ln.fixed, ln.multiplier, ln.cash


def add_up_claims(claims: Sequence[Claimed], scored: ScoredHand, claimed_total: int,
                  lines_agree: bool = False) -> LinesTotal:
    """What the claimed lines (``claims``, :func:`resolve_claims`) add up to under the arithmetic of the
    ruleset ``scored`` was scored under: each claimed amount is made a line of the score
    (:func:`_claimed_line`) and the lines are combined by the ruleset's own combine step — its module's
    ``combine_claim`` hook where it has one (hk-tw-16: a claimed 雞胡 replaces the points claimed beside it),
    else its ``combine`` hook (:attr:`scoring.engine.Ruleset.combine`: swedish mahjong points after doubling
    under ``mahjong_points_doubled=no``, the Dutch sheet's ×1.5 before the flowers/seasons, rode-draak's limit
    hand doubled entirely in the hand), else :func:`scoring.engine.default_combine` (points × 2^doublings ×
    multipliers; a special hand's highest fixed value with only the lines marked ``with_fixed``; cash apart) —
    with the hand's own reading, options and circumstances (whether it won, rode-draak's ``heaven_in_hand``).
    The steps after combining that judge the hand, not the adding up (rode-draak's entry rule, hk-tw-16's
    兩吃 and 搶暗槓), are not applied; a claimed ``count`` is not multiplied in (a claimed amount is the
    line's whole amount, as :func:`compare` reads it). Where the ruleset's count asks what rule a claimed
    line is and it names none (a claimed limit hand under a name of no rule, doubled), the lines are
    combined by ``default_combine`` and the formula says so. Returns a :class:`LinesTotal`; ``claimed_total``
    is the claim's total (``--claimed``); ``lines_agree``: :func:`compare` found no claimed line that differs
    from the hand's, so lines that make the computed total and not the claimed one are a slip in the adding up,
    which the message says. Raises :class:`HandError` (bad input) for amounts too large to add up."""
    from scoring.engine import count_formula, default_combine
    from scoring.results import plain_number
    from scoring.view import View

    rs = load_ruleset(scored.ruleset)
    ids = ids_of(rs)
    made: list[tuple[Line, Claimed, str, float]] = []
    no_amount: list[str] = []
    # amounts of a kind the ruleset never counts (hk-tw-16 sums points: no doublings, no multipliers) are not
    # added as if it did (a tester's claimed doubling under hk-tw-16 was added as × 2)
    kinds = {r.kind for r in rs.rules}
    foreign: list[str] = []
    foreign_kinds: set[str] = set()
    for c in claims:
        rule = rs.rule(c.rule) if c.rule in ids else None
        if not c.amounts and (rule is None or rule.kind != "note"):  # (a claimed note line adds nothing to say)
            no_amount.append(_said(c.given, quoted=False))
        for k, v in c.amounts.items():
            if k in ("doublings", "multiplier") and k not in kinds:
                foreign.append(f"{_said(c.given, quoted=False)} {_fmt_amounts({k: v})}")
                foreign_kinds.add({"doublings": "doublings", "multiplier": "multipliers"}[k])
            else:
                made.append((_claimed_line(c, rule, k, v), c, k, v))
    lines = [ln for ln, *_ in made]
    view = View(scored.hand, scored.decomposition, rs, rs.resolve_options(scored.options))
    how = ""
    try:
        try:
            t = rs.hook("combine_claim", rs.combine)(lines, rs, view)
        except KeyError:  # (rode-draak's count names the rule of the limit hand it doubles)
            t = default_combine(lines, rs, view)
            how = (f"; added by the engine's plain count: {rs.id}'s own count asks each line's rule, and a "
                   f"claimed line names none")
        top = max((ln for ln in t.lines if ln.kind in ("fixed", "limit")), key=lambda ln: ln.fixed, default=None)
        if top is None:  # (the score's own formula, its cash said apart below)
            formula = count_formula(replace(scored, total=t.total, points=t.points, doublings=t.doublings,
                                             lines=t.lines, cash=0, allowed=True, status="ok",
                                             limit_applied=t.limit_applied))
            formula = formula.replace(" (see the notes)", f" (as {rs.id} counts it: `mahjong-score rules {rs.id}`)")
            terms = [ln.points for ln in t.lines if ln.kind == "points"]
            if len(terms) > 1 and math.isclose(sum(terms), t.points):  # (28 = (8 + 20) points: the lines' sum)
                formula = formula.replace(f"= {plain_number(t.points)} points",
                                          f"= ({' + '.join(map(plain_number, terms))}) points".replace("+ -", "- "), 1)
        else:
            mult = math.prod(ln.multiplier for ln in t.lines if ln.kind == "multiplier")
            formula = (f"{plain_number(top.fixed)} fixed" + (f" × 2^{plain_number(t.doublings)}" if t.doublings else "")
                       + (f" × {plain_number(mult)}" if mult != 1 else "")
                       + (f" + {plain_number(t.points)} points" if t.points else ""))
            formula += f" = {t.total}" if formula != f"{plain_number(top.fixed)} fixed" else ""
    except OverflowError:
        raise HandError("--claimed-lines: the claimed lines add up to more than can be counted "
                        "(points × 2^doublings overflows); check their amounts") from None
    kept: dict[tuple, int] = {}
    for ln in t.lines:
        kept[_line_key(ln)] = kept.get(_line_key(ln), 0) + 1
    not_added = []
    for ln, c, k, v in made:
        if kept.get(_line_key(ln), 0) > 0:
            kept[_line_key(ln)] -= 1
        else:
            not_added.append(f"{_said(c.given, quoted=False)} {_fmt_amounts({k: v})}")
    cash = sum(float(ln.cash) for ln in t.lines if ln.kind == "cash")
    total = int(t.total)
    msg = (f"the claimed lines add up to {'the claimed ' if total == claimed_total else ''}{total} under {rs.id}'s "
           f"arithmetic ({formula}{how})")
    if total != claimed_total:
        msg += f", not the claimed {claimed_total}"
        if total == scored.total:
            msg += ": they make the computed total"
            if lines_agree and not no_amount:
                msg += ", and every claimed line is the hand's: the slip is in the adding up, not in the rules"
    if not_added:
        msg += (f"; not added: {', '.join(not_added)} (only the highest special hand's value counts, with the lines "
                f"{rs.id} adds to it)" if top is not None
                else f"; not added: {', '.join(not_added)} ({rs.id}'s count leaves them out beside the other lines "
                     f"claimed)")
    if foreign:
        msg += f"; not added: {', '.join(foreign)} ({rs.id} counts no {' or '.join(sorted(foreign_kinds))})"
    if no_amount:
        msg += f"; no amount claimed, nothing added: {', '.join(no_amount)}"
    if cash:
        msg += f"; cash {_fmt_amounts({'cash': cash})} paid apart, not in the total"
    if not scored.allowed:
        msg += f"; {rs.id} does not allow this mahjong, so it scores {scored.total} whatever its lines add up to"
    return LinesTotal(total, int(claimed_total), formula, msg, tuple(not_added), tuple(no_amount), cash)


def _worth_nothing(ln: Line) -> bool:
    """A note line, a points/doublings/limit/cash line of 0, or a multiplier of ×1: a claim need not
    list it (a reviewer: a cash line must be claimed, though it adds no points)."""
    if ln.kind == "note":
        return True
    if ln.kind == "multiplier":
        return float(ln.multiplier) == 1.0
    a = _amounts(ln)
    return bool(a) and not any(a.values())


def _fmt_amounts(a: Mapping[str, float] | None) -> str:
    if not a:
        return "counted"
    parts = []
    for k, v in a.items():
        v_s = f"{v:+g}"  # (a claim of -20 points had read "+-20 pts")
        parts.append({"points": f"{v_s} pts", "doublings": f"{v_s} dbl", "fixed": f"{v:g} fixed",
                      "cash": f"${v:g}", "multiplier": f"×{v:g}"}[k])
    return ", ".join(parts)


def _what_missing(ln: Line) -> str:
    if ln.kind == "doublings":
        return "missing doubling"
    if ln.kind in ("fixed", "limit"):
        return "limit"
    if ln.kind in ("cash", "multiplier"):  # (a new user's "missing points: flower-set $5" mixed the two)
        return f"missing {ln.kind}"
    return "missing points"


def _status_why(scored: ScoredHand, rule_id: str, line: Line) -> str:
    """Why the set of ``line`` (rule ``rule_id``, of an exposed set) is exposed where the hand ``scored`` shows it
    among its concealed tiles: "; it was completed by the winning discard, which makes a set exposed (RULINGS
    principle 6)" when the pung or kong the reading's winning tile completed (its decomposition's winning meld), won
    on a discard, is one of the sets the line names; else ""."""
    hand = scored.hand
    won = scored.decomposition.winning_meld if scored.decomposition is not None else None
    if (_status_of(rule_id) != "exposed" or won is None or won.kind not in ("pung", "kong")
            or hand.context.win_by not in ("discard", "robbed-kong")):
        return ""
    # (the set the reading says the winning discard completed, not a meld on the table of the winning tile's face:
    # a reviewer's [777s] won on a 7s that completed the chow 789s had been given this reason)
    if not any(tiles_of(d)[:1] == [won.tile] and len(tiles_of(d)) == len(won.tiles)
               for d in re.split(r",\s*", line.detail or "") if d):
        return ""
    return "; it was completed by the winning discard, which makes a set exposed (RULINGS principle 6)"


def tiles_of(detail: str) -> list[str]:
    """The tiles a line's detail names in compact notation (``777s`` → ``["7s", "7s", "7s"]``); [] when it is no
    notation."""
    from scoring import parse_tiles

    try:
        return list(parse_tiles(detail.strip("[]() ")))
    except (HandError, ValueError):
        return []


def _status_twin(rule_id: str, missing: Sequence[str]) -> str | None:
    """The rule of ``missing`` that differs from ``rule_id`` by its meld status alone (``pung-2-8-open`` for
    ``pung-2-8-concealed``), both named with a status (a Swedish referee's claim of concealed-mahjong, Dold Mahjong,
    had been paired with mahjong, "the set is : mahjong +10 pts"); None when none does."""
    return next((m for m in missing if m != rule_id and _status_free(m) == _status_free(rule_id) and _status_of(m)),
                None)


def _status_free(rule_id: str) -> str:
    return "-".join(w for w in rule_id.split("-") if w not in _STATUS_WORDS)


def _status_of(rule_id: str) -> str:
    for w in rule_id.split("-"):
        if w in _STATUS_WORDS:
            return {"open": "exposed", "closed": "concealed"}.get(w, w)
    return ""


def _fires(rule, scored: ScoredHand, rs: Ruleset) -> bool:
    """``rule`` fires on the reading ``scored`` counted (before exclusions: :func:`scoring.engine.rule_fires`
    on its decomposition, options and circumstances); False when that cannot be asked."""
    from scoring.engine import rule_fires
    from scoring.view import View

    try:
        return bool(rule_fires(rule, View(scored.hand, scored.decomposition, rs, rs.resolve_options(scored.options))))
    except (HandError, RulesetError, KeyError, TypeError, ValueError, AttributeError):
        return False


def _option_hint(rule, rs: Ruleset, scored: ScoredHand) -> str:
    """For a claimed rule that did not count: when options turned it off (its ``when`` names settings
    other than those the hand was scored with) and with them it would count for this hand (the hand
    scored again so), the settings that would count it; else ``""``."""
    off = {k: v for k, v in (rule.when or {}).items() if scored.options.get(k) != v}
    if not off:
        return ""
    try:
        again = score_hand(scored.hand, rs, options={**scored.options, **off}, win_notes=False)
    except (HandError, RulesetError, ValueError):
        return ""
    if not any(ln.rule == rule.id for ln in again.lines):
        return ""
    said = " and ".join(f"option {k}={v}" + (f" (ambiguity {rs.options[k].ambiguity})"
                                             if k in rs.options and rs.options[k].ambiguity else "") for k, v in off.items())
    now = ", ".join(f"{k}={scored.options.get(k)}" for k in off)
    return (f"; it counts with {said}, and this hand was scored with {now} (give "
            + " ".join(f"--option {k}={v}" for k, v in off.items()) + " if the table plays it)")


def _option_counts(rule, rs: Ruleset, scored: ScoredHand) -> tuple[str, Any] | None:
    """(option, value) — one option that the rule ``rule`` reads (its ``option``, ``also_options``), set to another
    of its choices, under which the hand ``scored`` is scored counts the rule (the hand scored again so); None when
    none does. A Swedish referee's claim of heads-and-tails on an all-terminals-and-honours hand (003:56-57, left out
    by composition=highest, 003-12), of the single bouquet beside the double (003:36-37, bouquets=replace, 003-08)
    and of Dold Mahjong on a concealed self-drawn hand with a flower (003:45-46, dold_bonus_tiles=laid-out) had each
    been told it "does not apply to this hand"."""
    for k in dict.fromkeys([x for x in (rule.option, *rule.also_options) if x and x in rs.options]):
        for v in rs.options[k].choices:
            if v == scored.options.get(k):
                continue
            try:
                again = score_hand(scored.hand, rs, options={**scored.options, k: v}, win_notes=False)
            except (HandError, RulesetError, ValueError):
                continue
            if any(ln.rule == rule.id for ln in again.lines):
                return k, v
    return None


def _summed(claims: Sequence[Claimed]) -> dict[str, float]:
    """The amounts of several claimed lines added up (points to points, doublings to doublings …)."""
    out: dict[str, float] = {}
    for c in claims:
        for k, v in c.amounts.items():
            out[k] = out.get(k, 0.0) + v
    return out


def _on_lines(claims: Sequence[Claimed]) -> str:
    """`` on N lines`` for claims given on several lines, else ``""``."""
    return f" on {len(claims)} lines" if len(claims) > 1 else ""


def extra_of(claimed_by_rule: Mapping[str, Claimed], computed: Mapping[str, Line]) -> list[str]:
    """The rule ids claimed that did not count, in the claim's order."""
    return [r for r in claimed_by_rule if r not in computed]


def ids_of(rs: Ruleset) -> set[str]:
    """The ids of the rules of ``rs``."""
    return {r.id for r in rs.rules}


def compare(scored: ScoredHand, claimed_total: int, claimed_lines: Sequence[Mapping[str, Any]] | None = None) -> AuditResult:
    """Compare a computed score with a claim (total, optional lines): see the module docstring."""
    rs = load_ruleset(scored.ruleset)
    diffs: list[Difference] = []
    hints: list[str] = []
    lines_total = None
    taken_as: list[TakenAs] = []
    if claimed_lines is not None:
        claims = resolve_claims(claimed_lines, rs, scored)
        computed = {ln.rule: ln for ln in scored.lines}
        taken_as = taken_as_of(claims, rs, computed)
        claimed_by_rule: dict[str, Claimed] = {}
        lines_of: dict[str, int] = {}  # rules claimed on more than one line: how many
        unnamed: list[Claimed] = []  # claims that name no rule: said after the lines missing are known
        for c in claims:
            if c.rule is None:
                unnamed.append(c)
            elif c.rule in claimed_by_rule:
                # one rule claimed on several lines (a line per pung of terminals) adds up, as the score
                # counts it on one line (a tester's claim listing mahjong twice, 20 + 20, was a MATCH)
                prev = claimed_by_rule[c.rule]
                amounts = {k: prev.amounts.get(k, 0.0) + c.amounts.get(k, 0.0) for k in (*prev.amounts, *c.amounts)}
                claimed_by_rule[c.rule] = Claimed(c.rule, prev.given, amounts, (prev.count or 1) + (c.count or 1))
                lines_of[c.rule] = lines_of.get(c.rule, 1) + 1
            else:
                claimed_by_rule[c.rule] = c
        # a line worth nothing (a note such as 'clean hand: mahjong allowed') need not be claimed: a
        # claim that lists every line with an amount is the whole breakdown (a tester's right claim under
        # rode-draak was a MISMATCH for leaving out the entry-rule note)
        missing = [r for r in computed if r not in claimed_by_rule and not _worth_nothing(computed[r])]
        # a rule claimed by the name of the base ruleset's rule it replaces, the same feature (Rule.same_as:
        # rode-draak's Winst met Gelijke 2 t/m 8 = NTS "Pure eenvoud", option equals_2_8, 001-04) is taken as
        # that line, its amounts compared there (a referee's claim had been "not earned: pure-simplicity" and
        # "missing doubling: equals-2-8", two differences for one line named the NTS way)
        def take_as(r: str, twin: str, hint: str) -> None:
            """The claim of rule ``r`` compared as one of the counted rule ``twin`` (no longer missing), said."""
            missing.remove(twin)
            c = claimed_by_rule.pop(r)
            claimed_by_rule[twin] = Claimed(twin, c.given, c.amounts, c.count)
            if r in lines_of:
                lines_of[twin] = lines_of.pop(r)
            hints.append(hint)

        for r in list(extra_of(claimed_by_rule, computed)):
            twin = next((m for m in missing if m in ids_of(rs) and r in rs.rule(m).same_as), None)
            if twin is None:
                continue
            ln = computed[twin]
            said = rs.rule(r).cite(scored.options)
            take_as(r, twin, f"claimed {r} ({rs.rule(r).label()}; {said}) is taken as {twin} "
                             f"({ln.name}; {ln.source}{'; ' + ln.option if ln.option else ''}): {rs.id}'s rule for "
                             f"the same feature, which replaces it")
        # a special hand claimed that this hand also makes, worth the same as the one counted (only one counts,
        # RULINGS principle 5, and either may be named: a tie): taken as the one counted, said in a hint (a seed
        # auditor's right claim of Kerstavond 2000, where Vrolijke Kerst 2000 was counted, was a MISMATCH)
        top = next((ln for ln in scored.lines if ln.kind in ("fixed", "limit")), None)
        for ln in scored.outranked:
            if (top is None or top.rule not in missing or ln.rule not in claimed_by_rule
                    or not math.isclose(ln.fixed, top.fixed)):
                continue
            take_as(ln.rule, top.rule, f"claimed {ln.rule} ({ln.name}; {ln.source}) is taken as {top.rule} "
                                       f"({top.name}; {top.source}): this hand makes both, each worth {top.amount()}, "
                                       f"and only one special hand counts")
        extra = extra_of(claimed_by_rule, computed)
        named_diffs = []
        # a name that names no rule, claimed on several lines (a line per pung, "pung of dragons" +1 dbl twice),
        # adds up as the same lines claimed by a rule's id do: one claim of the lines' sum (it had been a
        # difference per line, the sum never compared with the line it may mean)
        loose: dict[str, list[Claimed]] = {}
        for c in unnamed:
            loose.setdefault(_norm(c.given), []).append(c)
        for cs in loose.values():
            given = cs[0].given
            several = _countable(bare_name_rules(given, rs), scored, _summed(cs))
            if len(several) > 1:  # a name shared by rules that differ only in brackets: (dicht) / (open)
                msg = (f"not earned: {_said(given)}{_on_lines(cs)} names {len(several)} rules of {rs.id}: "
                       + ", ".join(f"{r.id} ({r.label()})" for r in several)
                       + "; claim one of them by its id or its whole name")
                named_diffs.append(Difference("not earned", None, msg, claimed=_summed(cs)))
                continue
            summed = _summed(cs)  # (the rules of the kind claimed first: a claimed doubling, a doubling's rule)
            ties = near_rules(given, rs, tie=NEAR_TIE, amounts=summed)  # those the name does not tell apart
            near = ties[:1]  # the closest rule, the first of them (a word match: the first of its two)

            def fits(m: str, amounts: Mapping[str, float]) -> bool:
                """The claimed ``amounts`` are those of the line of rule ``m``, which the claim leaves out."""
                if m not in missing or not amounts:
                    return False
                got = _amounts(computed[m])
                return set(amounts) == set(got) and all(math.isclose(v, got[k]) for k, v in amounts.items())

            # the closest rule is a line the claim left out, with the amount claimed: perhaps that line under
            # another name (a new user's "pair of dragons" +2 had been both "not a rule" and "missing
            # points: value-pair +2", a mismatch twice over for one line named loosely): one difference; the
            # lines of one name together (value-pung 2×1 dbl claimed as "pung of dragons" +1 twice), else each
            # with a line of its own (hk-tw-16's 發 and 白, +2 each, claimed as "pung of dragons" +2 twice)
            took: list[tuple[list[Claimed], str]] = []
            whole = next((m for m in near if fits(m, _summed(cs))), None)
            if whole is None:
                # … or the one line the claim left out that has the amount claimed and a word of the claim in its
                # name (a new user's "green dragons" +2, the pair 66z counted as value-pair +2, had been offered
                # jade, a 2000 hand, the closest name; the common words of names, pung or pair, do not count)
                said = _words(given) - PARTIAL_COMMON
                by_word = [m for m in missing if said and fits(m, summed)
                           and said & _words(f"{m.replace('-', ' ')} {computed[m].name}")]
                whole = by_word[0] if len(by_word) == 1 else None
            if whole is not None:
                took, rest = [(cs, whole)], []
            else:
                rest = []
                for c in cs:
                    m = next((m for m in (ties if len(cs) > 1 else near)
                              if fits(m, c.amounts) and m not in (t for _, t in took)), None)
                    if m is None:
                        rest.append(c)
                    else:
                        took.append(([c], m))
            for group, m in took:
                # one difference, not two; still a difference: a loose name may mean another rule (a tester's "won
                # on the last tile" +2, the sea bottom, had been taken as the only possible tile +2 and matched)
                missing.remove(m)
                ln = computed[m]
                claimed = _summed(group)
                named_diffs.append(Difference(
                    "not earned", None,
                    f"not earned: {_said(given)} ({_fmt_amounts(claimed)}{_on_lines(group)}) is not a rule of {rs.id}; "
                    f"{m} {ln.amount()} ({ln.name}; {ln.source}) counts with that amount and is not in the claim: if "
                    f"it is the line meant, claim it by its id or its name", claimed, _amounts(ln), m, ln.source))
            if rest:  # (part of several rules' names: those rules; else the closest name)
                closest = (_rule_list([rs.rule(r) for r in cs[0].candidates]) if cs[0].candidates
                           else closest_rule(given, rs, _summed(rest)))
                msg = (f"not earned: {_said(given)}{_on_lines(rest)} is not a rule of {rs.id} "
                       + (f"(did you mean {closest}? " if closest else "(")
                       + f"see `mahjong-score rules {rs.id}`)")
                named_diffs.append(Difference("not earned", None, msg, claimed=_summed(rest)))
        diffs[:0] = named_diffs
        # meld status: a claimed rule and a counted rule that differ only by exposed/concealed
        for r in list(extra):
            twin = _status_twin(r, missing)
            if twin is None or not _status_of(r):
                continue
            extra.remove(r)
            missing.remove(twin)
            ln = computed[twin]
            c = claimed_by_rule[r]
            msg = (f"meld status: claimed {r} ({_fmt_amounts(c.amounts)}), but the set is {_status_of(twin)}: "
                   f"{twin} {ln.amount()}{f' [{ln.detail}]' if ln.detail else ''} ({ln.source})"
                   f"{_status_why(scored, twin, ln)}")
            diffs.append(Difference("meld status", r, msg, c.amounts, _amounts(ln), twin, ln.source))
        # … and a rule claimed on several lines, a set each, one of whose sets is of the other status: the claim's
        # lines are the two counted lines together (a Swedish referee's pung-2-8-concealed claimed for 555p and 777s,
        # the 777s completed by the winning discard and so exposed, had been told "missing points: pung-2-8-open"
        # and "wrong value: pung-2-8-concealed claimed +8 pts on 2 lines, scored +4 pts")
        split_status: set[str] = set()
        for r in list(claimed_by_rule):
            if r not in computed or r not in lines_of or not _status_of(r):
                continue
            twin = _status_twin(r, missing)
            c = claimed_by_rule[r]
            if twin is None or (c.count or 1) != computed[r].count + computed[twin].count:
                continue
            missing.remove(twin)
            split_status.add(r)
            ln, tw = computed[r], computed[twin]
            msg = (f"meld status: claimed {r} on {lines_of[r]} lines ({_fmt_amounts(c.amounts)}), but of those sets "
                   f"{tw.detail or 'one'} {'is' if tw.count == 1 else 'are'} {_status_of(twin)}: {twin} {tw.amount()}"
                   f"{f' [{tw.detail}]' if tw.detail else ''} ({tw.source}){_status_why(scored, twin, tw)}; {r} "
                   f"{ln.amount()}{f' [{ln.detail}]' if ln.detail else ''} counts for the other"
                   f"{'' if ln.count == 1 else 's'}")
            # (the computed amounts of the two counted lines together, as the claim's lines are: a reviewer read
            # claimed 8 against the exposed set's 2 alone as a 6-point gap)
            both = {k: _amounts(ln).get(k, 0.0) + _amounts(tw).get(k, 0.0) for k in {*_amounts(ln), *_amounts(tw)}}
            diffs.append(Difference("meld status", r, msg, c.amounts, both, twin, tw.source))
        outranked = {ln.rule: ln for ln in scored.outranked}
        not_added = {ln.rule: ln for ln in scored.not_added}
        ids = {x.id for x in rs.rules}
        # (the hand scored again with each winning tile it could have: once for every line claimed beyond it)
        effect = _winning_tile_effect(scored) if extra else None
        # (the ordinary count a special hand replaces, once, where an ordinary rule is claimed beside it)
        plain = normal_count(scored) if top is not None and any(
            r in ids and rs.rule(r).kind not in ("fixed", "limit") for r in extra) else None
        plain_rules = {ln.rule for ln in plain.lines} if plain is not None else set()
        plain_not_added = {ln.rule: ln for ln in plain.not_added} if plain is not None else {}
        for r in extra:
            c = claimed_by_rule[r]
            rule = rs.rule(r)
            what = "limit" if rule.kind in ("fixed", "limit") else "not earned"
            # a rule that a counted rule excludes (發 on a 小三元 hand: "no dragon points"), said as such (a new
            # user's claim had been told only that it "does not apply to this hand")
            excluder = next((ln for ln in scored.lines if ln.rule in ids and r in (rs.rule(ln.rule).excludes or ())),
                            None)
            if (r in plain_rules or r in plain_not_added) and rule.kind not in ("fixed", "limit"):
                # a line of the ordinary count that the special hand counted replaces (a referee's claim counted
                # the ordinary way on a Jade hand, 002:38, had every line told it "does not apply")
                what = "not added"
                # (the option where it decides: a fixed-value hand's; a rode-draak Limit replaces the count by
                # 001:46 whatever it says — a reviewer's)
                said = _fixed_hands_words(rs, scored) if top.kind == "fixed" else ""
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}): this hand earns it in an ordinary count, "
                       f"but {rule_name(rs, top)} {top.amount()} ({top.source}), a special hand, replaces the "
                       f"ordinary count{said}")
                if r in plain_not_added:  # (nor would that count add it)
                    msg += f"; in that count it is not added either: {not_added_reason(rs, plain, plain_not_added[r])}"
            elif excluder is not None and _fires(rule, scored, rs):  # (中 on a 小三元 hand without a red pung: no)
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}), but {excluder.rule} ({excluder.name}; "
                       f"{excluder.source}), which counts, excludes it ({rule.label()}; {rule.cite(scored.options)})")
            elif r in not_added:
                # earned, but not added: a footnote group's highest or an excluder counts (a referee's claim of 3
                # concealed pungs beside 3 concealed kongs, 002:74, had been told it "does not apply to this hand")
                what = "not added"
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}): this hand earns it, but it is not added: "
                       f"{not_added_reason(rs, scored, not_added[r])}")
            elif r in outranked and top is not None and math.isclose(outranked[r].fixed, top.fixed):
                # (as high as the one counted: no outranking)
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}): this hand makes it, but {top.rule} "
                       f"{top.amount()} ({top.name}; {top.source}), worth the same, is the one counted: only one "
                       f"special hand counts")
            elif r in outranked and top is not None:  # it applies, but a higher special hand counts instead
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}): this hand makes it, but it is outranked "
                       f"by {top.rule} {top.amount()} ({top.name}; {top.source}): only the highest special hand "
                       f"counts")
            elif r in outranked and top is None:  # the ordinary count beat it (option fixed_hands=best)
                # (a reviewer's claim of Kong Hand under fixed_hands=best had been told it "does not apply")
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}): this hand makes it, but its ordinary count, "
                       f"{scored.total}, is higher and counts (option fixed_hands="
                       f"{scored.options.get('fixed_hands', 'best')}; {rule.cite(scored.options)})")
            elif r in effect.rules:
                # a line of the winning tile, on a winner's hand given none (scored with no wait): that, not "does
                # not apply" (a referee's right claim for a hand won on 1z, typed without -w 1z, had been told so)
                msg = (f"{what} without a winning tile: claimed {r} ({_fmt_amounts(c.amounts)}) depends on the "
                       f"winning tile, and none was given ({rule.label()}; {rule.cite(scored.options)}): give "
                       f"--winning-tile TILE ({_with_tiles(effect, claimed_total)})")
            elif rule.kind not in ("fixed", "limit") and (by_option := _option_counts(rule, rs, scored)) is not None:
                # (earned, and left out by the reading an option makes of the seed: the option named, as `hand`'s
                # explanation names it where it decides a line — RULINGS principle 3)
                what = "not added"
                k, v = by_option
                amb = rs.options[k].ambiguity
                now = scored.options.get(k)
                given = "the default" if now == rs.options[k].default else "as given"
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}): this hand earns it under option {k}={v}, "
                       f"but not under {k}={now}, {given}{f' (ambiguity {amb})' if amb else ''} ({rule.label()}; "
                       f"{rule.cite(scored.options)}): give --option {k}={v} if the table plays it")
            else:
                msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}), but it does not apply to this hand "
                       f"({rule.label()}; {rule.cite(scored.options)})")
                msg += _option_hint(rule, rs, scored)
            diffs.append(Difference(what, r, msg, c.amounts, None, None, rule.cite(scored.options)))
        for r in missing:
            ln = computed[r]
            what = _what_missing(ln)
            msg = (f"{what}: {r} {ln.amount()}{f' [{ln.detail}]' if ln.detail else ''} is not in the claim "
                   f"({ln.name}; {ln.source}{'; ' + ln.option if ln.option else ''})")
            diffs.append(Difference(what, r, msg, None, _amounts(ln), r, ln.source))
        for r, c in claimed_by_rule.items():
            ln = computed.get(r)
            if ln is None or r in split_status:
                continue
            got = _amounts(ln)
            wrong = {k: v for k, v in c.amounts.items() if k in got and not math.isclose(got[k], v)}
            # (an amount the line does not have counts when it is not the neutral one: 0, or ×1)
            wrong.update({k: v for k, v in c.amounts.items() if k not in got and v != (1 if k == "multiplier" else 0)})
            if wrong:
                what = "limit" if ln.kind in ("fixed", "limit") else "wrong value"
                on = f" on {lines_of[r]} lines" if r in lines_of else ""
                msg = (f"{what}: {r} claimed {_fmt_amounts(c.amounts)}{on}, scored {ln.amount()}"
                       f"{f' [{ln.detail}]' if ln.detail else ''} ({ln.source}{'; ' + ln.option if ln.option else ''})")
                diffs.append(Difference(what, r, msg, c.amounts, got, r, ln.source))
    if claimed_total != scored.total:
        said = _summed(claims).get("doublings", 0.0) if claimed_lines is not None else None
        hints.extend(total_hints(scored, claimed_total, rs, said))
    if claimed_lines is not None:
        lines_total = add_up_claims(claims, scored, claimed_total, lines_agree=not diffs)
    return AuditResult(int(claimed_total), int(scored.total), tuple(diffs), tuple(hints), lines_total,
                       tuple(taken_as))


def _winning_tile_effect(scored: ScoredHand) -> WinningTileEffect:
    """:func:`scoring.engine.winning_tile_effect` of ``scored``, an empty one (no totals, no rules) for a hand
    that has its winning tile or needs none. Raises nothing but a :class:`RulesetError` of the ruleset."""
    return winning_tile_effect(scored) or WinningTileEffect({}, ())


def _tiles_scoring(effect: WinningTileEffect, total: int) -> str:
    """The tiles with which, as the winning tile, the hand of ``effect`` scores ``total`` (its ``totals``), in
    tile order and words: ``1z``, ``2m, 3m or 5p``; ``""`` when none does."""
    tiles = [t for t, v in effect.totals.items() if v == total]
    return ", ".join(tiles[:-1]) + (" or " if len(tiles) > 1 else "") + tiles[-1] if tiles else ""


def _with_tiles(effect: WinningTileEffect, claimed: int) -> str:
    """What naming a winning tile scores, for a difference line (:func:`compare`): the tiles with which the hand
    scores the ``claimed`` total (``with 1z the hand scores 30``), else its totals with one (``with one it
    scores 26–30``)."""
    tiles = _tiles_scoring(effect, claimed)
    if tiles:
        return f"with {tiles} the hand scores {claimed}"
    return f"with one it scores {effect.span}" if effect.span else "no tile of the hand makes it a legal one"


def taken_as_of(claims: Sequence[Claimed], rs: Ruleset, computed: Mapping[str, Line]) -> list[TakenAs]:
    """For each claimed text taken as a rule from part of its name (``Claimed.partial``), once: the verdict's
    line naming the rule, its name and seed line (of the line that counted, ``computed``, else of the rule)."""
    out: list[TakenAs] = []
    for c in claims:
        if not c.partial or c.rule is None or any((t.given, t.rule) == (c.given, c.rule) for t in out):
            continue
        ln = computed.get(c.rule)
        rule = rs.rule(c.rule) if c.rule in ids_of(rs) else None
        name, source = (ln.name, ln.source) if ln is not None else (rule.label(), rule.source)
        out.append(TakenAs(c.given, c.rule, f"{_said(c.given)} taken as {c.rule} ({name}; {source})"))
    return out


def total_hints(scored: ScoredHand, claimed: int, rs: Ruleset, claimed_doublings: float | None = None) -> list[str]:
    """What a differing total suggests: a refused mahjong (then only that), a whole number of
    doublings more or fewer, the limit, the points before doubling (not when the claimed lines give
    ``claimed_doublings``, another number of doublings than the hand's: a referee's claim of 2 doublings
    on the pung of dragons, 36 points × 2^2, had been told "with the same 1 doubling, the claim means 72
    points")."""
    out = []
    total = scored.total
    if not scored.allowed:  # e.g. the rode-draak entry rule (001:1): the hand may not go mahjong at all
        out.append(f"{scored.status or 'mahjong not allowed'} — so it scores 0 under {rs.id}")
        return out
    if rs.limit and claimed == rs.limit and total != rs.limit:
        out.append(f"the claim is the limit ({rs.limit:g}); this hand scores {total}"
                   + (" (limit applied)" if scored.limit_applied else ""))
    fixed = [ln for ln in scored.lines if ln.kind in ("fixed", "limit")]
    lower = [ln for ln in scored.outranked if math.isclose(ln.fixed, claimed)]
    if fixed and lower:  # the claim is a special hand this hand also makes, outranked by the one counted
        out.append(f"the claim is the value of {lower[0].name} ({lower[0].source}), which this hand also makes; "
                   f"only the highest special hand counts: {fixed[0].name} {total} ({fixed[0].source})")
    elif total > 0 and claimed > 0 and not (fixed and scored.doublings == 0):
        # (doublings say nothing of a special hand's fixed value that nothing doubled)
        # (by logarithms: a claim of 300+ digits overflowed claimed / total, a traceback, a tester's)
        k = round(math.log2(claimed) - math.log2(total))
        ratio = 2.0 ** k if abs(k) < 64 else math.inf
        if k != 0 and ratio != math.inf and math.isclose(claimed / total, ratio):
            n = abs(k)
            if k < 0 and n > scored.doublings:
                # (fewer doublings than the hand counts at all: a referee's claim of 20 for the demo's 40 was told
                # "1 doubling fewer than this hand earns (0 counted)")
                out.append(f"the claim is {ratio:g}× the score, yet this hand counts {scored.doublings} "
                           f"doubling{'' if scored.doublings == 1 else 's'}: no doubling left out explains it; "
                           f"compare the points lines")
            else:
                out.append(f"the claim is {ratio:g}× the score: {n} doubling{'s' if n > 1 else ''} "
                           f"{'more' if k > 0 else 'fewer'} than this hand earns ({scored.doublings} counted)")
    mult = [ln for ln in scored.lines if ln.kind == "multiplier"]
    added = sum(float(ln.points) for ln in scored.lines if ln.kind == "points")
    if fixed and mult and added:
        # the multiplier applied to what is added after it (a tester's Dutch sheet claim: (2000 + 4) × 1.5 = 3006,
        # where the flowers' 4 come after the × 1.5, 000:187-188): said with the order the hand is counted in
        m = math.prod(float(ln.multiplier) for ln in mult)
        base = sum(float(ln.fixed) for ln in fixed)
        if round((base + added) * m) == claimed != total:
            out.append(f"the claim is ({base:g} + {added:g}) × {m:g} = {claimed}: the {mult[0].amount()} of "
                       f"{mult[0].name} ({mult[0].source}) applies before the {added:g} points are added: "
                       f"{base:g} × {m:g} + {added:g} = {total}")
    out.extend(fixed_doubled_hints(scored, claimed, rs))
    bonus = bonus_left_out_hints(scored, claimed, rs)
    out.extend(bonus)
    tiles = _tiles_scoring(_winning_tile_effect(scored), claimed)
    if tiles:  # a winner's hand given no winning tile, scored with no wait (scoring.engine.no_winning_tile_note)
        out.append(f"with --winning-tile {tiles} the hand scores the claimed {claimed} (scored here with no winning "
                   f"tile, so with no wait)")
    by_option = option_hints(scored, claimed, rs) + win_by_hints(scored, claimed, rs)
    out.extend(by_option)
    normal = normal_count_hints(scored, claimed, rs) if fixed and not by_option else []
    out.extend(normal)
    same = claimed_doublings is None or math.isclose(claimed_doublings, scored.doublings)
    if same and not fixed and scored.doublings > 0 and claimed > 0 and claimed % (2 ** scored.doublings) == 0:
        # (not with no doubling: "with the same 0 doublings, the claim means 44 points" only said the claim)
        pts = claimed // (2 ** scored.doublings)
        if pts != scored.points:
            out.append(f"with the same {scored.doublings} doubling{'s' if scored.doublings != 1 else ''}, "
                       f"the claim means {pts} points; the hand has {scored.points:g}")
    if same and not fixed:
        out.extend(one_line_hints(scored, claimed))
    if not by_option and not normal and not bonus:  # (an option, the count a special hand replaces or the bonus
        out.extend(other_ruleset_hints(scored, claimed))  # tiles left out explain it already)
    return out


def _fixed_hands_words(rs: Ruleset, scored: ScoredHand) -> str:
    """`` (option fixed_hands=fixed, 002-17)``: the setting that makes a fixed-value hand replace the ordinary count,
    undoubled, as ``scored`` was scored, with its ambiguity; ``""`` for a ruleset without the option."""
    opt = rs.options.get("fixed_hands")
    return (f" (option fixed_hands={scored.options.get('fixed_hands')}, {opt.ambiguity})"
            if opt is not None and opt.ambiguity else "")


def fixed_doubled_hints(scored: ScoredHand, claimed: int, rs: Ruleset) -> list[str]:
    """When ``scored`` counts a fixed-value special hand (a ``fixed`` line, nothing doubled) and ``claimed`` is
    that value doubled once or more (points added after it, a Dutch sheet's flowers, 000:159, kept): a hint that
    fixed values are not doubled, with the option that says so where the ruleset has one (``fixed_hands``: nts
    002-17, dutch-special-hands 000-26); ``[]`` otherwise. A referee's claim of 8000 for Four Winds 2000 doubled
    twice had been a bare MISMATCH."""
    fixed = [ln for ln in scored.lines if ln.kind == "fixed"]
    # (a winner's only, and not where a multiplier counts: a waiting non-winner's half of a special hand, 002:19, or
    # an announced wait's × 1.5, 000:187, are no doubling left out — a reviewer's)
    if (not fixed or scored.doublings or claimed <= scored.total or not scored.hand.context.winner
            or any(ln.kind == "multiplier" for ln in scored.lines)):
        return []
    base = sum(float(ln.fixed) for ln in fixed)
    after = sum(float(ln.points) for ln in scored.lines if ln.kind == "points")  # (added after the fixed value)
    if base <= 0 or not math.isclose(base + after, scored.total):
        return []
    for start, added in ((scored.total, 0.0), (base, after)) if after else ((base, 0.0),):
        rest = claimed - added
        k = round(math.log2(rest / start)) if rest > start else 0
        if 1 <= k <= 63 and math.isclose(rest, start * 2 ** k):
            break
    else:
        return []
    why = _fixed_hands_words(rs, scored)
    what = (f"{rule_name(rs, fixed[0])}'s {base:g}" if start == base else
            f"the score {start:g} ({rule_name(rs, fixed[0])} {base:g} + {after:g} points)")
    times = {1: "once", 2: "twice"}.get(k, f"{k} times")
    return [f"the claim is {what} doubled {times} ({start:g} × 2^{k}{f' + {added:g}' if added else ''}): a "
            f"fixed-value hand is not doubled under {rs.id}{why}"]


def bonus_left_out_hints(scored: ScoredHand, claimed: int, rs: Ruleset) -> list[str]:
    """When ``claimed`` is what ``scored``'s hand scores without its bonus tiles (flowers and seasons), a hint
    naming what they add (the lines the hand has only with them, with their seed lines); ``[]`` otherwise, or for a
    hand with none. A referee's claim of 1000 for a Dutch special hand with two flowers (+8, 000:159) had been
    told it is "what this hand scores under nts", and one of 40 for an ordinary hand with its own flower "the
    claim means 10 points"."""
    hand = scored.hand
    if not hand.bonus or claimed == scored.total:
        return []
    try:
        bare = score_hand(replace(hand, bonus=()), rs, options=scored.options, win_notes=False)
    except (HandError, RulesetError, ValueError):
        return []
    if not bare.allowed or bare.total != claimed:
        return []
    kept = {(ln.rule, ln.amount()) for ln in bare.lines}
    had = {(ln.rule, ln.amount()) for ln in scored.lines}
    added = [ln for ln in scored.lines if (ln.rule, ln.amount()) not in kept]
    lost = [ln for ln in bare.lines if (ln.rule, ln.amount()) not in had]

    from scoring.results import plain_number

    def words(lines: Sequence[Line]) -> str:
        return ", ".join(f"{rule_name(rs, ln)} {ln.amount().strip()} ({ln.source})" for ln in lines[:4])

    # (what they cost too: a reviewer's hk-tw-16 flower "added" 正花 +2 …, where it cost 大清平 +15, 7 less in all)
    said = "; ".join(x for x in ((f"they add {words(added)}" if added else ""),
                                 (f"they cost {words(lost)}" if lost else "")) if x)
    return [f"the claim is what this hand scores without its bonus tiles ({' '.join(hand.bonus)}), "
            f"{plain_number(claimed)} for {plain_number(scored.total)}" + (f": {said}" if said else "")]


def one_line_hints(scored: ScoredHand, claimed: int) -> list[str]:
    """When ``claimed`` is ``scored``'s total less the points of one of its lines (points before doubling, with
    the same doublings: a ruleset that adds points, hk-tw-16, or one that doubles them), a hint naming the line(s)
    of that worth, as left out of the claim; ``[]`` otherwise. A referee's hk-tw-16 claim of 93 on a 98 hand, the
    底 5 (004:41) left out, had been a bare MISMATCH, where rode-draak's doublings are hinted."""
    k = 2 ** scored.doublings
    if claimed <= 0 or claimed >= scored.total or claimed % k or (scored.total - claimed) % k:
        return []
    # (only where the total is its points × 2^doublings: no cap, no multiplier, no points added after doubling —
    # swedish's 12 not doubled had a claim hinted with a line whose leaving out gives another total, a reviewer's)
    if (scored.limit_applied or any(ln.kind == "multiplier" for ln in scored.lines)
            or not math.isclose(scored.total, float(scored.points) * k)):
        return []
    short = (scored.total - claimed) // k
    lines = [ln for ln in scored.lines if ln.kind == "points" and ln.points and math.isclose(float(ln.points), short)]
    if not lines:
        return []
    named = " or ".join(f"{ln.name} ({ln.amount().strip()}, {ln.source})" for ln in lines[:3])
    return [f"the claim is the score without {short:g} point{'' if short == 1 else 's'}"
            + (f" before its {scored.doublings} doubling{'' if scored.doublings == 1 else 's'}" if scored.doublings else "")
            + f": as if {named} were left out"]


def other_ruleset_hints(scored: ScoredHand, claimed: int) -> list[str]:
    """The other shipped rulesets (:func:`scoring.engine.available`) under whose default options the same hand and
    circumstances score the claimed total: "the claim is what this hand scores under dutch-special-hands (48,
    default options): was it counted under that ruleset? (audit it with -r dutch-special-hands)"; [] when none does
    (:func:`total_hints` gives it when no option hint nor normal-count hint explains the claim).
    A tester's claim of 48 for the demo, its dutch-special-hands score, had been told only "claim +8" under nts. A
    ruleset whose game the hand's size does not fit (:class:`HandError`) is passed over."""
    from scoring.engine import available

    hits = []
    for rid in available():
        if rid == scored.ruleset:
            continue
        try:
            other = score_hand(scored.hand, rid, win_notes=False)
        except (HandError, RulesetError):
            continue
        if other.allowed and other.total == claimed:
            hits.append(rid)
    if not hits:
        return []
    named = " or ".join(hits)
    return [f"the claim is what this hand scores under {named} ({claimed}, default options): was it counted under "
            f"{'that ruleset' if len(hits) == 1 else 'one of those'}? (audit it with -r {hits[0]})"]


def option_hints(scored: ScoredHand, claimed: int, rs: Ruleset) -> list[str]:
    """The ruleset options (:attr:`Ruleset.options`, each a documented ambiguity or house choice) one of
    whose other settings alone makes this hand score the claimed total: "the claim is what this hand
    scores with --option bonus_tiles=4-points (…)". A club that plays another reading of a rule
    claims its score (a flower counted 4 points under NTS, whose seed has none, RULINGS 002-03)."""
    from scoring.engine import option_text

    out = []
    for name, opt in rs.options.items():
        for value in opt.choices:
            if value == scored.options.get(name, opt.default):
                continue
            try:
                other = score_hand(scored.hand, rs, {**scored.options, name: value}, win_notes=False)
            except (HandError, RulesetError):
                continue
            if other.allowed and other.total == claimed:
                why = f"; {opt.ambiguity}" if opt.ambiguity else ""
                out.append(f"the claim is what this hand scores with --option {name}={option_text(value)} (scored "
                           f"here with {name}={option_text(scored.options.get(name, opt.default))}{why}: "
                           f"`mahjong-score rules {rs.id}` says what each setting means)")
    return out


#: the ways of winning :func:`win_by_hints` tries, as --win-by says them (a robbed kong's or a dead-wall tile needs more
#: than the hand to be judged: the flags and kongs it rests on)
WIN_BY_TRIED = {"discard": "won on a discard", "wall": "self-drawn"}


def win_by_hints(scored: ScoredHand, claimed: int, rs: Ruleset) -> list[str]:
    """When a winner's hand won the other way (:data:`WIN_BY_TRIED`: self-drawn for a discard, a discard for a
    self-drawn win) scores the claimed total under the same ruleset and options: "the claim is what this hand scores
    self-drawn (--win-by wall); scored here won on a discard: check how the hand was won"; else ``[]``. A referee's
    claim of 2000 for Thirteen Orphans won on a discard (1000: rode-draak's "geheel in de hand" doubling is a
    self-drawn hand's, 001:21) had been pointed only at other rulesets."""
    ctx = scored.hand.context
    if not ctx.winner or ctx.win_by not in WIN_BY_TRIED:
        return []
    other = next(w for w in WIN_BY_TRIED if w != ctx.win_by)
    try:
        alt = score_hand(replace(scored.hand, context=replace(ctx, win_by=other)), rs, scored.options,
                         win_notes=False)
    except (HandError, RulesetError):
        return []
    if not alt.allowed or alt.total != claimed or claimed == scored.total:
        return []
    return [f"the claim is what this hand scores {WIN_BY_TRIED[other]} (--win-by {other}); scored here "
            f"{WIN_BY_TRIED[ctx.win_by]}: check how the hand was won"]


def normal_count_hints(scored: ScoredHand, claimed: int, rs: Ruleset) -> list[str]:
    """When ``scored`` is a special hand (a fixed/limit line) and ``claimed`` is the count the hand would
    have without it (:func:`scoring.engine.normal_count`: its points × 2^doublings), a hint saying so and
    that the ruleset scores the special hand instead — with why, where the ruleset's module says it
    (``SPECIAL_HAND_COUNT``: rode-draak's 001:46, the limit's own tiles "leveren geen punten of
    verdubbelingen meer op"); else ``[]``. Where an option would score the normal count (NTS
    ``fixed_hands=best``, 002-17) :func:`option_hints` says it instead (``total_hints`` asks this only
    when no option hint was given). A referee's claim of 1344 for Het Spel van de Rode Draak (500,
    001:88-90) had been a mismatch with no word of where 1344 came from."""
    from scoring.engine import count_formula, normal_count

    top = next((ln for ln in scored.lines if ln.kind in ("fixed", "limit")), None)
    normal = normal_count(scored)
    if top is None or normal is None or not normal.allowed or normal.total != claimed or claimed == scored.total:
        return []
    name = rule_name(rs, top)
    why = rs.hook("SPECIAL_HAND_COUNT")
    return [f"the claim is this hand's normal count, {count_formula(normal)}, as if {name} were no special "
            f"hand; {rs.id} scores {name} instead: {top.amount().strip()} ({top.source})"
            + (f" — {why}" if why else "")]


def report(res: AuditResult, unsure: str | None = None, check: str = "the reading") -> str:
    """Text lines of an audit result; ``unsure``: why the computed score is not to be relied on (a
    photo read below the review threshold, a hand with no winning tile that one would change), said in
    the verdict's line (``UNSURE: check`` ``check``) and the next."""
    # (totals that agree with lines that differ: "claim +0" beside MISMATCH had read as a contradiction)
    same = res.claimed_total == res.computed_total
    head = (f"audit: claimed {res.claimed_total}, computed {res.computed_total} — "
            + ("MATCH" if res.match else "MISMATCH (the totals agree, the claimed lines differ)" if same
               else f"MISMATCH (claim {res.claimed_total - res.computed_total:+d})"))
    lines = [head + (f" — UNSURE: check {check}" if unsure else "")]
    if unsure:
        lines.append(f"  {unsure}")
    if res.lines_total is not None:  # (the adding up apart from the rules: a slip is no rule disagreement)
        lines.append(f"  arithmetic: {res.lines_total.message}")
    for t in res.taken_as:  # (before the differences: which rule each loosely named line was compared with)
        lines.append(f"  {t.message}")
    for d in res.differences:
        lines.append(f"  {d.message}")
    for h in res.hints:
        lines.append(f"  hint: {h}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ CLI
def default_annotation_path(image: Path, ruleset: str) -> Path:
    """``NAME.RULESET.audit.jpg`` beside the photo (``NAME.RULESET.audit-2.jpg`` in the unlikely case that this is the
    input itself; ``NAME.EXT.RULESET.audit.jpg`` when another file of the folder has the photo's stem, as
    ``IMG_0001.heic`` beside ``IMG_0001.jpg``): an audit under another ruleset keeps the earlier one's evidence (a tester's audits of one photo
    under four rulesets had left the last one only, each written over ``NAME.audit.jpg``), and an audit again under
    the same ruleset (with ``--fix``, after a failed one) replaces its own."""
    # (a photo with another beside it of the same stem, IMG_0001.jpg beside IMG_0001.heic as phones save them: its
    # suffix in the name too, IMG_0001.jpg.nts.audit.jpg; a tester's hand.jpg and hand.jpeg wrote one image)
    stem = image.stem
    try:
        twins = [q for q in image.parent.iterdir() if q.stem == stem and q.name != image.name and q.is_file()]
    except OSError:
        twins = []
    if twins:
        stem = image.name
    p = image.with_name(f"{stem}.{ruleset}.audit.jpg")
    k = 2
    while p.resolve() == image.resolve():
        p = image.with_name(f"{stem}.{ruleset}.audit-{k}.jpg")
        k += 1
    return p
