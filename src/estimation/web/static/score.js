// The round scorer for the calculator and the replays, mirroring docs/rules.md (koutchina, classic,
// egyptian) and src/estimation/calculator.py: the same checks, the same breakdown fields.
// Pure functions, no DOM.

export const KINDS = { koutchina: ["call", "fixed"], classic: ["call", "fixed"],
  egyptian: ["auction", "speed", "nobid"] };
export const SAAYDEH = { koutchina: true, classic: true, egyptian: false };

export class ScoreError extends Error {
  constructor(key, args = {}) { super(key); this.key = key; this.args = args; }
}

export function riskLevel(ruleset, kind, total, estimates, last) {
  const d = Math.abs(total - 13);
  if (ruleset === "koutchina") return d <= 1 ? 0 : d <= 3 ? 1 : d <= 5 ? 2 : 3;
  if (ruleset === "classic") return d <= 1 ? 0 : d <= 3 ? 1 : 2;
  if (kind === "nobid" || last === null) return 0;
  return total <= 11 || (total >= 15 && estimates[last] >= 2) ? 1 : 0;
}

function census(made) {
  const m = [0, 1, 2, 3].filter((s) => made[s]);
  const x = [0, 1, 2, 3].filter((s) => !made[s]);
  return [m.length === 1 ? m[0] : null, x.length === 1 ? x[0] : null];
}

/** The order in which the seats estimate by an action, from what was typed (see the calculator page). */
export function estimateOrder({ kind, caller = null, dealer = 0, dash = [], withs = [] }) {
  const after = (s) => [1, 2, 3].map((i) => (s + i) % 4);
  if (kind === "call" || kind === "auction" || kind === "speed") {
    const a = after(caller);
    return [...a.filter((s) => withs.includes(s)), ...a.filter((s) => !withs.includes(s) && !dash.includes(s))];
  }
  if (kind === "fixed") return after(dealer).concat([dealer]);
  // nobid: from the dealer in seat order, Dash seats skipped.
  return [0, 1, 2, 3].map((i) => (dealer + i) % 4).filter((s) => !dash.includes(s));
}

/**
 * Score one round. facts: {ruleset, kind, estimates: [[seat, est], ...] in order (not the Caller nor
 * Dash seats), tricks: [4], caller: [seat, number] | null, dash: [seats], withs: [seats], multiplier}.
 * Returns {breakdown: [per seat], saaydeh, risk, caller, total, over}. Throws ScoreError.
 */
export function scoreRound(facts) {
  const ruleset = facts.ruleset || "koutchina";
  const kind = facts.kind;
  const tricks = facts.tricks.map(Number);
  const dash = [...(facts.dash || [])];
  const joined = [...(facts.withs || [])];
  const multiplier = facts.multiplier ?? 1;
  const egyptian = ruleset === "egyptian";
  if (!(KINDS[ruleset] || []).includes(kind)) throw new ScoreError("err_kind");
  if (tricks.length !== 4 || tricks.some((t) => !Number.isInteger(t) || t < 0 || t > 13)) {
    throw new ScoreError("err_tricks_range");
  }
  const sum = tricks.reduce((a, b) => a + b, 0);
  if (sum !== 13) throw new ScoreError("err_tricks_total", { n: sum });
  if (!(SAAYDEH[ruleset] ? [1, 2, 4] : [1]).includes(multiplier)) throw new ScoreError("err_multiplier");
  if (new Set(dash).size !== dash.length || dash.length > 2) throw new ScoreError("err_dash_two");
  if (joined.length && !egyptian) throw new ScoreError("err_with_egyptian");
  if (joined.some((s) => dash.includes(s))) throw new ScoreError("err_with_dash");
  const order = facts.estimates.map(([s]) => s);
  const bySeat = {};
  for (const s of dash) bySeat[s] = 0;
  let top = 13;
  let callerSeat = null;
  if (kind === "call" || kind === "auction" || kind === "speed") {
    if (!facts.caller) throw new ScoreError("err_need_call");
    [callerSeat, top] = facts.caller;
    if (!(top >= 4 && top <= 13)) throw new ScoreError("err_call_range", { n: top });
    if (dash.includes(callerSeat) || joined.includes(callerSeat)) throw new ScoreError("err_caller_dash");
    bySeat[callerSeat] = top;
  } else {
    if (kind === "fixed" && dash.length) throw new ScoreError("err_fixed_dash");
  }
  for (const [seat, est] of facts.estimates) {
    if (!Number.isInteger(est) || est < 0 || est > top) throw new ScoreError("err_est_range", { seat, n: est, top });
    if (seat in bySeat) throw new ScoreError("err_est_once");
    bySeat[seat] = est;
  }
  if (Object.keys(bySeat).length !== 4) throw new ScoreError("err_est_missing");
  const estimates = [0, 1, 2, 3].map((s) => bySeat[s]);
  const total = estimates.reduce((a, b) => a + b, 0);
  if (total === 13) throw new ScoreError("err_total_13");
  if (estimates.filter((e) => e === 0).length > 2) throw new ScoreError("err_three_zeros");
  if (kind === "fixed") {
    const best = Math.max(...estimates);
    callerSeat = order.find((s) => bySeat[s] === best);
  }
  const withs = egyptian ? joined.filter((s) => bySeat[s] === top)
    : order.filter((s) => s !== callerSeat && bySeat[s] === estimates[callerSeat]);
  const made = [0, 1, 2, 3].map((s) => tricks[s] === estimates[s]);
  const saaydeh = SAAYDEH[ruleset] && !made.some(Boolean);
  const mult = saaydeh ? 0 : multiplier;
  const last = order.length ? order[order.length - 1] : null;
  const level = riskLevel(ruleset, kind, total, estimates, last);
  const over = total > 13;
  const under = total < 13;
  const nobid = kind === "nobid";
  const [onlyMaker, onlyMisser] = nobid ? [null, null] : census(made);
  const out = [];
  for (let seat = 0; seat < 4; seat++) {
    const est = estimates[seat];
    const t = tricks[seat];
    const sign = made[seat] ? 1 : -1;
    const only = seat === onlyMaker ? 10 : seat === onlyMisser ? -10 : 0;
    const line = { seat, role: "regular", estimate: est, tricks: t, made: made[seat], base: 0, caller_with: 0,
      only: 0, risk: 0, dash_call: 0, dash: 0, multiplier: mult };
    if (dash.includes(seat) && !(egyptian && nobid)) {
      if (egyptian) {
        line.role = "dash";
        line.dash_call = made[seat] ? (under ? 23 : 13) : -t - (under ? 10 : 0);
      } else {
        line.role = "dashcall";
        line.only = only;
        line.dash_call = ruleset === "classic" ? (made[seat] ? 33 : -23) : sign * (over ? 25 : 33);
      }
    } else {
      const isCaller = seat === callerSeat;
      line.role = isCaller ? "caller" : withs.includes(seat) ? "with" : (!egyptian && est === 0 ? "dash" : "regular");
      line.only = only;
      line.risk = seat === last ? sign * 10 * level : 0;
      if (egyptian) {
        line.base = made[seat] ? 13 + est : -Math.abs(t - est);
        line.caller_with = line.role === "caller" ? (est >= 8 ? 20 : 10) * sign : line.role === "with" ? 10 * sign : 0;
      } else if (ruleset === "classic") {
        line.base = made[seat] ? est + 10 : -Math.abs(t - est);
        line.caller_with = line.role === "caller" && est >= 8 ? (made[seat] ? 30 : -20)
          : line.role === "caller" || line.role === "with" ? sign * 10 : 0;
        line.dash = line.role === "dash" && under ? sign * 10 : 0;
      } else {
        line.base = made[seat] ? 10 + t : -Math.abs(t - est);
        line.caller_with = line.role === "caller" || line.role === "with" ? sign * 10 : 0;
      }
    }
    line.subtotal = line.base + line.caller_with + line.only + line.risk + line.dash_call + line.dash;
    line.score = line.subtotal * line.multiplier;
    out.push(line);
  }
  return { breakdown: out, saaydeh, risk: level, caller: callerSeat, total, over, estimates };
}

/** The multiplier of the round after one scored at `multiplier` (Sa'aydeh: x2, then x4, the cap). */
export function nextMultiplier(ruleset, multiplier, saaydeh) {
  if (!SAAYDEH[ruleset]) return 1;
  return saaydeh ? Math.min(4, Math.max(1, multiplier) * 2) : 1;
}
