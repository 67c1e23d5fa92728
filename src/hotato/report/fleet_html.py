"""The fleet report as one self-contained HTML page: styles, data and script inline, nothing
fetched at view time. Every string from a call (ids, agents, reasons) is escaped; the data the
filters use sits in a JSON block whose `<` are escaped, so no call text can close it."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from hotato.model.fleet import FleetReport, Rate

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.25em .6em;
text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;position:relative;width:120px;height:.8em;background:#eee}
.bar span{position:absolute;top:0;bottom:0;background:#6a8}
.bar b{position:absolute;top:-2px;bottom:-2px;width:2px;background:#111}
.note{color:#555}label{margin-right:1em}
"""

_SCRIPT = r"""
(function(){
const data = JSON.parse(document.getElementById('fleet-data').textContent);
const Z = 1.959963984540054;
function wilson(c, n){ if(!n) return null; const p=c/n, d=1+Z*Z/n,
  centre=(p+Z*Z/(2*n))/d, half=Z*Math.sqrt(p*(1-p)/n+Z*Z/(4*n*n))/d;
  return [Math.max(0, Math.floor((centre-half)*1e6)/1e6),
          Math.min(1, Math.ceil((centre+half)*1e6)/1e6)]; }
function fmt(x){ return x===null ? '-' : x.toFixed(3); }
function text(el, s){ el.textContent = s; }
const agent = document.getElementById('agent'), day = document.getElementById('day');
function apply(){
  const a = agent.value, d = day.value, sums = {};
  for (const [ag, dy, id, p, f, i] of data.cells){
    if ((a && ag !== a) || (d && dy !== d)) continue;
    const s = sums[id] || (sums[id] = [0,0,0]); s[0]+=p; s[1]+=f; s[2]+=i; }
  for (const row of document.querySelectorAll('#rates tbody tr')){
    const s = sums[row.dataset.assertion] || [0,0,0], j = s[0]+s[1], w = wilson(s[0], j);
    const c = row.cells, rate = j ? Math.round(s[0]/j*1e6)/1e6 : null;
    text(c[1], s[0]+s[1]+s[2]); text(c[2], s[0]); text(c[3], s[1]); text(c[4], s[2]);
    text(c[5], fmt(rate)); text(c[6], w ? '['+fmt(w[0])+', '+fmt(w[1])+']' : '-');
    row.dataset.rate = rate === null ? '' : rate; }
  for (const row of document.querySelectorAll('#failing tbody tr')){
    row.hidden = (a && row.dataset.agent !== a) || (d && row.dataset.day !== d); }
}
agent.addEventListener('change', apply); day.addEventListener('change', apply);
})();
"""


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _options(values: list[str]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)


def _rate_row(r: Rate) -> str:
    width = 0 if r.rate is None else round(r.rate * 100)
    bar = (
        f'<span class="bar" aria-hidden="true"><span style="width:{width}%"></span></span>'
        if r.rate is not None
        else ""
    )
    interval = "-" if r.low is None else f"[{_num(r.low)}, {_num(r.high)}]"
    return (
        f'<tr data-assertion="{escape(r.assertion_id or "")}" data-rate="{r.rate or ""}">'
        f"<th scope=row>{escape(r.assertion_id or '')} <small>{escape(r.kind or '')}</small></th>"
        f"<td class=num>{r.n}</td><td class=num>{r.passed}</td>"
        f"<td class=num>{r.failed}</td><td class=num>{r.inconclusive}</td>"
        f"<td class=num>{_num(r.rate)}</td><td class=num>{interval}</td><td>{bar}</td></tr>"
    )


def render(data: FleetReport) -> str:
    summary = data.summary
    rates = [r for r in summary.rates if r.deterministic]
    worst = sorted(
        (r for r in rates if r.rate is not None),
        key=lambda r: (r.rate or 0.0, r.assertion_id or ""),
    )
    agents = sorted({c[0] for c in data.cells})
    days = sorted({c[1] for c in data.cells})
    calls = summary.calls
    failing = "".join(
        f'<tr data-agent="{escape(f.agent)}" data-day="{escape(f.day)}">'
        f"<td>{escape(f.call_id)}</td><td>{escape(f.agent)}</td><td>{escape(f.day)}</td>"
        f"<td>{escape(f.assertion_id)}</td><td>{escape(f.reason or '')}</td></tr>"
        for f in data.failing
    )
    shown = len(data.failing)
    blob = msgspec.json.encode({"cells": data.cells}).decode().replace("<", "\\u003c")
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<meta name=viewport content='width=device-width,initial-scale=1'>",
        f"<title>hotato fleet report {escape(summary.run_id or '')}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>Fleet run <code>{escape(summary.run_id or '-')}</code></h1>",
        f"<p id=calls>{calls.calls} call(s): {calls.graded} graded, {calls.refused} refused.</p>",
        "<p class=note>Pass rate = pass / (pass + fail), with a Wilson 95% interval. "
        "INCONCLUSIVE is counted on its own, never as a pass or a fail.</p>",
        "<form><label>Agent <select id=agent><option value=''>all</option>",
        _options(agents),
        "</select></label><label>Day <select id=day><option value=''>all</option>",
        _options(days),
        "</select></label></form>",
        "<h2>Per assertion</h2><table id=rates><thead><tr><th>assertion</th><th>n</th>"
        "<th>pass</th><th>fail</th><th>inconclusive</th><th>rate</th><th>95% interval</th>"
        "<th></th></tr></thead><tbody>",
        "".join(_rate_row(r) for r in rates),
        "</tbody></table>",
        "<h2>Worst assertions</h2><ol id=worst>",
        "".join(
            f"<li>{escape(r.assertion_id or '')}: {_num(r.rate)} "
            f"({r.failed} fail of {r.passed + r.failed})</li>"
            for r in worst[:5]
        ),
        "</ol>",
        f"<h2>Failing calls</h2><p class=note>{data.failing_total} failing result(s)"
        + (f"; the {shown} most recent are listed" if shown < data.failing_total else "")
        + ".</p>",
        "<table id=failing><thead><tr><th>call</th><th>agent</th><th>day</th>"
        "<th>assertion</th><th>reason</th></tr></thead><tbody>",
        failing,
        "</tbody></table>",
        f'<script type="application/json" id="fleet-data">{blob}</script>',
        f"<script>{_SCRIPT}</script></body></html>\n",
    ]
    return "".join(parts)
