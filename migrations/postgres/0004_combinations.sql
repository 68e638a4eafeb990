-- A run may measure several engines and cache modes, interleaved (`--engine
-- posix,pread --cache flush,buffered`): each result carries its own, and they join the
-- results' key. The same change as SQLite's migration 0006. Every result recorded
-- before this went through its run's engine and cache mode.

ALTER TABLE iozone.runs ADD COLUMN engines text NOT NULL DEFAULT '[]';
ALTER TABLE iozone.runs ADD COLUMN caches text NOT NULL DEFAULT '[]';

ALTER TABLE iozone.results ADD COLUMN engine text;
ALTER TABLE iozone.results ADD COLUMN cache text;
UPDATE iozone.results res SET engine = runs.engine, cache = runs.cache
FROM iozone.runs runs WHERE runs.id = res.run_id;
ALTER TABLE iozone.results ALTER COLUMN engine SET NOT NULL;
ALTER TABLE iozone.results ALTER COLUMN cache SET NOT NULL;
ALTER TABLE iozone.results DROP CONSTRAINT results_pkey;
ALTER TABLE iozone.results
    ADD PRIMARY KEY (run_id, warmup, test, file_size, record_size, repetition, engine, cache);
