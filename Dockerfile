# A small image with the hotato CLI as its entry point:
#   docker build -t hotato .
#   docker run --rm -v "$PWD:/work" hotato test run tests/ --agent support-v3 --format markdown
# With extras (hotato serve needs `serve`): docker build --build-arg EXTRAS=serve -t hotato .
FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
ARG EXTRAS=
COPY --from=build /wheels /wheels
RUN wheel=$(ls /wheels/*.whl) && pip install --no-cache-dir "${wheel}${EXTRAS:+[$EXTRAS]}" \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 hotato
USER hotato
WORKDIR /work
ENTRYPOINT ["hotato"]
CMD ["--help"]
