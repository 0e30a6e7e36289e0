"""``mahjong-score rules``: the rulesets, or one ruleset's rules and options."""
from __future__ import annotations

import argparse

from commands.common import print_json, ruleset_word
from scoring import available, load_ruleset
from scoring.engine import option_text


def cmd_rules(args: argparse.Namespace) -> int:
    if args.ruleset is None:  # (an empty id, '' typed for a variable that was not set, is refused: load_ruleset)
        ids = available()
        if args.json:
            print_json([{"id": i, "name": load_ruleset(i).name, "seed": load_ruleset(i).seed} for i in ids])
        else:
            for i in ids:
                rs = load_ruleset(i)
                print(f"{i:<22} {rs.name}  ({len(rs.rules)} rules, {len(rs.options)} options; seed {rs.seed})")
        return 0
    rs = load_ruleset(args.ruleset)
    if args.json:
        print_json({
            "id": rs.id, "name": rs.name, "seed": rs.seed, "description": rs.description,
            "hand_size": rs.hand_size, "limit": rs.limit, "base": rs.base, "shapes": list(rs.shapes),
            "notes": list(rs.notes),
            "options": [{"name": o.name, "default": o.default, "choices": list(o.choices),
                         "ambiguity": o.ambiguity, "doc": o.doc} for o in rs.options.values()],
            "rules": [{"id": r.id, "name": r.name, "gloss": r.gloss, "kind": r.kind, "value": r.value,
                       "value_option": r.value_option, "applies_to": r.applies_option or r.applies_to,
                       "group": r.group, "excludes": list(r.excludes), "when": dict(r.when),
                       "option": r.option, "also_options": list(r.also_options), "source": r.source,
                       # (the lines cited under a value of its option that reads other lines: swedish dold_mahjong)
                       "source_by_option": dict(r.source_by_option)}
                      for r in rs.rules],
        })
        return 0
    print(f"{rs.name} ({rs.id}) — seed {rs.seed}; {rs.hand_size}-tile game"
          + (f"; limit {rs.limit}" if rs.limit else "") + (f"; based on {rs.base}" if rs.base else ""))
    if rs.description:
        print(rs.description)
    for n in rs.notes:
        print(f"note: {n}")
    print("\nrules:")
    for r in rs.rules:
        # (an option's default, with the option named: a new user read "option set_doublings_for" in the
        # who-gets-it column as garbled)
        val = f"{r.value:g}" if not r.value_option else \
            f"{option_text(rs.options[r.value_option].default)} (option {r.value_option})"
        who = r.applies_to if not r.applies_option else \
            f"{option_text(rs.options[r.applies_option].default)} (option {r.applies_option})"
        extra = []
        if r.group:
            extra.append(f"group {r.group}")
        if r.when:
            extra.append("when " + ", ".join(f"{k}={option_text(v)}" for k, v in r.when.items()))
        if r.excludes:
            extra.append("excludes " + ", ".join(r.excludes))
        extra += [f"cites {src.split(':')[-1]} under {r.option}={v}" for v, src in r.source_by_option.items()]
        print(f"  {r.id:<34} {r.kind:<10} {val:>8}  {who:<10} {r.label()}  ({r.source})"
              + (f"  [{'; '.join(extra)}]" if extra else ""))
    print("\noptions (--option NAME=VALUE; NAME and VALUE in any case, - or _ alike):")
    for o in rs.options.values():
        amb = f" [{o.ambiguity}]" if o.ambiguity else ""
        print(f"  {o.name} = {option_text(o.default)}  (choices: {', '.join(map(option_text, o.choices))}){amb}\n      {o.doc}")
    return 0


def register(subparsers) -> None:
    """Add the ``rules`` subcommand (registered through ``cli.COMMANDS``)."""
    r = subparsers.add_parser("rules", help="list rulesets, or one ruleset's rules and options",
                              description="Without RULESET: the rulesets (id, name, number of rules and options, "
                                          "seed file). With RULESET: its rules (id, kind, value, who gets it, name, seed "
                                          "line, group, conditions, exclusions) and its options (default, choices, the "
                                          "ambiguity each settles — set them with --option NAME=VALUE), e.g. "
                                          "mahjong-score rules rode-draak.")
    r.add_argument("ruleset", nargs="?", type=ruleset_word, help="ruleset id (see `mahjong-score rules`)")
    r.add_argument("--json", action="store_true",
                   help="print one JSON object: the list of rulesets, or the ruleset with its rules and options")
    r.set_defaults(func=cmd_rules)
