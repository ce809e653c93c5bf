"""Field extraction: the page's layout, the field vocabulary, label-to-value pairing, normalisation
and confidence calibration (no model). `extract_fields` is the entry point."""

from extraction.fields.extract import extract_fields
from extraction.fields.model.dates import iso_dates
from extraction.fields.model.result import FieldResult, absent

__all__ = ["FieldResult", "absent", "extract_fields", "iso_dates"]
