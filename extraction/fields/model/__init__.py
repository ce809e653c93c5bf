"""What field reading works with and hands back: the document's context, a candidate value, its
evidence's calibrated confidence, citations and the field result. Imports only `reading/`."""
