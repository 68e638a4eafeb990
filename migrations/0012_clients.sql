-- Many clients measured together (MPI ranks under mpirun, recorded as one run by rank
-- 0): how many, the host of each (a JSON list, in rank order; `[]` for one client),
-- whether they shared one file (N-to-1) and stopped as the first finished
-- (stonewall), and what such a run keeps beyond a run of one (a JSON object: every
-- host's facts, each measurement's figures per rank, the rank whose failure stopped
-- it; null for one client). Every run recorded before this had one client.

ALTER TABLE runs ADD COLUMN clients INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN client_hosts TEXT NOT NULL DEFAULT '[]';
ALTER TABLE runs ADD COLUMN shared_file INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN stonewall INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cluster TEXT;
