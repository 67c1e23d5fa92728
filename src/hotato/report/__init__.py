"""Renderers: text, JSON and JUnit. They render results; they never evaluate."""
