"""The real databases of the adapter tests, for the attacks here."""

from tests.adapters.conftest import maria, pg  # noqa: F401
