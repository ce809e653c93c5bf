"""What field reading works with and hands back: the document's context, the field asked and the
strategy record (`strategy.py`), a candidate value, its evidence and the one function that turns
evidence into a field result with its calibrated confidence (`evidence.py`), citations. Imports
only `reading/`."""
