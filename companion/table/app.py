"""The table: the one application every screen, counter, phone and command drives.

Like eventsourcing's `Application`, its methods are the commands: open, start, resume
and close games; take an intent with its source (`act`, `press`, `take_roll`, `undo`,
`redo`) and answer with an `Outcome`. It alone saves (its `Recorder` follows the open
game), tells the followers when a game is opened or closed (counters, the table link,
statistics, screens: `followers`), and knows whose run-away roll the game waits for
(`roll_offers`). It imports no Kivy, aiohttp or bleak: the Kivy app wraps it in a thin
view-model (`companion.ui.session`), `companion serve` uses it as it is.

What it has to say that is no outcome (a damaged game opened as far as it could be, a
save that failed) goes to `notices` as (text, error); the text is a `Phrase` where the
words are the app's, translated by whoever shows it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.core import (
    BaseAction,
    Game,
    GameSetup,
    RandomSource,
    ResolveCombat,
    SecretsDice,
    Source,
    check_player_count,
    describe,
)
from companion.core.chapters.combat import resolved_treasure
from companion.core.milestones import Milestone, milestones
from companion.core.phrase import Phrase, phrase_template, plural_phrase
from companion.core.presses import Press
from companion.plumbing.errors import StoreError
from companion.plumbing.listeners import Listeners
from companion.store import GameStore, Recorder
from companion.store.exports import EXPORTS_DIR, bgstats_text, csv_text, select, write_whole
from companion.store.settings import Settings
from companion.table.countdown import KillCountdown, Timer, loop_timer
from companion.table.offers import (
    CAUGHT_CHOOSE,
    RollOffer,
    asks_when_caught,
    pending_runs,
    roll_offers,
    run_away_roll,
)
from companion.table.outcome import Outcome, decide, refused
from companion.table.presses import PressLog, PressRecord, Via, source_of, take_press

if TYPE_CHECKING:
    from companion.store.recorder import Later, Schedule

log = logging.getLogger(__name__)

NOTHING_TO_UNDO = phrase_template("Nothing to undo.")
NO_FIGHT = phrase_template("There is no fight to win.")
ONLY_THE_FIGHTER = phrase_template("Only the fighter calls the kill")
MONSTERS_WINNING = phrase_template("The monsters are winning: you cannot kill them now.")
NO_COUNTDOWN = phrase_template("No kill is being counted down.")
INTERFERES = phrase_template("Wait! Someone interferes.")
# s before a called kill is final when nobody set another wait: the settings' default.
KILL_WAIT_S: float = Settings.model_fields["victory_countdown_s"].default
NOTHING_TO_REDO = phrase_template("Nothing to redo.")
GAME_IMPORTED = phrase_template("Game imported.")
ALREADY_SAVED = phrase_template("This game is already saved: nothing was added.")

# The rule id of a run-away roll that waits for the victim's choice of what to lose.
CHOOSE_LOSS_RULE = "choose_loss_first"


@dataclass(frozen=True)
class HeldRoll:
    """A run-away roll that failed before the victim chose what the Bad Stuff takes: kept
    (never rolled again) until the choice is made, then recorded with it."""

    monster: int
    face: int
    die: str
    via: Via


# A follower hears (game, game_id) when a game is opened, and (None, "") when closed.
Follower = Callable[[Game | None, str], None]
# notices: (text, error)
Notice = Callable[[str, bool], None]


class Table:
    """The open game, its saved copies and everything that follows it.

    `data_dir` is the saved games' folder (None: the user's); `schedule` says when a
    change is written (None: at once), `later` when a failed save is tried again (see
    `GameStore.recorder`); `dice` where the game's dice come from (tests fix them);
    `timer` how the kill's countdown waits (the running asyncio loop by default; Kivy's
    clock in the app), `clock` what it reads the time from, and `kill_seconds` how long
    a called kill waits for interference (the settings' wait).
    """

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        dice: RandomSource | None = None,
        schedule: Schedule | None = None,
        later: Later | None = None,
        store: GameStore | None = None,
        timer: Timer = loop_timer,
        clock: Callable[[], float] = time.monotonic,
        kill_seconds: Callable[[], float] = lambda: KILL_WAIT_S,
    ) -> None:
        self.games: GameStore = store if store is not None else GameStore(data_dir)
        self.recorder: Recorder = self.games.recorder(schedule=schedule, later=later)
        self.games.moved.add(self._moved)
        self.dice: RandomSource = dice if dice is not None else SecretsDice()
        self.game: Game | None = None
        self.game_id = ""
        #: Told (game, game_id) whenever a game is opened or closed.
        self.followers: Listeners[[Game | None, str]] = Listeners()
        #: Told (text, error) of what the table has to say that is not an outcome.
        self.notices: Listeners[[str, bool]] = Listeners()
        #: Every press the table answered, newest last (bounded).
        self.presses = PressLog()
        # seat -> (monster, picks): what the Bad Stuff takes if that fighter is caught
        # running from that monster, chosen before the roll (`prepare_run`).
        self._run_picks: dict[int, tuple[int, tuple[str, ...]]] = {}
        # seat -> the roll that caught them while that choice was still to be made.
        self._held: dict[int, HeldRoll] = {}
        #: The wait before a kill is final (the table's: every screen and page shows it).
        self.countdown = KillCountdown(timer, clock)
        self._kill_seconds = kill_seconds
        # The treasures the helper takes of a kill, and whether they pick first, as agreed.
        self._share = (0, False)
        self._unsubscribe: Callable[[], None] | None = None
        # The last `meaning` worked out, and for which game as it stood (Game over is
        # shown again after a look at the table: it is not read again).
        self._meaning: tuple[tuple[object, ...], list[Milestone]] | None = None

    # -- games --------------------------------------------------------------------------
    def resume(self) -> list[str]:
        """Open the last game played; returns what went wrong on the way (a saved-games
        database set aside, a damaged last game), each said in a line."""
        problems = [self.games.problem] if self.games.problem else []
        try:
            last = self.games.load_last()
        except StoreError as exc:
            problems.append(str(exc))
            last = None
        problems += self.games.news()
        if last is not None:
            self._open(*last)
        return problems

    def _moved(self, game_id: str, new_id: str, said: str) -> None:
        """The game played here was kept beside another program's under a new id."""
        if game_id == self.game_id:
            self.game_id = new_id
        self.notices.emit(said, True)

    def start(self, setup: GameSetup) -> Game:
        """Open a new game from a setup and save it at once. A count of players the
        edition's box does not name needs its house rule in the setup: RuleError
        "player_count" otherwise, whichever way the game is started (RULES.md §11)."""
        check_player_count(setup)
        game = Game(setup, rng=self.dice)
        self._open(self.games.new_id(), game)
        self.save()
        return game

    def open(self, game_id: str) -> bool:
        """Open a saved game; a damaged file is said (notices) and nothing changes."""
        try:  # the open game's last change is written first (the store sees to it)
            game = self.games.load(game_id)
        except StoreError as exc:
            self.notices.emit(str(exc), True)
            return False
        for news in self.games.news():  # a damaged game opened as far as it could be
            self.notices.emit(news, True)
        self.games.last_id = game_id
        self._open(game_id, game)
        return True

    def adopt(self, game: Game) -> None:
        """Open a game built elsewhere (a demo, say) under a new saved id, and save it."""
        self._open(self.games.new_id(), game)
        self.save()

    def close(self) -> None:
        """Put the open game away (it stays saved)."""
        self.save()
        self._open("", None)

    def delete(self, game_id: str) -> bool:
        """Delete a saved game (closing it first if it is open)."""
        if game_id == self.game_id:
            self._open("", None)
        try:
            self.games.delete(game_id)
        except (StoreError, OSError) as exc:
            self.notices.emit(str(exc), True)
            return False
        return True

    def save(self) -> bool:
        """Write what changed in the open game and wait until it is on disk; a failure is
        said (notices), never raised."""
        if self.game is None or not self.game_id:
            return True
        try:
            self.recorder.save()
        except (StoreError, OSError) as exc:
            words = Phrase("The game could not be saved: {problem}", problem=str(exc))
            self.notices.emit(words, True)
            return False
        return True

    # -- the table's history -----------------------------------------------------------
    def meaning(self) -> list[Milestone]:
        """What the open game, won, meant at this table (`companion.core.milestones`),
        against the games started before it: read from their summaries, so it costs one
        small query and no replay. Nothing while older games wait to be summarised (they
        are, then, in the background), since a record against some games only is none."""
        game = self.game
        if game is None or not game.state.winners:
            return []
        key = (self.game_id, id(game), game.sequence)
        if self._meaning is not None and self._meaning[0] == key:
            return list(self._meaning[1])
        this = self.recorder.summary()
        if this is None:
            return []
        try:
            played = self.games.played()
            if played.waiting:
                self.games.summarise_waiting()
                return []
        except StoreError as exc:
            log.warning("the saved games' statistics cannot be read: %s", exc)
            return []
        # Its seats count as their people, as the earlier games' seats do: a seat typed
        # with a name merged or renamed since is still that person, whose history counts.
        people = played.counted_as(self.game_id)
        if people is not None and len(people) == len(this.players):
            this = dataclasses.replace(this, players=people)
        found = milestones(played.before(self.game_id), this)
        self._meaning = (key, found)
        return list(found)

    def export_game(self, game_id: str = "") -> list[Path]:
        """Write a finished game (the open one by default) as a BG Stats play and as CSV
        into the data folder's exports folder; returns the files written. StoreError (an
        ExportError among them) says why it could not."""
        game_id = game_id or self.game_id
        if game_id == self.game_id:
            self.save()  # its last action is in the summary exported
        chosen = select(self.games.played().games, game_id=game_id)
        folder = self.games.root / EXPORTS_DIR
        return [
            write_whole(folder / f"{game_id}-bgstats.json", bgstats_text(chosen, one=True)),
            write_whole(folder / f"{game_id}.csv", csv_text(chosen)),
        ]

    def durable(self, outcome: Outcome) -> Awaitable[None] | None:
        """What to wait for before answering an applied intent: its change on disk (None
        when there is nothing to wait for). Raises StoreError through the awaitable when
        the change cannot be written."""
        if not outcome.applied or outcome.sequence < 0 or self.game is None:
            return None
        return self.recorder.wait_durable(outcome.sequence)

    def shutdown(self) -> None:
        """Save the open game and close the saved games (the table is no longer used)."""
        self.save()
        self.games.close()

    # -- intents -------------------------------------------------------------------------
    def act(
        self, action: BaseAction | type[BaseAction], via: Via = "tap", **fields: Any
    ) -> Outcome:
        """Apply an action (an instance, or an action class plus its fields) to the game.

        A broken rule or a bad value is refused with its words and changes nothing."""
        game = self.game

        def build() -> BaseAction:
            if isinstance(action, type):
                if via != "tap" and "source" not in fields:
                    fields["source"] = source_of(via, fields.get("player"))
                return action(**fields)
            if via != "tap" and action.source is None:  # the log records where it came from
                return action.evolve(source=source_of(via, getattr(action, "player", None)))
            return action

        return decide(game, build, f"a {via}'s action")

    def press(
        self,
        press: Press,
        player: int | None,
        via: Via = "tap",
        *,
        seat: int | None = None,
        who: str = "",
        seq: int = 0,
        intent: int = 0,
        override: str | None = None,
    ) -> Outcome:
        """A Level or Gear +/− or Next turn from anywhere: the one press path (see
        `take_press`), recorded in `presses`."""
        outcome = take_press(self.game, press, player, via, seat=seat, override=override)
        record = PressRecord(
            via=via,
            who=who or str(seat if seat is not None else player),
            press=press.value,
            seq=seq,
            intent=intent,
        )
        self.presses.add(record, outcome)
        return outcome

    def allowed(self, action: BaseAction | type[BaseAction], **fields: Any) -> bool:
        """Whether the rules would accept the action now (for dimming buttons)."""
        if self.game is None:
            return False
        try:
            if isinstance(action, type):
                action = action(**fields)
        except ValueError:  # pydantic's refusal of a value: not allowed either
            return False
        return self.game.check(action) is None

    def undo(self, steps: int = 1) -> Outcome:
        """Take back the last `steps` actions; the outcome says what was taken back."""
        game = self.game
        if game is None or not game.can_undo:
            return refused(NOTHING_TO_UNDO, "nothing_to_undo")
        steps = max(1, min(steps, game.revision))
        last = self.last_in_words()
        game.undo(steps)
        if steps == 1:
            words = Phrase("Undone: {what}", what=last)
        else:
            words = plural_phrase(
                "Undone: the last {n} action", "Undone: the last {n} actions", steps, n=steps
            )
        return Outcome(applied=True, why=words, action="undo", sequence=game.sequence)

    def redo(self, steps: int = 1) -> Outcome:
        """Apply again the last `steps` actions taken back; the outcome says which."""
        game = self.game
        if game is None or not game.can_redo:
            return refused(NOTHING_TO_REDO, "nothing_to_redo")
        steps = max(1, min(steps, game.recorded - game.revision))
        game.redo(steps)
        if steps == 1:
            words = Phrase("Redone: {what}", what=self.last_in_words())
        else:
            words = plural_phrase(
                "Redone: the last {n} action", "Redone: the last {n} actions", steps, n=steps
            )
        return Outcome(applied=True, why=words, action="redo", sequence=game.sequence)

    def last_in_words(self) -> str:
        """The action the game recorded last, as a sentence (a `Phrase` to translate)."""
        game = self.game
        if game is None or game.revision == 0:
            return ""
        revision = game.revision - 1
        try:
            return describe(game.action_at(revision), game.state_at(revision))
        except (ValueError, LookupError, AttributeError):
            return game.action_at(revision).type.replace("_", " ")

    # -- run-away rolls ------------------------------------------------------------------
    def roll_offers(self) -> dict[int, RollOffer]:
        """Whose run-away roll the game waits for now, by seat (see `offers.roll_offers`)."""
        return roll_offers(self.game.state) if self.game is not None else {}

    def prepare_run(self, seat: int, monster: int, picks: tuple[str, ...] | None) -> Outcome | None:
        """What the Bad Stuff of `monster` takes if `seat` is caught running from it, as
        chosen (None: not chosen yet); a roll from anywhere uses it. When a roll already
        caught them there (`held_roll`), the choice completes it: the roll is recorded
        with it, and the outcome says so (None when no held roll was completed)."""
        if picks is None:
            self._run_picks.pop(seat, None)
            return None
        self._run_picks[seat] = (monster, picks)
        held = self._held.get(seat)
        if held is None or held.monster != monster:
            return None
        return self.take_roll(seat, held.face, held.via, die=held.die, monster=monster)

    def held_roll(self, seat: int) -> HeldRoll | None:
        """The roll that caught `seat` and waits for their choice of what to lose."""
        return self._held.get(seat)

    def take_roll(
        self,
        seat: int,
        face: int | None,
        via: Via = "tap",
        *,
        die: str = "",
        monster: int | None = None,
    ) -> Outcome:
        """A run-away roll for `seat` (a face 1-6, or None: the table rolls), from a
        phone, a smart die or the host's Run away screen alike: against `monster` (the
        screen's choice) or the monster the table waits for that seat to run from next;
        refused when it waits for none. `die` names the smart die that gave the face."""
        game = self.game
        held = self._held.get(seat)
        if held is not None:
            # The roll that caught them stands: it is never rolled again.
            monster, face, die, via = held.monster, held.face, held.die, held.via
        if monster is None:
            offer = self.roll_offers().get(seat)
            target = offer.monster if offer is not None else None
        else:
            target = monster
        chosen = self._run_picks.get(seat)
        picks = chosen[1] if chosen is not None and chosen[0] == target else None
        if (
            face is None
            and picks is None
            and game is not None
            and target is not None
            and asks_when_caught(game.state, seat, target)
        ):
            face = game.roll_d6()  # rolled first: what to lose is asked only if caught

        def action() -> BaseAction:
            assert game is not None  # decide() answers for a table with no game
            source = source_of(via, seat)
            return run_away_roll(game.state, seat, face, source, die, picks, target)

        outcome = decide(game, action, f"a {via}'s run-away roll")
        if outcome.rule == CHOOSE_LOSS_RULE and face is not None and target is not None:
            self._held[seat] = HeldRoll(target, face, die, via)
            outcome = refused(Phrase(CAUGHT_CHOOSE, roll=face), CHOOSE_LOSS_RULE, outcome.action)
        if outcome.applied:
            self._run_picks.pop(seat, None)
            self._held.pop(seat, None)
        self.presses.add(PressRecord(via=via, who=str(seat), press="roll"), outcome)
        return outcome

    # -- the kill ------------------------------------------------------------------------
    def agree_share(self, treasures: int, first: bool) -> None:
        """The treasures the helper takes of a kill and whether they pick first, as the
        fighter and helper agreed (the Combat screen's steppers); a kill from anywhere
        uses it, capped to what the fight gives."""
        self._share = (max(0, treasures), first)

    def kill(self, via: Via = "tap", seat: int | None = None) -> Outcome:
        """Call the kill: the countdown starts (anyone may still interfere), and the fight
        ends in the kill when it is over if the fighters are still winning then. From a
        phone, only the fighter may call it."""
        game = self.game
        combat = game.state.combat if game is not None else None
        if game is None or combat is None:
            return refused(NO_FIGHT, "no_fight")
        if via == "phone" and seat != combat.fighter:
            return refused(ONLY_THE_FIGHTER, "only_the_fighter")
        if not combat.fighters_winning:
            return refused(MONSTERS_WINNING, "monsters_winning")
        source = source_of(via, seat)
        self.countdown.start(float(self._kill_seconds()), lambda: self._finish_kill(source))
        return Outcome(applied=True, action="kill_called")

    def interfere(self, via: Via = "tap", seat: int | None = None) -> Outcome:
        """Wait! Someone plays a card: the countdown stops (the kill can be called again)."""
        if not self.countdown.stop():
            return refused(NO_COUNTDOWN, "no_countdown")
        return Outcome(applied=True, why=INTERFERES, action="interfere")

    def _still_winning(self) -> bool:
        state = self.game.state if self.game is not None else None
        return state is not None and state.combat is not None and state.combat.fighters_winning

    def _finish_kill(self, source: Source | None) -> None:
        game = self.game
        if game is None or not self._still_winning():
            return
        combat = game.state.combat
        assert combat is not None  # still winning: a fight is on
        action = ResolveCombat(outcome="kill", source=source)
        total = resolved_treasure(action, game.state, combat)
        treasures, first = self._share
        if combat.helper is not None and total > 0:
            action = action.evolve(helper_treasure=min(treasures, total), helper_first=first)
        outcome = decide(game, lambda: action, "the kill at the end of its countdown")
        if outcome.refused:
            self.notices.emit(outcome.why, True)
        else:
            self._share = (0, False)

    def _game_changed(self, state: Any) -> None:
        if self.countdown.running and not self._still_winning():
            self.countdown.stop()  # a card turned the fight (or ended it): the kill is off
        for seat, held in list(self._held.items()):
            if held.monster not in pending_runs(state, seat):
                del self._held[seat]  # that run is over (an undo, an Ally, a death)

    # -- inside --------------------------------------------------------------------------
    def _open(self, game_id: str, game: Game | None) -> None:
        # What the game being put away still had to write is queued first.
        self.recorder.follow(game_id, game)
        self._run_picks.clear()
        self._held.clear()
        self.countdown.stop()
        self._share = (0, False)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if game is not None:
            self._unsubscribe = game.subscribe(self._game_changed)
        self.game = game
        self.game_id = game_id
        self.followers.emit(game, game_id)
