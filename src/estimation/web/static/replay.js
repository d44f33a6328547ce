// Replays of finished games, step by step, from their estimation-record/1 (GET /api/tables/{id}/record).
// A finished game's record is public (every hand included); the scores come from score.js.
import { h, api, sortHand, cardFace, callText, trumpText } from "./common.js";
import { describeAction } from "./describe.js";
import { t, getLang } from "./i18n.js";
import { scoreRound, nextMultiplier } from "./score.js";
import { breakdownTable, scoreSheet } from "./sheet.js";

const ORDER = ["NT", "S", "H", "D", "C"];
const RANK = "23456789TJQKA";
const ROUNDS = { micro: 5, mini: 10, full: 18, standard: 18, committee: 13, long: 24 };
/** RECORD.md: `length` may be left out, meaning the ruleset's default. */
const DEFAULT_LENGTH = { koutchina: "micro", classic: "full", egyptian: "standard" };
/** Where each seat sits, seen from seat 0 at the bottom: RULES.md puts seat+1 on the RIGHT (play runs
 *  counter-clockwise), seat+2 opposite, seat+3 on the left, in every language. */
const POS = ["bottom", "right", "top", "left"];

function lengthOf(record) { return record.length || DEFAULT_LENGTH[record.ruleset] || "micro"; }

function closingTrump(record, round) {
  const length = lengthOf(record);
  const total = ROUNDS[length] ?? 0;
  const closing = length === "committee" ? 0 : 5;
  return round > total - closing ? ORDER[round - (total - closing) - 1] : null;
}

/**
 * The state of a deal after its first n actions.
 *
 * `trump` is the trump in force, as the table showed it (RULES.md): a fixed or speed round's from the start,
 * a Super Call's or a declaration's the moment it is made, a call round's once its auction is over, and
 * none before that (a standing call can still be outbid: it is `call`, shown as the call, not as trump).
 */
export function dealState(record, deal, n) {
  const egyptian = record.ruleset === "egyptian";
  const hands = deal.hands.map((x) => new Set(x.split(" ")));
  const st = { hands, trick: [], leader: null, won: [0, 0, 0, 0], estimates: [null, null, null, null], order: [],
    dash: [], withs: [], caller: null, number: null, trump: null, call: null, contract: null, kind: null,
    lastTrick: null, supers: [], bid: false };
  const fixedTrump = closingTrump(record, deal.round);
  const acts = deal.actions.slice(0, n);
  const hasAuction = deal.actions.some((a) => / (call|pass|dashcall|nodash|bid|with|dash|declare)\b/.test(a));
  st.kind = egyptian ? (fixedTrump ? "speed" : "auction") : hasAuction ? "call" : "fixed";
  if (!egyptian && st.kind === "fixed") st.trump = fixedTrump || "NT";
  if (st.kind === "speed") st.trump = fixedTrump;
  // koutchina/classic auction: who is still in it (a Dash Caller never is; a pass is final). It is over
  // once a call stands and its caller is the only seat left: the call's trump is then in force.
  const inAuction = new Set([0, 1, 2, 3]);
  const contract = (arg) => [Number(arg.match(/^\d+/)[0]), arg.replace(/^\d+/, "")];
  for (const a of acts) {
    const [sStr, verb, ...args] = a.split(" ");
    const s = Number(sStr);
    if (verb === "dashcall" || verb === "dash") { st.dash.push(s); st.estimates[s] = 0; inAuction.delete(s); }
    else if (verb === "call" || verb === "bid") {
      [st.number, st.call] = contract(args[0]); st.contract = args[0]; st.caller = s; st.withs = []; st.bid = true;
    } else if (verb === "pass") inAuction.delete(s);
    else if (verb === "with") st.withs.push(s);
    else if (verb === "declare") { [st.number, st.trump] = contract(args[0]); st.contract = args[0]; }
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
    if ((verb === "call" || verb === "pass") && !egyptian && st.caller !== null && inAuction.size === 1
        && inAuction.has(st.caller)) st.trump = st.call;
  }
  if (egyptian && !st.bid && acts.some((a) => / est /.test(a))) { st.kind = "nobid"; st.trump = "NT"; st.caller = null; }
  // The Caller's estimate is the call, once the auction is over (until then the call can be outbid).
  if (!egyptian && st.kind === "call" && st.caller !== null && st.trump !== null) st.estimates[st.caller] = st.number;
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
    const egyptian = rec.ruleset === "egyptian";
    const length = lengthOf(rec);
    const [di, n] = this.at === 0 ? [0, 0] : this.steps[this.at - 1];
    const deal = rec.deals[di];
    const st = dealState(rec, deal, n);
    const done = this.results.filter((r) => r.dealIndex < di || (r.dealIndex === di && n === deal.actions.length));
    // Names are the players' own text: they only ever reach the page as text nodes (h() and textContent).
    const names = [0, 1, 2, 3].map((s) => rec.players[s] ?? t("d_seat", { n: s }));
    const said = n ? describeAction(deal.actions[n - 1], names, rec.ruleset) : t("d_rp_none");
    // Arrows every font has (« ‹ › », mirrored by the browser on a right-to-left page), with a spoken name.
    const btn = (key, fn, id) => h("button", { type: "button", id, "aria-label": t(`d_rp_${key}_aria`), onclick: fn },
      t(`d_rp_${key}`));
    const seats = [0, 1, 2, 3].map((s) => h("div", { class: `rseat pos-${POS[s]}`, "data-seat": s },
      h("div", { class: "nameplate" }, names[s],
        deal.dealer === s ? h("span", { class: "dealer-chip", title: t("dealer") }, t("dealer_short")) : null,
        st.caller === s ? h("span", { class: "badge caller" }, t("m_caller")) : null,
        st.withs.includes(s) ? h("span", { class: "badge with" }, t("m_with")) : null,
        // The egyptian Dash is not a Dash Call: another promise, scored another way.
        st.dash.includes(s) ? h("span", { class: "badge dashcall" }, t(egyptian ? "m_dash" : "m_dashcall")) : null),
      // "estimate / tricks" reads left to right in Arabic too (a right-to-left page would swap the two).
      h("div", { class: "info", dir: "ltr" }, `${st.estimates[s] ?? "–"} / ${st.won[s]}`),
      h("div", { class: "rhand" }, sortHand([...st.hands[s]]).map((c) => cardFace(c)))));
    const parts = [
      h("h1", {}, t("replay_title", { n: this.id }), ` · ${rec.ruleset} · ${length}`),
      h("div", { class: "bar" },
        h("span", {}, t("round_of", { r: deal.round, n: ROUNDS[length] ?? "?" })),
        h("span", { id: "rp-trump" }, `${t("trump")}: `, st.trump ? trumpText(st.trump) : "?"),
        st.contract !== null && st.kind !== "fixed" ? h("span", { id: "rp-call" }, callText(st.contract)) : null,
        h("span", { id: "step-n" }, t("step_n", { i: this.at, n: this.steps.length })),
        h("span", { id: "last-action", role: "status" }, said)),
      h("div", { class: "row controls" },
        btn("start", () => this.go(0), "rp-start"), btn("rprev", () => this.round(-1), "rp-rprev"),
        btn("back", () => this.step(-1), "rp-back"), btn("next", () => this.step(1), "rp-next"),
        btn("rnext", () => this.round(1), "rp-rnext"), btn("end", () => this.go(this.steps.length), "rp-end")),
      h("div", { class: "felt replay" }, seats,
        h("div", { class: "trick" }, st.trick.map((c) => cardFace(c.card, "span",
          { class: `card suit-${c.card[1]} at-${POS[c.seat]}` })))),
      done.length ? breakdownTable(done[done.length - 1], names, rec.ruleset) : null,
      h("h2", {}, t("score_sheet")), scoreSheet(done, names)];
    // replaceChildren() writes a null as the text "null": only real nodes go in.
    this.el.replaceChildren(...parts.filter((x) => x !== null));
  }
}
