"""The rules engine: setup models, actions, the pure fold of the game log, and `Game`.

No Kivy and no I/O here; everything else in the companion builds on these names.
"""

from __future__ import annotations

from companion.core.actions import ACTION_ADAPTER, ACTION_TYPES, Action, BaseAction
from companion.core.chapters.base import Source
from companion.core.chapters.run_away import bad_stuff_choices, loss_candidates
from companion.core.describe import describe
from companion.core.dice import FixedDice, RandomSource, SecretsDice, SeededDice
from companion.core.engine import apply_action, fill_rolls, replay
from companion.core.errors import RuleError
from companion.core.game import LOG_FORMAT, LOG_VERSION, Game, GameLogError
from companion.core.models import (
    ADVENTURE_TIME,
    CLASSIC,
    DISNEY,
    EDITIONS,
    FU,
    MAX_LEVEL,
    OZ,
    AllySpec,
    BadStuff,
    Condition,
    Edition,
    EnhancerSpec,
    GameSetup,
    ItemSpec,
    Loss,
    MonsterModifier,
    MonsterSpec,
    PlayerSetup,
    Sex,
    Variants,
)
from companion.core.rules import (
    RUN_AWAY_TARGET,
    charity_recipients,
    combat_strength,
    fighters_win,
    levels_for_gold,
    monster_strength,
    monster_treasure,
    qualifies,
    run_away_escapes,
)
from companion.core.state import (
    CharityResult,
    CombatResult,
    CombatState,
    DieRoll,
    GameState,
    Item,
    LootOrder,
    MonsterInPlay,
    OneShot,
    Phase,
    PlayerState,
    RunAwayRoll,
    Said,
    TraitBonus,
)

# Every action class is exported by its own name, from the one registry of actions.
globals().update({action.__name__: action for action in ACTION_TYPES})

__all__ = [
    "ACTION_ADAPTER",
    "ACTION_TYPES",
    "ADVENTURE_TIME",
    "CLASSIC",
    "DISNEY",
    "EDITIONS",
    "FU",
    "MAX_LEVEL",
    "LOG_FORMAT",
    "LOG_VERSION",
    "OZ",
    "RUN_AWAY_TARGET",
    "Action",
    "AllySpec",
    "BadStuff",
    "BaseAction",
    "Source",
    "CharityResult",
    "CombatResult",
    "CombatState",
    "Condition",
    "DieRoll",
    "Edition",
    "EnhancerSpec",
    "FixedDice",
    "Game",
    "GameLogError",
    "GameSetup",
    "GameState",
    "Item",
    "ItemSpec",
    "LootOrder",
    "Loss",
    "MonsterInPlay",
    "MonsterModifier",
    "MonsterSpec",
    "OneShot",
    "Phase",
    "PlayerSetup",
    "PlayerState",
    "RandomSource",
    "RuleError",
    "RunAwayRoll",
    "Said",
    "TraitBonus",
    "SecretsDice",
    "SeededDice",
    "Sex",
    "Variants",
    "apply_action",
    "bad_stuff_choices",
    "charity_recipients",
    "combat_strength",
    "describe",
    "fighters_win",
    "fill_rolls",
    "levels_for_gold",
    "loss_candidates",
    "monster_strength",
    "monster_treasure",
    "qualifies",
    "replay",
    "run_away_escapes",
    *(action.__name__ for action in ACTION_TYPES),
]
