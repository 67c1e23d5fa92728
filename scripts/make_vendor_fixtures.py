"""Regenerate the vendor fixtures in tests/ingest/data/vendors/ by running the vendors' own code.

    pip install -e '.[fixtures]'          # livekit-agents 1.8.x, pipecat-ai 1.14.x
    # (pipecat-ai 1.14 needs protobuf<7: give it a virtualenv without constraints.txt)
    python scripts/make_vendor_fixtures.py [livekit] [pipecat] [pipecat-realtime]

    # Vapi and Retell bodies from their SDK models (pins that conflict with the test extra's):
    python -m venv /tmp/fixenv
    /tmp/fixenv/bin/pip install 'vapi-server-sdk==1.4.*' 'retell-sdk==4.40.*'
    /tmp/fixenv/bin/python scripts/make_vendor_fixtures.py vapi-retell

    # an OpenAI agent under OpenTelemetry's own GenAI instrumentation (openai-v2):
    python -m venv /tmp/fixenv-otel
    /tmp/fixenv-otel/bin/pip install 'opentelemetry-instrumentation-openai-v2==2.4b0' \
        'opentelemetry-util-genai==1.1b0' openai httpx opentelemetry-sdk \
        opentelemetry-exporter-otlp-proto-common
    /tmp/fixenv-otel/bin/python scripts/make_vendor_fixtures.py openai-genai

Each stack runs one scripted call in process with fakes written here for its LLM, STT and TTS
(no network, no keys) and its real telemetry: the OpenTelemetry SDK exporting what the stack's
own tracing records. The files are committed, so the test suite does not need these packages.
Vapi and Retell have no runnable agent: their bodies are built by the vendors' SDK models
(`vapi-retell`), and every Vapi and Retell fixture is checked against the SDK types by
tests/ingest/test_vendor_types.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "ingest" / "data" / "vendors"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "scripts"))
    wanted = argv or ["livekit", "pipecat", "pipecat-realtime"]
    OUT.mkdir(parents=True, exist_ok=True)
    for stack in wanted:
        if stack == "livekit":
            from vendor_fixtures import livekit_call as module
        elif stack == "pipecat":
            from vendor_fixtures import pipecat_call as module  # type: ignore[no-redef]
        elif stack == "pipecat-realtime":
            from vendor_fixtures import pipecat_realtime_call as module  # type: ignore[no-redef]
        elif stack == "vapi-retell":
            from vendor_fixtures import vapi_retell_payloads as module  # type: ignore[no-redef]
        elif stack == "openai-genai":
            from vendor_fixtures import openai_genai_call as module  # type: ignore[no-redef]
        else:
            expected = "livekit, pipecat, pipecat-realtime, vapi-retell or openai-genai"
            print(f"unknown stack {stack!r}: expected {expected}", file=sys.stderr)
            return 2
        for path in module.generate(OUT):
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
