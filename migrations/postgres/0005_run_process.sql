-- The process that measured a run (its pid and its start in clock ticks since boot),
-- recorded when the run begins: with the boot id, it tells a run still in progress
-- from one whose process was killed. The same change as SQLite's migration 0007.

ALTER TABLE iozone.runs ADD COLUMN pid bigint;
ALTER TABLE iozone.runs ADD COLUMN process_start bigint;
