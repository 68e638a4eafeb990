-- Parameters an imported file does not state: the same change as SQLite's migration
-- 0008, so that both stores keep a run alike.

ALTER TABLE iozone.runs ADD COLUMN unstated text;
