"""The fixed texts of the table link's pages, by key; each page gets them in its own language.

The pages carry them from the moment they load (in the page itself), so the "ask the
host" and "cannot reach the host" pages speak the phone's language with no game data
and no connection at all.
"""

from __future__ import annotations

from companion.core.phrase import Phrase, phrase_template
from companion.web.speech import Speech

PAGE_TEXTS: dict[str, str] = {
    "title": phrase_template("Munchkin Companion"),
    "level": phrase_template("Level"),
    "gear": phrase_template("Gear"),
    "strength": phrase_template("Strength"),
    "level_up": phrase_template("Level up"),
    "level_down": phrase_template("Level down"),
    "gear_up": phrase_template("Gear up"),
    "gear_down": phrase_template("Gear down"),
    "your_turn": phrase_template("Your turn"),
    "dead": phrase_template("Dead"),
    "you_won": phrase_template("You won!"),
    "connecting": phrase_template("Connecting to the host…"),
    "no_game": phrase_template("No game is open on the host yet."),
    "ask_title": phrase_template("Ask the host for your code"),
    "ask_text": phrase_template(
        "This page shows a game at the table. To join, scan your seat's code on the "
        "host's Invite screen."
    ),
    "taken_title": phrase_template("The host took this seat back"),
    "taken_text": phrase_template("Ask the host for a new code if you are still playing."),
    "new_game_title": phrase_template("A new game started"),
    "new_game_text": phrase_template("Scan your seat's code on the host's Invite screen again."),
    "off_title": phrase_template("The table link is off"),
    "off_text": phrase_template(
        "The host turned it off. This page comes back by itself when it is on again."
    ),
    "away_title": phrase_template("Cannot reach the host"),
    "away_text": phrase_template(
        "Is this phone on the same Wi-Fi as the host? Guest networks and some routers "
        "keep devices apart: then turn on the host's own hotspot, join it, and open "
        "this page again. It keeps trying meanwhile."
    ),
    "roll_title": phrase_template("The host waits for your roll"),
    "roll_button": phrase_template("Roll"),
    "next_phase": phrase_template("Next phase"),
    "kill_button": phrase_template("Kill!"),
    "wait_button": phrase_template("Wait! Interfere"),
    "kill_in": phrase_template("Kill in {s:.1f} s"),
    "end_turn": phrase_template("End turn"),
    "roll_faces": phrase_template("or tap the face you rolled"),
    "watch_only": phrase_template("This page can only watch the game"),
}


def page_words(speech: Speech) -> dict[str, str]:
    """Every fixed text of the pages, in one language."""
    return {key: speech.gettext(text) for key, text in PAGE_TEXTS.items()}


# Answers a page gets, built where they are said and translated for the page there.
SLOW_DOWN = phrase_template("Too many messages: slow down")
NOT_JSON = phrase_template("A message was not understood (not JSON)")
PAGES_FULL = phrase_template("Too many pages are open on the host: this one tries again in a while")


def unknown_request(kind: str) -> Phrase:
    """The answer to a message of a kind the link does not know."""
    return Phrase("A message was not understood: {kind}", kind=kind[:40])
