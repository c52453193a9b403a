"""The bots: every level at every decision, the hard policy, the golden choices of the hard search."""
