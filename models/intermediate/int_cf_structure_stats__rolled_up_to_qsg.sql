-- Coupling facility structure statistics of a whole queue-sharing group on the QSG's interval grid
-- (README "QSG roll-ups: interval grid and coverage"): every queue manager reports its own requests
-- to a shared structure, so each member interval's counts and times are apportioned to the grid
-- slots it overlaps and summed over the members; the structure's peak use (entries, elements) is the
-- largest any overlapping member interval saw. Ratios are recomputed from the sums, rates are the
-- sums over the slot's length. Coverage columns as for the shared queues. A queue manager outside
-- any QSG uses no CF structure: none of its rows are here.
-- The statement is the shared queues' one (macro qsg_rollup).
-- Grain: one row per queue-sharing group x CF structure x grid slot.
{{ qsg_rollup('cf_structure') }}
