// The score calculator (seed 004) for games played with real cards: each round's facts typed in, scored by
// the server with the ruleset itself (POST /api/score), kept with its scores in localStorage ("est.calc").
// What differs by ruleset (its kinds, which have a Call, the offer, With bids, the score lines) is read from
// /api/rulesets; nothing here tests a ruleset's name.
import { h, store, num } from "./common.js";
import { t } from "./i18n.js";
import { rulesets } from "./rulesets.js";
import { estimateOrder, scoreTyped, ScoreError } from "./score.js";
import { breakdownTable, scoreSheet, sidesList, sideScores } from "./sheet.js";

const defaultName = (s) => `${t("player")} ${s + 1}`;
const SIDES = [[0, 2], [1, 3]];
const parsed = (x) => (x === "" || x === null || x === undefined ? NaN : Number(x));

/** What the ruleset says of a typed round of this kind: whether it has a Call, the offer, With bids. */
function shape(info, kind) {
  const called = info.called_kinds.includes(kind);
  return { called, offer: info.offer_kinds.includes(kind), withs: info.with_bids && called };
}

/** A typed round (the form's fields) as the facts the server scores, with the order the seats estimated in. */
function factsOf(info, r, multiplier, partners) {
  const { called, offer, withs: hasWith } = shape(info, r.kind);
  const dash = offer ? [...r.dash] : [];
  const withs = hasWith ? r.withs.filter((s) => s !== r.caller) : [];
  const order = estimateOrder({ called, caller: r.caller, dealer: r.dealer, dash, withs, first: info.first_estimator });
  return { ruleset: info.name, kind: r.kind, tricks: r.tricks.map(parsed), dash, withs, multiplier, partners,
    estimates: order.map((s) => [s, parsed(r.est[s])]), caller: called ? [r.caller, parsed(r.number)] : null, order };
}

/** A stored round as the sheet and the breakdown read it. */
function shown(r, i) {
  const seats = r.result.seats;
  return { round: i + 1, multiplier: r.multiplier, saaydeh: r.result.saaydeh, breakdown: seats,
    estimates: seats.map((b) => b.estimate), tricks: seats.map((b) => b.tricks), scores: seats.map((b) => b.score),
    sides: r.result.sides || null };
}

export class CalcPage {
  constructor(root) {
    this.root = root;
    this.el = h("div", { class: "calc-page" }, h("h1", {}, t("calc_title")), h("p", {}, t("calc_intro")));
    root.append(this.el);
    this.start();
  }

  async start() {
    try {
      this.list = await rulesets();
    } catch (e) {
      this.el.append(h("p", { class: "error", role: "alert" }, t("error", { m: e.message })));
      return;
    }
    const saved = store.get("calc");
    this.state = { ruleset: this.list[0].name, partners: false, players: [0, 1, 2, 3].map(defaultName), rounds: [],
      ...(saved || {}) };
    if (!this.info()) { this.state.ruleset = this.list[0].name; this.state.rounds = []; }
    this.state.partners = !!this.state.partners;
    // Rounds kept by an older page held no scores: they are scored again, in order, or dropped from the
    // first one the server refuses.
    if (this.state.rounds.some((r) => !r.result)) await this.rescore();
    this.draft = this.emptyDraft();
    // The names are built once and never re-rendered: a re-render on every change replaced the input being
    // left (and the one Tab was moving to), so typing a name and tabbing on lost the next name typed.
    this.names = h("fieldset", { class: "players" }, h("legend", {}, t("players")), [0, 1, 2, 3].map((s) =>
      h("input", { id: `calc-name-${s}`, value: this.state.players[s], maxlength: 24, placeholder: defaultName(s),
        "aria-label": `${t("player")} ${s + 1}`,
        oninput: (e) => { this.state.players[s] = e.target.value; this.save(); this.render(); } })));
    this.formHost = h("div", { class: "calc-form-host" });
    this.outHost = h("div", { class: "calc-out" });
    this.el.append(h("div", { class: "calc-grid" }, h("div", {}, this.names, this.formHost), this.outHost));
    this.render();
  }

  destroy() { this.el.querySelector("dialog")?.close(); }

  info() { return this.list.find((r) => r.name === this.state.ruleset) || null; }

  async rescore() {
    const info = this.info();
    const kept = [];
    let mult = 1;
    for (const r of this.state.rounds) {
      try {
        const result = await scoreTyped(factsOf(info, r, mult, this.state.partners));
        kept.push({ ...r, multiplier: mult, result });
        mult = result.next_multiplier;
      } catch { break; }
    }
    this.state.rounds = kept;
    this.save();
  }

  emptyDraft() {
    return { kind: this.info().kinds[0], caller: 0, number: 4, dealer: this.state.rounds.length % 4,
      dash: [], withs: [], est: ["", "", "", ""], tricks: ["", "", "", ""] };
  }

  save() { store.set("calc", this.state); }

  /** A seat's name as shown: what was typed, or "Player N" while its box is empty. */
  name(s) { return (this.state.players[s] || "").trim() || defaultName(s); }

  /** The multiplier of the round being typed: x1, or what the last round's Sa'aydeh made it. */
  multiplier() {
    const last = this.state.rounds[this.state.rounds.length - 1];
    return last ? last.result.next_multiplier : 1;
  }

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

  /** Score the round typed on the server; added to the game once scored, else the reason is shown. */
  async add(err, button) {
    const st = this.state;
    const facts = factsOf(this.info(), this.draft, this.multiplier(), st.partners);
    const round = JSON.parse(JSON.stringify(this.draft));
    button.disabled = true;
    let result;
    try {
      result = await scoreTyped(facts);
    } catch (ex) {
      err.textContent = ex instanceof ScoreError ? (ex.text || t(ex.key, ex.args)) : t("error", { m: ex.message });
      button.disabled = false;
      return;
    }
    st.rounds.push({ ...round, multiplier: facts.multiplier, result });
    this.save();
    this.draft = this.emptyDraft();
    this.render();
    this.el.querySelector(`.breakdown[data-round="${st.rounds.length}"]`)?.scrollIntoView({ block: "nearest" });
  }

  render() {
    const st = this.state;
    const d = this.draft;
    const info = this.info();
    const results = st.rounds.map(shown);
    const mult = this.multiplier();
    const names = [0, 1, 2, 3].map((s) => this.name(s));
    const { called, offer, withs: hasWith } = shape(info, d.kind);
    const err = h("p", { class: "error", role: "alert", id: "calc-error" });
    const seatSel = (id, value, on) => h("select", { id, onchange: (e) => { on(Number(e.target.value)); this.render(); } },
      [0, 1, 2, 3].map((s) => h("option", { value: s, selected: s === value }, names[s])));
    const order = factsOf(info, d, mult, st.partners).order;
    const ruleset = h("select", { id: "calc-ruleset", disabled: st.rounds.length > 0, onchange: (e) => {
      st.ruleset = e.target.value; this.save(); this.draft = this.emptyDraft(); this.render(); } },
    this.list.map((r) => h("option", { value: r.name, selected: r.name === st.ruleset }, r.name)));
    // Partners are chosen with the game, like the ruleset: fixed once a round is in (RULES.md, Partnerships).
    const partners = h("input", { type: "checkbox", id: "calc-partners", checked: st.partners, disabled: st.rounds.length > 0,
      onchange: (e) => { st.partners = e.target.checked; this.save(); this.render(); } });
    const kind = h("select", { id: "calc-kind", onchange: (e) => { d.kind = e.target.value; this.render(); } },
      info.kinds.map((k) => h("option", { value: k, selected: k === d.kind }, t(`kind_${k}`) === `kind_${k}` ? k : t(`kind_${k}`))));
    const checks = (cls, list, label) => h("fieldset", { class: "checks" }, h("legend", {}, label), [0, 1, 2, 3].map((s) =>
      h("label", {}, h("input", { type: "checkbox", class: cls, "data-seat": s, id: `${cls}-${s}`, checked: list.includes(s),
        onchange: (e) => { const i = list.indexOf(s); if (e.target.checked && i < 0) list.push(s); if (!e.target.checked && i >= 0) list.splice(i, 1); this.render(); } }),
      " ", names[s])));
    const numbers = (prefix, arr, label, disabledSeats) => h("fieldset", { class: "numbers" }, h("legend", {}, label),
      [0, 1, 2, 3].map((s) => h("label", {}, names[s], " ", h("input", { type: "number", min: 0, max: 13, id: `${prefix}-${s}`,
        value: disabledSeats.includes(s) ? "" : arr[s], disabled: disabledSeats.includes(s),
        oninput: (e) => { arr[s] = e.target.value; } }))));
    const noEst = [0, 1, 2, 3].filter((s) => !order.includes(s));
    const addBtn = h("button", { type: "submit", class: "primary", id: "calc-add" }, t("add_round"));
    const form = h("form", { class: "calc-form", id: "calc-form" },
      h("label", {}, t("ruleset"), " ", ruleset),
      h("label", { class: "inline" }, partners, " ",
        t("calc_partners", { a: names[0], b: names[1], c: names[2], d: names[3] })),
      h("label", {}, t("kind"), " ", kind),
      called ? h("label", {}, t("caller_seat"), " ", seatSel("calc-caller", d.caller, (v) => { d.caller = v; })) : null,
      called ? h("label", {}, t("call_number"), " ", h("input", { type: "number", id: "calc-number", min: 4, max: 13, value: d.number,
        oninput: (e) => { d.number = e.target.value; } })) : null,
      !called ? h("label", {}, t("dealer_seat"), " ", seatSel("calc-dealer", d.dealer, (v) => { d.dealer = v; })) : null,
      // The offer's takers, named as the ruleset names its offer: a Dash Call, or egyptian's Dash.
      offer ? checks("calc-dash", d.dash, t(info.offer_role === "dash" ? "dash" : "dash_seats")) : null,
      hasWith ? checks("calc-with", d.withs, t("with_seats")) : null,
      numbers("calc-est", d.est, t("estimates"), noEst),
      h("p", { class: "muted" }, t("order_note", { order: order.map((s) => names[s]).join(" → ") })),
      numbers("calc-tricks", d.tricks, t("tricks"), []),
      h("p", {}, `${t("multiplier")}: `, num(`×${mult}`)),
      addBtn, err);
    form.addEventListener("submit", (e) => { e.preventDefault(); this.add(err, addBtn); });
    const last = results[results.length - 1];
    const sides = st.partners ? SIDES : null;
    const sideTotals = [0, 1].map((k) => results.reduce((a, r) => a + sideScores(r.scores, SIDES)[k], 0));
    // A control rebuilt under the keyboard keeps the focus (a select changed with the arrow keys, a checkbox
    // ticked with Space): the new control with the same id takes it back.
    const focused = document.activeElement;
    const focusId = focused && focused.id && this.el.contains(focused) && !this.names.contains(focused) ? focused.id : null;
    this.formHost.replaceChildren(form);
    this.outHost.replaceChildren(...[
      last ? h("h2", {}, t("round_end", { r: last.round })) : null,
      last && last.saaydeh ? h("p", { class: "saaydeh" }, t("saaydeh", { n: mult })) : null,
      last ? breakdownTable(last, names, info.score_lines) : null,
      // Each side's score of this round (the server's, as `estimation score --partners`) and its total so far.
      sides ? sidesList({ seats: SIDES, totals: sideTotals, round: last && last.sides ? last.sides.scores : null }, names,
        "calc-sides") : null,
      h("h2", {}, t("score_sheet")), scoreSheet(results, names, null, sides),
      h("p", { id: "calc-next" }, t("next_multiplier", { n: mult })),
      h("div", { class: "row" },
        h("button", { type: "button", id: "calc-undo", disabled: !st.rounds.length,
          onclick: () => { st.rounds.pop(); this.save(); this.render(); } }, t("undo_round")),
        h("button", { type: "button", id: "calc-clear", onclick: () => this.newGame() }, t("clear_all")))]
      .filter((x) => x !== null));
    if (focusId && !this.el.contains(focused)) document.getElementById(focusId)?.focus();
  }
}
