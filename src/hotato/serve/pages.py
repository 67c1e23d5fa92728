"""The pages: `GET /` an overview of recent calls and failure rates, `GET /calls/{id}` a call's
report page, drawn by the same renderer as `hotato assert run --html` (hotato.report.page).

A call's page grades the spooled call again with its evidence kept, since the results store
keeps verdicts and not the evidence; the page says so. Against a system of record that changed
since, the page shows today's answer and the store keeps the verdict given at the time."""

from __future__ import annotations

import html
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    from hotato.serve.service import Service

_LOCK = threading.Lock()  # one page grader, one state connection, one page at a time
_GRADERS: dict[int, Any] = {}

_STYLE = (
    "body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
    "td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}"
    ".FAIL,.refused{color:#b00020}.PASS,.graded{color:#1b5e20}"
)


def overview(svc: Service) -> str:
    m = svc.metrics
    recent = list(svc.recent)
    failing: dict[str, int] = {}
    graded = [r for r in recent if r.status == "graded"]
    for r in graded:
        for a in r.failed:
            failing[a] = failing.get(a, 0) + 1
    rates = "".join(
        f"<tr><td>{html.escape(a)}</td><td>{n}</td><td>{n / len(graded):.1%}</td></tr>"
        for a, n in sorted(failing.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    rows = "".join(
        f"<tr><td><a href='/calls/{quote(r.call_id, safe='')}'>{html.escape(r.call_id)}</a></td>"
        f"<td class='{r.status}'>{r.status}</td>"
        f"<td>{'' if r.exit_code is None else r.exit_code}</td>"
        f"<td class='FAIL'>{html.escape(', '.join(r.failed))}</td>"
        f"<td>{html.escape(r.message)}</td><td>{r.lag:.2f}</td></tr>"
        for r in recent[:100]
    )
    figures = [
        (
            "received",
            sum(
                m.value("hotato_serve_calls_received_total", source=s)
                for s in ("vapi", "retell", "calls", "otlp")
            ),
        ),
        ("graded", m.value("hotato_serve_calls_graded_total")),
        ("refused", m.value("hotato_serve_calls_refused_total")),
        ("failing", m.value("hotato_serve_calls_failing_total")),
        ("pending", svc.pending),
        ("OTLP calls open", len(svc.traces)),
    ]
    head = "".join(f"<tr><th>{k}</th><td>{int(v)}</td></tr>" for k, v in figures)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>hotato serve</title>"
        f"<style>{_STYLE}</style></head><body><h1>hotato serve</h1>"
        f"<p>Grading against {html.escape(svc.job.name)}; results in "
        f"{html.escape(svc.cfg.out)}.</p><table id='totals'>{head}</table>"
        f"<h2>Failure rate per assertion (last {len(graded)} graded calls)</h2>"
        f"<table id='rates'><tr><th>assertion</th><th>calls failing</th><th>rate</th></tr>"
        f"{rates}</table><h2>Recent calls</h2><table id='recent'><tr><th>call</th>"
        "<th>status</th><th>exit</th><th>failing</th><th>message</th><th>lag (s)</th></tr>"
        f"{rows}</table></body></html>"
    )


def call(svc: Service, call_id: str) -> tuple[str, int]:
    """The call's page and the HTTP status."""
    state, header = svc.find(call_id)
    if state == "pruned":
        return _note(
            f"Call {call_id} was graded; its body was removed from the spool after the "
            "retention (--spool-keep), so its page cannot be drawn again. Its verdicts are "
            "in the results folder."
        ), 200
    if state == "unknown" or header is None:
        return _note(f"No call {call_id} was received."), 404
    if state == "pending":
        return _note(f"Call {call_id} is received and waits to be graded."), 200
    import tempfile
    from pathlib import Path

    from hotato.fleet.variables import Binder
    from hotato.fleet.worker import decode_job
    from hotato.model.errors import InputError
    from hotato.runs.grader import Grader
    from hotato.runs.pages import call_page
    from hotato.serve.fleet_io import evidence_files
    from hotato.serve.spool import read_entry

    path = svc.spool.find(call_id)
    assert path is not None
    with _LOCK, tempfile.TemporaryDirectory(prefix="hotato-page-") as scratch:
        if id(svc) not in _GRADERS:
            aset = decode_job(svc.job)
            grader = Grader(
                aset,
                state=svc.job.state,
                state_before=svc.job.state_before,
                inconclusive_policy=svc.job.policy,
            )
            _GRADERS[id(svc)] = (grader, Binder(aset, list(svc.job.used)))
        grader, binder = _GRADERS[id(svc)]
        header, body = read_entry(path)
        files = evidence_files(header.source, body, Path(scratch) / "call")
        try:
            values = {
                "call_id": header.call_id,
                "agent": header.agent,
                "started_at": header.started_at,
                **header.variables,
            }
            bound = binder.bind({c: values.get(c) for c in svc.job.used})
            graded = grader.grade(
                trace=files.get("trace"),
                transcript=files.get("transcript"),
                assertions=bound,
                keep_evidence=True,
            )
        except InputError as exc:
            return _note(f"Call {call_id} was refused: {exc}"), 200
        page = call_page(graded.document, f"call {call_id}", graded.sources)
    banner = (
        "<p style='font:13px system-ui;margin:.5em 1em'>Graded again from the spooled call for "
        "this page; the results store holds the verdict given when the call arrived.</p>"
    )
    return page.replace("<body>", "<body>" + banner, 1), 200


def _note(text: str) -> str:
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>hotato serve</title>"
        f"<style>{_STYLE}</style></head><body><p>{html.escape(text)}</p>"
        "<p><a href='/'>All calls</a></p></body></html>"
    )
