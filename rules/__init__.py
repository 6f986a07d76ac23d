"""Pure-Python rules engine for the four supported systems.

Never imports Django: the web layer calls in, never the other way round.
"""
