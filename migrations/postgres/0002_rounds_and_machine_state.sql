-- Runs measure in rounds: warm-up rounds come first and are kept, flagged, out of every
-- statistic; the rounds' order and an automatic round count are parameters; the
-- machine's state at the start and end of a run is part of its environment, as JSON
-- text (as SQLite keeps it). The same change as SQLite's migration 0004. Runs recorded
-- before this had no warm-up and grouped repetitions.

ALTER TABLE iozone.runs ADD COLUMN warmup bigint NOT NULL DEFAULT 0;
ALTER TABLE iozone.runs ADD COLUMN round_order text NOT NULL DEFAULT 'grouped';
ALTER TABLE iozone.runs ADD COLUMN precision_pct double precision;
ALTER TABLE iozone.runs ADD COLUMN max_time_s double precision;
ALTER TABLE iozone.runs ADD COLUMN state_at_start text;
ALTER TABLE iozone.runs ADD COLUMN state_at_end text;

-- a warm-up measurement shares (test, file size, record size, repetition) with a
-- measured one, so the flag joins the key
ALTER TABLE iozone.results ADD COLUMN warmup boolean NOT NULL DEFAULT false;
ALTER TABLE iozone.results DROP CONSTRAINT results_pkey;
ALTER TABLE iozone.results
    ADD PRIMARY KEY (run_id, warmup, test, file_size, record_size, repetition);
