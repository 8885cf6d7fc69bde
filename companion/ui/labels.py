"""Words for the core's values (phases, sexes, outcomes) shared by several screens."""

from __future__ import annotations

from companion.core import Edition, GameState, Phase, PlayerState, Sex
from companion.ui.i18n import N_, _, card_name

PHASES: dict[str, str] = {
    Phase.LISTEN_AT_THE_DOOR: N_("Listen at the door"),
    Phase.KICK_OPEN_THE_DOOR: N_("Kick open the door: you must"),
    Phase.LOOT_OR_TROUBLE: N_("Loot the room or look for trouble"),
    Phase.CHARITY: N_("Charity"),
    Phase.GAME_OVER: N_("Game over"),
}

SEXES: dict[str, str] = {Sex.MALE: N_("Male"), Sex.FEMALE: N_("Female"), Sex.NONE: N_("Neither")}


def phase_name(phase: str) -> str:
    """A phase in words."""
    return _(PHASES.get(phase, phase))


def phase_line(state: GameState) -> str:
    """Where the turn is, in words; during a fight, how the fight stands."""
    combat = state.combat
    if combat is None:
        return phase_name(state.phase)
    if combat.running:
        return _("Combat: running away")
    if combat.fighters_winning:
        return _("Combat: players win {p} to {m}").format(
            p=combat.players_strength, m=combat.monsters_strength
        )
    return _("Combat: monsters win {m} to {p}").format(
        p=combat.players_strength, m=combat.monsters_strength
    )


def sex_name(sex: str) -> str:
    """A sex in words."""
    return _(SEXES.get(sex, sex))


def traits_line(player: PlayerState, has_races: bool) -> str:
    """Sex, classes, races and the like in one short line for a tile."""
    parts = [sex_name(player.sex)]
    parts += [card_name(name) for name in player.classes]
    if player.races:
        parts += [card_name(name) for name in player.races]
    elif has_races:
        parts.append(_("Human"))
    parts += [card_name(name) for name in (*player.motivations, *player.styles)]
    if player.ally is not None:
        parts.append(_("Ally: {name}").format(name=card_name(player.ally.name)))
    return " \u00b7 ".join(parts)


# The built-in editions by the names their boxes carry (product names: not translated).
# The app's own names for them ("Classic fantasy", ...) describe the setting instead.
EDITION_TITLES = {
    "classic": "Munchkin",
    "fu": "Munchkin Fu",
    "oz": "Munchkin Oz",
    "adventure_time": "Munchkin Adventure Time",
    "disney": "Munchkin Disney",
}


def edition_title(edition: Edition) -> str:
    """An edition by the name a player knows it by: its box's, or (an edition from a card
    pack) its own name in the player's language."""
    return EDITION_TITLES.get(edition.id, card_name(edition.name))


def edition_detail(edition: Edition) -> str:
    """A line that tells editions apart: the setting and its classes."""
    classes = ", ".join(card_name(name) for name in edition.classes)
    return f"{card_name(edition.name)} \u00b7 {classes}" if classes else card_name(edition.name)
