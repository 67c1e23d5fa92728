"""Pure types: no I/O, no imports above this layer."""
