-- Metadata tests measure operations over a tree of small files: the same change as
-- SQLite's migration 0011. A run states the tree it measured over (files per
-- directory, directories, each file's bytes, shared directories, shuffled order, and
-- whether `--cache flush` started its phases warm), all null for a run without
-- metadata tests; a result of a metadata test states the
-- operations it counted, null for every other result.

ALTER TABLE iozone.runs ADD COLUMN meta_files bigint;
ALTER TABLE iozone.runs ADD COLUMN meta_dirs bigint;
ALTER TABLE iozone.runs ADD COLUMN meta_file_bytes bigint;
ALTER TABLE iozone.runs ADD COLUMN meta_shared_dir boolean;
ALTER TABLE iozone.runs ADD COLUMN meta_random_order boolean;
ALTER TABLE iozone.runs ADD COLUMN meta_warm boolean;
ALTER TABLE iozone.results ADD COLUMN ops bigint;
