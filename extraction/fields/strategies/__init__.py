"""The ways a field's value is found, one file each (form widgets, `Label: value` pairs, table
cells, printed questions, the form's structure, heuristics, ...); `extract.py` tries them in order.
Imports `documents/`, `model/` and `reading/`, never `extract.py`."""
