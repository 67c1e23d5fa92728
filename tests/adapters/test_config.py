"""Adapter files: every problem named by line and JSON path, and no input ever a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotato.adapters import open_state
from hotato.adapters.sql_guard import parameters, select_problem
from hotato.model.errors import InputError

SCRATCH = Path(tempfile.mkdtemp(prefix="hotato-adapter-files-"))


def refusal(text: str, name: str = "adapter.yaml") -> str:
    path = SCRATCH / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        open_state(str(path))
    return str(exc.value)


def test_every_problem_is_named_with_its_line_and_path() -> None:
    shown = refusal("""adapter: http
base_url: https://api.example.com
egres_opt_in: true
timeout_s: 0
resources:
  orders:
    path: /orders/{order_id}
    methd: GET
  refunds:
    path: /refunds/{id}
    method: PUT
  items:
    path: /x
    body: {a: b}
""")
    assert (
        "adapter.yaml:3:15 $.egres_opt_in: unknown key `egres_opt_in` (did you mean "
        "`egress_opt_in`?)" in shown
    )
    assert "adapter.yaml:4:12 $.timeout_s: Expected `float` > 0.0" in shown
    assert (
        "adapter.yaml:8:12 $.resources.orders.methd: unknown key `methd` (did you mean "
        "`method`?)" in shown
    )
    assert "adapter.yaml:11:13 $.resources.refunds.method: Invalid enum value 'PUT'" in shown
    assert "adapter.yaml:14:11 $.resources.items.body: a body is sent with POST only" in shown


def test_sql_resources_need_one_table_or_one_select() -> None:
    shown = refusal("""adapter: sql
url: postgresql://app@db.example/shop
resources:
  a: {table: t, query: "SELECT 1"}
  b: {}
  c: {query: "DELETE FROM t"}
  d: [1]
  e: {query: "SELECT * FROM t WHERE id = :id; DROP TABLE t"}
""")
    assert ":4:6 $.resources.a: give exactly one of `table` or `query`" in shown
    assert ":5:6 $.resources.b: give exactly one of" in shown
    assert ":6:14 $.resources.c.query: a configured query must be a SELECT, not DELETE" in shown
    assert ":7:6 $.resources.d: Expected `object`, got `array`" in shown
    assert "$.resources.e.query: a configured query must be one statement" in shown


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("adapter: ftp\n", "`adapter` must be 'sql' or 'http'"),
        ("- 1\n", "a YAML state file is an adapter file"),
        ("orders: []\n", "a YAML state file is an adapter file"),
        ("adapter: sql\nurl: oracle://x/y\n", "unsupported database URL scheme 'oracle'"),
        ("adapter: sql\nurl: sqlite:///missing.db\n", "never created"),
        ("adapter: sql\nadapter: http\n", "duplicate key 'adapter'"),
        (
            "adapter: http\nbase_url: https://a.example\negress_opt_in: true\nresources: {}\n",
            "map at least one resource",
        ),
        (
            "adapter: http\nbase_url: https://a.example\negress_opt_in: true\n"
            "resources: {o: {path: '/o/{id!r}'}}\n",
            "path placeholders are {filter_name}",
        ),
        (
            "adapter: http\nbase_url: https://a.example\negress_opt_in: true\n"
            "resources: {o: {path: '/o/{id'}}\n",
            "path template",
        ),
        (
            "adapter: http\nbase_url: https://a.example\negress_opt_in: true\n"
            "resources: {o: {path: 'https://b.example/o'}}\n",
            "not a URL",
        ),
        (
            "adapter: http\nbase_url: https://a.example\negress_opt_in: true\n"
            "resources: {o: {path: /o, record: /a/~2}}\n",
            "JSON pointer",
        ),
        (
            "adapter: http\nbase_url: https://a.example\negress_opt_in: true\n"
            "auth: {type: basic, password_env: X}\nresources: {o: {path: /o}}\n",
            "exactly one of `username` or `username_env`",
        ),
    ],
)
def test_refusals(text: str, message: str) -> None:
    assert message in refusal(text)


def test_a_json_adapter_file_is_read_too() -> None:
    shown = refusal(
        json.dumps(
            {"adapter": "http", "base_url": "https://a.example", "resources": {"o": {"path": "/o"}}}
        ),
        "adapter.json",
    )
    assert "adapter.json" in shown and "egress_opt_in: true" in shown


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM t WHERE id = :id",
        "select status from t where id = :id;",
        "WITH x AS (SELECT * FROM t) SELECT * FROM x WHERE a = :a",
        "SELECT 'delete; update' AS words FROM t",
        "SELECT a::int FROM t WHERE b = :b -- a comment; with a semicolon",
        "(SELECT 1) UNION (SELECT 2)",
        "SELECT last_update, created_at FROM t",
    ],
)
def test_selects_are_accepted(query: str) -> None:
    assert select_problem(query) is None


@pytest.mark.parametrize(
    "query",
    [
        "UPDATE t SET a = 1",
        "DELETE FROM t",
        "INSERT INTO t VALUES (1)",
        "DROP TABLE t",
        "SELECT 1; SELECT 2",
        "SELECT 1; DELETE FROM t",
        "SELECT * INTO t2 FROM t",
        "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
        "SELECT * FROM t FOR UPDATE",
        "SELECT * FROM t FOR SHARE",
        "SELECT 'a\\'; DELETE FROM t; --'",
        "SELECT $$x$$",
        "SELECT 1 /*! INTO OUTFILE '/tmp/x' */",
        "SELECT 'unterminated",
        "CALL p()",
        "",
        "SELECT 1 --x INTO OUTFILE 'f'\n",
        "LOCK TABLE t",
        "SET x = 1",
        "COPY t TO '/tmp/x'",
    ],
)
def test_anything_else_is_refused(query: str) -> None:
    assert select_problem(query) is not None


def test_parameters_are_the_colon_names_outside_literals_and_casts() -> None:
    sql = "SELECT a::text, ':nope' FROM t WHERE b = :b AND c = :c_1 OR d = :b -- :e"
    assert parameters(sql) == ["b", "c_1"]


# -- never a traceback ------------------------------------------------------------------------

WORDS = [
    "adapter",
    "url",
    "resources",
    "table",
    "query",
    "base_url",
    "egress_opt_in",
    "allow_http",
    "auth",
    "type",
    "token_env",
    "path",
    "method",
    "record",
    "body",
    "headers",
    "timeout_s",
    "retries",
    "password_env",
    "version",
    "username",
    "value_env",
    "name",
    "_meta",
    "before",
    "after",
]
VALUES = [
    "sql",
    "http",
    "bearer",
    "basic",
    "header",
    "GET",
    "POST",
    "https://a.example/v1",
    "http://127.0.0.1:9",
    "postgresql://u@h/db",
    "mysql://u:p@h/db",
    "sqlite:///x.db",
    "SELECT * FROM t WHERE id = :id",
    "DELETE FROM t",
    "/o/{id}",
    "/o/{",
    "data.x",
    "/a/~",
    "HOME",
    "X-Key",
    "Authorization",
    "",
    "\x00",
    "{",
    "02139",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.sampled_from(VALUES),
    st.text(max_size=12),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(WORDS), st.text(max_size=6)), inner, max_size=6),
    ),
    max_leaves=30,
)
small = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(WORDS), inner, max_size=4)
    ),
    max_leaves=8,
)
adapters = st.fixed_dictionaries(
    {"adapter": st.sampled_from(["sql", "http", "x"])},
    optional={w: small for w in WORDS if w != "adapter"},
)


def outcome(data: bytes, name: str) -> None:
    path = SCRATCH / name
    path.write_bytes(data)
    try:
        open_state(str(path)).close()
    except InputError as exc:
        assert str(exc)  # a refusal that says something


FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.text(max_size=300), st.sampled_from(["a.yaml", "a.json", "a.state"]))
def test_any_text_is_a_state_source_or_a_refusal(text: str, name: str) -> None:
    outcome(text.encode("utf-8", "surrogatepass"), name)


@FAST
@given(st.binary(max_size=200))
def test_any_bytes_are_a_state_source_or_a_refusal(data: bytes) -> None:
    outcome(data, "a.bin")


@FAST
@given(adapters, st.booleans())
def test_any_adapter_shaped_document_is_an_adapter_or_a_refusal(
    doc: dict[str, Any], as_json: bool
) -> None:
    if as_json:
        outcome(json.dumps(doc).encode(), "a.json")
    else:
        outcome(yaml.dump(doc, Dumper=yaml.CSafeDumper).encode(), "a.yaml")


@FAST
@given(documents)
def test_any_json_document_is_a_sandbox_or_a_refusal(doc: Any) -> None:
    outcome(json.dumps(doc).encode(), "s.json")


resource_values = st.one_of(st.text(max_size=40), st.sampled_from(VALUES), scalars)


@FAST
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.fixed_dictionaries(
            {},
            optional={
                "path": resource_values,
                "record": resource_values,
                "method": resource_values,
                "query": small,
                "body": small,
            },
        ),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from(["https://api.example.com/v1", "http://127.0.0.1:9"]),
)
def test_any_http_resource_map_is_an_adapter_or_a_refusal(
    resources: dict[str, Any], base_url: str
) -> None:
    doc = {
        "adapter": "http",
        "base_url": base_url,
        "egress_opt_in": True,
        "allow_http": True,
        "resources": resources,
    }
    outcome(json.dumps(doc).encode(), "h.json")


@FAST
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.fixed_dictionaries({}, optional={"table": resource_values, "query": resource_values}),
        min_size=1,
        max_size=3,
    )
)
def test_any_sql_resource_map_is_an_adapter_or_a_refusal(resources: dict[str, Any]) -> None:
    doc = {"adapter": "sql", "url": "postgresql://app@db.example/shop", "resources": resources}
    outcome(json.dumps(doc).encode(), "q.json")


@FAST
@given(st.text(max_size=200))
def test_the_select_check_never_fails_on_any_text(sql: str) -> None:
    assert select_problem(sql) is None or isinstance(select_problem(sql), str)
    assert all(isinstance(p, str) for p in parameters(sql))
