"""A swiss written straight into the database, for what measures or checks a stage's seating.

The seating benchmark (bench/competitions.py) and the seating tests need a thousand entrants, or a given
mix of guests and accounts, without signing each one up over REST: this writes the rows the REST path
would (a director, the competition, its entrants), its start a day off so that the ticker leaves it alone
until the caller starts it (``Competitions.start_now``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from ..storage.models import Account, Competition, CompetitionEntry, utcnow


async def seed_swiss(session: async_sessionmaker[AsyncSession], entrants: int, *, stages: int, seed: int,
                     director: str = "Director", prefix: str = "E",
                     guest: Callable[[int], bool] = lambda _i: True) -> tuple[int, Account]:
    """A koutchina ``micro`` swiss of ``entrants`` (named ``prefix`` and their index; ``guest(i)``: whether
    entrant i is a guest), with ``stages`` and board ``seed``: its id and its director."""
    now = utcnow()
    async with session() as db, db.begin():
        head = Account(name=director, login=None, is_guest=True, balance=0, created_at=now)
        db.add(head)
        await db.flush()
        comp = Competition(name="Seating", kind="swiss", ruleset="koutchina", length="micro",
                           bot_level="random", stages=stages, instances=1,
                           starts_at=now + dt.timedelta(days=1), window_end=None, entry_limit=0,
                           turn_seconds=0, private=False, invite_code=None, director_id=head.id,
                           status="upcoming", stage=0, seed=seed, created_at=now)
        db.add(comp)
        people = [Account(name=f"{prefix}{i}", login=None, is_guest=guest(i), balance=0, created_at=now)
                  for i in range(entrants)]
        db.add_all(people)
        await db.flush()
        db.add_all([CompetitionEntry(competition_id=comp.id, account_id=a.id, name=a.name, entry_no=n,
                                     instance=1, withdrawn=False, removed=False, created_at=now)
                    for n, a in enumerate(people, start=1)])
    return comp.id, head
