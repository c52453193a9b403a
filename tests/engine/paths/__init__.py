"""Listing and applying agree (every listed move is taken, nothing else), dispatch tables, the registry."""
