// What each ruleset declares (GET /api/rulesets, `Ruleset.describe()`): its lengths and their rounds, kinds,
// verbs, score lines... Pages read these, as the table reads a view's `verbs` and `rules`, and never test a
// ruleset's name to decide what to do; the list is fetched once per page load.
import { api, h } from "./common.js";
import { getLang, lengthOption, lengthName } from "./i18n.js";

let loading = null;
let known = null; // the list once it has come: for what draws at once (a table's marker tooltips)

/** Every ruleset's description, in the server's order (the first is the default). */
export function rulesets() {
  if (!loading) {
    loading = api("GET", "/api/rulesets").then((list) => { known = list; return list; })
      .catch((e) => { loading = null; throw e; });
  }
  return loading;
}

/** One ruleset's description if the list has come already (null before, or for an unknown name). */
export function rulesetNow(name) {
  return (known && known.find((r) => r.name === name)) || null;
}

/** A ruleset's name as people read it, in the page's language (its `display_names`, English where it has
 *  none in that language), or the name itself before the list has come. */
export function rulesetName(name) {
  const info = rulesetNow(name);
  return (info && (info.display_names[getLang()] || info.display_names.en)) || name;
}

/** What a game plays, "Koutchina · mini" / "كوتشينة · قصيرة": its ruleset and length in the page's language,
 *  the one way every page says it. */
export function playsText(ruleset, length) { return `${rulesetName(ruleset)} · ${lengthName(length)}`; }

/** One ruleset's description by the name a record or a view gives, or null. */
export async function rulesetInfo(name) {
  return (await rulesets()).find((r) => r.name === name) || null;
}

/** A length's rounds ({kind, trump}), the length being the record's or, left out, the ruleset's default. */
export function roundsOf(info, length) {
  return (info && info.rounds[length || info.default_length]) || [];
}

/** A ruleset picker's options, each ruleset by its name in the page's language. */
export function rulesetOptions(list, selected = null) {
  return list.map((r) => h("option", { value: r.name, selected: r.name === selected }, rulesetName(r.name)));
}

/** A length picker's options for one ruleset: each length with its rounds ("committee (13 rounds)"),
 *  ``selected`` (else the ruleset's default) chosen. */
export function lengthOptions(info, selected = null) {
  const want = info.lengths.includes(selected) ? selected : info.default_length;
  return info.lengths.map((l) => h("option", { value: l, selected: l === want }, lengthOption(l, roundsOf(info, l).length)));
}
