"""Target-aware card play on bare ints: the heuristic bot's play and the strong bot's rollout policy.

Estimation is not about taking tricks but about taking exactly your estimate, so a rollout in which every
player grabs tricks (or plays at random) misjudges positions badly. :func:`choose_card` plays for a
target: while a seat still needs tricks it wins them as cheaply as it can (sure winners first, lowest
card that beats the trick, cheapest ruff); once its estimate is made (or bust) it ducks under the
winning card, sheds its dangerous high cards on tricks it cannot win, and leads low from suits where
others hold higher cards, which leaves tricks to the opponents still at or near their own targets.

What the policy may look at: its own hand, the trick, the trump, how many tricks it still needs, and
``later``: for each seat still to play to this trick, the cards that seat *might* hold. The heuristic bot
passes the unknown cards minus known voids; a rollout on a sampled deal passes the sampled hands.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import SUIT_BITS
from ..fast import trick_winner_index

LOW_BITS = tuple((1 << i) - 1 for i in range(53))  # LOW_BITS[c]: every card index below c


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _highest(mask: int) -> int:
    return mask.bit_length() - 1


def _beats(card: int, best: int, trump: int) -> bool:
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def trick_best(trick: Sequence[int], trump: int) -> int:
    best = trick[0]
    for c in trick[1:]:
        if _beats(c, best, trump):
            best = c
    return best


def _sure(card: int, trump: int, later: Sequence[int]) -> bool:
    """Whether ``card`` beats everything the later seats might hold in its suit and cannot be ruffed."""
    s = card // 13
    above = SUIT_BITS[s] & ~LOW_BITS[card + 1]
    for m in later:
        if m & above:
            return False
        if trump != 4 and s != trump and not m & SUIT_BITS[s] and m & SUIT_BITS[trump]:
            return False
    return True


def _shed(hand: int, trump: int) -> int:
    """The most dangerous card to keep when ducking: the highest side card, else the highest trump."""
    side = hand & ~SUIT_BITS[trump] if trump != 4 else hand
    if not side:
        return _highest(hand)
    best = -1
    best_rank = -1
    for s in range(4):
        bits = side & SUIT_BITS[s]
        if bits:
            top = _highest(bits)
            if top % 13 > best_rank:
                best, best_rank = top, top % 13
    return best


def _cheap_discard(hand: int, trump: int) -> int:
    """The least useful card when we cannot win: the lowest side card, else the lowest trump."""
    side = hand & ~SUIT_BITS[trump] if trump != 4 else hand
    pool = side or hand
    best = -1
    best_rank = 99
    for s in range(4):
        bits = pool & SUIT_BITS[s]
        if bits:
            low = _lowest(bits)
            if low % 13 < best_rank:
                best, best_rank = low, low % 13
    return best


def choose_card(hand: int, trick: Sequence[int], trump: int, need: int, later: Sequence[int],
                outside: int) -> int:
    """The card to play. ``need`` is target minus tricks won (<= 0: made or bust, so duck)."""
    tricks_left = hand.bit_count()
    if not trick:
        return _lead(hand, trump, need, later, outside, tricks_left)
    led = trick[0] // 13
    follow = hand & SUIT_BITS[led]
    best = trick_best(trick, trump)
    last = not later
    if follow:
        ruffed = best // 13 != led
        if ruffed:
            # Nothing in the suit can win: keep the low ones when hungry, dump the high ones when full.
            return _lowest(follow) if need > 0 else _highest(follow)
        higher = follow & ~LOW_BITS[best + 1]
        if need > 0:
            if not higher:
                return _lowest(follow)
            if last:
                return _lowest(higher)
            m = higher
            while m:
                c = _lowest(m)
                if _sure(c, trump, later):
                    return c
                m ^= 1 << c
            top = _highest(higher)
            if len(trick) == 1 and need < tricks_left:
                return _lowest(follow)  # second hand low: keep the honour for a surer trick
            return top
        lower = follow & LOW_BITS[best]
        if lower:
            return _highest(lower)
        # Every card we hold wins this trick so far: win it with the highest if nobody can overtake.
        return _highest(follow) if last else _lowest(follow)
    trumps = hand & SUIT_BITS[trump] if trump != 4 else 0
    if need > 0:
        if trumps:
            if best // 13 == trump:
                over = trumps & ~LOW_BITS[best + 1]
                if over:
                    return _lowest(over)
                return _cheap_discard(hand, trump)
            return _lowest(trumps)
        return _cheap_discard(hand, trump)
    # Ducking and void: shed a dangerous side card; ruff only when nothing else is left.
    if trumps and trumps == hand:
        if best // 13 == trump:
            under = trumps & LOW_BITS[best]
            if under:
                return _highest(under)
        return _lowest(trumps)
    return _shed(hand, trump)


def _lead(hand: int, trump: int, need: int, later: Sequence[int], outside: int, tricks_left: int) -> int:
    if need > 0:
        # A sure winner, side suits first (a trump lead also pulls the others' trumps, kept for later).
        chosen = -1
        for s in (0, 1, 2, 3):
            bits = hand & SUIT_BITS[s]
            if bits:
                top = _highest(bits)
                if _sure(top, trump, later):
                    if s != trump:
                        return top
                    chosen = top
        if chosen >= 0:
            return chosen
        trumps = hand & SUIT_BITS[trump] if trump != 4 else 0
        if trumps and trumps.bit_count() * 2 >= (outside & SUIT_BITS[trump]).bit_count() + 2:
            return _highest(trumps)
        # Develop the longest side suit from the bottom.
        longest = -1
        length = 0
        for s in (0, 1, 2, 3):
            if s == trump:
                continue
            n = (hand & SUIT_BITS[s]).bit_count()
            if n > length:
                longest, length = s, n
        if longest >= 0:
            return _lowest(hand & SUIT_BITS[longest])
        return _lowest(hand)
    # Ducking: lead the card with the most outside cards above it, lowest first.
    best = -1
    best_key = -1
    for s in (0, 1, 2, 3):
        bits = hand & SUIT_BITS[s]
        if not bits:
            continue
        low = _lowest(bits)
        above = (outside & SUIT_BITS[s] & ~LOW_BITS[low + 1]).bit_count()
        key = above * 2 + (0 if s == trump else 1)
        if key > best_key:
            best, best_key = low, key
    return best


def policy_rollout_reference(hands: Sequence[int], trump: int, leader: int, trick: Sequence[int],
                             won: Sequence[int], targets: Sequence[int]) -> list[int]:
    """Play the deal out with every seat aiming at its own target; tricks won per seat.

    The plain form, one :func:`choose_card` a card: the reference :func:`policy_rollout` (the kernel the
    search runs) is tested against."""
    h = list(hands)
    w = list(won)
    cards = list(trick)
    while True:
        n = len(cards)
        seat = (leader + n) & 3
        hand = h[seat]
        if not hand:
            return w
        later = [h[(seat + i) & 3] for i in range(1, 4 - n)]
        outside = (h[0] | h[1] | h[2] | h[3]) & ~hand
        card = choose_card(hand, cards, trump, targets[seat] - w[seat], later, outside)
        h[seat] = hand ^ (1 << card)
        cards.append(card)
        if n == 3:
            leader = (leader + trick_winner_index(cards, trump)) & 3
            w[leader] += 1
            cards = []



def policy_rollout(hands: Sequence[int], trump: int, leader: int, trick: Sequence[int],
                   won: Sequence[int], targets: Sequence[int]) -> list[int]:
    """Play the deal out with every seat aiming at its own target; tricks won per seat.

    :func:`policy_rollout_reference` with :func:`choose_card` inlined: the same cards, 1.7 times as fast.

    The strong bot's search spends most of its CPU here. Equivalences used (a test checks this function
    against :func:`policy_rollout_reference` on random positions): a following card is *sure* when it
    beats the highest card the later seats hold in the suit and no later seat can ruff, so the lowest
    sure card is the lowest one above that highest card; at the lead the later seats are all the others,
    whose union is ``outside``; the best card of the trick is carried instead of recomputed."""
    sb = SUIT_BITS
    lb = LOW_BITS
    h = list(hands)
    w = list(won)
    cards = list(trick)
    tmask = sb[trump] if trump != 4 else 0
    n = len(cards)
    best = -1
    best_i = 0
    if n:
        best = cards[0]
        for i in range(1, n):
            c = cards[i]
            if (c // 13 == best // 13 and c > best) or (c // 13 != best // 13 and c // 13 == trump):
                best, best_i = c, i
    while True:
        seat = (leader + n) & 3
        hand = h[seat]
        if not hand:
            return w
        need = targets[seat] - w[seat]
        if n == 0:
            outside = (h[0] | h[1] | h[2] | h[3]) & ~hand
            card = -1
            if need > 0:
                chosen = -1
                for s in (0, 1, 2, 3):
                    bits = hand & sb[s]
                    if not bits:
                        continue
                    top = bits.bit_length() - 1
                    if outside & sb[s] & ~lb[top + 1]:
                        continue
                    if tmask and s != trump:
                        ruff = False
                        for i in (1, 2, 3):
                            m = h[(seat + i) & 3]
                            if m & tmask and not m & sb[s]:
                                ruff = True
                                break
                        if ruff:
                            continue
                    if s != trump:
                        card = top
                        break
                    chosen = top
                if card < 0:
                    if chosen >= 0:
                        card = chosen
                    else:
                        trumps = hand & tmask
                        if trumps and trumps.bit_count() * 2 >= (outside & tmask).bit_count() + 2:
                            card = trumps.bit_length() - 1
                        else:
                            longest = -1
                            length = 0
                            for s in (0, 1, 2, 3):
                                if s == trump:
                                    continue
                                k = (hand & sb[s]).bit_count()
                                if k > length:
                                    longest, length = s, k
                            bits = hand & sb[longest] if longest >= 0 else hand
                            card = (bits & -bits).bit_length() - 1
            else:
                best_key = -1
                for s in (0, 1, 2, 3):
                    bits = hand & sb[s]
                    if not bits:
                        continue
                    low = (bits & -bits).bit_length() - 1
                    key = (outside & sb[s] & ~lb[low + 1]).bit_count() * 2 + (0 if s == trump else 1)
                    if key > best_key:
                        card, best_key = low, key
        else:
            led = cards[0] // 13
            follow = hand & sb[led]
            last = n == 3
            if follow:
                if best // 13 != led:
                    card = ((follow & -follow).bit_length() - 1) if need > 0 else follow.bit_length() - 1
                else:
                    higher = follow & ~lb[best + 1]
                    if need > 0:
                        if not higher:
                            card = (follow & -follow).bit_length() - 1
                        elif last:
                            card = (higher & -higher).bit_length() - 1
                        else:
                            later_suit = 0
                            ruff = False
                            for i in range(1, 4 - n):
                                m = h[(seat + i) & 3]
                                ms = m & sb[led]
                                later_suit |= ms
                                if tmask and led != trump and not ms and m & tmask:
                                    ruff = True
                            sure = 0 if ruff else higher & ~lb[later_suit.bit_length()]
                            if sure:
                                card = (sure & -sure).bit_length() - 1
                            elif n == 1 and need < hand.bit_count():
                                card = (follow & -follow).bit_length() - 1
                            else:
                                card = higher.bit_length() - 1
                    else:
                        lower = follow & lb[best]
                        if lower:
                            card = lower.bit_length() - 1
                        elif last:
                            card = follow.bit_length() - 1
                        else:
                            card = (follow & -follow).bit_length() - 1
            else:
                trumps = hand & tmask
                if need > 0:
                    if trumps and best // 13 == trump:
                        over = trumps & ~lb[best + 1]
                        card = (over & -over).bit_length() - 1 if over else _cheap_discard(hand, trump)
                    elif trumps:
                        card = (trumps & -trumps).bit_length() - 1
                    else:
                        card = _cheap_discard(hand, trump)
                elif trumps and trumps == hand:
                    under = trumps & lb[best] if best // 13 == trump else 0
                    card = under.bit_length() - 1 if under else (trumps & -trumps).bit_length() - 1
                else:
                    card = _shed(hand, trump)
        h[seat] = hand ^ (1 << card)
        cards.append(card)
        if n == 0:
            best, best_i = card, 0
        elif (card // 13 == best // 13 and card > best) or (card // 13 != best // 13 and card // 13 == trump):
            best, best_i = card, n
        n += 1
        if n == 4:
            leader = (leader + best_i) & 3
            w[leader] += 1
            cards = []
            n = 0
