"""Running the click app with hotato's exit-code contract: 2 for refusals, 3 for bugs."""

from __future__ import annotations

from typing import Any, NamedTuple

import click

from hotato.model.status import ExitCode


class Exit(Exception):
    """Raised by commands to finish with a specific code after printing their output.

    `teardown=False`: the process may end without freeing what the command built. A command
    that holds a million spans until it has printed would otherwise spend most of a second
    freeing them one by one; only commands that leave nothing to clean up (no worker
    processes, no temporary files) ask for it, and `main` honours it only when the process is
    hotato itself (output is flushed first)."""

    def __init__(self, code: int, *, teardown: bool = True) -> None:
        self.code = code
        self.teardown = teardown


class Ended(NamedTuple):
    """How a command ended: its exit code, and whether the process must tear down."""

    code: int
    teardown: bool = True


def run_cli(cli: click.Group, argv: list[str] | None) -> int:
    """Run the command line in this process; its exit code."""
    return run_command(cli, argv).code


def run_command(cli: click.Group, argv: list[str] | None) -> Ended:
    try:
        return Ended(_code(cli, argv))
    except Exit as done:
        return Ended(done.code, done.teardown)


def _code(cli: click.Group, argv: list[str] | None) -> int:
    """The exit code; an Exit the command raises goes to run_command."""
    try:
        cli.main(args=argv, prog_name="hotato", standalone_mode=False)
    except Exit:
        raise
    except click.exceptions.Abort:
        click.echo("hotato: aborted", err=True)
        return ExitCode.REFUSED
    except click.ClickException as exc:
        import io

        shown = io.StringIO()  # click's message can name a file: shown made printable
        exc.show(file=shown)
        click.echo(_printable(shown.getvalue()), err=True, nl=False)
        return ExitCode.REFUSED
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except BrokenPipeError:
        return ExitCode.OK
    except KeyboardInterrupt:
        return 130
    except RecursionError:  # a parser met input nested deeper than it will follow
        click.echo(
            "hotato: refused:\n  an input is nested too deeply to read (JSON or YAML nested "
            "about a thousand levels or more); no real trace, transcript, test or manifest is",
            err=True,
        )
        return ExitCode.REFUSED
    except Exception as exc:
        # imported here, not at the top, so `--help` and `--version` never load msgspec
        from hotato.model.errors import InputError

        if isinstance(exc, InputError):
            click.echo(f"hotato: refused:\n{_indent(_shown(exc))}", err=True)
            return ExitCode.REFUSED
        # a bug: never exit 1, which would read as a FAIL
        crash = _one_line(f"{type(exc).__name__}: {exc}")
        click.echo(f"hotato: internal error: {crash}", err=True)
        if _debug():
            import traceback  # only for a crash, so start-up does not pay for it

            traceback.print_exc()
        else:
            click.echo("hotato: set HOTATO_DEBUG=1 for the traceback", err=True)
        return ExitCode.INTERNAL
    return ExitCode.OK


def _shown(exc: Any) -> str:
    """An InputError's problems as shown: control characters spelled out (a file name is
    data too), and the file each names kept to one line."""
    import msgspec

    if not exc.problems:
        return _printable(str(exc))
    return "\n".join(
        str(
            msgspec.structs.replace(
                p,
                file=_one_line(p.file) if p.file else p.file,
                message=_printable(p.message),
            )
        )
        for p in exc.problems
    )


def _printable(text: str) -> str:
    from hotato.report._printable import printable

    return printable(text)


def _one_line(text: str) -> str:
    from hotato.report._printable import one_line

    return one_line(text)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def _debug() -> bool:
    import os

    return os.environ.get("HOTATO_DEBUG", "") not in ("", "0")


__all__ = ["Ended", "Exit", "run_cli", "run_command"]
