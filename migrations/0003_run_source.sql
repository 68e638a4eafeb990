-- Imported runs keep where they came from: the tool that measured them (iozone3, fio,
-- the classic IOzone table, or iozone itself), its version and command line, the file
-- they were read from, and when. Native runs leave these null.

ALTER TABLE runs ADD COLUMN source_tool TEXT;
ALTER TABLE runs ADD COLUMN source_version TEXT;
ALTER TABLE runs ADD COLUMN source_command TEXT;
ALTER TABLE runs ADD COLUMN source_file TEXT;
ALTER TABLE runs ADD COLUMN imported_at TEXT;
-- whether started_at is the source's own time (false: the source stated none, and
-- started_at is the time of the import)
ALTER TABLE runs ADD COLUMN source_time_known INTEGER;
