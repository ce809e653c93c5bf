// A document page as an image with citation boxes drawn over it, zoomed and panned in a viewport.
// The image is fetched with the API key and shown through a blob: URL, because an <img> cannot send
// an Authorization header. The boxes are placed in fractions of the image, so they stay on their
// words at every zoom.

import { request } from "./api.js";
import { clear, errorBox, h } from "./dom.js";
import { bindKeys } from "./keys.js";

const MIN_WIDTH = 64;
const MAX_WIDTH = 2000;
const FALLBACK_WIDTH = 1000;
// Zoom is relative to the page fitted to the viewport's width (1).
const MIN_SCALE = 0.25;
const MAX_SCALE = 8;
const STEP = 1.25;
const WHEEL_STEP = 1.1;
// Going to a value zooms in until its box is about this share of the viewport's width, within bounds.
const FOCUS_SHARE = 0.45;
const FOCUS_MAX_SCALE = 2.5;
// A zoomed page is fetched again, sharper, once the zoom has rested this long.
const SHARPEN_MS = 300;

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

// The viewer the zoom keys act on: the one that last showed a page, while it is on screen.
let active = null;
bindKeys({
  "+": () => active?.zoomBy(STEP),
  "=": () => active?.zoomBy(STEP),
  "-": () => active?.zoomBy(1 / STEP),
  0: () => active?.fit(),
});

export class PageViewer {
  constructor() {
    this.root = h("section", { class: "viewer", id: "page-viewer", "aria-live": "polite" });
    this.objectUrl = null;
    this.shown = 0;
    this.scale = 1;
    this.page = null; // {fileId, page, width, viewport, frame, image, readout} of the page on screen
    this.ready = Promise.resolve();
    this.sharpenTimer = null;
    this.empty();
  }

  empty(text = "Click a cited value to see where it was read.") {
    this.shown++;
    this.release();
    clear(this.root, h("p", { class: "hint" }, text));
  }

  release() {
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
    this.objectUrl = null;
    this.page = null;
    clearTimeout(this.sharpenTimer);
    if (active === this) active = null;
  }

  // Sharp on the screen it is shown on: `cssWidth` in device pixels, within the API's bounds.
  renderWidth(cssWidth = this.root.clientWidth || FALLBACK_WIDTH) {
    const wanted = Math.round(cssWidth * (window.devicePixelRatio || 1));
    return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, wanted));
  }

  async fetchPage(fileId, page, width) {
    const path = `/api/v2/files/${encodeURIComponent(fileId)}/pages/${page}?width=${width}`;
    return (await request(path)).blob();
  }

  // Shows `page` (1-based) of `fileId` with `boxes` ({left, top, width, height} fractions). The
  // page on screen already is kept, with its zoom, and only its boxes change. `this.ready` settles
  // once the page is drawn.
  show({ fileId, page, boxes = [], caption = "" }) {
    this.ready = this.draw({ fileId, page, boxes, caption });
    return this.ready;
  }

  async draw({ fileId, page, boxes, caption }) {
    const shown = ++this.shown;
    const marks = boxes.map((box, i) => {
      const mark = h("div", { class: "citation-box", dataset: { index: String(i) } });
      mark.style.left = `${box.left * 100}%`;
      mark.style.top = `${box.top * 100}%`;
      mark.style.width = `${box.width * 100}%`;
      mark.style.height = `${box.height * 100}%`;
      return mark;
    });
    if (this.page && this.page.fileId === fileId && this.page.page === page) {
      const same = this.page;
      for (const old of same.frame.querySelectorAll(".citation-box")) old.remove();
      same.frame.append(...marks);
      same.caption.textContent = `${caption}${caption ? " · " : ""}page ${page}`;
      active = this;
      if (await same.loaded) marks[0]?.scrollIntoView({ block: "nearest", inline: "nearest" });
      return;
    }
    clear(this.root, h("p", { class: "hint" }, `Loading page ${page}…`));
    const width = this.renderWidth();
    let blob;
    try {
      blob = await this.fetchPage(fileId, page, width);
    } catch (error) {
      if (shown === this.shown) clear(this.root, errorBox(error));
      return;
    }
    if (shown !== this.shown) return; // a later click won the race
    this.release();
    this.objectUrl = URL.createObjectURL(blob);
    const image = h("img", {
      class: "page-image",
      id: "page-image",
      alt: `Page ${page}${caption ? ` of ${caption}` : ""}`,
      draggable: "false",
    });
    const frame = h("div", { class: "page-frame" }, image, marks);
    const viewport = h("div", { class: "page-viewport", id: "page-viewport", tabindex: "0" }, frame);
    const readout = h("output", { id: "viewer-zoom", class: "zoom-readout", "aria-live": "polite" });
    const captionNode = h("span", {}, `${caption}${caption ? " · " : ""}page ${page}`);
    // True once the image is shown, false when it could not be.
    const loaded = new Promise((resolve) => {
      image.addEventListener("load", () => resolve(true), { once: true });
      image.addEventListener("error", () => resolve(false), { once: true });
    });
    image.src = this.objectUrl;
    clear(this.root, h("div", { class: "viewer-bar" }, h("p", { class: "viewer-caption" }, captionNode), this.toolbar(readout)), viewport);
    this.page = { fileId, page, width, viewport, frame, image, readout, caption: captionNode, loaded };
    active = this;
    this.listen(viewport);
    this.apply();
    const ok = await loaded;
    // Another page may be on screen by now; the same page with other boxes keeps this image.
    if (this.page?.frame !== frame) return;
    if (!ok) {
      this.release();
      clear(this.root, errorBox(new Error("The page image could not be shown.")));
      return;
    }
    if (shown === this.shown) marks[0]?.scrollIntoView({ block: "nearest", inline: "nearest" });
    this.sharpenLater();
  }

  toolbar(readout) {
    const button = (id, label, title, onclick) => h("button", { type: "button", class: "quiet zoom-button", id, title, "aria-label": title, onclick }, label);
    return h(
      "div",
      { class: "zoom-tools", role: "toolbar", "aria-label": "Page zoom" },
      button("viewer-zoom-out", "−", "Zoom out (-)", () => this.zoomBy(1 / STEP)),
      readout,
      button("viewer-zoom-in", "+", "Zoom in (+)", () => this.zoomBy(STEP)),
      button("viewer-fit", "Fit", "Fit the page's width (0)", () => this.fit()),
    );
  }

  // Ctrl+wheel (a trackpad's pinch too) zooms around the pointer; a drag pans.
  listen(viewport) {
    viewport.addEventListener(
      "wheel",
      (event) => {
        if (!event.ctrlKey) return; // a plain wheel scrolls the viewport
        event.preventDefault();
        this.zoomTo(this.scale * (event.deltaY < 0 ? WHEEL_STEP : 1 / WHEEL_STEP), { x: event.clientX, y: event.clientY });
      },
      { passive: false },
    );
    let drag = null;
    viewport.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      drag = { x: event.clientX, y: event.clientY, left: viewport.scrollLeft, top: viewport.scrollTop, id: event.pointerId };
      viewport.setPointerCapture?.(event.pointerId);
      viewport.classList.add("dragging");
    });
    viewport.addEventListener("pointermove", (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      viewport.scrollLeft = drag.left - (event.clientX - drag.x);
      viewport.scrollTop = drag.top - (event.clientY - drag.y);
    });
    const stop = (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      drag = null;
      viewport.classList.remove("dragging");
    };
    viewport.addEventListener("pointerup", stop);
    viewport.addEventListener("pointercancel", stop);
  }

  fit() {
    this.zoomTo(1);
  }

  zoomBy(factor) {
    this.zoomTo(this.scale * factor);
  }

  // Zooms to `scale`, keeping the page point under `anchor` (client coordinates; the viewport's
  // centre by default) where it is.
  zoomTo(scale, anchor = null) {
    const target = clamp(scale, MIN_SCALE, MAX_SCALE);
    if (!this.page) {
      this.scale = target;
      return;
    }
    const { viewport } = this.page;
    const rect = viewport.getBoundingClientRect();
    const x = anchor ? anchor.x - rect.left - viewport.clientLeft : viewport.clientWidth / 2;
    const y = anchor ? anchor.y - rect.top - viewport.clientTop : viewport.clientHeight / 2;
    const pointX = viewport.scrollLeft + x;
    const pointY = viewport.scrollTop + y;
    const ratio = target / this.scale;
    this.scale = target;
    this.apply();
    viewport.scrollLeft = pointX * ratio - x;
    viewport.scrollTop = pointY * ratio - y;
    this.sharpenLater();
  }

  // Sizes the frame for the zoom: fitted, it follows the viewport's width as the window changes.
  apply() {
    const { viewport, frame, readout } = this.page;
    frame.style.width = this.scale === 1 ? "" : `${viewport.clientWidth * this.scale}px`;
    viewport.dataset.scale = String(this.scale);
    readout.textContent = this.scale === 1 ? "fit" : `${Math.round(this.scale * 100)}%`;
  }

  // Brings citation box `index` into the middle of the viewport, zooming in (never out) until it
  // is readable. Waits for the page being drawn.
  async focusBox(index = 0) {
    await this.ready;
    const box = this.page?.frame.querySelector(`.citation-box[data-index="${index}"]`);
    if (!box) return;
    const share = parseFloat(box.style.width) / 100;
    const wanted = clamp(share > 0 ? FOCUS_SHARE / share : 1, 1, FOCUS_MAX_SCALE);
    if (this.scale < wanted) this.zoomTo(wanted);
    const { viewport, frame } = this.page;
    const left = (parseFloat(box.style.left) / 100 + share / 2) * frame.clientWidth;
    const top = (parseFloat(box.style.top) / 100 + parseFloat(box.style.height) / 200) * frame.clientHeight;
    viewport.scrollLeft = left - viewport.clientWidth / 2;
    viewport.scrollTop = top - viewport.clientHeight / 2;
    viewport.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  // A page shown larger than it was rendered is fetched again at the width it is shown at.
  sharpenLater() {
    clearTimeout(this.sharpenTimer);
    const page = this.page;
    if (!page) return;
    this.sharpenTimer = setTimeout(async () => {
      const width = this.renderWidth(page.frame.clientWidth);
      if (this.page !== page || width <= page.width * 1.2 || page.width >= MAX_WIDTH) return;
      try {
        const blob = await this.fetchPage(page.fileId, page.page, width);
        if (this.page !== page) return;
        const url = URL.createObjectURL(blob);
        URL.revokeObjectURL(this.objectUrl);
        this.objectUrl = url;
        page.image.src = url;
        page.width = width;
      } catch {
        // The blurrier rendering stays: it still shows the page.
      }
    }, SHARPEN_MS);
  }
}
