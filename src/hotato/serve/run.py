"""Serving the application with uvicorn: the configuration is checked (and the results folder
taken) before the socket opens, so a refused set-up never listens."""

from __future__ import annotations

import logging

from hotato.model.errors import InputError
from hotato.serve.config import ServeConfig


def serve(cfg: ServeConfig) -> None:
    try:
        import uvicorn
    except ImportError:
        raise InputError.one(
            "hotato serve needs the serve extra: pip install 'hotato[serve]'"
        ) from None
    from hotato.serve.asgi import app
    from hotato.serve.protocol import bounded_protocol

    application = app(cfg)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    uvicorn.run(
        application,
        host=cfg.host,
        port=cfg.port,
        log_level="info",
        access_log=False,  # one line per call at 200 calls/s is noise; /metrics counts them
        http=bounded_protocol(cfg.header_timeout),  # a request's headers within the timeout
        timeout_keep_alive=5,
        limit_concurrency=1000,
        h11_max_incomplete_event_size=64 * 1024,  # headers larger than this: refused
    )
