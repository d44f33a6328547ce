// The account page, #/account (the header's link on your name): the daily coins, display name, password,
// muted players, signing out of every session, and deleting the account. Guests see what applies to them
// (name, mutes, sessions, delete); accounts see everything. Every name is text.
import { h, api, store, session, confirmDialog, ApiError } from "./common.js";
import { t } from "./i18n.js";
import { playerLink, toast, fill } from "./lobbyfeed.js";
import { dateText } from "./profile.js";

function note(id) { return h("p", { class: "note", id, role: "status" }); }
function fail(el, e) { el.className = "note error"; el.textContent = t("error", { m: e.message }); }
/** A new attempt: the last one's answer goes (a stale "That name is taken." stayed under a new try). */
function clear(el) { el.className = "note"; el.textContent = ""; }
function ok(el, text) { el.className = "note ok"; el.textContent = text; }

export class AccountPage {
  /** `rerender()` redraws the whole app (header and page) after the session changes. */
  constructor(main, rerender) {
    this.rerender = rerender;
    this.root = h("section", { class: "social-page account", id: "account", "aria-busy": "true" });
    main.append(this.root);
    this.load();
  }

  /** Signed out (every session, or the account is gone): back to the sign-in page with a note. */
  signedOut(text) {
    store.del("session");
    store.del("table");
    toast(text, { id: "account", ms: 10000 });
    if (location.hash !== "#/") location.hash = "#/"; else this.rerender();
  }

  async load() {
    let me;
    try { me = await api("GET", "/api/me"); } catch (e) {
      if (e instanceof ApiError && e.status === 401) { this.rerender(); return; }
      fill(this.root, h("p", { class: "error", role: "alert" }, t("error", { m: e.message })));
      return;
    }
    if (!this.root.isConnected) return;
    this.me = me;
    fill(this.root,
      h("h1", {}, t("s_account_title")),
      h("p", {}, playerLink(me.name, me.id, { id: "account-name" }), me.guest ? ` (${t("guest")})` : "",
        " · ", h("a", { href: `#/player/${me.id}`, id: "account-profile" }, t("s_profile"))),
      me.guest ? h("p", { class: "muted", id: "guest-note" }, t("s_guest_note")) : null,
      h("div", { class: "panels" }, this.grantPanel(me), this.namePanel(me), me.guest ? null : this.passwordPanel(),
        this.mutesPanel(), this.sessionsPanel(), this.deletePanel(me)));
    this.root.setAttribute("aria-busy", "false");
    this.loadMutes().catch(() => {});
  }

  grantPanel(me) {
    if (me.guest) return null;
    const out = note("grant-note");
    const balance = h("strong", { id: "account-balance" }, t("coins", { n: me.balance }));
    const btn = h("button", { type: "button", class: "primary", id: "grant-btn", onclick: async () => {
      btn.disabled = true;
      try {
        const g = await api("POST", "/api/me/daily-grant");
        balance.textContent = t("coins", { n: g.balance });
        this.balance = g.balance;
        if (this.deleteList) this.deleteList.replaceChildren(...this.deleteWhat().map((x) => h("li", {}, x)));
        if (g.granted > 0) ok(out, t("s_grant_got", { coins: t("coins", { n: g.granted }), b: g.balance }));
        else {
          // Nothing granted: today's grant is in the ledger already, or the wallet is full.
          let already = true;
          try {
            const rows = await api("GET", "/api/me/ledger?limit=100");
            already = rows.some((r) => r.key === `daily:${me.id}:${g.day}`);
          } catch { /* say the likelier */ }
          ok(out, already ? t("s_grant_already", { b: g.balance, at: dateText(g.next_at) }) : t("s_grant_full", { b: g.balance }));
          out.dataset.already = already ? "1" : "0";
        }
      } catch (e) { fail(out, e); } finally { btn.disabled = false; }
    } }, t("s_grant_btn"));
    return h("section", { class: "panel", id: "grant-panel" }, h("h2", {}, t("s_grant")),
      h("p", {}, t("wallet"), ": ", balance), h("p", { class: "muted" }, t("s_grant_text")), btn, out);
  }

  namePanel(me) {
    const out = note("name-note");
    const input = h("input", { id: "new-name", name: "new-name", value: me.name, maxlength: 32, required: true, autocomplete: "nickname" });
    const form = h("form", { class: "panel", id: "name-form" }, h("h2", {}, t("s_name")),
      h("label", { for: "new-name" }, t("name")), input,
      h("button", { type: "submit", id: "name-btn" }, t("s_name_btn")), out);
    input.addEventListener("input", () => clear(out));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      clear(out);
      try {
        const acc = await api("PUT", "/api/me/name", { name: input.value.trim() });
        const s = session();
        if (s) store.set("session", { ...s, account: { ...s.account, name: acc.name } });
        ok(out, t("s_name_done", { name: acc.name }));
        const link = document.getElementById("account-link");
        if (link) link.firstChild.textContent = acc.name;
        const mine = document.getElementById("account-name");
        if (mine) mine.textContent = acc.name;
      } catch (ex) { fail(out, ex.status === 409 ? new Error(t("s_name_taken")) : ex); }
    });
    return form;
  }

  passwordPanel() {
    const out = note("password-note");
    const old = h("input", { id: "old-password", type: "password", autocomplete: "current-password", required: true });
    const neu = h("input", { id: "new-password", type: "password", autocomplete: "new-password", minlength: 8, required: true });
    const form = h("form", { class: "panel", id: "password-form" }, h("h2", {}, t("s_pw")),
      h("label", { for: "old-password" }, t("s_pw_old")), old,
      h("label", { for: "new-password" }, t("s_pw_new")), neu,
      h("button", { type: "submit", id: "password-btn" }, t("s_pw_btn")), out);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      clear(out);
      try {
        await api("PUT", "/api/me/password", { old_password: old.value, new_password: neu.value });
        old.value = ""; neu.value = "";
        ok(out, t("s_pw_done"));
      } catch (ex) { fail(out, ex.status === 403 ? new Error(t("s_pw_wrong")) : ex); }
    });
    return form;
  }

  mutesPanel() {
    this.mutesList = h("ul", { id: "mutes-list", class: "mutes" });
    this.mutesNone = h("p", { class: "muted", id: "mutes-none" }, t("s_mutes_none"));
    return h("section", { class: "panel", id: "mutes-panel" }, h("h2", {}, t("s_mutes")),
      h("p", { class: "muted" }, t("s_mutes_text")), this.mutesList, this.mutesNone);
  }

  async loadMutes(data = null) {
    const { muted } = data || await api("GET", "/api/me/mutes");
    this.mutesNone.hidden = muted.length > 0;
    this.mutesList.replaceChildren(...muted.map((m) => h("li", { "data-player": m.id },
      playerLink(m.name, m.id), " ",
      h("button", { type: "button", class: "unmute", onclick: async () => {
        try {
          await this.loadMutes(await api("PUT", "/api/me/mutes", { muted: muted.map((x) => x.id).filter((x) => x !== m.id) }));
        } catch (e) { toast(t("error", { m: e.message })); }
      } }, t("s_unmute")))));
  }

  sessionsPanel() {
    const out = note("sessions-note");
    return h("section", { class: "panel", id: "sessions-panel" }, h("h2", {}, t("s_sessions")),
      h("p", { class: "muted" }, t("s_signout_all_text")),
      h("button", { type: "button", id: "signout-all-btn", onclick: async () => {
        const yes = await confirmDialog({ id: "signout-all-dialog", title: t("s_signout_all_q"), text: t("s_signout_all_text"),
          ok: t("s_signout_all"), cancel: t("d_cancel") });
        if (!yes) return;
        try {
          await api("DELETE", "/api/me/sessions");
          this.signedOut(t("s_signout_all_done"));
        } catch (e) { fail(out, e); }
      } }, t("s_signout_all")), out);
  }

  deletePanel(me) {
    const out = note("delete-note");
    const pw = me.guest ? null : h("input", { id: "delete-password", type: "password", autocomplete: "current-password" });
    this.balance = me.balance;
    this.deleteList = h("ul", {}, this.deleteWhat().map((x) => h("li", {}, x)));
    return h("section", { class: "panel danger", id: "delete-panel" }, h("h2", {}, t("s_delete")), this.deleteList,
      pw ? [h("label", { for: "delete-password" }, t("s_delete_pw")), pw] : null,
      h("button", { type: "button", class: "danger", id: "delete-btn", onclick: async () => {
        out.textContent = "";
        if (pw && !pw.value) { fail(out, new Error(t("s_delete_pw_needed"))); pw.focus(); return; }
        const yes = await confirmDialog({ id: "delete-dialog", title: t("s_delete_q"), text: this.deleteWhat(),
          ok: t("s_delete_btn"), cancel: t("d_cancel") });
        if (!yes) return;
        try {
          await api("DELETE", "/api/me", pw ? { password: pw.value } : {});
          this.signedOut(t("s_delete_done"));
        } catch (e) { fail(out, e.status === 403 ? new Error(t("s_pw_wrong")) : e); }
      } }, t("s_delete_btn")), out);
  }

  /** What deleting does, in the confirm dialog and on the page (a guest has no coins to lose). */
  deleteWhat() {
    return [t("s_delete_games"), t("s_delete_name"), this.me.guest ? null : t("s_delete_coins", { coins: t("coins_obj", { n: this.balance }) }),
      t("s_delete_final")].filter(Boolean);
  }

  destroy() {}
}
