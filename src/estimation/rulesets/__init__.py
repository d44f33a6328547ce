"""The ruleset registry: a new ruleset is one module and one entry here."""

from __future__ import annotations

from .base import Phase, RoundSpec, Ruleset
from .classic import Classic
from .egyptian import Egyptian
from .koutchina import Koutchina

RULESETS: dict[str, type[Ruleset]] = {
    Koutchina.name: Koutchina,
    Classic.name: Classic,
    Egyptian.name: Egyptian,
}
#: The ruleset a game is of when none is named (RULES.md: `koutchina` is the default).
DEFAULT_RULESET: str = Koutchina.name


def get_ruleset(name: str) -> Ruleset:
    try:
        return RULESETS[name]()
    except KeyError:
        known = ", ".join(RULESETS)
        raise ValueError(f"unknown ruleset {name!r} (known: {known})") from None


__all__ = ["DEFAULT_RULESET", "RULESETS", "Phase", "RoundSpec", "Ruleset", "get_ruleset"]
