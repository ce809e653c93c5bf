// What a paused task asks of the person looking at it (docs/contract.md section 3): a task
// `waiting_for_input` takes a reply (`POST /tasks/{id}/message`, text and files), a task
// `awaiting_review` shows the call it waits on as the API previews it (`pause.pending_tool_call`)
// and takes Approve or Reject (`POST /tasks/{id}/review`) naming that preview, so a decision can
// never answer a call the reviewer did not see (a stale preview is a 409, shown as such).

import { ApiError, postJson, request } from "./api.js";
import { clear, errorBox, h } from "./dom.js";
import { bindKeys } from "./keys.js";

// What the structured-output panel says while a task waits on a person (the API's envelope says
// "needs input" for both pauses).
export function pausedOutputNote(status) {
  if (status === "waiting_for_input") return "No structured output yet: the task is waiting for your answer (above).";
  if (status === "awaiting_review") return "No structured output yet: the task is waiting for your approval of the call above.";
  return null;
}

// A JSON value shown as data: objects as name/value lists, arrays as numbered lists, each scalar
// as its exact JSON (a string keeps its quotes, so "5" and 5 read differently).
export function dataTree(value) {
  if (Array.isArray(value)) {
    if (!value.length) return h("code", { class: "data-scalar" }, "[]");
    return h("ol", { class: "tree data" }, value.map((item) => h("li", {}, dataTree(item))));
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (!entries.length) return h("code", { class: "data-scalar" }, "{}");
    return h(
      "dl",
      { class: "tree data" },
      entries.map(([name, child]) => [h("dt", {}, name), h("dd", { dataset: { name } }, dataTree(child))]),
    );
  }
  return h("code", { class: "data-scalar" }, JSON.stringify(value) ?? String(value));
}

// The panel above a task's columns. `reload()` fetches the task record again and returns it (the
// view re-renders its status and meta from it, and calls `show` with it).
export class TaskActions {
  constructor(base, { signal, reload }) {
    this.base = base;
    this.signal = signal;
    this.reload = reload;
    this.root = h("section", { id: "task-actions", class: "task-actions", hidden: true });
    this.shown = null; // "reply:<pause>" or "review:<call_id>:<sha>:<approval>" now rendered
    this.note = null; // a message kept across a re-render (a 409's reason)
    this.review = null; // {approve, reject} while a review panel is shown
    bindKeys({ a: () => this.reviewing()?.approve(), r: () => this.reviewing()?.reject() }, signal);
  }

  // Renders what `task` (a full record) asks for; an unchanged pause keeps what is typed in it.
  show(task) {
    const pause = task.pause || {};
    let shown = null;
    if (task.status === "waiting_for_input") shown = `reply:${pause.call_id ?? ""}:${pause.kind ?? ""}:${pause.reason ?? ""}`;
    else if (task.status === "awaiting_review" && pause.pending_tool_call) {
      const call = pause.pending_tool_call;
      shown = `review:${call.call_id}:${call.arguments_sha256}:${call.approval ?? 1}`;
    }
    if (shown === this.shown) return;
    this.shown = shown;
    this.review = null;
    const note = this.note;
    this.note = null;
    if (shown === null) {
      // A decision's outcome stays in view after the pause ends; otherwise nothing is asked.
      clear(this.root, note);
      this.root.hidden = !note;
      delete this.root.dataset.kind;
      return;
    }
    this.root.hidden = false;
    this.root.dataset.kind = shown.split(":")[0];
    clear(this.root, shown.startsWith("reply") ? this.replyForm(pause) : this.reviewPanel(pause.pending_tool_call), note);
  }

  replyForm(pause) {
    const text = h("textarea", { id: "reply-text", name: "message", rows: "3", placeholder: "Your answer" });
    const files = h("input", { id: "reply-files", name: "files", type: "file", multiple: true });
    const send = h("button", { id: "reply-send", type: "submit" }, "Send answer");
    const outcome = h("div", { id: "reply-outcome", class: "action-outcome", role: "status" });
    // A refusal of an empty answer goes once there is something to send.
    const edited = () => outcome.querySelector(".error") && clear(outcome);
    text.addEventListener("input", edited);
    files.addEventListener("change", edited);
    const asked = pause.question
      ? h("p", { class: "asked" }, h("span", { class: "hint" }, "The agent asks: "), pause.question)
      : pause.kind === "failure_pause"
        ? h("p", { class: "asked" }, `A step failed${pause.tool_name ? ` (${pause.tool_name})` : ""}`,
            pause.reason ? `: ${pause.reason}` : "", ". Answer to let the task try again.")
        : null;
    const form = h(
      "form",
      {
        id: "reply-form",
        class: "action-form",
        onsubmit: async (event) => {
          event.preventDefault();
          if (!text.value.trim() && !files.files.length) {
            clear(outcome, errorBox("Write an answer or attach a file."));
            return;
          }
          const body = new FormData();
          body.append("message", text.value);
          for (const file of files.files) body.append("files", file, file.name);
          send.disabled = true;
          clear(outcome, h("p", { class: "hint" }, "Sending…"));
          try {
            await request(`${this.base}/message`, { method: "POST", form: body, signal: this.signal });
            clear(outcome, h("p", { class: "saved" }, "Answer sent: the task continues."));
            this.note = outcome;
            this.shown = "sent"; // the next record (no longer waiting) hides the form
            await this.reload();
          } catch (error) {
            send.disabled = false;
            if (this.signal.aborted) return;
            clear(outcome, errorBox(error));
            if (error instanceof ApiError && error.status === 409) {
              // The task no longer waits for an answer (answered elsewhere): show what it does now.
              this.note = outcome;
              this.shown = "stale";
              await this.reload().catch(() => undefined);
            }
          }
        },
      },
      h("h2", {}, "Waiting for your answer"),
      asked,
      h("label", { for: "reply-text" }, "Answer"),
      text,
      h("label", { for: "reply-files" }, "Files (optional)"),
      files,
      send,
      outcome,
    );
    return form;
  }

  reviewPanel(call) {
    const preview = call.preview;
    const target = call.binding?.target;
    const comment = h("input", { id: "review-comment", name: "comment", type: "text", placeholder: "Comment (optional, sent with the decision)" });
    const outcome = h("div", { id: "review-outcome", class: "action-outcome", role: "status" });
    const approve = h("button", { id: "review-approve", type: "button" }, "Approve");
    const reject = h("button", { id: "review-reject", type: "button", class: "danger" }, "Reject");
    const decide = async (decision) => {
      if (approve.disabled) return;
      approve.disabled = reject.disabled = true;
      clear(outcome, h("p", { class: "hint" }, decision === "approve" ? "Approving…" : "Rejecting…"));
      const body = { decision, call_id: call.call_id, arguments_sha256: call.arguments_sha256 };
      if (comment.value.trim()) body.comment = comment.value.trim();
      try {
        await postJson(`${this.base}/review`, body, { signal: this.signal });
        const done = decision === "approve" ? "Approved: the call is sent and the task continues." : "Rejected: the call is not sent; the agent is told.";
        clear(outcome, h("p", { class: "saved", dataset: { decision } }, done));
        this.note = outcome;
        this.shown = "decided";
        await this.reload();
      } catch (error) {
        if (this.signal.aborted) return;
        if (error instanceof ApiError && error.status === 409) {
          // The preview went stale (another call is pending, or what it would reach changed): say
          // so, and show the pending call as the API previews it now.
          this.note = h(
            "div",
            { id: "review-conflict", class: "error", role: "alert" },
            h("strong", {}, "Not sent: this preview is out of date. "),
            error.message,
            h("br"),
            "The call pending now is shown; review it again.",
          );
          this.shown = "stale"; // re-rendered with the note even when the same call is pending
          try {
            await this.reload();
          } catch (reloadError) {
            clear(outcome, this.note, errorBox(reloadError));
          }
          return;
        }
        approve.disabled = reject.disabled = false;
        clear(outcome, errorBox(error));
      }
    };
    approve.addEventListener("click", () => decide("approve"));
    reject.addEventListener("click", () => decide("reject"));
    this.review = { approve: () => approve.click(), reject: () => reject.click() };

    const facts = [
      h("dt", {}, "Tool"), h("dd", { id: "review-tool" }, h("code", {}, call.tool_name)),
      preview?.server ? [h("dt", {}, "MCP server"), h("dd", { id: "review-server" }, preview.server)] : null,
      preview?.url ? [h("dt", {}, "URL"), h("dd", { id: "review-url" }, h("code", {}, preview.url))] : null,
      preview?.tool ? [h("dt", {}, "Tool on the server"), h("dd", {}, h("code", {}, preview.tool))] : null,
      target && !preview ? [h("dt", {}, "Target"), h("dd", { id: "review-target" }, dataTree(target))] : null,
      h("dt", {}, "Arguments"),
      h("dd", { id: "review-arguments", dataset: { sha256: call.arguments_sha256 } }, dataTree(preview?.arguments ?? call.arguments ?? {})),
      h("dt", {}, "Call"),
      h("dd", { class: "hint" }, `${call.call_id} · step ${call.step ?? "?"} · approval ${call.approval ?? 1} · arguments SHA-256 ${String(call.arguments_sha256).slice(0, 12)}…`),
    ];
    const previous = call.previous_attempt;
    return h(
      "div",
      { id: "review-panel", class: "action-form", dataset: { callId: call.call_id } },
      h("h2", {}, "Waiting for your approval"),
      h("p", {}, "The agent wants to make this call. Nothing is sent until you approve it."),
      previous
        ? h("p", { class: "error-text", id: "review-previous" },
            `The last approved send (approval ${previous.approval}) ${previous.outcome === "failed" ? "failed" : "ended unknown"}: ${previous.error ?? ""}`)
        : null,
      h("dl", { class: "review-facts" }, facts),
      comment,
      h("div", { class: "action-buttons" }, approve, reject,
        h("span", { class: "hint keys" }, "Keys: ", h("kbd", {}, "a"), " approve, ", h("kbd", {}, "r"), " reject")),
      outcome,
    );
  }

  // The review the keys `a` and `r` answer (keys.js leaves keys typed into fields alone).
  reviewing() {
    return this.root.hidden ? null : this.review;
  }
}
