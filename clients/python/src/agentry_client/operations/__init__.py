"""Every operation of the client, written once as a flow (see `protocol`) for both clients.

Paths, parameters and bodies follow the routers in `serve/routers/` and docs/contract.md. One module
per idea: `agents`, `lists` (paged list endpoints), `runs` (a run and its waiting), `tasks`, `files`,
`jobs` (extraction jobs, batches and saved configs), on the shared pieces in `common`.
"""
