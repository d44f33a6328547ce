// The round breakdown table, the score sheet and a partnership game's sides, shared by the table, the replays
// and the calculator. What differs by ruleset comes from what it declares (its `score_lines`), never its name.
import { h, trumpText, num } from "./common.js";
import { t, tParts } from "./i18n.js";

const signText = (n) => (n > 0 ? `+${n}` : String(n));
/** A score with its sign, kept left to right (num): in Arabic "-2" showed as "2-". */
const sign = (n) => num(signText(n));
/** Every breakdown field a ruleset may score on, in the sheet's order. */
const FIELDS = ["base", "caller_with", "only", "risk", "dash_call", "dash"];
/** A ruleset's own heading for a line (its `score_lines`) as a translated one: egyptian heads its
 *  `dash_call` line "Dash", never "Dash Call". A heading not listed here is shown as the ruleset gives it. */
const HEADINGS = { Base: "base", "C/W": "caller_with", Only: "only", Risk: "risk", DCall: "dash_call", Dash: "dash" };

/**
 * One round's per-seat breakdown: base, Caller/With, only, Risk, Dash Call or Dash..., sum, multiplier, score.
 * lines: the ruleset's `score_lines` (field -> heading, /api/rulesets); without them, every line that scored.
 */
export function breakdownTable(result, players, lines = null) {
  const cols = lines ? FIELDS.filter((c) => c in lines).concat(Object.keys(lines).filter((c) => !FIELDS.includes(c)))
    : FIELDS.filter((c) => result.breakdown.some((b) => b[c]));
  const heading = (c) => {
    const given = lines && lines[c];
    return given ? (HEADINGS[given] ? t(HEADINGS[given]) : given) : t(c);
  };
  return h("table", { class: "breakdown", "data-round": result.round ?? "" },
    h("thead", {}, h("tr", {}, h("th", {}, t("player")), h("th", {}, t("role")), h("th", {}, t("estimate")),
      h("th", {}, t("tricks")), cols.map((c) => h("th", {}, heading(c))), h("th", {}, t("subtotal")), h("th", {}, "×"),
      h("th", {}, t("score")))),
    h("tbody", {}, result.breakdown.map((b) => h("tr", { "data-seat": b.seat, class: b.made ? "made" : "missed" },
      h("th", { scope: "row" }, players[b.seat]), h("td", {}, t(`role_${b.role}`)), h("td", {}, b.estimate),
      h("td", {}, b.tricks, " ", h("small", {}, b.made ? t("made") : t("missed"))),
      cols.map((c) => h("td", { class: `c-${c}` }, b[c] ? sign(b[c]) : "·")),
      h("td", {}, sign(b.subtotal)), h("td", { class: "c-mult" }, num(b.multiplier)),
      h("td", { class: "c-score" }, h("strong", {}, sign(b.score)))))));
}

/**
 * Every table in `root` wider than its box (a phone's round breakdown, a sheet's side columns) gets a cue: a
 * line above it ("scroll sideways") and its far edge fading out, both gone once it is scrolled to its end.
 * Call it once `root` is on the page (it measures).
 */
export function scrollCues(root) {
  for (const table of root.querySelectorAll("table")) {
    const prev = table.previousElementSibling;
    if (prev && prev.classList.contains("scroll-cue")) prev.remove();
    table.classList.remove("more");
    if (table.scrollWidth <= table.clientWidth + 1) continue;
    const cue = h("p", { class: "scroll-cue", "aria-hidden": "true" }, t("scroll_more"));
    table.before(cue);
    const update = () => {
      const more = Math.abs(table.scrollLeft) + table.clientWidth < table.scrollWidth - 2; // negative in RTL
      table.classList.toggle("more", more);
      cue.hidden = !more;
    };
    table.addEventListener("scroll", update, { passive: true });
    update();
  }
}

/** A side's name as shown: "Side 1", its partners' names beside it where they are wanted. */
export function sideName(i) { return t("side_n", { n: i + 1 }); }

/** Each side's score of one round: the sum of its two seats' (RULES.md, Partnerships). */
export function sideScores(scores, seats) {
  return seats.map((pair) => pair.reduce((a, s) => a + scores[s], 0));
}

/**
 * The score sheet of every round so far: each seat's score and running total, with the multiplier; in a
 * partnership game (`sides`: the sides' seats, [[0, 2], [1, 3]]) each side's round score and running total
 * too, in a column of its own after the seats.
 */
export function scoreSheet(results, players, totals = null, sides = null) {
  const running = [0, 0, 0, 0];
  const sideRun = [0, 0];
  const rows = results.map((r, i) => {
    const scores = r.scores || r.breakdown.map((b) => b.score);
    const cells = [0, 1, 2, 3].map((s) => {
      running[s] += scores[s];
      return h("td", { class: `score${sides ? ` side-${sideOf(sides, s)}` : ""}`, "data-round": i + 1, "data-seat": s },
        h("span", { class: "pts" }, sign(scores[s])),
        h("small", { class: "et" }, ` ${r.estimates[s]}/${r.tricks[s]}`),
        h("span", { class: "run" }, num(running[s])));
    });
    const sideCells = sides ? sideScores(scores, sides).map((n, k) => {
      sideRun[k] += n;
      return h("td", { class: `side-score side-${k}`, "data-round": i + 1, "data-side": k },
        h("span", { class: "pts" }, sign(n)), h("span", { class: "run" }, num(sideRun[k])));
    }) : [];
    return h("tr", { class: r.saaydeh ? "saaydeh" : "" },
      h("th", { scope: "row" }, r.round ?? i + 1, r.trump ? h("small", {}, " ", trumpText(r.trump)) : null),
      h("td", { class: "c-mult", title: r.saaydeh ? "Sa'aydeh" : "" }, `×${r.multiplier}`), cells, sideCells);
  });
  const final = totals || running;
  const sideFinal = sides ? sideScores(final, sides) : [];
  return h("table", { class: `sheet${sides ? " with-sides" : ""}` },
    h("thead", {}, h("tr", {}, h("th", {}, t("round")), h("th", {}, "×"),
      players.map((p, s) => h("th", { class: sides ? `side-${sideOf(sides, s)}` : "" }, p)),
      sides ? sides.map((pair, k) => h("th", { class: `side-head side-${k}`, title: pair.map((s) => players[s]).join(" + ") },
        sideName(k))) : null)),
    h("tbody", {}, rows),
    h("tfoot", {}, h("tr", {}, h("th", {}, t("total")), h("td", {}),
      [0, 1, 2, 3].map((s) => h("td", { class: "total", "data-seat": s }, num(final[s]))),
      sideFinal.map((n, k) => h("td", { class: `side-total side-${k}`, "data-side": k }, num(n))))));
}

/** A seat's side (0: seats 0+2, 1: seats 1+3) given the sides' seats, or -1 without partners (null). */
export function sideOf(sides, seat) { return sides ? sides.findIndex((pair) => pair.includes(seat)) : -1; }

/** A side's partners' names, "Ann + Cy", isolated from the text around it (<bdi>): a name's own direction
 *  never reorders it ("Bot 3" in an Arabic sentence once showed as "3 Bot"). */
export function partnerNames(pair, players) {
  return h("bdi", { class: "partner-names" }, pair.map((s) => players[s]).join(" + "));
}

/**
 * A partnership game's two sides: who (the partners' names), the total and, where given, this round's score
 * and the place. sides: {seats: [[0, 2], [1, 3]], totals: [A, B], places?: [P, Q] | null, round?: [a, b]}.
 */
export function sidesList(sides, players, id = "sides") {
  return h("ul", { class: "sides", id }, sides.seats.map((pair, i) => h("li", { "data-side": i, class: `side-${i}` },
    h("strong", {}, sideName(i)), " (", partnerNames(pair, players), "): ",
    h("span", { class: "side-total" }, num(sides.totals[i])),
    sides.round ? h("span", { class: "side-round" }, " (", tParts("this_round", { n: sign(sides.round[i]) }), ")") : null,
    sides.places ? h("span", { class: "side-place" }, ` · ${t("side_place", { n: sides.places[i] })}`) : null)));
}
