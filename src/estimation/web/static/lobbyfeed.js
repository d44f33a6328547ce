// The live lobby: the /ws/lobby socket (a `lobby` snapshot, then `table` / `table_removed` changes), the open
// tables and tables in play drawn from it, quick play, rematch offers, toasts and links to players' profiles.
// Every name is put in the page as text (h() makes text nodes), never as HTML.
import { h, api, session, store, num } from "./common.js";
import { t } from "./i18n.js";
import { rulesetOptions, lengthOptions, playsText } from "./rulesets.js";

/** Put `kids` in `el` in place of what it held (null, undefined and false are left out, arrays flattened). */
export function fill(el, ...kids) {
  el.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false));
  return el;
}

export { num }; // its pages import it from here

/** A player's name as a link to their profile (bots and empty seats have no profile). */
export function playerLink(name, accountId, attrs = {}) {
  if (accountId === null || accountId === undefined) return h("span", { class: "pname", ...attrs }, name);
  return h("a", { class: "player-link", href: `#/player/${accountId}`, "data-player": accountId, ...attrs }, name);
}

/** A seat's holder as shown: a person's name (a profile link), or a bot by the page's word for it ("Bot 2"
 *  / "روبوت 2": it says bot already, so no "(bot)" after it, and it is in the page's language). */
export function seatName(s) {
  if (s.bot) return h("span", { class: "pname bot" }, botName(s.seat));
  return playerLink(s.name, s.account_id);
}

/** A bot's name at a seat, in the page's language (the server names its bots "Bot N" in English). */
export function botName(seat) { return t("bot_n", { n: seat + 1 }); }

/** A game's four players as the page names them: a bot's seat by botName, in the page's language (the
 *  server's view names its bots "Bot N" in English; the table's `seats` say which are bots by `bot`, a marker
 *  in no language), anyone else by the name the server gives (a person who left and whom a bot replaced
 *  keeps their own name: their seat is no bot's). */
export function playerNames(players, seats) {
  return players.map((name, s) => (seats && seats[s] && seats[s].bot ? botName(s) : name));
}

/** The four seats of a table: each name a profile link, bots marked, empty seats said. */
export function seatsLine(table) {
  const parts = [];
  for (const s of table.seats) {
    if (parts.length) parts.push(" · ");
    if (!s.name) parts.push(h("span", { class: "empty-seat", "data-seat": s.seat }, t("empty_seat")));
    else parts.push(h("span", { class: "seat-name", "data-seat": s.seat }, seatName(s), s.left ? ` (${t("m_left")})` : ""));
  }
  return h("small", { class: "seats-line" }, parts);
}

/** A table's name as its creator gave it, as text in a <bdi> (its own direction never reorders the line
 *  around it), or null: a table without a name is its number only. */
export function tableName(table) {
  return table && table.name ? h("bdi", { class: "table-name", "data-name": "" }, table.name) : null;
}

/** "Table 12" and its name, the lobby's heading of a table. */
export function tableTitle(table) {
  const name = tableName(table);
  return [h("strong", {}, t("table_n", { n: table.id })), name ? [" · ", name, " ·"] : null];
}

/** What a table plays: ruleset, length, stake. */
export function rulesLine(table) {
  return [playsText(table.ruleset, table.length), table.partners ? ` · ${t("partners")}` : "",
    table.stake ? ` · ${t("stake")} ${table.stake}` : ""];
}

// --- toasts --------------------------------------------------------------------------------------------
function toastBox() {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", class: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  return box;
}

/** A short note at the bottom of the screen that outlives a page change; `extra` are buttons or links. */
export function toast(text, { ms = 7000, id = null, extra = [] } = {}) {
  const box = toastBox();
  if (id) box.querySelectorAll(`[data-toast="${id}"]`).forEach((e) => e.remove());
  const close = () => el.remove();
  const el = h("div", { class: "toast", "data-toast": id || "" },
    h("span", { class: "toast-text" }, text), extra,
    h("button", { type: "button", class: "link toast-close", "aria-label": t("close"), onclick: close }, "×"));
  box.append(el);
  if (ms) setTimeout(close, ms);
  return el;
}

// --- the socket ----------------------------------------------------------------------------------------
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];

/**
 * The lobby socket, reconnecting by itself (backing off from 0.5 s to 15 s, with jitter). `tables` holds the
 * public open and playing tables by id. Callbacks: onChange() after any change, onStatus(live), onReconnect()
 * when a snapshot arrives after a drop (a chance to fetch again what the socket does not carry), and
 * onMessage(m) for the rest (`rematch`, `mutes` on the player's own topic after `hello`).
 */
export class LobbyFeed {
  constructor({ onChange = () => {}, onStatus = () => {}, onReconnect = () => {}, onMessage = () => {} } = {}) {
    Object.assign(this, { onChange, onStatus, onReconnect, onMessage });
    this.tables = new Map();
    this.attempt = 0;
    this.snapshots = 0;
    this.closed = false;
    this.ws = null;
    this.timer = null;
    this.pinger = null;
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try { ws = new WebSocket(`${proto}//${location.host}/ws/lobby`); } catch { this.retry(); return; }
    this.ws = ws;
    ws.onopen = () => {
      const s = session();
      if (s && s.token) ws.send(JSON.stringify({ type: "hello", token: s.token }));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => { if (ws.readyState === 1) ws.send(JSON.stringify({ type: "ping" })); }, 25000);
    };
    ws.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch { return; }
      if (m && typeof m === "object") this.handle(m);
    };
    ws.onclose = () => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.onStatus(false);
      this.retry();
    };
  }

  retry() {
    clearTimeout(this.timer);
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), base / 2 + Math.random() * base / 2);
  }

  handle(m) {
    if (m.type === "lobby" && Array.isArray(m.tables)) {
      this.attempt = 0;
      this.tables = new Map(m.tables.map((tb) => [tb.id, stamp(tb)]));
      this.onStatus(true);
      if (this.snapshots++ > 0) this.onReconnect();
      this.onChange();
    } else if (m.type === "table" && m.table) {
      const tb = m.table;
      if (tb.private || (tb.status !== "open" && tb.status !== "playing")) this.tables.delete(tb.id);
      else this.tables.set(tb.id, stamp(tb));
      this.onChange();
    } else if (m.type === "table_removed") {
      this.tables.delete(m.id);
      this.onChange(m);
    } else {
      this.onMessage(m);
    }
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) { const ws = this.ws; this.ws = null; ws.close(); }
  }
}

/** When a quick-play table's bots come, as this browser's clock reads it. */
function stamp(table) {
  return { ...table, botsAt: table.bots_in_ms === null || table.bots_in_ms === undefined ? null : Date.now() + table.bots_in_ms };
}

function secondsUntil(at) { return Math.max(0, Math.ceil((at - Date.now()) / 1000)); }

// --- the two live lists ----------------------------------------------------------------------------------
/** At most this many tables of each kind are drawn. */
const SHOWN = 40;

/**
 * The open tables and the tables in play, drawn from a LobbyFeed and kept in step with it: only the rows
 * that changed are drawn again, so a button under the pointer or the keyboard stays where it is.
 * `buttons(table)` gives a row's buttons (Join, Watch).
 */
export class LiveTables {
  constructor({ openButtons, playingButtons }) {
    this.openButtons = openButtons;
    this.playingButtons = playingButtons;
    this.open = this.section(t("open_tables"), "open-tables");
    this.playing = this.section(t("playing_tables"), "playing-tables");
    this.rows = new Map(); // id -> li
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  section(title, id) {
    const list = h("ul", {});
    const none = h("p", { class: "muted none" }, t("none"));
    const more = h("p", { class: "muted more" });
    const el = h("section", { class: "tables", id }, h("h2", {}, title), list, none, more);
    return { el, list, none, more };
  }

  row(tb) {
    const quick = tb.quickplay && tb.status === "open" && tb.botsAt !== null;
    const li = h("li", { "data-table": tb.id, "data-status": tb.status, class: quick ? "quick" : null },
      tableTitle(tb), " ", rulesLine(tb),
      tb.quickplay ? [" ", h("span", { class: "chip quick-chip" }, t("s_qp_badge"))] : "",
      quick ? [" ", h("span", { class: "bots-in", "data-at": tb.botsAt }, t("s_bots_in", { s: secondsUntil(tb.botsAt) }))] : "",
      h("br"), seatsLine(tb), " ",
      tb.status === "open" ? this.openButtons(tb) : this.playingButtons(tb));
    li.dataset.sig = JSON.stringify([tb.status, tb.version, tb.seats, quick ? Math.round(tb.botsAt / 1000) : null, tb.name]);
    return li;
  }

  /** Draw the feed's tables: newest first, open ones and those in play. */
  update(tables) {
    const byStatus = { open: [], playing: [] };
    for (const tb of tables.values()) if (byStatus[tb.status]) byStatus[tb.status].push(tb);
    const seen = new Set();
    for (const [status, part] of [["open", this.open], ["playing", this.playing]]) {
      const list = byStatus[status].sort((a, b) => b.id - a.id);
      const shown = list.slice(0, SHOWN);
      const lis = shown.map((tb) => {
        seen.add(tb.id);
        const fresh = this.row(tb);
        const old = this.rows.get(tb.id);
        if (old && old.dataset.sig === fresh.dataset.sig) return old;
        if (old && old.contains(document.activeElement)) keepFocus(old, fresh);
        this.rows.set(tb.id, fresh);
        return fresh;
      });
      // Put the rows in order, moving only those out of place.
      lis.forEach((li, i) => {
        if (part.list.children[i] !== li) part.list.insertBefore(li, part.list.children[i] || null);
      });
      while (part.list.children.length > lis.length) part.list.lastElementChild.remove();
      part.none.hidden = lis.length > 0;
      part.more.textContent = list.length > SHOWN ? t("s_more", { n: list.length - SHOWN }) : "";
    }
    for (const id of [...this.rows.keys()]) if (!seen.has(id)) this.rows.delete(id);
  }

  tick() {
    for (const el of document.querySelectorAll(".bots-in[data-at]")) {
      el.textContent = t("s_bots_in", { s: secondsUntil(Number(el.dataset.at)) });
    }
  }

  destroy() { clearInterval(this.ticker); }
}

/** A row drawn again under the keyboard: focus the same control in the new row. */
function keepFocus(oldLi, newLi) {
  const a = document.activeElement;
  const key = a.getAttribute("data-player") ? `[data-player="${a.getAttribute("data-player")}"]`
    : a.classList.contains("join") ? ".join" : a.classList.contains("watch") ? ".watch" : null;
  if (!key) return;
  queueMicrotask(() => { const el = newLi.querySelector(key); if (el) el.focus(); });
}

// --- quick play ----------------------------------------------------------------------------------------
/**
 * One button: POST /api/quickplay with the chosen ruleset and length, then to the table. The wait before bots
 * take the empty seats is kept in localStorage `est.quickplay.ID` (epoch ms) for the table page's countdown.
 */
export function quickPlayPanel(rulesets, err) {
  const saved = store.get("qp", {});
  const rs = h("select", { id: "qp-ruleset", name: "qp-ruleset" },
    rulesetOptions(rulesets, saved.ruleset));
  const len = h("select", { id: "qp-length", name: "qp-length" });
  const fill = () => {
    const r = rulesets.find((x) => x.name === rs.value) || rulesets[0];
    len.replaceChildren(...lengthOptions(r, saved.ruleset === r.name ? saved.length : null));
  };
  rs.addEventListener("change", fill);
  fill();
  const btn = h("button", { type: "submit", class: "primary", id: "quickplay-btn" }, t("s_qp_btn"));
  const form = h("form", { class: "quickplay", id: "quickplay-form" },
    h("h2", {}, t("s_quickplay")), h("p", { class: "muted" }, t("s_qp_text")),
    h("label", {}, t("ruleset"), rs), h("label", {}, t("length"), len), btn);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    btn.disabled = true;
    try {
      store.set("qp", { ruleset: rs.value, length: len.value });
      const res = await api("POST", "/api/quickplay", { ruleset: rs.value, length: len.value });
      const id = res.table.id;
      if (res.bots_in_ms !== null && res.bots_in_ms !== undefined) {
        store.set(`quickplay.${id}`, Date.now() + res.bots_in_ms);
        toast(t("s_qp_wait", { n: id, s: Math.ceil(res.bots_in_ms / 1000) }), { id: "quickplay", ms: Math.max(4000, res.bots_in_ms) });
      }
      location.hash = `#/table/${id}`;
    } catch (ex) {
      err.textContent = t("error", { m: ex.message });
    } finally { btn.disabled = false; }
  });
  return form;
}

// --- rematch offers that reach the lobby --------------------------------------------------------------------
/** A `rematch` message on the player's own topic: someone asks to play again; accept or decline here. */
export function rematchToast(m) {
  const me = session();
  if (!me || m.reply !== "accept" || m.by === me.account.id || !m.table_id) return;
  const mine = (m.players || []).find((p) => p.account_id === me.account.id);
  if (!mine || mine.reply) return;
  const by = (m.players || []).find((p) => p.account_id === m.by);
  const id = `rematch-${m.from_table}`;
  const el = toast(t("s_rematch_offer", { name: by ? by.name : "?", n: m.from_table }), { id, ms: 60000, extra: [
    h("button", { type: "button", class: "primary rematch-accept", onclick: async () => {
      el.remove();
      try {
        const res = await api("POST", `/api/tables/${m.from_table}/rematch`, {});
        location.hash = `#/table/${res.table.id}`;
      } catch (ex) { toast(t("error", { m: ex.message })); }
    } }, t("s_play_again")),
    h("button", { type: "button", class: "rematch-decline", onclick: async () => {
      el.remove();
      try { await api("POST", `/api/tables/${m.from_table}/rematch/decline`, {}); } catch { /* gone */ }
    } }, t("s_decline")),
  ] });
}
