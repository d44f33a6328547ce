"""`estimation play`: a game in the terminal against three bots.

The human types an action the way the record writes it, without the seat (``est 4``, ``call 7S``,
``pass``, ``QH``), or the number shown beside it. Everything shown comes from the human seat's view, the
same redacted view a network client gets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from .bots import Bot
from .cards import Card
from .errors import EstimationError
from .game import Game

SUIT_SYMBOLS = {"S": "♠", "H": "[red]♥[/red]", "D": "[red]♦[/red]", "C": "♣", "NT": "NT"}


def pretty_card(text: str) -> str:
    return text[:-1].replace("T", "10") + SUIT_SYMBOLS[text[-1]]


def pretty_hand(cards: list[str]) -> str:
    by_suit: dict[str, list[str]] = {"S": [], "H": [], "D": [], "C": []}
    order = "AKQJT98765432"
    for c in cards:
        by_suit[c[-1]].append(c[:-1])
    parts = []
    for suit, ranks in by_suit.items():
        ranks.sort(key=order.index)
        shown = " ".join(r.replace("T", "10") for r in ranks) or "—"
        parts.append(f"{SUIT_SYMBOLS[suit]} {shown}")
    return "   ".join(parts)


class TerminalGame:
    """Drives a :class:`Game` with one human seat; ``ask`` reads a line (``input`` by default)."""

    def __init__(self, game: Game, human: int, bots: dict[int, Bot], console: Console,
                 ask: Callable[[str], str] = input) -> None:
        self.game = game
        self.human = human
        self.bots = bots
        self.console = console
        self.ask = ask
        self._seen_rounds = 0
        self._seen_tricks = 0

    def name(self, seat: int) -> str:
        name = self.game.players[seat]
        return f"{name} (you)" if seat == self.human and name != "You" else name

    def run(self) -> None:
        game = self.game
        self.console.rule(f"[bold]Estimation[/bold] · {game.ruleset.name} {game.length} · "
                          f"{game.rounds} rounds")
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            if seat == self.human:
                if not self._human_turn():
                    self.console.print("Game abandoned.")
                    return
            else:
                text = self.bots[seat].act(game.view(seat))
                game.apply(text)
                self._announce(text)
            self._report_progress()
        self._final()

    def _announce(self, text: str) -> None:
        seat_text, verb, *arg = text.split()
        seat = int(seat_text)
        if verb == "play":
            return  # shown with the trick
        self.console.print(f"  {self.name(seat)}: [bold]{verb} {' '.join(arg)}[/bold]")

    def _report_progress(self) -> None:
        game = self.game
        results = game.round_results
        if len(results) > self._seen_rounds:
            self._show_trick_log(results_done=True)
            last_plays = [a.text.split() for a in game.deal_log[-1][3][-4:]]
            shown = "  ".join(f"{game.players[int(s)]} {pretty_card(c)}" for s, _, c in last_plays)
            self.console.print(f"  trick 13: {shown}")
            for result in results[self._seen_rounds:]:
                self._show_round(result.to_dict())
            self._seen_rounds = len(results)
            self._seen_tricks = 0
            return
        self._show_trick_log(results_done=False)

    def _show_trick_log(self, results_done: bool) -> None:
        game = self.game
        log = game.trick_log if not results_done else []
        for leader, cards, winner in log[self._seen_tricks:]:
            shown = "  ".join(f"{self.game.players[(leader + i) % 4]} {pretty_card(str(Card(c)))}"
                              for i, c in enumerate(cards))
            winner_name = self.name(winner)
            self.console.print(f"  trick {self._seen_tricks + 1}: {shown}  → [bold]{winner_name}[/bold]")
            self._seen_tricks += 1

    def _show_state(self, view: dict[str, Any]) -> None:
        table = Table(box=None, pad_edge=False)
        for col in ("", "estimate", "tricks", "markers", "total"):
            table.add_column(col)
        for seat in range(4):
            m = view["markers"][seat]
            marks = []
            if m["bust"]:
                marks.append("[red]bust[/red]")
            if m["avoid"]:
                marks.append("avoid " + "".join(SUIT_SYMBOLS[s] for s in m["avoid"]))
            role = " [bold]*caller*[/bold]" if view["caller"] == seat else ""
            dash = " Dash Call" if seat in view["dash_seats"] else ""
            est = "-" if m["estimate"] is None else str(m["estimate"])
            table.add_row(self.name(seat) + role + dash, est, str(m["tricks"]), " ".join(marks),
                          str(view["totals"][seat]))
        trump = view["trump"] or "to be called"
        self.console.print(f"\n[bold]Round {view['round']}/{view['rounds']}[/bold] ({view['kind']}, deal "
                           f"{view['deal']}) · dealer {self.name(view['dealer'])} · trump "
                           f"{SUIT_SYMBOLS.get(trump, trump)} · x{view['multiplier']}")
        if view["standing"]:
            s = view["standing"]
            self.console.print(f"Standing call: {s['number']}{s['trump']} by {self.name(s['seat'])}")
        self.console.print(table)
        if view["trick"]:
            shown = "  ".join(f"{self.game.players[t['seat']]} {pretty_card(t['card'])}"
                              for t in view["trick"])
            self.console.print(f"Trick so far: {shown}")
        self.console.print(f"Your hand: {pretty_hand(view['hand'])}")

    def _human_turn(self) -> bool:
        view = self.game.view(self.human)
        self._show_state(view)
        legal = [t.split(" ", 1)[1] for t in view["legal"]]
        if view["phase"] == "play":
            choices = "  ".join(f"[{i}] {pretty_card(t.split()[1])}" for i, t in enumerate(legal, 1))
        else:
            choices = "  ".join(f"[{i}] {t}" for i, t in enumerate(legal, 1))
        self.console.print(f"Your move: {choices}")
        while True:
            try:
                line = self.ask("> ").strip()
            except EOFError:
                return False
            if line in ("quit", "q"):
                return False
            text = self._resolve(line, legal)
            if text is None:
                self.console.print("Type the number beside a move, or the move itself (e.g. est 3, "
                                   "call 7S, pass, QH). 'quit' leaves.")
                continue
            try:
                self.game.apply(f"{self.human} {text}")
            except EstimationError as exc:
                self.console.print(f"[red]{exc}[/red]")
                continue
            return True

    @staticmethod
    def _resolve(line: str, legal: list[str]) -> str | None:
        if not line:
            return None
        if line.isdigit():
            i = int(line)
            return legal[i - 1] if 1 <= i <= len(legal) else None
        words = line.split()
        if len(words) == 1 and len(words[0]) in (2, 3) and words[0][0].upper() in "23456789TJQKA1":
            return f"play {words[0].upper()}"
        return " ".join(words)

    def _show_round(self, r: dict[str, Any]) -> None:
        title = f"Round {r['round']} scored ({r['kind']}, trump {r['trump']}, x{r['multiplier']})"
        if r["saaydeh"]:
            title += " — Sa'aydeh: all four missed, nobody scores, the next round counts double"
        table = Table(title=title)
        for col in ("Player", "Est", "Won", "Base", "Caller/With", "Only", "Risk", "Dash Call", "Score"):
            table.add_column(col, justify="left" if col == "Player" else "right")
        for b in r["breakdown"]:
            table.add_row(self.name(b["seat"]) + ("" if b["made"] else " ✗"), str(b["estimate"]),
                          str(b["tricks"]), *(f"{b[k]:+d}" for k in ("base", "caller_with", "only", "risk")),
                          f"{b['dash_call'] + b['dash']:+d}", f"[bold]{b['score']:+d}[/bold]")
        self.console.print(table)

    def _final(self) -> None:
        game = self.game
        places = game.places
        self.console.rule("[bold]Final standings[/bold]")
        for seat in sorted(range(4), key=lambda s: places[s]):
            self.console.print(f"  {places[seat]}. {self.name(seat)}  {game.totals[seat]}")
