// One action of a game record ("2 play 3C", "1 est 9 H", RECORD.md's "SEAT VERB [ARG]") as a sentence a
// person reads: "Cy: play 3♣", "Di: estimate 9, Super Call ♥". The replay and the table's declarations list
// both show actions this way, so the wording lives here once.
//
// It returns a plain string, never markup: callers put it into textContent (player names are user text).
import { SUIT_GLYPH, callText, rankText, trumpText } from "./common.js";
import { t } from "./i18n.js";

/** "3C" as "3♣", "TS" as "10♠": a card as printed on it. */
function cardText(card) {
  return SUIT_GLYPH[card[1]] ? `${rankText(card[0])}${SUIT_GLYPH[card[1]]}` : card;
}

/**
 * A sentence for one record action: the seat's name, a colon, what it did.
 *
 * players: the four names by seat (a missing one reads "Seat N"). verbs: the ruleset's verbs (a view's
 * `verbs`, or `/api/rulesets`'), because `nodash` declines whichever offer the ruleset makes: the Dash Call
 * (`offer` is `dashcall`) or the Dash (`offer` is `dash`), and a Dash must never be called a Dash Call (a
 * different promise, scored differently). Text that is not an action comes back as it was, so nothing a
 * record holds is ever hidden.
 */
export function describeAction(text, players, verbs) {
  const parts = String(text ?? "").trim().split(/\s+/);
  const seat = Number(parts[0]);
  if (parts.length < 2 || !/^[0-3]$/.test(parts[0])) return String(text ?? "");
  const name = (players && players[seat]) || t("d_seat", { n: seat });
  const [, verb, arg, extra] = parts;
  let what = null;
  if (verb === "play" && arg) what = t("d_play", { card: cardText(arg) });
  else if (verb === "call" && arg) what = t("d_call", { call: callText(arg) });
  else if (verb === "bid" && arg) what = t("d_bid", { call: callText(arg) });
  else if (verb === "declare" && arg) what = t("d_declare", { call: callText(arg) });
  else if (verb === "with") what = t("d_with");
  else if (verb === "pass") what = t("d_pass");
  else if (verb === "dashcall") what = t("d_dashcall");
  else if (verb === "dash") what = t("d_dash");
  else if (verb === "nodash") what = t(verbs && verbs.offer === "dash" ? "d_nodash" : "d_nodashcall");
  else if (verb === "est" && arg !== undefined) {
    what = extra ? t("d_super", { n: arg, trump: trumpText(extra) }) : t("d_est", { n: arg });
  }
  return t("d_line", { name, what: what ?? parts.slice(1).join(" ") });
}
