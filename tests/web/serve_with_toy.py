"""`estimation serve` with tests/test_toy_ruleset.py's made-up fourth ruleset registered first.

A ruleset is one module: registering its class is all a server needs to list it, play it (its bots too: the
bot processes import the class by its module, so ``PYTHONPATH`` must reach tests/), keep its stats and
send its names and marker tooltips to the browser. Run as ``python serve_with_toy.py serve --port N``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_toy_ruleset import Toy

from estimation.cli import main
from estimation.rulesets import RULESETS

if __name__ == "__main__":
    RULESETS[Toy.name] = Toy
    sys.argv[0] = "estimation"
    main()
