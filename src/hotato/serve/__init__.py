"""`hotato serve`: a live receiver that grades calls as they end.

Vapi and Retell end-of-call webhooks, OTLP/HTTP spans from LiveKit and Pipecat, and native
calls are verified, spooled durably before they are acknowledged, graded once per call id in a
pool of processes, and written to the same Parquet results folder as `hotato fleet grade`.
The ASGI application runs under uvicorn (`hotato serve`) or any ASGI server:

    from hotato.serve import ServeConfig, app
    application = app(ServeConfig(out="results/", assertions="assertions.yaml"))
"""

from __future__ import annotations

from hotato.serve.asgi import app
from hotato.serve.config import ServeConfig

__all__ = ["ServeConfig", "app"]
