// The rules pages (#/rules/koutchina, #/rules/egyptian, #/rules/classic), in English and Arabic, for a player at
// the table: how a round goes, how it is scored, and what every marker on the table means. The texts follow
// shared/seeds/, shared/RULES.md and docs/rules.md; they live here, not in i18n.js, because they are long.
// markerTip(key, ruleset) gives the one-line tooltip the table puts on its chips.
import { h } from "./common.js";
import { t, getLang } from "./i18n.js";
import { rulesets, rulesetNow, rulesetName } from "./rulesets.js";

export const RULESETS = ["koutchina", "egyptian", "classic"];
export const MARKERS = ["dealer", "caller", "with", "dashcall", "dash", "risk", "risk2", "risk3", "avoid", "bust",
  "away", "left", "multiplier", "saaydeh"];

// --- the texts ----------------------------------------------------------------------------------------
// A section is a list of blocks: ["p", text], ["h3", text], ["ul" | "ol", items], ["table", head, rows].
// A list item is a text or [bold lead, text]. A text that differs by ruleset is { koutchina, egyptian, classic }.
// Negative numbers use the minus sign (U+2212).

const EN_PLAYERS = "Four players, each playing for themselves: there are no partners. All 52 cards are dealt, 13 " +
  "to each player, Ace high. Every round each player says how many of the 13 tricks they will take (their " +
  "estimate), then all 13 tricks are played. Take exactly your estimate and you score; take more or fewer and " +
  "you lose points.";
// A Partners table (docs/rules.md, Partnerships): the overview's first sentence, and a section of its own.
const EN_PLAYERS_SIDES = "Four players in two sides of two: partners sit opposite (seats 1 and 3 against 2 and 4) " +
  "and win or lose together. All 52 cards are dealt, 13 to each player, Ace high. Every round each player says " +
  "how many of the 13 tricks they will take (their estimate), then all 13 tricks are played. Take exactly your " +
  "estimate and you score; take more or fewer and you lose points.";
const EN_PARTNERS = [
  ["p", "Any ruleset and length can be played by partners, chosen when the table is made (Partners)."],
  ["ul", [
    "Seats 1 and 3 are one side, 2 and 4 the other: partners sit opposite, so play alternates sides.",
    "Every declaration, every limit (two zeros, never 13, Risk) and every player's score is exactly as without " +
      "partners: partners never see each other's hands, and a partner is an opponent for the rules of play.",
    "A side's total is the sum of its two players' totals. The higher side total wins; equal side totals draw. " +
      "Both partners take their side's place.",
    { koutchina: "Stakes: the winning side's stakers share the pot.",
      egyptian: "A leaver ends the match as usual, and the leaver's side cannot win: it is placed 2nd whatever " +
        "its total. Level points go to each player by the side's result: win 30, draw 10, loss 4.",
      classic: "Stakes: the winning side's stakers share the pot." },
  ]],
];
const EN_TRUMPS = "Trumps rank NT (no trump), then ♠, ♥, ♦ and ♣. That order breaks a tie in the auction and " +
  "sets the order of the closing rounds.";
const EN_DEAL = (egyptian) => [["h3", "The deal"], ["ul", [
  egyptian ? "The first dealer is drawn at random; the deal then passes to the next player every round. A round is " +
    "never dealt again." : "The first dealer is drawn at random; the deal then passes to the next player every round. " +
    "A redeal keeps the same dealer.",
  "Play goes counter-clockwise: the next player is the one on your right.",
  egyptian ? "Every Dash, bid, With, pass, declaration and estimate is public the moment it is made."
    : "Every Dash Call, call, pass and estimate is public the moment it is made.",
]]];

// koutchina and classic share every declaration; only the lengths, Risk and the scores differ.
const EN_CALL_ROUND = [
  ["h3", "1. Dash Call"], ["ul", [
    "Starting with the player after the dealer, each player is asked once: Dash Call (a promise to take no " +
    "trick at all) or No.",
    "At most two players may Dash Call; once two have, the others are not asked.",
    "A Dash Caller sits out the auction and the estimates: their estimate is 0.",
  ]],
  ["h3", "2. The auction"], ["ul", [
    "A call is a number of tricks from 4 to 13 and a trump: the lowest is 4♣, the highest 13 NT.",
    "The first player after the dealer who did not Dash Call starts. On your turn, call higher than the standing " +
    "call (more tricks, or the same number with a higher trump) or pass.",
    "A pass is final: you are out of the auction for this deal.",
    "When every other player has passed, the standing call is the Call. Its owner is the Caller, its trump is " +
    "the round's trump and its number is the Caller's estimate.",
  ]],
  ["h3", "Nobody calls: redeal"], ["ul", [
    "If everyone passes without a call, the same dealer deals again, and every declaration of that deal is void " +
    "(Dash Calls too).",
    "After three failed auctions in a row, the fourth deal is played as a fixed NT round (see below).",
    "A redeal never changes the multiplier: a ×2 or ×4 waits for the deal that is played.",
  ]],
  ["h3", "3. The estimates"], ["ul", [
    "Starting with the player after the Caller and skipping Dash Callers, each player estimates once, from 0 up " +
    "to the Call's number, never more. The Caller does not estimate: the Call is their estimate.",
    ["With: ", "an estimate equal to the Call's number. It scores like the Caller."],
    ["Dash: ", "an estimate of 0, an ordinary estimate (not a Dash Call)."],
    ["At most two on zero: ", "Dash Calls and Dashes together."],
    ["Never 13: ", "the last player to estimate may not bring the total of the four estimates (a Dash Call " +
      "counts 0) to exactly 13. So the round is Over (more than 13: not enough tricks for everyone) or Under " +
      "(less than 13: spare tricks must land on someone). Somebody has to miss."],
    ["Risk: ", "the last player to estimate carries the Risk; the further the total lands from 13, the higher it " +
      "is (see Scoring)."],
  ]],
  ["h3", "Fixed rounds and Super Call"], ["ul", [
    "The last five rounds are fixed rounds, the trump set in order: NT, ♠, ♥, ♦, ♣. The fourth deal after three " +
    "failed auctions is a fixed NT round too.",
    "No Dash Call and no auction: starting with the player after the dealer, all four estimate from 0 to 13, so " +
    "the dealer is last. The same limits apply: at most two on zero, never a total of 13.",
    "When all are in, the highest estimate is the Caller (on a tie, whoever estimated first); anyone else on that " +
    "number is With.",
    ["Super Call: ", "with an estimate of 8 or more you may also name a trump: any suit, or NT (even the trump " +
      "already in force). The Super Call with the highest number sets the trump; on an equal number the earlier " +
      "one keeps it. It changes the play, never the scoring, and the Caller still leads, even when someone else " +
      "changed the trump."],
  ]],
  ["h3", "4. Playing the tricks"], ["ul", [
    "The Caller leads the first trick; the winner of each trick leads the next.",
    "Follow the suit led if you can. If you cannot, play any card: a trump or a discard.",
    "The highest trump wins the trick; with no trump in it, the highest card of the suit led. In an NT round " +
    "only the suit led counts.",
    "All 13 tricks are always played, even when every result is already decided.",
  ]],
];

const EN_SAAYDEH = [["h3", "Sa'aydeh"], ["ul", [
  "If all four players miss, it is a Sa'aydeh: nobody scores that round and the next round counts ×2.",
  "A Sa'aydeh in a ×2 round makes the next one ×4, the most it can be.",
  "After any round in which at least one player makes it (scored at its own multiplier), it is back to ×1. " +
  "Redeals do not change it.",
]]];
const EN_WINNER = [["h3", "The winner"], ["p", "After the last round the highest total wins; totals can go below " +
  "zero. Tied players share the place, with no extra round. On a staked table the pot is split by place among " +
  "the players who staked: two stakers 100%, three 70/30, four 60/30/10; the last of them takes nothing."]];
const EN_HEAD = ["", "made", "missed"];

const EN = {
  title: "Rules", rulesetLabel: "Ruleset", onPage: "On this page",
  headings: { overview: "Overview", round: "How a round goes", scoring: "Scoring", markers: "What the table shows",
    partners: "Partners" },
  players: EN_PLAYERS, playersSides: EN_PLAYERS_SIDES, partners: EN_PARTNERS,
  partnersNote: "This table is a Partners table.",
  markersIntro: "The chips and signs beside each player on the table. They remind everyone of the facts; they " +
    "never change what is legal.",
  na: "Not in this ruleset",
  koutchina: {
    overview: [["p", EN_PLAYERS], ["p", EN_TRUMPS], ["ul", [
      ["Micro (the default): ", "5 rounds, all fixed: NT, ♠, ♥, ♦, ♣. No Dash Call, no auction: the quickest game."],
      ["Mini: ", "10 rounds: 5 call rounds, then the 5 fixed rounds (round 6 NT to round 10 ♣)."],
      ["Full: ", "18 rounds: 13 call rounds, then the 5 fixed rounds (round 14 NT to round 18 ♣)."],
    ]]],
    round: [...EN_DEAL(false), ["p", "A call round has three declarations (the Dash Call, the auction, the " +
      "estimates), then the play. A fixed round goes straight to the estimates."], ...EN_CALL_ROUND],
    scoring: [
      ["p", "After the 13th trick, take exactly your estimate and you make it; take more or fewer and you miss. " +
        "Your round score is the sum of these lines, times the round's multiplier:"],
      ["table", EN_HEAD, [
        ["Base: everyone but a Dash Caller", "10 + tricks", "− the difference"],
        ["Caller or With", "+10", "−10"],
        ["The only player to make / to miss", "+10", "−10"],
        ["Risk: the last estimator, per level", "+10", "−10"],
        ["Dash Call, instead of the base", "+25 Over / +33 Under", "−25 Over / −33 Under"],
      ]],
      ["h3", "Risk levels"],
      ["table", ["Away from 13", "Totals", "Risk"], [
        ["1", "12 or 14", "none"],
        ["2–3", "10–11 or 15–16", "Risk, ±10"],
        ["4–5", "8–9 or 17–18", "Double Risk, ±20"],
        ["6 or more", "7 or less, 19 or more", "Triple Risk, ±30"],
      ]],
      ["ul", [
        "There is no flat penalty for a miss: only the difference and these extras.",
        "A Dash Call is made with no trick at all; one trick misses it. It can be the only player to make or to " +
        "miss (±10), never Caller, With or Risk; a made Dash Call counts as a make for that.",
        "A plain Dash (estimate 0) scores like any estimate: 10 made, minus the tricks taken when missed.",
        "The lines stack: a fixed round's Caller who estimated last takes the Caller ten and the Risk tens.",
      ]],
      ...EN_SAAYDEH,
      ["h3", "Examples (×1)"], ["ul", [
        "Caller on 5 takes 5: 10 + 5 + 10 = 25; as the only player to make it, 35. Takes 3: −2 − 10 = −12.",
        "Estimate 3, takes 3: 13. Takes 5: −2. Estimate 0, takes none: 10.",
        "Last estimator on 1, total 15 (Risk): takes 1: 10 + 1 + 10 = 21; takes 2: −1 − 10 = −11.",
        "Dash Call in an Under round: +33 with no trick, −33 with any.",
      ]],
      ...EN_WINNER,
    ],
  },
  classic: {
    overview: [["p", EN_PLAYERS], ["p", EN_TRUMPS],
      ["p", "At the table Classic plays exactly like Koutchina (Dash Call, auction, redeals, estimates, fixed " +
        "rounds, Super Call), with its own Risk levels and its own score table. The source calls the Caller the " +
        "Declarer."],
      ["ul", [["Full (the only length): ", "18 rounds: 13 call rounds, then 5 fixed rounds: 14 NT, 15 ♠, 16 ♥, " +
        "17 ♦, 18 ♣."]]]],
    round: [...EN_DEAL(false), ["p", "A call round has three declarations (the Dash Call, the auction, the " +
      "estimates), then the play. A fixed round goes straight to the estimates."], ...EN_CALL_ROUND],
    scoring: [
      ["p", "Take exactly your estimate and you win: your estimate plus the win value. Miss it and you lose: " +
        "the loss value minus the difference. The values add up:"],
      ["table", ["", "win", "loss"], [
        ["Regular: everyone but a Dash Caller", "+10", "0"],
        ["Caller (Declarer) or With, instead of Regular", "+20", "−10"],
        ["Caller on 8 or more, instead of 20 / −10", "+40", "−20"],
        ["Each Risk level of the last estimator", "+10", "−10"],
        ["Plain Dash (estimate 0) in an Under round", "+10", "−10"],
        ["The only winner / the only loser", "+10", "−10"],
        ["Dash Call: flat, instead of all but only winner / loser", "33", "−23"],
      ]],
      ["h3", "Risk levels"],
      ["table", ["Away from 13", "Totals", "Risk"], [
        ["1", "12 or 14", "none"],
        ["2–3", "10–11 or 15–16", "Risk: +10 / −10"],
        ["4 or more", "9 or less, 17 or more", "Double Risk: +20 / −20"],
      ]],
      ["ul", [
        "So Risk is 20 / −10, Double Risk 30 / −20, With Risk 30 / −20 and With Double Risk 40 / −30. There is " +
        "nothing beyond Double Risk.",
        "A Dash Call is flat: 33 made, −23 missed, however many tricks; no difference, no Risk, no plain-Dash " +
        "ten. It does take the only winner / only loser ten.",
        "Only the Caller takes 40 / −20 on 8 or more (a fixed round's Caller too); a With on 8 or more keeps " +
        "20 / −10.",
        "The plain-Dash ten needs an estimate of 0 (not a Dash Call) and an Under round; it applies in fixed " +
        "rounds too.",
      ]],
      ...EN_SAAYDEH,
      ["h3", "Examples (×1)"], ["ul", [
        "Caller on 5, made: 5 + 20 = 25. Regular 3, made: 13; missed by 1: −1.",
        "With Risk on 4, made: 4 + 30 = 34; missed by 2: −2 − 20 = −22.",
        "Caller on 8, made: 8 + 40 = 48. With on 8, missed by 6: −6 − 10 = −16.",
        "Plain Dash in an Under round, made: 0 + 10 + 10 = 20; in an Over round: 10.",
        "Dash Call: 33 made, −23 missed.",
      ]],
      ...EN_WINNER,
    ],
  },
  egyptian: {
    overview: [["p", EN_PLAYERS], ["p", EN_TRUMPS],
      ["p", "These rules follow the Egyptian Estimation Committee. Every round runs through the same five " +
        "stages: the Dash offer, the auction, the declaration, the estimates and the play. A round is never " +
        "dealt again, and there is no Sa'aydeh multiplier."],
      ["ul", [
        ["Standard, 18 rounds (the default): ", "13 auction rounds, then 5 speed rounds: 14 NT, 15 ♠, 16 ♥, " +
          "17 ♦, 18 ♣."],
        ["Committee, 13 rounds: ", "every round auctioned, no speed round (the Committee's tournament format)."],
        ["Long, 24 rounds: ", "19 auction rounds, then the same 5 speed rounds (20 NT to 24 ♣)."],
      ]]],
    round: [...EN_DEAL(true),
      ["h3", "1. The Dash offer"], ["ul", [
        "Before anyone knows the trump, each player in turn from the player after the dealer is offered the " +
        "Dash: a blind promise to take no trick at all. Take it, or play the round normally.",
        "At most two players may take it; after two Dashes the others are not asked.",
        "A Dash player sits out the auction and does not estimate: their estimate is 0.",
      ]],
      ["h3", "2. The auction"], ["ul", [
        "From the player after the dealer, skipping Dash players, each player in turn does one of these:",
        ["Bid: ", "a number of tricks from 4 to 13 and a trump that beats the standing bid (more tricks, or the " +
          "same number in a higher trump)."],
        ["With: ", "join the standing bid, same number and trump. Any number of players may join a bid, but " +
          "never their own."],
        ["Pass: ", "final; you are out of the auction."],
        "A new, higher bid cancels every With on the old one; those players stay in and may bid, join the new " +
        "bid or pass.",
        "The auction ends when everyone still in is the bidder or With on the standing bid. The bidder is the " +
        "Caller.",
        ["Speed rounds: ", "the trump is fixed (NT, ♠, ♥, ♦, ♣ in order) and every bid names it, so bids compete " +
          "on number alone."],
      ]],
      ["h3", "Nobody bids"], ["ul", [
        "If everyone passes without a single bid, the round is not dealt again: it is played at NT (in a speed " +
        "round's place too).",
        "No Caller and no declaration. Everyone but the Dash players estimates from 0 to 13, starting with the " +
        "dealer (or the first player after them who did not take the Dash) and going round; the last may not " +
        "make 13, and at most two are on zero (Dash players included).",
        "The dealer leads the first trick.",
        "The scoring is plain: 13 + the estimate if made, minus the difference if missed. No Call, With, Risk, " +
        "only-player or Dash points; a Dash player counts as an ordinary 0.",
      ]],
      ["h3", "3. The declaration"], ["ul", [
        "The Caller declares the contract once: confirm it, raise the number (never lower it) or change the " +
        "trump. The declared trump is the round's trump.",
        "In a speed round the trump can change only with a declaration of 8 or more; below 8 the fixed trump " +
        "stays.",
        "A declaration of 8 or more is a Super Call (it scores more, see Scoring).",
        "The With players keep their With whatever the Caller declares.",
      ]],
      ["h3", "4. The estimates"], ["ul", [
        "The Caller's estimate is the declared number. The With players estimate first, then the others, each " +
        "group in turn from the player after the Caller. Dash players do not estimate.",
        "Every estimate is from 0 up to the declared number. A With player who estimates the declared number " +
        "scores as With; any other number is an ordinary estimate.",
        ["Never 13: ", "the last to estimate may not bring the total to exactly 13, so the round is Over (more " +
          "than 13) or Under (less)."],
        ["At most two on zero, ", "Dash players included."],
        ["Risk: ", "the last to estimate may be at Risk (see Scoring)."],
      ]],
      ["h3", "5. Playing the tricks"], ["ul", [
        "The Caller leads the first trick (the dealer when nobody bid); the winner of each trick leads the next.",
        "Follow the suit led if you can; otherwise play anything: there is no obligation to trump, nor to win.",
        "The highest trump wins; with no trump in the trick (or in NT), the highest card of the suit led. A card " +
        "of another suit never wins.",
        "All 13 tricks are played.",
      ]],
    ],
    scoring: [
      ["p", "Take exactly your estimate and you make it: 13 + your estimate. Miss it and you lose the difference. " +
        "The tens stack on top:"],
      ["table", EN_HEAD, [
        ["Base: everyone but a Dash", "13 + estimate", "− the difference"],
        ["Caller, declared below 8", "+10", "−10"],
        ["Super Call: the Caller on 8 or more", "+20", "−20"],
        ["With: their With stood and they estimated the declared number", "+10", "−10"],
        ["The only player to make / to miss", "+10", "−10"],
        ["Risk: the last estimator", "+10", "−10"],
        ["Dash, instead of all of the above", "23 Under / 13 Over", "− tricks, and −10 more Under"],
      ]],
      ["h3", "Risk"], ["ul", [
        "Only the last estimator, in a round with a Caller, and one level only (±10):",
        "at Risk when the total is 11 or less, whatever their own estimate;",
        "or when the total is 15 or more and their own estimate is 2 or more.",
        "Totals 12 and 14 never carry Risk.",
      ]],
      ["ul", [
        "A Super Call made: 41 for eight, 42 for nine, 43 for ten, and so on. Failed: −20 and the difference. With " +
        "players keep ±10 on a Super Call.",
        "A Dash counts when deciding who is the only player to make or to miss, but never takes that ten itself.",
        "A round nobody bid on: 13 + the estimate if made, minus the difference if missed, nothing else.",
        "No Sa'aydeh: a round in which all four miss is scored as it stands; the multiplier is always ×1.",
      ]],
      ["h3", "Examples"], ["ul", [
        "A bid of 4 made: 17; of 6: 19.",
        "Caller on 5 made, with another player making too: 13 + 5 + 10 = 28. A lone Caller one out: " +
        "−1 − 10 − 10 = −21.",
        "Super Call 8 made: 41; 9: 42. Super Call 8 taking 6: −20 − 2 = −22.",
        "Dash with no trick: 23 Under, 13 Over. Dash taking two tricks: −2 Over, −12 Under.",
        "Last estimator on 0, total 11, made: 13 + 0 + 10 = 23. On 1, total 15, missed by 1: −1 (no Risk: their " +
        "estimate is below 2).",
      ]],
      ["h3", "The winner"], ["p", "After the last round the highest total wins; players level at the top draw. A " +
        "player who leaves ends the match: the standings at that moment decide it, and the leaver cannot win. A " +
        "win is worth 30 level points, a draw 10, a loss 4; five wins earn the badge."],
    ],
  },
  // The glossary: name shown beside the chip (when the chip alone does not say it), the text, and the rulesets in
  // which the marker never appears (shown greyed, with why).
  glossary: {
    dealer: { name: "Dealer", text: {
      koutchina: "Deals this round. The player after the dealer speaks first (Dash Call, auction); in a fixed " +
        "round the dealer estimates last. A redeal keeps the same dealer.",
      classic: "Deals this round. The player after the dealer speaks first (Dash Call, auction); in a fixed " +
        "round the dealer estimates last. A redeal keeps the same dealer.",
      egyptian: "Deals this round. The player after the dealer speaks first (Dash offer, auction). When nobody " +
        "bids, the dealer estimates first and leads the first trick." } },
    caller: { text: {
      koutchina: "Won the auction: the Call's number is their estimate, its trump the round's trump, and they " +
        "lead the first trick. In a fixed round, the highest estimate (on a tie, the earliest). ±10.",
      classic: "The source's Declarer: won the auction, or the highest estimate in a fixed round (on a tie, the " +
        "earliest); leads the first trick. +20 / −10, or +40 / −20 on 8 or more.",
      egyptian: "Won the auction and declared the contract: the declared number is their estimate, and they lead " +
        "the first trick. ±10, or ±20 on a Super Call (8 or more)." } },
    with: { text: {
      koutchina: "Estimated exactly the Call's number (in a fixed round, the Caller's number); scores like the " +
        "Caller, ±10.",
      classic: "Estimated exactly the Caller's number; scores +20 / −10 like the Caller (still 20 / −10 on 8 or " +
        "more).",
      egyptian: "Joined the winning bid with With in the auction. Estimates before the others, and scores ±10 " +
        "if they estimate the declared number; otherwise their estimate is ordinary." } },
    dashcall: { na: ["egyptian"], text: {
      koutchina: "Promised before the auction to take no trick at all; sits out the auction and the estimates. " +
        "No trick: +25 in an Over round, +33 Under. Any trick: −25 or −33.",
      classic: "Promised before the auction to take no trick at all; sits out the auction and the estimates. " +
        "Flat: 33 with no trick, −23 with any.",
      egyptian: "Egyptian has no Dash Call: its zero promise is the Dash." } },
    dash: { text: {
      koutchina: "An estimate of 0 made in the estimates, not a Dash Call: 10 with no trick, minus the tricks " +
        "taken otherwise. Shown as the role in the round's breakdown. At most two players on zero.",
      classic: "An estimate of 0, not a Dash Call: 10 with no trick, and 10 more in an Under round (20); " +
        "otherwise minus the tricks taken, and 10 more off in an Under round.",
      egyptian: "Took the Dash offer before the trump was known: promised to take no trick, sits out the auction " +
        "and does not estimate. No trick: 23 Under, 13 Over. Otherwise minus the tricks, and 10 more off Under." } },
    risk: { text: {
      koutchina: "The last estimator, when the total is 2 or 3 away from 13: ±10.",
      classic: "The last estimator, when the total is 2 or 3 away from 13: +10 / −10 on top.",
      egyptian: "The last estimator, when the total is 11 or less, or 15 or more with their own estimate 2 or " +
        "more: ±10." } },
    risk2: { na: ["egyptian"], text: {
      koutchina: "The last estimator, when the total is 4 or 5 away from 13: ±20.",
      classic: "The last estimator, when the total is 4 or more away from 13: +20 / −20 on top.",
      egyptian: "Egyptian Risk has one level only (±10)." } },
    risk3: { na: ["egyptian", "classic"], text: {
      koutchina: "The last estimator, when the total is 6 or more away from 13: ±30.",
      classic: "Classic stops at Double Risk.",
      egyptian: "Egyptian Risk has one level only (±10)." } },
    avoid: { name: "Avoid", text: "Failed to follow that suit once, so holds none of it. A reminder for everyone, " +
      "not a rule; it lasts until the end of the deal." },
    bust: { text: "Has taken more tricks than estimated, so can no longer make it (a zero is bust " +
      "after its first trick)." },
    away: { text: "The player's turn clock ran out: a bot plays each of the seat's turns at once " +
      "until the player acts again or presses \"I'm back\"." },
    left: { text: {
      koutchina: "The player left the table: a bot plays the seat to the end. On a staked table the leaver " +
        "forfeits the stake and is placed last among the stakers.",
      classic: "The player left the table: a bot plays the seat to the end. On a staked table the leaver " +
        "forfeits the stake and is placed last among the stakers.",
      egyptian: "The player left, which ends the match: the standings at that moment decide it, and the leaver " +
        "cannot win." } },
    multiplier: { name: "Multiplier", na: ["egyptian"], text: {
      koutchina: "The round's multiplier: ×1 normally, ×2 after a Sa'aydeh, ×4 after two in a " +
        "row (the most); red above ×1. Every score of the round is multiplied by it.",
      classic: "The round's multiplier: ×1 normally, ×2 after a Sa'aydeh, ×4 after two in a " +
        "row (the most); red above ×1. Every score of the round is multiplied by it.",
      egyptian: "Always ×1: Egyptian has no Sa'aydeh." } },
    saaydeh: { na: ["egyptian"], text: {
      koutchina: "All four missed: nobody scores this round, and the next round counts double (×2, then ×4).",
      classic: "All four missed: nobody scores this round, and the next round counts double (×2, then ×4).",
      egyptian: "Egyptian has no Sa'aydeh: a round all four miss is scored as it stands." } },
    overunder: { name: "Over / Under", text: {
      koutchina: "The total of the four estimates, Over 13 or Under it, never exactly 13. It sets the Dash Call's " +
        "value: 25 Over, 33 Under.",
      classic: "The total of the four estimates, Over 13 or Under it, never exactly 13. Under, a plain Dash " +
        "scores 10 more (or loses 10 more).",
      egyptian: "The total of the four estimates, Over 13 or Under it, never exactly 13. It sets the Dash's " +
        "value: 23 Under, 13 Over." } },
  },
  // The markers that mean the same in every ruleset; the others are each ruleset's own (marker_tips).
  tips: {
    avoid: "Avoid: failed to follow this suit, so holds none of it; a reminder, not a rule.",
    bust: "Bust: took more tricks than estimated; can no longer make it.",
    away: "Away: the turn clock ran out; a bot plays this seat until the player is back.",
    overunder: "Over / Under: the total of the four estimates, never exactly 13.",
  },
};

const AR_PLAYERS = "أربعة لاعبين، كلٌّ يلعب لنفسه: لا شركاء. تُوزَّع الأوراق الاثنتان والخمسون كلها، 13 ورقة " +
  "لكل لاعب، والآص أعلى ورقة. في كل جولة يقول كل لاعب كم أكلة سيأخذ من الأكلات الثلاث عشرة (وهذا توقّعه)، ثم " +
  "تُلعب الأكلات كلها. إن أخذت توقّعك بالضبط كسبت، وإن أخذت أكثر أو أقل خسرت نقاطًا.";
const AR_PLAYERS_SIDES = "أربعة لاعبين في فريقين من اثنين: يجلس الشريكان متقابلين (المقعدان 1 و3 ضد 2 و4) " +
  "ويفوزان أو يخسران معًا. تُوزَّع الأوراق الاثنتان والخمسون كلها، 13 ورقة لكل لاعب، والآص أعلى ورقة. في كل جولة " +
  "يقول كل لاعب كم أكلة سيأخذ من الأكلات الثلاث عشرة (وهذا توقّعه)، ثم تُلعب الأكلات كلها. إن أخذت توقّعك بالضبط " +
  "كسبت، وإن أخذت أكثر أو أقل خسرت نقاطًا.";
const AR_PARTNERS = [
  ["p", "كل القواعد وكل الأطوال يمكن لعبها بالشراكة، ويُختار ذلك عند إنشاء الطاولة (شركاء)."],
  ["ul", [
    "المقعدان 1 و3 فريق، و2 و4 الفريق الآخر: يجلس الشريكان متقابلين، فيتناوب الفريقان على اللعب.",
    "كل إعلان وكل حدّ (صفران على الأكثر، لا 13 أبدًا، المخاطرة) ونقاط كل لاعب كما هي بلا شراكة: لا يرى الشريك " +
      "أوراق شريكه، والشريك خصم في قواعد اللعب.",
    "مجموع الفريق هو مجموع لاعبَيه. يفوز الفريق صاحب المجموع الأعلى، والتساوي تعادل. ويأخذ الشريكان مركز فريقهما.",
    { koutchina: "الرهان: يتقاسم المراهنون من الفريق الفائز الوعاء.",
      egyptian: "من يغادر ينهي المباراة كالعادة، ولا يفوز فريقه: يحلّ ثانيًا مهما كان مجموعه. ونقاط المستوى لكل " +
        "لاعب حسب نتيجة فريقه: الفوز 30، التعادل 10، الخسارة 4.",
      classic: "الرهان: يتقاسم المراهنون من الفريق الفائز الوعاء." },
  ]],
];
const AR_TRUMPS = "ترتيب الحكم من الأعلى: بلا حكم (NT)، ثم ♠ البستوني، ثم ♥ الكُبّة، ثم ♦ الديناري، ثم ♣ " +
  "السباتي. هذا الترتيب يفصل بين مزايدتين بالعدد نفسه، ويحدد ترتيب الجولات الأخيرة.";
const AR_DEAL = (egyptian) => [["h3", "التوزيع"], ["ul", [
  egyptian ? "يُختار أول موزّع بالقرعة، ثم ينتقل التوزيع إلى اللاعب التالي في كل جولة. ولا يُعاد توزيع أي جولة."
    : "يُختار أول موزّع بالقرعة، ثم ينتقل التوزيع إلى اللاعب التالي في كل جولة. وإعادة التوزيع تُبقي الموزّع نفسه.",
  "اللعب يدور عكس عقارب الساعة: اللاعب التالي هو الجالس على يمينك.",
  egyptian ? "كل داش ومزايدة و«مع» وباس وإعلان وتوقّع يعرفه الجميع لحظة قوله."
    : "كل داش كول ومزايدة وباس وتوقّع يعرفه الجميع لحظة قوله.",
]]];

const AR_CALL_ROUND = [
  ["h3", "1. الداش كول"], ["ul", [
    "بدءًا من اللاعب الذي بعد الموزّع، يُسأل كل لاعب مرة واحدة: داش كول (أي يتعهّد ألا يأخذ ولا أكلة) أو لا.",
    "لاعبان على الأكثر يقولان داش كول؛ فإذا قالها اثنان لا يُسأل الباقون.",
    "صاحب الداش كول لا يدخل المزايدة ولا التوقّعات: توقّعه صفر.",
  ]],
  ["h3", "2. المزايدة"], ["ul", [
    "المزايدة (الكول) عدد أكلات من 4 إلى 13 مع حكم: أدناها 4♣ وأعلاها 13 NT.",
    "يبدأ أول لاعب بعد الموزّع لم يقل داش كول. في دورك إما أن تزايد فوق المزايدة القائمة (أكلات أكثر، أو العدد " +
    "نفسه بحكم أعلى) أو تقول باس.",
    "الباس نهائي: تخرج من المزايدة في هذا التوزيع.",
    "حين يقول الباقون كلهم باس، تصير المزايدة القائمة هي الكول: صاحبها هو المزايد، وحكمها حكم الجولة، وعددها " +
    "توقّع المزايد.",
  ]],
  ["h3", "لم يزايد أحد: إعادة التوزيع"], ["ul", [
    "إذا قال الجميع باس بلا أي مزايدة، يوزّع الموزّع نفسه من جديد، وتسقط كل إعلانات ذلك التوزيع (والداش كول أيضًا).",
    "بعد ثلاث مزايدات فاشلة متتالية، يُلعب التوزيع الرابع جولةً ثابتة بلا حكم (انظر أدناه).",
    "إعادة التوزيع لا تغيّر المضاعف: الـ×2 أو الـ×4 ينتظر التوزيع الذي يُلعب فعلًا.",
  ]],
  ["h3", "3. التوقّعات"], ["ul", [
    "بدءًا من اللاعب الذي بعد المزايد، مع تخطّي أصحاب الداش كول، يتوقّع كل لاعب مرة واحدة من 0 إلى عدد الكول، لا " +
    "أكثر. المزايد لا يتوقّع: الكول هو توقّعه.",
    ["مع: ", "توقّع يساوي عدد الكول، ونقاطه مثل نقاط المزايد."],
    ["داش: ", "توقّع صفر، وهو توقّع عادي وليس داش كول."],
    ["اثنان على الصفر على الأكثر: ", "الداش كول والداش معًا."],
    ["ممنوع الـ13: ", "آخر من يتوقّع لا يجوز له أن يجعل مجموع التوقّعات الأربعة (الداش كول يُحسب صفرًا) 13 " +
      "بالضبط. فتكون الجولة «فوق» (أكثر من 13: الأكلات لا تكفي الجميع) أو «تحت» (أقل من 13: أكلات زائدة لا بد " +
      "أن تقع على أحد). لا بد أن يخفق أحدهم."],
    ["المخاطرة (الريسك): ", "يحملها آخر من يتوقّع، وتكبر كلما ابتعد المجموع عن 13 (انظر حساب النقاط)."],
  ]],
  ["h3", "الجولات الثابتة والسوبر كول"], ["ul", [
    "آخر خمس جولات جولاتٌ ثابتة، حكمها محدد بالترتيب: بلا حكم، ♠، ♥، ♦، ♣. والتوزيع الرابع بعد ثلاث مزايدات " +
    "فاشلة جولة ثابتة بلا حكم أيضًا.",
    "لا داش كول ولا مزايدة: بدءًا من اللاعب الذي بعد الموزّع يتوقّع الأربعة من 0 إلى 13، فيكون الموزّع آخرهم. " +
    "والقيدان نفسهما: اثنان على الصفر على الأكثر، وممنوع مجموع 13.",
    "بعد آخر توقّع، صاحب أعلى توقّع هو المزايد (وعند التعادل، من توقّع أولًا)، وكل من توقّع العدد نفسه «مع».",
    ["سوبر كول: ", "إذا توقّعت 8 أو أكثر يمكنك أيضًا أن تختار حكمًا: أي شكل، أو بلا حكم (حتى الحكم الحالي). " +
      "السوبر كول صاحب العدد الأعلى يحدد الحكم، وعند تساوي العدد يبقى للأسبق. السوبر كول يغيّر اللعب لا النقاط، " +
      "ويبقى المزايد هو من يفتح اللعب حتى لو غيّر غيرُه الحكم."],
  ]],
  ["h3", "4. لعب الأكلات"], ["ul", [
    "المزايد يفتح الأكلة الأولى، ومن يأخذ الأكلة يفتح التي بعدها.",
    "لازم تنزل من الشكل المطلوب إن كان معك. وإن لم يكن معك، العب أي ورقة: حكمًا تقطع به، أو ورقة ترميها.",
    "أعلى ورقة حكم تأخذ الأكلة؛ وإن لم يكن فيها حكم، فأعلى ورقة من الشكل المطلوب. وفي جولة بلا حكم لا يُحسب إلا " +
    "الشكل المطلوب.",
    "تُلعب الأكلات الثلاث عشرة كلها دائمًا، حتى لو حُسمت كل النتائج.",
  ]],
];

const AR_SAAYDEH = [["h3", "السعايدة"], ["ul", [
  "إذا أخفق الأربعة فهي سعايدة: لا أحد يسجّل نقاطًا في تلك الجولة، والجولة التالية تُحسب ×2.",
  "سعايدة في جولة ×2 تجعل التالية ×4، وهذا الحد الأقصى.",
  "بعد أي جولة حقّق فيها لاعب واحد على الأقل (وتُحسب بمضاعفها)، يعود المضاعف إلى ×1. وإعادة التوزيع لا تغيّره.",
]]];
const AR_WINNER = [["h3", "الفائز"], ["p", "بعد آخر جولة يفوز صاحب أعلى مجموع، وقد تنزل المجاميع تحت الصفر. " +
  "المتعادلون يتشاركون المركز، بلا جولة إضافية. وعلى طاولة الرهان يُقسم الرهان حسب المراكز بين من راهنوا فقط: " +
  "مراهنان 100%، ثلاثة 70/30، أربعة 60/30/10، والأخير منهم لا يأخذ شيئًا."]];
const AR_HEAD = ["", "إذا حقّق", "إذا أخفق"];

const AR = {
  title: "القواعد", rulesetLabel: "القواعد", onPage: "في هذه الصفحة",
  headings: { overview: "نظرة عامة", round: "كيف تمشي الجولة", scoring: "حساب النقاط", markers: "علامات الطاولة",
    partners: "الشراكة" },
  players: AR_PLAYERS, playersSides: AR_PLAYERS_SIDES, partners: AR_PARTNERS,
  partnersNote: "هذه الطاولة طاولة شركاء.",
  markersIntro: "الشارات والعلامات بجانب كل لاعب على الطاولة. هي تذكير بالوقائع للجميع، ولا تغيّر ما هو مسموح.",
  na: "غير موجود في هذه القواعد",
  koutchina: {
    overview: [["p", AR_PLAYERS], ["p", AR_TRUMPS], ["ul", [
      ["مايكرو (الافتراضي): ", "5 جولات كلها ثابتة: بلا حكم، ♠، ♥، ♦، ♣. لا داش كول ولا مزايدة: أسرع لعبة."],
      ["ميني: ", "10 جولات: 5 جولات مزايدة، ثم الجولات الثابتة الخمس (من الجولة 6 بلا حكم إلى الجولة 10 ♣)."],
      ["فُل: ", "18 جولة: 13 جولة مزايدة، ثم الجولات الثابتة الخمس (من الجولة 14 بلا حكم إلى الجولة 18 ♣)."],
    ]]],
    round: [...AR_DEAL(false), ["p", "جولة المزايدة فيها ثلاثة إعلانات (الداش كول، المزايدة، التوقّعات) ثم " +
      "اللعب. أما الجولة الثابتة فتبدأ بالتوقّعات مباشرة."], ...AR_CALL_ROUND],
    scoring: [
      ["p", "بعد الأكلة الثالثة عشرة: إن أخذت توقّعك بالضبط فقد حقّقته، وإن أخذت أكثر أو أقل فقد أخفقت. نقاطك " +
        "في الجولة مجموع هذه البنود، مضروبًا في مضاعف الجولة:"],
      ["table", AR_HEAD, [
        ["الأساس: الجميع عدا صاحب الداش كول", "10 + الأكلات", "ناقص الفرق"],
        ["المزايد أو «مع»", "+10", "−10"],
        ["الوحيد الذي حقّق / الوحيد الذي أخفق", "+10", "−10"],
        ["المخاطرة: لآخر من يتوقّع، لكل مستوى", "+10", "−10"],
        ["الداش كول، بدل الأساس", "+25 فوق / +33 تحت", "−25 فوق / −33 تحت"],
      ]],
      ["h3", "مستويات المخاطرة"],
      ["table", ["البعد عن 13", "المجموع", "المخاطرة"], [
        ["1", "12 أو 14", "لا شيء"],
        ["2 أو 3", "10 أو 11، 15 أو 16", "مخاطرة (ريسك)، ±10"],
        ["4 أو 5", "8 أو 9، 17 أو 18", "مخاطرة مضاعفة (دبل ريسك)، ±20"],
        ["6 أو أكثر", "7 أو أقل، 19 أو أكثر", "مخاطرة ثلاثية (تريبل ريسك)، ±30"],
      ]],
      ["ul", [
        "لا خصم ثابت على الإخفاق: الفرق وهذه الإضافات فقط.",
        "الداش كول يتحقّق إذا لم يأخذ صاحبه ولا أكلة؛ وأكلة واحدة تكفي لإخفاقه. قد يكون الوحيد الذي حقّق أو " +
        "الوحيد الذي أخفق (±10)، لكنه لا يأخذ نقاط المزايد ولا «مع» ولا المخاطرة؛ والداش كول الناجح يُعدّ تحقيقًا " +
        "في ذلك.",
        "الداش العادي (توقّع صفر) مثل أي توقّع: 10 إن حقّق، وناقص الأكلات التي أخذها إن أخفق.",
        "البنود تتراكم: مزايد الجولة الثابتة إذا كان آخر من توقّع يأخذ عشرة المزايد وعشرات المخاطرة معًا.",
      ]],
      ...AR_SAAYDEH,
      ["h3", "أمثلة (×1)"], ["ul", [
        "مزايد على 5 أخذ 5: 10 + 5 + 10 = 25؛ وإن كان الوحيد الذي حقّق: 35. أخذ 3: −2 − 10 = −12.",
        "توقّع 3 وأخذ 3: 13. أخذ 5: −2. توقّع 0 ولم يأخذ شيئًا: 10.",
        "آخر من توقّع على 1 والمجموع 15 (مخاطرة): أخذ 1: 10 + 1 + 10 = 21؛ أخذ 2: −1 − 10 = −11.",
        "داش كول في جولة «تحت»: +33 بلا أكلات، و−33 بأي أكلة.",
      ]],
      ...AR_WINNER,
    ],
  },
  classic: {
    overview: [["p", AR_PLAYERS], ["p", AR_TRUMPS],
      ["p", "على الطاولة تُلعب الكلاسيكية تمامًا مثل كوتشينة (داش كول، مزايدة، إعادة توزيع، توقّعات، جولات ثابتة، " +
        "سوبر كول)، لكن لها مستويات مخاطرة خاصة وجدول نقاط خاص. المصدر يسمّي المزايد «المُعلِن» (Declarer)."],
      ["ul", [["فُل (الطول الوحيد): ", "18 جولة: 13 جولة مزايدة، ثم 5 جولات ثابتة: 14 بلا حكم، 15 ♠، 16 ♥، " +
        "17 ♦، 18 ♣."]]]],
    round: [...AR_DEAL(false), ["p", "جولة المزايدة فيها ثلاثة إعلانات (الداش كول، المزايدة، التوقّعات) ثم " +
      "اللعب. أما الجولة الثابتة فتبدأ بالتوقّعات مباشرة."], ...AR_CALL_ROUND],
    scoring: [
      ["p", "إن أخذت توقّعك بالضبط ربحت: توقّعك زائد قيمة الربح. وإن أخفقت خسرت: قيمة الخسارة ناقص الفرق. " +
        "والقيم تُجمع:"],
      ["table", ["", "ربح", "خسارة"], [
        ["عادي: الجميع عدا صاحب الداش كول", "+10", "0"],
        ["المزايد (المُعلِن) أو «مع»، بدل العادي", "+20", "−10"],
        ["المزايد على 8 أو أكثر، بدل 20 / −10", "+40", "−20"],
        ["كل مستوى مخاطرة لآخر من يتوقّع", "+10", "−10"],
        ["داش عادي (توقّع صفر) في جولة «تحت»", "+10", "−10"],
        ["الوحيد الذي ربح / الوحيد الذي خسر", "+10", "−10"],
        ["الداش كول: ثابت، بدل كل شيء عدا «الوحيد»", "33", "−23"],
      ]],
      ["h3", "مستويات المخاطرة"],
      ["table", ["البعد عن 13", "المجموع", "المخاطرة"], [
        ["1", "12 أو 14", "لا شيء"],
        ["2 أو 3", "10 أو 11، 15 أو 16", "مخاطرة (ريسك): +10 / −10"],
        ["4 أو أكثر", "9 أو أقل، 17 أو أكثر", "مخاطرة مضاعفة (دبل ريسك): +20 / −20"],
      ]],
      ["ul", [
        "فالمخاطرة 20 / −10، والمخاطرة المضاعفة 30 / −20، و«مع» بمخاطرة 30 / −20، و«مع» بمخاطرة مضاعفة 40 / −30. " +
        "ولا شيء بعد المخاطرة المضاعفة.",
        "الداش كول ثابت: 33 إن نجح و−23 إن أخفق، مهما كان عدد الأكلات؛ بلا فرق ولا مخاطرة ولا عشرة الداش. لكنه " +
        "يأخذ عشرة «الوحيد».",
        "المزايد وحده يأخذ 40 / −20 على 8 أو أكثر (ومزايد الجولة الثابتة كذلك)؛ و«مع» على 8 أو أكثر يبقى 20 / −10.",
        "عشرة الداش تحتاج توقّع صفر (لا داش كول) وجولة «تحت»، وتنطبق في الجولات الثابتة أيضًا.",
      ]],
      ...AR_SAAYDEH,
      ["h3", "أمثلة (×1)"], ["ul", [
        "مزايد على 5 حقّق: 5 + 20 = 25. عادي على 3 حقّق: 13؛ أخفق بفرق 1: −1.",
        "«مع» بمخاطرة على 4 حقّق: 4 + 30 = 34؛ أخفق بفرق 2: −2 − 20 = −22.",
        "مزايد على 8 حقّق: 8 + 40 = 48. «مع» على 8 أخفق بفرق 6: −6 − 10 = −16.",
        "داش عادي في جولة «تحت» حقّق: 0 + 10 + 10 = 20؛ وفي جولة «فوق»: 10.",
        "داش كول: 33 إن نجح، و−23 إن أخفق.",
      ]],
      ...AR_WINNER,
    ],
  },
  egyptian: {
    overview: [["p", AR_PLAYERS], ["p", AR_TRUMPS],
      ["p", "هذه القواعد تتبع لجنة الاستيميشن المصرية. كل جولة تمرّ بالمراحل الخمس نفسها: عرض الداش، المزاد، " +
        "الإعلان، التوقّعات، ثم اللعب. لا يُعاد توزيع أي جولة، ولا سعايدة ولا مضاعف."],
      ["ul", [
        ["العادي، 18 جولة (الافتراضي): ", "13 جولة مزاد، ثم 5 جولات سريعة: 14 بلا حكم، 15 ♠، 16 ♥، 17 ♦، 18 ♣."],
        ["اللجنة، 13 جولة: ", "كل الجولات بالمزاد، بلا جولات سريعة (صيغة بطولات اللجنة)."],
        ["الطويل، 24 جولة: ", "19 جولة مزاد، ثم الجولات السريعة الخمس نفسها (من 20 بلا حكم إلى 24 ♣)."],
      ]]],
    round: [...AR_DEAL(true),
      ["h3", "1. عرض الداش"], ["ul", [
        "قبل أن يُعرف الحكم، يُعرض الداش على كل لاعب بالدور بدءًا من اللاعب الذي بعد الموزّع: تعهّدٌ أعمى بألا " +
        "يأخذ ولا أكلة. إما أن يأخذه أو يلعب الجولة عاديًا.",
        "لاعبان على الأكثر يأخذان الداش؛ وبعد داشين لا يُسأل الباقون.",
        "صاحب الداش لا يدخل المزاد ولا يتوقّع: توقّعه صفر.",
      ]],
      ["h3", "2. المزاد"], ["ul", [
        "بدءًا من اللاعب الذي بعد الموزّع، مع تخطّي أصحاب الداش، يختار كل لاعب في دوره واحدًا من هذه:",
        ["مزايدة: ", "عدد أكلات من 4 إلى 13 مع حكم، تعلو على المزايدة القائمة (أكلات أكثر، أو العدد نفسه بحكم " +
          "أعلى)."],
        ["مع: ", "الانضمام إلى المزايدة القائمة بالعدد والحكم نفسيهما. يمكن لأي عدد من اللاعبين أن ينضموا، لكن لا " +
          "أحد ينضم إلى مزايدته هو."],
        ["باس: ", "نهائي؛ تخرج من المزاد."],
        "مزايدة جديدة أعلى تُسقط كل «مع» على المزايدة القديمة؛ ويبقى أصحابها في المزاد ولهم أن يزايدوا أو ينضموا " +
        "إلى المزايدة الجديدة أو يقولوا باس.",
        "ينتهي المزاد حين يكون كل من بقي فيه صاحبَ المزايدة القائمة أو «مع» عليها. صاحب المزايدة هو المزايد " +
        "(صاحب الكول).",
        ["الجولات السريعة: ", "الحكم ثابت (بلا حكم، ♠، ♥، ♦، ♣ بالترتيب) وكل مزايدة تسمّيه، فالمنافسة على " +
          "العدد وحده."],
      ]],
      ["h3", "لم يزايد أحد"], ["ul", [
        "إذا قال الجميع باس بلا أي مزايدة، لا يُعاد التوزيع: تُلعب الجولة بلا حكم (حتى لو كانت مكان جولة سريعة).",
        "لا مزايد ولا إعلان. يتوقّع الجميع عدا أصحاب الداش من 0 إلى 13، بدءًا من الموزّع (أو أول لاعب بعده لم " +
        "يأخذ الداش) ثم بالدور؛ والأخير لا يجعل المجموع 13، واثنان على الصفر على الأكثر (مع أصحاب الداش).",
        "الموزّع يفتح الأكلة الأولى.",
        "الحساب بسيط: 13 + التوقّع إن حقّق، وناقص الفرق إن أخفق. لا نقاط مزايد ولا «مع» ولا مخاطرة ولا «الوحيد» " +
        "ولا داش؛ وصاحب الداش يُحسب صفرًا عاديًا.",
      ]],
      ["h3", "3. الإعلان"], ["ul", [
        "المزايد يعلن العقد مرة واحدة: يؤكّده، أو يرفع العدد (ولا ينقصه أبدًا)، أو يغيّر الحكم. الحكم المعلن هو " +
        "حكم الجولة.",
        "في الجولة السريعة لا يتغيّر الحكم إلا بإعلان 8 أو أكثر؛ وتحت 8 يبقى الحكم الثابت.",
        "الإعلان على 8 أو أكثر سوبر كول (نقاطه أعلى، انظر حساب النقاط).",
        "أصحاب «مع» يبقون «مع» أيًّا كان ما يعلنه المزايد.",
      ]],
      ["h3", "4. التوقّعات"], ["ul", [
        "توقّع المزايد هو العدد المعلن. يتوقّع أصحاب «مع» أولًا، ثم الباقون، كل مجموعة بالدور بدءًا من اللاعب " +
        "الذي بعد المزايد. وأصحاب الداش لا يتوقّعون.",
        "كل توقّع من 0 إلى العدد المعلن. صاحب «مع» الذي يتوقّع العدد المعلن تُحسب نقاطه «مع»، وأي عدد آخر توقّع عادي.",
        ["ممنوع الـ13: ", "آخر من يتوقّع لا يجعل المجموع 13 بالضبط، فتكون الجولة «فوق» (أكثر من 13) أو «تحت» (أقل)."],
        ["اثنان على الصفر على الأكثر، ", "ومعهم أصحاب الداش."],
        ["المخاطرة (الريسك): ", "قد تقع على آخر من يتوقّع (انظر حساب النقاط)."],
      ]],
      ["h3", "5. لعب الأكلات"], ["ul", [
        "المزايد يفتح الأكلة الأولى (والموزّع إذا لم يزايد أحد)، ومن يأخذ الأكلة يفتح التي بعدها.",
        "لازم تنزل من الشكل المطلوب إن كان معك؛ وإلا العب أي ورقة: لست مجبرًا أن تقطع بالحكم ولا أن تأخذ الأكلة.",
        "أعلى ورقة حكم تأخذ الأكلة؛ وإلا فأعلى ورقة من الشكل المطلوب. ورقة من شكل آخر لا تأخذ أبدًا.",
        "تُلعب الأكلات الثلاث عشرة كلها.",
      ]],
    ],
    scoring: [
      ["p", "إن أخذت توقّعك بالضبط حقّقته: 13 + توقّعك. وإن أخفقت خسرت الفرق. وتُضاف العشرات فوق ذلك:"],
      ["table", AR_HEAD, [
        ["الأساس: الجميع عدا صاحب الداش", "13 + التوقّع", "ناقص الفرق"],
        ["المزايد، إعلانه تحت 8", "+10", "−10"],
        ["سوبر كول: المزايد على 8 أو أكثر", "+20", "−20"],
        ["«مع»: بقيت «مع» وتوقّع العدد المعلن", "+10", "−10"],
        ["الوحيد الذي حقّق / الوحيد الذي أخفق", "+10", "−10"],
        ["المخاطرة: آخر من يتوقّع", "+10", "−10"],
        ["الداش، بدل كل ما سبق", "23 تحت / 13 فوق", "ناقص الأكلات، و−10 إضافية في «تحت»"],
      ]],
      ["h3", "المخاطرة (الريسك)"], ["ul", [
        "لآخر من يتوقّع فقط، في جولة فيها مزايد، وبمستوى واحد فقط (±10):",
        "عليه مخاطرة إذا كان المجموع 11 أو أقل، مهما كان توقّعه؛",
        "أو إذا كان المجموع 15 أو أكثر وتوقّعه هو 2 أو أكثر.",
        "المجموعان 12 و14 لا مخاطرة فيهما أبدًا.",
      ]],
      ["ul", [
        "السوبر كول إن تحقّق: 41 للثمانية، 42 للتسعة، 43 للعشرة، وهكذا. وإن أخفق: −20 وناقص الفرق. وأصحاب «مع» " +
        "يبقون على ±10 في السوبر كول.",
        "الداش يُحسب عند تحديد الوحيد الذي حقّق أو أخفق، لكنه لا يأخذ تلك العشرة أبدًا.",
        "جولة لم يزايد فيها أحد: 13 + التوقّع إن حقّق، وناقص الفرق إن أخفق، لا غير.",
        "لا سعايدة: الجولة التي يخفق فيها الأربعة تُحسب كما هي، والمضاعف دائمًا ×1.",
      ]],
      ["h3", "أمثلة"], ["ul", [
        "مزايدة 4 تحقّقت: 17؛ ومزايدة 6: 19.",
        "مزايد على 5 حقّق، ومعه لاعب آخر حقّق: 13 + 5 + 10 = 28. مزايد أخفق وحده بفرق 1: −1 − 10 − 10 = −21.",
        "سوبر كول 8 تحقّق: 41؛ و9: 42. سوبر كول 8 أخذ 6: −20 − 2 = −22.",
        "داش بلا أكلات: 23 في «تحت»، و13 في «فوق». داش أخذ أكلتين: −2 في «فوق»، و−12 في «تحت».",
        "آخر من توقّع على 0، والمجموع 11، حقّق: 13 + 0 + 10 = 23. وعلى 1، والمجموع 15، أخفق بفرق 1: −1 (لا " +
        "مخاطرة: توقّعه أقل من 2).",
      ]],
      ["h3", "الفائز"], ["p", "بعد آخر جولة يفوز صاحب أعلى مجموع، والمتساوون في القمة متعادلون. اللاعب الذي " +
        "يغادر يُنهي المباراة: ترتيب تلك اللحظة يحسمها، والمغادر لا يمكن أن يفوز. الفوز بـ30 نقطة مستوى، والتعادل " +
        "بـ10، والخسارة بـ4؛ وخمسة انتصارات تمنحك الشارة."],
    ],
  },
  glossary: {
    dealer: { name: "الموزّع", text: {
      koutchina: "يوزّع هذه الجولة. اللاعب الذي بعده يتكلم أولًا (الداش كول، المزايدة)؛ وفي الجولة الثابتة " +
        "يتوقّع الموزّع آخرًا. وإعادة التوزيع تُبقي الموزّع نفسه.",
      classic: "يوزّع هذه الجولة. اللاعب الذي بعده يتكلم أولًا (الداش كول، المزايدة)؛ وفي الجولة الثابتة " +
        "يتوقّع الموزّع آخرًا. وإعادة التوزيع تُبقي الموزّع نفسه.",
      egyptian: "يوزّع هذه الجولة. اللاعب الذي بعده يتكلم أولًا (عرض الداش، المزاد). وإذا لم يزايد أحد، يتوقّع " +
        "الموزّع أولًا ويفتح الأكلة الأولى." } },
    caller: { name: "صاحب الكول", text: {
      koutchina: "فاز بالمزايدة: عدد الكول توقّعه، وحكمه حكم الجولة، وهو يفتح الأكلة الأولى. في الجولة الثابتة: " +
        "صاحب أعلى توقّع (وعند التعادل الأسبق). ±10.",
      classic: "«المُعلِن» في المصدر: فاز بالمزايدة، أو صاحب أعلى توقّع في الجولة الثابتة (وعند التعادل الأسبق)؛ " +
        "يفتح الأكلة الأولى. +20 / −10، أو +40 / −20 على 8 أو أكثر.",
      egyptian: "فاز بالمزاد وأعلن العقد: العدد المعلن توقّعه، وهو يفتح الأكلة الأولى. ±10، أو ±20 في السوبر كول " +
        "(8 أو أكثر)." } },
    with: { text: {
      koutchina: "توقّع عدد الكول بالضبط (وفي الجولة الثابتة عدد المزايد)؛ نقاطه مثل المزايد، ±10.",
      classic: "توقّع عدد المزايد بالضبط؛ نقاطه +20 / −10 مثل المزايد (وتبقى 20 / −10 على 8 أو أكثر).",
      egyptian: "انضم إلى المزايدة الفائزة بـ«مع» في المزاد. يتوقّع قبل الباقين، ويأخذ ±10 إذا توقّع العدد " +
        "المعلن؛ وإلا فتوقّعه عادي." } },
    dashcall: { na: ["egyptian"], text: {
      koutchina: "تعهّد قبل المزايدة ألا يأخذ ولا أكلة؛ لا يزايد ولا يتوقّع. بلا أكلات: +25 في جولة «فوق» و+33 " +
        "في «تحت». بأي أكلة: −25 أو −33.",
      classic: "تعهّد قبل المزايدة ألا يأخذ ولا أكلة؛ لا يزايد ولا يتوقّع. نقاط ثابتة: 33 بلا أكلات، و−23 بأي أكلة.",
      egyptian: "لا داش كول في القواعد المصرية: الصفر فيها هو الداش." } },
    dash: { text: {
      koutchina: "توقّع صفر في دور التوقّعات، وليس داش كول: 10 إن لم يأخذ شيئًا، وناقص الأكلات إن أخذ. يظهر " +
        "دورًا في تفصيل نقاط الجولة. واثنان على الصفر على الأكثر.",
      classic: "توقّع صفر، وليس داش كول: 10 إن لم يأخذ شيئًا، و10 إضافية في جولة «تحت» (أي 20)؛ وإن أخذ: ناقص " +
        "الأكلات، و10 أخرى تُخصم في «تحت».",
      egyptian: "أخذ عرض الداش قبل معرفة الحكم: تعهّد ألا يأخذ ولا أكلة، فلا يزايد ولا يتوقّع. بلا أكلات: 23 في " +
        "«تحت» و13 في «فوق». وإلا فناقص الأكلات، و10 أخرى تُخصم في «تحت»." } },
    risk: { name: "ريسك", text: {
      koutchina: "آخر من يتوقّع، والمجموع يبعد 2 أو 3 عن 13: ±10.",
      classic: "آخر من يتوقّع، والمجموع يبعد 2 أو 3 عن 13: +10 / −10 إضافية.",
      egyptian: "آخر من يتوقّع، والمجموع 11 أو أقل، أو 15 أو أكثر وتوقّعه 2 أو أكثر: ±10." } },
    risk2: { name: "دبل ريسك", na: ["egyptian"], text: {
      koutchina: "آخر من يتوقّع، والمجموع يبعد 4 أو 5 عن 13: ±20.",
      classic: "آخر من يتوقّع، والمجموع يبعد 4 أو أكثر عن 13: +20 / −20 إضافية.",
      egyptian: "للمخاطرة مستوى واحد فقط في القواعد المصرية (±10)." } },
    risk3: { name: "تريبل ريسك", na: ["egyptian", "classic"], text: {
      koutchina: "آخر من يتوقّع، والمجموع يبعد 6 أو أكثر عن 13: ±30.",
      classic: "لا مخاطرة ثلاثية في الكلاسيكية: أعلاها المخاطرة المضاعفة.",
      egyptian: "للمخاطرة مستوى واحد فقط في القواعد المصرية (±10)." } },
    avoid: { name: "قاطع", text: "لم ينزل من هذا الشكل مرة، فليس معه منه شيء. تذكير للجميع لا قاعدة، ويبقى حتى " +
      "آخر التوزيع." },
    bust: { text: "أخذ أكلات أكثر من توقّعه، فلم يعد يستطيع تحقيقه (صاحب الصفر يتجاوز من أول أكلة)." },
    away: { text: "انتهى وقت دوره: روبوت يلعب كل أدوار مقعده فورًا حتى يعود اللاعب بأي حركة أو بزر «عدت»." },
    left: { text: {
      koutchina: "غادر الطاولة: روبوت يكمل اللعب بمقعده حتى النهاية. وعلى طاولة الرهان يخسر رهانه ويُعدّ " +
        "الأخير بين المراهنين.",
      classic: "غادر الطاولة: روبوت يكمل اللعب بمقعده حتى النهاية. وعلى طاولة الرهان يخسر رهانه ويُعدّ " +
        "الأخير بين المراهنين.",
      egyptian: "غادر، وبهذا تنتهي المباراة: ترتيب تلك اللحظة يحسمها، والمغادر لا يمكن أن يفوز." } },
    multiplier: { name: "المضاعف", na: ["egyptian"], text: {
      koutchina: "مضاعف الجولة: ×1 عادةً، و×2 بعد سعايدة، و×4 بعد سعايدتين متتاليتين (الحد الأقصى)؛ " +
        "ويظهر بالأحمر فوق ×1. كل نقاط الجولة تُضرب فيه.",
      classic: "مضاعف الجولة: ×1 عادةً، و×2 بعد سعايدة، و×4 بعد سعايدتين متتاليتين (الحد الأقصى)؛ " +
        "ويظهر بالأحمر فوق ×1. كل نقاط الجولة تُضرب فيه.",
      egyptian: "دائمًا ×1: لا سعايدة في القواعد المصرية." } },
    saaydeh: { na: ["egyptian"], text: {
      koutchina: "أخفق الأربعة: لا نقاط لأحد في هذه الجولة، والجولة التالية مضاعفة (×2، ثم ×4).",
      classic: "أخفق الأربعة: لا نقاط لأحد في هذه الجولة، والجولة التالية مضاعفة (×2، ثم ×4).",
      egyptian: "لا سعايدة في القواعد المصرية: الجولة التي يخفق فيها الأربعة تُحسب كما هي." } },
    overunder: { name: "فوق / تحت", text: {
      koutchina: "مجموع التوقّعات الأربعة: «فوق» إن زاد على 13، و«تحت» إن نقص، ولا يساوي 13 أبدًا. ويحدد قيمة " +
        "الداش كول: 25 فوق، 33 تحت.",
      classic: "مجموع التوقّعات الأربعة: «فوق» إن زاد على 13، و«تحت» إن نقص، ولا يساوي 13 أبدًا. وفي «تحت» يكسب " +
        "الداش العادي 10 إضافية (أو يخسرها).",
      egyptian: "مجموع التوقّعات الأربعة: «فوق» إن زاد على 13، و«تحت» إن نقص، ولا يساوي 13 أبدًا. ويحدد قيمة " +
        "الداش: 23 تحت، 13 فوق." } },
  },
  // The markers that mean the same in every ruleset; the others are each ruleset's own (marker_tips).
  tips: {
    avoid: "قاطع: لم ينزل من هذا الشكل، فليس معه منه شيء؛ تذكير لا قاعدة.",
    bust: "تجاوز: أخذ أكثر من توقّعه، فلم يعد يستطيع تحقيقه.",
    away: "غائب: انتهى وقت دوره، وروبوت يلعب عنه حتى يعود.",
    overunder: "فوق / تحت: مجموع التوقّعات الأربعة، ولا يساوي 13 أبدًا.",
  },
};

const TEXTS = { en: EN, ar: AR };

// --- helpers ------------------------------------------------------------------------------------------
const normal = (ruleset) => (RULESETS.includes(ruleset) ? ruleset : "koutchina");
const pick = (value, ruleset) => (value === undefined || typeof value === "string" ? value : value[ruleset]);

// In Arabic, a number with a sign, a suit or an operator (−12, ±10, 4♣, 10 + 5 + 10 = 25, 70/30) would be
// reordered by the right-to-left layout ("−12" shown as "12−"): each such run is kept left to right in an
// isolate (U+2066 ... U+2069).
const NUM = String.raw`[+−±×]?\d+%?(?:\s?(?:NT|[♠♥♦♣]))?`;
const RUN = new RegExp(`${NUM}(?:\\s?[+−×=/]\\s?${NUM})*`, "g");
function bidi(text) {
  if (getLang() !== "ar" || typeof text !== "string") return text;
  return text.replace(RUN, (m) => (/^\d+$/.test(m) ? m : `\u2066${m}\u2069`));
}

const SUIT = { "♠": "S", "♥": "H", "♦": "D", "♣": "C" };
/** A text as nodes: a number kept with its suit (no line break), each suit in its colour, isolates in Arabic. */
function rich(text) {
  const s = bidi(text.replace(/(\d) (?=NT|[♠♥♦♣])/g, "$1\u00a0").replace(/(\d) ([+−=×/]) (?=[+−]?\d)/g, "$1\u00a0$2\u00a0"));
  return s.split(/([♠♥♦♣])/).filter(Boolean).map((part) => (SUIT[part] ? h("span", { class: `suit-${SUIT[part]}` }, part) : part));
}

/** The one-line tooltip of a table marker, in the current language; "" for an unknown key. A marker whose
 *  meaning is the ruleset's (the dealer, the roles, Risk, a leaver, the multiplier) is said in the ruleset's
 *  own words (`marker_tips` of GET /api/rulesets, English where it has none in the page's language); avoid,
 *  bust, away and Over / Under mean the same everywhere. */
export function markerTip(key, ruleset) {
  const own = rulesetNow(ruleset)?.marker_tips;
  const tip = own && key in (own.en || {})
    ? (own[getLang()] || {})[key] || own.en[key] : (TEXTS[getLang()] || EN).tips[key];
  return tip ? bidi(tip) : "";
}

// What the table shows for each marker, drawn with the table's own classes and labels.
function chip(key) {
  const badge = (cls, label) => h("span", { class: `badge ${cls}` }, bidi(label));
  switch (key) {
    case "dealer": return h("span", { class: "dealer-chip" }, t("dealer_short"));
    case "caller": return badge("caller", t("m_caller"));
    case "with": return badge("with", t("m_with"));
    case "dashcall": return badge("dashcall", t("m_dashcall"));
    case "dash": return badge("dashcall", t("m_dash"));
    case "risk": return badge("risk", t("m_risk"));
    case "risk2": return badge("risk", t("m_risk2"));
    case "risk3": return badge("risk", t("m_risk3"));
    case "avoid": return badge("avoid suit-S", `${t("m_avoid")} ♠`);
    case "bust": return badge("bust", t("m_bust"));
    case "away": return badge("away", t("m_away"));
    case "left": return badge("away", t("m_left"));
    case "multiplier": return h("span", { class: "rules-mult" }, "×2");
    case "saaydeh": return h("span", { class: "rules-saaydeh" }, getLang() === "ar" ? "سعايدة" : "Sa'aydeh");
    case "overunder": return h("span", { class: "rules-total" }, bidi(`15 · ${t("over")}`));
    default: return null;
  }
}

function blocks(list) {
  const inline = (item) => (Array.isArray(item) ? [h("strong", {}, rich(item[0])), rich(item[1])] : rich(item));
  return list.map(([kind, a, b]) => {
    if (kind === "ul" || kind === "ol") return h(kind, {}, a.map((item) => h("li", {}, inline(item))));
    if (kind === "table") {
      return h("div", { class: "rules-table-wrap" }, h("table", { class: "rules-table" },
        h("thead", {}, h("tr", {}, a.map((c) => h("th", { scope: "col" }, rich(c))))),
        h("tbody", {}, b.map((row) => h("tr", {}, row.map((c, i) => (i === 0
          ? h("th", { scope: "row" }, rich(c)) : h("td", {}, rich(c)))))))));
    }
    return h(kind, {}, inline(a));
  });
}

// --- the page -----------------------------------------------------------------------------------------
export class RulesPage {
  /** `partners`: opened from a Partners table (#/rules/egyptian/partners): the overview speaks of sides. */
  constructor(root, ruleset, partners = false) {
    this.root = root;
    this.partners = partners;
    this.ruleset = normal(ruleset);
    this.el = h("div", { class: "rules-page", "data-ruleset": this.ruleset });
    root.append(this.el);
    // Drawn once the rulesets' descriptions have come: the names and the markers' tooltips are theirs.
    const draw = () => { if (!this.gone) this.render(); };
    rulesets().then(draw, draw);
  }

  destroy() { this.gone = true; }

  relabel() { this.render(); }

  render() {
    const L = TEXTS[getLang()] || EN;
    const rs = this.ruleset;
    const R = L[rs];
    const jump = (id, label) => h("button", { type: "button", class: "link", "data-target": id,
      onclick: () => this.el.querySelector(`#${id}`)?.scrollIntoView({ block: "start" }) }, label);
    const glossary = h("dl", { id: "rules-glossary" }, [...MARKERS, "overunder"].map((key) => {
      const g = L.glossary[key];
      const na = (g.na || []).includes(rs);
      return h("div", { class: na ? "na" : null },
        h("dt", { "data-marker": key }, h("span", { title: markerTip(key, rs) }, chip(key)),
          g.name ? h("span", { class: "rules-term" }, g.name) : null,
          na ? h("span", { class: "rules-na" }, L.na) : null),
        h("dd", {}, rich(pick(g.text, rs))));
    }));
    this.el.dataset.ruleset = rs;
    this.el.replaceChildren(...[
      h("h1", { id: "rules-title" }, `${L.title}: ${rulesetName(rs)}`),
      h("nav", { class: "rules-switch", "aria-label": L.rulesetLabel },
        h("span", { class: "muted" }, `${L.rulesetLabel}:`),
        RULESETS.map((r) => h("a", { href: `#/rules/${r}${this.partners ? "/partners" : ""}`, id: `rules-link-${r}`,
          "aria-current": r === rs ? "page" : null }, rulesetName(r)))),
      h("nav", { class: "rules-toc", "aria-label": L.onPage },
        h("span", { class: "muted" }, `${L.onPage}:`),
        jump("rules-round", L.headings.round), jump("rules-scoring", L.headings.scoring),
        jump("rules-markers", L.headings.markers), jump("rules-partners", L.headings.partners)),
      this.partners ? h("p", { class: "rules-partners-note", id: "rules-partners-note" }, h("strong", {}, L.partnersNote)) : null,
      h("section", {}, h("h2", { id: "rules-overview" }, L.headings.overview),
        blocks(this.partners ? R.overview.map((b) => (b[1] === L.players ? ["p", L.playersSides] : b)) : R.overview)),
      h("section", {}, h("h2", { id: "rules-round" }, L.headings.round), blocks(R.round)),
      h("section", {}, h("h2", { id: "rules-scoring" }, L.headings.scoring), blocks(R.scoring)),
      h("section", {}, h("h2", { id: "rules-markers" }, L.headings.markers), h("p", {}, L.markersIntro), glossary),
      h("section", {}, h("h2", { id: "rules-partners" }, L.headings.partners),
        blocks(L.partners.map((b) => (b[0] === "ul" ? ["ul", b[1].map((x) => pick(x, rs))] : b))))].filter(Boolean));
  }
}
