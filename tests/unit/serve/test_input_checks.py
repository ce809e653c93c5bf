"""The screens of `serve.input_checks`: depth, NUL and lone surrogates, without parsing."""

from __future__ import annotations

import json

import pytest

from serve.input_checks import MAX_JSON_DEPTH, json_problem, json_text_problem, text_problem


def nested(depth: int, *, inner: str = "1") -> bytes:
    text = inner
    for level in range(depth):
        text = f'{{"k": {text}}}' if level % 2 else f"[{text}]"
    return text.encode()


@pytest.mark.parametrize(
    "body",
    [
        b"{}",
        b'{"name": "Ada", "config": {"a": [1, 2, {"b": null}]}}',
        nested(MAX_JSON_DEPTH),
        # Brackets inside strings are not nesting, escaped quotes and backslashes included.
        json.dumps({"text": "[" * 5000 + "{" * 5000}).encode(),
        json.dumps({"text": '"' + "[" * 100, "more": '\\"' + "{" * 100 + "\\"}).encode(),
        # Wide and shallow: many brackets, little depth.
        json.dumps([{"a": [i]} for i in range(5000)]).encode(),
        # A surrogate pair (an emoji) is fine, escaped or not; so is an escaped backslash before `u`.
        b'{"name": "\\ud83d\\ude00 ok"}',
        '{"name": "\U0001f600"}'.encode(),
        b'{"name": "C:\\\\ud800\\\\u0000"}',
        b'{"name": "\\u00e9\\u0041"}',
        # Finite numbers, and the words NaN and Infinity inside strings.
        b'{"a": 1e300, "b": -2.5E-999, "c": "NaN", "d": "1e999", "e": 12345678901234567890}',
    ],
)
def test_acceptable_bodies_pass(body: bytes) -> None:
    assert json_problem(body) is None


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (nested(MAX_JSON_DEPTH + 1), "deeper than"),
        (nested(10_000), "deeper than"),
        # An escaped backslash ends the string: what follows is real nesting.
        (b'{"t": "x\\\\", "d": ' + nested(MAX_JSON_DEPTH) + b"}", "deeper than"),
        (b'{"t": "\\"]]]]", "d": ' + b"[{}," * 70 + b"1" + b"]" * 70 + b"}", "deeper than"),
        (b"[" * 10_000, "deeper than"),
        (b'{"name": "\\ud800x"}', "surrogate"),
        (b'{"name": "x\\udc00"}', "surrogate"),
        (b'{"name": "\\ud800\\u0041"}', "surrogate"),
        (b'{"name": "a\\u0000b"}', "NUL"),
        (b'{"\\u0000": 1}', "NUL"),
        (b'{"name": "\\\\\\ud800"}', "surrogate"),
        # A surrogate encoded as UTF-8 bytes (which `json.loads` of bytes would accept).
        (b'{"name": "\xed\xa0\x80"}', "UTF-8"),
        (b'{"name": "\xff"}', "UTF-8"),
        # Python's parser reads these, but no JSON reply can carry them.
        (b'{"x": NaN}', "NaN"),
        (b'{"x": [1, -Infinity]}', "Infinity"),
        (b'{"x": 1e999}', "too large"),
        (b'{"x": 1.5E+400}', "too large"),
        (b'{"x": 1' + b"0" * 400 + b".5}", "too large"),
    ],
)
def test_refused_bodies_say_why(body: bytes, words: str) -> None:
    problem = json_problem(body)
    assert problem is not None and words in problem, problem


def test_the_depth_limit_is_exact() -> None:
    for depth in (1, 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH):
        assert json_problem(nested(depth)) is None, depth
    assert json_problem(nested(MAX_JSON_DEPTH + 1)) is not None
    assert json_text_problem('{"a": [[[1]]]}', max_depth=4) is None
    assert json_text_problem('{"a": [[[1]]]}', max_depth=3) is not None


def test_a_megabyte_of_brackets_is_judged() -> None:
    """The worst cases for the pass-by-pass screen: very deep, and very wide but shallow."""
    assert json_problem(b"[" * 500_000 + b"]" * 500_000) is not None
    assert json_problem(json.dumps([[] for _ in range(150_000)]).encode()) is None


def test_text_problem() -> None:
    assert text_problem("Ada Lovelace", what="query") is None
    assert "NUL" in (text_problem("a\x00b", what="query") or "")
    assert "UTF-8" in (text_problem("a\ud800", what="query") or "")
