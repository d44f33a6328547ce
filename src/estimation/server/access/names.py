"""Player names and passwords: what may be one, and when two names are the same name.

Names follow PRECIS (RFC 8264), through ``precis-i18n``: a name is shown in its Nickname form (RFC 8266:
Unicode NFKC, spaces trimmed and collapsed) and compared in its case-mapped Nickname form, so "ANN" in
fullwidth letters, "ann" and " Ann " are one name. The profile refuses controls, bidi overrides and
invisible characters (zero-width spaces and joiners are default-ignorable code points). Look-alikes are
handled with the Unicode confusables data (``confusable-homoglyphs``, UTS #39): a name that mixes scripts (a
Cyrillic capital A among Latin letters) is refused, and the comparison form folds every other letter that
looks like an ASCII letter or digit to it, so a whole-script look-alike ("ANN" in Greek capitals) is the same
name too.

Two names are also one name when their confusable skeletons are equal (Unicode TR39, UTS #39 section 4:
``skeleton``): "AIice" and "Alice", "0TT0" and "OTTO", "rn" and "m", "MYMIPYN" in Greek capitals and
in Latin ones, Arabic yeh and kaf and their Farsi forms. The prototypes come from the Unicode confusables
data that ``confusable-homoglyphs`` ships (``confusables.txt``, which it stores in both directions: the
prototype of a character is the one entry of a character listed once; see ``_prototypes``). Accounts keep
their skeleton in ``accounts.name_key`` (unique), so a new name or a rename that looks like a registered
one is taken. The system's own labels ("Bot 3", "Bot", "Deleted player", and their look-alikes) are
refused as names.

Passwords are PRECIS OpaqueString (RFC 8265) and are checked with ``zxcvbn``'s strength estimate (score 3,
told the player's name and the site's words), never equal to the name; the estimate looks at the first and
last 32 characters only, because its cost grows fast with length (about 40 ms for 32 characters, a second
for 128).
"""

from __future__ import annotations

import functools
import re
import unicodedata

import precis_i18n
from confusable_homoglyphs import confusables
from zxcvbn import zxcvbn

_SHOWN = precis_i18n.get_profile("NicknameCasePreserved")
_COMPARED = precis_i18n.get_profile("NicknameCaseMapped")
_PASSWORD = precis_i18n.get_profile("OpaqueString")

#: A name's length once normalised (the database's column).
NAME_MAX = 32
#: zxcvbn's score (0-4) a new password needs: 3 is "safely unguessable: moderate protection from offline
#: slow-hash scenario" (at 2, "Summer2024!" and "correcthorse" pass). Logins are throttled
#: and hashed with argon2 on top of it.
MIN_PASSWORD_SCORE = 3
#: The site's own words, which zxcvbn is told about like the player's name: a password built on them is
#: guessed first by anyone who attacks this site.
SITE_WORDS = ("estimation", "estimate", "koutchina", "egyptian", "classic", "partners", "cards", "card",
              "game", "games", "trick", "tricks", "bid", "bids", "dash", "call", "risk", "trump", "spades",
              "hearts", "diamonds", "clubs", "bot", "bots", "player", "lobby", "table", "rematch", "coins")
#: The characters zxcvbn looks at, from each end.
ESTIMATED = 32

_REASONS = {
    "controls": "control characters are not allowed",
    "precis_ignorable_properties": "invisible and direction-changing characters are not allowed",
    "empty": "must not be blank",
    "bidi_rule": "mixes right-to-left and left-to-right text in a way that displays misleadingly",
}


def _why(exc: UnicodeError) -> str:
    reason = str(getattr(exc, "reason", "")).rpartition("/")[2]
    return _REASONS.get(reason, f"has a character that is not allowed in a name ({reason or exc})")


def shown(text: str) -> str:
    """The name as it is stored and shown; ``ValueError`` saying why a name is refused."""
    try:
        name = str(_SHOWN.enforce(text))
    except UnicodeError as exc:
        raise ValueError(_why(exc)) from None
    if len(name) > NAME_MAX:  # NFKC can lengthen a name ("ﷺ" is 18 letters)
        raise ValueError(f"must be at most {NAME_MAX} characters")
    if confusables.is_mixed_script(name, allowed_aliases=["COMMON", "INHERITED"]):
        raise ValueError("mixes letters of different scripts (look-alikes are not allowed)")
    if _reserved(skeleton(name)):
        raise ValueError("is one of the names the game gives (a bot's, a deleted player's)")
    return name


def skeleton(text: str) -> str:
    """The name's confusable skeleton, case aside: equal skeletons are names that look alike (TR39's
    skeleton of the case-folded skeleton, so that "MYMIPYN" in Greek and in Latin capitals meet though
    Greek small letters look like no Latin ones)."""
    return _skeleton(_skeleton(text).casefold())


def _skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character by its prototype, NFD again."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


def _clean(text: str) -> str:
    return text.replace("\u200e", "").replace("\u200f", "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character -> its TR39 prototype, rebuilt from ``confusable-homoglyphs``' data, which lists every line
    of ``confusables.txt`` (source -> prototype) both ways. A prototype is never a source (the data is
    idempotent), so a source is listed with exactly one alike, its prototype; a character listed with
    several alikes is a prototype itself. Two characters listed only with each other are one pair: the
    lower code point stands for both."""
    alikes: dict[str, set[str]] = {}
    for char, entries in confusables.confusables_data.items():
        alikes.setdefault(_clean(char), set()).update(_clean(e["c"]) for e in entries)
    out: dict[str, str] = {}
    for char, found in alikes.items():
        if len(char) != 1 or len(found) != 1:
            continue
        (target,) = found
        if len(target) != 1 or len(alikes.get(target, ())) > 1:
            out[char] = target
        elif alikes.get(target) == {char}:
            out[char] = out[target] = min(char, target)
    return out


@functools.cache
def _reserved_forms() -> tuple[str, str, frozenset[str]]:
    digits = frozenset("".join(skeleton(d) for d in "0123456789"))
    return skeleton("Deleted player"), skeleton("Bot"), digits


def _reserved(skel: str) -> bool:
    """Whether a skeleton is one of the system's labels: "Deleted player", "Bot", "Bot N"."""
    deleted, bot, digits = _reserved_forms()
    squeezed = re.sub(r"\s+", " ", skel).strip()
    if squeezed == deleted:
        return True
    if not squeezed.startswith(bot):
        return False
    rest = squeezed[len(bot):].replace(" ", "")
    return all(c in digits for c in rest)


def key(text: str) -> str:
    """The form two names are compared in: equal keys are one name (for sign-in and for uniqueness)."""
    try:
        folded = "".join(_fold(c) for c in str(_SHOWN.enforce(text)))
        return str(_COMPARED.enforce(folded))
    except UnicodeError as exc:
        raise ValueError(_why(exc)) from None


@functools.cache
def _fold(char: str) -> str:
    """A letter that looks like an ASCII letter or digit, as that one; any other character as itself."""
    if char.isascii():
        return char
    alike = (entry["c"].strip("\u200e\u200f") for entry in confusables.confusables_data.get(char, ()))
    ascii_alike = sorted((not c.isalpha(), c) for c in alike if len(c) == 1 and c.isascii() and c.isalnum())
    return ascii_alike[0][1] if ascii_alike else char


def password(text: str, name: str) -> str:
    """The password to hash (PRECIS OpaqueString), or ``ValueError`` saying why it is refused."""
    try:
        secret = str(_PASSWORD.enforce(text))
    except UnicodeError as exc:
        raise ValueError("control characters are not allowed in a password" if "controls" in str(exc)
                         else "this password cannot be used: " + str(getattr(exc, "reason", exc))) from None
    if not secret.strip():
        raise ValueError("a password must not be only spaces")
    try:
        same = key(secret) == key(name)
    except ValueError:
        same = False
    if same or secret.casefold() == name.casefold():
        raise ValueError("a password must not be your name")
    ends = {secret[:ESTIMATED], secret[-ESTIMATED:]}
    inputs = [name, *re.findall(r"[^\W\d_]+|\d+", name), *SITE_WORDS]  # the name and its words and numbers
    estimates = [zxcvbn(part, user_inputs=inputs, max_length=ESTIMATED) for part in ends]
    best = max(estimates, key=lambda e: int(e["score"]))
    if int(best["score"]) < MIN_PASSWORD_SCORE:
        warning = str(best.get("feedback", {}).get("warning") or "")
        why = f" ({warning.rstrip('.')})" if warning else ""
        raise ValueError(f"this password is too easy to guess{why}: try a few unrelated words")
    return secret


def password_to_check(text: str) -> str | None:
    """A sign-in's password in the form it was hashed in, or None if no password can have that form."""
    try:
        return str(_PASSWORD.enforce(text))
    except UnicodeError:
        return None
