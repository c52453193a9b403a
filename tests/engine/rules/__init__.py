"""Rule specifications: one test per rule line of each variant, the conformance and property tests over every variant, declarations, forced moves, the state."""
