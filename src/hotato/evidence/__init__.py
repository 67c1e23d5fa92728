"""Loaders: files on disk into the evidence model. Every malformed input is an InputError."""

from hotato.evidence.trace import load_trace
from hotato.evidence.transcript import load_transcript

__all__ = ["load_trace", "load_transcript"]
