"""The SELECT-only check for configured queries, and their `:name` parameters.

The database's read-only session is the guarantee; this check refuses a configured query that
is not one SELECT before anything connects, with the adapter file's line in the message.
"""

from __future__ import annotations

import re

# Literals and comments are blanked before looking at keywords, so a string may say "delete".
_BLANK = re.compile(
    r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|--(?=\s|$)[^\n]*|/\*(?!!).*?\*/""",
    re.DOTALL | re.MULTILINE,
)
_PARAM = re.compile(r"(?<![:\w\\]):(\w+)(?!:)")  # SQLAlchemy text() bind syntax; `::int` is a cast
_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|UPSERT|INTO)\b", re.IGNORECASE)
_LOCKS = re.compile(r"\bFOR\s+(NO\s+KEY\s+)?(UPDATE|SHARE|KEY\s+SHARE)\b|\bLOCK\b", re.IGNORECASE)
_DOLLAR = re.compile(r"\$\w*\$")
# Functions whose effect a READ ONLY transaction does not stop, matched by name wherever called
# (schema-qualified or quoted too). Session settings are undone by the rollback that ends every
# configured read, and waits are bounded by the statement timeout, so neither is listed.
_SIDE_EFFECTS = frozenset(
    (
        # other connections (dblink)
        "dblink",
        "dblink_exec",
        "dblink_connect",
        "dblink_connect_u",
        "dblink_send_query",
        "dblink_open",
        "dblink_fetch",
        "dblink_close",
        "dblink_disconnect",
        "dblink_get_result",
        "dblink_cancel_query",
        # server files and large objects
        "pg_file_write",
        "pg_file_rename",
        "pg_file_unlink",
        "pg_file_sync",
        "pg_logdir_ls",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_stat_file",
        "pg_ls_logdir",
        "pg_ls_waldir",
        "pg_ls_tmpdir",
        "pg_ls_archive_statusdir",
        "lo_import",
        "lo_export",
        "lo_from_bytea",
        "lo_put",
        "lo_create",
        "lo_creat",
        "lo_unlink",
        "lo_open",
        "lowrite",
        "lo_truncate",
        "lo_truncate64",
        "load_file",
        # other sessions, the server, replication and statistics
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_switch_wal",
        "pg_promote",
        "pg_create_restore_point",
        "pg_start_backup",
        "pg_stop_backup",
        "pg_backup_start",
        "pg_backup_stop",
        "pg_create_physical_replication_slot",
        "pg_create_logical_replication_slot",
        "pg_drop_replication_slot",
        "pg_copy_physical_replication_slot",
        "pg_copy_logical_replication_slot",
        "pg_logical_emit_message",
        "pg_notify",
        "pg_stat_reset",
        "pg_stat_reset_shared",
        "pg_stat_reset_single_table_counters",
        "pg_stat_reset_single_function_counters",
        "pg_stat_reset_slru",
        "pg_stat_reset_replication_slot",
        "pg_import_system_collations",
        "master_pos_wait",
        "source_pos_wait",
        "master_gtid_wait",
        "sys_exec",
        "sys_eval",
        # session locks and sequences
        "pg_advisory_lock",
        "pg_advisory_lock_shared",
        "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared",
        "pg_advisory_xact_lock",
        "pg_advisory_xact_lock_shared",
        "pg_try_advisory_xact_lock",
        "pg_try_advisory_xact_lock_shared",
        "pg_advisory_unlock",
        "pg_advisory_unlock_shared",
        "pg_advisory_unlock_all",
        "nextval",
        "setval",
        "lastval",
        "get_lock",
        "release_lock",
        "release_all_locks",
        # SQL run from text
        "query_to_xml",
        "query_to_xmlschema",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "cursor_to_xmlschema",
        "ts_stat",
    )
)
_CALL = re.compile(r"(\w+)\s*\(")
_STRINGS_AND_COMMENTS = re.compile(
    r"""'(?:[^']|'')*'|--(?=\s|$)[^\n]*|/\*(?!!).*?\*/""", re.DOTALL | re.MULTILINE
)
_QUOTED_NAME = re.compile(r'"((?:[^"]|"")*)"|`((?:[^`]|``)*)`')

_FIRST = re.compile(r"^[\s(]*(\w+)", re.IGNORECASE)


def select_problem(sql: str) -> str | None:
    """Why `sql` is not a single read-only SELECT, or None when it is one."""
    if "\\" in sql:
        return "a configured query may not contain backslashes (string escapes differ by database)"
    if "/*!" in sql:
        return "a configured query may not use MySQL executable comments (/*! ... */)"
    if _DOLLAR.search(sql):
        return "a configured query may not use dollar-quoted strings"
    bare = _BLANK.sub(" ", sql)
    if "'" in bare or '"' in bare or "`" in bare or "/*" in bare:
        return "a configured query has an unterminated quote or comment"
    bare = bare.strip()
    if bare.endswith(";"):
        bare = bare[:-1].rstrip()
    if ";" in bare:
        return "a configured query must be one statement (no ';' between statements)"
    first = _FIRST.match(bare)
    if first is None or first.group(1).upper() not in ("SELECT", "WITH"):
        word = first.group(1).upper() if first else "nothing"
        return f"a configured query must be a SELECT, not {word}"
    write = _WRITES.search(bare)
    if write:
        return f"a configured query must only read: it contains {write.group(1).upper()}"
    if _LOCKS.search(bare):
        return "a configured query must not lock rows (FOR UPDATE / FOR SHARE / LOCK)"
    called = side_effect_calls(sql)
    if called:
        return (
            f"a configured query may not call {', '.join(called)}: its effect (on files, other "
            "connections, sessions, locks or sequences) is not stopped by a read-only transaction"
        )
    return None


def side_effect_calls(sql: str) -> list[str]:
    """Known side-effecting functions `sql` calls, by lower-case name. String literals and
    comments are set aside; quoted identifiers are read as the names they are."""
    code = _STRINGS_AND_COMMENTS.sub(" ", sql)
    code = _QUOTED_NAME.sub(lambda m: (m.group(1) or m.group(2) or "").replace(" ", "_"), code)
    return sorted({n.lower() for n in _CALL.findall(code) if n.lower() in _SIDE_EFFECTS})


def parameters(sql: str) -> list[str]:
    """The `:name` parameters of a configured query, in first-use order."""
    seen: list[str] = []
    for name in _PARAM.findall(_BLANK.sub(" ", sql)):
        if name not in seen:
            seen.append(name)
    return seen
