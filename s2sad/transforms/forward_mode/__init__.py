"""Forward mode: tangents beside each statement (forward.jvp_function)."""
