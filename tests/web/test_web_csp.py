"""The browser client runs under the server's Content-Security-Policy (issue 15): a guest signs in, creates a
table with bots, plays a few moves and opens the rules, and the page reports no violation of the policy."""

from __future__ import annotations

from typing import Any

from web_helpers import ACTIONABLE, create_table, open_app, settle, sign_in_guest

RECORD = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""


def test_the_client_runs_under_its_content_security_policy(context: Any, web_server: Any) -> None:
    context.add_init_script(RECORD)
    page = open_app(context, web_server.base)
    policy = page.request.get(web_server.base + "/").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    sign_in_guest(page, "Csp Tester")
    create_table(page, bots=3)
    settle(page)
    for _ in range(3):  # a few moves: estimates, cards, the socket's updates
        page.wait_for_selector(ACTIONABLE, timeout=20_000)
        page.locator(ACTIONABLE).first.click()
        settle(page)
    violations = page.evaluate("window.__csp")
    assert violations == [], violations
    assert page.js_errors == [], page.js_errors
