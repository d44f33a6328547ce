// The single page: header, router (#/, #/table/ID, #/replay/ID, #/calc, #/rules, #/player/ID, #/leaderboard,
// #/account, #/competition/ID), sign-in, lobby, settings.
import { h, api, store, session, settings, saveSettings, ApiError } from "./common.js";
import { t, setLang, getLang, levelName } from "./i18n.js";
import { serverText } from "./errors.js";
import { TablePage } from "./table.js";
import { ReplayPage } from "./replay.js";
import { CalcPage } from "./calc.js";
import { RulesPage } from "./rules.js";
import { LobbyFeed, LiveTables, quickPlayPanel, rematchToast, seatsLine, rulesLine, playerLink, tableTitle } from "./lobbyfeed.js";
import { ProfilePage } from "./profile.js";
import { LeaderboardPage } from "./leaderboard.js";
import { AccountPage } from "./account.js";
import { CompetitionPage, competitionsPanel } from "./competitions.js";
import { rulesets as rulesetList, rulesetOptions, lengthOptions, playsText } from "./rulesets.js";

const main = document.getElementById("main");
let current = null; // the page object with a destroy()

function applySettings() {
  const s = settings();
  setLang(s.lang);
  document.body.classList.toggle("four-colour", !!s.fourColour);
  document.title = t("app");
}

function header() {
  const s = session();
  const nav = h("nav", { class: "topbar" },
    h("a", { href: "#/", class: "brand" }, "♠ ", t("app")),
    // The Lobby link works while seated: it says "show me the lobby", not "take me back to my table".
    h("a", { href: "#/", id: "lobby-link", onclick: () => sessionStorage.setItem("est.lobby", "1") }, t("lobby")),
    h("a", { href: "#/calc" }, t("calculator")),
    h("a", { href: "#/leaderboard", id: "leaderboard-link" }, t("s_leaderboards")),
    h("span", { class: "grow" }),
    h("button", { type: "button", class: "link", id: "lang-toggle", "aria-label": t("language"),
      onclick: () => { saveSettings({ lang: getLang() === "ar" ? "en" : "ar" }); relabel(); } },
      getLang() === "ar" ? "English" : "العربية"),
    h("button", { type: "button", class: "link", id: "settings-btn", onclick: openSettings }, "⚙ ", t("settings")),
    s ? h("a", { href: "#/account", class: "who", id: "account-link", title: t("s_account") }, s.account.name,
      s.account.guest ? ` (${t("guest")})` : "") : null,
    s ? h("button", { type: "button", class: "link", onclick: signOut }, t("sign_out")) : null);
  return nav;
}

async function signOut() {
  try { await api("DELETE", "/api/sessions"); } catch { /* gone already */ }
  store.del("session");
  store.del("table");
  location.hash = "#/";
  rerender();
}

export function openSettings() {
  const s = settings();
  const dlg = h("dialog", { class: "settings", id: "settings-dialog" });
  const lang = h("select", { id: "set-lang", onchange: (e) => { saveSettings({ lang: e.target.value }); dlg.close(); relabel(); } },
    h("option", { value: "en", selected: s.lang === "en" }, "English"),
    h("option", { value: "ar", selected: s.lang === "ar" }, "العربية"));
  const motion = h("select", { id: "set-motion", onchange: (e) => saveSettings({ motion: e.target.value }) },
    h("option", { value: "auto", selected: s.motion === "auto" }, t("motion_auto")),
    h("option", { value: "on", selected: s.motion === "on" }, t("on")),
    h("option", { value: "off", selected: s.motion === "off" }, t("off")));
  const four = h("input", { type: "checkbox", id: "set-four", checked: !!s.fourColour,
    onchange: (e) => { saveSettings({ fourColour: e.target.checked }); applySettings(); } });
  const snd = h("input", { type: "checkbox", id: "set-sound", checked: !!s.sound,
    onchange: (e) => saveSettings({ sound: e.target.checked }) });
  const pause = h("input", { type: "number", id: "set-pause", min: 0, max: 5000, step: 100, value: s.pause,
    onchange: (e) => saveSettings({ pause: Math.max(0, Math.min(5000, Number(e.target.value) || 0)) }) });
  dlg.append(h("h2", {}, t("settings")),
    h("label", {}, t("language"), " ", lang),
    h("label", {}, t("reduce_motion"), " ", motion),
    h("label", {}, four, " ", t("four_colour")),
    h("label", {}, t("trick_pause"), " ", pause),
    h("label", {}, snd, " ", t("sound")),
    h("p", { class: "muted" }, t("keys_help")),
    h("button", { type: "button", onclick: () => dlg.close() }, t("close")));
  dlg.addEventListener("close", () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();
}

/** A new language: a live table redraws in place (no reconnect, open dialogs kept); other pages reload. */
function relabel() {
  if (current && current.relabel) {
    applySettings();
    document.getElementById("top").replaceChildren(header());
    current.relabel();
  } else rerender();
}

function rerender() {
  applySettings();
  route();
}

async function route() {
  if (current && current.destroy) current.destroy();
  current = null;
  main.replaceChildren();
  const top = document.getElementById("top");
  top.replaceChildren(header());
  const hash = location.hash || "#/";
  let m;
  if ((m = /^#\/calc/.exec(hash))) { current = new CalcPage(main); return; }
  if ((m = /^#\/rules\/?(\w*)(\/partners)?/.exec(hash))) { current = new RulesPage(main, m[1] || "koutchina", !!m[2]); return; }
  if ((m = /^#\/replay\/(\d+)/.exec(hash))) { current = new ReplayPage(main, Number(m[1])); return; }
  if ((m = /^#\/player\/(\d+)/.exec(hash))) { current = new ProfilePage(main, Number(m[1])); return; }
  if ((m = /^#\/leaderboard(?:\/(\w+))?(?:\/(winrate|level))?(?:\/(\d+))?/.exec(hash))) {
    current = new LeaderboardPage(main, m[1] || null, m[2] || "winrate", Number(m[3] || 1));
    return;
  }
  // An invite link: keep its code for this table (the hash never reaches the server's logs), then the table.
  // Signed out, the sign-in page says so first; signed in, the invited person is seated, then the table.
  if ((m = /^#\/join\/(\d+)\/([\w-]{1,64})$/.exec(hash))) {
    const id = Number(m[1]);
    const code = decodeURIComponent(m[2]);
    store.set(`invite.${id}`, code);
    if (!session()) { signInPage(id); return; }
    const page = { destroy() { this.gone = true; } };
    current = page;
    takeInvite(id, code).finally(() => { if (!page.gone) location.replace(`#/table/${id}`); });
    return;
  }
  if (!session()) { signInPage(); return; }
  if ((m = /^#\/table\/(\d+)/.exec(hash))) { current = new TablePage(main, Number(m[1])); return; }
  if ((m = /^#\/competition\/(\d+)/.exec(hash))) { current = new CompetitionPage(main, Number(m[1])); return; }
  if (/^#\/account/.test(hash)) { current = new AccountPage(main, rerender); return; }
  // Back to the table after a reload or a drop: the stored table, while its game is on.
  const last = store.get("table");
  if (last && last.id && hash === "#/" && !last.done && !sessionStorage.getItem("est.lobby")) {
    location.hash = `#/table/${last.id}`;
    return;
  }
  lobbyPage();
}

function errorBox() { return h("p", { class: "error", role: "alert" }); }

/** An invite link's seat: taken for the person who followed it, unless it costs a stake (that is their own
 *  click, "Sit here (stake N)", at the table) or they are seated there already. */
async function takeInvite(id, code) {
  try {
    const tb = await api("GET", `/api/tables/${id}`, undefined, { "X-Invite-Code": code });
    const me = session();
    if (!me || tb.status !== "open" || (tb.stake > 0 && !me.account.guest)) return;
    if (tb.seats.some((s) => s.account_id === me.account.id && !s.left)) return;
    await api("POST", `/api/tables/${id}/join`, { seat: null, stake: false, invite: code });
  } catch { /* full, started, gone, seated elsewhere: the table's page says what it is */ }
}

/** `invitedTo`: an invite link's table, said before signing in (and taken after it). */
function signInPage(invitedTo = null) {
  const err = errorBox();
  const name = h("input", { id: "name", name: "name", autocomplete: "username", required: true, maxlength: 32 });
  const pw = h("input", { id: "password", type: "password", autocomplete: "current-password", minlength: 8 });
  const done = (body) => { store.set("session", { token: body.token, account: body.account }); rerender(); };
  const go = async (path, withPw) => {
    err.textContent = "";
    try {
      const body = withPw ? { name: name.value.trim(), password: pw.value } : { name: name.value.trim() || "Guest" };
      done(await api("POST", path, body));
    } catch (e) { err.textContent = t("error", { m: e.message }); }
  };
  main.append(h("section", { class: "card-panel signin" },
    h("h1", {}, t("welcome_title")),
    invitedTo !== null ? h("p", { class: "invite-note", id: "invite-note", role: "status" }, t("invited_signin", { n: invitedTo })) : null,
    h("p", {}, t("welcome_text")),
    h("label", { for: "name" }, t("name")), name,
    h("label", { for: "password" }, t("password")), pw,
    h("div", { class: "row" },
      h("button", { type: "button", id: "guest-btn", class: "primary", onclick: () => go("/api/guests", false) }, t("play_guest")),
      h("button", { type: "button", id: "signin-btn", onclick: () => go("/api/sessions", true) }, t("sign_in")),
      h("button", { type: "button", id: "register-btn", onclick: () => go("/api/accounts", true) }, t("create_account"))),
    err));
  name.focus();
}

async function lobbyPage() {
  sessionStorage.removeItem("est.lobby");
  const me = session();
  const err = errorBox();
  const wallet = h("div", { class: "wallet" });
  const lists = h("div", { class: "lists" });
  const form = h("form", { class: "create", id: "create-form" });
  const side = h("div", { class: "side" }, wallet, form, err);
  main.append(h("section", { class: "lobby" }, side, lists));

  // My account, balance and stats.
  try {
    const acc = await api("GET", "/api/me");
    const stats = await api("GET", `/api/players/${acc.id}/stats`);
    wallet.append(h("h2", {}, playerLink(acc.name, acc.id, { id: "my-profile-link" })),
      acc.guest ? h("p", { class: "muted" }, t("guest")) : h("p", { id: "balance" }, t("wallet"), ": ", t("coins", { n: acc.balance })),
      h("dl", { class: "stats" },
        h("dt", {}, t("games")), h("dd", {}, stats.games), h("dt", {}, t("wins")), h("dd", {}, stats.wins),
        h("dt", {}, t("avg")), h("dd", {}, stats.average_score == null ? "–" : stats.average_score.toFixed(1)), // one decimal, like the hint's expected scores
        h("dt", {}, t("make_rate")), h("dd", {}, stats.make_rate === null ? "–" : `${Math.round(stats.make_rate * 100)}%`)));
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) { rerender(); return; }
    err.textContent = t("error", { m: e.message });
  }

  // Create a table.
  const [rulesets, bots, limits] = await Promise.all([rulesetList(), api("GET", "/api/bots"),
    api("GET", "/api/table-limits").catch(() => ({ min_turn_seconds: 0 }))]);
  const rs = h("select", { id: "ruleset", name: "ruleset" }, rulesetOptions(rulesets));
  const len = h("select", { id: "length", name: "length" });
  const fillLengths = () => {
    const r = rulesets.find((x) => x.name === rs.value);
    len.replaceChildren(...lengthOptions(r));
  };
  rs.addEventListener("change", fillLengths);
  fillLengths();
  const stake = h("input", { id: "stake", type: "number", min: 0, value: 0, disabled: me.account.guest });
  const nbots = h("select", { id: "bots" }, [0, 1, 2, 3].map((n) => h("option", { value: n, selected: n === 3 }, n)));
  // strong by default: a newcomer should meet bots that play well; the last choice is remembered.
  const savedLevel = store.get("botLevel", "strong");
  const level = h("select", { id: "bot-level", onchange: (e) => store.set("botLevel", e.target.value) },
    bots.levels.map((l) => h("option", { value: l, selected: l === (bots.levels.includes(savedLevel) ? savedLevel : "strong") }, levelName(l))));
  const stakeNote = h("p", { class: "muted stake-note", id: "create-stake-note" });
  const noteStake = () => {
    const n = Number(stake.value) || 0;
    stakeNote.textContent = n > 0 && !me.account.guest ? t("create_stakes", { coins: t("coins_obj", { n }) }) : "";
  };
  stake.addEventListener("input", noteStake);
  const clock = h("input", { id: "turn-seconds", type: "number", min: 0, max: 3600, value: 60, "aria-describedby": "clock-note" });
  const least = limits.min_turn_seconds;
  const clockNote = least > 1 ? h("small", { class: "muted", id: "clock-note" }, t("clock_min_note", { n: least })) : null;
  const priv = h("input", { id: "private", type: "checkbox" });
  // A name is optional; the server checks it as it checks a player's name (names.shown), at most 32 characters.
  const tname = h("input", { id: "table-name", name: "table-name", maxlength: 32, autocomplete: "off",
    placeholder: t("table_name_hint") });
  // Partners sit opposite: seats 1+3 against 2+4 (RULES.md, Partnerships); bots take seats 2-4 as usual.
  const partners = h("input", { id: "partners", type: "checkbox" });
  // Element.append writes a null as the text "null": only the notes there are.
  form.append(...[h("h2", {}, t("create_table")),
    h("label", {}, t("table_name"), tname),
    h("label", {}, t("ruleset"), rs), h("label", {}, t("length"), len), h("label", {}, t("stake"), stake), stakeNote,
    h("label", {}, t("bots"), nbots), h("label", {}, t("bot_level"), level), h("label", {}, t("turn_seconds"), clock), clockNote,
    h("label", { class: "inline" }, priv, " ", t("private")),
    h("label", { class: "inline" }, partners, " ", t("partners_opt")),
    h("button", { type: "submit", class: "primary", id: "create-btn" }, t("create"))].filter((x) => x !== null));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    const secs = Number(clock.value) || 0;
    if (secs > 0 && secs < least) { // said here, as the server would say it
      err.textContent = t("error", { m: t("v_field", { field: t("f_turn_seconds"), what: t("v_clock_min", { n: least }) }) });
      clock.focus();
      return;
    }
    try {
      const n = Number(nbots.value);
      const table = await api("POST", "/api/tables", { ruleset: rs.value, length: len.value, stake: Number(stake.value) || 0,
        private: priv.checked, ...(partners.checked ? { partners: true } : {}), bot_seats: [1, 2, 3].slice(0, n), bot_level: level.value,
        turn_seconds: Number(clock.value) || 0, ...(tname.value.trim() ? { name: tname.value.trim() } : {}) });
      if (table.invite_code) store.set(`invite.${table.id}`, table.invite_code);
      await api("POST", `/api/tables/${table.id}/join`, { seat: 0, stake: table.stake > 0 && !me.account.guest });
      location.hash = `#/table/${table.id}`;
    } catch (ex) {
      // The body's "name" is the table's: said as "Table name: ...", not a player's "Name: ...".
      const d = ex.body && Array.isArray(ex.body.detail)
        ? ex.body.detail.map((x) => (x.loc && x.loc[1] === "name" ? { ...x, loc: ["body", "table_name"] } : x)) : null;
      err.textContent = t("error", { m: d ? serverText(null, null, d) : ex.message });
    }
  });

  // Tables: open (join, watch) and playing (watch) live from the lobby socket; mine and finished (replay)
  // fetched, again when the socket comes back after a drop and when a game ends.
  const joinBtn = (tb) => h("button", { type: "button", class: "join", "data-stake": tb.stake, onclick: async () => {
    try {
      await api("POST", `/api/tables/${tb.id}/join`, { seat: null, stake: tb.stake > 0 && !me.account.guest });
      if (tb.botsAt) store.set(`quickplay.${tb.id}`, tb.botsAt); // the table page counts down to the bots
      location.hash = `#/table/${tb.id}`;
    } catch (ex) { err.textContent = t("error", { m: ex.message }); }
  } }, tb.stake > 0 && !me.account.guest ? t("join_stake_btn", { s: tb.stake }) : t("join"));
  const watchBtn = (tb) => h("a", { class: "button watch", href: `#/table/${tb.id}` }, t("watch"));
  const replayBtn = (id) => h("a", { class: "button replay", href: `#/replay/${id}` }, t("replay"));
  if (!main.contains(lists)) return; // the page changed while the lobby was loading
  const live = new LiveTables({ openButtons: (tb) => [joinBtn(tb), " ", watchBtn(tb)], playingButtons: (tb) => [watchBtn(tb)] });
  const liveNote = h("p", { class: "live-note", id: "lobby-live", "data-live": "0" }, t("connecting"));
  const past = h("div", { class: "past" });
  const comps = competitionsPanel(rulesets, bots.levels, err);
  lists.append(liveNote, comps.el, live.open.el, live.playing.el, past);
  side.insertBefore(quickPlayPanel(rulesets, err), form);
  const fillPast = async () => {
    const finished = await api("GET", "/api/tables?status=finished&limit=20");
    let mine = [];
    try { mine = await api("GET", `/api/players/${me.account.id}/games?limit=20`); } catch { /* no games */ }
    const mineIds = new Set(mine.map((g) => g.table_id));
    const others = finished.filter((tb) => !mineIds.has(tb.id));
    past.replaceChildren(
      h("section", { class: "tables", id: "my-games" }, h("h2", {}, t("my_games")),
        mine.length ? h("ul", {}, mine.map((g) => h("li", { "data-table": g.table_id }, t("table_n", { n: g.table_id }), " · ", playsText(g.ruleset, g.length), " · ",
          `${t("total")} ${g.total} · ${t("place")} ${g.place} `, replayBtn(g.table_id)))) : h("p", { class: "muted" }, t("none"))),
      h("section", { class: "tables", id: "finished-tables" }, h("h2", {}, t("finished_tables")),
        others.length ? h("ul", {}, others.map((tb) => h("li", { "data-table": tb.id },
          tableTitle(tb), " ", rulesLine(tb), h("br"), seatsLine(tb), " ", replayBtn(tb.id))))
          : h("p", { class: "muted" }, t("none"))));
  };
  let pastTimer = null;
  const fillPastSoon = () => { clearTimeout(pastTimer); pastTimer = setTimeout(() => fillPast().catch(() => {}), 400); };
  const feed = new LobbyFeed({
    onChange: (removed) => { live.update(feed.tables); if (removed && removed.status === "finished") fillPastSoon(); },
    onStatus: (on) => {
      liveNote.dataset.live = on ? "1" : "0";
      liveNote.textContent = on ? `● ${t("live_updates")}` : t("s_reconnecting");
      liveNote.classList.toggle("off", !on);
    },
    onReconnect: fillPastSoon,
    onMessage: (m) => {
      if (m.type === "rematch") rematchToast(m);
      if (m.type === "competition") comps.changed(m);
      // Your table of a competition's stage is ready: go and sit there.
      if (m.type === "competition_table") location.hash = `#/table/${m.table_id}`;
    },
  });
  const page = { destroy() { feed.close(); live.destroy(); comps.destroy(); clearTimeout(pastTimer); } };
  current = page;
  try { await fillPast(); } catch (ex) { err.textContent = t("error", { m: ex.message }); }
}

window.addEventListener("hashchange", route);
window.addEventListener("est:settings", openSettings);
applySettings();
route();
