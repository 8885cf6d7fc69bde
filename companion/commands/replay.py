"""`companion replay GAME.json`: check a saved game by replaying it, and say where it stands."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.core import Edition, Game, GameState

# A game log takes about 100 bytes per action: 32 MiB is some 300,000 actions, far
# beyond any evening's game, and small enough to read and check in memory.
MAX_LOG_BYTES = 32 * 2**20

HELP = "replay a saved game log with every rule checked and say who is where"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", type=Path, metavar="GAME.json", help="a saved game log")
    parser.add_argument(
        "--at",
        type=int,
        metavar="N",
        help="the state after the first N actions (0 = the setup) instead of the last one",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the whole state as JSON instead of a summary"
    )
    parser.add_argument(
        "--compact",
        action="store_true",
        help="print the JSON state on one line instead of indented (implies --json)",
    )


def run(args: argparse.Namespace) -> int:
    # Imported here so `companion --help` does not pay for pydantic.
    from companion.core import Game

    path: Path = args.game
    try:
        # Read at most one byte past the limit: /dev/zero or a pipe has no size to ask for.
        with path.open("rb") as handle:
            text = handle.read(MAX_LOG_BYTES + 1)
    except OSError as err:
        return _fail(f"{path}: cannot read: {err.strerror or err}")
    if len(text) > MAX_LOG_BYTES:
        return _fail(
            f"{path}: larger than {MAX_LOG_BYTES // 2**20} MiB, the most a game log may hold"
        )
    try:
        # A saved game is checked as it was written, names and all.
        game = Game.from_json(text, editions=_shipped_editions(), saved=True)
    except ValueError as err:  # GameLogError, and anything else the log's contents provoke
        return _fail(f"{path}: {err}")
    count = len(game.log)
    at = count if args.at is None else args.at
    if not 0 <= at <= count:
        return _fail(f"{path}: --at {at} is not in the log: it has actions 0 to {count}")
    state = game.state_at(at)
    if args.json or args.compact:
        out = json.dumps(
            state.model_dump(mode="json"), indent=None if args.compact else 2, ensure_ascii=False
        )
    else:
        out = summary(game, at)
    try:
        print(out)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) stopped early: that is not an error of the log.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _fail(message: str) -> int:
    print(f"companion replay: {message}", file=sys.stderr)
    return 1


def _shipped_editions() -> dict[str, Edition] | None:
    """The editions shipped as card files, to resolve `"edition": "<id>"` in a setup."""
    from companion.cards import PackError, load_editions

    try:
        return load_editions()
    except (PackError, OSError) as err:
        print(
            f"companion replay: the shipped editions cannot be read ({err}); "
            "using the built-in ones",
            file=sys.stderr,
        )
        return None


def summary(game: Game, at: int) -> str:
    """Where the game stands after `at` actions, for a person: the table, each player,
    the combat or the last one, and the winners."""
    from companion.core import describe

    state = game.state_at(at)
    lines = [_game_line(state), _turn_line(state, at, len(game.log))]
    if at:
        lines.append(f"Last action: {describe(game.log[at - 1], game.state_at(at - 1))}")
    lines.append("")
    width = max(len(p.name) for p in state.players)
    for seat, player in enumerate(state.players):
        lines.append(f"  {seat}  {player.name:<{width}}  {_player_line(state, seat)}")
    lines.append("")
    lines.extend(_combat_lines(state))
    if state.winners:
        names = " and ".join(state.players[w].name for w in state.winners)
        first = state.players[state.winners[0]]
        lines.append(f"Won by {names}: {first.name} reached Level {first.level}")
    elif not state.no_limit:
        lines.append(f"No winner yet (the game is played to Level {state.winning_level})")
    else:
        lines.append("No winner yet (no limit: nobody wins by Level)")
    return "\n".join(lines)


def _game_line(state: GameState) -> str:
    variants = state.setup.variants
    limit = "no limit" if variants.no_limit else f"to Level {variants.winning_level}"
    extras = [
        name
        for name, on in (
            ("shared victory", variants.shared_victory),
            ("faster play", variants.faster_play),
        )
        if on
    ]
    players = len(state.players)
    return ", ".join([f"{state.setup.edition.name}: {players} players, {limit}", *extras])


def _turn_line(state: GameState, at: int, count: int) -> str:
    where = "the start" if at == 0 else f"action {at} of {count}"
    phase = state.phase.value.replace("_", " ")
    return f"At {where}: turn {state.turn}, {state.current_player.name}'s turn ({phase})"


def _player_line(state: GameState, seat: int) -> str:
    player = state.players[seat]
    parts = [f"Level {player.level}", f"strength {state.strength_of(seat)}"]
    traits = [
        *player.classes,
        *player.races,
        *player.motivations,
        *player.styles,
    ]
    if traits:
        parts.append(", ".join(traits))
    if player.trait_bonus:
        parts.append(f"traits {player.trait_bonus:+d}")
    worn = [f"{i.spec.name} ({i.spec.bonus:+d})" for i in player.items if i.equipped]
    if worn:
        parts.append("wears " + ", ".join(worn))
    if player.gear_bonus:
        parts.append(f"gear {player.gear_bonus:+d}")
    if player.ally is not None:
        parts.append(f"Ally {player.ally.name}")
    if player.dead:
        parts.append("dead")
    return "  ".join(parts)


def _combat_lines(state: GameState) -> list[str]:
    combat = state.combat
    if combat is not None:
        fighters = " and ".join(state.players[s].name for s in combat.fighters)
        monsters = ", ".join(f"{m.spec.name} ({m.strength})" for m in combat.monsters)
        verdict = "the players are winning" if combat.fighters_winning else "the monsters win"
        return [
            f"Combat: {fighters} ({combat.players_strength}) against {monsters}: {verdict}"
            f" ({combat.players_strength} to {combat.monsters_strength})"
        ]
    last = state.last_combat
    if last is None:
        return []
    fighter = state.players[last.fighter].name
    monsters = ", ".join(last.monsters) or "the monsters"
    outcome = {
        "kill": f"{fighter} killed {monsters} (levels: {last.levels}, treasure: {last.treasure})",
        "defeat": f"{fighter} defeated {monsters} without a kill (treasure: {last.treasure})",
        "ran_away": f"{fighter} ran from {monsters}",
        "fighter_died": f"{fighter} died fighting {monsters}",
    }[last.outcome]
    lines = [f"Last combat: {outcome}"]
    for roll in last.rolls:
        name = state.players[roll.fighter].name
        monster = last.monsters[roll.monster] if roll.monster < len(last.monsters) else "?"
        result = "escaped" if roll.escaped else f"caught: {roll.bad_stuff or 'no Bad Stuff'}"
        lines.append(
            f"  {name} rolled {roll.roll} ({roll.modifier:+d}) against {monster}: {result}"
        )
    return lines
