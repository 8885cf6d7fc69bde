"""The rules by rulebook chapter: each module holds its chapter's actions, how each one
applies (`step`) and how the History says it (`words`).

Adding an action is one edit in one chapter: the frozen action class (it registers
itself with its `type`), its `rule`, its `step` handler and its `words`.
`companion.core.actions` derives the list of actions and the JSON union from that registry.

Each handler is named for its dispatcher and the action's `type` (`rule_end_turn`,
`step_end_turn`, `words_end_turn`, `fill_rolls_roll_die`), so a traceback names the rule.
"""
