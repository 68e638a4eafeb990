-- Runs measure in rounds (issue: verdicts that hold across runs): warm-up rounds come
-- first and are kept, flagged, out of every statistic; the rounds' order and an
-- automatic round count are parameters; the machine's state (load, writeback, memory,
-- pressure) at the start and end of a run is part of its environment, as JSON.
-- Runs recorded before this had no warm-up and grouped repetitions.

ALTER TABLE runs ADD COLUMN warmup INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN round_order TEXT NOT NULL DEFAULT 'grouped';
ALTER TABLE runs ADD COLUMN precision_pct REAL; -- set when --repeat auto
ALTER TABLE runs ADD COLUMN max_time_s REAL;    -- set when --repeat auto
ALTER TABLE runs ADD COLUMN state_at_start TEXT; -- JSON object, see MachineState
ALTER TABLE runs ADD COLUMN state_at_end TEXT;

-- A warm-up round's measurement has the same (test, file size, record size,
-- repetition) as a measured one, so the flag joins the key: the table is rebuilt,
-- as SQLite cannot change a primary key in place.
CREATE TABLE results_with_warmup (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    warmup       INTEGER NOT NULL DEFAULT 0,
    test         TEXT    NOT NULL,
    file_size    INTEGER NOT NULL,
    record_size  INTEGER NOT NULL,
    repetition   INTEGER NOT NULL,
    bytes        INTEGER NOT NULL,
    elapsed_ns   INTEGER NOT NULL,
    throughput   REAL    NOT NULL,
    lat_p50      INTEGER,
    lat_p99      INTEGER,
    lat_p999     INTEGER,
    lat_max      INTEGER,
    lat_samples  INTEGER,
    PRIMARY KEY (run_id, warmup, test, file_size, record_size, repetition)
) WITHOUT ROWID;

INSERT INTO results_with_warmup (run_id, warmup, test, file_size, record_size, repetition,
    bytes, elapsed_ns, throughput, lat_p50, lat_p99, lat_p999, lat_max, lat_samples)
SELECT run_id, 0, test, file_size, record_size, repetition,
    bytes, elapsed_ns, throughput, lat_p50, lat_p99, lat_p999, lat_max, lat_samples
FROM results;

DROP TABLE results;
ALTER TABLE results_with_warmup RENAME TO results;
