"""`hotato serve`: grade calls as they end (the receiver is hotato.serve)."""

from __future__ import annotations

import click

from hotato.cli._options import POLICIES


def _listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter("expected HOST:PORT, e.g. 127.0.0.1:8700", param_hint="--listen")
    return host.strip("[]") or "127.0.0.1", int(port)


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(value: str) -> float | None:
    """`--spool-keep`: 90s, 15m, 24h, 7d, a number of seconds, or `forever`."""
    if value == "forever":
        return None
    number, unit = (value[:-1], value[-1]) if value[-1:] in _UNITS else (value, "s")
    try:
        seconds = float(number) * _UNITS[unit]
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise click.BadParameter(
            f"{value!r}: expected a duration such as 90s, 15m, 24h or 7d, or forever",
            param_hint="--spool-keep",
        )
    return seconds


def _mapping(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for value in values:
        column, sep, path = value.partition("=")
        if not sep or not column.isidentifier() or not path or path == "attr:":
            raise click.BadParameter(
                f"{value!r}: expected COLUMN=PATH, e.g. order_id=message.call.metadata.order, "
                "or COLUMN=attr:NAME, e.g. order_id=attr:order.id",
                param_hint="--var",
            )
        out[column] = path
    return out


@click.command("serve")
@click.option("--assertions", metavar="FILE", help="The assertions every call is graded against.")
@click.option("--test", metavar="FILE", help="A conversation test (its deterministic assertions).")
@click.option(
    "--out",
    required=True,
    metavar="RESULTS/",
    help="The results folder (Parquet, as `fleet grade` writes) and the spool of received calls.",
)
@click.option("--pack", "packs", multiple=True, metavar="NAME", help="Merge a bundled pack.")
@click.option("--state", metavar="SOURCE", help="The system of record (read-only).")
@click.option("--state-before", metavar="FILE", help="A before snapshot for state_change.")
@click.option("--inconclusive-policy", type=click.Choice(POLICIES), default=None)
@click.option(
    "--listen",
    default="127.0.0.1:8700",
    show_default=True,
    metavar="HOST:PORT",
    help="Any address but loopback needs --token-env and a vendor secret.",
)
@click.option(
    "--token-env",
    metavar="NAME",
    help="Environment variable holding the bearer token for /calls, /v1/traces, the pages "
    "and /metrics.",
)
@click.option("--vapi-secret-env", metavar="NAME", help="Environment variable: Vapi's secret.")
@click.option("--retell-key-env", metavar="NAME", help="Environment variable: Retell API key.")
@click.option(
    "--var",
    "variables",
    multiple=True,
    metavar="COLUMN=PATH",
    help="${call.COLUMN} from a dotted path in a received JSON body, or attr:NAME for an "
    "OTLP call's span or resource attribute (repeatable).",
)
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
@click.option(
    "--grading-nice",
    type=click.IntRange(0, 19),
    default=5,
    show_default=True,
    help="Niceness of the grading processes: they yield the processor to the receiver.",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@click.option(
    "--max-pending",
    type=click.IntRange(min=1),
    default=5000,
    show_default=True,
    help="Calls waiting to be graded above which new calls get 503 with Retry-After.",
)
@click.option("--max-body-kib", type=click.IntRange(min=1), default=8192, show_default=True)
@click.option(
    "--body-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="A client still sending its body after this long gets 408.",
)
@click.option(
    "--header-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="A connection that has not sent a request's headers after this long is closed.",
)
@click.option(
    "--call-idle",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="An OTLP call with no span for this long is closed and graded.",
)
@click.option(
    "--spool-keep",
    default="24h",
    show_default=True,
    metavar="DURATION",
    help="How long a graded call's body stays in the spool (90s, 15m, 24h, 7d, or forever); "
    "a small mark per call id stays, so retries are still duplicates.",
)
@click.option("--alert", "alert_url", metavar="URL", help="POST a JSON alert here (Slack format).")
@click.option("--alert-on", multiple=True, metavar="ID", help="Alert when a call FAILs this id.")
@click.option(
    "--alert-rate",
    type=click.FloatRange(min=0, max=1, min_open=True),
    default=None,
    metavar="RATE",
    help="Alert when an assertion fails this share of the last --alert-window calls.",
)
@click.option("--alert-window", type=click.IntRange(min=1), default=100, show_default=True)
def serve_cmd(
    assertions: str | None,
    test: str | None,
    out: str,
    packs: tuple[str, ...],
    state: str | None,
    state_before: str | None,
    inconclusive_policy: str | None,
    listen: str,
    token_env: str | None,
    vapi_secret_env: str | None,
    retell_key_env: str | None,
    variables: tuple[str, ...],
    workers: int,
    grading_nice: int,
    batch_size: int,
    max_pending: int,
    max_body_kib: int,
    body_timeout: float,
    header_timeout: float,
    call_idle: float,
    spool_keep: str,
    alert_url: str | None,
    alert_on: tuple[str, ...],
    alert_rate: float | None,
    alert_window: int,
) -> None:
    """Receive calls as they end and grade them into --out.

    POST /vapi (end-of-call-report), /retell (call_ended, call_analyzed), /v1/traces (OTLP
    protobuf or JSON) and /calls (a native call). Every call is on disk before it is
    acknowledged and is graded once per call id; GET / and /calls/ID show the results,
    /metrics the Prometheus figures. See docs/serve.md.
    """
    from hotato.serve import ServeConfig
    from hotato.serve.run import serve

    host, port = _listen(listen)
    serve(
        ServeConfig(
            out=out,
            assertions=assertions,
            test=test,
            packs=packs,
            policy=inconclusive_policy,
            state=state,
            state_before=state_before,
            host=host,
            port=port,
            token_env=token_env,
            vapi_secret_env=vapi_secret_env,
            retell_key_env=retell_key_env,
            variables=_mapping(variables),
            workers=workers,
            grading_nice=grading_nice,
            batch_size=batch_size,
            max_pending=max_pending,
            max_body=max_body_kib * 1024,
            body_timeout=body_timeout,
            header_timeout=header_timeout,
            call_idle=call_idle,
            spool_keep=_duration(spool_keep),
            alert_url=alert_url,
            alert_on=alert_on,
            alert_rate=alert_rate,
            alert_window=alert_window,
        )
    )
