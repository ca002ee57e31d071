"""Ranked-list similarities."""
