"""Converting a big export on two cores: its second half in a forked child, the first here.

The child starts from the Emitter as it stands before any span is read; converting the second
half there gives exactly what converting it here would have, as long as the first half leaves
every piece of state a reader consults as it found it (no tool call left open for a later span
to close, nothing marked seen, no transfer target, ...). That is checked once the first half is
done. Then the child's spans, turns and counts are appended in its own order, its first-seen ids
count only where the first half found none, and the result is byte for byte the serial one.
Otherwise, or when the child failed for any reason (a malformed span, a killed process), the
second half is converted here after all: its refusal, if any, is the one the serial read gives.

Only a single-threaded process on a machine with more than one core forks (a fork copies one
thread only); the child never writes to stdout or stderr and leaves with `os._exit`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from hotato.evidence.ingest._collect import Collector, Part
from hotato.evidence.ingest._emit import Emitter

SERIAL_ENV = "HOTATO_SERIAL"  # set (to anything but empty or 0) to convert on one core
# The child numbers its places in source order from here, beyond any the first half can reach,
# so its spans and turns follow the first half's without being renumbered.
_CHILD_SEQ = 1 << 48


def can_fork() -> bool:
    """More than one core for this process, `os.fork`, one thread, and not turned off."""
    if os.environ.get(SERIAL_ENV, "") not in ("", "0") or not hasattr(os, "fork"):
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) > 1 and threading.active_count() == 1


@dataclass
class _Half:
    """What the child sends back: its Collector's arrays and the Emitter's snapshot."""

    col: Part
    emitter: dict[str, Any]


def in_two(em: Emitter, first: Callable[[], None], second: Callable[[], None]) -> None:
    """`first()` then `second()`, each converting into `em`, the second in a child when it can
    be (`can_fork`). The result is always the serial one; the caller flushes open tools."""
    if not can_fork():
        first()
        second()
        return
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
    reply = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
    try:
        before = em.consulted()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:  # no process to spare: one core it is
            first()
            second()
            return
        if pid == 0:
            _child(em, second, spool, reply, parent)
        finished: bool | None = None  # None until the child is reaped
        try:
            first()
            finished = _joined(pid)
        except BaseException:  # a refusal, or an interrupt while converting or waiting
            if finished is None:
                _stop(pid)
            raise
        if not (finished and em.consulted() == before and _absorb(em, reply, spool)):
            second()
    finally:
        spool.close()
        reply.close()


def _child(
    em: Emitter, second: Callable[[], None], spool: IO[bytes], reply: IO[bytes], parent: int
) -> None:
    code = 1
    try:
        _die_with(parent)
        em.begin_half(Collector(spool, first_seq=_CHILD_SEQ), _CHILD_SEQ)
        second()
        em.flush_tools()
        half = _Half(em.col.part(), em.snapshot())
        pickle.dump(half, reply, protocol=pickle.HIGHEST_PROTOCOL)
        reply.flush()
        code = 0
    except BaseException:  # the parent converts this half itself, and tells what is wrong
        pass
    finally:
        os._exit(code)


def _die_with(parent: int) -> None:
    """On Linux, have the kernel kill this child when the process that forked it ends (killed,
    say), so no orphan goes on converting for nobody."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # only in the child, only on Linux

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it ended before the request took effect
        os._exit(1)


_PR_SET_PDEATHSIG = 1  # prctl(2)


def _stop(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)


def _joined(pid: int) -> bool:
    """Wait for the child; True when it finished its half."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except OSError:
            return False
        return os.waitstatus_to_exitcode(status) == 0


def _absorb(em: Emitter, reply: IO[bytes], spool: IO[bytes]) -> bool:
    reply.seek(0)
    try:
        half = pickle.load(reply)  # written by our own child, into a private file
    except (EOFError, pickle.UnpicklingError):
        return False
    if not isinstance(half, _Half) or em.turn_seq >= _CHILD_SEQ:
        return False
    try:
        em.col.absorb(half.col, spool)
    except ValueError:  # the first half numbered past the child's start: not in a real file
        return False
    em.absorb(half.emitter)
    return True
