// Leaderboards, #/leaderboard/RULESET[/winrate|level[/PAGE]], from GET /api/leaderboards/RULESET?by&limit&offset:
// the last 30 days of a ruleset ranked by win rate (at least 15 games) or by level points; paginated; every
// name links to the player's profile. No sign-in needed. The page is in the address, so Back works.
import { h, api, session } from "./common.js";
import { t } from "./i18n.js";
import { rulesets as rulesetList, rulesetName } from "./rulesets.js";
import { playerLink, fill, num } from "./lobbyfeed.js";

/** Rows per page; a test setting `?rows=N` in the address (like `?pause=`) makes pages shorter. */
function pageSize() {
  const q = new URLSearchParams(location.search).get("rows");
  return q !== null && /^\d+$/.test(q) && Number(q) >= 1 && Number(q) <= 100 ? Number(q) : 20;
}

const href = (ruleset, by, page) => `#/leaderboard/${ruleset}/${by}${page > 1 ? `/${page}` : ""}`;

export class LeaderboardPage {
  constructor(main, ruleset, by, page) {
    this.ruleset = ruleset;
    this.by = by === "level" ? "level" : "winrate";
    this.page = Math.max(1, page || 1);
    this.root = h("section", { class: "social-page leaderboard", id: "leaderboard", "data-ruleset": ruleset || "", "data-by": this.by,
      "data-page": this.page, "aria-busy": "true" });
    main.append(this.root);
    this.load();
  }

  async load() {
    const size = pageSize();
    const { by, page } = this;
    let rulesets = [];
    let board;
    try {
      rulesets = await rulesetList();
      // #/leaderboard alone: the first ruleset the server lists (its default).
      if (!this.ruleset) { this.ruleset = rulesets[0].name; this.root.dataset.ruleset = this.ruleset; }
      board = await api("GET", `/api/leaderboards/${encodeURIComponent(this.ruleset)}?by=${by}&limit=${size}&offset=${(page - 1) * size}`);
    } catch (e) {
      fill(this.root, h("h1", {}, t("s_leaderboards")),
        h("p", { class: "error", role: "alert" }, t("error", { m: e.message })),
        rulesets.length ? h("p", {}, h("a", { href: href(rulesets[0].name, "winrate", 1) }, rulesetName(rulesets[0].name))) : null);
      this.root.setAttribute("aria-busy", "false");
      return;
    }
    if (!this.root.isConnected) return;
    const ruleset = this.ruleset;
    const me = session();
    const pages = Math.max(1, Math.ceil(board.total / size));
    const tab = (label, target, on, id) => h("a", { href: target, id, class: "tab", "aria-current": on ? "page" : null }, label);
    const go = (p) => { location.hash = href(ruleset, by, p); };
    fill(this.root, 
      h("h1", {}, t("s_lb_title", { r: rulesetName(ruleset) })),
      h("nav", { class: "tabs", id: "lb-rulesets", "aria-label": t("ruleset") },
        rulesets.map((r) => tab(rulesetName(r.name), href(r.name, by, 1), r.name === ruleset, `lb-rs-${r.name}`))),
      h("nav", { class: "tabs", id: "lb-orders", "aria-label": t("s_order") },
        tab(t("s_by_winrate"), href(ruleset, "winrate", 1), by === "winrate", "lb-winrate"),
        tab(t("s_by_level"), href(ruleset, "level", 1), by === "level", "lb-level")),
      h("p", { class: "muted", id: "lb-note" }, by === "winrate"
        ? t("s_lb_winrate_note", { d: board.days, m: board.min_games }) : t("s_lb_level_note", { d: board.days })),
      board.entries.length
        ? h("div", { class: "scroll-x" }, h("table", { class: "social-table", id: "lb-table" },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, t("s_rank")), h("th", { scope: "col" }, t("player")), h("th", { scope: "col" }, t("games")),
            h("th", { scope: "col" }, t("wins")), h("th", { scope: "col" }, t("s_win_rate")), h("th", { scope: "col" }, t("s_by_level")))),
          h("tbody", {}, board.entries.map((e) => h("tr", { "data-player": e.account_id, "data-rank": e.rank,
            class: me && me.account.id === e.account_id ? "me" : null },
            h("td", { class: "num" }, e.rank), h("td", {}, playerLink(e.name, e.account_id)), h("td", { class: "num" }, e.games),
            h("td", { class: "num" }, e.wins), h("td", { class: "num" }, num(`${(e.win_rate * 100).toFixed(1)}%`)),
            h("td", { class: "num" }, e.level_points))))))
        : h("p", { class: "muted", id: "lb-empty" }, t("s_lb_empty")),
      h("div", { class: "row pager" },
        h("button", { type: "button", id: "lb-prev", disabled: page <= 1, onclick: () => go(page - 1) }, t("s_prev")),
        h("span", { id: "lb-page" }, t("s_page", { p: page, n: pages })),
        h("button", { type: "button", id: "lb-next", disabled: page >= pages, onclick: () => go(page + 1) }, t("s_next")),
        h("span", { class: "muted" }, t("s_ranked", { n: board.total }))));
    this.root.setAttribute("aria-busy", "false");
  }

  destroy() {}
}
