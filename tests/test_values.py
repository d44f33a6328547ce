"""Cards, trumps and actions: small value types whose text forms round-trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimation import Action, Card, InvalidActionError, Trump
from estimation.cards import hand_text, mask_of, parse_hand
from tests.helpers import CANDIDATES


class TestCard:
    def test_every_card_round_trips(self) -> None:
        texts = {str(Card(i)) for i in range(52)}
        assert len(texts) == 52
        for i in range(52):
            card = Card(i)
            assert Card.parse(str(card)) is card
            assert eval(repr(card)) == card  # the repr pastes back

    def test_rank_and_suit(self) -> None:
        qh = Card.parse("QH")
        assert (qh.rank, qh.suit) == (10, Trump.H)
        assert Card.parse("10d") == Card.parse("TD")
        assert Card.parse("AS") > Card.parse("KS")

    @pytest.mark.parametrize("bad", ["1H", "QX", "", "QHH", "11S"])
    def test_bad_text_is_refused(self, bad: str) -> None:
        with pytest.raises(ValueError):
            Card.parse(bad)


class TestTrump:
    def test_order_is_nt_s_h_d_c(self) -> None:
        assert Trump.NT > Trump.S > Trump.H > Trump.D > Trump.C
        for t in Trump:
            assert Trump.parse(str(t)) is t


class TestHand:
    @given(st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True))
    def test_hand_text_round_trips_sorted(self, cards: list[int]) -> None:
        mask = mask_of(cards)
        text = hand_text(mask)
        assert mask_of(parse_hand(text)) == mask
        parsed = parse_hand(text)
        suits = [c.suit for c in parsed]
        assert suits == sorted(suits, reverse=True)  # S H D C


class TestAction:
    def test_every_action_round_trips(self) -> None:
        for action in CANDIDATES:
            assert Action.parse(str(action)) is action
            assert eval(repr(action)) == action

    def test_examples(self) -> None:
        assert str(Action.parse("2 est 4")) == "2 est 4"
        assert Action.parse("1 est 9 nt").trump is Trump.NT
        assert Action.parse("0 call 10NT").number == 10
        assert Action.parse("3 play QH").card == Card.parse("QH")

    @pytest.mark.parametrize("bad", [
        "", "2", "4 est 3", "x est 3", "2 guess 4", "2 est", "2 est 14", "2 est -1", "2 call 3S",
        "2 call 14S", "2 call S", "2 call 7X", "2 play", "2 play 1H", "2 pass now", "2 est 9 X",
    ])
    def test_malformed_text_is_refused_with_a_reason(self, bad: str) -> None:
        with pytest.raises(InvalidActionError) as err:
            Action.parse(bad)
        assert str(err.value)


def test_terminal_game_plays_to_the_end_on_typed_input() -> None:
    """`estimation play` with the first legal move typed every turn finishes and saves a valid record."""
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        proc = subprocess.run(
            [sys.executable, "-m", "estimation", "play", "--seed", "5", "--save", str(path)],
            input="\n".join(["bogus", "99", "1"] + ["1"] * 400), capture_output=True, text=True,
            check=False, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert "Final standings" in proc.stdout
        assert "Type a move as shown" in proc.stdout  # "bogus" and "99" (no estimate) were refused
        import estimation

        game = estimation.load_record(json.loads(path.read_text()))
        assert game.is_over and len(game.round_results) == 5
