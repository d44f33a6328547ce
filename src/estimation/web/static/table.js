// The table: one WebSocket (estimation-ws/1), the view drawn as it is, actions only from view.legal.
// Panels for declarations are in bidding.js, the scoreboard and the declarations in board.js.
import { h, api, store, session, settings, saveSettings, reduceMotion, sortHand, cardFace, cardBack, trumpText,
  sleep, confirmDialog, num } from "./common.js";
import { t, getLang } from "./i18n.js";
import { breakdownTable, scoreSheet, sidesList, sideScores, sideName, sideOf, partnerNames, scrollCues } from "./sheet.js";
import { actionPanels, estimatePanel, parseAction } from "./bidding.js";
import { scoreboard, declarationLog, lastDeclarations, shortAction, dealerChip, offerIsDash } from "./board.js";
import { rulesets, playsText } from "./rulesets.js";
import { describeAction } from "./describe.js";
import { play as sound } from "./sound.js";
import { TableChat } from "./chat.js";
import { serverText } from "./errors.js";
import { toast, tableName, botName, playerNames } from "./lobbyfeed.js";

/** Error codes that end the page's session (signed out everywhere, the account deleted, expired). */
const SESSION_ENDED = new Set(["signed_out", "session_expired"]);
import { followCompetition } from "./competitions.js";

/** Error codes that answer a chat message: shown under the chat, not over the table. */
const CHAT_ERRORS = new Set(["bad_message", "bad_phrase", "bad_chat", "silenced", "chat_rate_limited"]);

// Counter-clockwise, as at a real table (shared/RULES.md, Direction): the next seat sits on the viewer's
// right, the one after opposite, the last on the left, in every language.
const POS = ["bottom", "right", "top", "left"];
//: Seconds left on your own clock when the page warns that a bot is about to play for you.
const WARN_SECONDS = 10;

/** The multiplier the bar shows: the round's; once the match is over, its last round's. */
function shownMultiplier(v) {
  const last = v.results[v.results.length - 1];
  return v.over && last ? last.multiplier : v.multiplier;
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
    this.pick = null; // the number and suit chosen in the auction or declaration panel
    this.sent = false;
    this.seenResults = null;
    this.clock = null; // {seat, end (performance.now() ms), seconds}
    this.wasMyTurn = false;
    this.invite = null; // the creator's invite code (from GET /api/tables/ID)
    const saved = store.get("table");
    this.lastVersion = saved && saved.id === id ? saved.version : null;
    this.pending = new Map(Object.entries(store.get(`pending.${id}`, {})));
    this.payout = store.get(`payout.${id}`);
    this.rematch = null; // the latest rematch message of this (finished) table
    this.botsAt = null; // a quick-play table: when bots take the empty seats (performance.now() ms)
    this.moved = null; // ms to wait before reconnecting, after a "moved" message (cluster mode)
    this.el = h("div", { class: "table-page", "data-table": id });
    this.body = h("div", { class: "table-body" });
    // The chat stays one element across redraws (what is being typed survives every update).
    this.chat = new TableChat(id, (m) => this.send(m));
    this.el.append(this.body, this.chat.el);
    root.append(this.el);
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    this.onVisible = () => this.renderTitle();
    document.addEventListener("visibilitychange", this.onVisible);
    // The browser knows before the socket does: say so at once, and reconnect as soon as it is back.
    this.onOffline = () => { this.status = t("reconnecting"); this.renderStatus(); if (this.ws) this.ws.close(); };
    this.onOnline = () => { clearTimeout(this.timer); this.retries = 0; if (!this.ws || this.ws.readyState > 1) this.connect(); };
    window.addEventListener("offline", this.onOffline);
    window.addEventListener("online", this.onOnline);
    this.ticker = setInterval(() => this.tick(), 250);
    this.render();
    // The rulesets' score lines, for the breakdowns (the view names its ruleset; the list says what it scores).
    this.rulesetList = null;
    // The markers' tooltips are the ruleset's own words: the table is drawn again when they come.
    rulesets().then((list) => { this.rulesetList = list; if (!this.closed) this.render(); }).catch(() => {});
    this.connect();
  }

  /** A competition's table: chat is the quick phrases only, and the next stage's table comes by the lobby
   *  socket's own topic (followCompetition takes the page there). */
  competition(table) {
    if (!table.competition || this.follow) return;
    this.chat.phrasesOnly();
    this.follow = followCompetition(table.competition);
  }

  destroy() {
    if (this.follow) this.follow.close();
    this.closed = true;
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("visibilitychange", this.onVisible);
    window.removeEventListener("offline", this.onOffline);
    window.removeEventListener("online", this.onOnline);
    clearInterval(this.ticker);
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
    document.querySelectorAll("dialog.table-dialog").forEach((d) => d.remove());
    document.title = t("app");
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
      // Told the table moved (cluster mode): come back when the server said, through the balancer, which
      // sends the new socket to the table's new worker; otherwise back off.
      const delay = this.moved !== null ? this.moved + Math.random() * 100 : Math.min(5000, 300 * 2 ** this.retries++);
      this.moved = null;
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
    this.pick = null;
    if (/ play /.test(text)) sound("card");
    this.send({ type: "action", id, action: text, version: this.version });
    this.render();
  }

  remember() {
    if (this.seat === null) return;
    store.set("table", { id: this.id, version: this.version, done: !!(this.view && this.view.over) });
  }

  /** The table's clock as the server sent it: milliseconds left when sent, kept as a local end time. */
  setClock(table) {
    const c = table && table.clock;
    this.clock = c ? { seat: c.seat, end: performance.now() + c.ms_left, seconds: c.seconds } : null;
  }

  message(msg) {
    switch (msg.type) {
      case "welcome":
        this.retries = 0;
        this.seat = msg.seat;
        this.status = "";
        this.chat.connected(msg.seat !== null);
        break;
      case "quickplay":
        this.botsAt = msg.bots_in_ms === null ? null : performance.now() + msg.bots_in_ms;
        this.render();
        break;
      case "rematch":
        if (msg.from_table === this.id) { this.rematch = msg; this.renderRematch(); }
        break;
      case "snapshot":
      case "resume":
        this.version = msg.version;
        this.lastVersion = msg.version;
        this.table = msg.table;
        this.setClock(msg.table);
        this.view = msg.view;
        if (msg.table.payout) this.payout = msg.table.payout; // a finished table: its pot split
        this.competition(msg.table);
        this.queue = [];
        for (const b of msg.events || []) this.noteEvents(b.events);
        this.show(msg.view, msg.version);
        this.remember();
        this.fetchInvite();
        // Unsure whether they arrived: resend with the same ids (a committed one is acked as a duplicate).
        for (const [id, p] of this.pending) this.send({ type: "action", id, action: p.action, version: p.version });
        break;
      case "update":
        this.version = msg.version;
        this.lastVersion = msg.version;
        this.table = msg.table;
        this.setClock(msg.table);
        this.view = msg.view;
        this.noteEvents(msg.events);
        for (const ev of msg.events || []) {
          if (ev.kind === "action" && ev.seat !== this.seat && / play /.test(ev.action)) sound("card");
        }
        this.remember();
        this.queue.push(msg);
        this.pump();
        break;
      case "moved":
        // Another worker serves this table now: reconnect after retry_ms (the socket's close does it);
        // actions not yet acked are resent after the resume, with the same ids.
        this.moved = Math.max(0, Number(msg.retry_ms) || 0);
        this.status = t("reconnecting");
        this.renderStatus();
        if (this.ws) this.ws.close();
        break;
      case "ack":
        this.pending.delete(msg.id);
        this.savePending();
        break;
      case "error":
        if (SESSION_ENDED.has(msg.code) || (msg.code === "unauthorized" && !/chat/.test(msg.message) && session())) {
          this.signedOut();
          break;
        }
        if (CHAT_ERRORS.has(msg.code) || (msg.code === "unauthorized" && /chat/.test(msg.message))) {
          this.chat.refused(msg.code === "unauthorized" ? t("e_chat_sign_in") : serverText(msg.code, msg.message));
          break;
        }
        if (msg.id && this.pending.has(msg.id)) { this.pending.delete(msg.id); this.savePending(); this.sent = false; }
        if (!["stale", "not_your_turn"].includes(msg.code)) this.flash(t("error", { m: serverText(msg.code, msg.message) }));
        this.render();
        break;
      default:
        this.chat.handle(msg);
        break;
    }
  }

  /** This device's session ended elsewhere (signed out everywhere, the account deleted): not "Connecting…"
   *  forever under the old name, but signed out, with a note, at the sign-in page. */
  signedOut() {
    store.del("session");
    store.del("table");
    this.destroy();
    toast(t("e_signed_out"), { id: "signed-out", ms: 10000 });
    if (location.hash !== "#/") location.hash = "#/";
    else window.dispatchEvent(new HashChangeEvent("hashchange"));
  }

  noteEvents(events) {
    for (const ev of events || []) {
      if (ev.kind === "over" && ev.payout) { this.payout = ev.payout; store.set(`payout.${this.id}`, ev.payout); }
    }
  }

  /** The creator of a private table sees its invite code (the table's REST resource gives it to them only). */
  async fetchInvite() {
    if (this.invite !== null || !this.table || !this.table.private || this.table.status !== "open") return;
    this.invite = "";
    try {
      const tb = await api("GET", `/api/tables/${this.id}`);
      if (tb.invite_code) { this.invite = tb.invite_code; this.render(); }
    } catch { /* not the creator: no code to show */ }
  }

  async pump() {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length) {
        const msg = this.queue.shift();
        const prev = this.shown;
        const done = this.shownVersion === msg.version - 1 ? completedTrick(prev, msg.view, msg.events) : null;
        if (!done && this.queue.length && !completedTrick(msg.view, this.queue[0].view, this.queue[0].events)) {
          // A newer update is already waiting and nothing is to be shown in between: draw only that one.
          this.shown = msg.view;
          this.shownVersion = msg.version;
          continue;
        }
        if (done && !this.closed) {
          const pause = settings().pause;
          this.shown = msg.view;
          this.shownVersion = msg.version;
          this.overlay = done;
          this.sent = false;
          this.render();
          if (done.winner === this.seat) sound("trick");
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
    const prev = this.shown;
    if (prev && view && prev.round === view.round && view.deal > prev.deal) {
      // Nobody called: the same dealer deals again (a fixed NT round after three failed auctions).
      this.flash(view.kind === "fixed" ? t("redeal_fixed") : t("redeal_note", { n: view.deal }));
    }
    this.shown = view;
    this.shownVersion = version;
    this.sent = false;
    this.render();
    this.checkRoundEnd();
  }

  // --- drawing ------------------------------------------------------------------------------------
  /** The view on show as the page draws it: its players named in the page's language (playerNames: a bot's
   *  seat by the table's `bot` marker, never the server's English "Bot N"), drawn afresh in a new language. */
  drawn() {
    const v = this.shown;
    return v && { ...v, players: playerNames(v.players, this.table && this.table.seats) };
  }

  base() { return this.seat === null ? 0 : this.seat; }
  pos(seat) { return POS[(seat - this.base() + 4) % 4]; }

  /** The legal actions a click may take now: none while a trick is on show or an action is on its way. */
  liveLegal() {
    const live = !this.busy && !this.queue.length && !this.sent && this.shown === this.view && this.shown;
    return live ? new Set(this.shown.legal) : new Set();
  }

  myTurn() { return this.seat !== null && this.liveLegal().size > 0; }

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

  /** The tab's title says it is your turn while the tab is hidden. */
  renderTitle() {
    const mine = this.myTurn();
    document.title = mine && document.hidden ? `● ${t("your_turn")} · ${t("app")}` : t("app");
  }

  render() {
    if (this.closed) return;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    const v = this.drawn();
    this.el.dataset.version = this.shownVersion ?? "";
    this.el.dataset.seat = this.seat ?? "";
    this.el.dataset.busy = this.busy || this.queue.length ? "1" : "0";
    const kids = [h("p", { class: "conn", role: "status", "aria-live": "polite" })];
    if (!v) kids.push(this.renderWaiting());
    else {
      kids.push(this.renderBar(v), scoreboard(v, this.seat, this.table && this.table.seats, this.clock ? this.clock.seat : null),
        h("div", { class: "layout" }, this.renderFelt(v), declarationLog(v)),
        this.renderActions(v), this.renderHand(v), this.renderTools(v));
    }
    this.body.replaceChildren(...kids);
    this.renderStatus();
    this.tick();
    const mine = this.myTurn();
    if (mine && !this.wasMyTurn) sound("turn");
    this.wasMyTurn = mine;
    this.renderTitle();
    if (focused) {
      const again = this.el.querySelector(`[data-key="${CSS.escape(focused)}"]`);
      if (again && !again.disabled) again.focus();
    }
  }

  /** Every quarter second: the countdown on the seat to move, and the warning before a bot plays for you. */
  tick() {
    const c = this.clock;
    // After a round the clock holds at its full seconds while its scores are on show (the server adds the
    // reading time to ms_left), then counts down.
    const raw = c ? Math.max(0, Math.ceil((c.end - performance.now()) / 1000)) : null;
    const held = raw !== null && raw > c.seconds; // the round's scores are still on show: no warning yet
    const left = raw === null ? null : Math.min(c.seconds, raw);
    for (const el of this.el.querySelectorAll(".clock")) {
      el.textContent = left === null ? "" : t("clock_s", { n: left });
      el.classList.toggle("low", left !== null && left <= WARN_SECONDS && !held);
      el.setAttribute("aria-label", left === null ? "" : t("seconds_left", { n: left }));
    }
    const wait = this.el.querySelector("#bots-countdown");
    if (wait && this.botsAt !== null) {
      wait.textContent = t("quickplay_bots", { n: Math.max(0, Math.ceil((this.botsAt - performance.now()) / 1000)) });
    }
    const warn = this.el.querySelector("#clock-warning");
    if (warn) {
      const show = c && c.seat === this.seat && left !== null && left <= WARN_SECONDS && !held;
      warn.hidden = !show;
      if (show) warn.textContent = t("clock_warning", { n: left });
    }
  }

  renderWaiting() {
    const tb = this.table;
    if (!tb) return h("p", {}, t("connecting"));
    const seated = tb.seats.filter((s) => s.name).length;
    const me = session();
    const mine = me && tb.seats.find((s) => s.account_id === me.account.id && !s.left);
    const inviteUrl = this.invite ? `${location.origin}${location.pathname}#/join/${tb.id}/${encodeURIComponent(this.invite)}` : null;
    const creator = !!this.invite;
    const stakeNote = tb.stake ? h("p", { class: "stake-note", id: "stake-note" }, t("stake_pot", { s: tb.stake, p: tb.pot }),
      me && me.account.guest ? ` · ${t("guest_no_stake")}` : ` · ${t("join_stakes", { coins: t("coins_obj", { n: tb.stake }) })}`) : null;
    return h("section", { class: "card-panel waiting" },
      h("h1", {}, t("table_n", { n: tb.id }), tb.name ? [" · ", tableName(tb)] : null, " · ", playsText(tb.ruleset, tb.length),
        tb.private ? ` · ${t("private")}` : ""),
      h("p", {}, tb.status === "open" ? t("table_open", { n: seated }) : t(`status_${tb.status}`)),
      tb.private && tb.status === "open" ? h("p", { class: "muted", id: "private-note" }, t("private_note")) : null,
      this.botsAt !== null && tb.status === "open" ? h("p", { class: "bots-countdown", id: "bots-countdown" }) : null,
      // Here by an invite link and not seated (a stake is their own choice): say they were invited.
      !mine && !creator && tb.status === "open" && store.get(`invite.${tb.id}`)
        ? h("p", { class: "invite-note", id: "invited-note" }, t("invited_table")) : null,
      stakeNote,
      h("ul", { class: "seat-list" }, tb.seats.map((s) => h("li", { "data-seat": s.seat }, `${t("seat")} ${s.seat + 1}: `,
        s.bot ? botName(s.seat) : s.name || t("empty_seat"), " ",
        !s.name && !mine && me && tb.status === "open"
          ? h("button", { type: "button", class: "sit", onclick: () => this.sit(s.seat) },
            tb.stake && !me.account.guest ? t("sit_stake", { s: tb.stake }) : t("sit_here")) : null))),
      inviteUrl ? h("div", { class: "invite", id: "invite" },
        h("label", { for: "invite-link" }, t("invite_link")),
        h("div", { class: "row" },
          h("input", { id: "invite-link", readonly: true, value: inviteUrl, onfocus: (e) => e.target.select() }),
          h("button", { type: "button", id: "copy-invite", onclick: () => this.copyInvite(inviteUrl) }, t("copy")))) : null,
      creator && tb.status === "open" && tb.seats.some((s) => !s.name)
        ? h("button", { type: "button", id: "fill-bots", onclick: () => this.fillBots() }, t("fill_bots")) : null,
      h("div", { class: "row" },
        mine ? h("button", { type: "button", id: "leave-btn", onclick: () => this.leave() }, t("leave")) : null,
        h("a", { class: "button", href: "#/", onclick: () => sessionStorage.setItem("est.lobby", "1") }, t("back_lobby"))));
  }

  async copyInvite(url) {
    try {
      await navigator.clipboard.writeText(url);
      this.flash(t("copied"));
    } catch {
      const input = this.el.querySelector("#invite-link");
      if (input) { input.focus(); input.select(); }
      this.flash(t("copy_by_hand"));
    }
  }

  async fillBots() {
    try { await api("POST", `/api/tables/${this.id}/bots`); } catch (e) { this.flash(t("error", { m: e.message })); }
  }

  async sit(seat) {
    const tb = this.table;
    const me = session();
    try {
      await api("POST", `/api/tables/${this.id}/join`, { seat, stake: !!(tb && tb.stake > 0 && me && !me.account.guest),
        invite: store.get(`invite.${this.id}`) || null });
      this.ws.close(); // the seat is bound at hello: say it again
    } catch (e) { this.flash(t("error", { m: e.message })); }
  }

  /** What leaving costs at this table, said before the player confirms. */
  leaveCost() {
    const tb = this.table;
    const me = this.seat === null || !tb ? null : tb.seats[this.seat];
    if (!tb || tb.status === "open") return [t("leave_open"), me && me.staked ? t("leave_refund", { coins: t("coins", { n: tb.stake }) }) : null];
    const v = this.drawn();
    const ends = !!(v && v.rules.leaver_ends_match);
    // "Last among the stakers" only where people staked: at an unstaked table, last.
    const lines = [ends ? t("leave_ends_match") : t(tb.stake ? "leave_bot_plays" : "leave_bot_plays_free")];
    // At a competition's table leaving costs more than this game: 0 MP on the boards left, no later stage.
    if (tb.competition) lines.unshift(t("c_leave_cost"));
    if (me && me.staked) lines.push(t("leave_forfeit", { coins: t("coins", { n: tb.stake }) }));
    return lines;
  }

  async leave() {
    const ok = await confirmDialog({ id: "leave-dialog", title: t("leave_q"), text: this.leaveCost(),
      ok: t("leave"), cancel: t("stay") });
    if (!ok || this.closed) return;
    try {
      await api("POST", `/api/tables/${this.id}/leave`);
    } catch (e) {
      if (!(e.status === 409)) { this.flash(t("error", { m: e.message })); return; }
    }
    store.del("table");
    sessionStorage.setItem("est.lobby", "1");
    location.hash = "#/";
  }

  renderBar(v) {
    const tb = this.table;
    const meSeat = tb && this.seat !== null ? tb.seats[this.seat] : null;
    // Away, a bot plays our turns: the bar says so even while our legal moves are still on show (a click
    // brings us back), never "Your turn".
    const away = !!(meSeat && meSeat.away);
    const mine = this.myTurn() && !away;
    // Over: the phase says "Game over" (once), and the multiplier is the last round's, not a next one's.
    const turn = v.over ? ""
      : v.to_move === null ? "" : mine ? t("your_turn")
        : v.to_move === this.seat ? (away ? t("bot_playing_for_you") : "…")
          : t("waiting_for", { name: v.players[v.to_move] });
    const kind = v.kind ? t(`kind_${v.kind}`) : "";
    return h("div", { class: "bar" },
      tb && tb.name ? h("span", { class: "bar-name", id: "table-title" }, tableName(tb)) : null,
      h("span", { class: "round" }, t("round_of", { r: v.round, n: v.rounds }), v.deal > 1 ? ` (${t("deal_n", { n: v.deal })})` : ""),
      h("span", { class: "kind", id: "round-kind" }, kind),
      h("span", { class: "trump", id: "trump" }, `${t("trump")}: `,
        v.trump ? h("strong", { class: `suit-${v.trump}`, "data-trump": v.trump }, trumpText(v.trump)) : h("span", { "data-trump": "" }, t("trump_open"))),
      h("span", { class: `mult${shownMultiplier(v) > 1 ? " hot" : ""}`, id: "multiplier" }, `${t("multiplier")} ×${shownMultiplier(v)}`),
      tb && tb.stake ? h("span", { class: "pot", id: "pot" }, t("stake_pot", { s: tb.stake, p: tb.pot })) : null,
      // egyptian's Dash is not a Dash Call: its offers are named for what they are.
      h("span", { class: "phase" }, t(v.phase === "dash" && offerIsDash(v) ? "phase_dash_offer" : `phase_${v.phase}`)),
      h("strong", { class: `turn${mine ? " mine" : ""}`, id: "turn" }, turn),
      this.seat === null ? h("span", { class: "muted", id: "spectating" }, t("spectator")) : null);
  }

  renderFelt(v) {
    const last = lastDeclarations(v);
    const showBubbles = v.phase !== "play";
    const seats = [0, 1, 2, 3].map((s) => {
      const pos = this.pos(s);
      const n = v.hand_sizes[s];
      const side = sideOf(this.sideSeats(v), s);
      return h("div", { class: `seat pos-${pos}${v.to_move === s ? " to-move" : ""}${side < 0 ? "" : ` side-${side}`}`,
        "data-seat": s, "data-pos": pos },
        h("div", { class: "nameplate" }, v.players[s], v.dealer === s ? dealerChip(v) : null, this.sideChip(v, s),
          this.clock && this.clock.seat === s ? h("span", { class: "clock", "data-seat": s, dir: getLang() === "ar" ? "rtl" : "ltr" }) : null),
        h("div", { class: "info" }, `${v.estimates[s] ?? "–"} / ${v.markers[s].tricks}`),
        showBubbles && last[s] ? h("div", { class: "bubble", "data-seat": s, title: describeAction(last[s], v.players, v.verbs) },
          shortAction(last[s], v)) : null,
        s === this.seat ? null : h("div", { class: "backs", "aria-label": `${n}` }, Array.from({ length: Math.min(n, 13) }, cardBack)));
    });
    const cards = this.overlay ? this.overlay.cards : v.trick;
    const trick = h("div", { class: `trick${this.overlay ? " done" : ""}`, "aria-label": t("phase_play") },
      cards.map((c) => cardFace(c.card, "span", { class: `card suit-${c.card[1]} at-${this.pos(c.seat)}` })));
    return h("div", { class: "felt" }, seats, trick);
  }

  renderActions(v) {
    const panel = h("div", { class: "actions", id: "actions" },
      h("p", { class: "clock-warning", id: "clock-warning", role: "alert", hidden: true }));
    const me = this.seat;
    if (me !== null && !v.over && this.table && this.table.seats[me] && this.table.seats[me].away) {
      panel.append(h("p", { class: "away-note", id: "away-note" }, t("you_away"), " ",
        h("button", { type: "button", id: "back-btn", onclick: () => this.send({ type: "back" }) }, t("back_btn"))));
    }
    const legal = this.liveLegal();
    if (!legal.size || me === null) return panel;
    const redraw = () => this.render();
    panel.append(...actionPanels(v, me, legal, this.pick, (a) => this.act(a), (p) => { this.pick = p; redraw(); }));
    if ([...legal].some((a) => parseAction(a).verb === "est")) {
      panel.append(estimatePanel(v, me, legal, this.superFor, (a) => this.act(a), (n) => { this.superFor = n; redraw(); }));
    }
    if ([...legal].some((a) => parseAction(a).verb === "play")) panel.append(h("p", { class: "hint" }, t("play_hint")));
    return panel;
  }

  renderHand(v) {
    if (this.seat === null || !v.hand) return h("div", { class: "hand empty" });
    const legal = this.liveLegal();
    return h("div", { class: "hand", role: "group", "aria-label": t("your_hand") }, sortHand(v.hand).map((c) => {
      const text = `${this.seat} play ${c}`;
      const ok = legal.has(text);
      return cardFace(c, "button", { type: "button", class: `card suit-${c[1]}${ok ? " legal" : ""}`, disabled: !ok,
        "data-key": c, onclick: ok ? () => this.act(text) : null });
    }));
  }

  practice() {
    const tb = this.table;
    return !!tb && this.seat !== null && tb.seats.every((s, i) => i === this.seat || s.bot);
  }

  renderTools(v) {
    const muted = !settings().sound;
    return h("div", { class: "tools" },
      this.practice() && !v.over ? h("button", { type: "button", id: "hint-btn", disabled: !this.myTurn(),
        onclick: () => this.hint() }, t("hint"), " (H)") : null,
      h("button", { type: "button", id: "last-trick-btn", disabled: !v.tricks.length, onclick: () => this.lastTrick() }, t("last_trick"), " (L)"),
      h("button", { type: "button", id: "sheet-btn", onclick: () => this.sheet() }, t("score_sheet"), " (S)"),
      // The last round's breakdown, again (it opens by itself once, when the round is scored).
      !v.over ? h("button", { type: "button", id: "round-scores-btn", disabled: !v.results.length,
        onclick: () => this.roundEnd() }, t("round_scores"), " (R)") : null,
      h("button", { type: "button", id: "sound-btn", "aria-pressed": muted ? "true" : "false",
        onclick: () => { saveSettings({ sound: muted }); this.render(); } }, muted ? `♪̸ ${t("sound_off")}` : `♪ ${t("sound_on")}`),
      // A Partners table's rules speak of sides.
      h("a", { class: "button", id: "rules-link", href: `#/rules/${v.ruleset}${v.sides ? "/partners" : ""}`, target: "_blank",
        rel: "noopener" }, t("rules")),
      // The page shell owns the Settings dialog: asked for by an event, so the table never imports the shell.
      h("button", { type: "button", id: "table-settings-btn", onclick: () => window.dispatchEvent(new Event("est:settings")) },
        t("settings")),
      this.seat !== null && !v.over && this.table && !this.table.seats[this.seat].left
        ? h("button", { type: "button", id: "leave-btn", onclick: () => this.leave() }, t("leave")) : null,
      h("a", { class: "button", href: "#/", onclick: () => sessionStorage.setItem("est.lobby", "1") }, t("back_lobby")),
      this.table && this.table.competition ? h("a", { class: "button", id: "competition-link",
        href: `#/competition/${this.table.competition}` }, t("c_competition")) : null,
      v.over ? h("a", { class: "button", href: `#/replay/${this.id}` }, t("replay")) : null);
  }

  relabel() {
    this.render();
    this.chat.relabel();
    const again = { "round-end": () => this.roundEnd(), "match-end": () => this.matchEnd(), sheet: () => this.sheet(),
      "last-trick": () => this.lastTrick() };
    for (const open of document.querySelectorAll("dialog.table-dialog[open]")) if (again[open.id]) again[open.id]();
  }

  // --- dialogs ------------------------------------------------------------------------------------
  /** A table dialog over the table. It replaces one of the same id only: a round's scores stay open under a
   *  hint, the last trick or the sheet opened over them, and come back when that one is closed. */
  dialog(id, title, ...body) {
    document.querySelectorAll(`dialog.table-dialog#${id}`).forEach((d) => d.remove());
    const dlg = h("dialog", { class: "table-dialog", id, "aria-labelledby": `${id}-title` },
      h("h2", { id: `${id}-title`, tabindex: "-1" }, title), ...body,
      h("div", { class: "row" }, h("button", { type: "button", class: "primary close", onclick: () => { dlg.close(); dlg.remove(); } },
        t("continue"))));
    dlg.addEventListener("close", () => dlg.remove());
    // A page already left (a competition's next stage took the person to its table) may still get its
    // socket's last messages or an answer on its way: it shows nothing over the next page.
    if (this.closed) return dlg;
    document.body.append(dlg);
    dlg.show();
    // Open at the top, heading first: focusing the button at the bottom scrolled a long panel past its heading.
    dlg.scrollTop = 0;
    dlg.querySelector("h2").focus({ preventScroll: true });
    scrollCues(dlg); // a phone's breakdown is wider than the screen: say so
    return dlg;
  }

  async hint() {
    const v = this.drawn();
    if (!v || !this.myTurn()) return;
    const box = this.dialog("hint", t("hint"), h("p", { id: "hint-wait" }, t("hint_wait")));
    let res;
    try {
      res = await api("POST", `/api/tables/${this.id}/hint`);
    } catch (e) {
      box.querySelector("#hint-wait").textContent = t("error", { m: e.message });
      return;
    }
    if (!box.isConnected) return;
    const rows = [...res.actions].sort((a, b) => b.expected_score - a.expected_score);
    // Each "tricks: chance" kept left to right (num): in Arabic "2: 23%" showed as "23% :2".
    const odds = (p) => p.map((x, k) => [k, x]).filter(([, x]) => x >= 0.05).sort((a, b) => b[1] - a[1]).slice(0, 3)
      .flatMap(([k, x], i) => [i ? " · " : null, num(`${k}: ${Math.round(x * 100)}%`)]);
    box.querySelector("#hint-wait").replaceWith(
      h("p", { class: "muted" }, t("hint_note", { deals: t("n_deals", { n: res.samples }) })),
      h("table", { class: "hint-table", id: "hint-table" },
        h("thead", {}, h("tr", {}, h("th", {}, t("action")), h("th", {}, t("expected_score")), h("th", {}, t("expected_tricks")),
          h("th", {}, t("trick_odds")))),
        h("tbody", {}, rows.map((r) => h("tr", { class: r.action === res.best ? "best" : "", "data-action": r.action },
          h("td", {}, describeAction(r.action, v.players, v.verbs), r.action === res.best ? ` ★ ${t("best")}` : ""),
          h("td", {}, num(r.expected_score.toFixed(1))), h("td", {}, num(r.expected_tricks.toFixed(1))),
          h("td", { class: "odds" }, odds(r.tricks)))))));
    scrollCues(box);
  }

  lastTrick() {
    const v = this.drawn();
    if (!v) return;
    const last = v.tricks[v.tricks.length - 1];
    if (!last) { this.dialog("last-trick", t("last_trick"), h("p", {}, t("no_last_trick"))); return; }
    const cards = last.cards.map((c, i) => ({ seat: (last.leader + i) % 4, card: c }));
    this.dialog("last-trick", t("last_trick"), h("ul", { class: "last-trick" }, cards.map((c) =>
      h("li", { class: c.seat === last.winner ? "winner" : "" }, v.players[c.seat], " ", cardFace(c.card),
        c.seat === last.winner ? " ✓" : ""))));
  }

  sheet() {
    const v = this.drawn();
    if (!v) return;
    this.dialog("sheet", t("score_sheet"), scoreSheet(v.results, v.players, v.totals, this.sideSeats(v)));
  }

  checkRoundEnd() {
    const v = this.drawn();
    if (!v) return;
    if (this.seenResults === null) { this.seenResults = v.results.length; if (v.over) this.showEnd(); return; }
    if (v.results.length > this.seenResults) {
      this.seenResults = v.results.length;
      if (v.over) this.showEnd();
      else this.roundEnd();
    } else if (v.over) this.showEnd(); // ended with no round scored: a leaver ended an egyptian match
  }

  showEnd() {
    if (this.endShown) return;
    this.endShown = true;
    this.matchEnd();
  }

  roundEnd() {
    const v = this.drawn();
    const r = v && v.results[v.results.length - 1];
    if (!r) return;
    this.dialog("round-end", t("round_end", { r: r.round }),
      r.saaydeh ? h("p", { class: "saaydeh" }, t("saaydeh", { n: v.multiplier })) : null,
      breakdownTable(r, v.players, this.scoreLines(v)),
      // A partnership game: each side's score of this round and its total (RULES.md, Partnerships).
      v.sides ? sidesList({ ...v.sides, places: null, round: sideScores(r.scores, v.sides.seats) }, v.players, "round-sides") : null,
      h("h3", {}, t("score_sheet")), scoreSheet(v.results, v.players, v.totals, this.sideSeats(v)));
  }

  matchEnd() {
    const v = this.drawn();
    const order = [0, 1, 2, 3].sort((a, b) => v.places[a] - v.places[b] || a - b);
    const last = v.results[v.results.length - 1];
    const pay = this.payout;
    const stakers = pay ? Object.keys(pay).length : 0;
    const refund = this.table && this.table.stake && stakers === 1;
    const payText = (s) => {
      if (!pay || pay[s] === undefined) return "";
      return refund ? ` · ${t("refund")}: ${pay[s]}` : ` · ${t("payout")}: ${pay[s]}`;
    };
    this.dialog("match-end", t("match_end"),
      // A list without numbers of its own: the place is the text ("1st"), ties share it. A partnership game
      // is won by a side: the sides are the standings, each with its partners' own totals and shares.
      v.sides ? this.sideStandings(v, payText) : h("ul", { class: "places", id: "standings" }, order.map((s) => h("li", { "data-seat": s },
        h("strong", { class: "place" }, t("places_n", { n: v.places[s] })), " ", h("bdi", {}, v.players[s]), " · ", num(v.totals[s]),
        payText(s)))),
      // The pot played for: once paid, the table's pot is empty and the split adds up to it.
      this.table && this.table.stake
        ? h("p", { id: "pot-line" }, refund ? t("pot_refunded", { coins: t("coins", { n: this.table.stake }) })
          : t("pot", { n: pay ? Object.values(pay).reduce((a, b) => a + b, 0) : this.table.pot })) : null,
      v.ended ? h("p", { class: "muted" }, t("ended_by_leaver", { name: v.players[v.ended.seat] })) : null,
      last ? breakdownTable(last, v.players, this.scoreLines(v)) : null,
      h("h3", {}, t("score_sheet")), scoreSheet(v.results, v.players, v.totals, this.sideSeats(v)),
      h("div", { class: "row" }, h("a", { class: "button", href: `#/replay/${this.id}` }, t("replay")),
        this.seat !== null && !(this.table && this.table.competition) ? h("button", { type: "button", class: "primary",
          id: "rematch-btn", onclick: () => this.playAgain() }, t("play_again")) : null,
        this.table && this.table.competition ? h("a", { class: "button primary", id: "match-end-competition",
          href: `#/competition/${this.table.competition}` }, t("c_competition")) : null),
      // Said before the click: the new table is private (not in the lobby) and for this table's players.
      this.seat !== null && !(this.table && this.table.competition)
        ? h("p", { class: "muted", id: "rematch-note" }, t("rematch_private_note")) : null,
      h("div", { id: "rematch-box" }));
    this.renderRematch();
  }

  /** The ruleset's score lines (field -> heading) for the breakdowns, once /api/rulesets has answered. */
  scoreLines(v) {
    const info = this.rulesetList && this.rulesetList.find((r) => r.name === v.ruleset);
    return info ? info.score_lines : null;
  }

  /** A partnership game's sides' seats ([[0, 2], [1, 3]]) for the score sheet's side columns, else null. */
  sideSeats(v) { return v.sides ? v.sides.seats : null; }

  /** A seat's side on its nameplate in a partnership game: "Partner" on yours, "Side N" on the others'. */
  sideChip(v, s) {
    const side = sideOf(this.sideSeats(v), s);
    if (side < 0) return null;
    const mine = this.seat !== null && s !== this.seat && sideOf(this.sideSeats(v), this.seat) === side;
    return h("span", { class: `badge side side-${side}${mine ? " partner" : ""}`, "data-side": side },
      mine ? t("your_partner") : sideName(side));
  }

  /** The match's end in a partnership game: the winning side (or a draw), then each side in its place with
   *  its total, its partners' own totals and their shares of the pot. */
  sideStandings(v, payText) {
    const sides = v.sides;
    const names = (k) => partnerNames(sides.seats[k], v.players);
    const level = sides.places[0] === sides.places[1];
    const winner = sides.places.indexOf(1);
    const mine = this.seat === null ? -1 : sideOf(this.sideSeats(v), this.seat);
    const says = mine < 0 ? "side_wins" : mine === winner ? "your_side_wins" : "your_side_loses";
    const headline = level ? t("sides_level") : [t(says, { side: sideName(winner) }), " ", names(winner)];
    const order = [0, 1].sort((a, b) => sides.places[a] - sides.places[b] || a - b);
    return h("div", { class: "side-standings" },
      h("p", { class: "side-result", id: "side-result" }, h("strong", {}, headline)),
      h("ul", { class: "places sides-places", id: "standings" }, order.map((k) => h("li", { "data-side": k, class: `side-${k}` },
        h("strong", { class: "place" }, t("places_n", { n: sides.places[k] })), " ", sideName(k), " (", names(k), ") · ",
        h("span", { class: "side-total" }, num(sides.totals[k])),
        h("ul", { class: "partners" }, sides.seats[k].map((s) => h("li", { "data-seat": s },
          h("bdi", {}, v.players[s]), " · ", num(v.totals[s]), payText(s))))))));
  }

  /** "Play again": a new table with the same rules for the same people (bots stay bots). */
  async playAgain() {
    try {
      const res = await api("POST", `/api/tables/${this.id}/rematch`);
      store.set("table", { id: res.table.id, version: null, done: false });
      location.hash = `#/table/${res.table.id}`;
    } catch (e) { this.flash(t("error", { m: e.message })); }
  }

  async declineRematch() {
    try {
      await api("POST", `/api/tables/${this.id}/rematch/decline`);
      const box = document.getElementById("rematch-box");
      if (box) box.replaceChildren(h("p", { class: "muted" }, t("rematch_declined")));
    } catch (e) { this.flash(t("error", { m: e.message })); }
  }

  /** Who asked for a rematch and who answered: each person accepts (is seated) or declines. */
  renderRematch() {
    const box = document.getElementById("rematch-box");
    const r = this.rematch;
    if (!box || !r) return;
    const me = session();
    const mine = r.players.find((p) => me && p.account_id === me.account.id);
    box.replaceChildren(h("ul", { class: "rematch-list" }, r.players.map((p) => h("li", { "data-account": p.account_id },
      p.name, " · ", t(p.reply ? `rematch_${p.reply}_reply` : "rematch_waiting")))),
      mine && mine.reply !== "accept" && mine.reply !== "decline" && r.table_id
        ? h("div", { class: "row" }, h("button", { type: "button", class: "primary", id: "rematch-accept", onclick: () => this.playAgain() },
          t("rematch_accept")), h("button", { type: "button", id: "rematch-decline", onclick: () => this.declineRematch() }, t("rematch_decline")))
        : null);
  }

  // --- keys ---------------------------------------------------------------------------------------
  key(e) {
    if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]:modal")) return;
    if (e.key === "l" || e.key === "L") { this.lastTrick(); e.preventDefault(); }
    else if (e.key === "s" || e.key === "S") { this.sheet(); e.preventDefault(); }
    else if ((e.key === "r" || e.key === "R") && this.shown && this.shown.results.length && !this.shown.over) {
      this.roundEnd(); e.preventDefault();
    }
    else if ((e.key === "h" || e.key === "H") && this.practice()) { this.hint(); e.preventDefault(); }
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
