"""Template tags of the L5R sheet."""
