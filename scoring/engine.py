"""The ruleset engine: rules as data, small predicates, one explained score.

A ruleset is a TOML file in ``scoring/rulesets/<id>.toml`` (format in ``scoring/rulesets/README.md``)
of named rules, each with a kind, a value, who gets it, an exclusive group, exclusions, the option
that governs its reading and the seed line it comes from, plus a Python module of the same name
holding the ruleset's own predicates (shared ones live in :mod:`scoring.predicates`).

Scoring a hand (:func:`score_hand`):

1. every decomposition of the hand under the ruleset's shapes (:mod:`scoring.decompose`);
2. for each, every rule that applies to the player (winner / everyone / non-winner) and whose
   ``when`` options hold is asked its predicate; a rule may fire several times (one per meld).
   The rules that apply are worked out once per ruleset, player and options (a *plan*); a
   predicate with a prefilter (``requires``, see :func:`_prefilter`) is not called for readings
   that lack the features it needs — it could not fire there;
3. exclusions: a fired rule removes the rules it ``excludes``; within a ``group`` only the highest
   value stays (RULINGS: footnote groups, special hands — "the highest scores");
4. :func:`default_combine` (or the ruleset's ``combine``) turns the lines into a total:
   ``fixed``/``limit`` lines → the highest fixed value (× doublings and multipliers marked
   ``with_fixed``) + points marked ``with_fixed``; otherwise ``points × 2^doublings ×
   multipliers``, capped at the ruleset's limit; ``cash`` lines are reported apart;
5. the decomposition with the highest total wins (RULINGS principle 5); ties are reported.

Kinds of rule: ``points``, ``doublings``, ``fixed`` (a special hand's value), ``limit`` (value is a
fraction of the ruleset limit, 1 = full limit), ``multiplier`` (e.g. 1.5× announced waiting hand),
``cash`` (money items, 004) and ``note`` (scores nothing, explains a decision).
"""
from __future__ import annotations

import importlib
import math
import tomllib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import decompose
from . import predicates as shared_predicates
from .decompose import Decomposition, decompositions
from .errors import ECHO_CHARS, HandError, RulesetError, echo
from .fired import Fired  # noqa: F401  (re-exported: engine.Fired)
from .hand import WIN_BY, Context, Hand, WinFlag, make_hand
from .notation import check_size, whole_number_value
from .tiles import BONUS, PLAYING_TILES, sort_tiles
from .view import (  # noqa: F401  (View and the feature bits live in scoring.view; re-exported)
    FEATURES, View, _HAND_BITS, _WAITS, _hand_bits, _hand_lazy, _lazy, _tile_set, _waits_cached,
    hand_features, view_features)
from .results import (  # noqa: F401  (Line, Totals and ScoredHand live in scoring.results; re-exported)
    Line, ScoredHand, Totals, _maker, dollars, _new_line, _new_scored, _new_totals, _object_new, _object_setattr,
    plain_number)

RULESET_DIR = Path(__file__).resolve().parent / "rulesets"
KINDS = ("points", "doublings", "fixed", "limit", "multiplier", "cash", "note")
APPLIES = ("winner", "everyone", "non-winner")


# --------------------------------------------------------------------------- ruleset data
@dataclass(frozen=True)
class Option:
    """A named reading of an ambiguity (or a house choice): ``default`` among ``choices``.

    ``ambiguity`` is the id in ``../shared/rules/AMBIGUITIES.md`` (e.g. ``002-04``), ``doc`` says
    what each choice means.
    """

    name: str
    default: Any
    choices: tuple[Any, ...]
    ambiguity: str = ""
    doc: str = ""

    @property
    def whole_number(self) -> bool:
        """Whether every choice is a whole number (swedish ``mahjong_points``: 10 or 0), read as a number."""
        return bool(self.choices) and all(isinstance(c, int) and not isinstance(c, bool) for c in self.choices)

    def parse(self, raw: Any) -> Any:
        """Convert a CLI string (or a value) to one of ``choices``, a choice's text in any case and with ``_``
        and ``-`` alike, as option names are (RULINGS.md spells 002-03's choice ``4_points``, the ruleset
        ``4-points``), a whole number's as a number (``010`` is 10: :func:`scoring.notation.whole_number_value`,
        digits 0-9); RulesetError otherwise."""
        number = whole_number_value(raw) if self.whole_number else None

        def fold(v: Any) -> str:
            return str(v).lower().replace("_", "-")

        for c in self.choices:
            # (a bool is no number's choice, nor a number a yes/no's: JSON false had been read as 0, 1 as true)
            if (raw == c and isinstance(raw, bool) == isinstance(c, bool)) or fold(raw) == fold(c) or (
                    number is not None and number == c):
                return c
        raise RulesetError(
            f"option {self.name} must be one of {', '.join(map(option_text, self.choices))}, not {echo(str(raw))}")


def option_key(name: Any) -> str:
    """An option's name as rulesets and settlement schemes spell it: the spaces around it dropped, lower
    case, ``-`` as ``_`` (``Seat-Round-Wind`` → ``seat_round_wind``), so that a name is taken in any case,
    as an option's value is (:meth:`Option.parse`)."""
    return str(name).strip().lower().replace("-", "_")


def same_text(key: str, a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b``, two values given for the option ``key``, are the same text in any case, as
    :meth:`Option.parse` reads a choice (``once`` and ``ONCE``): the comparison of :func:`keyed_options`
    where no ruleset says more (:meth:`Ruleset.same_value`)."""
    return a == b or str(a).lower() == str(b).lower()


def keyed_options(options: Mapping[str, Any] | Iterable[tuple[str, Any]], what: str = "option",
                  same: Callable[[str, Any, Any], bool] | None = None) -> dict[str, Any]:
    """``options`` (a mapping, or ``(name, value)`` pairs) with each name spelt by :func:`option_key`.
    One option given twice with values that mean the same (``same(key, first, second)``, e.g.
    :meth:`Ruleset.same_value`: a choice in any case, ``once`` and ``ONCE``; without ``same``, equal
    values) is taken once, as first given. Raises :class:`RulesetError` for a name that is empty (``=once``:
    "has no option name", as every entry point says it) and when two of the names given are one option with
    values that differ (``bonus_tiles=off`` and ``BONUS-TILES=4-points``: ``what`` names the option's kind
    in the message, which names both values)."""
    out: dict[str, Any] = {}
    said: dict[str, str] = {}
    for name, value in (options.items() if isinstance(options, Mapping) else options):
        key = option_key(name)
        if not key:  # (the web's {"": "once"} had been "ruleset … has no option ''" with the whole list)
            raise RulesetError(f"{what} {echo(f'{str(name).strip()}={value}')} has no option name (NAME=VALUE)")
        if key in out:
            if not (same(key, out[key], value) if same is not None else out[key] == value):
                raise RulesetError(f"{what} {echo(key)} is given twice, as {echo(f'{said[key]}={out[key]}')} and "
                                   f"{echo(f'{name}={value}')}")
            continue
        out[key] = value
        said[key] = str(name).strip()
    return out


@dataclass(frozen=True)
class Rule:
    """One named rule of a ruleset (a row or cell of a seed table)."""

    id: str
    name: str
    gloss: str
    kind: str
    value: float
    applies_to: str
    predicate: Callable[..., Any]
    params: Mapping[str, Any]
    source: str
    group: str | None = None
    excludes: tuple[str, ...] = ()
    option: str | None = None
    value_option: str | None = None
    when: Mapping[str, Any] = field(default_factory=dict)
    shapes: tuple[str, ...] | None = None
    completes: bool = False
    with_fixed: bool = False
    note: str = ""
    applies_option: str | None = None
    #: more options that the predicate reads (hk-tw-16's straights: whether a chow completed by the winning
    #: discard is concealed, ``discard_set``), named in the explanation as ``option`` is when they decide a line
    also_options: tuple[str, ...] = ()
    #: rule ids (of a base ruleset) that name the same feature as this rule, which replaces them: a claim
    #: of one of them is taken as this rule's line (vision.audit.compare)
    same_as: tuple[str, ...] = ()
    #: the English gloss under a value of the rule's ``option`` that changes what the rule asks (dutch-special-hands'
    #: ``simples_doubling=any-suits``: "only 2-8, any suits"), by that value; ``gloss`` under the others
    gloss_by_option: Mapping[str, str] = field(default_factory=dict)
    #: the seed lines cited under a value of the rule's ``option`` that reads fewer or other lines (swedish's
    #: ``dold_mahjong=concealed``: line 46 a row of its own, 003:45 alone), by that value; ``source`` under the others
    source_by_option: Mapping[str, str] = field(default_factory=dict)

    def cite(self, opts: Mapping[str, Any] | None = None) -> str:
        """The seed lines a line of this rule cites (``file:lines``): given ``opts`` (option values by name), those
        ``source_by_option`` names for the value of the rule's ``option``, else ``source``. Raises nothing."""
        if opts is not None and self.option is not None and self.source_by_option:
            return self.source_by_option.get(str(opts.get(self.option)), self.source)
        return self.source

    def label(self, opts: Mapping[str, Any] | None = None) -> str:
        """``name`` with the English gloss when they differ: ``正花 — own flower``; given ``opts`` (option values by
        name), the gloss ``gloss_by_option`` names for the value of the rule's ``option``. Raises nothing."""
        gloss = self.gloss
        if opts is not None and self.option is not None and self.gloss_by_option:
            gloss = self.gloss_by_option.get(str(opts.get(self.option)), gloss)
        return self.name if not gloss or gloss == self.name else f"{self.name} — {gloss}"


@dataclass(frozen=True)
class Ruleset:
    """A loaded ruleset: metadata, options, rules and hooks."""

    id: str
    name: str
    description: str
    seed: str
    hand_size: int
    shapes: tuple[str, ...]
    options: Mapping[str, Option]
    rules: tuple[Rule, ...]
    limit: int | None
    module: ModuleType | None
    base: str | None = None
    notes: tuple[str, ...] = ()
    settlement: str | None = None
    #: the words, with their seed line, of why only the highest rule of a ``group`` counts (the ruleset's
    #: ``[groups.NAME] words``): said of a rule earned but not added (:func:`not_added_reason`)
    groups: Mapping[str, str] = field(default_factory=dict)

    @property
    def combine(self) -> Callable[..., "Totals"]:
        return self.hook("combine", default_combine)

    def hook(self, name: str, default: Any = None) -> Any:
        """The module's hook ``name`` (``combine``, ``apply_exclusions``, ``finalize``,
        ``check_hand``, ``notes_for``, …) or ``default`` (``getattr`` without its exception)."""
        return default if self.module is None else self.module.__dict__.get(name, default)

    @property
    def notation_sizes(self) -> tuple[int, ...] | None:
        """The tile counts a typed hand must have (:func:`scoring.notation.parse_hand`'s ``sizes``): the
        ruleset's ``hand_size`` (13 or 16, kongs counting 3), or None where its module checks a hand's size
        itself (its ``check_hand`` hook: special hands of other counts)."""
        return None if self.hook("check_hand") else (self.hand_size,)

    def same_value(self, key: str, a: Any, b: Any) -> bool:
        """Whether ``a`` and ``b``, two values given for the option ``key``, mean the same as
        :meth:`Option.parse` reads them (a choice in any case: ``once`` and ``ONCE``; a whole number's as a
        number: ``10``, ``"10"`` and ``"010"``); for a name the ruleset does not have, or a value none of its
        choices, whether they are the same text in any case (:func:`same_text`; such a value is refused by
        :meth:`resolve_options`). Raises :class:`RulesetError` (:meth:`Option.parse`'s) for a value that is
        none of a whole-number option's choices: ``mahjong_points=x`` is said so, not as given twice."""
        o = self.options.get(option_key(key))
        if o is not None and o.whole_number:
            return o.parse(a) == o.parse(b)
        if o is not None:
            try:
                return o.parse(a) == o.parse(b)
            except RulesetError:
                pass
        return same_text(key, a, b)

    def resolve_options(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults with ``overrides`` applied, their names in any case, ``-`` or ``_`` (:func:`keyed_options`;
        one named twice with values that mean the same, :meth:`same_value`, taken once); RulesetError names
        an unknown option or choice, or an option given twice with values that differ."""
        cached = _DEFAULT_OPTIONS.get(id(self))
        if cached is None or cached[0] is not self:
            cached = _DEFAULT_OPTIONS[id(self)] = (self, {k: o.default for k, o in self.options.items()})
        opts = dict(cached[1])
        if not overrides:
            return opts
        for key, v in keyed_options(overrides, same=self.same_value).items():
            if key not in self.options:
                known = ", ".join(sorted(self.options)) or "none"
                raise RulesetError(f"ruleset {self.id} has no option {echo(key)} (options: {known})")
            opts[key] = self.options[key].parse(v)
        return opts

    def rule(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)


#: id(ruleset) → (ruleset, its default options), for :meth:`Ruleset.resolve_options`
_DEFAULT_OPTIONS: dict[int, tuple[Ruleset, dict[str, Any]]] = {}


def _find_predicate(name: str, module: ModuleType | None, ruleset_id: str) -> Callable[..., Any]:
    for mod in (module, shared_predicates):
        if mod is not None and hasattr(mod, name):
            return getattr(mod, name)
    raise RulesetError(f"ruleset {ruleset_id}: no predicate named {name!r}")


def _load_raw(ruleset_id: str) -> dict[str, Any]:
    known = available()
    # (only a shipped ruleset's id names a file: a tester's 300-letter --ruleset crashed on a file name too
    # long, and "../../pyproject" named a file outside scoring/rulesets)
    if ruleset_id not in known:
        # (the file name's spelling, hk_tw_16 or nts.toml, capitals, spaces, or the start of one id alone:
        # the id it means is named)
        key = str(ruleset_id).strip().lower().removesuffix(".toml").replace("_", "-").replace(" ", "-")
        starts = [k for k in known if key and k.startswith(key)]
        near = key if key in known else starts[0] if len(starts) == 1 else None
        if near is None and key:  # (a typo: "swedsh", "nts2", "hk-tw16" had been given the list alone)
            import difflib
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            near = close[0] if close else None
        near = f"did you mean {near}? " if near else ""
        raise RulesetError(f"unknown ruleset {echo(ruleset_id)} ({near}known: {', '.join(known)})")
    path = RULESET_DIR / f"{ruleset_id.replace('-', '_')}.toml"
    with path.open("rb") as f:
        return tomllib.load(f)


def available() -> list[str]:
    """Ids of the rulesets shipped in ``scoring/rulesets/``."""
    ids = []
    for p in sorted(RULESET_DIR.glob("*.toml")):
        with p.open("rb") as f:
            ids.append(tomllib.load(f)["ruleset"]["id"])
    return ids


def ruleset_id(text: str) -> str:
    """``text`` as the id of a shipped ruleset (:func:`available`) it names in another case or with spaces around
    (``NTS``, ``Rode-Draak``: a director's ruleset cell ``NTS`` had been refused, "did you mean nts?", where option
    names and column names are read in any case); ``text`` unchanged when it names none (refused where it is
    loaded). Read from the file names (:func:`_load_raw` loads ``id.toml`` with ``-`` as ``_``), not their contents:
    a batch asks this for each manifest row, and :func:`available` parses every ruleset file (some 20 ms). Raises
    nothing."""
    ids = {p.stem.replace("_", "-").lower(): p.stem.replace("_", "-") for p in RULESET_DIR.glob("*.toml")}
    return ids.get(text.strip().lower(), text)


_CACHE: dict[str, Ruleset] = {}


_FINGERPRINT: list[str] = []
#: the modules of ``scoring/`` that decide a hand's score (:func:`scoring_fingerprint`)
SCORING_MODULES = ("decompose", "engine", "fired", "hand", "notation", "predicates", "results", "tiles", "view")


def scoring_fingerprint() -> str:
    """16 hex digits of the SHA-256 of what scores a hand, as installed: the rulesets' data and modules
    (``scoring/rulesets/*.toml``, ``*.py``) and the modules of :data:`SCORING_MODULES`, by relative path and
    contents, in path order (not the history, sessions, settlements or the hand generator: a change there scores
    no row again). Any change to how a hand is scored changes it: a batch scores its rows again on resume
    (:meth:`vision.manifest.Job.params`), where rows scored before a fix had kept their old totals beside new
    rows' (a referee's Heaven on a discard, 2000, next to the same hand's 48). Computed once. Raises OSError
    only when the package's own files cannot be read."""
    import hashlib

    if not _FINGERPRINT:
        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        files = [root / f"{m}.py" for m in SCORING_MODULES] + [
            p for p in (root / "rulesets").iterdir() if p.suffix in (".py", ".toml")]
        for f in sorted(files):
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
        _FINGERPRINT.append(h.hexdigest()[:16])
    return _FINGERPRINT[0]


def load_ruleset(ruleset_id: str) -> Ruleset:
    """Load (and cache) a ruleset by id, applying ``base`` inheritance.

    A ruleset with ``base = "nts"`` starts from the base's options and rules; its own rules
    replace those with the same id, ``remove = [ids]`` drops rules. Raises RulesetError.
    """
    if ruleset_id in _CACHE:
        return _CACHE[ruleset_id]
    raw = _load_raw(ruleset_id)
    meta = raw["ruleset"]
    module = None
    mod_name = f"scoring.rulesets.{meta['id'].replace('-', '_')}"
    try:
        module = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name != mod_name:
            raise
    for name, f in (getattr(module, "WIN_FLAGS", None) or {}).items():  # (check_win_flags reads them)
        if name not in (getattr(module, "FLAGS", None) or ()) or not f.ways or not set(f.ways) <= set(WIN_BY):
            raise RulesetError(f"ruleset {meta['id']}: WIN_FLAGS names {name} (win by {f.win_by}): not one of its "
                               f"FLAGS, or no win by of {', '.join(WIN_BY)}")
    options: dict[str, Option] = {}
    rules: list[Rule] = []
    base = meta.get("base")
    if base:
        b = load_ruleset(base)
        options.update(b.options)
        rules.extend(b.rules)
    for name, o in raw.get("options", {}).items():
        if "default" not in o or "choices" not in o:
            raise RulesetError(f"ruleset {meta['id']}: option {name} needs default and choices")
        options[name] = Option(name, o["default"], tuple(o["choices"]), o.get("ambiguity", ""), o.get("doc", ""))
    removed = set(meta.get("remove", []))
    rules = [r for r in rules if r.id not in removed]
    for r in raw.get("rule", []):
        rule = _make_rule(r, module, meta["id"])
        rules = [x for x in rules if x.id != rule.id]
        rules.append(rule)
    for r in rules:
        if r.option and r.option not in options:
            raise RulesetError(f"ruleset {meta['id']}: rule {r.id} names unknown option {r.option}")
        if r.applies_option and r.applies_option not in options:
            raise RulesetError(f"ruleset {meta['id']}: rule {r.id} applies_option names unknown option")
        for o in r.also_options:
            if o not in options:
                raise RulesetError(f"ruleset {meta['id']}: rule {r.id} names unknown option {o} (also_options)")
        for x in r.same_as:
            if x not in {y.id for y in rules}:
                raise RulesetError(f"ruleset {meta['id']}: rule {r.id} same_as names unknown rule {x}")
        for k in r.when:
            if k not in options:
                raise RulesetError(f"ruleset {meta['id']}: rule {r.id} 'when' names unknown option {k}")
    rs = Ruleset(
        id=meta["id"], name=meta["name"], description=meta.get("description", ""), seed=meta["seed"],
        hand_size=int(meta.get("hand_size", 13)), shapes=tuple(meta.get("shapes", ["standard"])),
        options=options, rules=tuple(rules), limit=meta.get("limit"), module=module, base=base,
        notes=tuple(meta.get("notes", [])),
        groups={**(load_ruleset(base).groups if base else {}),
                **{k: str(v["words"]) for k, v in raw.get("groups", {}).items()}},
        settlement=meta.get("settlement") or (load_ruleset(base).settlement if base else None),
    )
    _CACHE[ruleset_id] = rs
    return rs


def _make_rule(r: Mapping[str, Any], module: ModuleType | None, ruleset_id: str) -> Rule:
    try:
        kind = r["kind"]
        if kind not in KINDS:
            raise RulesetError(f"ruleset {ruleset_id}: rule {r['id']} has unknown kind {kind!r}")
        applies = r.get("applies_to", "everyone")
        if applies not in APPLIES:
            raise RulesetError(f"ruleset {ruleset_id}: rule {r['id']} applies_to {applies!r}")
        return Rule(
            id=r["id"], name=r["name"], gloss=r.get("gloss", ""), kind=kind, value=r.get("value", 0),
            applies_to=applies, predicate=_find_predicate(r["predicate"], module, ruleset_id),
            params=r.get("params", {}), source=r["source"], group=r.get("group"),
            excludes=tuple(r.get("excludes", ())), option=r.get("option"),
            value_option=r.get("value_option"), when=r.get("when", {}),
            shapes=tuple(r["shapes"]) if "shapes" in r else None, completes=r.get("completes", False),
            with_fixed=r.get("with_fixed", False), note=r.get("note", ""),
            applies_option=r.get("applies_option"), same_as=tuple(r.get("same_as", ())),
            also_options=tuple(r.get("also_options", ())), gloss_by_option=dict(r.get("gloss_by_option", {})),
            source_by_option=dict(r.get("source_by_option", {})),
        )
    except KeyError as e:
        raise RulesetError(f"ruleset {ruleset_id}: rule {r.get('id', '?')} lacks field {e}") from None


def _prefilter(rule: "Rule") -> tuple[int, tuple[int, ...]] | None:
    """(bits all required, any-of groups) from the predicate's ``requires(**params)``, or None.

    A predicate may carry ``requires``: a function of the rule's params returning a sequence of
    feature-name groups, each a *necessary* condition for the predicate to fire (at least one
    feature of each group present), or None. The engine then skips the call when the reading lacks
    them — the rule is still evaluated, its answer known to be "no". Unknown names disable it.
    """
    req = getattr(rule.predicate, "requires", None)
    if req is None:
        return None
    try:
        groups = req(**rule.params)
    except TypeError:
        return None
    if groups is None:
        return None
    all_bits, anys = 0, []
    for g in groups:
        if isinstance(g, str):
            g = (g,)
        bits = 0
        for name in g:
            if name not in FEATURES:
                return None
            bits |= FEATURES[name]
        if len(g) == 1:
            all_bits |= bits
        else:
            anys.append(bits)
    return all_bits, tuple(anys)


#: ask predicates only when their prefilter passes (False: ask every predicate; for checks)
PREFILTER = True


def clear_caches() -> None:
    """Empty the engine's memo caches (standard splits, waits): for benchmarks and tests that
    measure or compare cold runs. Scores never depend on them."""
    _WAITS.clear()
    _PLANS.clear()
    _FIRED.clear()
    decompose.clear_caches()


def clear_hand_caches() -> None:
    """Empty the caches that hold anything about particular hands (waits per hand, the firings
    of a reading's melds), keeping the per-suit pattern tables and rule plans (for steady-state
    benchmarks). Scores never depend on caches."""
    _WAITS.clear()
    _FIRED.clear()


#: what a predicate's ``True`` becomes (Fired is immutable: one object serves every firing)
_ONCE = Fired()
#: details → Fired(len(details), details), for predicates that return lists (made once each)
_FIRED: dict[tuple[str, ...], Fired] = {}


def _coerce(result: Any) -> Fired | None:
    if result is True:
        return _ONCE
    if result is None or result is False or result == 0:
        return None
    cls = result.__class__
    if cls is list or cls is tuple:
        if not result:
            return None
        details = tuple(map(str, result))
        f = _FIRED.get(details)
        if f is None:
            if len(_FIRED) > 8192:
                _FIRED.clear()
            f = _FIRED[details] = Fired(count=len(details), details=details)
        return f
    if isinstance(result, Fired):
        return result if result.count else None
    if isinstance(result, int):
        return Fired(count=result)
    if isinstance(result, (list, tuple)):
        return Fired(count=len(result), details=tuple(map(str, result))) if result else None
    if isinstance(result, str):
        return Fired(details=(result,))
    raise TypeError(f"predicate returned {type(result).__name__}")


def option_label(rule: Rule, ruleset: Ruleset, opts: Mapping[str, Any], quiet: tuple[str, ...] = ()) -> str:
    """``option seat_round_wind=each, 002-04`` for a rule governed by an option (``quiet``: options
    left out, as not deciding this line: :attr:`Fired.quiet`)."""
    names = [n for n in (rule.option, rule.value_option, rule.applies_option, *rule.also_options) if n]
    names += [k for k in rule.when if k not in names]
    names = [n for n in names if n not in quiet]
    parts = []
    for n in names:
        o = ruleset.options[n]
        parts.append(f"{n}={option_text(opts[n])}" + (f", {o.ambiguity}" if o.ambiguity else ""))
    return "option " + "; ".join(parts) if parts else ""


def option_text(value: Any) -> str:
    """An option value as users type it: ``true``/``false`` for booleans (TOML), else ``str``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _applies(rule: Rule, winner: bool, opts: Mapping[str, Any]) -> bool:
    who = opts[rule.applies_option] if rule.applies_option else rule.applies_to
    return who == "everyone" or (who == "winner") == winner


class _Plan:
    """The rules of a ruleset that apply to one player under one set of options, in ruleset order,
    with their option labels and (filled on demand) the subset asked for each shape."""

    __slots__ = ("ruleset", "rules", "labels", "names", "by_shape", "by_features", "used_bits", "lines",
                 "checks", "hand_needs", "once_lines")

    def __init__(self, ruleset: Ruleset, rules: tuple[Rule, ...], labels: dict[str, str],
                 opts: Mapping[str, Any] | None = None):
        self.ruleset = ruleset
        self.rules = rules
        self.labels = labels
        self.names = {r.id: r.label(opts) for r in rules}
        self.by_shape: dict[tuple[str, bool], tuple[Rule, ...]] = {}
        self.by_features: dict[tuple[str, bool, int], tuple[tuple[Any, ...], ...]] = {}
        self.used_bits = 0  # the feature bits any prefilter of the plan looks at
        #: (rule id, count, details, value of a firing) → its line (lines are immutable: reuse)
        self.lines: dict[tuple[Any, ...], Line] = {}
        #: (shape, completes_only) → (bits its prefilters look at, ((step, bits required, first
        #: any-of group or None, other any-of groups), …))
        self.checks: dict[tuple[str, bool], tuple[int, tuple[tuple[Any, int, int | None, tuple[int, ...]], ...]]] = {}
        #: (special shape, hand features) → may_complete
        self.hand_needs: dict[tuple[str, int], bool] = {}
        #: rule id → its line when it fired once, plainly (the predicate said True)
        self.once_lines: dict[str, Line] = {}

    def for_shape(self, shape: str, completes_only: bool = False) -> tuple[tuple[Any, ...], ...]:
        """Steps ``(rule, predicate, params or None, prefilter or None)`` for a reading's shape."""
        key = (shape, completes_only)
        steps = self.by_shape.get(key)
        if steps is None:
            steps = self.by_shape[key] = tuple(
                (r, r.predicate, r.params or None, _prefilter(r)) for r in self.rules
                if (r.shapes is None or shape in r.shapes) and (r.completes or not completes_only))
            used = 0
            for step in steps:
                if step[3] is not None:
                    used |= step[3][0]
                    for g in step[3][1]:
                        used |= g
            self.used_bits |= used
            # (step, bits required, the first any-of group or None, the other any-of groups)
            self.checks[key] = (used, tuple(
                (step, 0, None, ()) if step[3] is None else
                (step, step[3][0], step[3][1][0] if step[3][1] else None, step[3][1][1:])
                for step in steps))
        return steps

    def may_complete(self, shape: str, hand_feats: int) -> bool:
        """False when no ``completes`` rule of ``shape`` can fire for a hand with the reading-
        independent features ``hand_feats`` (:func:`hand_features`): each one's prefilter needs a
        hand feature the hand lacks, whatever the reading. True otherwise (then ask them)."""
        key = (shape, hand_feats)
        found = self.hand_needs.get(key)
        if found is None:
            needs = tuple(0 if step[3] is None else step[3][0] & _HAND_BITS
                          for step in self.for_shape(shape, True))
            missing = ~hand_feats
            found = any(not need & missing for need in needs)
            if len(self.hand_needs) > 4096:
                self.hand_needs.clear()
            self.hand_needs[key] = found
        return found

    def candidates(self, shape: str, feats: int, completes_only: bool = False) -> tuple[tuple[Any, ...], ...]:
        """The steps of :meth:`for_shape` whose prefilter passes for a reading with features
        ``feats`` (cached per shape and the feature bits the shape's prefilters look at)."""
        entry = self.checks.get((shape, completes_only))
        if entry is None:
            self.for_shape(shape, completes_only)
            entry = self.checks[shape, completes_only]
        used, checks = entry
        feats &= used  # readings that differ only in unused features share an entry
        key = (shape, completes_only, feats)
        steps = self.by_features.get(key)
        if steps is None:
            if len(self.by_features) > 8192:
                self.by_features.clear()
            missing = ~feats
            steps = self.by_features[key] = tuple([
                step for step, need, any1, anys in checks
                if not need & missing and (any1 is None or any1 & feats)
                and (not anys or all(g & feats for g in anys))])
        return steps


#: (id(ruleset), winner, options) → plan
_PLANS: dict[tuple[Any, ...], _Plan] = {}


def _plan(rs: Ruleset, opts: Mapping[str, Any], winner: bool, defaults: bool = False) -> _Plan:
    """The rules of ``rs`` that apply to this player under ``opts`` (applies_to/applies_option and
    ``when`` decided once, not once per reading and rule). Cached per ruleset, player and options
    (``defaults``: ``opts`` are the ruleset's defaults, which spares building the options key)."""
    try:
        key: tuple[Any, ...] | None = (
            (id(rs), winner, None) if defaults else (id(rs), winner, tuple(opts.items())))  # order-sensitive: safe
        hit = _PLANS.get(key)  # type: ignore[arg-type]
    except TypeError:  # an unhashable option value: no caching
        key, hit = None, None
    if hit is not None and hit.ruleset is rs:
        return hit
    rules = tuple(r for r in rs.rules if _applies(r, winner, opts)
                  and not (r.when and any(opts[k] != v for k, v in r.when.items())))
    plan = _Plan(rs, rules, {r.id: option_label(r, rs, opts) for r in rules}, opts)
    if key is not None:
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def evaluate(view: View, *, completes_only: bool = False) -> list[tuple[Rule, Fired]]:
    """Ask every applicable rule's predicate; return the fired rules (before exclusions).

    ``completes_only``: ask only the rules marked ``completes`` (does any make this special shape
    a mahjong?). A predicate whose prefilter (``requires``) fails for this reading is known not to
    fire and is not called, in both modes (see :func:`_prefilter`; :data:`PREFILTER`).
    """
    plan = view.__dict__.get("_plan") or _plan(view.ruleset, view.opts, view.ctx.winner)
    fired: list[tuple[Rule, Fired]] = []
    if PREFILTER:
        steps = plan.candidates(view.d.shape, view.features, completes_only)
    else:
        steps = plan.for_shape(view.d.shape, completes_only)
    for rule, pred, params, _ in steps:
        res = pred(view, **params) if params else pred(view)
        if res is True:
            fired.append((rule, _ONCE))
            continue
        if not res and res.__class__ is not str:  # None, False, 0, []: did not fire
            continue
        f = _coerce(res)
        if f is not None:
            fired.append((rule, f))
    return fired


def rule_fires(rule: Rule, view: View) -> bool:
    """True when ``rule`` fires on ``view`` (asked outside :func:`evaluate`, e.g. by a ruleset hook
    that looks at other rules): the reading's shape is one of the rule's ``shapes``, the view's
    options match the rule's ``when``, and the predicate's result counts as a firing (as
    :func:`evaluate` reads it)."""
    if rule.shapes is not None and view.d.shape not in rule.shapes:
        return False
    if rule.when and any(view.opts[k] != val for k, val in rule.when.items()):
        return False
    return _coerce(rule.predicate(view, **rule.params)) is not None


def best_completion(view: View, rules: Sequence[Rule]) -> tuple[float, str, str] | None:
    """(value, name, tile) of the highest-valued rule of ``rules`` that fires (:func:`rule_fires`)
    on some reading of ``view``'s hand completed by one more tile, self-drawn from the wall (the
    context made a winner's, ``win_by="wall"``; the view's options kept): what a hand one tile
    short is waiting for. Tiles are tried in canonical order, skipping a tile held four times
    (in the hand or on the table); on equal values the first rule found is kept, and ``tile`` names every
    tile that completes it, in that order (``"2m or 5m"``; a thirteen-orphans wait on any of its 13 had
    been said to be "on 1m"). ``value`` is the rule's
    own ``value`` in the unit of its ``kind`` (a fixed score, a limit fraction, points or doublings;
    compare rules of one kind). None when no tile completes any of ``rules``. The caller checks that
    the hand is one tile short. Used for the waiting-hand rules (002:19 "wachtend spel = helft van
    punten", 001:52-54)."""
    hand, rs = view.hand, view.ruleset
    held = Counter(hand.all_tiles)
    ctx = replace(hand.context, winner=True, win_by="wall")
    best: tuple[float, Rule] | None = None
    tiles: dict[str, list[str]] = {}  # rule id → the tiles that complete it
    for t in PLAYING_TILES:
        if held[t] >= 4:
            continue
        trial = Hand(tuple(sort_tiles(hand.concealed + (t,))), hand.melds, hand.bonus, t, ctx)
        for d in decompositions(trial, rs.shapes):
            tv = View(trial, d, rs, view.opts)
            for r in rules:
                if t in tiles.get(r.id, ()) or (best is not None and r.value < best[0]) or not rule_fires(r, tv):
                    continue
                tiles.setdefault(r.id, []).append(t)
                if best is None or r.value > best[0]:
                    best = (r.value, r)
    if best is None:
        return None
    ts = tiles[best[1].id]
    return best[0], best[1].name, ts[0] if len(ts) == 1 else f"{', '.join(ts[:-1])} or {ts[-1]}"


def rule_value(rule: Rule, f: Fired, opts: Mapping[str, Any]) -> float:
    """The value of one firing: the predicate's, the option's, or the rule's."""
    if f.value is not None:
        return f.value
    if rule.value_option:
        return opts[rule.value_option]
    return rule.value


def apply_exclusions(fired: list[tuple[Rule, Fired]], opts: Mapping[str, Any]) -> list[tuple[Rule, Fired]]:
    """Drop rules excluded by a fired rule, then keep the highest of each group (first on ties)."""
    excluded: set[str] | None = None
    grouped = False
    for r, _ in fired:
        if r.excludes:
            if excluded is None:
                ids = {x.id for x, _ in fired}
                excluded = set()
            excluded.update(x for x in r.excludes if x != r.id and x in ids)
        if r.group:
            grouped = True
    kept = [(r, f) for r, f in fired if r.id not in excluded] if excluded else list(fired)
    if not grouped:
        return kept
    best: dict[str, tuple[float, str]] = {}
    for r, f in kept:
        if r.group:
            v = rule_value(r, f, opts) * (f.count if r.kind in ("points", "doublings", "cash") else 1)
            if r.group not in best or v > best[r.group][0]:
                best[r.group] = (v, r.id)
    return [(r, f) for r, f in kept if not r.group or best[r.group][1] == r.id]


def make_line(rule: Rule, f: Fired, ruleset: Ruleset, opts: Mapping[str, Any],
              label: str | None = None, name: str | None = None) -> Line:
    """The explanation line of one fired rule (``label``/``name``: its option label and display
    name, if already known)."""
    v = rule_value(rule, f, opts)
    n = f.count
    kw: dict[str, Any] = {}
    if rule.kind == "points":
        kw["points"] = v * n
    elif rule.kind == "doublings":
        kw["doublings"] = int(v * n)
    elif rule.kind == "fixed":
        kw["fixed"] = v
    elif rule.kind == "limit":
        if ruleset.limit is None:
            raise RulesetError(f"ruleset {ruleset.id}: limit rule {rule.id} but no limit set")
        kw["fixed"] = v * ruleset.limit
    elif rule.kind == "multiplier":
        kw["multiplier"] = v ** n
    elif rule.kind == "cash":
        kw["cash"] = v * n
    return _new_line(
        rule=rule.id, name=rule.label(opts) if name is None else name, kind=rule.kind, value=v, count=n, source=rule.cite(opts),
        applies_to=rule.applies_to, detail=", ".join(f.details), with_fixed=rule.with_fixed,
        option=option_label(rule, ruleset, opts, f.quiet) if label is None or f.quiet else label, **kw,
    )


def round_half_up(x: float) -> int:
    """Round to the nearest integer, halves up (1.5 × 250 = 375; 0.5 × 125 = 63)."""
    return int(math.floor(x + 0.5))


def special_or_count(special: Totals, normal: Totals, lines: Sequence[Line]) -> Totals:
    """Option ``fixed_hands=best`` (nts 002-17, dutch-special-hands 000-26): of a winner's ``special`` totals (a
    special hand counted) and ``normal`` (its ``lines`` without the special hands), the special hand unless the
    ordinary count is higher; then ``normal`` with every special hand of ``lines`` among its ``outranked``, which the
    explanation says were not counted (:func:`explain`: NTS had listed one of two, as "outranked … the highest")."""
    if normal.total <= special.total:
        return special
    passed = tuple(ln for ln in lines if ln.kind in ("fixed", "limit"))
    return replace(normal, outranked=passed + tuple(x for x in normal.outranked if x not in passed))


def default_combine(lines: Sequence[Line], ruleset: Ruleset, view: View) -> Totals:
    """Total of a decomposition's lines (see the module docstring).

    * a ``fixed``/``limit`` line fired: the highest one is the base; only lines marked
      ``with_fixed`` still count (doublings and multipliers on the base, points added after);
    * otherwise ``points × 2^doublings × multipliers``, capped at ``ruleset.limit``.
    """
    cash: float = 0
    points: float = 0
    dbl = 0
    mult: float = 1
    special = False
    for ln in lines:  # one pass, sums in line order
        cash += ln.cash
        points += ln.points
        dbl += ln.doublings
        k = ln.kind
        if k == "multiplier":
            mult *= ln.multiplier
        elif k == "fixed" or k == "limit":
            special = True
    if special:
        fixed = [ln for ln in lines if ln.kind in ("fixed", "limit")]
        top = max(fixed, key=lambda ln: ln.fixed)
        kept = [ln for ln in lines if ln is top or ln.with_fixed or ln.kind in ("cash", "note")]
        dbl = sum(ln.doublings for ln in kept if ln.kind == "doublings")
        mult = math.prod(ln.multiplier for ln in kept if ln.kind == "multiplier")
        extra = sum(ln.points for ln in kept if ln.kind == "points")
        total = round_half_up(top.fixed * 2**dbl * mult + extra)
        return _new_totals(total, extra, dbl, tuple(kept), cash, False, tuple(ln for ln in fixed if ln is not top))
    raw = points * 2**dbl * mult
    limit = ruleset.limit
    limited = limit is not None and raw > limit
    total = int(math.floor((limit if limited else raw) + 0.5))  # round_half_up(min(raw, limit))
    return _new_totals(total, points, dbl, tuple(lines), cash, limited)


_NOT_VALID = Totals(0, 0, 0, ())


def score_decomposition(hand: Hand, d: Decomposition, ruleset: Ruleset,
                        opts: Mapping[str, Any], *, plan: "_Plan | None" = None,
                        shared: dict[str, Any] | None = None) -> tuple[Totals, bool]:
    """Score one decomposition; the bool says whether it is a valid reading of the hand.

    A reading other than ``standard``/``partial`` (seven pairs, thirteen orphans, irregular, a
    ruleset's own shape) is valid only if a ``completes`` rule fired (before exclusions and
    groups): a special shape is a mahjong only where the ruleset has a hand for it. ``shared``:
    the :attr:`View.shared` dict of the hand's other readings (None: a new one).
    """
    if plan is None:
        plan = _plan(ruleset, opts, hand.context.winner)
    return _score_reading(hand, d, ruleset, opts, plan, shared,
                          ruleset.hook("apply_exclusions", apply_exclusions), ruleset.combine)


def _score_reading(hand: Hand, d: Decomposition, ruleset: Ruleset, opts: Mapping[str, Any], plan: "_Plan",
                   shared: dict[str, Any] | None, exclude: Callable[..., Any],
                   combine: Callable[..., Totals]) -> tuple[Totals, bool]:
    """:func:`score_decomposition` with its plan and hooks already looked up."""
    special = d.shape != "standard" and d.shape != "partial"
    if special and PREFILTER and shared:
        # a special shape that no completes rule can make a mahjong, judged by the hand's own
        # features (known once an earlier reading of the hand computed them): not a valid reading
        hand_feats = shared.get("hand_features")
        if hand_feats is not None and not plan.may_complete(d.shape, hand_feats):
            return _NOT_VALID, False
    view = View(hand, d, ruleset, opts, shared)
    view.__dict__["_plan"] = plan
    if special:
        if not evaluate(view, completes_only=True):
            # no rule makes this shape a mahjong: not a valid reading, nothing else to ask
            return _NOT_VALID, False
        asked = evaluate(view)
        # valid when a completes rule recognised the shape — even if a higher special hand of
        # its group (e.g. Heaven over Seven Twins) is what counts after exclusions
        valid = any(r.completes for r, _ in asked)
    else:  # evaluate(view), inlined
        valid = True
        if PREFILTER:
            feats = view.__dict__["features"] = view_features(view)
            steps = plan.candidates(d.shape, feats)
        else:
            steps = plan.for_shape(d.shape)
        asked = []
        for rule, pred, params, _ in steps:
            res = pred(view, **params) if params else pred(view)
            if res is True:
                asked.append((rule, _ONCE))
                continue
            if not res and res.__class__ is not str:  # None, False, 0, []: did not fire
                continue
            f = _coerce(res)
            if f is not None:
                asked.append((rule, f))
    fired = exclude(asked, opts)
    # the explanation lines, reused per (rule, firing): _line, inlined for the usual firing
    once = plan.once_lines
    lines = []
    for r, f in fired:
        ln = once.get(r.id) if f is _ONCE else None
        if ln is None:
            ln = _line(plan, r, f, ruleset, opts)
            if f is _ONCE:
                once[r.id] = ln
        lines.append(ln)
    totals = combine(lines, ruleset, view)
    if len(fired) != len(asked):
        # special hands that fired but lost to a higher one (its group or its exclusions): named in
        # the explanation and by audit (a claim of Seven Twins on a Clean Twins hand)
        kept = {r.id for r, _ in fired}
        # (and the other rules earned but not added: a referee's 3 concealed pungs beside 3 concealed kongs, one
        # footnote group, 002:74, had been said by audit not to apply, and the explanation had not named them)
        # (only those a rule that counts excludes or outranks in its group: a special hand's count replaces the
        # others, as its explanation says, and a rule excluded by one not counted itself is no reason to give)
        lost = [(r, f) for r, f in asked if r.id not in kept and r.kind not in ("fixed", "limit")]
        if lost:
            rules = {r.id: r for r, _ in fired}
            counted = [rules[ln.rule] for ln in totals.lines if ln.rule in rules]
            plain = [_line(plan, r, f, ruleset, opts) for r, f in lost
                     if any(r.id in c.excludes or (r.group and c.group == r.group) for c in counted)]
            if plain:
                totals = replace(totals, not_added=tuple(plain))
        if any(r.kind in ("fixed", "limit") for r, _ in fired):
            lost = [_line(plan, r, f, ruleset, opts) for r, f in asked
                    if r.kind in ("fixed", "limit") and r.id not in kept]
            if lost:
                both = list(totals.outranked) + lost
                both.sort(key=lambda ln: -ln.fixed)  # highest first, whichever step dropped them
                totals = replace(totals, outranked=tuple(both))
    return totals, valid


def _line(plan: _Plan, rule: Rule, f: Fired, ruleset: Ruleset, opts: Mapping[str, Any]) -> Line:
    """:func:`make_line`, reusing the line made before for the same rule and firing."""
    key = (rule.id, f.count, f.details, f.value, f.quiet)
    try:
        ln = plan.lines.get(key)
    except TypeError:  # unhashable details
        return make_line(rule, f, ruleset, opts, plan.labels.get(rule.id), plan.names.get(rule.id))
    if ln is None:
        if len(plan.lines) > 8192:
            plan.lines.clear()
        ln = plan.lines[key] = make_line(rule, f, ruleset, opts, plan.labels.get(rule.id),
                                         plan.names.get(rule.id))
    return ln


#: built-in special shapes: name → (its shape function, the shape of the readings it makes)
_BUILTIN_SPECIAL = {
    "seven-pairs": (decompose.shape_seven_pairs, "seven-pairs"),
    "seven-pairs-four-alike": (decompose.shape_seven_pairs_four_alike, "seven-pairs"),
    "thirteen-orphans": (decompose.shape_thirteen_orphans, "thirteen-orphans"),
    "irregular": (decompose.shape_irregular, "irregular"),
}


def ruleset_flags(rs: Ruleset) -> frozenset[str]:
    """The context flags (``Context.flags``, CLI ``--flag NAME``) ``rs`` understands: its module's
    ``FLAGS`` (none for a ruleset without one)."""
    return frozenset(getattr(rs.module, "FLAGS", ()) or ())


def check_flags(rs: Ruleset, context: Context) -> None:
    """HandError (one line, naming the flags the ruleset knows) when ``context`` has a flag that
    ``rs`` does not understand: a misspelt flag must not be ignored silently."""
    known = ruleset_flags(rs)
    unknown = sorted(set(context.flags) - known)
    if unknown:
        raise HandError(f"unknown flag {', '.join(f if len(f) <= ECHO_CHARS else echo(f) for f in unknown)} for ruleset {rs.id} "
                        f"(flags: {', '.join(sorted(known)) or 'none'})")


def win_flags(rs: Ruleset) -> Mapping[str, WinFlag]:
    """The context flags of ``rs`` that describe a win, each with the seed's name of that win, its seed line and
    the ``win_by`` it needs: its module's ``WIN_FLAGS`` (flag name → :class:`scoring.hand.WinFlag`; none for a
    ruleset without one)."""
    return getattr(rs.module, "WIN_FLAGS", None) or {}


def check_win_flags(rs: Ruleset, context: Context) -> None:
    """HandError (one line, naming the flag, the seed line it comes from and the way out) when ``context`` has a
    flag that describes a win (:func:`win_flags`: swedish ``burst-kong``/``burst-mahjong``, rode-draak
    ``flower-replacement``, hk-tw-16 ``robbed-concealed-kong``, dutch-special-hands ``dealt-waiting``/
    ``hand-unchanged``) and the hand is scored as a non-winner's (``flag burst-kong describes a win (Mahjong på
    spräckt kong, 003:43-44), and the hand is scored as a non-winner: leave the flag out``; several such flags
    named together), or a win of another kind than the flag's ``win_by`` (``flag burst-kong describes a win by
    discard (…), not by wall: needs --win-by discard``)."""
    declared = win_flags(rs)
    given = sorted(f for f in context.flags if f in declared)
    if given and not context.winner:
        if len(given) == 1:
            f = declared[given[0]]
            raise HandError(f"flag {given[0]} describes a win ({f.name}, {f.source}), and the hand is scored as a "
                            "non-winner: leave the flag out")
        said = [f"{g} ({declared[g].name}, {declared[g].source})" for g in given]
        said = f"{', '.join(said[:-1])} and {said[-1]}"
        raise HandError(f"flags {said} describe a win, and the hand is scored as a non-winner: leave them out")
    for g in given:
        f = declared[g]
        if context.win_by not in f.ways:
            ways = " or ".join(f.ways)
            raise HandError(f"flag {g} describes a win by {ways} ({f.name}, {f.source}), not by "
                            f"{context.win_by}: needs --win-by {ways}")


def check_context_flags(rs: Ruleset, context: Context) -> None:
    """The checks of ``context``'s flags that need no hand: HandError (one line) for a flag ``rs`` does
    not know (:func:`check_flags`), a flag that describes a win given for a non-winner or for a win of another
    kind than the flag's (:func:`check_win_flags`, from the module's ``WIN_FLAGS``), or one that the rest of
    ``context`` contradicts as the ruleset's own hook ``check_context_flags(context, ruleset)`` says (rode-draak
    ``dead-hand`` for a winner, ``dealt-waiting`` without ``announced_wait``). :func:`score_hand` calls it for
    every hand; the web API's photo form and the commands that read photos call it before any photo is read,
    as the notation is refused at once (a tester's non-winner with ``burst-kong`` had a photo read
    and answered with the refusal as the reading's problem)."""
    check_flags(rs, context)
    if not context.flags:
        return
    check_win_flags(rs, context)
    hook = rs.hook("check_context_flags")
    if hook is not None:
        hook(context, rs)


def score_hand(hand: Hand, ruleset: Ruleset | str, options: Mapping[str, Any] | None = None, *,
               win_notes: bool = True, option_notes: bool = False) -> ScoredHand:
    """Score ``hand`` under ``ruleset`` (an id or a loaded :class:`Ruleset`).

    Returns the best :class:`ScoredHand` over all decompositions, with a note for each circumstance said
    (``last_tile``, ``first_turn``, ``kong_on_kong``; ``announced_wait``, ``dealer_streak``, ``discards``) that no
    rule of the ruleset scores for this hand (:func:`unused_win_notes`), each line citing only the options that
    decide it (:func:`_cite_deciding_options`); ``win_notes`` False leaves both out, as a check of a reading's
    legality needs neither and each costs more scorings. ``option_notes`` (with ``win_notes``; for a score shown to
    a user: it scores the hand again under each other choice of each option that decides a special hand, 17 for
    dutch-special-hands) adds a note, or to the refusal of a hand as no winning hand a clause, for each other choice
    under which the hand makes a special hand it does not (:func:`special_hand_options`). Raises :class:`HandError` when
    the hand's size does not fit the ruleset's game, a context flag is unknown to the ruleset or
    contradicted by the context (:func:`check_context_flags`) or a winning hand has no valid reading, and
    :class:`RulesetError` for unknown rulesets/options.
    """
    rs = load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if not win_notes:
        return _score_hand(hand, rs, options)
    try:
        result = _score_hand(hand, rs, options)
    except HandError as e:
        # (a special hand that another choice of an option makes: named, a referee's Snake a under the default
        # snake_extra=snake-suit had been refused as "not a winning hand" with no word of the option)
        under = special_hand_options(hand, rs, options, None) if option_notes and str(e).startswith(
            "not a winning hand") else ()
        if under:
            raise HandError(f"{e}; {under[0]}") from None
        raise
    result = _cite_deciding_options(result, rs, options)
    notes = unused_win_notes(result, rs, options)
    if option_notes:
        notes += special_hand_options(hand, rs, options, result)
    higher = special_hand_count_note(result, rs)
    if higher:
        notes = (*notes, higher)
    seat = dealer_seat_note(hand.context)
    if seat:
        notes = (*notes, seat)
    return replace(result, notes=(*result.notes, *notes)) if notes else result


def special_hand_options(hand: Hand, rs: Ruleset, options: Mapping[str, Any] | None,
                         result: ScoredHand | None) -> tuple[str, ...]:
    """For a winner's ``hand``, a note for each option of ``rs`` that decides a special hand (a ``fixed``/``limit``
    rule naming it: ``option``, ``when``, …) under whose other choice the hand makes a special hand that ``result``
    (its score, or None for a hand refused as no winning hand) neither counts nor outranks, with another total:
    "under option pearl_six=allowed (000-06) this hand is Parel Hand 1250 fixed (000_…:NN), 1250 in all; scored
    here with pearl_six=excluded, the default" (RULINGS principle 3: an ambiguity that decides a line is named; a
    referee's 240 had not said that the default alone kept the Pearl Hand out). Raises nothing but a
    :class:`RulesetError` of the ruleset; each choice costs one scoring (dutch-special-hands: 17 options)."""
    if not hand.context.winner:
        return ()
    gates: dict[str, set[str]] = {}
    for r in rs.rules:
        if r.kind in ("fixed", "limit"):
            for n in (r.option, r.value_option, r.applies_option, *r.also_options, *r.when):
                if n and n in rs.options and n != "fixed_hands":  # (fixed_hands: special_hand_count_note's)
                    gates.setdefault(n, set()).add(r.id)
    if not gates:
        return ()
    opts = rs.resolve_options(options)
    have = {ln.rule for ln in (*result.lines, *result.outranked)} if result is not None else set()
    notes = []
    for name, ids in gates.items():
        o = rs.options[name]
        for choice in o.choices or ():
            if choice == opts[name]:
                continue
            try:
                alt = _score_hand(hand, rs, {**opts, name: choice})
            except HandError:
                continue
            new = [ln for ln in alt.lines if ln.rule in ids and ln.kind in ("fixed", "limit") and ln.rule not in have]
            if not alt.allowed or not new or (result is not None and alt.total == result.total):
                continue
            ln = new[0]
            cur = "the default" if opts[name] == o.default else "as given"
            notes.append(f"under option {name}={option_text(choice)}" + (f" ({o.ambiguity})" if o.ambiguity else "")
                         + f" this hand is {rule_name(rs, ln)} {ln.amount().strip()} ({ln.source}), {alt.total} in "
                         f"all; {'scored' if result is not None else 'refused'} here with "
                         f"{name}={option_text(opts[name])}, {cur}")
    return tuple(notes)


def dealer_seat_note(c: Context) -> str | None:
    """A note for a context that names a dealer outside the East seat, or East not the dealer: in each ruleset the
    dealer is East (GLOSSARY: Oost 000–002, sittande vind 003 — RULINGS 003-02 —, 莊 004, whose flowers number
    the seats from the dealer's, East = 1). The hand is scored as given (a seed tester's South-seat dealer under swedish
    had been given "Mahjong som sittande vind" without a word). None when the two agree or no dealer is said."""
    if c.dealer is None or c.dealer == (c.seat_wind == "E"):
        return None
    wind = {"E": "East", "S": "South", "W": "West", "N": "North"}.get(c.seat_wind, c.seat_wind)
    said = (f"the dealer in the {wind} seat" if c.dealer else "the East seat, not the dealer")
    return f"the dealer sits East, but this hand gives {said}: check the seat wind and the dealer (scored as given)"


def rule_name(rs: Ruleset, line: Line) -> str:
    """The name of ``line``'s rule in ``rs`` (the seed's words, without the English gloss the line's name adds), or the
    line's own name when ``rs`` has no such rule. Raises nothing."""
    return rs.rule(line.rule).name if any(r.id == line.rule for r in rs.rules) else line.name


def special_hand_count_note(result: ScoredHand, rs: Ruleset) -> str | None:
    """One note for ``result``, a winner's special hand (a ``fixed``/``limit`` line counted) whose ordinary count
    (:func:`normal_count`) is higher than its total: "the hand's ordinary count is higher, 1344 = 42 points × 2^5:
    rode-draak scores Het Spel van de Rode Draak instead (001_…:88-90) — why, where the ruleset's module says it
    (``SPECIAL_HAND_COUNT``)", and that option ``fixed_hands=best`` scores the higher where it does. None for any
    other result. A seed tester's South-seat Rode Draak hand scored 500 where East's same tiles, no limit hand, scored
    1280, with no word of the count it replaced. Raises nothing but a :class:`RulesetError` of the ruleset."""
    if not result.allowed:
        return None
    top = next((ln for ln in result.lines if ln.kind in ("fixed", "limit")), None)
    normal = normal_count(result) if top is not None else None
    if top is None or normal is None or not normal.allowed or normal.total <= result.total:
        return None
    name = rule_name(rs, top)
    why = rs.hook("SPECIAL_HAND_COUNT")
    best = ""
    opt = rs.options.get("fixed_hands")
    if opt is not None and "best" in (opt.choices or ()) and result.options.get("fixed_hands") != "best":
        try:
            if _score_hand(result.hand, rs, {**result.options, "fixed_hands": "best"}).total == normal.total:
                best = "; option fixed_hands=best scores the higher"
        except HandError:
            pass
    return (f"the hand's ordinary count is higher, {count_formula(normal)}: {rs.id} scores {name} instead "
            f"({top.source})" + (f" — {why}" if why else "") + best)


def _cite_deciding_options(result: ScoredHand, rs: Ruleset, options: Mapping[str, Any] | None) -> ScoredHand:
    """``result`` with each line citing only the options that decide it (RULINGS principle 3: "a score line
    produced under an ambiguous reading names the option"): an option of the line's rule is left out of its label
    when the hand scored under each other choice of it has the same line (name, amount, detail) all the same (a
    seed auditor's winner's lines had cited set_doublings_for=everyone, which decides only a non-winner's, and a
    hand without a kong kong_counts_as_concealed_pung). An option whose choices are not listed, or under whose
    other choice the hand cannot be scored, is kept."""
    ids = {r.id for r in rs.rules}
    cited = [ln for ln in result.lines if ln.option and ln.rule in ids]
    if not cited:
        return result
    opts = rs.resolve_options(options)
    others: dict[tuple[str, Any], ScoredHand | None] = {}

    def under(name: str, choice: Any) -> ScoredHand | None:
        if (name, choice) not in others:
            try:
                others[name, choice] = _score_hand(result.hand, rs, {**opts, name: choice})
            except (HandError, RulesetError):
                others[name, choice] = None
        return others[name, choice]

    def same(ln: Line, alt: ScoredHand | None) -> bool:
        return alt is not None and any(x.name == ln.name and x.amount() == ln.amount() and x.detail == ln.detail
                                       for x in alt.lines)

    lines = []
    for ln in result.lines:
        if ln not in cited:
            lines.append(ln)
            continue
        rule = rs.rule(ln.rule)
        named = [n for n in dict.fromkeys((rule.option, rule.value_option, rule.applies_option, *rule.also_options,
                                            *rule.when)) if n]
        shown = [n for n in named if f"{n}=" in ln.option]  # (the predicate's own quiet ones already left out)
        quiet = [n for n in shown if n in rs.options and rs.options[n].choices
                 and all(same(ln, under(n, c)) for c in rs.options[n].choices if c != opts[n])]
        label = option_label(rule, rs, opts, tuple(n for n in named if n in quiet or n not in shown)) if quiet \
            else ln.option
        lines.append(replace(ln, option=label) if label != ln.option else ln)
    return replace(result, lines=tuple(lines))


#: each circumstance of a win a hand's context may say (scoring.hand.WON_FIELDS): its flag, and its words
WON_WORDS = {"last_tile": ("--last-tile", "a win on the last tile"),
             "first_turn": ("--first-turn", "a win in the first turn"),
             "kong_on_kong": ("--kong-on-kong", "a win on kong on kong")}


def unused_win_notes(result: ScoredHand, rs: Ruleset, options: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """One note for each circumstance of the win that ``result``'s hand says (:data:`WON_WORDS`) and that
    changes nothing in its score: scored again without it, the lines and total are the same. It says that
    no rule of ``rs`` scores it for this hand, and where the same hand won another way (``win_by``,
    :data:`scoring.hand.WIN_BY`) would score it, the rules that then count, with their seed lines: nts
    scores the last tile only drawn from the wall (002:51), and a referee's ``--last-tile`` on a win by
    discard had been dropped without a word. A special or limit hand's note, where no other way of winning
    scores the circumstance, names the hand it is scored as and its total (its value replaces the count that
    would score it, 002-17; a new user's Clean Twins with a last-tile flag had no note at all); where one does
    (Pure Twins with a first turn won by discard: Heaven won from the wall), it is offered as for any hand.
    A win by robbed-kong is never offered. The notes of :func:`_unread_context_notes` come first (a non-winner's
    only). Raises only what :func:`score_hand` raises for ``result``'s hand (its other scorings' HandErrors are
    caught)."""
    c = result.hand.context
    said = _unread_context_notes(result, rs, options)
    if not c.winner:
        return said
    special = [ln for ln in result.lines if ln.kind in ("fixed", "limit")]

    out = []
    for f, (flag, words) in WON_WORDS.items():
        if not getattr(c, f):
            continue
        without = _rescored(result, rs, options, **{f: False})
        if without is None or _keyed(without) != _keyed(result):
            continue
        counts = []
        for w in WIN_BY:
            if w in (c.win_by, "robbed-kong"):  # (a robbed kong's tile is no discard nor a draw: never offered)
                continue
            on, off = _rescored(result, rs, options, win_by=w), _rescored(result, rs, options, win_by=w, **{f: False})
            if on is None or off is None:
                continue
            lines = _added_lines(on, off)
            # (a special hand's total may stay the same another way, one special hand for another: Head and Tail
            # 2000 by discard and Heaven 2000 from the wall; offered only where the total changes)
            if lines and (not special or on.total != off.total):
                counts.append(f"won by {w} (--win-by {w}) it scores "
                              + ", ".join(f"{ln.name} ({ln.amount().strip()}, {ln.source})" for ln in lines))
        if special and not counts:  # (its value replaces the count that would score the circumstance: 002-17)
            # (and a special hand it would score, outranked, is a rule that fires: "no rule scores it" had been false)
            out.append(f"{flag} scores nothing here: the hand is scored as {special[0].name} ({special[0].source}; "
                       f"total {result.total}), and {words} adds nothing to it")
            continue
        # (a kong in the hand bars the first-turn hands that say so: a tester read "nor won another way" on a
        # Heaven hand with a concealed kong as Heaven missed)
        barred = (f == "first_turn" and not counts and any(m.kind == "kong" for m in result.hand.melds)
                  and any(r.params.get("no_kong") for r in rs.rules))
        out.append(f"{flag} scores nothing here: no rule of {rs.id} scores {words} for this hand won by {c.win_by}"
                   + (f"; {'; '.join(counts)}" if counts else ", nor won another way")
                   + (" (its kong: the tiles dealt, and a hand before East's first discard, hold none)" if barred
                      else ""))
    return (*said, *out, *_unused_flag_notes(result, rs, options))


def _unused_flag_notes(result: ScoredHand, rs: Ruleset, options: Mapping[str, Any] | None) -> tuple[str, ...]:
    """One note for each ruleset flag (``--flag NAME``, ``Context.flags``) of ``result``'s hand that changes nothing
    in its score (scored again without it, the lines and total are the same), naming the other flags of ``rs``
    (its module's ``FLAGS``) that, given too, would make it count, with the lines they add: a referee's
    ``--flag dealt-waiting`` under dutch-special-hands, whose Spel uit de Aarde also asks ``--flag hand-unchanged``
    under the default ``earth_hand=unchanged`` (000:150, 000-22), had scored 0 without a word. Raises only what
    :func:`score_hand` raises for ``result``'s hand."""
    c = result.hand.context
    known = sorted(getattr(rs.module, "FLAGS", None) or ())
    opts = rs.resolve_options(options)
    out = []
    for flag in sorted(c.flags):
        without = _rescored(result, rs, options, flags=c.flags - {flag})
        if without is None or _keyed(without) != _keyed(result):
            continue
        adds = []
        for other in known:
            if other in c.flags:
                continue
            more = _rescored(result, rs, options, flags=c.flags | {other})
            if more is None:
                continue
            if _keyed(more) == _keyed(result):
                # (the other flag too would meet a special hand a higher one outranks: said so, not blamed on an
                # option — a reviewer's Goddelijke Hand with --flag dealt-waiting alone)
                said = _outranked_words(more, result)
                if said:
                    adds.append(f"with --flag {other} too {said}")
                continue
            lines = _added_lines(more, result)
            if lines:
                adds.append(f"with --flag {other} too it scores "
                            + ", ".join(f"{ln.name} ({ln.amount().strip()}, {ln.source}{_option_words(ln)})"
                                        for ln in lines))
        # (an option may decide the flag's rule without it, or switch it off: rode-draak's blooming_flowers=any-dead-wall
        # counts Kong met de Bloeiende Bloemen without --flag flower-replacement, swedish burst_mahjong=off counts no
        # burst-mahjong; "no rule scores it" had been said of both: a reviewer's)
        deciding = [o for o in rs.options.values() if flag in (o.doc or "")]
        # (the flag met, its special hand outranked by a higher one: a referee's dealt-waiting hand scored Goddelijke
        # Hand's 2000 over Spel uit de Aarde's 1500, and the note had blamed option earth_hand for the flag's nothing)
        said = _outranked_words(result, without)
        if said and not adds:
            out.append(f"--flag {flag} scores nothing here: {said}")
            continue
        # (a flag that names the win, hk-tw-16's 搶暗槓, allowed for a 十三腰 alone (004:40): "no rule scores it" had
        # read, to a referee, as if the flag did nothing, where it says how the hand was won and is allowed)
        win_flag = (getattr(rs.module, "WIN_FLAGS", None) or {}).get(flag)
        said = "; ".join(adds) if adds else (
            "it changes nothing in this hand's score, as " + ", ".join(
                f"option {o.name}={opts[o.name]}" for o in deciding) + " reads it (see `mahjong-score rules "
            f"{rs.id}`)" if deciding else
            f"it names the win {win_flag.name} ({win_flag.source}), which this hand may make, and no rule of "
            f"{rs.id} adds points for it" if win_flag is not None and result.allowed else
            f"no rule of {rs.id} scores it for this hand")
        out.append(f"--flag {flag} scores nothing here: {said}")
    return tuple(out)


def _outranked_words(on: ScoredHand, off: ScoredHand) -> str:
    """"its special hand, Spel uit de Aarde (1500 fixed, 000:149-150), is met, but Goddelijke Hand (2000 fixed) counts
    instead: only the highest special hand scores (RULINGS principle 5)" where ``on`` (a hand scored with a flag)
    meets a special hand that ``off`` (scored without it) does not, outranked by the special hand both count (their
    lines are the same); "" otherwise."""
    gained = {ln.rule for ln in on.outranked} - {ln.rule for ln in off.outranked}
    met = [ln for ln in on.outranked if ln.rule in gained]
    top = next((ln for ln in on.lines if ln.kind in ("fixed", "limit")), None)
    if not met or top is None:
        return ""
    return (f"its special hand, {met[0].name} ({met[0].amount().strip()}, {met[0].source}), is met, but {top.name} "
            f"({top.amount().strip()}) counts instead: only the highest special hand scores (RULINGS principle 5)")


def _added_lines(on: ScoredHand, off: ScoredHand) -> list[Line]:
    """The lines of ``on`` (a hand scored with a circumstance or flag) that ``off`` (scored without it) has not, with
    the same amount; notes left out."""
    gone = {(o.rule, o.amount()) for o in off.lines}
    return [ln for ln in on.lines if (ln.rule, ln.amount()) not in gone and ln.kind != "note"]


def _option_words(line: Line) -> str:
    """``; option NAME=VALUE, ID`` (``line.option``) where an option decides ``line``, else ""."""
    return f"; {line.option}" if line.option else ""


#: the circumstances of a hand that are not of its win (scoring.hand.Context): field → (its value when not said,
#: its flag, its words, the words of a note that already speaks of it)
CONTEXT_WORDS = {"announced_wait": (False, "--announced-wait", "an announced wait", ("--announced-wait",)),
                 "dealer_streak": (0, "--dealer-streak", "a dealer streak", ("--dealer-streak", "dealer streak")),
                 "discards": (None, "--discards", "the discards on the table", ("--discards",))}


def _unread_context_notes(result: ScoredHand, rs: Ruleset, options: Mapping[str, Any] | None) -> tuple[str, ...]:
    """One note for each circumstance of :data:`CONTEXT_WORDS` that ``result``'s hand says and that changes
    nothing in its score (scored again without it, the lines and total are the same): a seed auditor's
    --announced-wait under nts, which no rule reads (the Dutch sheet's ×1.5 is not NTS's), had been dropped without
    a word. None where a note of the result already speaks of it (hk-tw-16's 連莊 of a player who is not the
    dealer), nor for a dealer streak under a ruleset whose settlement reads it (hk-tw-16's dealer pays 莊/連莊
    under dealer_point=any-dealer-payment: a reviewer's)."""
    c = result.hand.context
    out = []
    for f, (unsaid, flag, words, spoken) in CONTEXT_WORDS.items():
        if getattr(c, f) == unsaid or any(w in n for w in spoken for n in result.notes):
            continue
        if f == "dealer_streak" and f in (getattr(rs.module, "SETTLE_WHOLE_NUMBERS", None) or ()):
            continue
        without = _rescored(result, rs, options, **{f: unsaid})
        if without is not None and _keyed(without) == _keyed(result):
            out.append(f"{flag} scores nothing here: " + (_discards_words(result, rs, options) if f == "discards"
                                                          else f"no rule of {rs.id} scores {words} for this hand"))
    return tuple(out)


def _discards_words(result: ScoredHand, rs: Ruleset, options: Mapping[str, Any] | None) -> str:
    """Why ``result``'s ``--discards`` count scores nothing: a first-turn win already says how few lie on the table,
    where a rule reads the count without it (hk-tw-16's 四張內, 004:22-23, counts on the first turn); a count above
    every threshold a rule reads (the lines the largest smaller count that changes the score gives, found by
    bisection: the rules count "at most N" discards); or no rule reads it (no smaller count, 0 either, changes the
    score: one scoring). A tester's first-turn 四張內 +40 had been followed by "no rule of hk-tw-16 scores the
    discards on the table", and --discards 20 told the same."""
    c = result.hand.context
    base = _keyed(result)
    nothing = f"no rule of {rs.id} scores the discards on the table for this hand"
    if c.dealt_first_turn:
        plain = _rescored(result, rs, options, first_turn=False, discards=None)
        counted = _rescored(result, rs, options, first_turn=False)
        if plain is not None and counted is not None and _keyed(plain) != _keyed(counted):
            return "the first turn (--first-turn) already says how few discards lie on the table"
        return nothing
    if not c.discards:
        return nothing

    def changes(d: int) -> ScoredHand | None:
        fewer = _rescored(result, rs, options, discards=d)
        return fewer if fewer is not None and _keyed(fewer) != base else None

    if changes(0) is None:
        return nothing
    lo, hi = 0, c.discards - 1  # (changes(lo) holds: the largest d ≤ hi for which it does)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if changes(mid) is not None:
            lo = mid
        else:
            hi = mid - 1
    fewer = changes(lo)
    lines = _added_lines(fewer, result) if fewer else []
    return (f"with {c.discards} discards on the table no rule of {rs.id} counts them; with at most {lo} it "
            f"scores " + ", ".join(f"{ln.name} ({ln.amount().strip()}, {ln.source})" for ln in lines))


def _keyed(r: ScoredHand) -> tuple[int | float, list[tuple[str, str]]]:
    """What a circumstance's note compares of two scorings of one hand: the total and each line's amount."""
    return r.total, sorted((ln.rule, ln.amount()) for ln in r.lines)


def _rescored(result: ScoredHand, rs: Ruleset, options: Mapping[str, Any] | None, **context: Any) -> ScoredHand | None:
    """``result``'s hand scored again with its context changed by ``context`` (the hand built again, so that the
    circumstances are checked: no win by dead-wall without a kong); None when it cannot be (a HandError)."""
    h = result.hand
    try:
        return _score_hand(make_hand(h.concealed, h.melds, h.bonus, h.winning_tile, replace(h.context, **context)),
                           rs, options)
    except HandError:
        return None


def _score_hand(hand: Hand, rs: Ruleset, options: Mapping[str, Any] | None = None) -> ScoredHand:
    """:func:`score_hand` without its notes on circumstances that score nothing."""
    opts = rs.resolve_options(options)
    hook = rs.module.__dict__.get if rs.module is not None else {}.get  # (Ruleset.hook)
    if hand.context.flags:
        check_context_flags(rs, hand.context)
    check = hook("check_hand")
    if check is not None:
        check(hand, rs, opts)
    else:
        check_size(hand, (rs.hand_size,))
    winner = hand.context.winner
    plan = _plan(rs, opts, winner, not options)
    exclude = hook("apply_exclusions", apply_exclusions)
    combine = hook("combine", default_combine)
    scored: list[tuple[Totals, Decomposition]] = []
    # the readings so far (decompositions(), shape by shape), and what their views compute
    # about the hand, once (one_wait looks at the readings)
    cands: list[Decomposition] = []
    tile_set = _tile_set(hand)
    hand_feats = _hand_bits(hand, tile_set)
    shared: dict[str, Any] = {"_readings": cands, "tile_set": tile_set, "hand_features": hand_feats}
    shapes = decompose.SHAPES
    for name in rs.shapes if winner else (None,):
        if name is None:
            found = decompose.shape_partial(hand)  # a non-winner (see decompositions)
        else:
            fn = shapes[name]
            builtin = _BUILTIN_SPECIAL.get(name)
            if builtin is not None and builtin[0] is fn and PREFILTER \
                    and not plan.may_complete(builtin[1], hand_feats):
                # a built-in special shape that no completes rule can make a mahjong for this
                # hand (judged on its own features): no reading to make
                continue
            found = fn(hand)
        cands.extend(found)
        for d in found:
            totals, valid = _score_reading(hand, d, rs, opts, plan, shared, exclude, combine)
            if valid:
                scored.append((totals, d))
    if not scored:
        raise HandError(
            f"not a winning hand under {rs.id}: the concealed tiles do not form "
            f"{'5' if rs.hand_size == 16 else '4'} sets and a pair, nor a special hand of this ruleset")
    ties: tuple[Decomposition, ...] = ()
    if len(scored) > 1:
        scored.sort(key=lambda td: -td[0].total)
        best, d = scored[0]
        ties = tuple(dd for t, dd in scored[1:] if t.total == best.total and dd.melds != d.melds)
    best, d = scored[0]
    notes_for = hook("notes_for")
    notes = tuple(notes_for(hand, opts)) if notes_for is not None else ()
    notes += _special_reading_passed(scored, rs) if winner else ()
    result = _new_scored(rs.id, hand, best.total, best.points, best.doublings, best.lines, d, opts, ties,
                         notes, best.cash, best.limit_applied, best.outranked, best.not_added)
    finalize = hook("finalize")
    return finalize(result, rs, opts) if finalize else result


def _special_reading_passed(scored: Sequence[tuple[Totals, Decomposition]], rs: Ruleset) -> tuple[str, ...]:
    """The note of a special hand (a ``fixed``/``limit`` line counted) that another reading of the winner's tiles
    makes, passed over for the higher ordinary reading scored (``scored``: the readings, highest total first):
    RULINGS principle 5, the best reading for the player. A seed referee saw 11223344556677m scored as chows, 6144,
    with no word of its De Zeven Tweelingen (2000), where a limit hand of the one reading scored is held to its
    Limit (001:46) with a note of its higher count (:func:`special_hand_count_note`). () when none."""
    if not scored or any(ln.kind in ("fixed", "limit") for ln in scored[0][0].lines):
        return ()
    for totals, _ in scored[1:]:
        fixed = [ln for ln in totals.lines if ln.kind in ("fixed", "limit")]
        if fixed and totals.total < scored[0][0].total:
            top = max(fixed, key=lambda ln: ln.fixed)
            return (f"the hand also reads as {rule_name(rs, top)}, {totals.total} ({top.source}): its ordinary reading scores "
                    f"higher, {scored[0][0].total}, and the best reading for the player counts (RULINGS principle 5)",)
    return ()


def normal_count(result: ScoredHand) -> ScoredHand | None:
    """The hand of ``result`` (a :class:`ScoredHand` whose lines hold a ``fixed`` or ``limit`` line: a
    special hand) scored as though its ruleset had no fixed-value or limit hands — its ordinary points
    × 2^doublings, as a player who did not see the special hand would count it — with the options it was
    scored with. None when ``result`` is no special hand, is not a winner's, or the hand has no other
    legal reading (:class:`HandError`); a result whose mahjong the ruleset refuses (rode-draak's entry
    rule, 001:1) is returned as it is (``allowed`` False). Pure: the loaded ruleset is not changed.
    Audit's hint that a claim is the count a special hand replaces (rode-draak 001:46) reads it."""
    if not result.hand.context.winner or not any(ln.kind in ("fixed", "limit") for ln in result.lines):
        return None
    rs = load_ruleset(result.ruleset)
    plain = replace(rs, rules=tuple(r for r in rs.rules if r.kind not in ("fixed", "limit")))
    try:
        return score_hand(result.hand, plain, result.options, win_notes=False)
    except HandError:
        return None


#: what the engine scores a winner's hand with no winning tile as (:func:`scoring.decompose.place_winning_tile`:
#: its reading's ``wait`` is None and no meld is the winning one): the words of :func:`no_winning_tile_note`
NO_WINNING_TILE_SCORED = ("scored with no wait (no rule on the wait or the winning tile applies; no concealed set "
                          "counts as completed by a discard)")

#: how to give a typed hand its winning tile, as :func:`no_winning_tile_note` says it by default
WINNING_TILE_WAY_OUT = "end the notation with win:TILE or give --winning-tile TILE"


@dataclass(frozen=True)
class WinningTileEffect:
    """What naming the winning tile of a winner's hand scored without one (:func:`winning_tile_effect`) does.

    * ``totals``: each concealed tile that makes a legal hand as the winning tile → the hand's total with it
      (the ruleset's own total, 0 for a mahjong it refuses), in tile order;
    * ``rules``: the rule ids of the lines that are not the same with every such tile as without one (a line
      gained, lost or of another amount), in the order the explanations list them.
    """

    totals: Mapping[str, int]
    rules: tuple[str, ...]

    @property
    def span(self) -> str:
        """The totals a winning tile gives, as the notes say them: ``26–30``, ``28`` when one, ``""`` when no tile
        makes a legal hand."""
        totals = sorted(set(self.totals.values()))
        if not totals:
            return ""
        return f"{totals[0]}" if len(totals) == 1 else f"{totals[0]}–{totals[-1]}"


def winning_tile_effect(result: ScoredHand) -> WinningTileEffect | None:
    """For ``result`` (a :class:`ScoredHand` of a winner's hand with no winning tile, one it should have:
    :func:`scoring.hand.winning_tile_missing`), the hand scored again with each of its concealed tiles as the
    winning tile (same ruleset, options and context; a tile that makes no legal hand so —
    :class:`HandError`, e.g. a robbed kong's tile held twice — is left out): :class:`WinningTileEffect`. None
    for any other result. Raises nothing but a :class:`RulesetError` of the ruleset (as ``score_hand``)."""
    from .hand import winning_tile_missing

    hand = result.hand
    if not winning_tile_missing(hand):
        return None
    rs = load_ruleset(result.ruleset)

    def keyed(r: ScoredHand) -> list[tuple[str, str]]:
        return [(ln.rule, ln.amount()) for ln in r.lines]

    base = keyed(result)
    totals: dict[str, int] = {}
    seen: list[tuple[str, str]] = list(base)
    differ: set[str] = set()
    for tile in sort_tiles(set(hand.concealed)):
        try:
            scored = score_hand(make_hand(hand.concealed, hand.melds, hand.bonus, tile, hand.context),
                                rs, result.options, win_notes=False)
        except HandError:
            continue
        totals[tile] = scored.total
        lines = keyed(scored)
        differ.update(r for r, _ in set(lines) ^ set(base))
        seen.extend(k for k in lines if k not in seen)
    order = list(dict.fromkeys(r for r, _ in seen))
    return WinningTileEffect(totals, tuple(r for r in order if r in differ))


def wait_span(result: ScoredHand) -> str | None:
    """The totals ``result`` (a winner's hand scored with no winning tile, :func:`winning_tile_effect`) scores with
    each of its tiles as the winning tile, as the notes say them (``40–44``; ``, never this 368`` added where none
    gives its total), when a winning tile would change its total; None otherwise (any tile scores it the same, no
    tile makes it legal, a winning tile given, a non-winner). What `audit` calls UNSURE and batch needs-review, for a
    photo (:func:`vision.pipeline.unmarked_wait_span`) and a typed hand alike. Raises nothing but a
    :class:`RulesetError` of the ruleset."""
    effect = winning_tile_effect(result)
    if effect is None or not effect.totals or set(effect.totals.values()) == {result.total}:
        return None
    return effect.span + ("" if result.total in effect.totals.values() else f", never this {result.total}")


#: how :func:`no_winning_tile_note` begins (``table`` prints that note of a hand by it)
NO_WINNING_TILE_START = "no winning tile given:"


def no_winning_tile_note(result: ScoredHand, way_out: str = WINNING_TILE_WAY_OUT) -> str | None:
    """One line for ``result``, a winner's hand scored with no winning tile (:func:`winning_tile_effect`): that it
    was scored with none (:data:`NO_WINNING_TILE_SCORED`), ``way_out`` (how to name it), and what a winning tile
    would change — the totals with one (``26–30``) and the rules of the lines that depend on it — or that any
    tile scores it the same. None for any other result (a winning tile given, a non-winner, East's dealt hand
    won on the first draw, hk-tw-16's 16-tile instant win). Raises nothing but a :class:`RulesetError`."""
    effect = winning_tile_effect(result)
    if effect is None:
        return None
    note = f"{NO_WINNING_TILE_START} {NO_WINNING_TILE_SCORED}; {way_out}"
    totals = sorted(set(effect.totals.values()))
    if not totals:
        return note
    if totals == [result.total]:  # (lines that differ then move nothing: a rode-draak hand refused with any tile)
        return f"{note} (any of its tiles as the winning tile scores it the same, {result.total})"
    never = "" if result.total in totals else f", never this {result.total}"
    depends = f" (lines that depend on it: {', '.join(effect.rules)})" if effect.rules else ""
    return f"{note}: with one it scores {effect.span}{never}{depends}"


def with_no_winning_tile_note(result: ScoredHand, way_out: str = WINNING_TILE_WAY_OUT) -> ScoredHand:
    """``result`` with :func:`no_winning_tile_note` added to its notes (its total, lines and status as they
    are: the note says what the score rests on); ``result`` itself when there is no note to add."""
    note = no_winning_tile_note(result, way_out)
    return result if note is None else replace(result, notes=(*result.notes, note))


def count_formula(result: ScoredHand) -> str:
    """How the total of ``result`` is reached, as the explanation's total line says it without ``total:``
    (``1344 = 42 points × 2^5``, ``500 (special hand)``): :func:`_summary`."""
    return _summary(result).removeprefix("total: ")


def explain(result: ScoredHand) -> str:
    """Multi-line text explanation: total, one line per rule with its seed source, options."""
    from .notation import format_hand

    rs = load_ruleset(result.ruleset)
    h = result.hand
    who = "winner" if h.context.winner else "non-winner"
    won = f", win by {h.context.win_by}" if h.context.winner else ""  # a non-winner did not win
    out = [f"{rs.name} ({rs.id}) — {format_hand(h)}  [{who}, seat {h.context.seat_wind}, "
           f"round {h.context.round_wind}{won}]"]
    if not result.allowed:
        out.append(f"{result.status}")
    out.append(f"reading: {result.decomposition.describe(h.context.win_by)}")
    for ln in result.lines:
        detail = f" [{ln.detail}]" if ln.detail else ""
        opt = f"; {ln.option}" if ln.option else ""
        out.append(f"  {ln.amount():>18}  {ln.name}{detail}  ({ln.source}{opt})")
    if result.limit_applied:
        out.append(f"  limit {rs.limit} applied")
    out.append(_summary(result))
    for a in result.alternatives:
        out.append(f"  tie: {a.describe(h.context.win_by)}")
    # (what a special hand is worth as counted: rode-draak's hand entirely in the hand doubled where it has the
    # doubling, a referee's Heaven of 1000 under heaven_in_hand=no had been called "worth the same" as the Four
    # Winds counted at 2000; the ruleset module's hook ``special_hand_worth(line, result)``, else its value)
    worth = rs.hook("special_hand_worth", lambda ln, res: ln.fixed)
    counted = max((worth(x, result) for x in result.lines if x.kind in ("fixed", "limit")), default=None)
    for ln in result.outranked:  # a special hand that fired but does not count
        if counted is None and result.options.get("fixed_hands") == "best":
            # (the ordinary count beat it: option fixed_hands=best, nts 002-17, dutch 000-26)
            out.append(f"  not counted: {ln.name} {ln.amount()} ({ln.source}) — the hand's ordinary count is higher "
                       f"(option fixed_hands=best)")
        elif counted is not None and math.isclose(worth(ln, result), counted):
            # (a tie is no outranking: a seed auditor's Kerstavond 2000 beside the Vrolijke Kerst 2000 counted had
            # been called outranked by "the highest")
            out.append(f"  also made: {ln.name} {ln.amount()} ({ln.source}) — only one special hand counts, and "
                       f"this one is worth the same as the one counted")
        else:
            out.append(f"  outranked: {ln.name} {ln.amount()} ({ln.source}) — only one special hand counts, the "
                       f"highest")
    for ln in result.not_added:  # a rule earned, not added (a referee adding by hand had counted it)
        out.append(f"  not added: {rule_name(rs, ln)} {ln.amount()}{f' [{ln.detail}]' if ln.detail else ''} ({ln.source}) — "
                   f"earned, but {not_added_reason(rs, result, ln)}")
    for n in result.notes:
        out.append(f"  note: {n}")
    changed = [f"{k}={option_text(v)}" for k, v in result.options.items() if v != rs.options[k].default]
    out.append("options: " + (", ".join(changed) + " (others default)" if changed else "all defaults")
               + f" — see `mahjong-score rules {rs.id}`")
    return "\n".join(out)


def not_added_reason(rs: Ruleset, result: ScoredHand, line: Line) -> str:
    """Why ``line``, of ``result.not_added`` (a rule the reading earns), is not added: the rule that excludes it
    (one that counts, else one also not added: hk-tw-16's chains), ``"3 dichte kongs (+2 dbl; 002_…:63), which
    counts, excludes it"``; else the highest of its group, which counts, and the group's words (``[groups.NAME]
    words`` of the ruleset: nts's footnotes, 002:70-74, "deze verdubbelingen mogen niet worden opgeteld"),
    ``"3 dichte kongs (+2 dbl) counts, and the doublings of footnote ³ are not added together (…)"``. Raises
    nothing."""
    ids = {r.id for r in rs.rules}
    rule = rs.rule(line.rule) if line.rule in ids else None
    others = [x for x in (*result.lines, *result.not_added) if x.rule in ids and x is not line]
    by = next((x for x in others if line.rule in rs.rule(x.rule).excludes), None)
    if by is not None:
        said = f"{rule_name(rs, by)} ({by.amount()}; {by.source})"
        return f"{said}, which counts, excludes it" if by in result.lines else \
            f"{said} excludes it (and is not added itself)"
    if rule is not None and rule.group:
        top = next((x for x in result.lines if x.rule in ids and rs.rule(x.rule).group == rule.group), None)
        words = rs.groups.get(rule.group) or "only the highest of them counts"
        return (f"{rule_name(rs, top)} ({top.amount()}; {top.source}) counts, and {words}" if top is not None
                else words)
    return "a rule that counts excludes it"


def _summary(result: ScoredHand) -> str:
    """The explanation's total line: ``total: 64 = 16 points × 2^2`` (``× 2^n`` only when there are
    doublings: ``total: 37 = 37 points`` in a purely additive ruleset), ``total: 2000 (special
    hand)``; points a ruleset adds after doubling show as ``total: 74 = 16 points × 2^2 + 10 not
    doubled``, a total held at the limit as ``… = 2048, limited to 1000``, a total a ruleset counts
    below its formula otherwise as ``… = 288; counted as 272 (see the notes)`` (000-26: flowers added
    after the 1.5×), a formula rounded to whole points as ``… = 26.5, rounded``; a refused mahjong
    with total 0 shows the reason instead of the formula it did not
    use — ``total: 0 (mahjong not allowed: …)`` — the figure it would have scored stays in the
    status line above."""
    summary = f"total: {result.total}"
    refusal = None if result.allowed else _refusal(result.status)
    if refusal is not None and result.total == 0:
        summary += f" ({refusal})"
    else:
        if any(ln.kind in ("fixed", "limit") for ln in result.lines):
            summary += " (special hand)"
        else:
            summary += f" = {plain_number(result.points)} points"
            if result.doublings:
                summary += f" × 2^{result.doublings}"
            mult = math.prod(ln.multiplier for ln in result.lines if ln.kind == "multiplier")
            if mult != 1:
                summary += f" × {plain_number(mult)}"
            formula = result.points * 2 ** result.doublings * mult
            diff = result.total - formula
            if result.limit_applied and diff < 0:
                summary += f" = {plain_number(formula)}, limited to {result.total}"
            elif diff > 0.5 + 1e-9:  # points added after doubling (e.g. swedish 003-01 option)
                summary += f" + {plain_number(diff)} not doubled"
            elif diff < -0.5 - 1e-9 and refusal is None:  # a ruleset's own count, e.g. 000-26 (its note says how)
                summary += f" = {plain_number(formula)}; counted as {result.total} (see the notes)"
            elif abs(diff) > 1e-9:  # rounded to a whole point
                summary += f" = {plain_number(formula)}, rounded"
        if refusal is not None:
            summary += f" ({refusal})"
    if result.cash:
        summary += f"   cash: {dollars(result.cash)} (paid apart)"
    return summary


def _refusal(status: str) -> str:
    """``mahjong not allowed: REASON`` from a refused result's status (its first clause, up to
    ``;``; a leading "mahjong not allowed:" / "not allowed:" is not repeated)."""
    head = (status or "").split(";")[0].strip()
    for prefix in ("mahjong not allowed:", "not allowed:"):
        if head.lower().startswith(prefix):
            head = head[len(prefix):].strip()
            break
    return f"mahjong not allowed: {head}" if head and head != "ok" else "mahjong not allowed"


def bonus_tiles(hand: Hand) -> tuple[str, ...]:
    """The hand's flowers and seasons (sorted)."""
    return tuple(sort_tiles(t for t in hand.bonus if t in BONUS))
