"""`hotato schema NAME`: a JSON Schema generated from hotato's own types."""

from __future__ import annotations

import click

from hotato.runs.schema import NAMES


@click.command("schema")
@click.argument("name", type=click.Choice(NAMES), metavar="NAME")
def schema_cmd(name: str) -> None:
    """Print the JSON Schema (draft 2020-12) for NAME.

    \b
    assertions         an assertions file (assert.v1)
    conversation-test  a conversation test (hotato.conversation-test v1)
    result             what `assert run` / `test run --format json` print
    artifact           an artifact's manifest, conversation.json
    state-adapter      a state adapter file (`adapter: sql`, `adapter: http`, or a plug-in's)

    The schema is generated from the types hotato decodes with, so it cannot drift. Point
    your editor's YAML language server at it, first line of the file:

    \b
      # yaml-language-server: $schema=./hotato-assertions.schema.json

    \b
    Example:
      hotato schema assertions > hotato-assertions.schema.json
    """
    from hotato.report.json_out import dumps
    from hotato.runs.schema import json_schema

    click.echo(dumps(json_schema(name)), nl=False)
