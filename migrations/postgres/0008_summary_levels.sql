-- Summaries keep the rest of a run's level under each key, the same as SQLite's
-- migration 0010: how many figures are finite and positive, and the sample variance
-- of their logarithms. With them, a comparison of many runs (`compare --by host`)
-- reads each run's summaries rather than every repetition, and gets the same figures
-- to the last bit.
--
-- The program derives summaries from then on (`RowSummary::of`, as it writes a run's
-- results), not the view of 0007: a sum in SQL may be ordered otherwise, which changes
-- a variance's last bits. Rows derived before this step have neither column: the
-- index below finds them, and the program derives them again from their results when
-- it opens the database (then the index is empty). Until then, readers take such a
-- run's figures from its results.
ALTER TABLE iozone.run_summaries ADD COLUMN positives bigint;
ALTER TABLE iozone.run_summaries ADD COLUMN log_variance double precision; -- null when no figure is positive
CREATE INDEX run_summaries_underived ON iozone.run_summaries (run_id) WHERE positives IS NULL;
DROP VIEW iozone.run_summary_source;
DROP TABLE iozone.run_summaries_pending;
