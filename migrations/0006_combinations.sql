-- A run may measure several engines and cache modes, interleaved (`--engine
-- posix,pread --cache flush,buffered`): each result carries its own, and they join the
-- results' key, so the table is rebuilt as SQLite cannot change a primary key in place.
-- Every result recorded before this went through its run's engine and cache mode.

ALTER TABLE runs ADD COLUMN engines TEXT NOT NULL DEFAULT '[]'; -- JSON, when several
ALTER TABLE runs ADD COLUMN caches TEXT NOT NULL DEFAULT '[]';

CREATE TABLE results_with_combination (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    warmup       INTEGER NOT NULL DEFAULT 0,
    test         TEXT    NOT NULL,
    file_size    INTEGER NOT NULL,
    record_size  INTEGER NOT NULL,
    repetition   INTEGER NOT NULL,
    engine       TEXT    NOT NULL,
    cache        TEXT    NOT NULL,
    bytes        INTEGER NOT NULL,
    elapsed_ns   INTEGER NOT NULL,
    throughput   REAL    NOT NULL,
    lat_p50      INTEGER,
    lat_p99      INTEGER,
    lat_p999     INTEGER,
    lat_max      INTEGER,
    lat_samples  INTEGER,
    PRIMARY KEY (run_id, warmup, test, file_size, record_size, repetition, engine, cache)
) WITHOUT ROWID;

INSERT INTO results_with_combination (run_id, warmup, test, file_size, record_size,
    repetition, engine, cache, bytes, elapsed_ns, throughput, lat_p50, lat_p99, lat_p999,
    lat_max, lat_samples)
SELECT res.run_id, res.warmup, res.test, res.file_size, res.record_size, res.repetition,
    runs.engine, runs.cache, res.bytes, res.elapsed_ns, res.throughput, res.lat_p50,
    res.lat_p99, res.lat_p999, res.lat_max, res.lat_samples
FROM results res JOIN runs ON runs.id = res.run_id;

DROP TABLE results;
ALTER TABLE results_with_combination RENAME TO results;
