"""Migration scripts, one per schema change, applied in order by :func:`estimation.server.db.migrate`."""
