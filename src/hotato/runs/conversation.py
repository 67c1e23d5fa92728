"""The work behind `hotato test run`: one call, several trials, or a suite of tests."""

from __future__ import annotations

from pathlib import Path

from hotato.conversation.calls import call_files
from hotato.conversation.testfile import load_test
from hotato.model.errors import InputError
from hotato.runs.call import single
from hotato.runs.outcome import ConversationOutcome, Graded
from hotato.runs.request import RunRequest
from hotato.runs.suite import suite
from hotato.runs.trials import trials


def run_request(req: RunRequest) -> ConversationOutcome:
    """Grade what `req` names: a folder runs as a suite; a test runs over `req.evidence.trials` or
    against one call (the evidence given, else the test's own `call:` folder). Nothing is
    printed: remarks for the user come back in `notes`. Raises InputError when refused."""
    if req.options.k is not None and req.evidence.trials is None:
        raise InputError.one(
            "--k applies to --trials: replays of one recording all agree, so pass@k and "
            "pass^k equal pass@1 for every k"
        )
    target = Path(req.test_path)
    if req.loaded is None and target.is_dir():
        return suite(req, target)
    test = req.loaded if req.loaded is not None else load_test(req.test_path)
    notes = []
    if req.options.agent is not None and req.options.agent != test.agent:
        notes.append(
            f"--agent {req.options.agent!r} differs from the test's agent "
            f"{test.agent!r}; the artifact records {req.options.agent!r}"
        )
    req = req.for_test(test)
    if req.evidence.trials is not None:
        runs, doc = trials(req, test)
        items = [
            Graded(f"{test.id}[{Path(t.call).name}]", r, doc)
            for t, r in zip(doc.trials or [], runs, strict=True)
        ]
    else:
        files = req.files()
        if not req.has_call_evidence and test.call is not None:
            # the test's own call, read against --state when it is given
            base = target.parent if req.loaded is None else Path(".")
            files = req.state_for(call_files(base / test.call))
        run, doc = single(req, test, files)
        items = [Graded(test.id, run, doc)]
    return ConversationOutcome(doc, items, notes)
