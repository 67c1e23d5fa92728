"""The real databases and the loopback API of the adapter tests, for the attacks here."""

from tests.adapters.conftest import api, maria, pg  # noqa: F401
