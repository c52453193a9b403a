"""Smoke tests of the benchmark suite (its figures are never asserted)."""
