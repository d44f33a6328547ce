// A server's refusal as a sentence in the page's language. The server answers in English: a table's errors
// carry a `code` (REST and socket alike), a refused request body (422) lists its fields' problems, and the
// other refusals give a sentence. Each known one has a string in i18n.js; an unknown one is shown as sent.
import { t, STRINGS } from "./i18n.js";

const has = (key) => key in STRINGS.en;

/** The REST refusals without a code, by their English sentence (the server's `detail`). */
const DETAILS = {
  "wrong name or password": "e_wrong_login",
  "that name is taken": "s_name_taken",
  "that name belongs to a registered player": "e_name_registered",
  "the password is wrong": "s_pw_wrong",
  "the old password is wrong": "s_pw_wrong",
  "sign in first: unknown, missing or expired token": "e_sign_in_again",
  "no such player": "s_no_player",
  "the game is not finished": "e_not_finished",
  "the rematch table is gone": "e_rematch_gone",
  "the rematch has started without you": "e_rematch_started",
  "you cannot report your own message": "e_report_own",
};

/** A name's or a password's refusal (names.py), by the start of its English sentence. */
const REASONS = [
  ["control characters are not allowed", "v_controls"],
  ["invisible and direction-changing characters", "v_invisible"],
  ["must not be blank", "v_blank"],
  ["mixes right-to-left and left-to-right", "v_bidi"],
  ["has a character that is not allowed", "v_char"],
  ["must be at most", "v_name_long"],
  ["mixes letters of different scripts", "v_mixed_scripts"],
  ["a password must not be only spaces", "v_pw_spaces"],
  ["a password must not be your name", "v_pw_name"],
  ["this password is too easy to guess", "v_pw_easy"],
];

function reasonText(msg) {
  const m = String(msg || "").replace(/^Value error, /, "");
  const hit = REASONS.find(([start]) => m.startsWith(start));
  return hit ? t(hit[1]) : m;
}

/** One field's problem in a refused body: "Password: at least 8 characters." */
function fieldText(err) {
  const field = (err.loc || []).filter((x) => x !== "body").join(".");
  const label = has(`f_${field}`) ? t(`f_${field}`) : field;
  const ctx = err.ctx || {};
  let what;
  if (err.type === "string_too_short") what = ctx.min_length === 1 ? t("v_blank") : t("v_too_short", { n: ctx.min_length });
  else if (err.type === "string_too_long") what = t("v_too_long", { n: ctx.max_length });
  else if (err.type === "missing") what = t("v_blank");
  else if (err.type === "turn_seconds_too_short") what = t("v_clock_min", { n: ctx.min });
  else if (err.type === "greater_than_equal") what = t("v_at_least", { n: ctx.ge });
  else if (err.type === "less_than_equal") what = t("v_at_most", { n: ctx.le });
  else what = reasonText(err.msg);
  return label ? t("v_field", { field: label, what }) : what;
}

/** What a refusal says, in the page's language: `code` and `message` (a table's errors, also on the socket)
 *  or a REST answer's `detail`. */
export function serverText(code, message, detail) {
  if (code && has(`e_${code}`)) return t(`e_${code}`);
  const d = detail === undefined ? message : detail;
  if (Array.isArray(d)) return d.map(fieldText).join(" ");
  if (typeof d === "string") {
    if (has(DETAILS[d])) return t(DETAILS[d]);
    const r = reasonText(d);
    if (r !== d) return r;
    return d;
  }
  if (d && typeof d === "object") return String(d.message || d.msg || JSON.stringify(d));
  return message ? String(message) : "";
}
