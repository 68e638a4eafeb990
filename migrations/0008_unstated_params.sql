-- Parameters an imported file does not state (its seed, directory, mix or stride):
-- a JSON list of their names, whose columns then hold a placeholder that is never read
-- (those columns are NOT NULL, and SQLite cannot drop that in place). Null when every
-- parameter was stated: every run measured by iozone, and every run recorded before.

ALTER TABLE runs ADD COLUMN unstated TEXT;
