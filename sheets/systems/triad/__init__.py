"""Triad: Body, Mind and Spirit bought with points, traits, and d20 tasks against a floor."""
