// The calculator's scoring. Every round is scored by the server with the ruleset itself (POST /api/score, as
// `estimation score --json` scores it), so nothing here knows a ruleset's rules or tests its name. What stays
// in the browser: the estimating order shown while a round is typed (from what the ruleset declares), and the
// checks every ruleset shares, said in the page's language before the server is asked.
import { api, ApiError } from "./common.js";

/** A round refused: `key` (and `args`) name a translated message; `text` is the server's own, in English. */
export class ScoreError extends Error {
  constructor(key, args = {}, text = null) { super(text || key); this.key = key; this.args = args; this.text = text; }
}

/**
 * The order the seats estimate in, from what was typed. In a round with a Call (`called`): from the seat after
 * the Caller, the seats that bid With first, the offer's takers skipped. Without one: from `first` seats after
 * the dealer (the ruleset's `first_estimator`) round the table, the offer's takers skipped.
 */
export function estimateOrder({ called, caller = 0, dealer = 0, dash = [], withs = [], first = 1 }) {
  if (called) {
    const after = [1, 2, 3].map((i) => (caller + i) % 4);
    return [...after.filter((s) => withs.includes(s)), ...after.filter((s) => !withs.includes(s) && !dash.includes(s))];
  }
  return [0, 1, 2, 3].map((i) => (dealer + first + i) % 4).filter((s) => !dash.includes(s));
}

/**
 * The checks every ruleset shares (RULES.md), before the server is asked: tricks 0-13 totalling 13, a Call of
 * 4-13, each estimate a number within 0 and the Call, the estimates never totalling 13, at most two on zero.
 * facts: {estimates: [[seat, n], ...], tricks: [4], caller: [seat, number] | null, dash: [seats]}.
 */
export function checkShared(facts) {
  const tricks = facts.tricks;
  if (tricks.length !== 4 || tricks.some((x) => !Number.isInteger(x) || x < 0 || x > 13)) throw new ScoreError("err_tricks_range");
  const sum = tricks.reduce((a, b) => a + b, 0);
  if (sum !== 13) throw new ScoreError("err_tricks_total", { n: sum });
  const bySeat = [null, null, null, null];
  for (const s of facts.dash) bySeat[s] = 0;
  let top = 13;
  if (facts.caller) {
    const [seat, number] = facts.caller;
    if (!(Number.isInteger(number) && number >= 4 && number <= 13)) throw new ScoreError("err_call_range", { n: number });
    top = number;
    bySeat[seat] = number;
  }
  for (const [seat, n] of facts.estimates) {
    if (!Number.isInteger(n) || n < 0 || n > top) throw new ScoreError("err_est_range", { seat: seat + 1, n, top });
    bySeat[seat] = n;
  }
  if (bySeat.some((n) => n === null)) throw new ScoreError("err_est_missing");
  if (bySeat.reduce((a, b) => a + b, 0) === 13) throw new ScoreError("err_total_13");
  if (bySeat.filter((n) => n === 0).length > 2) throw new ScoreError("err_three_zeros");
}

/**
 * Score one typed round on the server: {seats: [each seat's breakdown], saaydeh, next_multiplier, sides?}.
 * A round the ruleset refuses throws a ScoreError with the server's reason.
 */
export async function scoreTyped(facts) {
  checkShared(facts);
  try {
    return await api("POST", "/api/score", {
      ruleset: facts.ruleset, kind: facts.kind, estimates: facts.estimates, tricks: facts.tricks, caller: facts.caller,
      dash: facts.dash, with: facts.withs, multiplier: facts.multiplier, partners: !!facts.partners });
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) {
      throw new ScoreError(null, {}, typeof e.body?.detail === "string" ? e.body.detail : e.message);
    }
    throw e;
  }
}
