// Competitions (RULES.md, Competitions): the lobby's list (upcoming, running, finished) and a director's
// form, and a competition's page: its rules in a sentence, entrants, a countdown, Register / Withdraw, live
// standings (MP and %), the way to your table, "waiting for the other tables", the traveller of each board
// you have finished (with a Replay of each table's play of it) and your own summary.
//
// Live changes come over the lobby socket (LobbyFeed): `competition` (its state and standings) and, on the
// player's own topic, `competition_table` (your table of a stage: the page takes you there). Every name is
// put in the page as text (h() makes text nodes), never as HTML.
import { h, api, session, trumpText } from "./common.js";
import { t, tParts, lengthName, levelName } from "./i18n.js";
import { rulesetName, rulesetOptions, lengthOptions, rulesetInfo, playsText } from "./rulesets.js";
import { shortAction } from "./board.js";
import { LobbyFeed, fill, num, playerLink, toast, botName } from "./lobbyfeed.js";

/** The competition's rules in one sentence, in the page's language. */
export function rulesSentence(c) {
  const base = { rs: rulesetName(c.ruleset), len: lengthName(c.length), boards: t("n_boards", { n: c.rounds }),
    level: levelName(c.bot_level) };
  if (c.kind === "robot") {
    return t("c_rules_robot", { ...base, end: c.window_end ? when(c.window_end) : "?" })
      + (c.instances > 1 ? " " + t("c_rules_instances", { sets: t("n_deal_sets", { n: c.instances }) }) : "");
  }
  return t("c_rules_swiss", { ...base, stages: t("n_stages", { n: c.stages }) })
    + " " + (c.turn_seconds ? t("c_rules_clock", { s: c.turn_seconds }) : t("c_rules_noclock"));
}

function when(iso) {
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** "in 2 min 05 s" until an ISO time (0 when past). */
function countdown(iso) {
  const s = Math.max(0, Math.round((new Date(iso) - Date.now()) / 1000));
  const m = Math.floor(s / 60);
  if (m >= 60) return t("c_in_hours", { h: Math.floor(m / 60), m: m % 60 });
  return t("c_in_min", { m, s: String(s % 60).padStart(2, "0") });
}

function statusText(c) { return t(`c_status_${c.status}`); }

function pct(p) { return `${Number(p).toFixed(2)}%`; }

/** How many entrants, and of how many where the competition has an entry limit ("6 of 10 entrants"). */
function entrantsText(c) {
  return c.entry_limit ? t("c_entrants_of", { n: c.entrants, entrants: t("n_entrants", { n: c.entry_limit }) })
    : t("n_entrants", { n: c.entrants });
}

/** Whether the caller is done at its table of the stage in play, in every ruleset and kind: it left it
 *  (`table_over`, as when its table finished, an egyptian table a leaver ended included) or played every
 *  board. Nothing offers the way to a table the caller is done at. */
function doneAtTable(c) { return c.mine.table_over || c.mine.boards_seen >= c.rounds; }

/** A standing's place, or "–" while the entrant has no board that counts (top 0): before the start
 *  every entrant ties at 0 of 0, and "1" for all of them would say nothing true. */
function place(row) { return row.top ? num(row.place) : "–"; }

// --- the lobby's part ----------------------------------------------------------------------------------
/**
 * The lobby's competitions: three lists fetched over REST and fetched again when a `competition` message
 * says one changed, and the director's form. Returns { el, changed(m), destroy() }.
 */
export function competitionsPanel(rulesets, levels, err) {
  const lists = {};
  const el = h("section", { class: "tables competitions", id: "competitions" }, h("h2", {}, t("c_competitions")));
  for (const status of ["running", "upcoming", "finished"]) {
    lists[status] = h("ul", { id: `competitions-${status}` });
    el.append(h("h3", {}, t(`c_list_${status}`)), lists[status]);
  }
  const fetchAll = async () => {
    for (const status of Object.keys(lists)) {
      let rows = [];
      try { rows = await api("GET", `/api/competitions?status=${status}&limit=20`); } catch { /* none */ }
      fill(lists[status], rows.length ? rows.map((c) => h("li", { "data-competition": c.id, "data-status": c.status },
        h("a", { href: `#/competition/${c.id}`, class: "competition-link" }, c.name), " ",
        h("span", { class: "chip" }, t(`c_kind_${c.kind}`)), " ",
        h("small", {}, playsText(c.ruleset, c.length), " · ", entrantsText(c),
          c.status === "upcoming" ? [" · ", t("c_starts", { w: when(c.starts_at) })] : "",
          c.status === "paused" ? [" · ", t("c_status_paused")] : "")))
        : h("li", { class: "muted" }, t("none")));
    }
  };
  el.append(directorForm(rulesets, levels, err));
  let timer = null;
  const soon = () => { clearTimeout(timer); timer = setTimeout(() => fetchAll().catch(() => {}), 300); };
  fetchAll().catch(() => {});
  return { el, changed: soon, destroy() { clearTimeout(timer); } };
}

/** A director's form (any signed-in player may run a competition), folded away until opened. */
function directorForm(rulesets, levels, err) {
  const name = h("input", { id: "c-name", maxlength: 64, required: true, value: t("c_default_name") });
  const kind = h("select", { id: "c-kind" }, ["swiss", "robot"].map((k) => h("option", { value: k }, t(`c_kind_${k}`))));
  const rs = h("select", { id: "c-ruleset" }, rulesetOptions(rulesets));
  const len = h("select", { id: "c-length" });
  const fillLengths = () => {
    const r = rulesets.find((x) => x.name === rs.value);
    fill(len, lengthOptions(r));
  };
  rs.addEventListener("change", fillLengths);
  fillLengths();
  const level = h("select", { id: "c-level" }, levels.map((l) => h("option", { value: l, selected: l === "strong" }, levelName(l))));
  const stages = h("input", { id: "c-stages", type: "number", min: 1, max: 20, value: 3 });
  const minutes = h("input", { id: "c-starts", type: "number", min: 0, max: 100000, value: 10 });
  const hours = h("input", { id: "c-window", type: "number", min: 1, max: 744, value: 24 });
  const instances = h("input", { id: "c-instances", type: "number", min: 1, max: 100, value: 1 });
  const limit = h("input", { id: "c-limit", type: "number", min: 0, max: 100000, value: 0 });
  const clock = h("input", { id: "c-clock", type: "number", min: 0, max: 3600, value: 60 });
  const priv = h("input", { id: "c-private", type: "checkbox" });
  const swissOnly = h("div", { class: "c-swiss" }, h("label", {}, t("c_stages"), stages), h("label", {}, t("turn_seconds"), clock));
  const robotOnly = h("div", { class: "c-robot", hidden: true }, h("label", {}, t("c_window_hours"), hours),
    h("label", {}, t("c_instances"), instances));
  kind.addEventListener("change", () => { swissOnly.hidden = kind.value !== "swiss"; robotOnly.hidden = kind.value !== "robot"; });
  const form = h("form", { class: "create", id: "competition-form" },
    h("label", {}, t("c_name"), name), h("label", {}, t("c_kind"), kind), h("label", {}, t("ruleset"), rs),
    h("label", {}, t("length"), len), h("label", {}, t("bot_level"), level), swissOnly, robotOnly,
    h("label", {}, t("c_starts_in"), minutes), h("label", {}, t("c_limit"), limit),
    h("label", { class: "inline" }, priv, " ", t("private")),
    h("button", { type: "submit", class: "primary", id: "c-create" }, t("c_create")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    const body = { name: name.value.trim(), kind: kind.value, ruleset: rs.value, length: len.value,
      bot_level: level.value, starts_in: Math.round((Number(minutes.value) || 0) * 60),
      entry_limit: Number(limit.value) || 0, private: priv.checked };
    if (kind.value === "swiss") Object.assign(body, { stages: Number(stages.value) || 1, turn_seconds: Number(clock.value) || 0 });
    else Object.assign(body, { window_seconds: Math.round((Number(hours.value) || 1) * 3600), instances: Number(instances.value) || 1 });
    try {
      const c = await api("POST", "/api/competitions", body);
      location.hash = `#/competition/${c.id}`;
    } catch (ex) { err.textContent = t("error", { m: ex.message }); }
  });
  return h("details", { id: "competition-new" }, h("summary", {}, t("c_new")), form);
}

// --- a competition's page --------------------------------------------------------------------------------
export class CompetitionPage {
  constructor(root, id) {
    this.id = id;
    this.c = null;
    this.board = null; // the traveller shown: {stage, round, instance, offset} (offset null: my page)
    this.el = h("section", { class: "competition-page", id: "competition-page", "data-competition": id });
    this.err = h("p", { class: "error", role: "alert", id: "c-error" });
    this.head = h("div", { class: "c-head" });
    this.actions = h("div", { class: "row c-actions", id: "c-actions" });
    this.wait = h("p", { class: "c-wait", id: "c-wait", role: "status", "aria-live": "polite" });
    this.standings = h("section", { class: "c-standings", id: "c-standings" });
    this.entrants = h("section", { class: "c-entrants", id: "c-entrants" });
    this.boards = h("section", { class: "c-boards", id: "c-boards" });
    this.traveller = h("section", { class: "c-traveller", id: "c-traveller", tabindex: "-1" });
    this.summary = h("section", { class: "c-summary", id: "c-summary" });
    this.audit = h("section", { class: "c-audit", id: "c-audit" });
    this.el.append(this.head, this.actions, this.err, this.wait, this.summary, this.standings, this.boards,
      this.traveller, this.audit, this.entrants);
    root.append(this.el);
    this.invite = new URLSearchParams((location.hash.split("?")[1] || "")).get("invite");
    this.feed = new LobbyFeed({
      onMessage: (m) => {
        if (m.type === "competition" && m.competition && m.competition.id === this.id) this.soon();
        if (m.type === "competition_table" && m.competition === this.id) location.hash = `#/table/${m.table_id}`;
      },
      onReconnect: () => this.soon(),
    });
    this.ticker = setInterval(() => this.tick(), 1000);
    this.load();
  }

  destroy() { this.feed.close(); clearInterval(this.ticker); clearTimeout(this.timer); }

  /** The language changed: everything drawn again, the open traveller too (its headings and words). */
  relabel() {
    this.draw();
    if (this.board) this.showBoard(this.board.stage, this.board.round, this.board.instance, false, this.board.offset);
  }

  soon() { clearTimeout(this.timer); this.timer = setTimeout(() => this.load(), 250); }

  async load() {
    try {
      const headers = this.invite ? { invite: this.invite } : {};
      this.c = await api("GET", `/api/competitions/${this.id}`, undefined, headers);
      this.rules = await rulesetInfo(this.c.ruleset).catch(() => null); // its verbs, for the calls column
      this.mine = null;
      if (this.c.mine.entry !== null && session()) {
        try { this.mine = await api("GET", `/api/competitions/${this.id}/me`); } catch { this.mine = null; }
      }
      this.err.textContent = "";
      this.draw();
      if (this.board) this.showBoard(this.board.stage, this.board.round, this.board.instance, false, this.board.offset);
    } catch (e) { this.err.textContent = t("error", { m: e.message }); }
  }

  async post(path, body) {
    this.err.textContent = "";
    try { await api("POST", `/api/competitions/${this.id}/${path}`, body); await this.load(); return true; }
    catch (e) { this.err.textContent = t("error", { m: e.message }); return false; }
  }

  tick() {
    const el = this.head.querySelector("#c-countdown");
    if (el && this.c && this.c.status === "upcoming") el.textContent = t("c_starts_in_x", { x: countdown(this.c.starts_at) });
  }

  draw() {
    const c = this.c;
    if (!c) return;
    document.title = `${c.name} · ${t("app")}`;
    fill(this.head,
      h("h1", {}, c.name), h("p", { class: "c-rules", id: "c-rules" }, rulesSentence(c)),
      h("p", { class: "c-meta" }, h("span", { class: "chip", id: "c-status", "data-status": c.status }, statusText(c)), " ",
        t("c_director", { name: c.director }), " · ", entrantsText(c),
        c.kind === "swiss" && c.stage ? [" · ", t("c_stage_of", { s: c.stage, n: c.stages })] : "",
        c.status === "upcoming" ? [" · ", h("span", { id: "c-countdown" }, t("c_starts_in_x", { x: countdown(c.starts_at) }))] : ""),
      c.invite_code ? h("p", { class: "muted", id: "c-invite" }, t("c_invite"), " ",
        h("code", {}, `${location.origin}/#/competition/${c.id}?invite=${c.invite_code}`)) : null);
    this.drawActions();
    this.drawWait();
    this.drawStandings();
    this.drawBoards();
    this.drawSummary();
    this.drawAudit();
    fill(this.entrants, h("h2", {}, t("c_entrants")), c.entrants_list.length
      ? h("ol", { id: "c-entrant-list" }, c.entrants_list.map((e) => h("li", { "data-entrant": e.id },
        playerLink(e.name, e.account_id), e.removed ? ` (${t("c_removed")})` : "",
        c.manager && !e.removed && c.status !== "finished" ? [" ", h("button", { type: "button", class: "link c-remove",
          "data-entrant": e.id, onclick: () => this.post(`entrants/${e.id}/remove`) }, t("c_remove"))] : "")))
      : h("p", { class: "muted" }, t("none")));
  }

  drawActions() {
    const c = this.c;
    const mine = c.mine;
    const registered = mine.entry !== null;
    const open = c.kind === "robot" ? ["upcoming", "running"].includes(c.status) : c.status === "upcoming";
    const btns = [];
    if (session() && open && !registered) {
      btns.push(h("button", { type: "button", class: "primary", id: "c-register",
        onclick: () => this.post("register", this.invite ? { invite: this.invite } : {}) }, t("c_register")));
    }
    // Seated at a table of the stage in play and not done there (doneAtTable): the way to it is offered.
    const atTable = registered && !!mine.table_id && c.status !== "finished" && !doneAtTable(c);
    // A robot entrant's own table: Play now before it has one, Go on playing while it plays there.
    const robotPlay = registered && c.kind === "robot" && c.status === "running" && (!mine.table_id || atTable);
    if ((registered && c.status === "upcoming") || robotPlay) {
      btns.push(h("button", { type: "button", id: "c-withdraw", onclick: () => this.post("withdraw") }, t("c_withdraw")));
    }
    if (robotPlay) {
      btns.push(h("button", { type: "button", class: "primary", id: "c-play", onclick: async () => {
        try { const r = await api("POST", `/api/competitions/${this.id}/play`); location.hash = `#/table/${r.table_id}`; }
        catch (e) { this.err.textContent = t("error", { m: e.message }); }
      } }, mine.table_id ? t("c_resume") : t("c_play")));
    } else if (atTable) {
      btns.push(h("a", { class: "button primary", id: "c-my-table", href: `#/table/${mine.table_id}` }, t("c_to_table")));
    }
    if (c.manager && c.status === "upcoming") btns.push(h("button", { type: "button", id: "c-start", onclick: () => this.post("start") }, t("c_start")));
    if (c.manager && c.status === "running") btns.push(h("button", { type: "button", id: "c-pause", onclick: () => this.post("pause") }, t("c_pause")));
    if (c.manager && c.status === "paused") btns.push(h("button", { type: "button", id: "c-resume", onclick: () => this.post("resume") }, t("c_resume_c")));
    if (c.status === "finished") btns.push(h("a", { class: "button", id: "c-export", href: `/api/competitions/${c.id}/export`, download: `competition-${c.id}.json` }, t("c_export")));
    fill(this.actions, btns);
  }

  drawWait() {
    const c = this.c;
    const mine = c.mine;
    let text = "";
    if (mine.left && c.status !== "finished") text = t("c_you_left");  // out of it: nothing waits for a leaver
    else if (c.kind === "swiss" && c.status !== "upcoming" && c.status !== "finished" && mine.entry !== null
        && doneAtTable(c) && c.tables_finished < c.tables) {
      text = t("c_waiting", { f: c.tables_finished, n: c.tables });
    } else if (c.status === "paused") text = t("c_paused_note");
    else if (c.status === "finished") text = t("c_over");
    this.wait.textContent = text;
  }

  drawStandings() {
    const c = this.c;
    const me = session() ? session().account.id : null;
    fill(this.standings, h("h2", {}, t("c_standings")), c.standings.length ? h("table", { class: "sheet c-table", id: "c-standings-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("place")), h("th", { scope: "col" }, t("name")),
        h("th", { scope: "col" }, t("c_mp")), h("th", { scope: "col" }, t("c_top")), h("th", { scope: "col" }, "%"))),
      h("tbody", {}, c.standings.map((r) => h("tr", { "data-entrant": r.entrant, class: r.account_id === me ? "me" : null },
        h("td", { class: "c-place" }, place(r)), h("td", {}, playerLink(r.name, r.account_id), r.removed ? ` (${t("c_removed")})` : r.left ? ` (${t("m_left")})` : ""),
        h("td", { class: "c-mp" }, num(r.mp)), h("td", {}, num(r.top)), h("td", { class: "c-pct" }, num(pct(r.percent)))))))
      : h("p", { class: "muted" }, t("none")));
  }

  /** The boards the caller may open: those it finished, or every board of a stage that is over. */
  drawBoards() {
    const c = this.c;
    const mine = this.mine;
    const seen = new Map(); // "stage/instance" -> rounds
    if (mine) for (const b of mine.boards) seen.set(`${b.stage}/${b.instance}`, Math.max(seen.get(`${b.stage}/${b.instance}`) || 0, b.round));
    if (c.status === "finished" && c.kind === "swiss") for (let s = 1; s <= c.stage; s++) seen.set(`${s}/1`, c.rounds);
    if (c.status === "finished" && c.kind === "robot") for (let i = 1; i <= c.instances; i++) seen.set(`1/${i}`, c.rounds); // over: open to all
    if (c.kind === "swiss") for (let s = 1; s < c.stage; s++) seen.set(`${s}/1`, c.rounds); // earlier stages are over everywhere
    const groups = [...seen.entries()].sort();
    fill(this.boards, h("h2", {}, t(c.status === "finished" ? "c_travellers_all" : "c_travellers")), groups.length ? groups.map(([key, n]) => {
      const [stage, instance] = key.split("/").map(Number);
      return h("p", { class: "c-board-row" }, c.kind === "swiss" ? t("c_stage_n", { s: stage }) : t("c_boards"), " ",
        Array.from({ length: n }, (_, i) => h("button", { type: "button", class: "c-board-btn", "data-stage": stage, "data-round": i + 1,
          "aria-label": t("c_board_aria", { s: stage, r: i + 1 }), onclick: () => this.showBoard(stage, i + 1, instance, true) }, String(i + 1))));
    }) : h("p", { class: "muted", id: "c-no-boards" }, t(c.mine.entry === null ? "c_no_boards_watcher" : c.mine.left ? "c_no_boards_left" : "c_no_boards")));
  }

  /** A board's traveller, a page of tables at a time (`offset` null: the page with my table, else the first). */
  async showBoard(stage, round, instance, focus, offset = null) {
    this.board = { stage, round, instance, offset };
    try {
      const at = offset === null ? "" : `&offset=${offset}`;
      const b = await api("GET", `/api/competitions/${this.id}/boards/${stage}/${round}?instance=${instance}${at}`);
      const rows = [];
      // Calls and bids only where the ruleset has an auction (koutchina has none: no empty column).
      const calls = b.tables.some((tb) => tb.seats.some((s) => s.declarations.length));
      const verbs = (this.rules && this.rules.verbs) || {};
      for (const tb of b.tables) {
        for (const s of tb.seats) {
          rows.push(h("tr", { "data-table": tb.table, "data-seat": s.seat, class: tb.table === b.mine ? "me" : null },
            s.seat === 0 ? h("th", { scope: "row", rowspan: 4 }, t("table_n", { n: tb.table }), h("br"),
              tb.finished ? [trumpText(tb.trump), tb.multiplier > 1 ? [" ", num(`×${tb.multiplier}`)] : ""] : t("c_not_finished"), h("br"),
              tb.finished ? h("a", { class: "button replay c-replay", href: `#/replay/${tb.table}` }, t("replay")) : "") : null,
            // A bot's seat by the page's word for it ("Bot 2" / "روبوت 2"), which says bot already: no suffix.
            h("td", {}, s.entrant === null ? botName(s.seat) : s.player, s.left ? ` (${t("m_left")})` : "",
              tb.caller === s.seat ? " ★" : ""),
            // Each call in the words the table uses ("With", "Dash", "Pass"), as shortAction says them there.
            calls ? h("td", { class: "c-decl" }, s.declarations.map((d) => shortAction(`${s.seat} ${d}`, { verbs: verbs })).join(" ")) : null,
            h("td", {}, s.estimate === null ? "–" : num(s.estimate)), h("td", {}, s.tricks === null ? "–" : num(s.tricks)),
            h("td", {}, s.score === null ? "–" : num(s.score)), h("td", { class: "c-mp" }, s.mp === null ? "–" : num(s.mp))));
        }
      }
      const page = (to) => this.showBoard(stage, round, instance, true, to);
      const pager = b.tables_total > b.limit ? h("p", { class: "c-pager" },
        h("button", { type: "button", id: "c-tr-prev", disabled: b.offset <= 0, onclick: () => page(Math.max(0, b.offset - b.limit)) }, t("s_prev")), " ",
        h("span", { id: "c-tr-range" }, t("c_tables_range", { a: b.offset + 1, b: b.offset + b.tables.length, n: b.tables_total })), " ",
        h("button", { type: "button", id: "c-tr-next", disabled: b.offset + b.limit >= b.tables_total, onclick: () => page(b.offset + b.limit) }, t("s_next")))
        : null;
      fill(this.traveller, h("h2", {}, t("c_traveller", { s: stage, r: round }), " ", h("small", {}, t("c_top_n", { mp: t("n_mp", { n: b.top }) }))), pager,
        h("div", { class: "scroll" }, h("table", { class: "sheet c-traveller-table", id: "c-traveller-table" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("s_table")), h("th", { scope: "col" }, t("name")),
            calls ? h("th", { scope: "col" }, t("c_calls")) : null, h("th", { scope: "col" }, t("c_estimate")), h("th", { scope: "col" }, t("c_tricks")),
            h("th", { scope: "col" }, t("c_score")), h("th", { scope: "col" }, t("c_mp")))), h("tbody", {}, rows))));
      if (focus) this.traveller.focus();
    } catch (e) { fill(this.traveller, h("p", { class: "error" }, t("error", { m: e.message }))); }
  }

  drawSummary() {
    const m = this.mine;
    if (!m || !m.boards.length) { fill(this.summary); return; }
    const line = (b) => b ? t("c_board_line", { s: b.stage, r: b.round, p: b.percent === null ? "–" : pct(b.percent) }) : "–";
    fill(this.summary, h("h2", {}, t("c_your_summary")),
      m.standing ? h("p", { id: "c-my-standing" }, t("c_my_standing", { p: m.standing.top ? m.standing.place : "–", pct: pct(m.standing.percent), mp: m.standing.mp,
        top: t("n_mp", { n: m.standing.top }) })) : null,
      h("p", { id: "c-best" }, t("c_best"), ": ", line(m.best), " · ", t("c_worst"), ": ", line(m.worst)),
      h("ol", { class: "c-my-boards", id: "c-my-boards" }, m.boards.map((b) => h("li", { "data-stage": b.stage, "data-round": b.round },
        line(b), " ", t("c_mp_of", { mp: b.mp, top: b.top }), b.outcome !== "played" ? ` · ${t(`c_out_${b.outcome.replace(" ", "_")}`)}` : ""))));
  }

  drawAudit() {
    const c = this.c;
    const adj = c.adjustments;
    const form = c.manager && c.status !== "upcoming" ? this.adjustForm() : null;
    fill(this.audit, adj.length || form ? h("h2", {}, t("c_adjustments")) : null,
      adj.length ? h("ul", { id: "c-adjustment-list" }, adj.map((a) => h("li", {},
        t("c_adj_line", { s: a.stage, r: a.round, by: a.by, at: when(a.at) }), ": ",
        a.entrant !== null ? t("c_adj_mp", { e: (c.standings.find((r) => r.entrant === a.entrant) || { name: a.entrant }).name, mp: a.mp })
          : tParts("c_adj_score", { tb: a.table, seat: a.seat + 1, sc: num(a.score) }),
        " — ", h("q", { class: "c-reason" }, a.reason)))) : null, form);
  }

  adjustForm() {
    const c = this.c;
    const stage = h("input", { id: "adj-stage", type: "number", min: 1, max: Math.max(1, c.stage), value: Math.max(1, c.stage) });
    const round = h("input", { id: "adj-round", type: "number", min: 1, max: c.rounds, value: 1 });
    const who = h("select", { id: "adj-entrant" }, c.standings.map((r) => h("option", { value: r.entrant }, r.name)));
    const mp = h("input", { id: "adj-mp", type: "number", min: 0, value: 0 });
    const reason = h("input", { id: "adj-reason", maxlength: 200, required: true });
    const form = h("form", { class: "c-adjust", id: "c-adjust-form" },
      h("label", {}, t("c_stage"), stage), h("label", {}, t("c_round"), round), h("label", {}, t("c_entrant"), who),
      h("label", {}, t("c_mp"), mp), h("label", {}, t("c_reason"), reason),
      h("button", { type: "submit", id: "adj-submit" }, t("c_adjust")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.post("adjustments", { stage: Number(stage.value), round: Number(round.value), entrant: Number(who.value),
        mp: Number(mp.value), reason: reason.value.trim() });
    });
    return h("details", {}, h("summary", {}, t("c_adjust_board")), form);
  }
}

/**
 * At a competition's table: the lobby socket's own topic brings `competition_table` when the next stage
 * seats you (the page goes there, with a note). Returns the feed (close it with the page).
 */
export function followCompetition(competitionId) {
  return new LobbyFeed({
    onMessage: (m) => {
      if (m.type === "competition_table" && m.competition === competitionId) {
        toast(t("c_next_stage", { s: m.stage }), { id: "c-next" });
        location.hash = `#/table/${m.table_id}`;
      }
    },
  });
}
