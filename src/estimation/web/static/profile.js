// A player's page, #/player/ID, from GET /api/players/ID/profile: level and badge in every ruleset that keeps
// level points (its points and badge from GET /api/rulesets: nothing here names a ruleset), games, wins, make rate, average score, games per ruleset, recent games with their replays; Mute / Unmute
// for a signed-in visitor. No sign-in needed to look. Every name is text.
import { h, api, session, ApiError } from "./common.js";
import { t, getLang } from "./i18n.js";
import { fill, num } from "./lobbyfeed.js";
import { rulesets, rulesetName, playsText } from "./rulesets.js";

const pct = (x) => (x === null || x === undefined ? "–" : `${Math.round(x * 100)}%`);

/** One ruleset's level panel: its points, its badge (or how far from it) and its record. */
function levelPanel(lv, info) {
  const r = rulesetName(lv.ruleset);
  const pays = (info && info.level_points) || { win: 0, draw: 0, loss: 0 };
  const need = info ? info.badge_wins : 0;
  return h("div", { class: "panel level-panel", id: `profile-level-${lv.ruleset}`, "data-ruleset": lv.ruleset,
    "data-points": lv.points, "data-badge": lv.badge ? "1" : "0" },
  h("h2", {}, t("s_level", { r })),
  h("p", { class: "big" }, h("span", { class: "points" }, num(lv.points)), " ", t("s_points")),
  lv.badge ? h("p", { class: "badge-level", title: t("s_badge_title", { r, n: need }) }, "★ ", t("s_badge", { r }))
    : h("p", { class: "muted" }, t("s_badge_progress", { r, w: lv.wins, n: need })),
  h("p", { class: "muted" }, t("s_level_record", { r, g: lv.games, w: lv.wins, d: lv.draws, l: lv.losses,
    pw: pays.win, pd: pays.draw, pl: pays.loss })));
}

export function dateText(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  // Western digits in Arabic too, as everywhere else on the page.
  return d.toLocaleString(getLang() === "ar" ? "ar-u-nu-latn" : "en-GB", { dateStyle: "short", timeStyle: "short" });
}

export function outcomeText(g) {
  return g.left ? t("s_out_left") : t(`s_out_${g.outcome}`);
}

export class ProfilePage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.root = h("section", { class: "social-page profile", id: "profile", "data-id": id, "aria-busy": "true" });
    main.append(this.root);
    this.load();
  }

  async load() {
    let p;
    try {
      p = await api("GET", `/api/players/${this.id}/profile`);
      this.rulesets = await rulesets();
    } catch (e) {
      fill(this.root, h("h1", {}, t("s_profile")),
        h("p", { class: "error", role: "alert" }, e instanceof ApiError && e.status === 404 ? t("s_no_player") : t("error", { m: e.message })));
      this.root.setAttribute("aria-busy", "false");
      return;
    }
    if (!this.root.isConnected) return;
    const chips = [
      p.guest ? h("span", { class: "chip" }, t("guest")) : null,
      p.moderator ? h("span", { class: "chip mod" }, t("s_moderator")) : null,
      p.deleted ? h("span", { class: "chip gone" }, t("s_deleted")) : null,
    ];
    const me = session();
    const mine = me && me.account.id === p.id;
    const muteBox = h("div", { class: "row mute-row" });
    fill(this.root,
      h("h1", {}, h("span", { id: "profile-name", class: "pname" }, p.name), " ", chips),
      mine ? h("p", {}, h("a", { href: "#/account", id: "profile-account" }, t("s_account_title"))) : null,
      muteBox,
      h("div", { class: "profile-grid" },
        ...p.levels.map((lv) => levelPanel(lv, this.rulesets.find((x) => x.name === lv.ruleset))),
        h("div", { class: "panel" },
          h("h2", {}, t("stats")),
          h("dl", { class: "stats", id: "profile-stats" },
            h("dt", {}, t("games")), h("dd", { "data-k": "games" }, p.games),
            h("dt", {}, t("wins")), h("dd", { "data-k": "wins" }, p.wins),
            h("dt", {}, t("make_rate")), h("dd", { "data-k": "make_rate" }, num(pct(p.make_rate))),
            h("dt", {}, t("avg")), h("dd", { "data-k": "average_score" }, p.average_score === null ? "–" : num(p.average_score.toFixed(1))))),
        h("div", { class: "panel" },
          h("h2", {}, t("s_per_ruleset")),
          Object.keys(p.by_ruleset).length
            ? h("table", { class: "social-table", id: "profile-rulesets" },
              // Three columns, the ruleset's name its leaderboard's link: a fourth ("Leaderboard" in each row)
              // overflowed the card at 1280 px.
              h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("ruleset")), h("th", { scope: "col" }, t("games")),
                h("th", { scope: "col" }, t("wins")))),
              h("tbody", {}, Object.entries(p.by_ruleset).sort().map(([r, x]) => h("tr", { "data-ruleset": r },
                h("th", { scope: "row" }, h("a", { href: `#/leaderboard/${r}`, class: "lb-link",
                  title: t("s_lb_title", { r: rulesetName(r) }) }, rulesetName(r), " ↗")), h("td", {}, x.games), h("td", {}, x.wins)))))
            : h("p", { class: "muted" }, t("s_no_games")))),
      h("h2", {}, t("s_recent")),
      p.recent.length ? h("div", { class: "scroll-x" }, h("table", { class: "social-table", id: "recent-games" },
        h("thead", {}, h("tr", {}, ["s_when", "s_table", "ruleset", "total", "place", "s_outcome", "replay"].map((k) =>
          h("th", { scope: "col", class: k === "s_table" ? "c-table" : k === "s_when" ? "c-when" : null }, t(k))))),
        h("tbody", {}, p.recent.map((g) => h("tr", { "data-table": g.table_id, class: `o-${g.left ? "left" : g.outcome}` },
          h("td", { class: "c-when" }, dateText(g.finished_at)), h("td", { class: "c-table" }, g.table_id),
          h("td", {}, playsText(g.ruleset, g.length)), h("td", { class: "num" }, num(g.total)), h("td", { class: "num" }, g.place), h("td", {}, outcomeText(g)),
          h("td", {}, h("a", { class: "button replay", href: `#/replay/${g.table_id}` }, t("replay"))))))))
        : h("p", { class: "muted" }, t("s_no_games")));
    this.root.setAttribute("aria-busy", "false");
    if (me && !mine && !p.deleted) this.muteButton(muteBox, p).catch(() => {});
  }

  /** Mute or unmute this player's chat (PUT /api/me/mutes takes the whole list). */
  async muteButton(box, p) {
    const { muted } = await api("GET", "/api/me/mutes");
    const ids = muted.map((m) => m.id);
    const on = ids.includes(p.id);
    fill(box,
      h("button", { type: "button", id: "profile-mute", "aria-pressed": on ? "true" : "false", onclick: async () => {
        const want = on ? ids.filter((x) => x !== p.id) : [...ids, p.id];
        try { await api("PUT", "/api/me/mutes", { muted: want }); } catch { /* shown as it was */ }
        this.muteButton(box, p).catch(() => {});
      } }, on ? t("s_unmute") : t("s_mute")),
      on ? h("span", { class: "muted" }, t("s_muted_note")) : null);
  }

  destroy() {}
}
