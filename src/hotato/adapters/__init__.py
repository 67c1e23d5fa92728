"""Systems of record (Authority 2). `open_state` turns a `--state` argument into a StateSource."""

from hotato.adapters.open import open_state

__all__ = ["open_state"]
