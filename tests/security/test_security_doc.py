"""Every promise in SECURITY.md is backed by named tests, and every test it names exists."""

from __future__ import annotations

import re

from tests.conftest import REPO

NAMED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def test_each_promise_names_tests_that_exist() -> None:
    text = (REPO / "SECURITY.md").read_text()
    promises = re.split(r"\n### ", text.split("## What a signature proves")[0])[1:]
    assert len(promises) >= 7
    for promise in promises:
        named = NAMED.findall(promise)
        assert named, f"promise without a test: {promise.splitlines()[0]}"
        for path, name in named:
            source = (REPO / path).read_text()
            assert re.search(rf"^def {name}\(", source, re.M), f"{path}::{name} does not exist"
