"""Readers of one kind of document: a receipt's or a letterhead's issuer header, a contract's terms,
classifying a document, and grounding a model's values in it. Imports `model/` and `reading/`."""
