"""Alembic migrations, shipped inside the package so that `estimation serve` can migrate on first start."""
