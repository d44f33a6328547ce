// The declaration panels of the table: Dash Call / Dash offers, the auction, egyptian's declaration and the
// estimates. Every button is drawn from the view's legal actions alone, so a rule lives in the engine only:
// a number or suit that cannot make a legal action is greyed out, never guessed at here.
import { h, callText, trumpText } from "./common.js";
import { t } from "./i18n.js";

/** Suits in the order a player reads them, lowest to highest (NT > S > H > D > C). */
export const TRUMPS = ["C", "D", "H", "S", "NT"];
const NUMBERS = Array.from({ length: 10 }, (_, i) => 4 + i); // 4..13

export function parseAction(text) {
  const [seat, verb, ...args] = text.split(" ");
  return { seat: Number(seat), verb, args };
}

/** "7S" -> [7, "S"]; null for anything else. */
function splitCall(arg) {
  const m = /^(\d+)(NT|[SHDC])$/.exec(arg || "");
  return m ? [Number(m[1]), m[2]] : null;
}

/**
 * The panel for what the seat may do now. `pick` is the page's remembered choice for the number-and-suit
 * panels ({verb, number, suit}); `act(text)` sends an action; `choose(pick)` redraws with a new choice.
 */
export function actionPanels(v, me, legal, pick, act, choose) {
  const out = [];
  const verbs = new Set([...legal].map((a) => parseAction(a).verb));
  const btn = (text, label, extra = {}) => h("button", { type: "button", "data-key": text, "data-action": text,
    disabled: !legal.has(text), onclick: () => act(text), ...extra }, label);
  const egyptian = v.verbs.offer === "dash"; // the ruleset's own word for its offer: a Dash, not a Dash Call

  if (verbs.has("dashcall") || (verbs.has("nodash") && !egyptian)) {
    out.push(h("div", { class: "offer", id: "dash-panel" }, h("p", {}, t("dash_offer")),
      btn(`${me} dashcall`, t("dashcall"), { class: "primary", id: "dashcall-btn" }),
      btn(`${me} nodash`, t("nodash"), { id: "nodash-btn" })));
  } else if (verbs.has("dash") || verbs.has("nodash")) {
    out.push(h("div", { class: "offer", id: "dash-panel" }, h("p", {}, t("egy_dash_offer")),
      btn(`${me} dash`, t("take_dash"), { class: "primary", id: "dash-btn" }),
      btn(`${me} nodash`, t("nodash"), { id: "nodash-btn" })));
  }
  const auctionVerb = verbs.has("call") ? "call" : verbs.has("bid") ? "bid" : null;
  if (auctionVerb || verbs.has("with") || (verbs.has("pass") && !verbs.has("est"))) {
    out.push(callPanel(v, me, legal, auctionVerb || (egyptian ? "bid" : "call"), pick, act, choose, btn));
  }
  if (verbs.has("declare")) out.push(callPanel(v, me, legal, "declare", pick, act, choose, btn));
  return out;
}

/**
 * Seed 002's panel: pick a number, then a suit, then tap Bid (Call, Declare). With and Pass beside it.
 * The declaration panel opens on the seat's own number and suit.
 */
function callPanel(v, me, legal, verb, pick, act, choose, btn) {
  const calls = new Map(); // "7S" -> action text
  for (const a of legal) {
    const p = parseAction(a);
    if (p.verb === verb && splitCall(p.args[0])) calls.set(p.args[0], a);
  }
  const can = (n, s) => calls.has(`${n}${s}`);
  const numberOk = (n) => TRUMPS.some((s) => can(n, s));
  const suitsAny = new Set([...calls.keys()].map((c) => splitCall(c)[1]));
  let { number = null, suit = null } = pick && pick.verb === verb ? pick : {};
  if (pick === null || pick.verb !== verb) {
    if (verb === "declare" && v.standing) { number = v.standing.number; suit = v.standing.trump; }
    if (suitsAny.size === 1) suit = [...suitsAny][0]; // a speed round: every bid names the fixed trump
    const numbers = NUMBERS.filter(numberOk);
    if (numbers.length === 1 && verb !== "declare") number = numbers[0]; // only one left: 13
  }
  if (number !== null && !numberOk(number)) number = null;
  const chosen = number !== null && suit !== null && can(number, suit) ? calls.get(`${number}${suit}`) : null;
  const title = verb === "declare" ? t("declare_title") : verb === "bid" ? t("bid_title") : t("auction_title");
  const standing = v.standing ? h("span", { class: "standing", id: "standing" }, " · ",
    t("standing", { call: callText(`${v.standing.number}${v.standing.trump}`), name: v.players[v.standing.seat] })) : null;
  const sel = (next) => choose({ verb, number, suit, ...next });
  const go = verb === "declare" ? t("declare_btn") : verb === "bid" ? t("bid_btn") : t("call_btn");
  return h("div", { class: "picker call-panel", id: verb === "declare" ? "declare-panel" : "bid-panel", "data-verb": verb },
    h("p", {}, title, standing),
    h("div", { class: "numbers", role: "group", "aria-label": t("pick_number") }, NUMBERS.map((n) =>
      h("button", { type: "button", class: "num", "data-number": n, "data-key": `${verb}-n${n}`, disabled: !numberOk(n),
        "aria-pressed": n === number ? "true" : "false", onclick: () => sel({ number: n }) }, n))),
    h("div", { class: "suits", role: "group", "aria-label": t("pick_suit") }, TRUMPS.map((s) => {
      const ok = number === null ? suitsAny.has(s) : can(number, s);
      return h("button", { type: "button", class: `suit suit-${s}`, "data-suit": s, "data-key": `${verb}-s${s}`,
        disabled: !ok, "aria-pressed": s === suit ? "true" : "false", title: s === "NT" ? t("no_trump") : "",
        onclick: () => sel({ suit: s }) }, s === "NT" ? "NT" : trumpText(s));
    })),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: verb === "declare" ? "declare-btn" : "bid-btn",
        "data-key": `${verb}-go`, disabled: !chosen, onclick: () => chosen && act(chosen) },
        go, chosen ? ` ${callText(`${number}${suit}`)}` : ""),
      verb !== "declare" && legal.has(`${me} with`)
        ? btn(`${me} with`, v.standing ? t("with_on", { call: callText(`${v.standing.number}${v.standing.trump}`) }) : t("with_btn"),
          { class: "with", id: "with-btn" }) : null,
      verb !== "declare" ? btn(`${me} pass`, t("pass"), { id: "pass-btn" }) : null));
}

/** The estimate buttons 0..limit; a number that allows a Super Call opens the trump picker first. */
export function estimatePanel(v, me, legal, superFor, act, chooseSuper) {
  const ests = [...legal].map(parseAction).filter((a) => a.verb === "est");
  const limit = Math.max(0, ...ests.map((a) => Number(a.args[0])),
    v.kind === "call" && v.standing ? v.standing.number : v.declared ? v.declared.number : 0);
  const supers = (n) => ests.filter((a) => Number(a.args[0]) === n && a.args.length > 1).map((a) => a.args[1]);
  const row = h("div", { class: "estimates", role: "group", "aria-label": t("estimate_title", { n: limit }) },
    Array.from({ length: limit + 1 }, (_, n) => {
      const plain = `${me} est ${n}`;
      const ok = legal.has(plain) || supers(n).length > 0;
      return h("button", { type: "button", class: "est-btn", "data-key": `est-${n}`, "data-est": n, disabled: !ok,
        "aria-pressed": superFor === n ? "true" : "false",
        onclick: () => { if (supers(n).length) chooseSuper(n); else act(plain); } }, n);
    }));
  const box = h("div", { class: "picker", id: "estimate-picker" }, h("p", {}, t("estimate_title", { n: limit })), row);
  if (superFor !== null) {
    const n = superFor;
    box.append(h("div", { class: "super", id: "super-picker" }, h("p", {}, t("super_title", { n })),
      h("button", { type: "button", "data-key": "super-keep", id: "super-keep", disabled: !legal.has(`${me} est ${n}`),
        onclick: () => act(`${me} est ${n}`) }, t("keep_trump")),
      TRUMPS.filter((tr) => supers(n).includes(tr)).map((tr) => h("button", { type: "button", class: `suit-${tr}`,
        "data-key": `super-${tr}`, "data-suit": tr, onclick: () => act(`${me} est ${n} ${tr}`) }, trumpText(tr)))));
  }
  return box;
}
