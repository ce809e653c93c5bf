"""Combined name fields split by their own caption's order: "Name (Last First MI)", "Last, First".

A caption that lists the parts of a name says in which order the value gives them. With a comma
the value says it too ("Ravensworth, Cosima J"); without one ("RAVENSWORTH COSIMA J") only the
caption does.
"""

from __future__ import annotations

from extraction.fields.reading.names import NamePart, PersonName, family_word, split_name
from extraction.fields.reading.normalize import label_tokens

_PART_WORDS: dict[str, NamePart] = {
    "first": "first",
    "given": "first",
    "last": "last",
    "surname": "last",
    "family": "last",
    "middle": "middle",
    "mi": "middle",
    "initial": "middle",
}


def caption_order(label: str) -> list[NamePart]:
    """The name parts a caption lists, in its order (each once)."""
    order: list[NamePart] = []
    tokens = label_tokens(label)
    for index, token in enumerate(tokens):
        part = None if family_word(tokens, index) else _PART_WORDS.get(token)
        if part is not None and part not in order:
            order.append(part)
    return order


def names_parts(label: str) -> bool:
    """Whether a caption lists two or more parts of a name: its value is a whole name."""
    return len(caption_order(label)) >= 2


def split_by_caption(label: str, value: str) -> PersonName | None:
    """`value` split in the order `label` lists the parts; as `names.split_name` when the label
    lists none, or the value's own comma says the order."""
    order = caption_order(label)
    if len(order) == 1:
        # "Physician First Name": the value is that one part, whatever its words.
        part = " ".join(value.split()) if split_name(value) is not None else None
        only = order[0]
        return PersonName(
            part if only == "first" else None,
            part if only == "middle" else None,
            part if only == "last" else None,
        )
    if "," in value or len(order) < 2 or order[0] != "last":
        return split_name(value)
    words = value.replace(",", " ").split()
    whole = split_name(" ".join(words))
    if whole is None or len(words) < 2:
        return whole
    parts: dict[NamePart, list[str]] = {"first": [], "middle": [], "last": []}
    # The last name first, then the rest in the caption's order; any extra words are middle names.
    for index, word in enumerate(words):
        part = order[index] if index < len(order) else "middle"
        parts[part].append(word)
    return PersonName(
        " ".join(parts["first"]) or None, " ".join(parts["middle"]) or None, " ".join(parts["last"]) or None
    )


#: Parts of an address a caption may combine ("City, State ZIP", "City / State / Zip Code").
_ADDRESS_WORDS = {"city": "city", "town": "city", "state": "state", "zip": "zip", "postal": "zip"}


def address_parts(label: str) -> list[str]:
    """The address parts (`city`, `state`, `zip`) a caption lists, in its order."""
    order: list[str] = []
    for token in label_tokens(label):
        part = _ADDRESS_WORDS.get(token)
        if part is not None and part not in order:
            order.append(part)
    return order


def combined_caption(label: str, concept: str | None) -> bool:
    """Whether `label` is a caption of several parts, one of them the field's `concept`: a whole
    name for a part of a name, several address parts for one of them."""
    if concept in ("first_name", "middle_name", "last_name"):
        return names_parts(label)
    if concept in ("city", "state", "zip"):
        parts = address_parts(label)
        return len(parts) >= 2 and concept in parts
    return False
