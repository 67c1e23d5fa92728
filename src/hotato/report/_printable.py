"""Text from evidence made safe to show: control characters never reach a terminal raw, and
never make XML that does not parse. One rule for every renderer."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls; and what XML 1.0 cannot hold at all.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` with each control character spelled as a visible escape (\\x1b, \\u0085)."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """`printable(text)` with newlines and tabs spelled too: a cell or a name that cannot
    break a table, start a line of its own or move the cursor."""
    return printable(text).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
