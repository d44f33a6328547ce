// The round breakdown table and the score sheet, shared by the table, the replays and the calculator.
import { h, trumpText } from "./common.js";
import { t } from "./i18n.js";

const sign = (n) => (n > 0 ? `+${n}` : String(n));

/** One round's per-seat breakdown: base, Caller/With, only, Risk, Dash Call, Dash, sum, multiplier, score. */
export function breakdownTable(result, players, ruleset = "koutchina") {
  const cols = ["base", "caller_with", "only", "risk", "dash_call"];
  if (ruleset === "classic") cols.push("dash");
  return h("table", { class: "breakdown", "data-round": result.round ?? "" },
    h("thead", {}, h("tr", {}, h("th", {}, t("player")), h("th", {}, t("role")), h("th", {}, t("estimate")),
      h("th", {}, t("tricks")), cols.map((c) => h("th", {}, t(c === "dash_call" && ruleset === "egyptian" ? "dash" : c))), h("th", {}, t("subtotal")), h("th", {}, "×"),
      h("th", {}, t("score")))),
    h("tbody", {}, result.breakdown.map((b) => h("tr", { "data-seat": b.seat, class: b.made ? "made" : "missed" },
      h("th", { scope: "row" }, players[b.seat]), h("td", {}, t(`role_${b.role}`)), h("td", {}, b.estimate),
      h("td", {}, b.tricks, " ", h("small", {}, b.made ? t("made") : t("missed"))),
      cols.map((c) => h("td", { class: `c-${c}` }, b[c] ? sign(b[c]) : "·")),
      h("td", {}, sign(b.subtotal)), h("td", { class: "c-mult" }, b.multiplier),
      h("td", { class: "c-score" }, h("strong", {}, sign(b.score)))))));
}

/** The score sheet of every round so far: each seat's score and running total, with the multiplier. */
export function scoreSheet(results, players, totals = null) {
  const running = [0, 0, 0, 0];
  const rows = results.map((r, i) => {
    const cells = [0, 1, 2, 3].map((s) => {
      running[s] += r.scores ? r.scores[s] : r.breakdown[s].score;
      const b = r.breakdown ? r.breakdown[s] : null;
      return h("td", { class: "score", "data-round": i + 1, "data-seat": s },
        h("span", { class: "pts" }, sign(r.scores ? r.scores[s] : b.score)),
        h("small", { class: "et" }, ` ${r.estimates[s]}/${r.tricks[s]}`),
        h("span", { class: "run" }, running[s]));
    });
    return h("tr", { class: r.saaydeh ? "saaydeh" : "" },
      h("th", { scope: "row" }, r.round ?? i + 1, r.trump ? h("small", {}, " ", trumpText(r.trump)) : null),
      h("td", { class: "c-mult", title: r.saaydeh ? "Sa'aydeh" : "" }, `×${r.multiplier}`), cells);
  });
  const final = totals || running;
  return h("table", { class: "sheet" },
    h("thead", {}, h("tr", {}, h("th", {}, t("round")), h("th", {}, "×"), players.map((p) => h("th", {}, p)))),
    h("tbody", {}, rows),
    h("tfoot", {}, h("tr", {}, h("th", {}, t("total")), h("td", {}),
      [0, 1, 2, 3].map((s) => h("td", { class: "total", "data-seat": s }, final[s])))));
}
