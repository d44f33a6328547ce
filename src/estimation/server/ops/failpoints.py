"""Failpoints: named moments at which a test makes the server die at once, as a crash (SIGKILL, a power
cut) would at exactly that moment, which a signal from outside can only hit by luck.

A failpoint is armed by naming it in the ``failpoints`` setting (``ESTIMATION_FAILPOINTS``); nothing is armed
in service. The process exits with :data:`EXIT_CODE` without running any cleanup (no ``finally``, no lifespan
shutdown, no released lease), so what it leaves is what a crash leaves. The names in use:

* ``competition_seating``: a swiss stage's first table has been opened and seated, the rest of the stage
  not yet (server/competitions/service.py).
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("estimation.server")

#: The exit status of a process stopped by a failpoint.
EXIT_CODE = 86


def reached(armed: str, name: str) -> None:
    """Die now if ``name`` is among the ``armed`` failpoints (the setting's comma-separated names)."""
    if name in {n.strip() for n in armed.split(",")}:
        log.warning("failpoint %s reached: exiting at once", name)
        for handler in logging.getLogger().handlers + log.handlers:
            handler.flush()
        os._exit(EXIT_CODE)
