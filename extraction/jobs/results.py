"""The `result` of a parse, extract or classify job, built from a parsed document.

`finish` runs inside a worker task (see `extraction.jobs.pool`). When a job needs the model, the first
call returns the chat messages to send instead of a result; the pool asks the model (an I/O wait
that holds no CPU) and calls `finish` again with the reply, which is then grounded in the document.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from core.configs import ClassifyParams, ExtractParams, ParseParams
from extraction.fields.reading.date_text import DateOrder
from extraction.formats.document import Document
from extraction.jobs.model import ModelCaller, ModelFactory, ModelReplyError, ModelUnavailable, TaskModel
from extraction.jobs.stages import DocumentSpec, ModelReply, Stage

_PAGE_MARKER = re.compile(r"^<!-- page \d+ -->\n\n?", re.MULTILINE)


def finish(spec: DocumentSpec, parts: list[Document], reply: ModelReply | None) -> Stage:
    from extraction.formats.engines import merge_documents

    doc = parts[0] if len(parts) == 1 else merge_documents(parts)
    if spec.kind == "parse":
        return Stage(result=parse_result(doc, ParseParams.model_validate(spec.params), spec))
    if spec.kind == "extract":
        params = dict(spec.params)
        # The config's examples ride along with the job's params (put there from the store); they
        # are no request parameter, so they are taken out before the params are validated.
        examples = params.pop("examples", None) or []
        return extract_stage(doc, ExtractParams.model_validate(params), spec, reply, examples=examples)
    if spec.kind == "classify":
        return classify_stage(doc, ClassifyParams.model_validate(spec.params), spec)
    raise ValueError(f"unknown job kind {spec.kind!r}")


def _metadata(doc: Document, spec: DocumentSpec) -> dict[str, Any]:
    return {
        "filename": spec.filename,
        "format": spec.format,
        "file_size": spec.file_size,
        "sha256": spec.sha256,
        "page_count": doc.page_count or len(doc.pages),
    }


def _confidence(doc: Document) -> dict[str, Any]:
    from extraction.formats.engines import document_confidence

    overall, pages, source = document_confidence(doc)
    return {"overall_confidence": overall, "page_confidence": pages, "confidence_source": source}


def parse_content(doc: Document, params: ParseParams) -> str:
    from extraction.formats.engines import elements_payload
    from extraction.formats.markdown import to_markdown

    if params.output_format == "text":
        return doc.text
    if params.output_format == "json":
        return json.dumps(elements_payload(doc), ensure_ascii=False)
    markdown = to_markdown(doc)
    return markdown if params.markdown_options.page_markers else _PAGE_MARKER.sub("", markdown)


def parse_result(doc: Document, params: ParseParams, spec: DocumentSpec) -> dict[str, Any]:
    """docs/contract.md section 7: {content, elements, pages, overall_confidence, page_confidence,
    confidence_source} (+ metadata when asked)."""
    from extraction.formats.engines import elements_payload, pages_payload

    result: dict[str, Any] = {
        "content": parse_content(doc, params),
        "elements": elements_payload(doc),
        "pages": pages_payload(doc),
        **_confidence(doc),
    }
    if params.include_metadata:
        result["metadata"] = _metadata(doc, spec)
    return result


def _model_text(doc: Document) -> str:
    from extraction.formats.markdown import to_markdown

    return to_markdown(doc)


def extract_stage(
    doc: Document,
    params: ExtractParams,
    spec: DocumentSpec,
    reply: ModelReply | None,
    *,
    examples: list[dict[str, Any]] | None = None,
) -> Stage:
    """Rules first (unless `model`), then the model for what they left empty (`auto`, when a model
    is configured), every model value grounded back in the document.

    `examples` (`[{example_id, taught}]`, a config's taught examples) make the rules follow the
    example of the document's design (`extraction.examples.read_with_examples`)."""
    from extraction.fields import FieldResult, extract_fields, iso_dates
    from extraction.fields.documents.grounding import (
        build_model_prompt,
        ground_model_values,
        parse_model_json,
    )
    from extraction.jobs.worked_example import worked_example

    names = list(params.json_options)
    if params.prompt_mode == "model":
        if reply is None:
            shown = worked_example(doc, examples or [], names)
            return Stage(
                model_messages=build_model_prompt(_model_text(doc), names, params.custom_instructions, shown)
            )
        values = _model_values(parse_model_json, reply.text, names)
        grounded = ground_model_values(doc, values, file_name=spec.filename)
        return Stage(
            result=extract_result(doc, iso_dates(grounded, _document_order(doc, params)), params, spec)
        )
    order = date_order(params)
    found: dict[str, FieldResult]
    if reply is not None:
        found = reply.pending
    elif examples:
        from extraction.examples import Taught, read_with_examples

        taught = [(str(e["example_id"]), Taught.from_json(e["taught"])) for e in examples]
        found = read_with_examples(doc, names, file_name=spec.filename, examples=taught, date_order=order)
    else:
        found = extract_fields(doc, names, file_name=spec.filename, date_order=order)
    missing = [name for name in names if found[name].value is None]
    if params.prompt_mode == "auto" and spec.model_available and missing:
        if reply is None:
            shown = worked_example(doc, examples or [], missing)
            messages = build_model_prompt(_model_text(doc), missing, params.custom_instructions, shown)
            return Stage(model_messages=messages, pending=found)
        values = _model_values(parse_model_json, reply.text, missing)
        grounded = iso_dates(
            ground_model_values(doc, values, file_name=spec.filename), _document_order(doc, params)
        )
        for name in missing:
            if grounded[name].value is not None:
                found[name] = grounded[name]
    return Stage(result=extract_result(doc, found, params, spec))


def date_order(params: ExtractParams) -> DateOrder | None:
    """The request's date order, else the server's setting; None when neither states one, and the
    document's own dates and locale decide (`extraction.fields.reading.date_locale`)."""
    if params.date_order is not None:
        return params.date_order
    from core.settings import get_settings

    return get_settings().date_order


def _document_order(doc: Document, params: ExtractParams) -> DateOrder:
    """The order in which a model's date values are read: the stated order, else the document's."""
    from extraction.fields.reading.date_locale import resolve_date_order
    from extraction.fields.reading.text_lines import text_units

    stated = date_order(params)
    return stated if stated is not None else resolve_date_order([u.text for u in text_units(doc)], None)


def _model_values(parse: Any, text: str, names: list[str]) -> dict[str, Any]:
    try:
        values: dict[str, Any] = parse(text, names)
    except ValueError:
        raise ModelReplyError("the extraction model's reply held no JSON object") from None
    return values


def extract_result(
    doc: Document, found: dict[str, Any], params: ExtractParams, spec: DocumentSpec
) -> dict[str, Any]:
    """docs/contract.md section 7: {content, data, fields, pages, overall_confidence, page_confidence,
    confidence_source}; an absent field has value null. `overall_confidence` is the mean of the
    fields' confidences (an absent field counts 0); `confidence_source` is where most found values
    came from (the document's own source when none was found)."""
    from extraction.formats.engines import pages_payload
    from extraction.jobs.output import fields_to_csv, fields_to_json_content

    names = list(params.json_options)
    data = {name: found[name].value for name in names}
    if params.output_format == "csv":
        content = fields_to_csv([data], names)
        if not params.csv_options.include_header:
            # Field names hold no line breaks (core.configs), so the header is exactly one line.
            content = content.split("\n", 1)[1]
    else:
        content = fields_to_json_content(data)
    document = _confidence(doc)
    sources = Counter(str(found[n].source) for n in names if found[n].value is not None and found[n].source)
    result: dict[str, Any] = {
        "content": content,
        "data": data,
        "fields": {name: found[name].to_dict() for name in names},
        "pages": pages_payload(doc),
        "overall_confidence": round(sum(found[n].confidence for n in names) / len(names), 4),
        "page_confidence": document["page_confidence"],
        "confidence_source": sources.most_common(1)[0][0] if sources else document["confidence_source"],
    }
    if params.include_metadata:
        result["metadata"] = _metadata(doc, spec)
    return result


def classify_stage(doc: Document, params: ClassifyParams, spec: DocumentSpec) -> Stage:
    """docs/contract.md section 7: {classification, content (its JSON text)}.

    The classifier asks the model itself, page by page in `split` mode, whenever its rules are not
    confident; so the model is called from inside this task (`auto` and `model` alike), through a
    model built here: the task's own (its connection's key read from the store here, never carried
    in the job), else the operator's from the worker's settings.
    """
    from extraction.fields.documents.classify import classify_document

    categories: list[Any] = [
        {"name": c.name, "description": c.description} if c.description else c.name
        for c in params.category_list()
    ]
    hook = _model_hook(spec) if params.prompt_mode != "rules" else None
    classification = classify_document(doc, categories, params.mode, model=hook)
    return Stage(
        result={"classification": classification, "content": json.dumps(classification, ensure_ascii=False)}
    )


def _model_hook(spec: DocumentSpec) -> Any:
    """A blocking `messages -> text` call of the job's model, or None without one."""
    if spec.model_factory is None:
        return None
    from core.settings import get_settings

    settings = get_settings()
    model: ModelCaller | None
    if spec.task_model is not None:
        # The coordinator resolved the task's model already: none there means rules only.
        model = _TaskModelCaller(spec.model_factory, spec.task_model) if spec.model_available else None
    else:
        model = spec.model_factory(settings)
    if model is None:
        return None

    def ask(messages: list[dict[str, str]]) -> str:
        try:
            return asyncio.run(model(list(messages)))
        except ModelUnavailable as exc:
            raise ModelReplyError(exc.message) from None

    return ask


@dataclass(frozen=True)
class _TaskModelCaller:
    """The task's model, resolved at each call inside the worker (its key is never shipped here)."""

    factory: ModelFactory
    task_model: TaskModel

    async def __call__(self, messages: list[dict[str, Any]]) -> str:
        from core.settings import get_settings
        from core.store import async_client, resolve_redis_url

        settings = get_settings()
        # Open for the call too: the task's model charges the call to the task in the store.
        redis = async_client(resolve_redis_url(settings, start=False)[0])
        try:
            model = await self.factory.for_task(settings, redis, self.task_model)
            if model is None:
                raise ModelUnavailable("the task runs on no real model")
            return await model(messages)
        finally:
            await redis.aclose()
