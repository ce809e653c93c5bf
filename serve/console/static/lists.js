// The agents list and the tasks list (cursor pages of `{data, has_more, next_cursor}`).

import { getJson, query } from "./api.js";
import { clear, errorBox, h, statusBadge, statusWords, when } from "./dom.js";

const PAGE_SIZE = 50;
const REFRESH_MS = 5000;
const STATUSES = [
  "pending",
  "queued",
  "running",
  "waiting_for_input",
  "awaiting_review",
  "completed",
  "failed",
  "stopped",
];

export function agentsView(signal) {
  const body = h("tbody", {});
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "Load more");
  const root = h(
    "section",
    {},
    h("h1", {}, "Agents"),
    h(
      "table",
      { class: "list", id: "agents" },
      h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Version"), h("th", {}, "Status"), h("th", {}, "Updated"), h("th", {}, ""))),
      body,
    ),
    more,
  );
  let cursor = "";
  async function load() {
    try {
      const page = await getJson(`/api/v1/agents${query({ limit: PAGE_SIZE, cursor })}`, { signal });
      for (const agent of page.data) {
        body.append(
          h(
            "tr",
            { dataset: { agentId: agent.id } },
            h("td", {}, agent.name),
            h("td", {}, String(agent.version_number)),
            h("td", {}, agent.is_active === false ? "inactive" : agent.status),
            h("td", {}, when(agent.updated_at)),
            h("td", {}, h("a", { href: `#/tasks?agent_group_id=${encodeURIComponent(agent.agent_group_id)}` }, "Tasks")),
          ),
        );
      }
      if (page.data.length === 0 && !cursor) body.append(h("tr", {}, h("td", { colspan: "5", class: "hint" }, "No agents yet.")));
      cursor = page.next_cursor;
      more.hidden = !page.has_more;
    } catch (error) {
      if (!signal.aborted) root.append(errorBox(error));
    }
  }
  more.addEventListener("click", load);
  load();
  return root;
}

export function tasksView(params, signal) {
  const filters = {
    status: params.get("status") || "",
    title: params.get("title") || "",
    agent_group_id: params.get("agent_group_id") || "",
  };
  const body = h("tbody", {});
  const problem = h("div", {});
  const statusSelect = h(
    "select",
    { id: "status-filter", name: "status" },
    h("option", { value: "" }, "any status"),
    STATUSES.map((s) => h("option", { value: s, selected: s === filters.status }, statusWords(s))),
  );
  const titleInput = h("input", { id: "title-filter", name: "title", type: "search", placeholder: "title contains", value: filters.title });
  const form = h(
    "form",
    { class: "filters" },
    statusSelect,
    titleInput,
    filters.agent_group_id ? h("span", { class: "chip" }, "one agent ", h("a", { href: "#/tasks" }, "×")) : null,
    h("button", { type: "submit" }, "Filter"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams({ ...filters, status: statusSelect.value, title: titleInput.value.trim() });
    for (const [k, v] of [...next]) if (!v) next.delete(k);
    location.hash = `#/tasks${next.toString() ? `?${next}` : ""}`;
  });
  const root = h(
    "section",
    {},
    h("h1", {}, "Tasks"),
    form,
    h(
      "table",
      { class: "list", id: "tasks" },
      h("thead", {}, h("tr", {}, h("th", {}, "Title"), h("th", {}, "Status"), h("th", {}, "Agent"), h("th", {}, "Created"))),
      body,
    ),
    problem,
  );

  // The first page is refreshed while the list is open, so statuses move as the tasks run; rows
  // are rebuilt only when something changed, so a row is not replaced under the pointer.
  let shown = null;
  async function load() {
    try {
      const page = await getJson(`/api/v1/tasks${query({ limit: PAGE_SIZE, ...filters })}`, { signal });
      clear(problem);
      const signature = JSON.stringify(page.data.map((t) => [t.task_id, t.status, t.title]));
      if (signature === shown) return;
      shown = signature;
      clear(
        body,
        page.data.map((task) =>
          h(
            "tr",
            { dataset: { taskId: task.task_id } },
            h("td", {}, h("a", { href: `#/tasks/${task.task_id}` }, task.title || task.task_id)),
            h("td", {}, statusBadge(task.status)),
            h("td", {}, task.agent_name ?? ""),
            h("td", {}, when(task.created_at)),
          ),
        ),
        page.data.length ? null : h("tr", {}, h("td", { colspan: "4", class: "hint" }, "No tasks match.")),
      );
    } catch (error) {
      if (!signal.aborted) clear(problem, errorBox(error));
    }
  }
  load();
  const timer = setInterval(load, REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
  return root;
}
