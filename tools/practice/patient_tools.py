"""The patient tools an agent may call: `practice_save_patient` and `practice_get_patient`.

Both load the workspace's connector themselves (tools.practice.connector), so credentials and tokens
never pass through arguments a model writes or sees. Without a connector they answer the non-error
payload `practice_not_connected` (docs/spec.md "Practice-management connector" rule 3). The Allowed Account
IDs rule is checked before any request (SPEC rule 6). Writes to one patient record are serialised
with a Redis lock, so concurrent identical saves reach the external system one after another and
upsert one record instead of racing to create two. Every write, read and refusal lands in the
workspace audit log with the account, environment, response code and an HMAC of the patient key
keyed with the deployment's secret (core.stores.audit), never names, dates of birth or the key itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from core.infra import keys
from core.infra.locks import LockTimeout, RedisLock
from core.stores import audit
from tools.context import ToolContext
from tools.errors import ToolError
from tools.practice.accounts import check_allowed_account
from tools.practice.client import SAVE_PATIENT_PATH
from tools.practice.connector import (
    MAX_MINT_SECONDS,
    PracticeConnection,
    call_practice,
    load_connection,
)
from tools.practice.envelope import Envelope, build_save_envelope, mask_envelope
from tools.practice.errors import (
    AccountNotAllowed,
    InvalidToken,
    PracticeAuthError,
    PracticeAuthorizationError,
    PracticeError,
    PracticeInputError,
    PracticeResponseError,
)
from tools.practice.inputs import (
    GET_TOOL_DESCRIPTION,
    GET_TOOL_NAME,
    GET_TOOL_SCHEMA,
    SAVE_TOOL_DESCRIPTION,
    SAVE_TOOL_NAME,
    SAVE_TOOL_SCHEMA,
    parse_get_input,
    parse_save_input,
)
from tools.registry import ToolSpec

Parsed = TypeVar("Parsed")

#: docs/contract.md section 8: the status of the non-error answer without a connector.
NOT_CONNECTED_STATUS = "practice_not_connected"
NOT_CONNECTED_MESSAGE = (
    "The practice-management integration is not connected for this workspace. Ask the user to connect "
    "it (Integrations: client id, client secret and environment), then try again."
)
#: docs/contract.md section 8: the status of a successful save and of a successful read.
SAVED_STATUS = "saved"
FOUND_STATUS = "found"

#: Audit actions (core.stores.audit) of the patient tools.
SAVED_ACTION = "practice.patient_saved"
SAVE_FAILED_ACTION = "practice.patient_save_failed"
SAVE_REFUSED_ACTION = "practice.patient_save_refused"
READ_ACTION = "practice.patient_read"
READ_FAILED_ACTION = "practice.patient_read_failed"
READ_REFUSED_ACTION = "practice.patient_read_refused"

#: Lifetime of a record lock between renewals; a holder that dies frees the record after this long.
RECORD_LOCK_TTL_SECONDS = 10.0
#: How long a save waits for an earlier save of the same record: long enough for one slow save
#: (a token mint and the write, each with every retry), after which the step fails retryably.
RECORD_LOCK_WAIT_SECONDS = 2 * MAX_MINT_SECONDS + 10.0


def not_connected() -> dict[str, str]:
    """The non-error answer of every practice tool when the workspace has no connector."""
    return {"status": NOT_CONNECTED_STATUS, "message": NOT_CONNECTED_MESSAGE}


def _record_digest(ctx: ToolContext, connection: PracticeConnection, envelope: Envelope) -> str:
    # The external record is named by its host, account and key; the lock key carries only a keyed
    # digest, so a reader of the store's key names cannot confirm a guessed patient either.
    record = "\n".join((connection.practice_url, envelope["account_id"], envelope["patient_pcref"]))
    return audit.identifier_digest(ctx.settings.resolved_secret(), record)


def _target(connection: PracticeConnection | None) -> dict[str, Any]:
    """What a reviewed save is bound to: this very connector (a reconnect makes another), its
    environment and the URL the request goes to."""
    if connection is None:
        return {"connected": False}
    return {
        "connection_id": connection.connection_id,
        "environment": connection.environment,
        "url": f"{connection.practice_url}{SAVE_PATIENT_PATH}",
    }


async def _connection(ctx: ToolContext) -> PracticeConnection | None:
    try:
        return await load_connection(ctx.redis, ctx.settings, ctx.workspace_id)
    except PracticeError as error:
        raise ToolError(error.message) from None


def _inputs(parse: Callable[[Mapping[str, Any]], Parsed], arguments: Mapping[str, Any]) -> Parsed:
    try:
        return parse(arguments)
    except PracticeInputError as error:
        raise ToolError(f"invalid patient input: {error.message}") from None


def _tool_error(error: PracticeError) -> ToolError:
    """The tool error the model sees; retryable only when repeating the same call may succeed."""
    if isinstance(error, PracticeResponseError):
        return ToolError(
            error.message,
            payload={"response_code": error.response_code, "response_msg": error.response_msg},
        )
    if isinstance(error, PracticeAuthorizationError):
        return ToolError(error.message, payload={"response_code": None, "response_msg": error.message})
    if isinstance(error, PracticeAuthError):
        return ToolError(
            "the practice system refused the integration's client credentials; ask the user to "
            "reconnect the practice integration"
        )
    if isinstance(error, InvalidToken):
        # Raised only after the one reactive re-mint: a fresh token refused again will not improve.
        return ToolError("the practice system refused a freshly minted access token")
    return ToolError(error.message, retryable=error.retryable)


async def _audit(ctx: ToolContext, action: str, details: dict[str, Any]) -> None:
    await audit.record(
        ctx.redis, ctx.workspace_id, action, key_id=None, task_ids=[ctx.task_id], details=details
    )


async def _check_account(
    ctx: ToolContext, account_id: str, connection: PracticeConnection, action: str, details: dict[str, Any]
) -> None:
    try:
        check_allowed_account(account_id, connection.allowed_account_ids)
    except AccountNotAllowed as error:
        await _audit(ctx, action, details)
        raise ToolError(error.message) from None


async def save_patient(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    """practice_save_patient: upsert one patient with the complete savePatientAPI envelope."""
    connection = await _connection(ctx)
    if ctx.approved_target is not None and dict(ctx.approved_target) != _target(connection):
        raise ToolError(
            "the practice integration changed after this call was approved; nothing was sent. "
            "The call can be made again for a new review."
        )
    if connection is None:
        return not_connected()
    inputs = _inputs(parse_save_input, arguments)
    envelope = build_save_envelope(inputs)
    details: dict[str, Any] = {
        "account_id": inputs.account_id,
        "environment": connection.environment,
        "pcref_hmac": audit.identifier_digest(ctx.settings.resolved_secret(), envelope["patient_pcref"]),
    }
    await _check_account(ctx, inputs.account_id, connection, SAVE_REFUSED_ACTION, details)
    lock = RedisLock(
        ctx.redis,
        keys.practice_record_lock(_record_digest(ctx, connection, envelope)),
        ttl_seconds=RECORD_LOCK_TTL_SECONDS,
        wait_seconds=RECORD_LOCK_WAIT_SECONDS,
    )
    try:
        async with lock:
            result = await call_practice(
                ctx.redis,
                ctx.settings,
                connection,
                # An approved write is sent once: a failed send asks for a new review, not a retry.
                lambda client, token: client.save_patient(
                    envelope, token, once=ctx.idempotency_key is not None
                ),
            )
    except LockTimeout:
        raise ToolError(
            "another write to this patient record is still running; try again", retryable=True
        ) from None
    except PracticeError as error:
        code = error.response_code if isinstance(error, PracticeResponseError) else None
        await _audit(
            ctx, SAVE_FAILED_ACTION, details | {"response_code": code, "error": type(error).__name__}
        )
        raise _tool_error(error) from None
    await _audit(
        ctx, SAVED_ACTION, details | {"response_code": result.response_code, "patient_id": result.patient_id}
    )
    return {
        "status": SAVED_STATUS,
        "patient_pcref": result.patient_pcref,
        "patient_id": result.patient_id,
        "mrn": result.mrn,
        "account_id": inputs.account_id,
    }


async def preview_save(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    """What a reviewer approves: the exact envelope the call would send, where it goes, and whether the
    account is allowed. Credentials travel in a header and are not part of it."""
    connection = await _connection(ctx)
    if connection is None:
        return not_connected()
    inputs = _inputs(parse_save_input, arguments)
    try:
        check_allowed_account(inputs.account_id, connection.allowed_account_ids)
        account_allowed = True
    except AccountNotAllowed:
        account_allowed = False
    return {
        "environment": connection.environment,
        "request": f"POST {connection.practice_url}{SAVE_PATIENT_PATH}",
        "account_allowed": account_allowed,
        "envelope": mask_envelope(build_save_envelope(inputs)),
    }


async def bind_save(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    """The connector, environment and URL a reviewed save would reach now."""
    return _target(await _connection(ctx))


async def get_patient(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    """practice_get_patient: read one patient by the patient_id the practice system assigned."""
    connection = await _connection(ctx)
    if connection is None:
        return not_connected()
    inputs = _inputs(parse_get_input, arguments)
    details: dict[str, Any] = {
        "account_id": inputs.account_id,
        "environment": connection.environment,
        "patient_id": inputs.patient_id,
    }
    await _check_account(ctx, inputs.account_id, connection, READ_REFUSED_ACTION, details)
    try:
        patient = await call_practice(
            ctx.redis,
            ctx.settings,
            connection,
            lambda client, token: client.get_patient(inputs.account_id, inputs.patient_id, token),
        )
    except PracticeError as error:
        code = error.response_code if isinstance(error, PracticeResponseError) else None
        await _audit(
            ctx, READ_FAILED_ACTION, details | {"response_code": code, "error": type(error).__name__}
        )
        raise _tool_error(error) from None
    await _audit(ctx, READ_ACTION, details)
    return {"status": FOUND_STATUS, "patient": patient}


PRACTICE_SAVE_PATIENT = ToolSpec(
    name=SAVE_TOOL_NAME,
    description=SAVE_TOOL_DESCRIPTION,
    parameters=SAVE_TOOL_SCHEMA,
    handler=save_patient,
    mutating=True,
    display_name="Save Patient",
    review_preview=preview_save,
    review_binding=bind_save,
)

PRACTICE_GET_PATIENT = ToolSpec(
    name=GET_TOOL_NAME,
    description=GET_TOOL_DESCRIPTION,
    parameters=GET_TOOL_SCHEMA,
    handler=get_patient,
    display_name="Get Patient",
)
