-- The process that measured a run (its pid and its start in clock ticks since boot),
-- recorded when the run begins: with the boot id, it tells a run still in progress
-- from one whose process was killed (`kill -9`, a crash), which is then `aborted`.
-- Null for runs recorded before, and for imported runs.

ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN process_start INTEGER;
