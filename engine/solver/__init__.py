"""The solver (SPEC §9): arrange a multiset of tiles into valid sets, and suggest the best move.

Method
------
Both questions are answered by one exact dynamic programme over the numbers 1..13, after
van Rijn, Takes & Vis, "The Complexity of Rummikub Problems" (2015). The tiles of one number
are decided colour by colour, then the groups of that number are formed:

* the state of a colour is how many runs are in progress, by length class: 1, 2, ≥3 tiles,
  and ≥3 tiles holding a *block* (a table set kept whole, see below). Copies of a tile are
  interchangeable, so counts are enough;
* at number ``v`` each tile ``(colour, v)`` extends a run in progress, starts a new run or goes
  to a group of ``v``. Every run of length 1 or 2 must be extended (a run of 1–2 tiles is not a
  set); a run of ≥3 tiles may end;
* a joker may extend a run (it stands for ``(colour, v)``), precede the first tile of a new run
  (it stands for a lower number of that colour) or fill a group. Runs are only started by a
  numbered tile and groups hold at least one, so no set is made of jokers alone;
* the groups of ``v`` are feasible from the count of tiles per colour sent to them and the
  number of jokers: with ``G`` groups the tiles are dealt round robin (every group gets each
  colour at most once, sizes differ by at most one) and jokers fill each group to 3 or 4.

The state (number, colour, run counts, group tiles so far, jokers left, one extra counter) is
memoised, so the search is exact and polynomial in the tile counts (the run counts of every
colour packed in one integer, ``model.State``: a key hashes at every step). On top of it runs a
branch and bound: a stage is abandoned when even placing every optional tile left (and every
joker at 13) cannot beat the best score found; memo entries are exact results or upper
bounds. ``arrange`` stops at the first complete arrangement (moves without jokers first);
``suggest`` maximises its score, trying the moves of a stage that spend the fewest jokers
and score the most first (a good solution early raises the bar). Two dominance rules prune safely: a run may not start where
a run of ≥3 of that colour ends (extending it does at least as well), and runs of 1–2 tiles
must be completable by the tiles (or jokers) of the next numbers.

``arrange`` additionally tracks *room*: how many spare jokers the sets already closed could
absorb (a run that ended at ``n < 13`` can take one at ``n + 1``; a group of three one more).
Spare jokers are then placed at the end instead of being searched for.

Suggest: the moves considered
-----------------------------
* Opening turn (``opened`` false) without manipulation: new sets from the rack only, worth at
  least ``initial_meld_min`` (a joker is worth the tile it stands for); the table untouched.
* Opening turn with ``manipulate_on_opening_turn``: the best move whose sets made only of
  played tiles reach the minimum (the best move ignoring the minimum if its own sets reach
  it, else for every minimal meld the best move playing at least its tiles, anywhere: the
  meld may be laid first, then joined to table sets), first with the sets holding a joker
  only growing (no joker may be freed before opening), then with every set taken apart and
  the jokers pinned as tiles they may stand for (a run joker stays in a run standing for its
  tile, a group joker stands for a missing colour of its group, so a joker set may be split
  or lose tiles): one relaxed problem per way of pinning them (at most ``openings._OPENING_PINS``;
  beyond, only the jokers with one way are pinned, the others go anywhere), whose moves are
  candidates too; when the best of them is not a legal turn, ``optimal_proven`` is false.
* Opened: every table set without a joker may be taken apart and rebuilt with rack tiles.
  A table set holding a joker is a *block* read by its best reading: its jokers keep standing
  for the same tiles and it keeps its tiles, growing only — a run at either end (numbered
  tiles or jokers, from the rack or the table), a group by a missing colour or a joker.
  Blocks never merge with each other. Then *variants* of the joker sets (under each of a
  set's readings) are tried, each as a block of its own:

  - trimmed (unless ``joker_sets_locked``): numbered tiles taken from the ends of a run or
    out of a group, the jokers staying in place, the set keeping at least 3 tiles and enough
    numbered tiles to stay its own successor (SPEC §4) whatever the others become;
  - a joker freed by the exact tile it stands for (a missing colour for a group joker; both
    under ``group_joker_needs_both_colours`` in a group of three), taken from the rack or, if
    ``joker_replacement_from`` allows, from a plain table set; the freed joker must be used
    somewhere. Under ``freed_joker_use`` ``any_set`` and ``other_set`` (where the freed joker
    may end back in its own set's block: such a move is no legal turn, and a move
    ``verify_turn`` rejects never raises the floor of the passes after it); under
    ``new_set_with_two_rack_tiles`` one or two jokers freed into new sets holding two rack
    tiles each, those sets laid beforehand (``set_variants.two_tile_frees``).

  Every combination of variants is a pass of its own, simplest first, each looking only for
  a better move than the best so far. The combinations changing the same joker sets are
  bounded together by a *relaxed* problem (those sets taken apart, their jokers anywhere;
  its search capped by work, not time, so answers are reproducible): none is tried when it
  cannot beat the best move, and when its own move is legal it is taken instead. The relaxed
  problem of every joker set that has variants comes first: it bounds every pass (when it
  cannot beat the best move, no pass can; when its move is legal, that move is the best of
  them all and no other pass runs; else its score caps the others). A relaxed problem's
  relaxation is taken as its move when it is integral and its move a legal turn (the
  search's move is legal more often; the relaxation's is tried first as it is free), and
  a small one (``portfolio._SMALL_PROGRAMME``) goes to HiGHS when its search falls short.
  A joker standing for a tile of which no copy is on the table or the rack can never be
  freed (only that tile frees it): a relaxed problem places it as that tile, which keeps the
  relaxed move legal more often (and its bound tighter). Likewise a group holding a joker,
  taken apart by a relaxed problem, leaves in every legal move a group of its number holding
  a joker or a tile its jokers stand for (the joker stays in a group holding one of the
  set's tiles, or the tile freeing it joins one of them): the relaxed problem lays one
  (``groups_needed``: the search sends such a tile or a joker to the groups of that number,
  the integer programme has a row for it); where the set's jokers stay, laid as their tiles,
  one holding such a tile.
  When no joker set has a variant, the relaxed problem of every joker set still runs, and
  its move is kept when legal (a group trimmed below three and refilled, a joker freed into a
  set mixing table tiles: moves no variant models).
  When the rack holds no joker and the passes one by one have needed a few HiGHS runs
  (``variant_passes._ONE_BY_ONE``) without settling the variants, every combination is solved at
  once instead (``choices``: one integer programme with a binary variable per variant,
  gating its block's columns and carrying the tiles it releases or takes and the jokers it
  frees; exact there, since no joker is played); the relaxed problems still follow, as
  their legal moves may be better than any variant.
* Under ``joker_release: free`` (sets not locked, freed jokers usable anywhere) joker sets
  are taken apart like the others. The best move with every set taken apart is searched
  first, then a move keeping every set whole is looked for at that score only (cheap: its
  search is cut by the bound, so it starts with the search even when the first needed the
  linear bound); the whole move wins a tie as always. When the first plays nothing (proven),
  nothing can be played and the table as it is answers.
* With no joker on the rack no joker is played, so where the table's jokers stand adds
  nothing to the move's value (under any rules): the search then scores a table joker as a
  tile only, instead of also maximising the numbers the jokers stand for (which multiplied
  the states to explore).
* Among moves of equal score the one keeping every table set whole (only extended) wins, so
  the suggested table changes as little as possible; unchanged sets keep their tiles' order.

Opened, outside a free release: the passes above do not model every legal move (taking a
tile out of the middle of a joker run, a joker staying in a set of other tiles, a set whose
jokers were freed taken apart, a freed joker under ``new_set_with_two_rack_tiles`` in a new set
mixing table tiles, an ambiguous joker set kept whole under its other readings). The *fates*
of the table's jokers bound them all (``fate_tree.check_fates``): in every legal move each joker stayed,
standing for one of the tiles it may stand for, or was freed, a copy of its tile lying in a
successor of its set (SPEC §4). Every way the jokers may fare is a relaxed problem with
every other set taken apart: a staying joker laid as its tile (a run joker's in a run:
``runs_needed``, a row of the integer programme and a condition on the search's colour moves,
as every pinned run joker's; a locked set whose jokers all stay kept whole, growing); the one
joker of a set freed, a *window* kept as a block: its copy with two more tiles of a valid set
holding a numbered tile of its set, from the set, the rack or the table, or with the set's own
joker standing for another tile of the window (a successor may hold it so: ``K10 K11 J=K12
K13`` for ``K10 J=K11 K12 K13`` freed by K11 while K12 left; without such windows a shorter
answer was claimed optimal on generated xp and sabra games); a joker of a set of several
freed, anywhere, its copy played when only the rack has one. The ways are searched as a tree
(``fate_tree._solve_fates``): the joker sets are decided one by one, each node's problem taking the
undecided sets apart with their jokers anywhere (it holds every fate below it), and a node
with no better move, or with a legal move (or a legal layout of its tiles) as good as its
bound, settles its subtree; at most ``fate_tree._FATE_PROBLEMS`` problems, beyond which the answer is
not claimed. With four fates or more and no joker on the rack, all of them are first tried as
one integer programme (``fate_tree._fates_settled_at_once``: each joker set's ways as choices of
``choices``, one each, solved by our own branch and bound for at most 16 relaxations): no
move beating the best there, or a best move there that is a legal turn, settles every fate
at once; else the tree decides. When no fate beats the best move, the answer is proven; a
legal move of one that does is taken; an illegal one has the tiles of the sets it changed laid out anew
(``layout._rearranged``, bounded in work), the best legal layout scoring as much taken; failing
that, ``optimal_proven`` is false. The relaxed problem of every joker set taken apart with
its jokers anywhere comes first and bounds them all. Each fate is solved to the end (under
the deadline, like every pass), where a relaxed bound's work is capped, and goes to the
integer programme after a short try of goal mode (``programme_soon``). With at most
``best_move._FATES_FIRST`` ways (and no freed joker bound for a new set with two rack tiles) the fates
come before the variants' passes, which then run only when a fate's best move is no legal
turn and beats every legal move found.
``K9 B9 R9`` + ``O9 O10 J=O11`` with ``O13 O11 O12 R10`` (sabra): 4 tiles, proven (the
joker's window ``O10 O11 O12``).
A played joker is worth the best joker after the move (possibly a table joker), each set read
at its best: the value of ``objective="value"``'s first key and ``"tiles"``' second. With a
joker on the rack and one on the table the passes' searches may miss it (they score the jokers
they lay, table jokers too, and not a table joker left in a kept or pinned set), so the value
is settled by the problem with every set taken apart and the jokers anywhere, which holds every
legal move (an opening's too), solved with the lowest ``table_jokers`` jokers laid scoring no
points and the others, the played jokers, their best points (``Problem.unscored``: in the
search a count of them left in its state, in the integer programme a column per number taking
its jokers out of the score, exactly that many in all): it scores each move at least as much
as the move scores (it may place the jokers at their best). Looking only for a move better than
the best (capped like a relaxed bound), none proves the best; a legal one (or a legal layout
of its tiles scoring as much) is the best, proven. That problem frees jokers the rules keep;
when it finds a better move that is no legal turn, an opened player's fates settle the value
(``value_bound._fates_value_settled``, ``joker_value``): the fates' tree, each node's problem solved to the
end, the ``j`` jokers played scored at the best ``j`` the search lays (the freed ones' too);
then, with ``i`` of them worth jokers that stay (pinned as their tiles, or kept in a block),
the ``i`` lowest jokers laid scoring nothing and the best ``i`` of those added; then, for a
staying joker whose set of one numbered tile may read it higher (``B9 J J``: B11 where it stood
for K9), that set laid beforehand. Runs lie in order there, as every move ``suggest`` lays (a
run laid out of order reads as a bag; ``joker_value`` says why such moves are left out). Else
``optimal_proven=False``. It proved the 5 of the hard bench's 720 answers that were not (one
of them better: 88 points against 87), and on 1,300 small positions (sabra, xp, strict-joker,
pressman-2009) proves 1,260 answers where the relaxation alone proved 1,088, every one the
brute force's best, 8 of them better than before; with two rack jokers (xp), 198 of 200
(bench/README.md, session 27). An opening from the rack alone leaves the table as it lies, so
its jokers' points are fixed: the opening's search bounds the moves whose best jokers are
played ones, and the openings laying ``i`` rack jokers or more, their ``i`` lowest scoring
nothing, at the table's best ``i``, the others (``value_bound._opening_value_settled``; 1,195 of 1,195
small openings proven, one or two rack jokers, 209 before). Under a free joker release that
problem is the full pass itself, so it is solved to the end. Without a rack joker no joker is
played, the table's jokers score as tiles only and the proof stands.

Every move returned is checked with ``verify_turn`` under the same rules; a move that failed
would be skipped for the next best (``optimal_proven`` then false), and playing nothing is
always legal. The score is lexicographic: ``objective="tiles"`` maximises the number of rack
tiles played, then their value; ``objective="value"`` the value, then the number of tiles.

Portfolio: the search, a linear bound, then an integer programme
----------------------------------------------------------------
The search is fast on most positions but exponential in the worst case (large racks, XP's
three copies and four jokers). Every problem without an opening minimum (every pass of an
opened player) goes through ``portfolio.Portfolio``:

1. the search on a small budget of work (``PORTFOLIO_CALLS`` search calls, not time, so
   answers stay reproducible) — most positions end here in a few milliseconds;
2. the linear relaxation of the integer programme below (HiGHS, about a millisecond) bounds
   the optimum. A floor the bound cannot reach rules the pass out at once; a relaxation whose
   solution is integral has found the optimum (about two problems in five that get here on
   the hard bench). Otherwise the search looks for a solution reaching the bound (*goal mode*:
   the first one found is optimal, proven by the bound; on generated positions the bound's
   floor is the optimum on more than 80% of the problems; a bound reached by laying every
   tile, or every tile but one, is aimed at by the search for an arrangement of those
   tiles, after a short try of goal mode). A bound playing a fractional
   number of tiles is first capped at its integer part (a second relaxation with a row on the
   tiles played); when the bound's tiles are reachable but not its value, the best move
   playing them is searched for; when they are not, the relaxation is capped at one tile
   fewer (``_GOALS`` rounds). A small programme (at most 400 columns: HiGHS solves it in a
   few milliseconds) gets one short round of goal mode and goes to step 4;
3. the plain search goes on from what it has memoised, on a small budget;
4. the exact integer programme (below) solves what is left, under the deadline. HiGHS can
   overrun a short time limit by far in its root work, so it starts only with 20 ms left, or
   with blocks a quarter of the budget; otherwise the search has the time left.

Once a pass of a position needed step 2 the next passes start with the bound (they are
alike, and the bound rules most of them out); so does a problem with two jokers or more
among fewer than 80 tiles, whose first search most often runs out
(``portfolio._likely_hard``). A relaxed problem met again in one position (a fate freeing a
joker into the pool is the relaxed problem of every joker set) is answered from the first
solve (``pass_problems.solve_pass``). A problem's bounds and its integer programme share one build
of its programme. The relaxed bounds of the variant passes give up on a small budget and
keep the bound they reached.

The integer programme follows den Hertog & Hulshof, "Solving Rummikub Problems by Integer
Linear Programming" (The Computer Journal 49(6), 2006) — one integer variable per candidate set (a
multiset of numbered tiles plus a count of jokers that some run of 3–5 or group of 3–4 holds,
scored by its jokers' best placement), every tile type balanced by a ranged row, jokers a pooled
count; when where a joker stands is worth nothing, only *lean* sets (ends numbered) and one
variable for the jokers added at their ends. The candidate sets' matrix is built once per joker
count and sliced per problem. *Blocks* (table sets kept whole, growing only) are columns of
their own: for a run block, each number beyond either end covered by its colour's tile or by a
joker, a number covered only if the one nearer the block is (a chain row); for a group block,
the colours it may take and its jokers, at most four tiles. HiGHS (Huangfu & Hall,
"Parallelizing the dual revised simplex method", Math. Prog. Comp. 10, 2018) is reached through
its own package, ``highspy`` (``highs``), silent, with the search's lexicographic objective and
zero optimality gap, on one thread and without its feasibility-jump heuristic: at its
defaults every integer programme paid 10–25 ms of fixed cost (waiting for the thread pool on
a loaded 2-core machine, and the heuristic's set-up when presolve is off), more than most of
these programmes take to solve. HiGHS's presolve is off (it costs more than it saves on all
but the smallest of them), and its time on a programme is heavy-tailed over its random seed: a
run not finished after 0.1 s of CPU time (not wall-clock time, which a loaded machine
stretches) starts again with the next seed and twice the limit, until the deadline (restarts:
Gomes, Selman & Kautz, "Boosting Combinatorial Search Through Randomization", AAAI 1998).
Before HiGHS's integer solver, our own branch and bound over its relaxations
(``highs.branch_and_bound``, branching on the tiles laid of each type) gets 16 of them: most
of these programmes close in 3-15, where HiGHS spends 3-10 times its relaxation's time in cut
rounds at the root; what it leaves open goes to HiGHS, sought above the best it found.
rummikub-solver (Martijn Pieters) uses the same set model for its whole answer; only the model
is shared, not code.

Least change (``tie_break``)
----------------------------
Among the moves with the best score, ``tie_break="least_change"`` (the default) answers the
one disturbing the table least (``engine.changes``: fewest table tiles moved to another set,
then fewest table sets touched, then fewest new sets), found by a second integer programme
with the score fixed from below (``least_change``, ``least_change_programme``); ``"any"`` the
first found. Every answer carries its change list; ``least_change_proven`` says whether no best
move disturbs less.

Small positions
---------------
Where the passes leave a position of at most ``exhaustive.MOST_TILES`` tiles (table and rack)
unproven with the budget left, ``exhaustive`` tries every move (every part of the rack, every
split into sets, each set laid every way a verdict tells apart, judged by ``verify_turn``): the
best legal moves are the optimum, the least disturbing of them the least change, both proven.

Modules
-------
One concern each:

* ``model``: constants, results, the problem and its decisions;
* ``search``: the memoised branch and bound and the moves of one stage;
* ``reconstruction``: laying out the sets of a solution;
* ``milp``: the integer programme and its linear relaxation; ``highs``: HiGHS, run silently
  on one thread; ``choices``: the joker sets' variants in one integer programme;
* ``portfolio``: the steps above, in turn;
* ``arrangement``: ``arrange``; ``melds``: rack-only sets and minimal melds;
* ``suggest``'s: ``best_move`` (the state of a position's passes, their order and the
  verified answer), ``pass_problems`` (the problems of the passes and solving one),
  ``set_variants`` (the variants of the joker sets and their combinations),
  ``variant_passes`` (the passes over them), ``fates`` (the ways the table's jokers fare),
  ``fate_tree`` (the fates bounding every legal move), ``value_bound`` (a played joker's
  value settled; ``joker_value``: a played joker's points beside a table joker), ``openings``
  (an opening with manipulation) and ``layout`` (a move laid out, scored and judged; a
  relaxed move laid out anew). Their functions take the state (``best_move.Suggester``)
  first;
* the least-change tie break: ``least_change`` (its steps and entry points),
  ``least_change_programme`` (its integer programme over the best moves, built and solved)
  and ``least_change_model`` (that programme's pieces: the model, lanes, continuation runs,
  group candidates); ``intact``, ``few_moved``: its first steps (no table tile moved, at most
  a few);
* ``exhaustive``: small positions settled by trying every move.

Every search runs under a time budget checked inside the search. When it runs out,
``arrange`` answers ``arrangeable=None``; ``suggest`` returns the best legal move found so
far, with ``optimal_proven=False`` and ``budget_exhausted=True``. Loading the solver's
modules (numpy, scipy, HiGHS: about a second cold) is never part of a budget: ``suggest``
starts its clock once they are loaded. ``prepare()`` loads them and builds the candidate sets'
matrices ahead (which a first problem needing one would otherwise build within its budget,
0.2-0.3 s): the service's budget processes call it before they serve, ``suggest``, a loose
verify and ``replay --analyze`` before their budgets start (``arrange`` needs no matrices).
"""

import functools
from typing import TYPE_CHECKING, Any

from engine.solver.model import OBJECTIVES, TIE_BREAKS, ArrangeResult, Suggestion


@functools.cache
def prepare() -> None:
    """Load the solver and build its tables now, once per process (about a second cold: numpy,
    scipy, HiGHS and the integer programme's matrices), so that no budget pays for them; the
    calls after the first return at once."""
    import engine.solver.best_move  # noqa: F401  (the whole solver)
    from engine.solver import milp

    milp.prepare()


if TYPE_CHECKING:
    from engine.solver.arrangement import arrange
    from engine.solver.best_move import suggest
else:

    def __getattr__(name: str) -> Any:
        """``arrange`` and ``suggest`` load the solver's modules (numpy and scipy: about half a
        second) when first asked for, so what never solves (validating, verifying a turn,
        scoring, a replay without ``analyze``, the CLI's other commands) starts without them."""
        if name == "arrange":
            from engine.solver.arrangement import arrange as found
        elif name == "suggest":
            from engine.solver.best_move import suggest as found
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = found
        return found


__all__ = ["OBJECTIVES", "TIE_BREAKS", "ArrangeResult", "Suggestion", "arrange", "suggest"]
