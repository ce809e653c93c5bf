"""Extraction jobs: the Redis/Ray job service, the worker pool, the coordinator, batch runs and
request bodies. Engines (`extraction.formats`) and field reading (`extraction.fields`) know nothing of
jobs; jobs map their plain errors to HTTP statuses (`extraction.jobs.edge`)."""
