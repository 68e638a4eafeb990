-- Per-run summaries: for each run and what a row of a comparison or a point of a trend
-- is keyed on (test, file size, record size, engine, cache), the measured repetitions'
-- count, median, least and greatest figure, and the median of the finite, positive
-- figures (what a run's level, ln(median), is taken from). Commands that walk many
-- runs (`trend`, `report`, `history`'s headline, the history of `compare`) read these
-- instead of every repetition. They are derived, never the only copy: the view below
-- is their one definition: the transaction that writes a run's results marks the run
-- pending, inserts its summaries from the view and clears the mark; this step does the
-- same for every run recorded before. A run with one figure per key keeps none (below).
--
-- A median is the middle figure, or the mean of the two middle ones, (a + b) / 2 as
-- the program computes it (not avg(), which may sum with compensation); figures that
-- are not finite count only in `repetitions`, as the program leaves them out too.

-- The runs whose summaries are being derived, in the transaction that derives them
-- (which empties it again before it commits): the view reads their results alone,
-- through the results' key, whatever the database's size.
CREATE TABLE run_summaries_pending (
    run_id INTEGER PRIMARY KEY
);

CREATE VIEW run_summary_source AS
WITH measured AS (
    SELECT res.run_id, test, file_size, record_size, engine, cache, throughput,
           (throughput BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308) AS finite,
           (throughput > 0 AND throughput <= 1.7976931348623157e308) AS positive
    -- CROSS JOIN: SQLite keeps this order, pending runs first, so that it looks their
    -- results up by key rather than scanning every result for the pending ones
    FROM run_summaries_pending p CROSS JOIN results res ON res.run_id = p.run_id
    WHERE warmup = 0
),
ranked AS (
    SELECT *,
           row_number() OVER (PARTITION BY run_id, test, file_size, record_size, engine, cache, finite
                              ORDER BY throughput) AS finite_rank,
           count(*) OVER (PARTITION BY run_id, test, file_size, record_size, engine, cache, finite)
               AS finite_count,
           row_number() OVER (PARTITION BY run_id, test, file_size, record_size, engine, cache, positive
                              ORDER BY throughput) AS positive_rank,
           count(*) OVER (PARTITION BY run_id, test, file_size, record_size, engine, cache, positive)
               AS positive_count
    FROM measured
),
middle AS (
    SELECT *,
           (finite AND finite_rank IN ((finite_count + 1) / 2, (finite_count + 2) / 2))
               AS finite_middle,
           (positive AND positive_rank IN ((positive_count + 1) / 2, (positive_count + 2) / 2))
               AS positive_middle
    FROM ranked
)
SELECT run_id, test, file_size, record_size, engine, cache,
       count(*) AS repetitions,
       (min(CASE WHEN finite_middle THEN throughput END)
        + max(CASE WHEN finite_middle THEN throughput END)) / 2 AS median,
       min(CASE WHEN finite THEN throughput END) AS least,
       max(CASE WHEN finite THEN throughput END) AS greatest,
       (min(CASE WHEN positive_middle THEN throughput END)
        + max(CASE WHEN positive_middle THEN throughput END)) / 2 AS positive_median
FROM middle
GROUP BY run_id, test, file_size, record_size, engine, cache;

CREATE TABLE run_summaries (
    run_id           INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    test             TEXT    NOT NULL,
    file_size        INTEGER NOT NULL,
    record_size      INTEGER NOT NULL,
    engine           TEXT    NOT NULL,
    cache            TEXT    NOT NULL,
    repetitions      INTEGER NOT NULL,
    median           REAL, -- null when no figure is finite
    least            REAL,
    greatest         REAL,
    positive_median  REAL, -- null when no figure is finite and positive
    PRIMARY KEY (run_id, test, file_size, record_size, engine, cache)
) WITHOUT ROWID;

-- A run whose every measured figure is its first repetition has one figure per key,
-- which is its own summary: no rows are kept for it (readers summarize its results).
INSERT INTO run_summaries_pending (run_id)
SELECT DISTINCT run_id FROM results WHERE warmup = 0 AND repetition <> 1;
INSERT INTO run_summaries SELECT * FROM run_summary_source;
DELETE FROM run_summaries_pending;
