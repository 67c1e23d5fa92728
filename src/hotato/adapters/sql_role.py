"""Whether configured queries may run as the role a SQL adapter connects as.

A configured query's text comes from a file. A read-only transaction stops writes to the
database's tables in this session; it does not stop what a privileged role reaches past it:
server files and programs, and, through `dblink`, another session of its own, which is not
read-only and commits whatever it is sent. So configured queries run only as a role that may
not, unless the adapter file says `allow_superuser: true`; and even then not as a superuser in a
database where `dblink` is installed, since a superuser's dblink needs no password and no
transaction of ours governs the session it opens. The database is asked; no query text is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hotato.adapters.sql_connect import SqlTarget

# What a role may do beyond reading: a superuser, or one that reads or writes server files or
# runs programs on the server.
_PRIVILEGED = {
    "postgresql": "SELECT rolsuper OR pg_has_role(current_user, 'pg_read_server_files', 'MEMBER')"
    " OR pg_has_role(current_user, 'pg_write_server_files', 'MEMBER')"
    " OR pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER')"
    " FROM pg_roles WHERE rolname = current_user",
    "mysql": "SELECT COUNT(*) > 0 FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = "
    "CONCAT('''', REPLACE(CURRENT_USER(), '@', '''@'''), '''') "
    "AND PRIVILEGE_TYPE IN ('SUPER', 'FILE')",
}
# A superuser in a database where dblink is installed: it can open a writable session.
_OTHER_SESSIONS = (
    "SELECT rolsuper AND EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'dblink') "
    "FROM pg_roles WHERE rolname = current_user"
)


def privilege_problem(conn: Any, target: SqlTarget) -> str | None:
    """Why configured queries must not run on this connection's role, or None."""
    import sqlalchemy as sa

    query = _PRIVILEGED.get(target.dialect)
    if query is None:
        return None
    if target.dialect == "postgresql" and conn.execute(sa.text(_OTHER_SESSIONS)).scalar():
        return (
            f"{target.label}: configured queries do not run as a superuser in a database where "
            "dblink is installed, even with allow_superuser: true; a superuser's dblink opens "
            "another session that no read-only transaction governs, and commits what it is "
            "sent. Connect as a role that may only SELECT the tables it reads (docs/state.md, "
            "The role the guarantee needs)"
        )
    if target.allow_superuser or not conn.execute(sa.text(query)).scalar():
        return None
    return (
        f"{target.label}: configured queries do not run as a superuser (or a role with server "
        "file, program or SUPER/FILE rights); connect as a role that may only SELECT the tables "
        "it reads, or set allow_superuser: true in the adapter file to accept the risk"
    )
