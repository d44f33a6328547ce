// What the table shows everyone: the scoreboard along the top (seed 002) and the deal's declarations, each
// public the moment it is made (shared/RULES.md). Drawn from the public part of the view only.
import { h, callText, trumpText, SUIT_GLYPH, num } from "./common.js";
import { t } from "./i18n.js";
import { describeAction } from "./describe.js";
import { markerTip } from "./rules.js";
import { parseAction } from "./bidding.js";
import { sidesList, sideOf } from "./sheet.js";

const SEATS = [0, 1, 2, 3];

/** Whether the deal's offer is egyptian's Dash (never a Dash Call): the view's ruleset says so itself. */
export function offerIsDash(v) {
  return v.verbs.offer === "dash";
}

/** A declaration in a word or two, for the scoreboard and the seat's speech bubble. */
export function shortAction(text, v) {
  const { verb, args } = parseAction(text);
  switch (verb) {
    case "call": case "bid": case "declare": return callText(args[0]);
    case "with": return t("m_with");
    case "pass": return t("pass");
    case "dashcall": return t("dashcall");
    case "dash": return t("m_dash");
    case "nodash": return offerIsDash(v) ? t("no_dash") : t("no_dashcall");
    case "est": return args.length > 1 ? `${args[0]} ${trumpText(args[1])}` : args[0];
    default: return "";
  }
}

/** The deal's declarations so far (every action but the plays), in order. */
export function declarations(v) {
  return v.actions.filter((a) => parseAction(a).verb !== "play");
}

/** Each seat's latest declaration of the deal, or null. */
export function lastDeclarations(v) {
  const last = [null, null, null, null];
  for (const a of declarations(v)) last[parseAction(a).seat] = a;
  return last;
}

function chip(cls, text, tip) {
  return h("span", { class: `badge ${cls}`, title: tip, "data-tip": tip, tabindex: "0" }, text);
}

/** The markers of a seat: Caller, With, Dash Call / Dash, Risk level, Avoid per suit, bust, away, left. */
export function markers(v, s, seats) {
  const m = v.markers[s];
  return [...roleChips(v, s, m), ...publicChips(v, s, m, seats)];
}

/** Caller, With, Dash Call / Dash and Risk, as the ruleset itself marks the seat (the view's role, risk). */
function roleChips(v, s, m) {
  const out = [];
  const labels = { caller: "m_caller", with: "m_with", dash_call: "m_dashcall", dash: "m_dash" };
  const tips = { caller: "caller", with: "with", dash_call: "dashcall", dash: "dash" };
  if (m.role) out.push(chip(m.role === "dash" || m.role === "dash_call" ? "dashcall" : m.role, t(labels[m.role]), markerTip(tips[m.role], v.ruleset)));
  if (m.risk) {
    const key = m.risk === 1 ? "risk" : m.risk === 2 ? "risk2" : "risk3";
    out.push(chip("risk", t(`m_${key}`), markerTip(key, v.ruleset)));
  }
  return out;
}

/** Avoid per suit, bust, away and left: the same in every ruleset. */
function publicChips(v, s, m, seats) {
  const out = [];
  for (const suit of m.avoid) {
    out.push(chip(`avoid suit-${suit}`, `${t("m_avoid")} ${SUIT_GLYPH[suit]}`, markerTip("avoid", v.ruleset)));
  }
  if (m.bust) out.push(chip("bust", t("m_bust"), markerTip("bust", v.ruleset)));
  const seat = seats && seats[s];
  if (seat && seat.away) out.push(chip("away", t("m_away"), markerTip("away", v.ruleset)));
  if (seat && seat.left) out.push(chip("away", t("m_left"), markerTip("left", v.ruleset)));
  return out;
}

export function dealerChip(v) {
  return h("span", { class: "dealer-chip", title: markerTip("dealer", v.ruleset), tabindex: "0" }, t("dealer_short"));
}

/**
 * The scoreboard along the top: a column per player (their name, bid or estimate, tricks, running total and
 * markers), the multiplier and, once every estimate is in, the total and Over / Under.
 */
export function scoreboard(v, me, seats, clockSeat) {
  const last = lastDeclarations(v);
  const est = v.estimates;
  const total = est.reduce((a, b) => a + (b ?? 0), 0);
  const inPlay = v.phase === "play";
  const lastRound = v.results[v.results.length - 1];
  const mult = v.over && lastRound ? lastRound.multiplier : v.multiplier; // over: the last round's
  const cell = (s, cls, ...body) => h("td", { class: cls, "data-seat": s }, ...body);
  const bidOf = (s) => {
    if (v.phase === "auction" || v.phase === "dash" || v.phase === "declare") return last[s] ? shortAction(last[s], v) : "–";
    // The contract in force: a declaration (egyptian) replaces the bid that won the auction.
    if (v.caller === s && v.declared) return callText(`${v.declared.number}${v.declared.trump}`);
    if (v.caller === s && v.standing) return callText(`${v.standing.number}${v.standing.trump}`);
    return "";
  };
  return h("section", { class: "scoreboard", id: "scoreboard", "aria-label": t("scoreboard") },
    h("table", { class: "board" },
      h("thead", {}, h("tr", {}, h("th", {}, h("span", {
        class: `mult${mult > 1 ? " hot" : ""}`, id: "board-mult", title: markerTip("multiplier", v.ruleset) }, num(`×${mult}`))),
      SEATS.map((s) => h("th", { scope: "col", "data-seat": s,
        class: `${v.to_move === s ? "to-move" : ""}${s === me ? " me" : ""}${v.sides ? ` side-${sideOf(v.sides.seats, s)}` : ""}` },
        h("span", { class: "pname" }, v.players[s]),
        s === me ? h("small", {}, ` (${t("you")})`) : null,
        v.dealer === s ? dealerChip(v) : null,
        clockSeat === s ? h("span", { class: "clock", "data-seat": s }) : null)))),
      h("tbody", {},
        // A fixed round has no auction: no Bid row then, rather than a row of blanks.
        SEATS.some((s) => bidOf(s)) ? h("tr", { class: "r-bid" }, h("th", { scope: "row" }, t("bid")),
          SEATS.map((s) => cell(s, "bid", bidOf(s)))) : null,
        h("tr", { class: "r-est" }, h("th", { scope: "row" }, t("estimate")), SEATS.map((s) => cell(s, "est", est[s] ?? "–"))),
        h("tr", { class: "r-won" }, h("th", { scope: "row" }, t("tricks")), SEATS.map((s) => cell(s, "won", v.markers[s].tricks))),
        h("tr", { class: "r-tot" }, h("th", { scope: "row" }, t("total")), SEATS.map((s) => cell(s, "tot", num(v.totals[s])))),
        h("tr", { class: "r-marks" }, h("th", { scope: "row" }, t("markers")), SEATS.map((s) => cell(s, "marks", markers(v, s, seats)))))),
    inPlay ? h("p", { class: "overunder", id: "overunder" }, `${t("total_est")} ${total} · ${total > 13 ? t("over") : t("under")}`) : null,
    // A partnership game: each side's total (its two seats'), and its place once the match is over.
    v.sides ? sidesList({ ...v.sides, places: v.over ? v.sides.places : null }, v.players, "sides") : null);
}

/** The deal's declarations, newest last, each saying who made it: public to every seat and spectator. */
export function declarationLog(v) {
  const items = declarations(v);
  const list = h("ol", { class: "decl-log", id: "declarations", "aria-live": "polite" },
    items.map((a, i) => h("li", { "data-seat": parseAction(a).seat, "data-i": i }, describeAction(a, v.players, v.verbs))));
  const box = h("section", { class: "decl-box", "aria-label": t("declarations") },
    h("h2", {}, t("declarations"), " ", h("small", { class: "muted" }, t("deal_of_round", { r: v.round, d: v.deal }))),
    items.length ? list : h("p", { class: "muted", id: "declarations-empty" }, t("no_declarations")));
  // Newest in sight: the list scrolls itself to the bottom once it is on the page.
  requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  return box;
}
