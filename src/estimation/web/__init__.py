"""The browser client: static files (index.html, ES modules, CSS) served by the game server at ``/``."""
