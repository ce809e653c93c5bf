"""Format engines: pure functions from a document's bytes to the document model (`formats.document`).

Nothing here knows of jobs, fields or HTTP: a document the engines refuse raises a plain
`errors.DocumentError`, which `extraction.jobs.edge` maps to the API's status.
"""
