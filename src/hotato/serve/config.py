"""How a server is set up, and the checks that keep it safe by default: loopback unless told
otherwise, and on any other address the vendor secrets and a bearer token are required.
Secrets are named by environment variable and read here; they never reach a log or a page."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field

from hotato.model.errors import InputError


@dataclass(frozen=True)
class ServeConfig:
    out: str
    assertions: str | None = None
    test: str | None = None
    packs: tuple[str, ...] = ()
    policy: str | None = None
    state: str | None = None
    state_before: str | None = None
    host: str = "127.0.0.1"
    port: int = 8700
    token_env: str | None = None  # bearer token for /calls, /v1/traces, the pages, /metrics
    vapi_secret_env: str | None = None
    retell_key_env: str | None = None
    variables: dict[str, str] = field(default_factory=dict)  # COLUMN -> dotted path in the body
    workers: int = 2
    # how much the grading processes yield the processor to the receiver (os.nice): enough
    # that an acknowledgement never waits behind grading, little enough that grading is not
    # starved by whatever else runs on the machine
    grading_nice: int = 5
    batch_size: int = 32
    max_pending: int = 5000  # spooled and not yet graded: above it, 503 with Retry-After
    max_body: int = 8 << 20
    body_timeout: float = 30.0  # seconds a client may take to send its body
    header_timeout: float = 10.0  # seconds a connection may take to send a request's headers
    call_idle: float = 60.0  # seconds of OTLP quiet that close a call
    spool_keep: float | None = 86400.0  # seconds a graded call's body stays; None: forever
    alert_url: str | None = None
    alert_on: tuple[str, ...] = ()  # assertion ids whose FAIL is alerted on each call
    alert_rate: float | None = None  # a failure rate over the last `alert_window` calls
    alert_window: int = 100
    recent: int = 500  # calls the overview page and the rates keep in memory


@dataclass(frozen=True)
class Secrets:
    token: str | None
    vapi: str | None
    retell: str | None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _env(name: str | None, flag: str) -> str | None:
    if name is None:
        return None
    value = os.environ.get(name)
    if not value:
        raise InputError.one(f"{flag} names the environment variable {name}, which is not set")
    return value


def secrets(cfg: ServeConfig) -> Secrets:
    """The secrets the flags name; refuses to listen off loopback without them."""
    found = Secrets(
        _env(cfg.token_env, "--token-env"),
        _env(cfg.vapi_secret_env, "--vapi-secret-env"),
        _env(cfg.retell_key_env, "--retell-key-env"),
    )
    if not is_loopback(cfg.host):
        missing = []
        if found.token is None:
            missing.append("--token-env (the bearer token for /calls, /v1/traces and the pages)")
        if found.vapi is None and found.retell is None:
            missing.append("--vapi-secret-env or --retell-key-env (the webhooks' secrets)")
        if missing:
            raise InputError.one(
                f"refusing to listen on {cfg.host}, which is not loopback, without "
                + " and ".join(missing)
            )
    return found


def check(cfg: ServeConfig) -> None:
    if (cfg.assertions is None) == (cfg.test is None):
        raise InputError.one("give exactly one of --assertions FILE or --test FILE")
    numbers = {
        "--workers": cfg.workers,
        "--batch-size": cfg.batch_size,
        "--max-pending": cfg.max_pending,
        "--max-body-kib": cfg.max_body,
        "--body-timeout": cfg.body_timeout,
        "--header-timeout": cfg.header_timeout,
        "--call-idle": cfg.call_idle,
        "--alert-window": cfg.alert_window,
    }
    for flag, value in numbers.items():
        if value <= 0:
            raise InputError.one(f"{flag} must be above 0")
    if cfg.spool_keep is not None and cfg.spool_keep <= 0:
        raise InputError.one("--spool-keep must be above 0")
    if not 0 <= cfg.grading_nice <= 19:
        raise InputError.one("--grading-nice must be from 0 to 19")
    if cfg.alert_rate is not None and not 0 < cfg.alert_rate <= 1:
        raise InputError.one("--alert-rate must be above 0 and at most 1")
    if (cfg.alert_on or cfg.alert_rate is not None) and cfg.alert_url is None:
        raise InputError.one("--alert-on and --alert-rate need --alert URL")
    if cfg.alert_url is not None and not cfg.alert_url.startswith(("https://", "http://")):
        raise InputError.one("--alert must be an http(s) URL")
