"""The document tools of agents: `parse_document`, `extract_document` and `classify_document`."""
