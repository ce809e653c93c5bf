"""What field reading works with and hands back: the document's context, the field asked and the
strategy record (`strategy.py`), a candidate value, its evidence and the one function that turns
evidence into a field result with its calibrated confidence (`evidence.py`), how much of a
document's structure the evidence knows (`structure.py`), citations. Imports
only `reading/`."""
