"""Competitions on the server (RULES.md, Competitions): stored in SQL, played at ordinary tables.

The figures (board seeds, seating, matchpoints, standings, the export) are the competition core's
(:mod:`estimation.competition`, pure functions); this package only reads the tables' records and the
directors' decisions out of the database, hands them to the core, and acts on what it says:
:mod:`.field` reads and scores, :mod:`.service` runs a competition's life (registration, stages, robot
tables, leavers, pauses, adjustments) and pushes the live standings.
"""
