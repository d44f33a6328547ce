"""Migration scripts, one per schema change, applied in order by
:func:`estimation.server.storage.database.migrate`."""
