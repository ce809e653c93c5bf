"""End to end: an intake-form PDF is uploaded with a run, an agent extracts the patient's fields with
extract_document and saves the patient through practice_save_patient into the sandbox."""

from __future__ import annotations

import httpx
import pytest

from tests.support.agents import create_agent, feed, of_type, scripted, wait_status
from tests.support.practice import connected, patients
from tools.practice import derive_pcref
from tools.practice.sandbox import RunningSandbox

pytestmark = pytest.mark.integration

FORM = {"first_name": "Grace", "last_name": "Hopper", "dob": "12/09/1906", "account": "acct-1"}
LABELS = {"first_name": "First name", "last_name": "Last name", "dob": "Date of birth", "account": "Account"}


def intake_form_pdf() -> bytes:
    """A one-page intake form whose answers are filled-in text widgets named after the fields."""
    import pymupdf

    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 60), "Patient intake form", fontsize=16)
    for row, (name, value) in enumerate(FORM.items()):
        top = 100 + row * 40
        page.insert_text((72, top + 14), LABELS[name], fontsize=11)
        widget = pymupdf.Widget()
        widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
        widget.field_name = name
        widget.field_value = value
        widget.rect = pymupdf.Rect(200, top, 460, top + 20)
        page.add_widget(widget)
    data: bytes = document.tobytes()
    document.close()
    return data


def test_intake_form_becomes_a_patient_record(ws_api: httpx.Client, sandbox: RunningSandbox) -> None:
    connected(ws_api, sandbox)
    extract = {
        "input": "intake.pdf",
        "extraction_config": {"output_format": "json", "json_options": list(FORM), "prompt_mode": "rules"},
    }
    save = {
        "account_id": "{{last_tool_result.data.account}}",
        "first_name": "{{last_tool_result.data.first_name}}",
        "last_name": "{{last_tool_result.data.last_name}}",
        "dob": "{{last_tool_result.data.dob}}",
    }
    agent = create_agent(
        ws_api,
        scripted(
            {"tool_calls": [{"name": "extract_document", "arguments": extract}]},
            {"tool_calls": [{"name": "practice_save_patient", "arguments": save}]},
            {"answer": "Saved patient {{last_tool_result.patient_id}} (MRN {{last_tool_result.mrn}})"},
            tools=["extract_document", "practice_save_patient"],
        ),
    )
    started = ws_api.post(
        f"/api/v1/agents/{agent['id']}/run",
        data={"query": "File this intake form"},
        files=[("files", ("intake.pdf", intake_form_pdf(), "application/pdf"))],
    )
    assert started.status_code == 201, started.text
    done = wait_status(ws_api, started.json()["task_id"])
    assert done["status"] == "completed", done
    extracted, saved = (r for r in of_type(feed(ws_api, done["task_id"]), "tool_result"))
    # The form prints the US date; extraction returns every date as ISO 8601 (month first by default).
    assert extracted["status"] == "ok" and extracted["output"]["data"] == FORM | {"dob": "1906-12-09"}
    pcref = derive_pcref(FORM["first_name"], FORM["last_name"], "12091906")
    assert saved["status"] == "ok"
    assert saved["output"] == {
        "status": "saved",
        "patient_pcref": pcref,
        "patient_id": saved["output"]["patient_id"],
        "mrn": saved["output"]["mrn"],
        "account_id": "acct-1",
    }
    (record,) = [p for p in patients(sandbox, "acct-1")["patients"] if p["patient_pcref"] == pcref]
    assert (record["first_name"], record["last_name"], record["dob"]) == ("Grace", "Hopper", "12091906")
    assert record["patient_id"] == saved["output"]["patient_id"]
    summary = ws_api.get(f"/api/v1/tasks/{done['task_id']}/summary").json()["summary"]
    assert summary == f"Saved patient {record['patient_id']} (MRN {record['mrn']})"
