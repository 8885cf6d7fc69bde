"""Run away: each fighter rolls a d6 against each monster, in the order they choose; when
the Bad Stuff would take one of several things, the victim picks it, before the roll or,
once the roll has caught them, then (the table keeps that roll until the pick is made)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

from companion.core import RUN_AWAY_TARGET, SacrificeAlly
from companion.ui.dice_service import dice_service
from companion.ui.i18n import _, card_name, quick_monster_level, tr
from companion.ui.questions import (
    Answers,
    answer,
    bad_stuff_asked,
    bad_stuff_question_text,
    bad_stuff_words,
)
from companion.ui.screens.base import CompanionScreen
from companion.ui.sheets import option_button
from companion.ui.weak import weakly

# Options of one question side by side: a name each still reads on a phone.
OPTION_COLUMNS = 2


class FleeRow(ButtonBehavior, BoxLayout):
    """One fighter against one monster: the modifiers, then the roll and what it did."""

    # The screen the row belongs to (set when the row is made).
    owner: RunAwayScreen | None = None
    fighter = NumericProperty(0)
    monster = NumericProperty(0)
    title = StringProperty("")
    detail = StringProperty("")
    outcome = StringProperty("")
    # "ESCAPED" or "CAUGHT" once the pair has rolled.
    verdict = StringProperty("")
    done = BooleanProperty(False)
    escaped = BooleanProperty(False)
    chosen = BooleanProperty(False)

    def pick(self) -> None:
        """A tap on the row: this pair rolls next (rows already rolled ignore taps)."""
        if not self.done and self.owner is not None:
            self.owner.choose(self.fighter, self.monster)


class RunAwayScreen(CompanionScreen):
    """Pick a fighter/monster pair (the next one is picked for you), then roll or enter a die."""

    fighter = NumericProperty(-1)
    monster = NumericProperty(-1)
    target_text = StringProperty("")
    summary = StringProperty("")
    finished = BooleanProperty(False)
    ally_text = StringProperty("")
    ally_owner = NumericProperty(-1)
    # Which smart die the roll is awaited from, or which one gave the last roll.
    die_text = StringProperty("")
    _stop_die: Callable[[], None] | None = None
    _last_die = ""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # What the Bad Stuff takes if the roll fails, when the victim chooses: each
        # question's picks (item ids or trait names), for the pair about to roll.
        self._picks: Answers = {}

    def choose(self, fighter: int, monster: int) -> None:
        """Tap a row: that fighter runs from that monster next."""
        if (fighter, monster) != (self.fighter, self.monster):
            self._picks = {}
            self._rest_die()
        self.fighter, self.monster = fighter, monster
        self.refresh()
        self._listen_to_die()

    def pick_loss(self, question: Any, key: str) -> None:
        """The victim says which of several things the Bad Stuff takes if they are caught
        (a tap on an option of one of its questions)."""
        self._picks = answer(self._picks, question, key)
        self.refresh()
        outcome = self._share_picks()
        if outcome is not None and outcome.applied:
            self._rolled(shown=True)  # the roll that caught them is recorded with the pick

    def _ready_picks(self, state: Any) -> tuple[str, ...] | None:
        """The picks for the roll of the pair about to roll; None while a question waits."""
        if state is None or self.fighter < 0:
            return ()
        _asked, picks = bad_stuff_asked(state, self.fighter, self.monster, self._picks)
        return picks

    def roll(self, value: int | None = None, die: str = "") -> None:
        """Roll the die (value None: the game rolls) or enter a physical die's value.

        `die` names the smart die the value came from, if one did.
        """
        if self.fighter < 0 or self.monster < 0:
            self.app.notify(_("Nobody is left to run away."))
            return
        shared = self._share_picks()  # what the Bad Stuff takes if caught, as chosen here
        if shared is not None and shared.applied:
            self._rolled(shown=True)  # the pick completed the roll that had caught them
            return
        self._stop_listening()
        if not self.session.take_roll(self.fighter, value, die=die, monster=self.monster):
            held = self._held()
            if held is not None:  # caught: the pick is asked now, under the die
                self.ids.die.tumble_to(held.face)
                self.refresh()
            self._listen_to_die()
            return
        self._rolled(die, value)

    def _rolled(self, die: str = "", value: int | None = None, shown: bool = False) -> None:
        """A roll was recorded: the die shows it (`shown`: it does already, the roll that
        caught them waited for their pick), the next pair is picked."""
        self._picks = {}
        state = self.session.live_state
        if not shown and state is not None and state.last_roll is not None:
            self.ids.die.tumble_to(state.last_roll.value)
        self._last_die = _("{die} rolled {n}").format(die=die, n=value) if die else ""
        self.die_text = self._last_die
        self.fighter = self.monster = -1
        self.refresh_now()
        self._listen_to_die()

    def _held(self) -> Any:
        """The roll that caught the fighter about to roll and waits for their pick."""
        table = getattr(self.session, "table", None)
        return table.held_roll(self.fighter) if table is not None and self.fighter >= 0 else None

    # -- smart dice ------------------------------------------------------------------------
    def on_enter(self, *_args: Any) -> None:
        self._last_die = ""
        self._rest_die()
        self._listen_to_die()

    def _rest_die(self) -> None:
        """The die waits for the next roll: no number of an earlier one on it."""
        self.ids.die.value = 0

    def on_leave(self, *_args: Any) -> None:
        self._stop_listening()

    def _listen_to_die(self) -> None:
        """Take the chosen fighter's next settled die roll, if a smart die rolls for them."""
        self._stop_listening()
        self._share_picks()
        service = dice_service(self.app)
        if service is None or self.finished or self.fighter < 0:
            return
        if service.has_dice_for(self.fighter):
            ask = _("Throw your die, or roll here.")
            self.die_text = f"{self._last_die} \u00b7 {ask}" if self._last_die else ask
        self._stop_die = service.wait_roll(self.fighter, self._die_rolled, self._die_problem)

    def _share_picks(self) -> Any:
        """What the Bad Stuff takes if the fighter about to roll is caught, once chosen
        here, is the table's: a roll from the fighter's phone uses it too. When a roll has
        already caught them, the pick completes it: the table's outcome (else None)."""
        table = getattr(self.session, "table", None)
        if table is not None and self.fighter >= 0 and not self.finished:
            return table.prepare_run(self.fighter, self.monster, self._ready_picks(self.state))
        return None

    def _stop_listening(self) -> None:
        stop, self._stop_die = self._stop_die, None
        if stop is not None:
            stop()

    def _die_rolled(self, value: int, die: str) -> None:
        self._stop_die = None
        self.roll(value, die=die)

    def _die_problem(self, text: str) -> None:
        self.app.notify(text, error=True)
        service = dice_service(self.app)
        if service is None or not service.has_dice_for(self.fighter):
            self.die_text = self._last_die  # the die is gone: the buttons here are the way

    def sacrifice_ally(self) -> None:
        """Give up the Ally: automatic escape from every monster. The fighter's frees the
        helper too; a helper's frees the helper alone."""
        state = self.session.live_state
        if self.ally_owner < 0 or state is None or state.combat is None:
            return
        fighter = self.ally_owner == state.combat.fighter
        self.session.act(SacrificeAlly, player=self.ally_owner, partner_escapes=fighter)

    def done(self) -> None:
        """Back to the table once the monsters have gone."""
        self.app.show("table")

    def refresh(self) -> None:
        state = self.state
        box = self.ids.rows
        box.clear_widgets()
        if state is None:
            return
        combat = state.combat
        if combat is None:
            self.ids.picks.clear_widgets()
            self.finished = True
            self.fighter = self.monster = -1
            self.summary = self._summary(state)
            self.target_text = ""
            self.ally_owner = -1
            self.ally_text = ""
            return
        self.finished = False
        self.summary = ""
        rolled = {(r.fighter, r.monster): r for r in combat.rolls}
        pending: list[tuple[int, int]] = []
        self.ally_owner = -1
        self.ally_text = ""
        for seat in combat.fighters:
            player = state.players[seat]
            if player.ally is not None and not player.dead and seat not in combat.escaped:
                self.ally_owner = seat
                self.ally_text = _("{name}: sacrifice {ally} to escape").format(
                    name=player.name, ally=card_name(player.ally.name)
                )
            for index, monster in enumerate(combat.monsters):
                row = FleeRow(fighter=seat, monster=index)
                row.owner = self
                row.title = flees(player.name, monster.spec.name)
                record = rolled.get((seat, index))
                if record is not None:
                    row.done = True
                    row.escaped = record.escaped
                    row.detail = _("Rolled {roll}, modifier {mod:+d}").format(
                        roll=record.roll, mod=record.modifier
                    )
                    row.verdict = _("ESCAPED") if record.escaped else _("CAUGHT")
                    row.outcome = bad_stuff_said(record)
                else:
                    row.detail = self._modifiers(player, monster)
                    if player.dead:
                        row.outcome = _("Dead: no more rolls")
                        row.done = True
                    elif seat in combat.escaped:
                        row.outcome = _("The Ally was sacrificed")
                        row.verdict = _("ESCAPED")
                        row.done = row.escaped = True
                    else:
                        pending.append((seat, index))
                        bad = monster.spec.bad_stuff
                        row.outcome = _("Bad Stuff: {text}").format(text=bad_stuff_words(bad))
                box.add_widget(row)
        table = getattr(self.session, "table", None)
        for seat in combat.fighters:
            held = table.held_roll(seat) if table is not None else None
            if held is not None and (seat, held.monster) in pending:
                # A roll caught them (here or on a phone): their pick is asked first.
                if (self.fighter, self.monster) != (seat, held.monster):
                    self._picks = {}
                self.fighter, self.monster = seat, held.monster
                if not self.ids.die.rolling:
                    self.ids.die.value = held.face
                break
        if (self.fighter, self.monster) not in pending:
            self.fighter, self.monster = pending[0] if pending else (-1, -1)
            self._picks = {}
        self._show_choices(state)
        for row in box.children:
            row.chosen = (row.fighter, row.monster) == (self.fighter, self.monster)
        if self.fighter >= 0:
            who = state.players[self.fighter].name
            self.target_text = flees_needing(
                who, combat.monsters[self.monster].spec.name, RUN_AWAY_TARGET
            )
        else:
            self.target_text = ""

    def _show_choices(self, state: Any) -> None:
        """For the pair about to roll: each question the Bad Stuff would ask if they are
        caught (which footgear, which two items, which Big item goes with the Dwarf...), with
        only what fits as options."""
        box = self.ids.picks
        box.clear_widgets()
        if self.fighter < 0:
            return
        name = state.players[self.fighter].name
        asked, _picks = bad_stuff_asked(state, self.fighter, self.monster, self._picks)
        held = self._held()
        caught = held is not None and held.monster == self.monster
        for shown in asked:
            question = shown.question
            words = bad_stuff_question_text(question, name, caught=caught)
            box.add_widget(Factory.Caption(text=words))
            grid = GridLayout(cols=OPTION_COLUMNS, size_hint_y=None, spacing=dp(4))
            grid.bind(minimum_height=grid.setter("height"))
            for key, label in question.options:
                button = option_button(card_name(label), self.app.theme.body)
                button.selected = key in shown.chosen
                button.bind(on_release=weakly(self.pick_loss, question, key))
                grid.add_widget(button)
            box.add_widget(grid)

    def _modifiers(self, player: Any, monster: Any) -> str:
        own = player.total_run_away_bonus
        theirs = monster.spec.run_away_modifier
        return _("Your bonus {own:+d}, monster {theirs:+d}").format(own=own, theirs=theirs)

    def _summary(self, state: Any) -> str:
        result = state.last_combat
        if result is None:
            return _("No one is running away.")
        lines = []
        for record in result.rolls:
            name = state.players[record.fighter].name
            if not record.pursued:
                sentence = _("{name} was not pursued and escaped")
            elif record.escaped:
                sentence = _("{name} rolled {roll} ({mod:+d}) and escaped")
            else:
                sentence = _("{name} rolled {roll} ({mod:+d}) and was caught")
            line = sentence.format(name=name, roll=record.roll, mod=record.modifier)
            if record.bad_stuff_said:
                line = _("{line}: {bad_stuff}").format(line=line, bad_stuff=bad_stuff_said(record))
            lines.append(line)
        if result.outcome == "fighter_died":
            lines.append(_("The fighter died."))
        return "\n".join(lines) or _("Everyone got away.")


def flees(name: str, monster: str) -> str:
    """ "Anna runs from the Ogre" as one sentence in the language on show: a monster entered
    by its level has a sentence of its own, so each language declines it as it must."""
    level = quick_monster_level(monster)
    if level is not None:
        return _("{name} runs from the Level {level} monster").format(name=name, level=level)
    return _("{name} runs from {monster}").format(name=name, monster=card_name(monster))


def flees_needing(name: str, monster: str, target: int) -> str:
    """What the roll about to be made needs, as one sentence (see `flees`)."""
    level = quick_monster_level(monster)
    if level is not None:
        return _("{name} runs from the Level {level} monster: {n} or more escapes").format(
            name=name, level=level, n=target
        )
    return _("{name} runs from {monster}: {n} or more escapes").format(
        name=name, monster=card_name(monster), n=target
    )


def bad_stuff_said(record: Any) -> str:
    """What the Bad Stuff of a failed run-away roll did, in the current language: one
    translated clause each, "; " between; a card's own text is shown as written."""
    return "; ".join(
        tr(part.phrase()) if part.template else part.text for part in record.bad_stuff_said
    )
