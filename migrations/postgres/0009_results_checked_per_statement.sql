-- A result belongs to a run: checked once per statement rather than row by row. The
-- foreign key checked and locked its run for every result row, which was half the
-- time a server spent inserting results (`sync` of 10,090 runs: 2,150–2,180 runs/s
-- with the key, 2,600–2,850 with the check below). Same guarantees: an insert of
-- results whose run does not exist fails as a foreign key's would (SQLSTATE 23503),
-- each run an insert names is locked against deletion until the transaction ends (once
-- a statement, not once a row), and deleting runs deletes their results. SQLite keeps
-- its foreign key: it checks a row against an index in the same process.
--
-- Written to apply again over itself: a test replays the steps after 0007.
ALTER TABLE iozone.results DROP CONSTRAINT IF EXISTS results_run_id_fkey;

CREATE OR REPLACE FUNCTION iozone.results_belong_to_runs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    named  bigint;
    locked bigint;
BEGIN
    SELECT count(DISTINCT run_id) INTO named FROM inserted_results;
    -- what the foreign key's check took, a share lock on each run, here once a run: one
    -- lookup of the key for each (the locking subquery is never turned into a scan of
    -- every run, whatever the planner guesses of the inserted rows)
    SELECT count(*) INTO locked
      FROM (SELECT DISTINCT run_id FROM inserted_results) n,
           LATERAL (SELECT 1 FROM iozone.runs r WHERE r.id = n.run_id FOR KEY SHARE) l;
    IF locked < named THEN
        RAISE EXCEPTION 'insert into iozone.results: a result of a run that does not exist'
              USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS results_belong_to_runs ON iozone.results;
CREATE TRIGGER results_belong_to_runs AFTER INSERT ON iozone.results
    REFERENCING NEW TABLE AS inserted_results
    FOR EACH STATEMENT EXECUTE FUNCTION iozone.results_belong_to_runs();

CREATE OR REPLACE FUNCTION iozone.results_go_with_their_runs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    deleted bigint;
BEGIN
    -- run by run, through the results' key, whatever the planner guesses
    FOR deleted IN SELECT id FROM deleted_runs LOOP
        DELETE FROM iozone.results WHERE run_id = deleted;
    END LOOP;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS results_go_with_their_runs ON iozone.runs;
CREATE TRIGGER results_go_with_their_runs AFTER DELETE ON iozone.runs
    REFERENCING OLD TABLE AS deleted_runs
    FOR EACH STATEMENT EXECUTE FUNCTION iozone.results_go_with_their_runs();
