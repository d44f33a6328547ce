// The table: one WebSocket (estimation-ws/1), the view drawn as it is, actions only from view.legal.
import { h, api, store, session, settings, reduceMotion, sortHand, cardFace, cardBack, callText, trumpText,
  SUIT_GLYPH, sleep } from "./common.js";
import { t, getLang } from "./i18n.js";
import { riskLevel } from "./score.js";
import { breakdownTable, scoreSheet } from "./sheet.js";
import { openSettings } from "./app.js";

const POS = ["bottom", "left", "top", "right"];
const TRUMPS = ["C", "D", "H", "S", "NT"];

function parseAction(text) {
  const [seat, verb, ...args] = text.split(" ");
  return { seat: Number(seat), verb, args };
}

/** The trick just completed by this update, if any: four cards and who took them. */
function completedTrick(prev, next, events) {
  if (!prev || !next || !events) return null;
  const plays = events.filter((e) => e.kind === "action" && / play /.test(e.action));
  if (plays.length !== 1 || prev.trick.length !== 3 || next.trick.length !== 0) return null;
  const [seat, , card] = plays[0].action.split(" ");
  const cards = [...prev.trick, { seat: Number(seat), card }];
  let winner = null;
  if (next.round === prev.round && next.deal === prev.deal && next.tricks.length === prev.tricks.length + 1) {
    winner = next.tricks[next.tricks.length - 1].winner;
  } else if (next.results.length > prev.results.length) {
    const r = next.results[next.results.length - 1];
    winner = [0, 1, 2, 3].find((s) => r.tricks[s] !== prev.markers[s].tricks) ?? null;
  }
  return { cards, winner };
}

export class TablePage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.closed = false;
    this.ws = null;
    this.seat = null;
    this.table = null;
    this.view = null; // the latest view
    this.shown = null; // the view on screen
    this.shownVersion = null;
    this.queue = [];
    this.busy = false;
    this.overlay = null;
    this.retries = 0;
    this.status = t("connecting");
    this.superFor = null; // an estimate number awaiting its Super Call trump
    this.sent = false;
    this.seenResults = null;
    const saved = store.get("table");
    this.lastVersion = saved && saved.id === id ? saved.version : null;
    this.pending = new Map(Object.entries(store.get(`pending.${id}`, {})));
    this.payout = store.get(`payout.${id}`);
    this.el = h("div", { class: "table-page", "data-table": id });
    root.append(this.el);
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    this.render();
    this.connect();
  }

  destroy() {
    this.closed = true;
    document.removeEventListener("keydown", this.onKey);
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
    document.querySelectorAll("dialog.table-dialog").forEach((d) => d.remove());
  }

  // --- the socket ---------------------------------------------------------------------------------
  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws/tables/${this.id}`);
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello" };
      const s = session();
      if (s) hello.token = s.token;
      const invite = store.get(`invite.${this.id}`);
      if (invite) hello.invite = invite;
      if (this.lastVersion !== null) hello.last_version = this.lastVersion;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (e) => this.message(JSON.parse(e.data));
    ws.onclose = () => {
      if (this.closed || this.ws !== ws) return;
      this.status = t("reconnecting");
      this.renderStatus();
      const delay = Math.min(5000, 300 * 2 ** this.retries++);
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  savePending() { store.set(`pending.${this.id}`, Object.fromEntries(this.pending)); }

  act(text) {
    if (this.sent) return;
    const id = `a${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
    this.pending.set(id, { action: text, version: this.version });
    this.savePending();
    this.sent = true;
    this.superFor = null;
    this.send({ type: "action", id, action: text, version: this.version });
    this.render();
  }

  remember() {
    if (this.seat === null) return;
    store.set("table", { id: this.id, version: this.version, done: !!(this.view && this.view.over) });
  }

  message(msg) {
    switch (msg.type) {
      case "welcome":
        this.retries = 0;
        this.seat = msg.seat;
        this.status = "";
        break;
      case "snapshot":
      case "resume":
        this.version = msg.version;
        this.lastVersion = msg.version;
        this.table = msg.table;
        this.view = msg.view;
        if (msg.table.payout) this.payout = msg.table.payout; // a finished table: its pot split
        this.queue = [];
        for (const b of msg.events || []) this.noteEvents(b.events);
        this.show(msg.view, msg.version);
        this.remember();
        // Unsure whether they arrived: resend with the same ids (a committed one is acked as a duplicate).
        for (const [id, p] of this.pending) this.send({ type: "action", id, action: p.action, version: p.version });
        break;
      case "update":
        this.version = msg.version;
        this.lastVersion = msg.version;
        this.table = msg.table;
        this.view = msg.view;
        this.noteEvents(msg.events);
        this.remember();
        this.queue.push(msg);
        this.pump();
        break;
      case "ack":
        this.pending.delete(msg.id);
        this.savePending();
        break;
      case "error":
        if (msg.id && this.pending.has(msg.id)) { this.pending.delete(msg.id); this.savePending(); this.sent = false; }
        if (!["stale", "not_your_turn"].includes(msg.code)) this.flash(t("error", { m: msg.message }));
        this.render();
        break;
      default:
        break;
    }
  }

  noteEvents(events) {
    for (const ev of events || []) {
      if (ev.kind === "over" && ev.payout) { this.payout = ev.payout; store.set(`payout.${this.id}`, ev.payout); }
    }
  }

  async pump() {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length) {
        const msg = this.queue.shift();
        const prev = this.shown;
        const done = this.shownVersion === msg.version - 1 ? completedTrick(prev, msg.view, msg.events) : null;
        if (done && !this.closed) {
          const pause = settings().pause;
          this.shown = msg.view;
          this.shownVersion = msg.version;
          this.overlay = done;
          this.sent = false;
          this.render();
          await sleep(pause);
          if (!reduceMotion() && done.winner !== null) {
            const area = this.el.querySelector(".trick");
            if (area) area.classList.add(`travel-${this.pos(done.winner)}`);
            await sleep(Math.min(350, Math.max(80, pause / 2)));
          }
          this.overlay = null;
        }
        this.show(msg.view, msg.version);
      }
    } finally {
      this.busy = false;
      this.render();
    }
  }

  show(view, version) {
    this.shown = view;
    this.shownVersion = version;
    this.sent = false;
    this.render();
    this.checkRoundEnd();
  }

  // --- drawing ------------------------------------------------------------------------------------
  base() { return this.seat === null ? 0 : this.seat; }
  pos(seat) { return POS[(seat - this.base() + 4) % 4]; }
  names() {
    if (this.shown) return this.shown.players;
    return (this.table ? this.table.seats : []).map((s) => s.name || t("empty_seat"));
  }

  flash(text) {
    this.flashText = text;
    this.renderStatus();
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => { this.flashText = ""; this.renderStatus(); }, 4000);
  }

  renderStatus() {
    const st = this.el.querySelector(".conn");
    if (st) st.textContent = [this.status, this.flashText].filter(Boolean).join(" ");
  }

  render() {
    if (this.closed) return;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    const v = this.shown;
    this.el.dataset.version = this.shownVersion ?? "";
    this.el.dataset.seat = this.seat ?? "";
    this.el.dataset.busy = this.busy || this.queue.length ? "1" : "0";
    const kids = [h("p", { class: "conn", role: "status", "aria-live": "polite" })];
    if (!v) kids.push(this.renderWaiting());
    else {
      kids.push(this.renderBar(v), h("div", { class: "layout" }, this.renderFelt(v), this.renderBoard(v)),
        this.renderActions(v), this.renderHand(v), this.renderTools(v));
    }
    this.el.replaceChildren(...kids);
    this.renderStatus();
    if (focused) {
      const again = this.el.querySelector(`[data-key="${CSS.escape(focused)}"]`);
      if (again && !again.disabled) again.focus();
    }
  }

  renderWaiting() {
    const tb = this.table;
    if (!tb) return h("p", {}, t("connecting"));
    const seated = tb.seats.filter((s) => s.name).length;
    const me = session();
    return h("section", { class: "card-panel waiting" },
      h("h1", {}, t("table_n", { n: tb.id }), ` · ${tb.ruleset} · ${tb.length}`),
      h("p", {}, tb.status === "open" ? t("table_open", { n: seated }) : tb.status),
      h("ul", {}, tb.seats.map((s) => h("li", {}, `${t("seat")} ${s.seat + 1}: `,
        s.name ? `${s.name}${s.bot ? ` (${t("bot")})` : ""}` : t("empty_seat"), " ",
        !s.name && this.seat === null && me && tb.status === "open"
          ? h("button", { type: "button", onclick: () => this.sit(s.seat) }, t("sit_here")) : null))),
      this.seat !== null ? h("button", { type: "button", onclick: () => this.leave() }, t("leave")) : null,
      h("a", { class: "button", href: "#/", onclick: () => sessionStorage.setItem("est.lobby", "1") }, t("back_lobby")));
  }

  async sit(seat) {
    try {
      await api("POST", `/api/tables/${this.id}/join`, { seat, stake: false });
      this.ws.close(); // the seat is bound at hello: say it again
    } catch (e) { this.flash(t("error", { m: e.message })); }
  }

  leave() {
    this.send({ type: "leave" });
    store.del("table");
    sessionStorage.setItem("est.lobby", "1");
    location.hash = "#/";
  }

  renderBar(v) {
    const kind = v.kind ? t(`kind_${v.kind}`) : "";
    const turn = v.over ? t("phase_over")
      : v.to_move === null ? "" : v.to_move === this.seat ? t("your_turn") : t("waiting_for", { name: v.players[v.to_move] });
    return h("div", { class: "bar" },
      h("span", { class: "round" }, t("round_of", { r: v.round, n: v.rounds }), v.deal > 1 ? ` (${t("deal_n", { n: v.deal })})` : ""),
      h("span", {}, kind),
      h("span", { class: "trump" }, `${t("trump")}: `, v.trump ? h("strong", { class: `suit-${v.trump}` }, trumpText(v.trump)) : "?"),
      h("span", { class: `mult${v.multiplier > 1 ? " hot" : ""}`, id: "multiplier" }, `${t("multiplier")} ×${v.multiplier}`),
      h("span", { class: "phase" }, t(`phase_${v.phase}`)),
      h("strong", { class: "turn", id: "turn" }, turn),
      this.seat === null ? h("span", { class: "muted" }, t("spectator")) : null);
  }

  markers(v, s) {
    const out = [];
    const est = v.estimates;
    const withs = v.ruleset === "egyptian" ? v.with_seats
      : v.caller === null || v.caller === undefined ? [] : [0, 1, 2, 3].filter((x) => x !== v.caller && !v.dash_seats.includes(x)
        && est[x] !== null && est[x] === est[v.caller] && v.estimate_order.includes(x));
    if (v.caller === s) out.push(h("span", { class: "badge caller" }, t("m_caller")));
    if (withs.includes(s)) out.push(h("span", { class: "badge with" }, t("m_with")));
    if (v.dash_seats.includes(s)) out.push(h("span", { class: "badge dashcall" }, v.ruleset === "egyptian" ? t("m_dash") : t("m_dashcall")));
    if ((v.phase === "play") && v.estimate_order.length && v.estimate_order[v.estimate_order.length - 1] === s) {
      const total = est.reduce((a, b) => a + (b ?? 0), 0);
      const level = riskLevel(v.ruleset, v.kind, total, est, s);
      if (level) out.push(h("span", { class: "badge risk" }, t(level === 1 ? "m_risk" : level === 2 ? "m_risk2" : "m_risk3")));
    }
    const m = v.markers[s];
    for (const suit of m.avoid) out.push(h("span", { class: `badge avoid suit-${suit}`, title: t("m_avoid") }, `${t("m_avoid")} ${SUIT_GLYPH[suit]}`));
    if (m.bust) out.push(h("span", { class: "badge bust" }, t("m_bust")));
    const seat = this.table && this.table.seats[s];
    if (seat && seat.away) out.push(h("span", { class: "badge away" }, t("m_away")));
    if (seat && seat.left) out.push(h("span", { class: "badge away" }, t("m_left")));
    return out;
  }

  renderBoard(v) {
    const est = v.estimates;
    const total = est.reduce((a, b) => a + (b ?? 0), 0);
    const allIn = v.phase === "play";
    return h("aside", { class: "scoreboard", "aria-label": t("score_sheet") },
      h("table", { class: "board" },
        h("thead", {}, h("tr", {}, h("th", {}, t("player")), h("th", {}, t("estimate")), h("th", {}, t("tricks")),
          h("th", {}, t("total")), h("th", {}, t("markers")))),
        h("tbody", {}, [0, 1, 2, 3].map((s) => h("tr", { "data-seat": s, class: v.to_move === s ? "to-move" : "" },
          h("th", { scope: "row" }, v.players[s], s === this.seat ? ` (${t("you")})` : "", v.dealer === s ? h("span", { class: "dealer-chip", title: t("dealer") }, t("dealer_short")) : null),
          h("td", { class: "est" }, est[s] ?? "–"), h("td", { class: "won" }, v.markers[s].tricks),
          h("td", { class: "tot" }, v.totals[s]), h("td", { class: "marks" }, this.markers(v, s)))))),
      allIn ? h("p", { class: "overunder" }, `${total} · ${total > 13 ? t("over") : t("under")} · ×${v.multiplier}`) : null);
  }

  renderFelt(v) {
    const seats = [0, 1, 2, 3].map((s) => {
      const pos = this.pos(s);
      const n = v.hand_sizes[s];
      return h("div", { class: `seat pos-${pos}${v.to_move === s ? " to-move" : ""}`, "data-seat": s },
        h("div", { class: "nameplate" }, v.players[s], v.dealer === s ? h("span", { class: "dealer-chip", title: t("dealer") }, t("dealer_short")) : null),
        h("div", { class: "info" }, `${v.estimates[s] ?? "–"} / ${v.markers[s].tricks}`),
        s === this.seat ? null : h("div", { class: "backs", "aria-label": `${n}` }, Array.from({ length: Math.min(n, 13) }, cardBack)));
    });
    const cards = this.overlay ? this.overlay.cards : v.trick;
    const trick = h("div", { class: `trick${this.overlay ? " done" : ""}`, "aria-label": t("phase_play") },
      cards.map((c) => cardFace(c.card, "span", { class: `card suit-${c.card[1]} at-${this.pos(c.seat)}` })));
    return h("div", { class: "felt" }, seats, trick);
  }

  renderActions(v) {
    const panel = h("div", { class: "actions", id: "actions" });
    const me = this.seat;
    if (me !== null && this.table && this.table.seats[me] && this.table.seats[me].away) {
      panel.append(h("p", {}, t("you_away"), " ", h("button", { type: "button", onclick: () => this.send({ type: "back" }) }, t("back_btn"))));
    }
    const live = !this.busy && !this.queue.length && !this.sent && this.shown === this.view;
    const legal = live ? new Set(v.legal) : new Set();
    if (!legal.size) return panel;
    const verbs = new Set([...legal].map((a) => parseAction(a).verb));
    const btn = (text, label, extra = {}) => h("button", { type: "button", "data-key": text, "data-action": text,
      disabled: !legal.has(text), onclick: () => this.act(text), ...extra }, label);
    if (verbs.has("dashcall") || (verbs.has("nodash") && v.ruleset !== "egyptian")) {
      panel.append(h("div", { class: "offer" }, h("p", {}, t("dash_offer")),
        btn(`${me} dashcall`, t("dashcall"), { class: "primary" }), btn(`${me} nodash`, t("nodash"))));
    } else if (verbs.has("dash") || verbs.has("nodash")) {
      panel.append(h("div", { class: "offer" }, h("p", {}, t("egy_dash_offer")),
        btn(`${me} dash`, t("take_dash"), { class: "primary" }), btn(`${me} nodash`, t("nodash"))));
    }
    const grid = (verb, title) => h("div", { class: "picker", id: `${verb}-picker` },
      h("p", {}, title, v.standing ? h("span", { class: "standing" }, " · ",
        t("standing", { call: callText(`${v.standing.number}${v.standing.trump}`), name: v.players[v.standing.seat] })) : null),
      h("div", { class: "grid" }, Array.from({ length: 10 }, (_, i) => 4 + i).map((n) =>
        TRUMPS.map((tr) => btn(`${me} ${verb} ${n}${tr}`, callText(`${n}${tr}`), { class: `call suit-${tr}` })))),
      h("div", { class: "row" }, verb !== "declare" ? btn(`${me} pass`, t("pass")) : null,
        legal.has(`${me} with`) ? btn(`${me} with`, t("with_btn"), { class: "primary" }) : null));
    if (verbs.has("call")) panel.append(grid("call", t("auction_title")));
    else if (verbs.has("bid") || verbs.has("with")) panel.append(grid("bid", t("auction_title")));
    else if (verbs.has("pass")) panel.append(grid("call", t("auction_title")));
    if (verbs.has("declare")) panel.append(grid("declare", t("declare_title")));
    if (verbs.has("est")) panel.append(this.renderEstimates(v, legal));
    if (verbs.has("play")) panel.append(h("p", { class: "hint" }, t("play_hint")));
    return panel;
  }

  renderEstimates(v, legal) {
    const me = this.seat;
    const ests = [...legal].map(parseAction).filter((a) => a.verb === "est");
    const limit = v.kind === "call" && v.standing ? v.standing.number
      : v.declared ? v.declared.number : 13;
    const supers = (n) => ests.filter((a) => Number(a.args[0]) === n && a.args.length > 1).map((a) => a.args[1]);
    const row = h("div", { class: "estimates", role: "group", "aria-label": t("estimate_title", { n: limit }) },
      Array.from({ length: limit + 1 }, (_, n) => {
        const plain = `${me} est ${n}`;
        const ok = legal.has(plain) || supers(n).length > 0;
        return h("button", { type: "button", class: "est-btn", "data-key": `est-${n}`, "data-est": n, disabled: !ok,
          "aria-pressed": this.superFor === n ? "true" : "false",
          onclick: () => { if (supers(n).length) { this.superFor = n; this.render(); } else this.act(plain); } }, n);
      }));
    const box = h("div", { class: "picker", id: "estimate-picker" }, h("p", {}, t("estimate_title", { n: limit })), row);
    if (this.superFor !== null) {
      const n = this.superFor;
      box.append(h("div", { class: "super", id: "super-picker" }, h("p", {}, t("super_title", { n })),
        h("button", { type: "button", "data-key": "super-keep", disabled: !legal.has(`${me} est ${n}`),
          onclick: () => this.act(`${me} est ${n}`) }, t("keep_trump")),
        TRUMPS.filter((tr) => supers(n).includes(tr)).map((tr) => h("button", { type: "button", class: `suit-${tr}`,
          "data-key": `super-${tr}`, onclick: () => this.act(`${me} est ${n} ${tr}`) }, trumpText(tr)))));
    }
    return box;
  }

  renderHand(v) {
    if (this.seat === null || !v.hand) return h("div", { class: "hand empty" });
    const live = !this.busy && !this.queue.length && !this.sent && this.shown === this.view;
    const legal = live ? new Set(v.legal) : new Set();
    return h("div", { class: "hand", role: "group", "aria-label": "hand" }, sortHand(v.hand).map((c) => {
      const text = `${this.seat} play ${c}`;
      const ok = legal.has(text);
      return cardFace(c, "button", { type: "button", class: `card suit-${c[1]}${ok ? " legal" : ""}`, disabled: !ok,
        "data-key": c, onclick: ok ? () => this.act(text) : null });
    }));
  }

  renderTools(v) {
    return h("div", { class: "tools" },
      h("button", { type: "button", id: "last-trick-btn", disabled: !v.tricks.length, onclick: () => this.lastTrick() }, t("last_trick"), " (L)"),
      h("button", { type: "button", id: "sheet-btn", onclick: () => this.sheet() }, t("score_sheet"), " (S)"),
      h("button", { type: "button", onclick: openSettings }, t("settings")),
      this.seat !== null && !v.over ? h("button", { type: "button", id: "leave-btn", onclick: () => this.leave() }, t("leave")) : null,
      h("a", { class: "button", href: "#/", onclick: () => sessionStorage.setItem("est.lobby", "1") }, t("back_lobby")),
      v.over ? h("a", { class: "button", href: `#/replay/${this.id}` }, t("replay")) : null);
  }

  relabel() {
    this.render();
    const open = document.querySelector("dialog.table-dialog[open]");
    if (!open) return;
    const again = { "round-end": () => this.roundEnd(), "match-end": () => this.matchEnd(), sheet: () => this.sheet(),
      "last-trick": () => this.lastTrick() }[open.id];
    if (again) again();
  }

  // --- dialogs ------------------------------------------------------------------------------------
  dialog(id, title, ...body) {
    document.querySelectorAll("dialog.table-dialog").forEach((d) => d.remove());
    const dlg = h("dialog", { class: "table-dialog", id },
      h("h2", {}, title), ...body,
      h("div", { class: "row" }, h("button", { type: "button", class: "primary close", onclick: () => { dlg.close(); dlg.remove(); } },
        t("continue"))));
    dlg.addEventListener("close", () => dlg.remove());
    document.body.append(dlg);
    dlg.show();
    dlg.querySelector("button.close").focus();
    return dlg;
  }

  lastTrick() {
    const v = this.shown;
    if (!v) return;
    const last = v.tricks[v.tricks.length - 1];
    if (!last) { this.dialog("last-trick", t("last_trick"), h("p", {}, t("no_last_trick"))); return; }
    const cards = last.cards.map((c, i) => ({ seat: (last.leader + i) % 4, card: c }));
    this.dialog("last-trick", t("last_trick"), h("ul", { class: "last-trick" }, cards.map((c) =>
      h("li", { class: c.seat === last.winner ? "winner" : "" }, v.players[c.seat], " ", cardFace(c.card),
        c.seat === last.winner ? " ✓" : ""))));
  }

  sheet() {
    const v = this.shown;
    if (!v) return;
    this.dialog("sheet", t("score_sheet"), scoreSheet(v.results, v.players, v.totals));
  }

  checkRoundEnd() {
    const v = this.shown;
    if (!v) return;
    if (this.seenResults === null) { this.seenResults = v.results.length; if (v.over) this.matchEnd(); return; }
    if (v.results.length > this.seenResults) {
      this.seenResults = v.results.length;
      if (v.over) this.matchEnd();
      else this.roundEnd();
    }
  }

  roundEnd() {
    const v = this.shown;
    const r = v.results[v.results.length - 1];
    if (!r) return;
    this.dialog("round-end", t("round_end", { r: r.round }),
      r.saaydeh ? h("p", { class: "saaydeh" }, t("saaydeh", { n: v.multiplier })) : null,
      breakdownTable(r, v.players, v.ruleset),
      h("h3", {}, t("score_sheet")), scoreSheet(v.results, v.players, v.totals));
  }

  matchEnd() {
    const v = this.shown;
    const order = [0, 1, 2, 3].sort((a, b) => v.places[a] - v.places[b] || a - b);
    const last = v.results[v.results.length - 1];
    const pay = this.payout;
    this.dialog("match-end", t("match_end"),
      h("ol", { class: "places" }, order.map((s) => h("li", { "data-seat": s },
        h("strong", {}, t("places_n", { n: v.places[s] })), " ", v.players[s], ` · ${v.totals[s]}`,
        pay && pay[s] !== undefined ? ` · ${t("payout")}: ${pay[s]}` : ""))),
      // The pot played for: once paid, the table's pot is empty and the split adds up to it.
      this.table && this.table.stake
        ? h("p", {}, t("pot", { n: pay ? Object.values(pay).reduce((a, b) => a + b, 0) : this.table.pot })) : null,
      last ? breakdownTable(last, v.players, v.ruleset) : null,
      h("h3", {}, t("score_sheet")), scoreSheet(v.results, v.players, v.totals),
      h("a", { class: "button", href: `#/replay/${this.id}` }, t("replay")));
  }

  // --- keys ---------------------------------------------------------------------------------------
  key(e) {
    if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "l" || e.key === "L") { this.lastTrick(); e.preventDefault(); }
    else if (e.key === "s" || e.key === "S") { this.sheet(); e.preventDefault(); }
    else if (e.key === "Escape") { document.querySelectorAll("dialog.table-dialog").forEach((d) => { d.close(); d.remove(); }); }
    else if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      const cards = [...this.el.querySelectorAll(".hand button.card:not([disabled])")];
      if (!cards.length) return;
      const i = cards.indexOf(document.activeElement);
      const rtl = getLang() === "ar";
      const step = (e.key === "ArrowRight") !== rtl ? 1 : -1;
      cards[(i + step + cards.length) % cards.length].focus();
      e.preventDefault();
    }
  }
}
