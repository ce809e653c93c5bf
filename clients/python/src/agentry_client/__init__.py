"""A Python client of the Agentry APIs (`/api/v1` agents and tasks, `/api/v2` extraction).

    from agentry_client import Client

    with Client("http://127.0.0.1:8000") as client:      # the key from AGENTRY_API_KEY
        done = client.run_and_wait(agent_id, "hello", result="summary")
        print(done.status, done.result)

`AsyncClient` has the same methods, awaited (`async for` over lists and events). It is its own
distribution, `agentry-client` (`pip install ./clients/python`), and needs only httpx and pydantic:
nothing of the service is imported. The blocking client uses no event loop, so it works inside a
notebook's running one as well.
"""

from .async_client import AsyncClient
from .errors import (
    AgentryClientError,
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServerError,
    Unauthorized,
    UnsupportedMediaType,
    ValidationFailed,
    WaitTimeout,
)
from .models import (
    Agent,
    Batch,
    BatchItem,
    DataField,
    DeletedAgent,
    Event,
    Feed,
    FeedItem,
    FileInfo,
    Job,
    Page,
    Pause,
    RunResult,
    SavedConfig,
    StructuredResponse,
    Summary,
    SyncReply,
    Task,
    TaskCreated,
    TaskFile,
    TaskSummary,
    Usage,
)
from .retry import PollPolicy, RetryPolicy
from .sync_client import Client

__all__ = [
    "Agent",
    "AgentryClientError",
    "ApiError",
    "AsyncClient",
    "BadRequest",
    "Batch",
    "BatchItem",
    "Client",
    "Conflict",
    "ConnectionFailed",
    "DataField",
    "DeletedAgent",
    "Event",
    "Feed",
    "FeedItem",
    "FileInfo",
    "Forbidden",
    "Job",
    "NotFound",
    "Page",
    "Pause",
    "PayloadTooLarge",
    "PollPolicy",
    "RateLimited",
    "RetryPolicy",
    "RunResult",
    "SavedConfig",
    "ServerError",
    "StructuredResponse",
    "Summary",
    "SyncReply",
    "Task",
    "TaskCreated",
    "TaskFile",
    "TaskSummary",
    "Unauthorized",
    "UnsupportedMediaType",
    "Usage",
    "ValidationFailed",
    "WaitTimeout",
]
