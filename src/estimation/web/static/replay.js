// Replays of finished games, step by step, from their estimation-record/1 (GET /api/tables/{id}/record) and
// the server's replay of it (GET /api/tables/{id}/replay: every scored round's breakdown, the totals and, in
// a partnership game, the sides). A finished game's record is public (every hand included).
//
// The record is read through what its ruleset declares (/api/rulesets: the verbs, each length's rounds and
// their fixed trumps), never by testing the ruleset's name.
import { h, api, sortHand, cardFace, callText, trumpText } from "./common.js";
import { describeAction } from "./describe.js";
import { t, getLang } from "./i18n.js";
import { rulesetInfo, roundsOf, playsText } from "./rulesets.js";
import { breakdownTable, scoreSheet, sidesList, sideScores, sideOf, scrollCues } from "./sheet.js";
import { playerNames } from "./lobbyfeed.js";

const RANK = "23456789TJQKA";
/** Where each seat sits, seen from seat 0 at the bottom: RULES.md puts seat+1 on the RIGHT (play runs
 *  counter-clockwise), seat+2 opposite, seat+3 on the left, in every language. */
const POS = ["bottom", "right", "top", "left"];

/**
 * The state of a deal after its first n actions. info: the ruleset's description (/api/rulesets).
 *
 * `trump` is the trump in force, as the table showed it (RULES.md, and the engine's `trump_in_force`): a
 * round's fixed trump from the start (a Super Call's the moment it is made), any other once the estimates are
 * on: the declared one, else the call that won the auction, else no trump (nobody called). Before that there
 * is none: a standing call can still be outbid (it is `call`, shown as the call, not as trump).
 */
export function dealState(record, deal, n, info) {
  const verbs = info.verbs;
  const spec = roundsOf(info, record.length)[deal.round - 1] || { kind: null, trump: null };
  const hands = deal.hands.map((x) => new Set(x.split(" ")));
  const st = { hands, trick: [], leader: null, won: [0, 0, 0, 0], estimates: [null, null, null, null], order: [],
    dash: [], withs: [], caller: null, number: null, trump: null, call: null, contract: null, declared: null,
    lastTrick: null, supers: [] };
  const acts = deal.actions.slice(0, n);
  const verbOf = (a) => (a ? a.split(" ")[1] : null);
  const contract = (arg) => [Number(arg.match(/^\d+/)[0]), arg.replace(/^\d+/, "")];
  // The trump the cards are played in once the estimates are on.
  const inForce = () => {
    if (st.supers.length) return st.supers.reduce((a, b) => (b.n > a.n ? b : a)).trump;
    if (spec.trump) return spec.trump;
    if (st.declared) return st.declared[1];
    return st.call ?? "NT";
  };
  for (const a of acts) {
    const [sStr, verb, ...args] = a.split(" ");
    const s = Number(sStr);
    if (verb === verbs.offer) { st.dash.push(s); st.estimates[s] = 0; }
    else if (verb === verbs.auction) {
      [st.number, st.call] = contract(args[0]); st.contract = args[0]; st.caller = s; st.withs = [];
    } else if (verb === verbs.join) st.withs.push(s);
    else if (verb === verbs.declare) { st.declared = contract(args[0]); st.number = st.declared[0]; st.contract = args[0]; }
    else if (verb === verbs.estimate) {
      const e = Number(args[0]);
      st.estimates[s] = e;
      st.order.push(s);
      if (args[1]) st.supers.push({ n: e, trump: args[1] }); // a Super Call: its trump from now on
    } else if (verb === verbs.play) {
      if (st.trick.length === 0) st.leader = s;
      st.hands[s].delete(args[0]);
      st.trick.push({ seat: s, card: args[0] });
      if (st.trick.length === 4) {
        const led = st.trick[0].card[1];
        const tr = inForce() === "NT" ? null : inForce();
        const val = (c) => (c[1] === tr ? 100 : c[1] === led ? 0 : -100) + RANK.indexOf(c[0]);
        const best = st.trick.reduce((x, y) => (val(y.card) > val(x.card) ? y : x));
        st.won[best.seat] += 1;
        st.lastTrick = { cards: st.trick, winner: best.seat };
        st.trick = [];
      }
    }
  }
  // The estimates are on when the next action is an estimate or a card (at a deal's end: when its last was
  // one, or the declaration that opens them).
  const next = deal.actions[n];
  const on = next !== undefined ? [verbs.estimate, verbs.play].includes(verbOf(next))
    : [verbs.estimate, verbs.play, verbs.declare].includes(verbOf(acts[acts.length - 1]));
  if (spec.trump || st.supers.length || on) st.trump = inForce();
  // The Caller's estimate is the contract's number once it is in force (until then the call can be outbid).
  if (on && st.caller !== null && st.number !== null) st.estimates[st.caller] = st.number;
  return st;
}

export class ReplayPage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.el = h("div", { class: "replay-page" }, h("p", {}, t("connecting")));
    root.append(this.el);
    this.onKey = (e) => {
      if (!this.record || (e.target && ["INPUT", "SELECT"].includes(e.target.tagName))) return;
      const rtl = getLang() === "ar";
      if (e.key === "ArrowRight") { this.step(rtl ? -1 : 1); e.preventDefault(); }
      if (e.key === "ArrowLeft") { this.step(rtl ? 1 : -1); e.preventDefault(); }
      if (e.key === "Home") this.go(0);
      if (e.key === "End") this.go(this.steps.length);
    };
    document.addEventListener("keydown", this.onKey);
    this.load();
  }

  destroy() { document.removeEventListener("keydown", this.onKey); }

  async load() {
    try {
      [this.record, this.summary] = await Promise.all([api("GET", `/api/tables/${this.id}/record`),
        api("GET", `/api/tables/${this.id}/replay`)]);
      this.info = await rulesetInfo(this.record.ruleset);
      if (!this.info) throw new Error(this.record.ruleset);
    } catch (e) {
      this.el.replaceChildren(h("p", { class: "error" }, t("error", { m: e.message })));
      return;
    }
    this.steps = [];
    this.record.deals.forEach((d, di) => d.actions.forEach((_, ai) => this.steps.push([di, ai + 1])));
    // The server's scored rounds, each with the deal it was played in: the deals whose 52 cards were all
    // played, in order (a failed auction and a leaver's unfinished deal score nothing).
    const scored = this.record.deals.map((d, i) => [d, i]).filter(([d]) => d.actions.filter((a) => / play /.test(a)).length === 52);
    this.results = this.summary.rounds.map((r, i) => ({ ...r, dealIndex: scored[i] ? scored[i][1] : Infinity }));
    this.at = 0;
    this.render();
  }

  step(d) { this.go(this.at + d); }
  go(n) { this.at = Math.max(0, Math.min(this.steps.length, n)); this.render(); }
  round(d) {
    const cur = this.at === 0 ? 0 : this.steps[this.at - 1][0];
    if (d > 0) {
      const i = this.steps.findIndex(([di]) => di > cur);
      this.go(i < 0 ? this.steps.length : i + 1);
    } else {
      const i = this.steps.findIndex(([di]) => di === cur);
      const prev = this.steps.findIndex(([di]) => di === cur - 1);
      this.go(this.at > i + 1 ? i + 1 : Math.max(0, prev + 1));
    }
  }

  render() {
    const rec = this.record;
    const info = this.info;
    const length = rec.length || info.default_length;
    const [di, n] = this.at === 0 ? [0, 0] : this.steps[this.at - 1];
    const deal = rec.deals[di];
    const st = dealState(rec, deal, n, info);
    const done = this.results.filter((r) => r.dealIndex < di || (r.dealIndex === di && n === deal.actions.length));
    // Names are the players' own text: they only ever reach the page as text nodes (h() and textContent).
    // A bot's seat (the server's `seats` say which) is named in the page's language (playerNames).
    const names = playerNames([0, 1, 2, 3].map((s) => rec.players[s] ?? t("d_seat", { n: s })), this.summary.seats);
    const said = n ? describeAction(deal.actions[n - 1], names, info.verbs) : t("d_rp_none");
    // Arrows every font has (« ‹ › », mirrored by the browser on a right-to-left page), with a spoken name.
    const btn = (key, fn, id) => h("button", { type: "button", id, "aria-label": t(`d_rp_${key}_aria`), onclick: fn },
      t(`d_rp_${key}`));
    // A partnership game (RECORD.md): the sides' totals over the rounds shown, their places at the end.
    const sides = this.summary.sides || null;
    const atEnd = this.at === this.steps.length;
    const sideState = sides ? { seats: sides.seats,
      totals: atEnd ? sides.totals : [0, 1].map((k) => done.reduce((a, r) => a + sideScores(r.scores, sides.seats)[k], 0)),
      places: atEnd ? sides.places : null } : null;
    const partner = (s) => sideOf(sides && sides.seats, s);
    const seats = [0, 1, 2, 3].map((s) => h("div", { class: `rseat pos-${POS[s]}${sides ? ` side-${partner(s)}` : ""}`, "data-seat": s },
      h("div", { class: "nameplate" }, names[s],
        deal.dealer === s ? h("span", { class: "dealer-chip", title: t("dealer") }, t("dealer_short")) : null,
        st.caller === s ? h("span", { class: "badge caller" }, t("m_caller")) : null,
        st.withs.includes(s) ? h("span", { class: "badge with" }, t("m_with")) : null,
        // The offer's takers as the ruleset names them: the egyptian Dash is not a Dash Call.
        st.dash.includes(s) ? h("span", { class: "badge dashcall" }, t(info.offer_role === "dash" ? "m_dash" : "m_dashcall")) : null,
        sides ? h("span", { class: `badge side side-${partner(s)}`, "data-side": partner(s) }, t("side_n", { n: partner(s) + 1 })) : null),
      // "estimate / tricks" reads left to right in Arabic too (a right-to-left page would swap the two).
      h("div", { class: "info", dir: "ltr" }, `${st.estimates[s] ?? "–"} / ${st.won[s]}`),
      h("div", { class: "rhand" }, sortHand([...st.hands[s]]).map((c) => cardFace(c)))));
    const parts = [
      h("h1", {}, t("replay_title", { n: this.id }), " · ", playsText(rec.ruleset, length), sides ? ` · ${t("partners")}` : ""),
      h("div", { class: "bar" },
        h("span", {}, t("round_of", { r: deal.round, n: roundsOf(info, length).length || "?" })),
        h("span", { id: "rp-trump" }, `${t("trump")}: `, st.trump ? trumpText(st.trump) : "?"),
        st.contract !== null ? h("span", { id: "rp-call" }, callText(st.contract)) : null,
        h("span", { id: "step-n" }, t("step_n", { i: this.at, n: this.steps.length })),
        h("span", { id: "last-action", role: "status" }, said)),
      h("div", { class: "row controls" },
        btn("start", () => this.go(0), "rp-start"), btn("rprev", () => this.round(-1), "rp-rprev"),
        btn("back", () => this.step(-1), "rp-back"), btn("next", () => this.step(1), "rp-next"),
        btn("rnext", () => this.round(1), "rp-rnext"), btn("end", () => this.go(this.steps.length), "rp-end")),
      sideState ? sidesList(sideState, names, "rp-sides") : null,
      h("div", { class: "felt replay" }, seats,
        h("div", { class: "trick" }, st.trick.map((c) => cardFace(c.card, "span",
          { class: `card suit-${c.card[1]} at-${POS[c.seat]}` })))),
      // The last round scored, named as such: while a later round is replayed it is the one before.
      done.length ? h("h2", { id: "rp-breakdown-title" }, t("round_end", { r: done[done.length - 1].round }),
        done[done.length - 1].round !== deal.round ? h("small", { class: "muted" }, ` · ${t("rp_last_scored")}`) : null) : null,
      done.length ? breakdownTable(done[done.length - 1], names, info.score_lines) : null,
      h("h2", {}, t("score_sheet")), scoreSheet(done, names, null, sides ? sides.seats : null)];
    // replaceChildren() writes a null as the text "null": only real nodes go in.
    this.el.replaceChildren(...parts.filter((x) => x !== null));
    if (this.el.isConnected) scrollCues(this.el);
  }
}
