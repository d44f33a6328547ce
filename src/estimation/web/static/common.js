// Shared helpers: DOM building, storage, the REST client, settings, cards.
import { t } from "./i18n.js";
import { serverText } from "./errors.js";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  // Any depth: a panel may pass a list of rows of buttons (a flat(1) here once drew "[object HTMLButtonElement]").
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A number that may be negative, kept left to right (in Arabic a bare "-12" would show as "12-"). */
export function num(v) { return h("bdi", { dir: "ltr" }, String(v)); }

export const store = {
  get(key, fallback = null) {
    try { const v = localStorage.getItem("est." + key); return v === null ? fallback : JSON.parse(v); }
    catch { return fallback; }
  },
  set(key, value) { localStorage.setItem("est." + key, JSON.stringify(value)); },
  del(key) { localStorage.removeItem("est." + key); },
};

export function session() { return store.get("session"); }

/** A refused request; its message is the server's reason in the page's language (errors.js). */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && serverText(body.code, null, body.detail)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** A REST call; `extra`: headers to add, and `extra.invite`, a private table's or competition's invite code
 * (sent as X-Invite-Code). */
export async function api(method, path, body, extra = {}) {
  const { invite, ...extraHeaders } = extra;
  const headers = { "Content-Type": "application/json", ...extraHeaders };
  if (invite) headers["X-Invite-Code"] = invite;
  const s = session();
  if (s && s.token) headers.Authorization = `Bearer ${s.token}`;
  let r, data;
  for (let attempt = 0; ; attempt++) {
    r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    data = text ? JSON.parse(text) : null;
    // Cluster mode: the table is changing workers and nothing was done; ask again through the balancer.
    if (r.status !== 503 || !data || data.code !== "table_moved" || attempt >= 5) break;
    await new Promise((ok) => setTimeout(ok, 1000 * (Number(r.headers.get("Retry-After")) || 1)));
  }
  if (!r.ok) {
    if (r.status === 401 && s) store.del("session");
    throw new ApiError(r.status, data);
  }
  return data;
}

// --- settings --------------------------------------------------------------------------------------
const DEFAULTS = { lang: "en", motion: "auto", fourColour: false, pause: 1000, sound: true };

export function settings() {
  const s = { ...DEFAULTS, ...store.get("settings", {}) };
  // A test setting: ?pause=MS shortens the completed trick's pause for this page.
  const q = new URLSearchParams(location.search).get("pause");
  if (q !== null && /^\d+$/.test(q)) s.pause = Number(q);
  return s;
}

export function saveSettings(patch) { store.set("settings", { ...store.get("settings", {}), ...patch }); }

export function reduceMotion() {
  const m = settings().motion;
  if (m === "on") return true;
  if (m === "off") return false;
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// --- cards -----------------------------------------------------------------------------------------
export const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };
export const SUIT_ORDER = ["S", "H", "C", "D"]; // alternating colours in the hand
const RANKS = "23456789TJQKA";
export const rankValue = (card) => RANKS.indexOf(card[0]);

export function sortHand(cards) {
  return [...cards].sort((a, b) => SUIT_ORDER.indexOf(a[1]) - SUIT_ORDER.indexOf(b[1]) || rankValue(b) - rankValue(a));
}

export function rankText(r) { return r === "T" ? "10" : r; }

export function trumpText(tr) {
  if (tr === null || tr === undefined) return "?";
  return tr === "NT" ? t("no_trump") : SUIT_GLYPH[tr];
}

/** A call like "7S" or "4NT" with its suit glyph. */
export function callText(call) {
  const m = /^(\d+)(NT|[SHDC])$/.exec(call);
  if (!m) return call;
  return m[2] === "NT" ? `${m[1]} NT` : `${m[1]}${SUIT_GLYPH[m[2]]}`;
}

export function cardFace(card, tag = "span", attrs = {}) {
  const suit = card[1];
  return h(tag, { class: `card suit-${suit}`, "data-card": card, ...attrs },
    h("span", { class: "rank" }, rankText(card[0])), h("span", { class: "pip" }, SUIT_GLYPH[suit]));
}

export function cardBack() { return h("span", { class: "card back", "aria-hidden": "true" }); }

export function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

/**
 * Ask before something that cannot be undone: a modal dialog with the question and two visible buttons.
 * Resolves true for OK, false for Cancel, Escape or closing it.
 */
export function confirmDialog({ id = "confirm-dialog", title, text = [], ok, cancel }) {
  return new Promise((resolve) => {
    document.querySelectorAll(`#${id}`).forEach((d) => d.remove());
    let answer = false;
    const dlg = h("dialog", { class: "confirm", id, "aria-labelledby": `${id}-title` },
      h("h2", { id: `${id}-title` }, title),
      (Array.isArray(text) ? text : [text]).filter(Boolean).map((p) => h("p", {}, p)),
      h("div", { class: "row" },
        h("button", { type: "button", class: "cancel", onclick: () => dlg.close() }, cancel),
        h("button", { type: "button", class: "primary ok", onclick: () => { answer = true; dlg.close(); } }, ok)));
    dlg.addEventListener("close", () => { dlg.remove(); resolve(answer); });
    document.body.append(dlg);
    dlg.showModal();
    dlg.querySelector("button.cancel").focus();
  });
}
