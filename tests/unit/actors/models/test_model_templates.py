import pytest

from actors.models.templates import TemplateContext, render

pytestmark = pytest.mark.unit

RESULT = {
    "name": "Ada",
    "count": 3,
    "ratio": 0.5,
    "ok": True,
    "none": None,
    "nested": {"a": {"b": "deep"}},
    "items": [{"id": "x1"}, {"id": "x2"}],
    "tags": ["red", "blue"],
}
CTX = TemplateContext(query="find Ada", last_user_message="yes please", last_tool_result=RESULT)


def test_query_and_last_user_message_are_substituted_inside_text() -> None:
    assert render("Q: {{query}} / U: {{last_user_message}}", CTX) == "Q: find Ada / U: yes please"


def test_spaces_inside_braces_are_allowed() -> None:
    assert render("{{ query }}", CTX) == "find Ada"


def test_last_tool_result_is_json_text_even_when_alone() -> None:
    rendered = render("{{last_tool_result}}", CTX)
    assert isinstance(rendered, str)
    assert rendered.startswith('{"name": "Ada"')


def test_last_tool_result_of_a_string_output_is_its_json_text() -> None:
    ctx = TemplateContext(last_tool_result="plain")
    assert render("{{last_tool_result}}", ctx) == '"plain"'


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{last_tool_result.count}}", 3),
        ("{{last_tool_result.ratio}}", 0.5),
        ("{{last_tool_result.ok}}", True),
        ("{{last_tool_result.none}}", None),
        ("{{last_tool_result.name}}", "Ada"),
        ("{{last_tool_result.nested}}", {"a": {"b": "deep"}}),
        ("{{last_tool_result.nested.a.b}}", "deep"),
        ("{{last_tool_result.items.1.id}}", "x2"),
        ("{{last_tool_result.tags}}", ["red", "blue"]),
        ("{{ last_tool_result.count }}", 3),
    ],
)
def test_a_string_that_is_only_a_path_template_keeps_the_json_type(template: str, expected: object) -> None:
    rendered = render(template, CTX)
    assert rendered == expected
    assert type(rendered) is type(expected)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("n={{last_tool_result.count}}", "n=3"),
        ("hi {{last_tool_result.name}}", "hi Ada"),
        ("t={{last_tool_result.tags}}", 't=["red", "blue"]'),
        ("o={{last_tool_result.nested.a}}", 'o={"b": "deep"}'),
        ("b={{last_tool_result.ok}}", "b=true"),
    ],
)
def test_path_values_inside_text_are_text(template: str, expected: str) -> None:
    assert render(template, CTX) == expected


@pytest.mark.parametrize(
    "path",
    ["missing", "nested.a.zzz", "items.9.id", "items.x", "name.deeper", "tags.-9"],
)
def test_an_unresolved_path_is_null(path: str) -> None:
    assert render("{{last_tool_result." + path + "}}", CTX) is None
    assert render("v={{last_tool_result." + path + "}}", CTX) == "v=null"


def test_no_tool_result_yet_is_null() -> None:
    ctx = TemplateContext(query="q")
    assert render("{{last_tool_result}}", ctx) == "null"
    assert render("{{last_tool_result.a}}", ctx) is None


def test_templates_render_recursively_through_dicts_and_lists_but_not_keys() -> None:
    value = {
        "{{query}}": "k",
        "args": {"who": "{{last_tool_result.name}}", "ids": ["{{last_tool_result.items.0.id}}", 7]},
        "flag": False,
    }
    assert render(value, CTX) == {
        "{{query}}": "k",
        "args": {"who": "Ada", "ids": ["x1", 7]},
        "flag": False,
    }


def test_input_is_not_modified() -> None:
    value = {"a": ["{{query}}"]}
    render(value, CTX)
    assert value == {"a": ["{{query}}"]}


def test_unknown_templates_are_left_for_their_owner() -> None:
    assert render("do {{item}} for {{query}}", CTX) == "do {{item}} for find Ada"
    assert render("{{ last_tool_result_x }}", CTX) == "{{ last_tool_result_x }}"


def test_substituted_text_is_not_rendered_again() -> None:
    ctx = TemplateContext(query="{{last_user_message}}", last_user_message="secret")
    assert render("{{query}}", ctx) == "{{last_user_message}}"
