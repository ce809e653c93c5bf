"""Serving the console's static files at /console, with headers that keep the page to its own origin.

The page loads nothing from elsewhere and talks only to this service: the Content-Security-Policy
says so to the browser, so a value read from a document can never pull in a script or leak a key.
The files are small and change with each release, so browsers revalidate them on every load.
`config.json` beside them carries the few settings the page needs (the review threshold), so the
API's answers stay as they are.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from core.infra.settings import get_settings

CONSOLE_PATH = "/console"
STATIC_DIR = Path(__file__).parent / "static"

#: Page images arrive as blob: URLs (an <img> cannot send the API key, so they are fetched first).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class ConsoleFiles(StaticFiles):
    """StaticFiles whose every answer carries the console's security and cache headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        return response


def console_config() -> dict[str, float]:
    """What the page reads at start: extracted values below `review_confidence` are marked to check."""
    return {"review_confidence": get_settings().review_confidence}


async def _config(_: Request) -> Response:
    return JSONResponse(console_config(), headers=SECURITY_HEADERS)


def mount_console(app: FastAPI) -> None:
    """Serve the console at /console/ (index.html for the directory itself) and its config.json."""
    # Added before the mount, so this route answers rather than the static files.
    app.add_route(f"{CONSOLE_PATH}/config.json", _config, methods=["GET"], include_in_schema=False)
    app.mount(CONSOLE_PATH, ConsoleFiles(directory=STATIC_DIR, html=True), name="console")
