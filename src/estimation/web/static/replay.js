// Replays of finished games, step by step, from their estimation-record/1 (GET /api/tables/{id}/record).
// A finished game's record is public (every hand included); the scores come from score.js.
import { h, api, sortHand, cardFace, callText, trumpText } from "./common.js";
import { t, getLang } from "./i18n.js";
import { scoreRound, nextMultiplier } from "./score.js";
import { breakdownTable, scoreSheet } from "./sheet.js";

const ORDER = ["NT", "S", "H", "D", "C"];
const RANK = "23456789TJQKA";
const ROUNDS = { micro: 5, mini: 10, full: 18, standard: 18, committee: 13, long: 24 };

function closingTrump(record, round) {
  const total = ROUNDS[record.length] ?? 0;
  const closing = record.length === "committee" ? 0 : 5;
  return round > total - closing ? ORDER[round - (total - closing) - 1] : null;
}

/** The state of a deal after its first n actions. */
export function dealState(record, deal, n) {
  const egyptian = record.ruleset === "egyptian";
  const hands = deal.hands.map((x) => new Set(x.split(" ")));
  const st = { hands, trick: [], leader: null, won: [0, 0, 0, 0], estimates: [null, null, null, null], order: [],
    dash: [], withs: [], caller: null, number: null, trump: null, kind: null, lastTrick: null, supers: [], bid: false };
  const fixedTrump = closingTrump(record, deal.round);
  const acts = deal.actions.slice(0, n);
  const hasAuction = deal.actions.some((a) => / (call|pass|dashcall|nodash|bid|with|dash|declare)\b/.test(a));
  st.kind = egyptian ? (fixedTrump ? "speed" : "auction") : hasAuction ? "call" : "fixed";
  if (!egyptian && st.kind === "fixed") st.trump = fixedTrump || "NT";
  for (const a of acts) {
    const [sStr, verb, ...args] = a.split(" ");
    const s = Number(sStr);
    if (verb === "dashcall" || verb === "dash") { st.dash.push(s); st.estimates[s] = 0; }
    else if (verb === "call" || verb === "bid") {
      st.caller = s; st.number = Number(args[0].match(/^\d+/)[0]); st.trump = args[0].replace(/^\d+/, ""); st.withs = []; st.bid = true;
    } else if (verb === "with") st.withs.push(s);
    else if (verb === "declare") { st.number = Number(args[0].match(/^\d+/)[0]); st.trump = args[0].replace(/^\d+/, ""); }
    else if (verb === "est") {
      const e = Number(args[0]);
      st.estimates[s] = e;
      st.order.push(s);
      if (args[1]) {
        if (!st.supers.some((x) => x.n >= e)) st.trump = args[1];
        st.supers.push({ n: e, trump: args[1] });
      }
    } else if (verb === "play") {
      if (st.trick.length === 0) st.leader = s;
      st.hands[s].delete(args[0]);
      st.trick.push({ seat: s, card: args[0] });
      if (st.trick.length === 4) {
        const led = st.trick[0].card[1];
        const tr = st.trump === "NT" ? null : st.trump;
        const val = (c) => (c[1] === tr ? 100 : c[1] === led ? 0 : -100) + RANK.indexOf(c[0]);
        const best = st.trick.reduce((a, b) => (val(b.card) > val(a.card) ? b : a));
        st.won[best.seat] += 1;
        st.lastTrick = { cards: st.trick, winner: best.seat };
        st.trick = [];
      }
    }
  }
  if (egyptian && !st.bid && acts.some((a) => / est /.test(a))) { st.kind = "nobid"; st.trump = "NT"; st.caller = null; }
  if (!egyptian && st.kind === "call" && st.caller !== null) st.estimates[st.caller] = st.number;
  if (egyptian && st.caller !== null && st.bid && acts.some((a) => / declare /.test(a))) st.estimates[st.caller] = st.number;
  return st;
}

/** Every scored round of the record, scored in JS (with the Sa'aydeh multiplier chain). */
export function scoreRecord(record) {
  const results = [];
  let mult = 1;
  for (const [i, deal] of record.deals.entries()) {
    const plays = deal.actions.filter((a) => / play /.test(a)).length;
    if (plays !== 52) continue; // a failed auction, or the unfinished deal of a leaver
    const st = dealState(record, deal, deal.actions.length);
    const facts = { ruleset: record.ruleset, kind: st.kind, tricks: st.won, dash: st.dash, withs: st.withs,
      multiplier: mult, estimates: st.order.map((s) => [s, st.estimates[s]]),
      caller: ["call", "auction", "speed"].includes(st.kind) ? [st.caller, st.number] : null };
    const r = scoreRound(facts);
    results.push({ round: deal.round, dealIndex: i, trump: st.trump, multiplier: mult, saaydeh: r.saaydeh,
      estimates: r.estimates, tricks: st.won, breakdown: r.breakdown, scores: r.breakdown.map((b) => b.score) });
    mult = nextMultiplier(record.ruleset, mult, r.saaydeh);
  }
  return results;
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
      this.record = await api("GET", `/api/tables/${this.id}/record`);
    } catch (e) {
      this.el.replaceChildren(h("p", { class: "error" }, t("error", { m: e.message })));
      return;
    }
    this.steps = [];
    this.record.deals.forEach((d, di) => d.actions.forEach((_, ai) => this.steps.push([di, ai + 1])));
    this.results = scoreRecord(this.record);
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
    const [di, n] = this.at === 0 ? [0, 0] : this.steps[this.at - 1];
    const deal = rec.deals[di];
    const st = dealState(rec, deal, n);
    const done = this.results.filter((r) => r.dealIndex < di || (r.dealIndex === di && n === deal.actions.length));
    const action = n ? deal.actions[n - 1] : "";
    const btn = (label, fn, id) => h("button", { type: "button", id, onclick: fn }, label);
    const seats = [0, 1, 2, 3].map((s) => h("div", { class: `rseat pos-${["bottom", "left", "top", "right"][s]}`, "data-seat": s },
      h("div", { class: "nameplate" }, rec.players[s], deal.dealer === s ? h("span", { class: "dealer-chip", title: t("dealer") }, t("dealer_short")) : null,
        st.caller === s ? h("span", { class: "badge caller" }, t("m_caller")) : null,
        st.dash.includes(s) ? h("span", { class: "badge dashcall" }, t("m_dashcall")) : null),
      h("div", { class: "info" }, `${st.estimates[s] ?? "–"} / ${st.won[s]}`),
      h("div", { class: "rhand" }, sortHand([...st.hands[s]]).map((c) => cardFace(c)))));
    const trick = st.trick.length ? st.trick : [];
    this.el.replaceChildren(
      h("h1", {}, t("replay_title", { n: this.id }), ` · ${rec.ruleset} · ${rec.length}`),
      h("div", { class: "bar" },
        h("span", {}, t("round_of", { r: deal.round, n: ROUNDS[rec.length] ?? "?" })),
        h("span", {}, `${t("trump")}: `, st.trump ? trumpText(st.trump) : "?"),
        st.number !== null && st.kind !== "fixed" ? h("span", {}, callText(`${st.number}${st.trump}`)) : null,
        h("span", { id: "step-n" }, t("step_n", { i: this.at, n: this.steps.length })),
        h("code", { id: "last-action" }, action)),
      h("div", { class: "row controls" },
        btn(t("step_start"), () => this.go(0), "rp-start"), btn(t("rnd_prev"), () => this.round(-1), "rp-rprev"),
        btn(t("step_back"), () => this.step(-1), "rp-back"), btn(t("step_next"), () => this.step(1), "rp-next"),
        btn(t("rnd_next"), () => this.round(1), "rp-rnext"), btn(t("step_end"), () => this.go(this.steps.length), "rp-end")),
      h("div", { class: "felt replay" }, seats,
        h("div", { class: "trick" }, trick.map((c) => cardFace(c.card, "span", { class: `card suit-${c.card[1]} at-${["bottom", "left", "top", "right"][c.seat]}` })))),
      done.length ? breakdownTable(done[done.length - 1], rec.players, rec.ruleset) : null,
      h("h2", {}, t("score_sheet")), scoreSheet(done, rec.players));
  }
}
