"""Game records and replay, the generator, the command line."""
