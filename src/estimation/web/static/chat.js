// The table's chat: the players' channel and the spectators' own (which players can hide), quick phrases
// and emotes, mute and report. Every message is drawn as text (textContent), never as markup. The panel is
// one element kept across the table's redraws, so what is being typed is never lost.
import { h, api, session, store, confirmDialog } from "./common.js";
import { t } from "./i18n.js";

const MAX_CHARS = 200;
const KEEP = 200; // messages kept on screen

/** A quick phrase or emote by its key, in the page's language (the server sends only the key). */
export function phraseText(key) {
  return t(`p_${key}`);
}

export class TableChat {
  constructor(tableId, send) {
    this.tableId = tableId;
    this.send = send;
    this.messages = [];
    this.muted = new Set();
    this.phrases = [];
    this.seated = false;
    this.hideSpectators = !!store.get("chat.hideSpectators", false);
    this.lastId = 0;
    this.list = h("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite" });
    this.input = h("input", { id: "chat-input", maxlength: MAX_CHARS, autocomplete: "off",
      "aria-label": t("chat_placeholder"), placeholder: t("chat_placeholder") });
    this.error = h("p", { class: "error", id: "chat-error", role: "alert" });
    this.phraseBox = h("div", { class: "phrases", id: "chat-phrases" });
    this.hideBox = h("input", { type: "checkbox", id: "chat-hide-spectators", checked: this.hideSpectators,
      onchange: (e) => this.setHide(e.target.checked) });
    this.hideText = h("span", {}, t("chat_hide_spectators"));
    this.hideLabel = h("label", { class: "inline", id: "chat-hide-label" }, this.hideBox, " ", this.hideText);
    this.sendBtn = h("button", { type: "submit", id: "chat-send" }, t("chat_send"));
    const form = h("form", { class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.sendText(); } },
      this.input, this.sendBtn);
    this.el = h("section", { class: "chat", id: "chat", "aria-label": t("chat") },
      h("h2", {}, t("chat")), this.hideLabel, this.list, form, this.phraseBox, this.error);
    this.loadExtras();
  }

  /** A competition's table: the quick phrases only (RULES.md, Competitions, fair play). */
  phrasesOnly() {
    this.el.classList.add("phrases-only"); // the text form is hidden by the style sheet
  }

  async loadExtras() {
    try { this.phrases = (await api("GET", "/api/chat/phrases")).phrases; } catch { this.phrases = []; }
    if (session()) {
      try { this.muted = new Set((await api("GET", "/api/me/mutes")).muted.map((m) => m.id)); } catch { /* none */ }
    }
    this.draw();
  }

  /** After every (re)connect: what was said while we were away, then the live messages. */
  async connected(seated) {
    this.seated = seated;
    if (seated && this.hideSpectators) this.send({ type: "chat_prefs", hide_spectators: true });
    try {
      const page = await api("GET", `/api/tables/${this.tableId}/chat?after=${this.lastId}`);
      for (const m of page.messages) this.add(m, false);
    } catch { /* a table with no chat to show */ }
    this.draw();
  }

  /** The server may have missed live messages (its bus reconnected): fetch again what they would have said. */
  async resync(topic) {
    if (topic === "user") { await this.loadExtras(); return; }
    try {
      const page = await api("GET", `/api/tables/${this.tableId}/chat?after=${this.lastId}`);
      for (const m of page.messages) this.add(m, false);
    } catch { /* the next resync or reconnect tries again */ }
    this.draw();
  }

  /** A socket message for the chat; true if it was one. */
  handle(msg) {
    switch (msg.type) {
      case "chat": this.add(msg, true); return true;
      case "chat_removed": {
        const m = this.messages.find((x) => x.id === msg.id);
        if (m) { m.removed = true; m.text = null; m.phrase = null; this.draw(); }
        return true;
      }
      case "mutes": this.muted = new Set(msg.muted); this.draw(); return true;
      case "chat_prefs": return true;
      case "silenced": this.say(msg.silenced ? t("chat_silenced") : ""); return true;
      case "resync": this.resync(msg.topic); return true;
      default: return false;
    }
  }

  add(m, live) {
    if (this.messages.some((x) => x.id === m.id)) return;
    this.messages.push(m);
    this.lastId = Math.max(this.lastId, m.id);
    if (this.messages.length > KEEP) this.messages.splice(0, this.messages.length - KEEP);
    if (live) this.draw();
  }

  setHide(flag) {
    this.hideSpectators = flag;
    store.set("chat.hideSpectators", flag);
    this.send({ type: "chat_prefs", hide_spectators: flag });
    this.draw();
  }

  sendText() {
    const text = this.input.value.trim();
    if (!text) return;
    this.say("");
    this.send({ type: "chat", text });
    this.input.value = "";
  }

  /** An error the server sent for a chat message (too long, too fast, silenced). */
  refused(message) { this.say(t("error", { m: message })); }

  /** A line under the chat: an error (red), or a thank-you (`ok`: not styled as an error). */
  say(text, ok = false) {
    this.error.textContent = text;
    this.error.className = ok ? "note ok" : "error";
  }

  async mute(m) {
    const ok = await confirmDialog({ id: "mute-dialog", title: t("chat_mute_q", { name: m.name }),
      text: t("chat_mute_text"), ok: t("chat_mute"), cancel: t("cancel") });
    if (!ok) return;
    try {
      const now = await api("PUT", "/api/me/mutes", { muted: [...this.muted, m.account_id] });
      this.muted = new Set(now.muted.map((x) => x.id));
      this.draw();
    } catch (e) { this.say(t("error", { m: e.message })); }
  }

  async report(m) {
    const ok = await confirmDialog({ id: "report-dialog", title: t("chat_report_q"),
      text: [`${m.name}: ${m.text ?? phraseText(m.phrase)}`, t("chat_report_text")], ok: t("chat_report"), cancel: t("cancel") });
    if (!ok) return;
    try {
      await api("POST", `/api/chat/messages/${m.id}/report`, {});
      this.say(t("chat_reported"), true);
    } catch (e) { this.say(t("error", { m: e.message })); }
  }

  draw() {
    const me = session();
    const myId = me ? me.account.id : null;
    const canAct = !!me;
    this.hideLabel.hidden = !this.seated;
    const shown = this.messages.filter((m) => !this.muted.has(m.account_id)
      && !(this.seated && this.hideSpectators && m.channel === "spectators"));
    this.list.replaceChildren(...shown.map((m) => h("li", { class: `msg ch-${m.channel}${m.account_id === myId ? " mine" : ""}`,
      "data-id": m.id, "data-account": m.account_id, "data-channel": m.channel },
      h("span", { class: "who" }, m.name ?? "?"), m.channel === "spectators" ? h("small", { class: "tag" }, ` (${t("chat_spectator")})`) : null,
      ": ",
      h("span", { class: `text${m.phrase ? " phrase" : ""}${m.removed ? " removed" : ""}` },
        m.removed ? t("chat_removed") : m.phrase ? phraseText(m.phrase) : m.text),
      m.account_id !== myId && canAct && !m.removed ? h("span", { class: "msg-tools" },
        h("button", { type: "button", class: "link mute", title: t("chat_mute"), onclick: () => this.mute(m) }, t("chat_mute")),
        h("button", { type: "button", class: "link report", title: t("chat_report"), onclick: () => this.report(m) }, t("chat_report"))) : null)));
    this.list.scrollTop = this.list.scrollHeight;
    this.phraseBox.replaceChildren(...this.phrases.map((p) => h("button", { type: "button", class: "phrase-btn",
      "data-phrase": p, onclick: () => this.send({ type: "chat", phrase: p }) }, phraseText(p))));
    const signedIn = !!me;
    this.input.disabled = !signedIn;
  }

  relabel() {
    this.input.placeholder = t("chat_placeholder");
    this.input.setAttribute("aria-label", t("chat_placeholder"));
    this.el.querySelector("h2").textContent = t("chat");
    this.el.setAttribute("aria-label", t("chat"));
    this.hideText.textContent = t("chat_hide_spectators");
    this.sendBtn.textContent = t("chat_send");
    this.draw();
  }
}
