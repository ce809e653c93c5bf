// Server-Sent Events read with fetch(): EventSource cannot send an Authorization header, so the
// stream is read as text and parsed here (the WHATWG event stream format), and a dropped stream
// is resumed from the last event id, so nothing is missed and nothing is seen twice.

import { ApiError, request } from "./api.js";

// Splits a text stream into events. Feed it chunks as they arrive; it returns complete events.
export class SseParser {
  constructor() {
    this.buffer = "";
    // A chunk that ends in CR has ended its line; an LF opening the next chunk belongs to it.
    this.skipLf = false;
    this.reset();
  }

  reset() {
    this.event = "";
    this.data = [];
    this.id = null;
  }

  push(chunk) {
    if (this.skipLf && chunk.startsWith("\n")) chunk = chunk.slice(1);
    if (chunk) this.skipLf = chunk.endsWith("\r");
    this.buffer += chunk;
    const events = [];
    // Lines end with CRLF, LF or CR.
    const lines = this.buffer.split(/\r\n|\n|\r/);
    this.buffer = lines.pop();
    for (const line of lines) {
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  line(line) {
    if (line === "") {
      if (this.data.length === 0) {
        this.reset();
        return null;
      }
      const event = { type: this.event || "message", data: this.data.join("\n"), id: this.id };
      this.reset();
      return event;
    }
    if (line.startsWith(":")) return null; // a comment: the server's keep-alive ping
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
    return null;
  }
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10000;

function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// Follows the event stream at `path` until an event of type `until` arrives or `signal` aborts.
// `onEvent({type, data, id})` gets each event with its JSON data parsed; `onState(text)` hears
// "live" and "reconnecting". A refusal (401, 403, 404) ends the follow with an ApiError.
export async function followEvents(path, { onEvent, onState = () => {}, signal, until = "end" }) {
  let lastId = null;
  let wait = RETRY_FIRST_MS;
  while (!signal?.aborted) {
    const url = lastId ? `${path}${path.includes("?") ? "&" : "?"}last_event_id=${encodeURIComponent(lastId)}` : path;
    try {
      const response = await request(url, { signal, headers: { Accept: "text/event-stream" } });
      onState("live");
      wait = RETRY_FIRST_MS;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) {
          if (event.id) lastId = event.id;
          let data;
          try {
            data = JSON.parse(event.data);
          } catch {
            data = event.data;
          }
          onEvent({ type: event.type, data, id: event.id });
          if (event.type === until) return;
        }
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiError && error.status < 500 && error.status !== 429) throw error;
    }
    // The server closes a long stream on purpose (before a proxy would cut it) and networks
    // drop: either way the stream is picked up again after the last event seen.
    onState("reconnecting");
    await pause(wait, signal);
    wait = Math.min(wait * 2, RETRY_MAX_MS);
  }
}
