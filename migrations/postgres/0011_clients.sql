-- Many clients measured together (MPI ranks under mpirun, recorded as one run by rank
-- 0): the same change as SQLite's migration 0012. Every run recorded before this had
-- one client.

ALTER TABLE iozone.runs ADD COLUMN clients bigint NOT NULL DEFAULT 1;
ALTER TABLE iozone.runs ADD COLUMN client_hosts text NOT NULL DEFAULT '[]';
ALTER TABLE iozone.runs ADD COLUMN shared_file boolean NOT NULL DEFAULT false;
ALTER TABLE iozone.runs ADD COLUMN stonewall boolean NOT NULL DEFAULT false;
ALTER TABLE iozone.runs ADD COLUMN cluster text;
