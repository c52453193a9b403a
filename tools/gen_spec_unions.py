"""Write the spec's unions over the code's declarations (``make spec`` runs this, then
bundles; ``--check`` only compares): the members of ``Move`` (every ``MoveType``),
``PendingView`` (every variant's decisions), ``Event`` (every event type,
``tools.gen_spec_enums.event_types``) and ``GameOptions`` (every variant), each
``oneOf``/``anyOf`` with its discriminator ``mapping``, and each variant's
``<Name>Options`` object (its options, by ``OptionSpec`` name).

A union's prose stays in its hand-written file; only the lines between its markers
(``# generated: <block>`` ... ``# end of generated: <block>``) are this tool's. A member
is the schema named after its tag (``Move`` + ``ChooseColor`` for ``choose_color``,
``<Name>Option`` for an option), written by hand in any file of ``spec/schemas/``: one
that is missing, or written twice, stops the tool. tests/contract/test_spec_agrees.py
fails while a file is stale."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import yaml

import engine
from tools.code_scan import ROOT
from tools.gen_spec_enums import event_types

SCHEMAS = ROOT / "spec" / "schemas"
#: Files this tool writes whole (not sources of members).
GENERATED = {"enums.yaml"}


def camel(tag: str) -> str:
    """``choose_color`` -> ``ChooseColor`` (the spec's schema names)."""
    return "".join(part.capitalize() for part in tag.split("_"))


def defined() -> dict[str, str]:
    """Every schema name of ``spec/schemas/`` -> its file's name; ``SystemExit`` for a
    name written in two files."""
    where: dict[str, str] = {}
    for path in sorted(SCHEMAS.glob("*.yaml")):
        if path.name in GENERATED:
            continue
        for name in yaml.safe_load(path.read_text()) or {}:
            if name in where:
                raise SystemExit(f"schema {name} is written twice: {where[name]}, {path.name}")
            where[name] = path.name
    return where


class Refs:
    """``$ref``s to members, relative to the file a block is written in."""

    def __init__(self, where: dict[str, str], here: str) -> None:
        self.where = where
        self.here = here

    def __call__(self, name: str) -> str:
        if name not in self.where:
            raise SystemExit(
                f"schema {name} is missing: write it in spec/schemas/ (docs/ADDING-A-VARIANT.md)"
            )
        file = self.where[name]
        return f"#/{name}" if file == self.here else f"{file}#/{name}"


def union(indent: str, key: str, tags: Iterable[str], member: Callable[[str], str]) -> list[str]:
    """A discriminated union's lines: ``key`` (``oneOf``) and the ``type`` mapping."""
    pairs = [(tag, member(tag)) for tag in tags]
    lines = [f"{indent}{key}:"]
    lines += [f"{indent}  - {{$ref: '{ref}'}}" for _, ref in pairs]
    lines += [f"{indent}discriminator:", f"{indent}  propertyName: type", f"{indent}  mapping:"]
    lines += [f"{indent}    {tag}: '{ref}'" for tag, ref in pairs]
    return lines


def move_members(ref: Refs) -> list[str]:
    return union(
        "  ", "oneOf", [t.value for t in engine.MoveType], lambda t: ref(f"Move{camel(t)}")
    )


def pending_members(ref: Refs) -> list[str]:
    tags = sorted({p.value for v in engine.all_variants() for p in v.pending_moves})
    return union("  ", "oneOf", tags, lambda t: ref(f"Pending{camel(t)}"))


def event_members(ref: Refs) -> list[str]:
    return union("  ", "oneOf", event_types(), lambda t: ref(f"Event{camel(t)}"))


def options_name(variant_id: str) -> str:
    return f"{camel(variant_id)}Options"


def game_options_members(ref: Refs) -> list[str]:
    """Every variant's options object (``variant_options``, in the same file), the one
    with most options first: a generated client takes the first member a value fits, so
    a member that is another's subset comes after it (or classic UNO's house rules are
    read as DOS's options and dropped)."""
    ordered = sorted(engine.all_variants(), key=lambda v: (-len(v.options), v.id))
    return ["  anyOf:"] + [f"    - {{$ref: '#/{options_name(v.id)}'}}" for v in ordered]


def variant_options(ref: Refs) -> list[str]:
    """Each variant's options object: its options by name, each the ``<Name>Option``
    schema (checked against the ``OptionSpec`` by tests/contract/test_spec_agrees.py)."""
    lines: list[str] = []
    for v in engine.all_variants():
        lines += [
            f"{options_name(v.id)}:",
            "  type: object",
            f'  description: "The options of {v.title} (`target` default {v.target})"',
            "  properties:",
        ]
        lines += [f"    {name}: {{$ref: '{ref(camel(name) + 'Option')}'}}" for name in v.options]
        lines.append("  additionalProperties: false")
    return lines


#: file -> block name -> its lines.
BLOCKS: dict[str, dict[str, Callable[[Refs], list[str]]]] = {
    "moves.yaml": {"Move members": move_members},
    "pending.yaml": {"PendingView members": pending_members},
    "events.yaml": {"Event members": event_members},
    "variants.yaml": {
        "variant options": variant_options,
        "GameOptions members": game_options_members,
    },
}
BLOCK = re.compile(
    r"^(?P<indent> *)# generated: (?P<name>[^\n]+?) \(tools\.gen_spec_unions, make spec\)\n"
    r".*?"
    r"^(?P=indent)# end of generated: (?P=name)\n",
    re.M | re.S,
)


def render(file: str, text: str, where: dict[str, str]) -> str:
    """``text`` with each block of ``file`` written anew; ``SystemExit`` when a block's
    markers are missing."""
    ref = Refs(where, file)
    blocks = BLOCKS[file]
    seen: set[str] = set()

    def fill(match: re.Match[str]) -> str:
        name, indent = match["name"], match["indent"]
        seen.add(name)
        body = "\n".join(blocks[name](ref))
        return (
            f"{indent}# generated: {name} (tools.gen_spec_unions, make spec)\n{body}\n"
            f"{indent}# end of generated: {name}\n"
        )

    out = BLOCK.sub(fill, text)
    if seen != set(blocks):
        raise SystemExit(f"spec/schemas/{file}: no markers for {sorted(set(blocks) - seen)}")
    return out


def rendered() -> dict[Path, str]:
    """Each file this tool writes -> its text now."""
    where = defined()
    return {SCHEMAS / file: render(file, (SCHEMAS / file).read_text(), where) for file in BLOCKS}


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (argv if argv is not None else sys.argv[1:])
    stale = []
    for path, text in rendered().items():
        if path.read_text() != text:
            stale.append(path.name)
            if not check:
                path.write_text(text)
                print(f"wrote {path.relative_to(ROOT)}")
    if check:
        print(f"stale, run `make spec`: {', '.join(stale)}" if stale else "the unions are current")
        return int(bool(stale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
