"""Which pass runs when: the first, main, replacement and last lists, and the rules that run some
main passes again within a sweep (the coarse head, the folding passes), rest a pass that paid too
little for a sweep, narrow sweeps (adaptive) and go past the deletion fixpoint (the replacement
stage).

The engine runs passes and asks the schedule what comes next; the schedule never runs anything.
Its answers follow from the part's size and text, from which passes removed something and from
how many bytes they removed for how many candidates they put to the oracle, never from timing,
so a resumed run's replay asks the same questions and gets the same answers.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from .. import passes
from ..passes import Pass


class Schedule:
    """The pass lists, and the marks the rules keep while a part is swept (the part's text when
    the revisit passes last ran, its size when the coarse head last ended): one per run."""

    def __init__(self, *, first: Sequence[Pass] = (), main: Sequence[Pass], last: Sequence[Pass] = (),
                 replace: Sequence[Pass] = (), revisit: Sequence[Pass] = (), revisit_shrink: float = 0.2,
                 coarse: Sequence[Pass] = (), coarse_shrink: float = 0.1, tail: Sequence[Pass] = (),
                 adaptive: bool = False, rest_rate: int = 32):
        self.first, self.main, self.last = list(first), list(main), list(last)
        # The replacement stage (Vulcan's): once a sweep of the main list removes nothing, these
        # run as a sweep of their own; if one of them is accepted, the main sweeps resume (a
        # replacement exposes deletions: a helper no longer called, a class no longer named),
        # and the stage comes again at their next fixpoint. The sweeps end when the stage has
        # nothing accepted. Every replacement shrinks the file, so this ends.
        self.replace = list(replace)
        # Main passes that fold what the others expose (instantiate, unused): next to nothing to
        # do until a deletion makes them applicable, then a big step. In a sweep, once the part
        # has shrunk by `revisit_shrink` since they last ran, they run again at once, between two
        # searches of the pass that shrank it, rather than a sweep later (on a big file the first
        # sweep's tree-delete alone can take an hour). Between two passes of a sweep they also
        # run whenever the part changed since they last ran: with nothing new to fold they
        # propose nothing and cost no test. When one of them changes the part, those before it
        # run again at once: a kernel made plain leaves its template to `unreached`.
        self.revisit, self.revisit_shrink = list(revisit), revisit_shrink
        # The coarse head of the main list (through tree-delete): once the passes after it have
        # shrunk the part by `coarse_shrink` since it last ended, it runs again before the next
        # fine pass. On a big file a fine pass costs a test per line or token, and what the fine
        # passes expose (a helper no longer called, a template used once) is the coarse passes'.
        # Not when only the sweep's `tail` (the main list's closing passes: `blank`) or nothing is
        # left of the sweep: the next sweep starts with the coarse head, and a rerun just before
        # it repeats its tests on a text that differs by a tail pass's edits (blank lines move
        # every line, so nothing of it is remembered).
        self.coarse, self.coarse_shrink, self.tail = list(coarse), coarse_shrink, list(tail)
        # After a full sweep, only the main passes that removed something run again, until none
        # does; then a full sweep again.
        self.adaptive = adaptive
        # A main pass whose last sweep bought less than a byte per `rest_rate` candidates it put
        # to the oracle (compile errors and not-interesting verdicts alike; none bought counts
        # too) sits the next sweep out; it never rests two sweeps in a row, and the sweeps end
        # only with a sweep of every main pass that removes nothing, so every pass has its full
        # try on the final file and the result is the same kind of fixpoint. Late in a run most
        # main passes re-ask about every item of a file that changed elsewhere and buy nothing,
        # a test each; resting spends those tests every other sweep instead of every sweep, and
        # the closing full sweep costs little where the file did not change (what the others
        # asked is remembered). Measured in candidates decided, not seconds or tests run: the
        # same at any -j and on a replay. 0: no pass rests (adaptive sweeps: none does either).
        self.rest_rate = rest_rate
        self._paid: dict[str, tuple[int, int]] = {}  # per main pass, its last sweep's (bytes removed, asked)
        self.resting: list[Pass] = []  # the main passes the current sweep leaves out
        self._revisited: bytes | None = None  # the part's text when the revisit passes last ran; None: not in a sweep
        self._coarse_mark = 0                 # the part's size when the coarse head last ended
        self._after = b""                     # the part's text when the last pass of the sweep ended

    @classmethod
    def from_registry(cls, pass_names: Sequence[str] | None = None, *, rename: bool = False,
                      skip: Sequence[str] = (), adaptive: bool = False,
                      replacements: bool = True) -> Schedule:
        """The default schedule, or `pass_names` as the main list (and no replacement stage); with
        `rename`, the identifier shortening joins the main list; without `replacements`, no
        replacement stage; the passes named in `skip` are taken out of all four. The revisit
        passes and the coarse head are those of the default ones left in the main list, its tail
        the default main list's closing tidy-up (`blank`) when it is left there. An unknown name
        is a KeyError that lists the known ones."""
        passes.resolve(list(skip))
        stage: Sequence[str] = passes.REPLACE if replacements else ()
        names: tuple[Sequence[str], ...] = (
            ([], pass_names, [], []) if pass_names else (passes.FIRST, passes.MAIN, stage, passes.LAST))
        if rename and "rename" not in names[1]:
            names = (names[0], [*names[1], "rename"], *names[2:])
        first, main, replace, last = (passes.resolve([n for n in listed if n not in skip]) for listed in names)
        return cls(first=first, main=main, replace=replace, last=last, adaptive=adaptive,
                   revisit=[p for p in main if p.name in passes.REVISIT],
                   coarse=[p for p in main if p.name in passes.COARSE],
                   tail=[p for p in main[-1:] if p.name == passes.MAIN[-1]])

    def next_sweep(self, swept: list[Pass], removed: list[Pass],
                   paid: Mapping[str, tuple[int, int]] | None = None) -> list[Pass]:
        """A sweep of `swept` is over, `removed` are its passes that removed something and `paid`
        what each of its passes bought, (bytes removed, candidates put to the oracle): the passes
        of the next sweep, or none when the sweeps are over. After a sweep of the main list that
        removed nothing comes the replacement stage; after the stage, the main sweeps again if
        it removed something, else nothing. While sweeps remove something, the main passes that
        paid too little rest (`rest_rate`); a sweep that removed nothing with some resting is
        followed by all of the main list. Adaptive, the sweeps narrow to the passes that removed
        something until none does, then sweep the main list again. A sweep that leaves passes
        out is never the main list itself, even when it holds every main pass."""
        self._paid.update((p.name, paid[p.name]) for p in swept if paid and p.name in paid and p in self.main)
        if swept is self.replace:
            return self._main_sweep() if removed else []
        if self.adaptive and removed:
            return removed
        if removed:
            return self._main_sweep()
        self.resting = []
        return self.main if swept is not self.main else self.replace

    def _main_sweep(self) -> list[Pass]:
        """The main list less the passes that rest: those whose last sweep paid less than a byte
        per `rest_rate` candidates asked, unless they rested in the sweep before (or all would)."""
        rested = self.resting
        self.resting = [] if self.adaptive or not self.rest_rate else [
            p for p in self.main if p not in rested and p.name in self._paid
            and self._paid[p.name][0] * self.rest_rate < self._paid[p.name][1]]
        if len(self.resting) == len(self.main):  # a sweep of nothing would end the sweeps
            self.resting = []
        return [p for p in self.main if p not in self.resting] if self.resting else self.main

    def begin(self, text: bytes, sweeping: bool) -> None:
        """A part whose text is `text` starts a list of passes: a sweep of main passes, or not."""
        self._revisited = text if sweeping else None
        self._coarse_mark, self._after = len(text), text

    def between(self, p: Pass, text: bytes, left: Sequence[Pass] = ()) -> list[Pass]:
        """`p` has run in a sweep and left the part at `text`, and `left` are the passes of the
        sweep still to come: the passes to run before them (ask again after each of them). After
        a revisit pass that changed the part, the revisit passes before it (what `plain` made of
        the kernel leaves its template unreached now, not a sweep later); else the coarse head if
        the part has shrunk enough since it last ended and more than the tail is left, else the
        revisit passes if the part changed since they last ran."""
        changed, self._after = text != self._after, text
        if p in self.revisit:
            self._revisited = text
        if self.coarse and p is self.coarse[-1]:
            self._coarse_mark = len(text)
        if earlier := self.again(p, changed):
            return earlier
        if p in self.coarse:
            return []
        if (self.coarse and len(text) <= (1 - self.coarse_shrink) * self._coarse_mark
                and any(q not in self.tail for q in left)):
            return self.coarse
        if self.revisit and p not in self.revisit and text != self._revisited:
            return self.revisit
        return []

    def again(self, p: Pass, changed: bool) -> list[Pass]:
        """`p` has run and `changed` the part: the revisit passes before it when it is one of them
        (what `plain` made of the kernel leaves its template to `unreached`), in a sweep or within
        another pass alike; else none."""
        return self.revisit[:self.revisit.index(p)] if p in self.revisit and changed else []

    def within(self, p: Pass, text: bytes) -> list[Pass]:
        """`p` has just made the part `text`, in a sweep: the passes to run before its next
        search. The revisit passes, once the part has shrunk enough since they last ran (never
        within one of them); tell `revisited` when they have run."""
        last = self._revisited
        if last is None or p in self.revisit or len(text) > (1 - self.revisit_shrink) * len(last):
            return []
        return self.revisit

    def revisited(self, text: bytes) -> None:
        """The passes `within` asked for have run and left the part at `text`."""
        self._revisited = text
