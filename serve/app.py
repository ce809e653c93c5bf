"""The FastAPI application: both APIs on one app, one port (docs/contract.md section 0)."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.routing import Route

from core.infra.settings import get_settings
from serve.body_guard import BodyGuard
from serve.console import mount_console
from serve.errors import install_error_handlers
from serve.mcp_endpoint import PATH as MCP_PATH
from serve.mcp_endpoint import McpEndpoint
from serve.middleware import EdgeMiddleware
from serve.openapi_responses import openapi_document
from serve.routers import (
    agents,
    audit,
    configs,
    extraction,
    files,
    health,
    integrations,
    mcp_servers,
    runs,
    tasks,
    webhooks,
)
from serve.task_poll import TaskPoll

API_VERSION = "1.0.0"


def _sync_budget() -> int:
    settings = get_settings()
    return settings.sync_budget_seconds if settings.sync_enabled else 0


def build_app() -> FastAPI:
    app = FastAPI(
        title="Agentry",
        version=API_VERSION,
        description="Agents API under /api/v1 and extraction API under /api/v2.",
        docs_url="/docs",
        openapi_url="/openapi.json",
    )
    install_error_handlers(app)
    # Innermost: the polled route is answered inside the URL checks and the /api/v1 headers.
    app.add_middleware(TaskPoll)
    app.add_middleware(BodyGuard, api=app, max_json_bytes=lambda: get_settings().max_json_body_bytes)
    app.add_middleware(EdgeMiddleware, budget_seconds=_sync_budget)
    agents_api = (
        agents.router,
        runs.router,
        tasks.router,
        audit.router,
        integrations.router,
        webhooks.router,
        mcp_servers.router,
    )
    extraction_api = (files.router, extraction.router, configs.router)
    # The polled route's router first: Serve names each request's route for its metrics by walking
    # the app's routes to the first match (ray.serve's get_asgi_route_name), about 18 matches for a
    # poll behind the others. No other router's paths begin with /api/v1/tasks, so the order
    # changes no answer, only where a poll's walk stops.
    for router in (
        tasks.router,
        health.router,
        *(r for r in agents_api if r is not tasks.router),
        *extraction_api,
    ):
        app.include_router(router)
    # Agentry as an MCP server: an ASGI app of its own (the SDK's), behind the same key check.
    app.router.routes.append(Route(MCP_PATH, McpEndpoint(), methods=["GET", "POST", "DELETE"]))
    mount_console(app)
    app.openapi = lambda: openapi_document(app)  # type: ignore[method-assign]
    return app


app = build_app()
