"""Run away: each fighter rolls a d6 against each monster, in the order they choose."""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from companion.core import RUN_AWAY_TARGET, RunAway, SacrificeAlly
from companion.ui.i18n import _
from companion.ui.screens.base import CompanionScreen

RESTING_FACE = 6  # what the big die shows before anyone has rolled


class FleeRow(ButtonBehavior, BoxLayout):
    """One fighter against one monster: the modifiers, then the roll and what it did."""

    owner = None
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

    def on_kv_post(self, base_widget: Any) -> None:
        super().on_kv_post(base_widget)
        # A die at rest shows a face, not a blank square, before the first roll.
        if not self.ids.die.value:
            self.ids.die.value = RESTING_FACE

    def choose(self, fighter: int, monster: int) -> None:
        """Tap a row: that fighter runs from that monster next."""
        self.fighter, self.monster = fighter, monster
        self.refresh()

    def roll(self, value: int | None = None) -> None:
        """Roll the die (value None: the game rolls) or enter a physical die's value."""
        if self.fighter < 0 or self.monster < 0:
            self.app.notify(_("Nobody is left to run away."))
            return
        fields: dict[str, Any] = {"fighter": self.fighter, "monster": self.monster}
        if value is not None:
            fields["roll"] = value
        if not self.session.act(RunAway, **fields):
            return
        state = self.session.live_state
        if state is not None and state.last_roll is not None:
            self.ids.die.tumble_to(state.last_roll.value)
        self.fighter = self.monster = -1
        self.refresh_now()

    def sacrifice_ally(self) -> None:
        """Give up the Ally: automatic escape from every monster (the partner escapes too)."""
        if self.ally_owner < 0:
            return
        self.session.act(SacrificeAlly, player=self.ally_owner, partner_escapes=True)

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
                    name=player.name, ally=player.ally.name
                )
            for index, monster in enumerate(combat.monsters):
                row = FleeRow(fighter=seat, monster=index)
                row.owner = self
                row.title = _("{name} from {monster}").format(
                    name=player.name, monster=monster.spec.name
                )
                record = rolled.get((seat, index))
                if record is not None:
                    row.done = True
                    row.escaped = record.escaped
                    row.detail = _("Rolled {roll}, modifier {mod:+d}").format(
                        roll=record.roll, mod=record.modifier
                    )
                    row.verdict = _("ESCAPED") if record.escaped else _("CAUGHT")
                    row.outcome = record.bad_stuff or ""
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
                        row.outcome = _("Bad Stuff: {text}").format(text=_bad_stuff_words(bad))
                box.add_widget(row)
        if (self.fighter, self.monster) not in pending:
            self.fighter, self.monster = pending[0] if pending else (-1, -1)
        for row in box.children:
            row.chosen = (row.fighter, row.monster) == (self.fighter, self.monster)
        if self.fighter >= 0:
            who = state.players[self.fighter].name
            what = combat.monsters[self.monster].spec.name
            self.target_text = _("{name} runs from {monster}: {n}+ escapes").format(
                name=who, monster=what, n=RUN_AWAY_TARGET
            )
        else:
            self.target_text = ""

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
            word = _("escaped") if record.escaped else _("was caught")
            line = _("{name} rolled {roll} ({mod:+d}) and {word}").format(
                name=name, roll=record.roll, mod=record.modifier, word=word
            )
            if record.bad_stuff:
                line += ": " + record.bad_stuff
            lines.append(line)
        if result.outcome == "fighter_died":
            lines.append(_("The fighter died."))
        return "\n".join(lines) or _("Everyone got away.")


def _bad_stuff_words(bad: Any) -> str:
    parts = []
    if bad.death:
        parts.append(_("death"))
    if bad.lose_levels:
        parts.append(_("lose {n} level(s)").format(n=bad.lose_levels))
    if bad.lose_gear:
        parts.append(_("lose {n} gear").format(n=bad.lose_gear))
    if bad.text:
        parts.append(bad.text)
    return ", ".join(parts) or _("none")
