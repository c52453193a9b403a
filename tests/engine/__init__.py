"""The engine's tests, beside the code they check: ``rules`` (the rules of each variant,
moves, declarations, state), ``paths`` (listing against applying, dispatch, the
registry), ``bots`` (the bots and their golden choices) and ``records`` (records,
replay, the generator, the command line)."""
