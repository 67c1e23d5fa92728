"""Which Dask scheduler address `fleet grade --scheduler` may use.

Dask sends tasks and their results pickled, and unpickles what the cluster answers, so whoever
can sit between hotato and a plaintext scheduler can run code in hotato's process. A scheduler
off this machine is reached over TLS (`tls://HOST:PORT`, with the certificates Dask's own
configuration names: `distributed.comm.tls.*`, for example DASK_DISTRIBUTED__COMM__TLS__CA_FILE,
..._CLIENT__CERT and ..._CLIENT__KEY); plaintext (`tcp://`, `ws://`, `ucx://`, a bare
HOST:PORT) only to loopback, unless `--allow-plaintext-scheduler` says the network between is
trusted. A malformed address is refused before Dask is asked.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from hotato._net import is_loopback
from hotato.model.errors import InputError

_ENCRYPTED = ("tls", "wss")
_PLAINTEXT = ("tcp", "ws", "ucx")


def check_scheduler(address: str, allow_plaintext: bool = False) -> str:
    """The address to give Dask (`tcp://` added to a bare HOST:PORT), or a refusal."""
    full = address if "://" in address else f"tcp://{address}"
    scheme = full.split("://", 1)[0].lower()
    if scheme not in _ENCRYPTED + _PLAINTEXT:
        raise InputError.one(
            f"--scheduler {address!r}: unknown scheme {scheme!r}; use tls://HOST:PORT "
            "(or tcp://127.0.0.1:PORT on this machine)"
        )
    try:
        parts = urlsplit(full)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        host, port = "", None
    if not host or port is None or parts.path not in ("", "/"):
        raise InputError.one(f"--scheduler {address!r} is not SCHEME://HOST:PORT")
    if scheme in _PLAINTEXT and not is_loopback(host) and not allow_plaintext:
        raise InputError.one(
            f"--scheduler {address!r} is plaintext to another machine: Dask unpickles what "
            "the cluster answers, so anyone on the network between could run code here. Use "
            "tls://HOST:PORT with Dask's TLS configuration (docs/scale.md), or pass "
            "--allow-plaintext-scheduler if that network is trusted"
        )
    if scheme in _ENCRYPTED:
        _check_tls(address)
    return full


def _check_tls(address: str) -> None:
    from distributed.security import Security

    try:
        context = Security().get_connection_args("client").get("ssl_context")
    except (OSError, ValueError) as exc:
        raise InputError.one(
            f"--scheduler {address!r}: Dask's TLS configuration cannot be used ({exc})"
        ) from None
    if context is None:
        raise InputError.one(
            f"--scheduler {address!r} needs Dask's TLS configuration: a CA, a client "
            "certificate and key (DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
            "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT, DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY, "
            "or a Dask config file; see docs/scale.md)"
        )
