"""The game systems, one package each; sheets/registry.py finds them (settings.GAME_SYSTEMS)."""
