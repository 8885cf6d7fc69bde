"""A run-away roll comes first: what the Bad Stuff takes is asked only when the roll has
caught the fighter, the table keeps that roll (it is never rolled again) until the choice
is made, and a roll from a phone is completed by the choice made on the host."""

from __future__ import annotations

from pathlib import Path

from companion.core import (
    CLASSIC,
    BadStuff,
    FixedDice,
    GainItem,
    GameSetup,
    ItemSpec,
    MonsterSpec,
    PlayerSetup,
    Sex,
    StartCombat,
    Variants,
)
from companion.table.app import Table

BULLY = MonsterSpec(name="Bully", level=15, bad_stuff=BadStuff(lose=("biggest_item",)))


def table_with(tmp_path: Path, rolls: list[int]) -> Table:
    """Anna, with a Club and a Sword (+3 each), runs from the Bully, who takes the item
    with the biggest bonus: she would have to choose which. The game's dice give `rolls`."""
    table = Table(tmp_path, dice=FixedDice(rolls))
    players = tuple(PlayerSetup(name=n, colour="#3e8ef7", sex=Sex.MALE) for n in ("Anna", "Bo"))
    two = Variants(house_player_count=True)  # two at the table: the house rule
    game = table.start(GameSetup(players=players, edition=CLASSIC, variants=two))
    for name in ("Club", "Sword"):
        item = ItemSpec(name=name, bonus=3, slot="hands", hands=1)
        game.apply(GainItem(player=0, item=item, equip=True))
    game.apply(StartCombat(fighter=0, monsters=(BULLY,)))
    return table


def item_ids(table: Table) -> dict[str, str]:
    assert table.game is not None
    return {i.spec.name: i.id for i in table.game.state.players[0].items}


def test_an_escape_needs_no_choice(tmp_path: Path) -> None:
    table = table_with(tmp_path, [6])
    outcome = table.take_roll(0, None)  # the table rolls: a 6 escapes
    assert outcome.applied, outcome.why
    assert table.game is not None and table.game.state.combat is None
    assert table.game.state.last_combat.rolls[0].escaped


def test_a_caught_roll_waits_for_the_choice_and_is_never_rolled_again(tmp_path: Path) -> None:
    table = table_with(tmp_path, [2, 6, 6])
    game = table.game
    assert game is not None
    waiting = table.take_roll(0, None)
    assert waiting.refused and waiting.rule == "choose_loss_first"
    assert waiting.why == "Caught on a 2: choose what the Bad Stuff takes."
    assert game.state.combat is not None and game.state.combat.rolls == ()
    held = table.held_roll(0)
    assert held is not None and (held.monster, held.face) == (0, 2)
    again = table.take_roll(0, None)  # rolling again changes nothing: the 2 stands
    assert again.refused and table.held_roll(0) == held
    done = table.prepare_run(0, 0, (item_ids(table)["Sword"],))
    assert done is not None and done.applied, done
    result = game.state.last_combat
    assert result is not None and result.rolls[0].roll == 2 and not result.rolls[0].escaped
    assert result.rolls[0].items_lost == ("Sword",)
    assert table.held_roll(0) is None


def test_a_phones_caught_roll_is_completed_by_the_choice_on_the_host(tmp_path: Path) -> None:
    table = table_with(tmp_path, [])
    outcome = table.take_roll(0, 1, "phone")  # a real die showed 1 on Anna's phone
    assert outcome.refused and outcome.rule == "choose_loss_first"
    done = table.prepare_run(0, 0, (item_ids(table)["Club"],))
    assert done is not None and done.applied
    game = table.game
    assert game is not None
    last = game.action_at(game.revision - 1)
    assert last.source is not None and last.source.via == "phone"
    assert game.state.last_combat.rolls[0].items_lost == ("Club",)


def test_a_choice_made_before_the_roll_still_goes_with_it(tmp_path: Path) -> None:
    table = table_with(tmp_path, [1])
    assert table.prepare_run(0, 0, (item_ids(table)["Club"],)) is None  # no roll yet
    outcome = table.take_roll(0, None)
    assert outcome.applied
    assert table.game is not None
    assert table.game.state.last_combat.rolls[0].items_lost == ("Club",)


def test_a_held_roll_goes_when_the_fight_is_taken_back(tmp_path: Path) -> None:
    table = table_with(tmp_path, [1])
    assert table.take_roll(0, None).refused
    assert table.held_roll(0) is not None
    assert table.undo().applied  # the fight is taken back
    assert table.held_roll(0) is None
