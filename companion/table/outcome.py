"""What a way into the game gets back: the intent applied, or refused with the rule's words.

Every way in (a tap on a screen, a counter's button, a phone's press, a command typed
at `companion serve`) hands the table an intent and gets an `Outcome`. A rule's refusal
carries the rule's id and its sentence (a `Phrase`, translated by whoever shows it);
a value that means nothing here is a bad input; anything else is a bug: it is logged
with its traceback, and the player hears that something went wrong and the game is safe
(an action that fails is never applied: `Game.apply` changes nothing until it succeeds).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from companion.core import BaseAction, Game, RuleError
from companion.core.errors import validation_error_line
from companion.core.phrase import phrase_template
from companion.plumbing.errors import BadInputError

log = logging.getLogger(__name__)

# The words of every way in for what the rules did not decide.
NO_GAME = phrase_template("No game is open on the host yet.")
SOMETHING_WENT_WRONG = phrase_template("Something went wrong; the game is safe.")
SAVE_FAILED = phrase_template("The host could not save the game")

# The rule id of an outcome that no rule decided.
NO_GAME_RULE = "no_game"
BAD_INPUT_RULE = "bad_input"
BUG_RULE = "bug"


@dataclass(frozen=True)
class Outcome:
    """An intent applied (`applied`), or refused: `why` in the table's words (a `Phrase`
    when the engine made one), `rule` the rule's stable id. `action` is the type of the
    action the intent became ("" when it became none); `sequence` the game's change
    number once applied, which a way in waits to be durable before it answers."""

    applied: bool
    why: str = ""
    rule: str = ""
    action: str = ""
    sequence: int = -1

    @property
    def refused(self) -> bool:
        return not self.applied

    @property
    def bug(self) -> bool:
        """Refused by no rule but by an error in the companion itself (logged)."""
        return self.rule == BUG_RULE


def refused(why: str, rule: str, action: str = "") -> Outcome:
    """An intent refused with these words."""
    return Outcome(applied=False, why=why, rule=rule, action=action)


def decide(game: Game | None, intent: Callable[[], BaseAction], what: str) -> Outcome:
    """Build the action an intent asks for (`intent()`, which may refuse with a
    `RuleError` or a bad value) and apply it to `game`: the one place where "apply,
    catch, answer" is done for every way in. `what` names the intent in the log."""
    if game is None:
        return refused(NO_GAME, NO_GAME_RULE)
    action_type = ""
    try:
        action = intent()
        action_type = action.type
        game.apply(action)
    except RuleError as err:
        return refused(err.phrase, err.rule or "rule", action_type)
    except ValidationError as err:
        return refused(validation_error_line(err), BAD_INPUT_RULE, action_type)
    except BadInputError as err:
        return refused(str(err), BAD_INPUT_RULE, action_type)
    except Exception:
        log.exception("%s failed: a bug, not a rule (the game is unchanged)", what)
        return refused(SOMETHING_WENT_WRONG, BUG_RULE, action_type)
    return Outcome(applied=True, action=action_type, sequence=game.sequence)
