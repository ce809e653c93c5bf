// A document page as an image with citation boxes drawn over it. The image is fetched with the
// API key and shown through a blob: URL, because an <img> cannot send an Authorization header.

import { request } from "./api.js";
import { clear, errorBox, h } from "./dom.js";

const MIN_WIDTH = 64;
const MAX_WIDTH = 2000;
const FALLBACK_WIDTH = 1000;

export class PageViewer {
  constructor() {
    this.root = h("section", { class: "viewer", id: "page-viewer", "aria-live": "polite" });
    this.objectUrl = null;
    this.shown = 0;
    this.empty();
  }

  empty(text = "Click a cited value to see where it was read.") {
    this.release();
    clear(this.root, h("p", { class: "hint" }, text));
  }

  release() {
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
    this.objectUrl = null;
  }

  // Sharp on the screen it is shown on: the panel's width in device pixels, within the API's bounds.
  renderWidth() {
    const cssWidth = this.root.clientWidth || FALLBACK_WIDTH;
    const wanted = Math.round(cssWidth * (window.devicePixelRatio || 1));
    return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, wanted));
  }

  // Shows `page` (1-based) of `fileId` with `boxes` ({left, top, width, height} fractions).
  async show({ fileId, page, boxes = [], caption = "" }) {
    const shown = ++this.shown;
    clear(this.root, h("p", { class: "hint" }, `Loading page ${page}…`));
    const path = `/api/v2/files/${encodeURIComponent(fileId)}/pages/${page}?width=${this.renderWidth()}`;
    let blob;
    try {
      blob = await (await request(path)).blob();
    } catch (error) {
      if (shown === this.shown) clear(this.root, errorBox(error));
      return;
    }
    if (shown !== this.shown) return; // a later click won the race
    this.release();
    this.objectUrl = URL.createObjectURL(blob);
    const image = h("img", { class: "page-image", id: "page-image", alt: `Page ${page}${caption ? ` of ${caption}` : ""}` });
    const marks = boxes.map((box, i) => {
      const mark = h("div", { class: "citation-box", dataset: { index: String(i) } });
      mark.style.left = `${box.left * 100}%`;
      mark.style.top = `${box.top * 100}%`;
      mark.style.width = `${box.width * 100}%`;
      mark.style.height = `${box.height * 100}%`;
      return mark;
    });
    const frame = h("div", { class: "page-frame" }, image, marks);
    const loaded = new Promise((resolve, reject) => {
      image.addEventListener("load", resolve, { once: true });
      image.addEventListener("error", reject, { once: true });
    });
    image.src = this.objectUrl;
    clear(this.root, h("p", { class: "viewer-caption" }, caption, caption ? " · " : "", `page ${page}`), frame);
    try {
      await loaded;
      frame.classList.add("loaded");
      marks[0]?.scrollIntoView({ block: "nearest", inline: "nearest" });
    } catch {
      if (shown === this.shown) clear(this.root, errorBox(new Error("The page image could not be shown.")));
    }
  }
}
