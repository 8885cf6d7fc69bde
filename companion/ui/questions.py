"""What the app asks before the engine takes something away: which things a Bad Stuff takes
when the victim chooses, what goes with an allowance that is lost, and the one-tap Bad Stuff
of a monster entered by its Level alone. The engine says what is asked and what fits; this
module keeps the answers given so far and says the questions in the player's language."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.core import BadStuff, GameState, Question, bad_stuff_questions, quick_bad_stuff
from companion.ui.i18n import N_, _, ngettext

# A question of one Bad Stuff, told apart from the others of the same card: its source
# ("loss", "items", "allowance") and what it is about ("footgear", "items", "big_item"...).
QuestionKey = tuple[str, str]
Answers = Mapping[QuestionKey, tuple[str, ...]]

# What a Bad Stuff can name as lost, in words (core `Loss` values).
LOSS_NAMES: dict[str, str] = {
    "headgear": N_("headgear"),
    "armor": N_("armor"),
    "footgear": N_("footgear"),
    "biggest_item": N_("the item with the biggest bonus"),
    "big_item": N_("Big item"),
    "class": N_("class"),
    "race": N_("race"),
    "style": N_("style"),
    "motivation": N_("motivation"),
}

# The one-tap Bad Stuff of a monster entered by its Level alone: (key, label, kind, count).
QUICK_BAD_STUFF: tuple[tuple[str, str, str, int], ...] = (
    ("none", N_("None"), "none", 1),
    ("level", N_("Lose a level"), "lose_level", 1),
    ("levels2", N_("Lose 2 levels"), "lose_levels", 2),
    ("levels3", N_("Lose 3 levels"), "lose_levels", 3),
    ("headgear", N_("Headgear"), "headgear", 1),
    ("armor", N_("Armor"), "armor", 1),
    ("footgear", N_("Footgear"), "footgear", 1),
    ("item", N_("An item"), "lose_items", 1),
    ("items2", N_("2 items"), "lose_items", 2),
    ("items3", N_("3 items"), "lose_items", 3),
    ("death", N_("Death"), "death", 1),
)


def quick_bad_stuff_of(key: str) -> BadStuff:
    """The Bad Stuff a one-tap choice stands for (the engine's `quick_bad_stuff`)."""
    for known, _label, kind, count in QUICK_BAD_STUFF:
        if known == key:
            return quick_bad_stuff(kind, count)  # type: ignore[arg-type]
    raise KeyError(f"no quick Bad Stuff is called {key!r}")


@dataclass(frozen=True)
class Asked:
    """One question on show, with the options picked for it so far."""

    question: Question
    chosen: tuple[str, ...]

    @property
    def key(self) -> QuestionKey:
        return key_of(self.question)

    @property
    def answered(self) -> bool:
        return len(self.chosen) == self.question.count


def key_of(question: Question) -> QuestionKey:
    """Which of a Bad Stuff's questions this is."""
    return (question.source, question.what)


def _fitting(question: Question, given: tuple[str, ...]) -> tuple[str, ...]:
    """The answers given that are still options of the question (an earlier answer may have
    changed what is left), at most as many as it asks for."""
    keys = [key for key, _name in question.options]
    return tuple(k for k in given if k in keys)[: question.count]


# Allowances in the order the engine asks about them (`allowance.excess`).
_ALLOWANCE_ORDER = ("big_item", "class", "race", "motivation", "style")


def _place(question: Question, named: tuple[str, ...]) -> tuple[int, int]:
    """Where a question comes in the engine's order: the card's named losses as listed,
    then its number of items, then the allowances that go with a lost trait."""
    if question.source == "loss":
        return (0, named.index(question.what) if question.what in named else len(named))
    if question.source == "items":
        return (1, 0)
    order = _ALLOWANCE_ORDER
    return (2, order.index(question.what) if question.what in order else len(order))


def bad_stuff_asked(
    state: GameState, seat: int, monster: int, answers: Answers
) -> tuple[tuple[Asked, ...], tuple[str, ...] | None]:
    """Every question the Bad Stuff of `monster` asks the fighter in `seat`, in the engine's
    order, each with the options left by the answers to the questions before it and with
    what was picked for it; and the picks for the roll once every question is answered
    (None before).

    The engine lists only the questions still open, each worked out from the answers
    given (a later question may exist only because of an earlier answer: the Dwarf who
    goes takes an allowance with him). An answered question is found again by asking
    without its own answer.
    """
    combat = state.combat
    if combat is None or not 0 <= monster < len(combat.monsters):
        return (), ()
    named = tuple(combat.monsters[monster].spec.bad_stuff.lose)
    given = {key: keys for key, keys in answers.items() if keys}

    def picks(leaving_out: QuestionKey | None = None) -> tuple[str, ...]:
        return tuple(k for key, keys in given.items() if key != leaving_out for k in keys)

    # An answer to a question that is no longer asked (the race it went with was kept)
    # is left out, and the questions worked out again without it.
    for _round in range(len(given) + 1):
        found: dict[QuestionKey, Question] = {}
        waiting = bad_stuff_questions(state, seat, monster, picks())
        for question in waiting:
            found[key_of(question)] = question
        for key in given:
            if key in found:
                continue
            again = bad_stuff_questions(state, seat, monster, picks(leaving_out=key))
            for question in again:
                if key_of(question) == key:
                    found[key] = question
        stale = [key for key in given if key not in found]
        if not stale:
            break
        for key in stale:
            del given[key]
    ordered = sorted(found.values(), key=lambda q: _place(q, named))
    asked = tuple(Asked(q, _fitting(q, given.get(key_of(q), ()))) for q in ordered)
    chosen = tuple(k for shown in asked for k in shown.chosen)
    if waiting or bad_stuff_questions(state, seat, monster, chosen):
        return asked, None
    return asked, chosen


def answer(answers: Answers, question: Question, key: str) -> dict[QuestionKey, tuple[str, ...]]:
    """The answers after a tap on option `key` of `question`: one option is replaced by
    another; with several to pick a tap adds or removes one (the oldest goes when too many)."""
    updated = dict(answers)
    chosen = _fitting(question, answers.get(key_of(question), ()))
    if question.count == 1:
        updated[key_of(question)] = (key,)
    elif key in chosen:
        updated[key_of(question)] = tuple(k for k in chosen if k != key)
    else:
        updated[key_of(question)] = (*chosen, key)[-question.count :]
    return updated


# -- words ---------------------------------------------------------------------------------


def bad_stuff_question_text(question: Question, name: str, caught: bool = False) -> str:
    """The question a Bad Stuff asks its victim, in words: before the roll ("if caught"),
    or once a roll has caught them (`caught`)."""
    n = question.count
    if question.source == "items":
        if caught:
            return ngettext(
                "{name} was caught: which item does {name} lose?",
                "{name} was caught: which {n} items does {name} lose?",
                n,
            ).format(name=name, n=n)
        return ngettext(
            "If caught, which item does {name} lose?",
            "If caught, which {n} items does {name} lose?",
            n,
        ).format(name=name, n=n)
    if question.source == "allowance":
        if caught:
            return _("{name} was caught: {question}").format(
                name=name, question=allowance_text(question.what, name, n)
            )
        return _("If caught: {question}").format(question=allowance_text(question.what, name, n))
    what = _(LOSS_NAMES.get(question.what, question.what))
    if caught:
        return _("{name} was caught: which {what} does {name} lose?").format(what=what, name=name)
    return _("If caught, which {what} does {name} lose?").format(what=what, name=name)


def allowance_text(what: str, name: str, count: int) -> str:
    """What a player must give up when an allowance goes (the Dwarf's Big items, a Monk's
    second style...), as a question."""
    if what == "big_item":
        text = ngettext(
            "{name} may carry only one Big item: which one goes?",
            "{name} may carry only one Big item: which {n} go?",
            count,
        )
    elif what == "class":
        text = ngettext(
            "{name} may keep only one class: which one goes?",
            "{name} may keep only one class: which {n} go?",
            count,
        )
    elif what == "race":
        text = ngettext(
            "{name} may keep only one race: which one goes?",
            "{name} may keep only one race: which {n} go?",
            count,
        )
    elif what == "motivation":
        text = ngettext(
            "{name} may keep only one motivation: which one goes?",
            "{name} may keep only one motivation: which {n} go?",
            count,
        )
    else:
        text = ngettext(
            "{name} may keep only one style: which one goes?",
            "{name} may keep only one style: which {n} go?",
            count,
        )
    return text.format(name=name, n=count)


def bad_stuff_words(bad: Any) -> str:
    """A monster's Bad Stuff in a few words ("lose 2 levels, lose: footgear")."""
    parts = []
    if bad.death:
        parts.append(_("death"))
    if bad.lose_levels:
        parts.append(
            ngettext("lose {n} level", "lose {n} levels", bad.lose_levels).format(n=bad.lose_levels)
        )
    for loss in bad.lose:
        parts.append(_("lose: {what}").format(what=_(LOSS_NAMES.get(loss, loss))))
    if bad.lose_items:
        parts.append(
            ngettext("lose {n} item", "lose {n} items", bad.lose_items).format(n=bad.lose_items)
        )
    if bad.lose_gear:
        parts.append(_("lose {n} gear").format(n=bad.lose_gear))
    if bad.text:
        parts.append(bad.text)
    return ", ".join(parts) or _("none")
