// The console's keyboard shortcuts, all handled here: one listener on the document, and the keys
// each view binds for as long as it is shown. A key typed into a field is text, never a shortcut.

// Later bindings win: a view's keys shadow the page-wide ones while it is shown.
const bindings = [];

// Binds `keys` ({key: handler(event)}, `key` as KeyboardEvent.key) until `signal` aborts; without
// a signal, for the page's life.
export function bindKeys(keys, signal) {
  if (signal?.aborted) return;
  const binding = { keys };
  bindings.push(binding);
  signal?.addEventListener("abort", () => bindings.splice(bindings.indexOf(binding), 1), { once: true });
}

// Where a key press means text: inputs, text areas, selects and editable content.
function typing(target) {
  if (!(target instanceof Element)) return false;
  return Boolean(target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
}

document.addEventListener("keydown", (event) => {
  // With a modifier the key belongs to the browser (Ctrl+0, Ctrl+- zoom the whole page).
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  for (let i = bindings.length - 1; i >= 0; i--) {
    const handler = bindings[i].keys[event.key];
    if (!handler) continue;
    event.preventDefault();
    handler(event);
    return;
  }
});
