"""Statements as calculation trees: the structure XBRL's calculation linkbase makes explicit, from the page.

A stage of its own, run once per document after the facts
(:func:`pipeline.statements.build.build_statements`). For each table:

1. **Kind** (:func:`.kinds.classify`): one of the five primary statements when its title (or the page heading
   above it) names one, or its lines are a statement's (total assets and total liabilities and equity; the
   three cash-flow activities); a summary when it says "highlights", "selected financial data"…; else a note.
2. **Columns** (:func:`.columns.statement_columns`): the additive value columns, each with its period, its
   basis (as reported, restated, pro forma, non-GAAP, condensed consolidating, constant currency) and the
   dimension its head names. Columns of changes, percentages, prices and averages do not add up and are left
   out.
3. **Tree** (:func:`.totals.build_tree`): the rows are walked top to bottom. A row may be a total when its
   label says so ("Total …", "Net cash …", "Balance at …", "… end of year"), when it is a total metric of the
   taxonomy ("Gross profit"), or — weakly — when it is unlabelled, "Net …" or outdented. Its candidate
   children are runs of the rows above it that are still visible (the rows a recognised total adds up are
   folded into it) starting at a natural boundary: the table start, a section heading, an opening balance or
   an earlier total. Three sign conventions are tried: as printed; the first less the others (costs printed
   positive); and by label (items named cost, expense, tax… subtracted when printed positive). A candidate is
   accepted when it holds in the other value columns: the tree is what the figures themselves prove, and a
   column where a proven node fails is where a figure is wrong. In roll-forwards (a closing balance as the
   total) blank cells are nil. Then a table printed again with the same lines (the same note at another
   date) lends the totals it proves to a printing whose own columns prove them only once
   (:func:`.twins.with_twins`), where they add up to the unit in one of its columns; and a "Total …" line
   takes the lines right above it when another table proves lines of those names add up to it.
4. **Columns that add up** (:func:`.column_sums.column_sums`): a "Total" column that is the sum of the others
   row by row (statements of changes in equity, segment tables), or of its own group of columns where a table
   prints several periods side by side ("2022: Total | Level 1 | Level 2 — 2021: Total | …").

The result is one :class:`~schemas.models.Statement` per table with at least one value column; the checks
read it, and :func:`.build.annotate_facts` gives every fact its statement, role, parent and basis.

Modules, in the order the stage uses them:

* :mod:`.kinds`: what a table is, and for which entity (step 1);
* :mod:`.columns`: the rows with split columns joined, and the value columns with their basis (step 2);
* :mod:`.labels`: what a row's label says (a total, a balance, a cost; the kind of figure its line holds);
* :mod:`.structures`: the tree's model, the figures grid and the structures the columns prove;
* :mod:`.resolve`: choosing a total's structure among the candidate runs;
* :mod:`.schedules`: single-column roll-forwards and maturity schedules, taken by their labels;
* :mod:`.totals`: the walk down the rows (step 3), and :mod:`.breakdowns`, totals printed above their parts;
* :mod:`.twins`: the totals a table printed again with the same lines proves (the end of step 3);
* :mod:`.column_sums`: columns that add up (step 4);
* :mod:`.build`: the stage itself and the facts' annotations; :mod:`.equity`, the facts a statement of
  changes in equity prints;
* :mod:`.identities`: the accounting identities between metrics the checks and the rewards share.

Callers import each name from the module that defines it; this package re-exports nothing, so that
importing :mod:`.identities` (the rewards do) does not load the tree builder.
"""

__all__: list[str] = []
