"""`estimation play`: a game in the terminal against three bots.

The human types an action the way the record writes it, without the seat (``est 4``, ``call 7S``,
``pass``, ``QH``), a shorter form (``4`` for an estimate, ``9 H`` for a Super Call, ``7S`` for a call), or
the number shown beside a card or a plain choice. Up to 44 estimates or 50 calls can be legal at once, so
those are shown grouped (``est 0..13``, ``call 8..13: C D H S NT``) rather than numbered one by one.
Everything shown comes from the human seat's view, the same redacted view a network client gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .actions import BARE_VERBS, CONTRACT_VERBS, Action, Verb
from .bots import Bot
from .cards import Card, Trump
from .errors import EstimationError
from .fast import trick_winner_index
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


def number_span(numbers: Sequence[int]) -> str:
    """A set of numbers as a person reads it: ``0..13``, ``0..13 (not 5)``, ``3``, ``1..3, 6..9``.

    The one estimate the last estimator may not make (the total may never be 13) shows as a gap, so
    the common case stays one short range with the forbidden number named.
    """
    ordered = sorted(set(numbers))
    low, high = ordered[0], ordered[-1]
    missing = [n for n in range(low, high + 1) if n not in ordered]
    if low == high:
        return str(low)
    if len(missing) <= 2:
        return f"{low}..{high}" + (f" (not {', '.join(map(str, missing))})" if missing else "")
    runs: list[tuple[int, int]] = []
    for n in ordered:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in runs)


def _contract_groups(actions: Sequence[Action]) -> str:
    """``7: H S NT · 8..13: C D H S NT``: numbers that allow the same trumps share one entry."""
    by_number: dict[int, list[str]] = {}
    for a in actions:
        assert a.number is not None and a.trump is not None
        by_number.setdefault(a.number, []).append(str(a.trump))
    entries: list[tuple[int, int, list[str]]] = []
    for number in sorted(by_number):
        trumps = by_number[number]
        if entries and entries[-1][1] == number - 1 and entries[-1][2] == trumps:
            entries[-1] = (entries[-1][0], number, trumps)
        else:
            entries.append((number, number, trumps))
    return " · ".join(f"{low if low == high else f'{low}..{high}'}: {' '.join(trumps)}"
                      for low, high, trumps in entries)


def move_lines(legal: Sequence[Action]) -> list[str] | None:
    """The legal moves grouped into a few short lines, or None when they are few enough to number.

    Cards and plain choices (``pass``, ``dashcall``/``nodash``) are numbered. Estimates, Super Calls,
    calls, bids and declarations are grouped by number, because numbering them gives a fixed round's
    44 estimates, a prompt that wraps over several lines and that nobody reads.
    """
    if all(a.number is None for a in legal):
        return None
    lines: list[str] = []
    bare = [a.verb.value for a in legal if a.verb in BARE_VERBS]
    if bare:
        lines.append(" · ".join(bare))
    estimates = [a.number for a in legal if a.verb is Verb.EST and a.trump is None and a.number is not None]
    if estimates:
        lines.append(f"est {number_span(estimates)}")
    for verb in dict.fromkeys(a.verb for a in legal if a.trump is not None):
        group = [a for a in legal if a.verb is verb and a.trump is not None]
        example = group[0].text.split(" ", 1)[1]
        what = "a Super Call, " if verb is Verb.EST else ""
        lines.append(f"{verb.value} {_contract_groups(group)}   ({what}e.g. {example})")
    return lines


def move_examples(legal: Sequence[Action]) -> str:
    """A few ways to type this turn's moves, for the help after something that is no move."""
    examples: list[str] = []
    for verb in dict.fromkeys(a.verb for a in legal):
        group = [a for a in legal if a.verb is verb]
        plain = [a for a in group if a.trump is None]
        if verb is Verb.EST and plain:
            sample = plain[len(plain) // 4]
            examples.append(f"{sample.text.split(' ', 1)[1]} (or just {sample.number})")
        if verb is Verb.EST and len(plain) < len(group):
            examples.append(next(a for a in group if a.trump is not None).text.split(" ", 1)[1])
        elif verb is not Verb.EST:
            examples.append(group[0].text.split(" ", 1)[1])
    return ", ".join(examples)


def _spell(verb: Verb, args: list[str]) -> str | None:
    """The record text of ``verb`` with what the human typed after it, forgiving spacing and case."""
    args = [w.upper() for w in args]
    if verb in BARE_VERBS:
        return None if args else verb.value
    if not args:
        return None
    if verb in CONTRACT_VERBS:
        return f"{verb.value} {''.join(args)}"  # "7 S" and "7s" are both "7S"
    if verb is Verb.EST:
        if len(args) == 1 and not args[0].isdigit():  # "9H" is "9 H"
            number = args[0].rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            args = [number, args[0][len(number):]] if number else args
        return f"est {' '.join(args)}"
    if len(args) != 1:
        return None
    card = args[0]
    return f"play {'T' + card[2:] if card.startswith('10') else card}"


def resolve_move(line: str, legal: Sequence[Action], numbered: bool) -> str | None:
    """What the human meant, as record text without the seat; None when it is no move at all.

    A legal reading wins. A move that reads as an action but is not legal is returned anyway, so the
    engine's refusal says which rule forbids it (the total of 13, following suit); text that is no
    action at all gets the typing help instead.
    """
    words = line.split()
    if not words:
        return None
    if len(words) == 1 and words[0].isdigit():
        n = int(words[0])
        if numbered:
            return legal[n - 1].text.split(" ", 1)[1] if 1 <= n <= len(legal) else None
        if not any(a.verb is Verb.EST for a in legal):
            return None
        words = ["est", words[0]]  # in a grouped prompt a number alone is an estimate
    first = words[0].lower()
    if first in _VERB_NAMES:
        candidates = [_spell(Verb(first), words[1:])]
    else:
        candidates = [_spell(verb, words) for verb in dict.fromkeys(a.verb for a in legal)]
    seat = legal[0].seat
    readable: list[str] = []
    for text in candidates:
        if text is None:
            continue
        try:
            action = Action.parse(f"{seat} {text}")
        except EstimationError:
            continue
        if action in legal:
            return text
        readable.append(text)
    return readable[0] if readable else None


_VERB_NAMES = frozenset(v.value for v in Verb)


def over_under_line(view: dict[str, Any]) -> str | None:
    """Once every estimate is in (the play), their total and whether the round is Over or Under 13, and by
    how many: ``Estimates total 15 · Over by 2``, as the browser's table shows it. None before the play."""
    if view["phase"] != "play":
        return None
    total = sum(e for e in view["estimates"] if e is not None)
    return f"Estimates total {total} · {'Over' if total > 13 else 'Under'} by {abs(total - 13)}"


#: A seat's role marker (``Game.view``'s ``markers[s]["role"]``) as the terminal shows it.
ROLE_WORDS = {"caller": " [bold]*caller*[/bold]", "with": " With", "dash_call": " Dash Call", "dash": " Dash"}
#: A Risk level as the terminal shows it.
RISK_WORDS = {1: "Risk", 2: "Double Risk", 3: "Triple Risk"}


class TerminalGame:
    """Drives a :class:`Game` with one human seat; ``ask`` reads a line (``input`` by default).

    ``after_action`` is called with the game before the first move and after every action, the bots'
    and the human's: ``estimation play --save`` writes the record there, so the file always holds the
    game so far and ``estimation hint`` can read it while the human is thinking.
    """

    def __init__(self, game: Game, human: int, bots: dict[int, Bot], console: Console,
                 ask: Callable[[str], str] = input,
                 after_action: Callable[[Game], None] | None = None) -> None:
        self.game = game
        self.human = human
        self.bots = bots
        self.console = console
        self.ask = ask
        self.after_action = after_action
        self._seen_rounds = 0
        self._seen_tricks = 0

    def name(self, seat: int) -> str:
        name = self.game.players[seat]
        return f"{name} (you)" if seat == self.human and name != "You" else name

    def run(self) -> None:
        game = self.game
        self.console.rule(f"[bold]Estimation[/bold] · {game.ruleset.name} {game.length} · "
                          f"{game.rounds} rounds")
        if self.after_action is not None:
            self.after_action(game)
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
            if self.after_action is not None:
                self.after_action(game)
            self._report_progress()
        self._final()

    def _announce(self, text: str) -> None:
        seat_text, verb, *arg = text.split()
        seat = int(seat_text)
        if verb == "play":
            return  # shown with the trick
        self.console.print(f"  {self.name(seat)}: [bold]{' '.join([verb, *arg])}[/bold]")

    def _report_progress(self) -> None:
        game = self.game
        results = game.round_results
        if len(results) > self._seen_rounds:
            self._show_trick_log(results_done=True)
            self._show_last_trick(results[-1].trump)
            for result in results[self._seen_rounds:]:
                self._show_round(result.to_dict())
            self._seen_rounds = len(results)
            self._seen_tricks = 0
            return
        self._show_trick_log(results_done=False)

    def _show_last_trick(self, trump_text: str) -> None:
        """Trick 13 with its winner, like every other trick.

        The round is scored the moment its last card falls and the game moves to the next deal, so the
        trick log no longer holds trick 13: it is rebuilt from the finished deal's last four plays and
        the round's trump, with the engine's own trick rule.
        """
        game = self.game
        last_plays = game.deal_log[-1][3][-4:]
        cards = [int(a.card) for a in last_plays if a.card is not None]
        if len(cards) != 4:
            return  # a deal that ended without play (cannot end a round, but never show half a trick)
        leader = last_plays[0].seat
        winner = (leader + trick_winner_index(cards, int(Trump.parse(trump_text)))) % 4
        shown = "  ".join(f"{game.players[a.seat]} {pretty_card(str(Card(c)))}"
                          for a, c in zip(last_plays, cards, strict=True))
        self.console.print(f"  trick 13: {shown}  → [bold]{self.name(winner)}[/bold]")

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
            if m["risk"]:
                marks.append(RISK_WORDS[m["risk"]])
            # The role as the ruleset marks it (egyptian's Dash is a Dash, never a Dash Call).
            role = ROLE_WORDS.get(m["role"] or "", "")
            est = "-" if m["estimate"] is None else str(m["estimate"])
            table.add_row(self.name(seat) + role, est, str(m["tricks"]), " ".join(marks),
                          str(view["totals"][seat]))
        trump = view["trump"] or "to be called"
        self.console.print(f"\n[bold]Round {view['round']}/{view['rounds']}[/bold] ({view['kind']}, deal "
                           f"{view['deal']}) · dealer {self.name(view['dealer'])} · trump "
                           f"{SUIT_SYMBOLS.get(trump, trump)} · x{view['multiplier']}")
        if view["standing"]:
            s = view["standing"]
            self.console.print(f"Standing call: {s['number']}{s['trump']} by {self.name(s['seat'])}")
        self.console.print(table)
        over_under = over_under_line(view)
        if over_under is not None:
            self.console.print(over_under)
        sides = view["sides"]
        if sides is not None:
            self.console.print("Sides: " + " · ".join(
                f"{self.name(a)} & {self.name(b)} {sides['totals'][i]}"
                for i, (a, b) in enumerate(sides["seats"])))
        if view["trick"]:
            shown = "  ".join(f"{self.game.players[t['seat']]} {pretty_card(t['card'])}"
                              for t in view["trick"])
            self.console.print(f"Trick so far: {shown}")
        self.console.print(f"Your hand: {pretty_hand(view['hand'])}")

    def _human_turn(self) -> bool:
        view = self.game.view(self.human)
        self._show_state(view)
        legal = [Action.parse(t) for t in view["legal"]]
        lines = move_lines(legal)
        numbered = lines is None
        if lines is None:
            choices = "  ".join(f"[{i}] " + (pretty_card(str(a.card)) if a.card is not None else a.verb.value)
                                for i, a in enumerate(legal, 1))
            self.console.print(f"Your move: {choices}")
            help_text = ("Type the number beside a move, or the move itself (e.g. QH, pass). "
                         "'quit' leaves.")
        else:
            estimates = any(a.verb is Verb.EST for a in legal)
            self.console.print("Your move" + (" (type it; a number alone is an estimate):" if estimates
                                              else " (type it):"))
            for line in lines:
                self.console.print(f"  {escape(line)}")
            help_text = f"Type a move as shown, e.g. {move_examples(legal)}. 'quit' leaves."
        while True:
            try:
                line = self.ask("> ").strip()
            except EOFError:
                return False
            if line in ("quit", "q"):
                return False
            text = resolve_move(line, legal, numbered)
            if text is None:
                self.console.print(help_text)
                continue
            try:
                self.game.apply(f"{self.human} {text}")
            except EstimationError as exc:
                self.console.print(f"[red]{escape(str(exc))}[/red]")
                continue
            return True

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
        sides = game.sides
        if sides is not None:  # partners: by side, each seat's own total beside it
            for i in sorted(range(2), key=lambda i: sides["places"][i]):
                a, b = sides["seats"][i]
                self.console.print(f"  {sides['places'][i]}. {self.name(a)} & {self.name(b)}  "
                                   f"{sides['totals'][i]} ({game.totals[a]}, {game.totals[b]})")
            return
        for seat in sorted(range(4), key=lambda s: places[s]):
            self.console.print(f"  {places[seat]}. {self.name(seat)}  {game.totals[seat]}")
