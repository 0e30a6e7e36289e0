"""``mahjong-score audit``: check a disputed score against the photo (or the hand in notation).

The hand is scored as ``photo``/``hand`` would, the total is compared with the claim, and — when the
claimed breakdown is given (``--claimed-lines FILE.json``, or the JSON inline) — rule by rule:

* **missing** — a rule that counts but is not in the claim (e.g. a missing doubling);
* **not earned** — a claimed rule that does not apply to this hand (or is not a rule of the ruleset);
* **meld status** — the claim has the concealed version of a set where the hand has the exposed one,
  or the reverse (rules whose ids differ only by exposed/concealed/open/closed);
* **wrong value** — the rule counts, with other points / doublings / fixed value than claimed;
* **limit** — a claimed limit or special hand that the hand is not, or the reverse.

Claimed lines (JSON): a list of ``{"rule": id or "name": text, "points": n, "doublings": n,
"fixed": n, "count": n}`` (any of the amounts; names match the rule's name, either language half,
case-insensitive), or a score JSON object with ``"lines"`` (``mahjong-score hand --json`` output).

Exit code: 0 the claim matches (same total and, with claimed lines, no line differs), 1 it does
not, 2 bad input (unreadable photo, no legal reading, bad claim file). The annotated photo is written
to ``--annotate FILE`` or, by default, next to the photo as ``NAME.audit.jpg`` (never over the input).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from scoring import HandError, ScoredHand, explain, load_ruleset, parse_hand, score_hand
from scoring.engine import Line, Ruleset

_STATUS_WORDS = {"exposed", "concealed", "open", "closed"}
_AMOUNTS = ("points", "doublings", "fixed")


@dataclass(frozen=True)
class Claimed:
    """One claimed line: the rule id (resolved, or None when unknown), the text given, amounts."""

    rule: str | None
    given: str
    amounts: Mapping[str, float]
    count: int | None = None


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
class AuditResult:
    """The comparison: ``match``, the claimed and computed totals, the differences by rule and
    hints about the total (doublings, limit) when no breakdown was claimed."""

    claimed_total: int
    computed_total: int
    differences: tuple[Difference, ...] = ()
    hints: tuple[str, ...] = ()

    @property
    def match(self) -> bool:
        return self.claimed_total == self.computed_total and not self.differences

    def to_json(self) -> dict[str, Any]:
        return {"match": self.match, "claimed": self.claimed_total, "computed": self.computed_total,
                "difference": self.claimed_total - self.computed_total,
                "differences": [d.to_json() for d in self.differences], "hints": list(self.hints)}


# ------------------------------------------------------------------------------ claims
def _norm(text: str) -> str:
    """Lower case, punctuation other than letters/digits dropped, runs of spaces as one space
    (``"Four-Pungs!"`` and ``"four pungs"`` compare equal)."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]+|_", " ", text.lower())).strip()


def _names(rule_id: str, name: str, gloss: str = "") -> set[str]:
    """What a claimed ``rule``/``name`` may say for a rule: its id, its name, its English gloss, and
    either half of a name or gloss split at `` — ``, ``:`` or ``;`` (``"Vier pungs"``,
    ``"Four Pungs"`` for ``Vier pungs — Four Pungs: 4 pungs/kongs and a pair``), normalized by
    :func:`_norm`."""
    out = {_norm(rule_id), _norm(rule_id.replace("-", " "))}
    for text in (name, gloss):
        if not text:
            continue
        out.add(_norm(text))
        for part in re.split(r"\s+[—–-]\s+|[:;]", text):
            if _norm(part):
                out.add(_norm(part))
    out.discard("")
    return out


def closest_rule(given: str, rs: Ruleset) -> str | None:
    """The rule of ``rs`` whose id, name or gloss (or a half of one) is closest to ``given``
    (:func:`difflib.get_close_matches`, cutoff 0.6), as ``id (label)``; None when nothing is close."""
    import difflib

    key = _norm(given)
    best: tuple[float, str] | None = None
    for r in rs.rules:
        for n in _names(r.id, r.name, r.gloss):
            ratio = difflib.SequenceMatcher(None, key, n).ratio()
            if ratio >= 0.6 and (best is None or ratio > best[0]):
                best = (ratio, f"{r.id} ({r.label()})")
    return best[1] if best else None


def read_claimed_lines(path: str | Path) -> list[dict[str, Any]]:
    """The claimed lines from a JSON file — or the JSON itself, when the text starts with ``[`` or
    ``{`` — (a list of line objects, or an object with ``lines``).

    Raises HandError (exit 2) for a missing file, bad JSON, a line without rule/name, or an amount
    that is not a finite number.
    """
    text = str(path).strip()
    inline = text.startswith(("[", "{"))
    p = Path("<inline JSON>") if inline else Path(path)
    try:
        data = json.loads(text if inline else p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HandError(f"--claimed-lines {p}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise HandError(f"--claimed-lines {p}: cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise HandError(f"--claimed-lines {p}: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if isinstance(data, dict) and isinstance(data.get("lines"), list):
        data = data["lines"]
    if not isinstance(data, list):
        raise HandError(f"--claimed-lines {p}: expected a JSON list of {{\"rule\": …, \"points\"/\"doublings\": …}}")
    for k, ln in enumerate(data, 1):
        if not isinstance(ln, dict) or not (ln.get("rule") or ln.get("name")):
            raise HandError(f"--claimed-lines {p}: item {k} must be an object with \"rule\" or \"name\"")
        if not isinstance(ln.get("rule") or ln.get("name"), str):
            raise HandError(f"--claimed-lines {p}: item {k}: the rule or name must be text, "
                            f"not {ln.get('rule') or ln.get('name')!r}")
        for a in _AMOUNTS + ("count",):
            if a in ln and not _finite_number(ln[a]):
                raise HandError(f"--claimed-lines {p}: item {k}: {a} must be a number, not {_short(ln[a])}")
        if isinstance(ln.get("limit"), (int, float)) and not _finite_number(ln["limit"]):  # (read when a number)
            raise HandError(f"--claimed-lines {p}: item {k}: limit must be a number, not {_short(ln['limit'])}")
    return data


def _finite_number(v: Any) -> bool:
    """True for an int or float (not a bool) that is finite as a float (JSON gives NaN, Infinity and
    integers of any length: ``float()`` of a 400-digit integer overflows)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _short(v: Any) -> str:
    """``repr(v)`` cut to 40 characters (the error stays one short line)."""
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def resolve_claims(lines: Sequence[Mapping[str, Any]], rs: Ruleset, scored: ScoredHand) -> list[Claimed]:
    """Claimed lines with their rule ids: by id, else by name among the lines that counted, else
    among all rules of the ruleset (None when no rule has that id or name)."""
    out = []
    for ln in lines:
        given = str(ln.get("rule") or ln.get("name"))
        key = _norm(given)
        rid = None
        glosses = {r.id: r.gloss for r in rs.rules}
        for cl in scored.lines:
            if key in _names(cl.rule, cl.name, glosses.get(cl.rule, "")):
                rid = cl.rule
                break
        if rid is None:
            for r in rs.rules:
                if key in _names(r.id, r.name, r.gloss) | {_norm(r.label())}:
                    rid = r.id
                    break
        amounts = {a: float(ln[a]) for a in _AMOUNTS if a in ln}
        if "limit" in ln and isinstance(ln["limit"], (int, float)) and not isinstance(ln["limit"], bool):
            amounts["fixed"] = float(ln["limit"])
        if ln.get("kind") and ln.get("rule") and set(ln) >= {"points", "doublings", "fixed"}:
            # a score JSON line: keep only the amount of its kind
            kind = ln["kind"]
            amounts = {"points": {"points": float(ln["points"])}, "doublings": {"doublings": float(ln["doublings"])},
                       "fixed": {"fixed": float(ln["fixed"])}, "limit": {"fixed": float(ln["fixed"])}}.get(kind, {})
        out.append(Claimed(rid, given, amounts, ln.get("count")))
    return out


def _amounts(ln: Line) -> dict[str, float]:
    if ln.kind == "points":
        return {"points": float(ln.points)}
    if ln.kind == "doublings":
        return {"doublings": float(ln.doublings)}
    if ln.kind in ("fixed", "limit"):
        return {"fixed": float(ln.fixed)}
    return {}


def _fmt_amounts(a: Mapping[str, float] | None) -> str:
    if not a:
        return "counted"
    parts = []
    for k, v in a.items():
        v_s = f"{v:g}"
        parts.append({"points": f"+{v_s} pts", "doublings": f"+{v_s} dbl", "fixed": f"{v_s} fixed"}[k])
    return ", ".join(parts)


def _what_missing(ln: Line) -> str:
    if ln.kind == "doublings":
        return "missing doubling"
    if ln.kind in ("fixed", "limit"):
        return "limit"
    return "missing points"


def _status_free(rule_id: str) -> str:
    return "-".join(w for w in rule_id.split("-") if w not in _STATUS_WORDS)


def _status_of(rule_id: str) -> str:
    for w in rule_id.split("-"):
        if w in _STATUS_WORDS:
            return {"open": "exposed", "closed": "concealed"}.get(w, w)
    return ""


def compare(scored: ScoredHand, claimed_total: int, claimed_lines: Sequence[Mapping[str, Any]] | None = None) -> AuditResult:
    """Compare a computed score with a claim (total, optional lines): see the module docstring."""
    rs = load_ruleset(scored.ruleset)
    diffs: list[Difference] = []
    hints: list[str] = []
    if claimed_lines is not None:
        claims = resolve_claims(claimed_lines, rs, scored)
        computed = {ln.rule: ln for ln in scored.lines}
        claimed_by_rule: dict[str, Claimed] = {}
        for c in claims:
            if c.rule is None:
                near = closest_rule(c.given, rs)
                diffs.append(Difference("not earned", None, f"not earned: {c.given!r} is not a rule of {rs.id} "
                                        + (f"(did you mean {near}? " if near else "(")
                                        + f"see `mahjong-score rules {rs.id}`)", claimed=c.amounts))
            else:
                claimed_by_rule[c.rule] = c
        extra = [r for r in claimed_by_rule if r not in computed]
        missing = [r for r in computed if r not in claimed_by_rule]
        # meld status: a claimed rule and a counted rule that differ only by exposed/concealed
        for r in list(extra):
            twin = next((m for m in missing if _status_free(m) == _status_free(r) and m != r), None)
            if twin is None or not _status_of(r):
                continue
            extra.remove(r)
            missing.remove(twin)
            ln = computed[twin]
            c = claimed_by_rule[r]
            msg = (f"meld status: claimed {r} ({_fmt_amounts(c.amounts)}), but the set is {_status_of(twin)}: "
                   f"{twin} {ln.amount()}{f' [{ln.detail}]' if ln.detail else ''} ({ln.source})")
            diffs.append(Difference("meld status", r, msg, c.amounts, _amounts(ln), twin, ln.source))
        for r in extra:
            c = claimed_by_rule[r]
            rule = rs.rule(r)
            what = "limit" if rule.kind in ("fixed", "limit") else "not earned"
            msg = (f"{what}: claimed {r} ({_fmt_amounts(c.amounts)}), but it does not apply to this hand "
                   f"({rule.label()}; {rule.source})")
            diffs.append(Difference(what, r, msg, c.amounts, None, None, rule.source))
        for r in missing:
            ln = computed[r]
            what = _what_missing(ln)
            msg = (f"{what}: {r} {ln.amount()}{f' [{ln.detail}]' if ln.detail else ''} is not in the claim "
                   f"({ln.name}; {ln.source}{'; ' + ln.option if ln.option else ''})")
            diffs.append(Difference(what, r, msg, None, _amounts(ln), r, ln.source))
        for r, c in claimed_by_rule.items():
            ln = computed.get(r)
            if ln is None:
                continue
            got = _amounts(ln)
            wrong = {k: v for k, v in c.amounts.items() if k in got and not math.isclose(got[k], v)}
            wrong.update({k: v for k, v in c.amounts.items() if k not in got and v != 0})
            if wrong:
                what = "limit" if ln.kind in ("fixed", "limit") else "wrong value"
                msg = (f"{what}: {r} claimed {_fmt_amounts(c.amounts)}, scored {ln.amount()}"
                       f"{f' [{ln.detail}]' if ln.detail else ''} ({ln.source}{'; ' + ln.option if ln.option else ''})")
                diffs.append(Difference(what, r, msg, c.amounts, got, r, ln.source))
    if claimed_total != scored.total:
        hints.extend(total_hints(scored, claimed_total, rs))
    return AuditResult(int(claimed_total), int(scored.total), tuple(diffs), tuple(hints))


def total_hints(scored: ScoredHand, claimed: int, rs: Ruleset) -> list[str]:
    """What a differing total suggests: a refused mahjong (then only that), a whole number of
    doublings more or fewer, the limit, the points before doubling."""
    out = []
    total = scored.total
    if not scored.allowed:  # e.g. the rode-draak entry rule (001:1): the hand may not go mahjong at all
        out.append(f"{scored.status or 'mahjong not allowed'} — so it scores 0 under {rs.id}")
        return out
    if rs.limit and claimed == rs.limit and total != rs.limit:
        out.append(f"the claim is the limit ({rs.limit:g}); this hand scores {total}"
                   + (" (limit applied)" if scored.limit_applied else ""))
    if total > 0 and claimed > 0:
        ratio = claimed / total
        k = round(math.log2(ratio)) if ratio > 0 else 0
        if k != 0 and math.isclose(ratio, 2.0 ** k):
            n = abs(k)
            out.append(f"the claim is {ratio:g}× the score: {n} doubling{'s' if n > 1 else ''} "
                       f"{'more' if k > 0 else 'fewer'} than this hand earns ({scored.doublings} counted)")
    fixed = any(ln.kind in ("fixed", "limit") for ln in scored.lines)
    if not fixed and scored.doublings >= 0 and claimed > 0 and claimed % (2 ** scored.doublings) == 0:
        pts = claimed // (2 ** scored.doublings)
        if pts != scored.points:
            out.append(f"with the same {scored.doublings} doubling{'s' if scored.doublings != 1 else ''}, "
                       f"the claim means {pts} points; the hand has {scored.points:g}")
    return out


def report(res: AuditResult) -> str:
    """Text lines of an audit result."""
    head = (f"audit: claimed {res.claimed_total}, computed {res.computed_total} — "
            + ("MATCH" if res.match else f"MISMATCH (claim {res.claimed_total - res.computed_total:+d})"))
    lines = [head]
    if res.claimed_total == res.computed_total and res.differences:
        lines.append("  the totals agree but the claimed breakdown differs:")
    for d in res.differences:
        lines.append(f"  {d.message}")
    for h in res.hints:
        lines.append(f"  hint: {h}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ CLI
def default_annotation_path(image: Path) -> Path:
    """``NAME.audit.jpg`` beside the photo (``NAME.audit-2.jpg`` in the unlikely case that this is
    the input itself)."""
    p = image.with_name(image.stem + ".audit.jpg")
    k = 2
    while p.resolve() == image.resolve():
        p = image.with_name(f"{image.stem}.audit-{k}.jpg")
        k += 1
    return p


def cmd_audit(args: argparse.Namespace) -> int:
    import cli
    from scoring.history import record_hand

    if bool(args.image) == bool(args.hand):
        raise cli.UserError("give either the photo (mahjong-score audit IMG …) or --hand \"NOTATION\"")
    if args.claimed < 0:
        raise cli.UserError(f"--claimed {args.claimed} must be ≥ 0")
    claimed_lines = read_claimed_lines(args.claimed_lines) if args.claimed_lines else None
    ctx = cli.context_from_args(args)
    opts = cli.options_from_args(args)
    rs = load_ruleset(args.ruleset)
    res = None
    annotated: Path | None = None
    if args.hand:
        if args.annotate or args.fix or args.exposed or getattr(args, "add", None):
            raise cli.UserError("--annotate, --fix, --add and --exposed need a photo, not --hand")
        sizes = None if getattr(rs.module, "check_hand", None) else (rs.hand_size,)
        hand = parse_hand(args.hand, winning_tile=args.winning_tile, context=ctx, sizes=sizes)
        scored = score_hand(hand, rs, opts)
    else:
        from .batch import DEFAULT_READER, FatalError, resolve_reader
        from .errors import VisionError
        from .pipeline import parse_additions, parse_fixes, summary
        from .tileset import reader_spec

        image = Path(args.image)
        fixes = parse_fixes(args.fix)
        try:
            reader = resolve_reader(reader_spec(args.reader or DEFAULT_READER, args.tileset))()
            extra = {"additions": parse_additions(args.add)} if getattr(args, "add", None) else {}
            res = reader(image, rs, ctx, winning_tile=args.winning_tile, exposed=args.exposed, fixes=fixes, options=opts,
                         **extra)
        except (VisionError, FatalError) as e:
            raise cli.UserError(str(e).splitlines()[0]) from None
        if not res.reading.legal or res.scored is None:
            raise cli.UserError(f"cannot audit {image.name}: {res.reading.problem or 'no legal reading'} "
                                f"(read: {res.reading.notation}; correct tiles with --fix POS=TILE or use --hand)")
        scored = res.scored
    result = compare(scored, args.claimed, claimed_lines)
    status = "match" if result.match else "mismatch"
    note = f"claimed {args.claimed}" + (f" with {len(claimed_lines)} lines" if claimed_lines is not None else "")
    if res is not None:  # the audit trail first (output may go to a closed pipe)
        from .record import record_photo

        record_photo(args, "audit", Path(args.image), res, context=ctx, options=opts, ruleset=args.ruleset,
                     fixes=parse_fixes(args.fix), status=status, note=note)
    else:
        record_hand(args, "audit", args.hand, scored, context=ctx, options=opts, status=status, note=note)
    if res is not None and not args.no_annotate:
        annotated = _annotate(args, res, result)
    if args.json:
        out = result.to_json()
        out["score"] = scored.to_json()
        out["annotated"] = str(annotated) if annotated else None
        if res is not None:
            from .pipeline import to_json

            out["photo"] = to_json(res)
        cli.print_json(out)
    else:
        if res is not None:
            from .pipeline import summary

            print(summary(res))
            print()
        print(explain(scored))
        print()
        print(report(result))
        if annotated:
            print(f"annotated image: {annotated}")
    return 0 if result.match else 1


def _annotate(args: argparse.Namespace, res, result: AuditResult) -> Path | None:
    import cli

    from .annotate import annotate, fixed_detections, save
    from .errors import ImageError
    from .pipeline import parse_fixes

    image = Path(args.image)
    explicit = args.annotate is not None
    path = Path(args.annotate) if explicit else default_annotation_path(image)
    if path.exists() and (path.resolve() == image.resolve() or os.path.samefile(path, image)):  # (a hard link too)
        raise cli.UserError(f"--annotate {path} is the input photo; choose another file")
    title = (f"claimed {result.claimed_total} / computed {result.computed_total}: "
             + ("MATCH" if result.match else "MISMATCH"))
    try:
        save(annotate(res.photo.pixels, res.detections, res.reading, res.order, title,
                      fixed=set(fixed_detections(res.order, parse_fixes(args.fix))) | set(res.added)), path)
    except ImageError as e:
        if explicit:
            raise cli.UserError(str(e)) from None
        print(f"mahjong-score: warning: annotated image not written: {e}", file=sys.stderr)
        return None
    return path


def register(subparsers) -> None:
    """Add the ``audit`` subcommand (registered through ``cli.COMMANDS``)."""
    import cli
    from scoring.history import add_history_args

    p = subparsers.add_parser(
        "audit", help="check a disputed score against the photo or hand, rule by rule",
        description="Score the photo (or --hand NOTATION) and compare with the claimed total and, with "
                    "--claimed-lines, the claimed breakdown: missing doublings, rules not earned, wrong meld "
                    "status (exposed/concealed), wrong values, limit hands. Exit 0 match, 1 mismatch, 2 bad input.")
    p.add_argument("image", nargs="?", help="the photo of the hand")
    p.add_argument("--hand", metavar="NOTATION", help="audit a hand written in notation instead of a photo")
    p.add_argument("--claimed", type=int, required=True, metavar="TOTAL", help="the claimed total score")
    p.add_argument("--claimed-lines", metavar="JSON",
                   help="the claimed breakdown: a JSON file, or the JSON itself, holding a list of "
                        "{\"rule\" or \"name\", \"points\"/\"doublings\"/\"fixed\"}")
    cli.add_context_args(p)
    p.add_argument("--exposed", help="the melds on the table, e.g. \"[777p] (1111s)\", or \"none\" (photo only)")
    p.add_argument("--fix", help="correct tiles by number before scoring, e.g. \"3=5p\" (photo only)")
    p.add_argument("--add", metavar="POS=TILE", help="add tiles the detector missed, e.g. \"14=5p\" (photo only)")
    p.add_argument("--annotate", metavar="FILE", help="annotated photo path (default: NAME.audit.jpg beside the photo)")
    p.add_argument("--no-annotate", action="store_true", help="do not write the annotated photo")
    p.add_argument("--reader", default=None, help=argparse.SUPPRESS)
    from .tileset import add_tileset_arg

    add_tileset_arg(p)
    add_history_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (match, differences, score)")
    p.set_defaults(func=cmd_audit)
