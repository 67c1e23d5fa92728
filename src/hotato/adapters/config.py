"""Adapter files (YAML or JSON): a `sql` or `http` system of record and its resource map.

Decoded with msgspec into typed structs; every problem in the file is collected and named by
line and JSON path before anything connects.
"""

from __future__ import annotations

import difflib
import os
import re
import string
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from hotato._documents import Document
from hotato._net import is_loopback
from hotato._secrets import value_problem
from hotato.adapters.registry import ADAPTERS, StateAdapter
from hotato.adapters.sql_connect import SqlTarget, sql_target
from hotato.adapters.sql_guard import select_problem
from hotato.model.errors import InputError, Problem

Timeout = Annotated[float, msgspec.Meta(gt=0, le=300)]


class SqlResourceSpec(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A table (filters are column equalities) or one parameterized SELECT (`:name`)."""

    table: str | None = None
    query: str | None = None


class SqlAdapterFile(msgspec.Struct, tag_field="adapter", tag="sql", forbid_unknown_fields=True):
    url: str
    version: Literal[1] = 1
    password_env: str | None = None
    timeout_s: Timeout = 5.0
    resources: dict[str, Any] | None = None  # None: every table is a resource
    allow_superuser: bool = False


class BearerAuth(msgspec.Struct, tag_field="type", tag="bearer", forbid_unknown_fields=True):
    token_env: str


class BasicAuth(msgspec.Struct, tag_field="type", tag="basic", forbid_unknown_fields=True):
    password_env: str
    username: str | None = None
    username_env: str | None = None


class HeaderAuth(msgspec.Struct, tag_field="type", tag="header", forbid_unknown_fields=True):
    name: str
    value_env: str


class HttpResourceSpec(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """`path` is a template filled from filters; `query`/`body` map API names to filter names;
    `record` points at the record in the response (dotted path or JSON pointer)."""

    path: str
    method: Literal["GET", "POST"] = "GET"
    query: dict[str, str] = {}
    body: dict[str, str] = {}
    record: str = ""


class HttpAdapterFile(msgspec.Struct, tag_field="adapter", tag="http", forbid_unknown_fields=True):
    base_url: str
    resources: dict[str, Any]
    egress_opt_in: bool = False
    allow_http: bool = False
    version: Literal[1] = 1
    timeout_s: Timeout = 5.0
    retries: Annotated[int, msgspec.Meta(ge=0, le=5)] = 2
    auth: BearerAuth | BasicAuth | HeaderAuth | None = None
    headers: dict[str, str] = {}


@dataclass(frozen=True)
class SqlConfig:
    target: SqlTarget
    resources: dict[str, SqlResourceSpec] | None


@dataclass(frozen=True)
class Credentials:
    """Read from the environment when the file is opened; never shown (no repr)."""

    headers: dict[str, str] = field(default_factory=dict, repr=False)
    basic: tuple[str, str] | None = field(default=None, repr=False)

    def secrets(self) -> list[str]:
        return [*self.headers.values(), *(self.basic or ())]


@dataclass(frozen=True)
class HttpConfig:
    file: str
    spec: HttpAdapterFile
    resources: dict[str, HttpResourceSpec]
    credentials: Credentials = field(default_factory=Credentials, repr=False)


def decode_adapter(doc: Document) -> Any:
    """The typed configuration of the adapter the file names, or InputError listing every
    problem in the file."""
    problems: list[Problem] = []
    value = doc.value
    if not isinstance(value, dict):
        raise InputError([doc.problem("$", "a state adapter file must be a mapping")])
    name = value.get("adapter")
    if not isinstance(name, str) or name not in ADAPTERS:
        names = " or ".join(repr(n) for n in ADAPTERS.names())
        raise InputError([doc.problem("$.adapter", f"`adapter` must be {names}")])
    adapter = ADAPTERS[name]
    top = _convert(value, adapter.file, "$", doc, problems)
    raw = value.get("resources")
    resources = _resources(raw, doc, problems, adapter) if isinstance(raw, dict) else None
    config = None if top is None else adapter.configure(top, resources, doc, problems)
    if problems or config is None:
        raise InputError(problems)
    return config


def _resources(
    raw: dict[str, Any], doc: Document, problems: list[Problem], adapter: StateAdapter
) -> dict[str, Any]:
    """Each resource decoded on its own, so a problem is named by the resource's path."""
    out: dict[str, Any] = {}
    for name, value in raw.items():
        where = f"$.resources.{name}"
        spec = _convert(value, adapter.resource, where, doc, problems)
        if spec is None:
            continue
        bad = [(where + suffix, why) for suffix, why in adapter.resource_problems(spec) if why]
        problems.extend(doc.problem(p, why) for p, why in bad)
        if not bad:
            out[name] = spec
    return out


def sql_resource_problems(spec: SqlResourceSpec) -> list[tuple[str, str | None]]:
    if (spec.table is None) == (spec.query is None):
        return [("", "give exactly one of `table` or `query`")]
    if spec.query is not None:
        return [(".query", select_problem(spec.query))]
    return [(".table", None if (spec.table or "").strip() else "`table` is empty")]


def http_resource_problems(spec: HttpResourceSpec) -> list[tuple[str, str | None]]:
    return [
        (".path", path_problem(spec.path)),
        (".record", pointer_problem(spec.record)),
        (".body", "a body is sent with POST only" if spec.body and spec.method != "POST" else None),
    ]


def sql_config(
    top: SqlAdapterFile,
    resources: dict[str, SqlResourceSpec] | None,
    doc: Document,
    problems: list[Problem],
) -> SqlConfig | None:
    try:
        target = sql_target(
            top.url,
            password_env=top.password_env,
            base_dir=Path(doc.file).parent,
            timeout_s=top.timeout_s,
            allow_superuser=top.allow_superuser,
        )
    except InputError as exc:
        at = "$.password_env" if "password_env" in str(exc) else "$.url"
        problems.extend(doc.problem(at, p.message) for p in exc.problems)
        return None
    return SqlConfig(target, resources)


def http_config(
    top: HttpAdapterFile,
    resources: dict[str, HttpResourceSpec] | None,
    doc: Document,
    problems: list[Problem],
) -> HttpConfig:
    if top.egress_opt_in is not True:
        problems.append(
            doc.problem(
                "$.egress_opt_in",
                "an HTTP state adapter sends requests off this machine; "
                "set `egress_opt_in: true` to allow it",
            )
        )
    if why := base_url_problem(top.base_url, top.allow_http):
        problems.append(doc.problem("$.base_url", why))
    for name, header in top.headers.items():
        if name.lower() in ("authorization", "cookie", "proxy-authorization"):
            problems.append(
                doc.problem(
                    f"$.headers.{name}",
                    f"{name} carries a credential: use `auth` with an environment variable name",
                )
            )
        elif not _HEADER.fullmatch(name) or not _HEADER_VALUE.fullmatch(header):
            problems.append(
                doc.problem(f"$.headers.{name}", "not a valid HTTP header (one line of ASCII)")
            )
    if isinstance(top.auth, HeaderAuth) and not _HEADER.fullmatch(top.auth.name):
        problems.append(doc.problem("$.auth.name", "not a valid HTTP header name"))
    if isinstance(top.auth, BasicAuth) and (top.auth.username is None) == (
        top.auth.username_env is None
    ):
        problems.append(doc.problem("$.auth", "give exactly one of `username` or `username_env`"))
    if not top.resources:
        problems.append(doc.problem("$.resources", "map at least one resource"))
    return HttpConfig(doc.file, top, resources or {}, _credentials(top.auth, doc, problems))


def _credentials(
    auth: BearerAuth | BasicAuth | HeaderAuth | None, doc: Document, problems: list[Problem]
) -> Credentials:
    """Auth headers, or a basic-auth pair, from the environment variables the file names."""

    def env(name: str | None, key: str) -> str:
        value = os.environ.get(name or "")
        if value is None:
            problems.append(
                doc.problem(f"$.auth.{key}", f"environment variable {name} ({key}) is not set")
            )
        elif why := value_problem(str(name), value):
            problems.append(doc.problem(f"$.auth.{key}", why))
            return ""
        return value or ""

    if isinstance(auth, BearerAuth):
        return Credentials({"Authorization": f"Bearer {env(auth.token_env, 'token_env')}"})
    if isinstance(auth, HeaderAuth):
        return Credentials({auth.name: env(auth.value_env, "value_env")})
    if isinstance(auth, BasicAuth):
        user = auth.username
        if user is None:
            user = env(auth.username_env, "username_env")
        return Credentials(basic=(user, env(auth.password_env, "password_env")))
    return Credentials()


_HEADER = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"[\x20-\x7e\t]*")


def base_url_problem(url: str, allow_http: bool) -> str | None:
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
        _ = parts.port
    except ValueError:
        return "not a URL"
    if parts.scheme not in ("https", "http") or not host:
        return "base_url must be an https:// URL"
    if parts.username is not None or parts.password is not None:
        return "base_url must not carry credentials: use `auth` with environment variable names"
    if parts.fragment:
        return "base_url must not have a #fragment"
    if parts.query or url.rstrip().endswith("?"):
        return (
            "base_url must not have a ?query (it would be sent with, and mangle, every request; "
            "a credential there would be shown): map query parameters in a resource's `query`, "
            "credentials in `auth`"
        )
    if parts.scheme == "http":
        if not allow_http:
            return "base_url must be https:// (plain http is allowed for loopback with allow_http)"
        if not is_loopback(host):
            return "plain http is allowed only for a loopback host (localhost, 127.0.0.1, ::1)"
    return None


def path_problem(template: str) -> str | None:
    if "://" in template or template.startswith("//"):
        return "path is a path under base_url, not a URL"
    if "?" in template or "#" in template:
        return "put query parameters in `query`, not in the path"
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"path template: {exc}"
    for _, name, spec, conversion in fields:
        if name is not None and (not name.isidentifier() or spec or conversion):
            return f"path placeholders are {{filter_name}}, not {{{name}}}"
    return None


def pointer_problem(pointer: str) -> str | None:
    if pointer.startswith("/") and re.search(r"~(?![01])", pointer):
        return "a JSON pointer escapes '~' as ~0 and '/' as ~1"
    return None


def path_fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _convert(
    value: Any, kind: type[Any], where: str, doc: Document, problems: list[Problem]
) -> Any:
    """`value` as `kind`, or None with every problem found: a key at fault is set aside and
    the rest decoded again, so one pass over the file shows them all."""
    current, failed = value, False
    for _ in range(64):
        try:
            result = msgspec.convert(current, kind)
        except msgspec.ValidationError as exc:
            path, message = _locate_error(str(exc), where)
            problems.append(doc.problem(path, _hint(message, kind, path, where)))
            failed = True
            key = path[len(where) :].lstrip(".").split(".")[0].split("[")[0]
            if not isinstance(current, dict) or key not in current or key in ("adapter", "type"):
                return None
            current = {k: v for k, v in current.items() if k != key}
            continue
        return None if failed else result
    return None


def _locate_error(text: str, where: str) -> tuple[str, str]:
    message, _, at = text.partition(" - at `")
    at = at.rstrip("`")
    if at.startswith("$"):
        path = where + at[1:]
    elif at:  # "`key` in `$.x`": a mapping key that is not a string
        path, message = where + at.split("in `", 1)[-1][1:], "mapping keys must be strings"
    else:
        path = where
    unknown = re.match(r"Object contains unknown field `(.+)`", message)
    if unknown:
        path = f"{path}.{unknown.group(1)}"
    return path, message


def _hint(message: str, kind: type[Any], path: str, where: str) -> str:
    unknown = re.match(r"Object contains unknown field `(.+)`", message)
    if not unknown:
        return message.replace("Object missing required field", "missing required field")
    targets: list[Any] = [kind]
    for step in path[len(where) :].strip(".").split(".")[:-1]:  # the last step is the unknown key
        if step:
            targets = [t for s in targets for t in _field_structs(s, step)]
    names = [f.encode_name for t in targets for f in msgspec.structs.fields(t)]
    close = difflib.get_close_matches(unknown.group(1), names, n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    return f"unknown key `{unknown.group(1)}`{hint}"


def _field_structs(struct: Any, name: str) -> list[Any]:
    """The struct types field `name` of `struct` may hold (several for a union)."""
    for f in msgspec.structs.fields(struct):
        if f.encode_name == name:
            return [t for t in (f.type, *getattr(f.type, "__args__", ())) if _is_struct(t)]
    return []


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)
