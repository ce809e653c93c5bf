"""Values of PDF form fields (widgets) whose name or printed label names the field; check boxes
read as true/false, a choice as its ticked option."""

from typing import Any

from extraction.fields.model.calibration import Signals
from extraction.fields.model.citations import element_citation
from extraction.fields.model.context import FieldContext
from extraction.fields.model.evidence import Evidence, field_result
from extraction.fields.model.result import FieldResult
from extraction.fields.reading.date_text import find_dates
from extraction.fields.reading.names import split_name
from extraction.fields.reading.normalize import label_tokens, match_label, parse_checkbox
from extraction.fields.reading.value_kinds import Kind
from extraction.fields.reading.vocabulary import (
    FieldSpec,
    is_other_party,
    read_gender,
    validate,
)
from extraction.fields.strategies.label_pairs import PRIORS
from extraction.formats.document import Element

#: A form field's name must match at least this well: names are exact far more often than labels.
FORM_FIELD_THRESHOLD = 0.8


def from_form_fields(ctx: FieldContext, spec: FieldSpec, kind: Kind) -> FieldResult | None:
    doc, name = ctx.doc, spec.name
    widgets = [e for e in doc.elements if e.type == "form_field" and e.field_name]
    if spec.concept == "gender":
        ticked = _ticked_option(widgets, ctx.widget_labels)
        if ticked is not None:
            return _widget_result(ctx, spec, ticked[0], ticked[1], "widget_choice")
    names = [spec.whole_name.replace("_", " ")] if spec.part is not None and spec.whole_name else []
    direct = spec.part is None or spec.owner == "patient"
    # (score, widget, read from a whole name, known by its own field name)
    scored: list[tuple[float, Element, bool, bool]] = []
    for widget in widgets:
        # A widget is known by its field name and by the label printed beside or above it
        # (forms made with generic names: Text1, Text2, ...).
        known_as = [widget.field_name or "", *ctx.widget_labels.get(id(widget), [])]
        if spec.patient_owned and any(is_other_party(n) for n in known_as):
            continue
        for index, label in enumerate(known_as):
            if direct:
                scored.append((match_label(name, label), widget, False, index == 0))
            scored.extend(
                (match_label(other, label) * WHOLE_NAME_SHARE, widget, True, index == 0) for other in names
            )
    scored = [entry for entry in scored if entry[0] >= FORM_FIELD_THRESHOLD]
    if not scored:
        return None
    best_score = max(entry[0] for entry in scored)
    best_name, whole = next((e.field_name, w) for s, e, w, _ in scored if s == best_score)
    # Known by its own name, or only by a printed label guessed to belong to it.
    by_name = any(n for s, e, _, n in scored if s == best_score and e.field_name == best_name)
    chosen = _chosen_widget(list({id(e): e for s, e, _, _ in scored if e.field_name == best_name}.values()))
    if chosen is None:
        # The form has the field, and it was left empty.
        return FieldResult(value=None, confidence=0.0, source="form_fields", blank=True)
    value, element = chosen
    if isinstance(value, str):
        if spec.part is not None and (whole or spec.owner != "patient"):
            person = split_name(value)
            value = person.part(spec.part) if person is not None else None
            if value is None:
                return FieldResult(value=None, confidence=0.0, source="form_fields")
        elif kind == "date":
            dates = find_dates(value, ctx.order)
            if dates:
                return _widget_result(
                    ctx,
                    spec,
                    dates[0].value,
                    element,
                    "form_field",
                    raw=value,
                    ambiguous=dates[0].ambiguous,
                    known=(best_score, by_name),
                )
        elif spec.concept == "gender":
            value = read_gender(value) or value
    return _widget_result(
        ctx, spec, value, element, "form_field", raw=element.text, known=(best_score, by_name)
    )


#: A widget named for a whole name (`pcp_name`) answers a part of it a little less surely.
WHOLE_NAME_SHARE = 0.95


def _widget_result(
    ctx: FieldContext,
    spec: FieldSpec,
    value: Any,
    element: Element,
    strategy: str,
    *,
    raw: str | None = None,
    ambiguous: bool = False,
    known: tuple[float, bool] = (1.0, True),
) -> FieldResult:
    """`known`: how well the widget's name or printed label matched the field, and whether its own
    field name did (not a printed label guessed to belong to it): what tells a widget value
    right from wrong on a new form."""
    match, by_name = known
    evidence = Evidence(
        "form_fields",
        strategy,
        validate(spec, value) if isinstance(value, str) else None,
        PRIORS["form_field"],
        ambiguous,
        element.confidence,
        Signals(match=min(match, 1.0), text_confidence=element.confidence, labelled=by_name),
    )
    citations = [element_citation(ctx.doc, element, ctx.file_name)]
    return field_result(value, evidence, citations, raw if raw is not None else element.text)


def _ticked_option(widgets: list[Element], labels: dict[int, list[str]]) -> tuple[str, Element] | None:
    """The option of a choice given as one check box per option (`chkMale`, `chkFemale`): the
    one ticked, named by the option word in its field name."""
    ticked: list[tuple[str, Element]] = []
    for widget in widgets:
        if parse_checkbox(widget.text) is not True:
            continue
        # Its field name (`chkFemale`), else the word printed right of it, names the option.
        names = [widget.field_name or "", *labels.get(id(widget), [])[-1:]]
        for known_as in names:
            options = {o for t in label_tokens(known_as) if (o := read_gender(t)) is not None}
            if len(options) == 1:
                ticked.append((options.pop(), widget))
                break
    return ticked[0] if len({o for o, _ in ticked}) == 1 else None


def _chosen_widget(widgets: list[Element]) -> tuple[Any, Element] | None:
    """A field's value from its widgets: a radio group has one per option, only one of them on.

    Check boxes come as true/false (or on/off, yes/no); an empty or unset field has no value.
    """
    states = [(parse_checkbox(w.text), w) for w in widgets]
    for value, widget in states:
        if value is None and widget.text.strip():
            return widget.text.strip(), widget
    for value, widget in states:
        if value is True:
            return True, widget
    for value, widget in states:
        if value is False:
            return False, widget
    return None
