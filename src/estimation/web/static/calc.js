// The score calculator (seed 004) for games played with real cards: each round's facts typed in, scored in
// the browser, kept in localStorage ("est.calc").
import { h, store } from "./common.js";
import { t } from "./i18n.js";
import { KINDS, scoreRound, nextMultiplier, estimateOrder, ScoreError } from "./score.js";
import { breakdownTable, scoreSheet } from "./sheet.js";

const defaultName = (s) => `${t("player")} ${s + 1}`;
const FRESH = () => ({ ruleset: "koutchina", players: [0, 1, 2, 3].map(defaultName), rounds: [] });

function factsOf(ruleset, r, multiplier) {
  const callKind = ["call", "auction", "speed"].includes(r.kind);
  const dash = r.kind === "fixed" ? [] : r.dash;
  const withs = ruleset === "egyptian" && callKind ? r.withs.filter((s) => s !== r.caller) : [];
  const order = estimateOrder({ kind: r.kind, caller: r.caller, dealer: r.dealer, dash, withs });
  const ests = order.filter((s) => !(callKind && s === r.caller)).map((s) => [s, r.est[s] === "" ? NaN : Number(r.est[s])]);
  return { ruleset, kind: r.kind, tricks: r.tricks.map((x) => (x === "" ? NaN : Number(x))), dash, withs, multiplier,
    estimates: ests, caller: callKind ? [r.caller, Number(r.number)] : null, order };
}

/** Every stored round scored in order, with the Sa'aydeh multiplier carried from round to round. */
export function scoreAll(state) {
  let mult = 1;
  return state.rounds.map((r, i) => {
    const f = factsOf(state.ruleset, r, mult);
    const out = scoreRound(f);
    const res = { round: i + 1, multiplier: mult, saaydeh: out.saaydeh, estimates: out.estimates,
      tricks: f.tricks, breakdown: out.breakdown, scores: out.breakdown.map((b) => b.score), risk: out.risk };
    mult = nextMultiplier(state.ruleset, mult, out.saaydeh);
    return res;
  });
}

export class CalcPage {
  constructor(root) {
    this.root = root;
    this.state = store.get("calc") || FRESH();
    this.draft = this.emptyDraft();
    // The names are built once and never re-rendered: a re-render on every change replaced the input being
    // left (and the one Tab was moving to), so typing a name and tabbing on lost the next name typed.
    this.names = h("fieldset", { class: "players" }, h("legend", {}, t("players")), [0, 1, 2, 3].map((s) =>
      h("input", { id: `calc-name-${s}`, value: this.state.players[s], maxlength: 24, placeholder: defaultName(s),
        "aria-label": `${t("player")} ${s + 1}`,
        oninput: (e) => { this.state.players[s] = e.target.value; this.save(); this.render(); } })));
    this.formHost = h("div", { class: "calc-form-host" });
    this.outHost = h("div", { class: "calc-out" });
    this.el = h("div", { class: "calc-page" }, h("h1", {}, t("calc_title")), h("p", {}, t("calc_intro")),
      h("div", { class: "calc-grid" }, h("div", {}, this.names, this.formHost), this.outHost));
    root.append(this.el);
    this.render();
  }

  destroy() { this.el.querySelector("dialog")?.close(); }

  emptyDraft() {
    return { kind: KINDS[this.state.ruleset][0], caller: 0, number: 4, dealer: this.state.rounds.length % 4,
      dash: [], withs: [], est: ["", "", "", ""], tricks: ["", "", "", ""] };
  }

  save() { store.set("calc", this.state); }

  /** A seat's name as shown: what was typed, or "Player N" while its box is empty. */
  name(s) { return (this.state.players[s] || "").trim() || defaultName(s); }

  /** "New game" clears the scored rounds, so it asks first (a <dialog>, Cancel focused); names and ruleset stay. */
  async newGame() {
    const n = this.state.rounds.length;
    if (n && !(await this.confirmNewGame(n))) return;
    this.state.rounds = [];
    this.save();
    this.draft = this.emptyDraft();
    this.render();
  }

  confirmNewGame(n) {
    return new Promise((resolve) => {
      let answer = false;
      const dlg = h("dialog", { class: "confirm", id: "calc-new-dialog", "aria-labelledby": "calc-new-title" },
        h("h2", { id: "calc-new-title" }, t("d_calc_new_q")),
        h("p", {}, t("d_calc_new_text", { n })),
        h("div", { class: "row" },
          h("button", { type: "button", id: "calc-new-cancel", onclick: () => dlg.close() }, t("d_cancel")),
          h("button", { type: "button", class: "primary", id: "calc-new-ok",
            onclick: () => { answer = true; dlg.close(); } }, t("d_calc_new_ok"))));
      // Escape and Cancel both close it unanswered: only OK clears.
      dlg.addEventListener("close", () => {
        dlg.remove();
        resolve(answer);
        document.getElementById("calc-clear")?.focus();
      });
      this.el.append(dlg);
      dlg.showModal();
      dlg.querySelector("#calc-new-cancel").focus();
    });
  }

  render() {
    const st = this.state;
    const d = this.draft;
    const name = (s) => this.name(s);
    let results = [];
    try { results = scoreAll(st); } catch { st.rounds = []; this.save(); }
    const mult = results.length ? nextMultiplier(st.ruleset, results[results.length - 1].multiplier,
      results[results.length - 1].saaydeh) : 1;
    const names = [0, 1, 2, 3].map(name);
    const callKind = ["call", "auction", "speed"].includes(d.kind);
    const err = h("p", { class: "error", role: "alert", id: "calc-error" });
    const seatSel = (id, value, on) => h("select", { id, onchange: (e) => { on(Number(e.target.value)); this.render(); } },
      [0, 1, 2, 3].map((s) => h("option", { value: s, selected: s === value }, names[s])));
    const order = estimateOrder({ kind: d.kind, caller: d.caller, dealer: d.dealer, dash: d.kind === "fixed" ? [] : d.dash,
      withs: st.ruleset === "egyptian" ? d.withs : [] }).filter((s) => !(callKind && s === d.caller));
    const ruleset = h("select", { id: "calc-ruleset", disabled: st.rounds.length > 0, onchange: (e) => {
      st.ruleset = e.target.value; this.save(); this.draft = this.emptyDraft(); this.render(); } },
    Object.keys(KINDS).map((r) => h("option", { value: r, selected: r === st.ruleset }, r)));
    const kind = h("select", { id: "calc-kind", onchange: (e) => { d.kind = e.target.value; this.render(); } },
      KINDS[st.ruleset].map((k) => h("option", { value: k, selected: k === d.kind }, t(`kind_${k}`))));
    const checks = (cls, list, label) => h("fieldset", { class: "checks" }, h("legend", {}, label), [0, 1, 2, 3].map((s) =>
      h("label", {}, h("input", { type: "checkbox", class: cls, "data-seat": s, id: `${cls}-${s}`, checked: list.includes(s),
        onchange: (e) => { const i = list.indexOf(s); if (e.target.checked && i < 0) list.push(s); if (!e.target.checked && i >= 0) list.splice(i, 1); this.render(); } }),
      " ", names[s])));
    const numbers = (prefix, arr, label, disabledSeats) => h("fieldset", { class: "numbers" }, h("legend", {}, label),
      [0, 1, 2, 3].map((s) => h("label", {}, names[s], " ", h("input", { type: "number", min: 0, max: 13, id: `${prefix}-${s}`,
        value: disabledSeats.includes(s) ? "" : arr[s], disabled: disabledSeats.includes(s),
        oninput: (e) => { arr[s] = e.target.value; } }))));
    const noEst = [0, 1, 2, 3].filter((s) => !order.includes(s));
    const form = h("form", { class: "calc-form", id: "calc-form" },
      h("label", {}, t("ruleset"), " ", ruleset), h("label", {}, t("kind"), " ", kind),
      callKind ? h("label", {}, t("caller_seat"), " ", seatSel("calc-caller", d.caller, (v) => { d.caller = v; })) : null,
      callKind ? h("label", {}, t("call_number"), " ", h("input", { type: "number", id: "calc-number", min: 4, max: 13, value: d.number,
        oninput: (e) => { d.number = e.target.value; } })) : null,
      !callKind ? h("label", {}, t("dealer_seat"), " ", seatSel("calc-dealer", d.dealer, (v) => { d.dealer = v; })) : null,
      d.kind !== "fixed" ? checks("calc-dash", d.dash, t("dash_seats")) : null,
      st.ruleset === "egyptian" && callKind ? checks("calc-with", d.withs, t("with_seats")) : null,
      numbers("calc-est", d.est, t("estimates"), noEst),
      h("p", { class: "muted" }, t("order_note", { order: order.map((s) => names[s]).join(" → ") })),
      numbers("calc-tricks", d.tricks, t("tricks"), []),
      h("p", {}, `${t("multiplier")}: ×${mult}`),
      h("button", { type: "submit", class: "primary", id: "calc-add" }, t("add_round")), err);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const round = JSON.parse(JSON.stringify(d));
      round.number = Number(round.number);
      try {
        scoreRound(factsOf(st.ruleset, round, mult));
      } catch (ex) {
        err.textContent = ex instanceof ScoreError ? t(ex.key, ex.args) : String(ex);
        return;
      }
      st.rounds.push(round);
      this.save();
      this.draft = this.emptyDraft();
      this.render();
      this.el.querySelector(`.breakdown[data-round="${st.rounds.length}"]`)?.scrollIntoView({ block: "nearest" });
    });
    const last = results[results.length - 1];
    // A control rebuilt under the keyboard keeps the focus (a select changed with the arrow keys, a checkbox
    // ticked with Space): the new control with the same id takes it back.
    const focused = document.activeElement;
    const focusId = focused && focused.id && this.el.contains(focused) && !this.names.contains(focused) ? focused.id : null;
    this.formHost.replaceChildren(form);
    this.outHost.replaceChildren(...[
      last ? h("h2", {}, t("round_end", { r: last.round })) : null,
      last && last.saaydeh ? h("p", { class: "saaydeh" }, t("saaydeh", { n: mult })) : null,
      last ? breakdownTable(last, names, st.ruleset) : null,
      h("h2", {}, t("score_sheet")), scoreSheet(results, names),
      h("p", { id: "calc-next" }, t("next_multiplier", { n: mult })),
      h("div", { class: "row" },
        h("button", { type: "button", id: "calc-undo", disabled: !st.rounds.length,
          onclick: () => { st.rounds.pop(); this.save(); this.render(); } }, t("undo_round")),
        h("button", { type: "button", id: "calc-clear", onclick: () => this.newGame() }, t("clear_all")))]
      .filter((x) => x !== null));
    if (focusId && !this.el.contains(focused)) document.getElementById(focusId)?.focus();
  }
}
