"""The words a game is shown in, the same on the app's screens and on the phones' pages.

Whose turn it is, where the turn is, how a fight stands and what each character is
(sex, classes, races, motivations, styles, Ally) read the same on the app's Table and
Board as on a seat's phone and the table link's board page. Nothing here knows which
language is on show: every function takes a `Translator`, the app's language on show
(`companion.ui.i18n.APP_LANGUAGE`) or a page's own (`companion.web.speech.Speech`).

The texts are marked (`phrase_template`, `Phrase`) where they are written here, and
`./tasks i18n` collects them with the app's.
"""

from __future__ import annotations

from typing import Protocol

from companion.core import GameState, Phase, PlayerState, Sex
from companion.core.phrase import Phrase, phrase_template, plural_phrase

PHASES: dict[str, str] = {
    Phase.LISTEN_AT_THE_DOOR: phrase_template("Listen at the door"),
    Phase.KICK_OPEN_THE_DOOR: phrase_template("Kick open the door: you must"),
    Phase.LOOT_OR_TROUBLE: phrase_template("Loot the room or look for trouble"),
    Phase.CHARITY: phrase_template("Charity"),
    Phase.GAME_OVER: phrase_template("Game over"),
}
SEXES: dict[str, str] = {
    Sex.MALE: phrase_template("Male"),
    Sex.FEMALE: phrase_template("Female"),
    Sex.NONE: phrase_template("Neither"),
}
# The race of a character with no race card, in an edition that has races.
HUMAN = phrase_template("Human")
# A fight with no monster entered yet.
MONSTERS = phrase_template("Monsters")
# Between the words of a character's traits.
TRAITS_SEPARATOR = " \u00b7 "


class Translator(Protocol):
    """One language, as the words of a game need it."""

    def say(self, message: str, /) -> str:
        """`message` in this language: a `Phrase` has its template translated and its
        values filled in; a plain text is looked up as it is (and shown as written when
        the catalogue lacks it)."""
        ...

    def card_name(self, name: str, /) -> str:
        """A card's, trait's or edition's name in this language, from the cards'
        catalogue; a name no catalogue holds (a player's own card) as it was written."""
        ...


def phase_name(phase: str, language: Translator) -> str:
    """A phase of a turn in words."""
    return language.say(PHASES.get(phase, phase))


def phase_line(state: GameState, language: Translator) -> str:
    """Where the turn is; during a fight, how the fight stands."""
    combat = state.combat
    if combat is None:
        return phase_name(state.phase, language)
    if combat.running:
        return language.say(phrase_template("Combat: running away"))
    p, m = combat.players_strength, combat.monsters_strength
    if combat.fighters_winning:
        return language.say(Phrase("Combat: players win {p} to {m}", p=p, m=m))
    return language.say(Phrase("Combat: monsters win {m} to {p}", p=p, m=m))


def sex_name(sex: str, language: Translator) -> str:
    """A sex in words ("male", "female", "none")."""
    return language.say(SEXES.get(sex, sex))


def traits_line(player: PlayerState, has_races: bool, language: Translator) -> str:
    """Sex, classes, races, motivations, styles and Ally in one short line; a character
    with no race reads Human where the edition has races (`has_races`)."""
    parts = [sex_name(player.sex, language)]
    parts += [language.card_name(name) for name in player.classes]
    if player.races:
        parts += [language.card_name(name) for name in player.races]
    elif has_races:
        parts.append(language.say(HUMAN))
    parts += [language.card_name(name) for name in (*player.motivations, *player.styles)]
    if player.ally is not None:
        parts.append(
            language.say(Phrase("Ally: {name}", name=language.card_name(player.ally.name)))
        )
    return TRAITS_SEPARATOR.join(parts)


def turn_line(state: GameState, language: Translator) -> str:
    """Whose turn it is ("Turn 3: Ann"), or who won ("Ann won!")."""
    if state.winners:
        names = " & ".join(state.players[seat].name for seat in state.winners)
        won = plural_phrase(
            "{names} has won!", "{names} have won!", len(state.winners), names=names
        )
        return language.say(won)
    return language.say(Phrase("Turn {n}: {name}", n=state.turn, name=state.current_player.name))


def fight_line(state: GameState, language: Translator) -> str | None:
    """The fight going on in one line ("Ann + Bo 9 vs 8 Ogre: winning"); None without one."""
    combat = state.combat
    if combat is None:
        return None
    fighters = state.players[combat.fighter].name
    if combat.helper is not None:
        fighters += " + " + state.players[combat.helper].name
    monsters = ", ".join(language.card_name(m.spec.name) for m in combat.monsters)
    # A whole sentence for each verdict: no word of it is pasted into another.
    template = (
        phrase_template("{fighters} {ours} vs {theirs} {monsters}: the players win")
        if combat.fighters_winning
        else phrase_template("{fighters} {ours} vs {theirs} {monsters}: the monsters win")
    )
    return language.say(
        Phrase(
            template,
            fighters=fighters,
            ours=combat.players_strength,
            theirs=combat.monsters_strength,
            monsters=monsters or language.say(MONSTERS),
        )
    )
