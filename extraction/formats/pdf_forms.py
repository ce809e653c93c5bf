"""AcroForm fields of a PDF page: one element per field, its value as text.

Values follow the evaluation's conventions: check boxes are "true"/"false"; a radio group is the
label of its selected option; list and combo boxes their selected value(s); text fields as typed.
Repeated widgets of one field (a radio group's buttons, a field shown twice) give one element.
"""

from __future__ import annotations

import re
from typing import Any

from extraction.formats.document import Box, Element, Line
from extraction.formats.pdf_geometry import PdfDocument, PdfPage, to_box

# PyMuPDF's PDF_WIDGET_TYPE_* values.
_BUTTON, _CHECKBOX, _RADIO, _SIGNATURE = 1, 2, 5, 6
_UNSET = frozenset({"", "off", "false", "no", "0"})
_REFERENCE = re.compile(r"(\d+) 0 R")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def form_fields(doc: PdfDocument, page: PdfPage, number: int, turn: Any) -> tuple[list[Element], list[Box]]:
    """The page's fields (without ids), and the areas of all its widgets, push buttons included."""
    fields: dict[str, Element] = {}
    areas: list[Box] = []
    for widget in page.widgets():
        box = to_box(widget.rect, turn)
        areas.append(box)
        kind = widget.field_type
        name = widget.field_name or ""
        if kind in (_BUTTON, _SIGNATURE) or not name:
            continue
        selected = True
        if kind == _RADIO:
            value, selected = _radio_value(doc, widget)
        elif kind == _CHECKBOX:
            value = "false" if str(widget.field_value).strip().lower() in _UNSET else "true"
        else:
            value = _choice_text(widget.field_value)
        known = fields.get(name)
        if known is None:
            known = fields[name] = Element(
                id="",
                type="form_field",
                page=number,
                text=value,
                box=box,
                source="form_fields",
                field_name=name,
            )
        elif kind == _RADIO and selected and value:
            # The group is placed where its chosen button is.
            known.text, known.box = value, box
        if value and selected:
            known.lines.append(Line(value, box))
    return list(fields.values()), areas


def _choice_text(value: Any) -> str:
    if value is None or value is False:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value if v not in (None, ""))
    return str(value).strip()


def _radio_value(doc: PdfDocument, widget: Any) -> tuple[str, bool]:
    """The group's selected option label, and whether this button is the selected one.

    The parent field's /V names the appearance state of the chosen button. When the parent has an
    /Opt array, the states are indexes into it, or the option of the button at the same position
    among the parent's /Kids; the array holds the labels people see.
    """
    state = _name(doc.xref_get_key(widget.xref, "AS"))
    parent_ref = doc.xref_get_key(widget.xref, "Parent")
    if parent_ref[0] != "xref":
        value = "" if state.lower() == "off" else state
        return value, bool(value)
    parent = int(parent_ref[1].split()[0])
    chosen = _name(doc.xref_get_key(parent, "V"))
    if not chosen or chosen.lower() == "off":
        return "", False
    options = _string_array(doc.xref_get_key(parent, "Opt"))
    label = chosen
    if chosen.isdigit() and int(chosen) < len(options):
        label = options[int(chosen)]
    elif options:
        kids = [int(ref) for ref in _REFERENCE.findall(doc.xref_get_key(parent, "Kids")[1])]
        for index, kid in enumerate(kids[: len(options)]):
            if _name(doc.xref_get_key(kid, "AS")) == chosen:
                label = options[index]
                break
    return label, state == chosen


def _name(entry: tuple[str, str]) -> str:
    kind, value = entry
    if kind == "name":
        return re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), value.lstrip("/"))
    if kind == "string":
        return value
    return ""


def _string_array(entry: tuple[str, str]) -> list[str]:
    """The strings of a PDF array as PyMuPDF prints it (hex `<...>` or literal `(...)` strings);
    a nested `[export display]` pair gives its display string."""
    kind, text = entry
    if kind != "array":
        return []
    items: list[str] = []
    pair: list[str] | None = None
    pos = 1
    while pos < len(text):
        ch = text[pos]
        if ch == "[":
            pair = []
            pos += 1
            continue
        if ch == "]":
            if pair is not None:
                items.append(pair[-1] if pair else "")
                pair = None
            pos += 1
            continue
        if ch == "<":
            end = text.index(">", pos)
            item = _decode(bytes.fromhex(text[pos + 1 : end]))
            pos = end + 1
        elif ch == "(":
            item, pos = _literal(text, pos)
        else:
            pos += 1
            continue
        (pair if pair is not None else items).append(item)
    return items


def _literal(text: str, start: int) -> tuple[str, int]:
    """A literal string starting at `text[start] == "("`, and the position after it."""
    out: list[str] = []
    depth = 0
    pos = start
    while pos < len(text):
        ch = text[pos]
        if ch == "\\" and pos + 1 < len(text):
            octal = re.match(r"[0-7]{1,3}", text[pos + 1 :])
            if octal:
                out.append(chr(int(octal.group(0), 8)))
                pos += 1 + len(octal.group(0))
            else:
                out.append(_ESCAPES.get(text[pos + 1], text[pos + 1]))
                pos += 2
            continue
        if ch == "(":
            depth += 1
            if depth > 1:
                out.append(ch)
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return _decode("".join(out).encode("latin-1", "replace")), pos + 1
            out.append(ch)
        else:
            out.append(ch)
        pos += 1
    return "".join(out), pos


def _decode(raw: bytes) -> str:
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be", "replace")
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", "replace")
    return raw.decode("latin-1")
