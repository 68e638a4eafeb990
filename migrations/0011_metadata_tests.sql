-- Metadata tests (mkdir, create, stat, open, readfile, readdir, rename, unlink, rmdir)
-- measure operations over a tree of small files. A run states the tree it measured
-- over: files per directory, directories, each file's bytes, whether the threads
-- shared one set of directories, and whether each phase went in a shuffled order; and
-- whether `--cache flush` could not drop the dentry and inode caches, so its phases
-- started warm. All six are null for a run without metadata tests (every run recorded
-- before), and set together otherwise. A result of a metadata test states the operations it
-- counted; null for every other result.

ALTER TABLE runs ADD COLUMN meta_files INTEGER;
ALTER TABLE runs ADD COLUMN meta_dirs INTEGER;
ALTER TABLE runs ADD COLUMN meta_file_bytes INTEGER;
ALTER TABLE runs ADD COLUMN meta_shared_dir INTEGER;
ALTER TABLE runs ADD COLUMN meta_random_order INTEGER;
ALTER TABLE runs ADD COLUMN meta_warm INTEGER;
ALTER TABLE results ADD COLUMN ops INTEGER;
