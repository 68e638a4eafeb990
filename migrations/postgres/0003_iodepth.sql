-- Engines may keep several operations in flight per worker (io_uring at a queue
-- depth): the depth is a parameter of the run, shown and compared like the engine.
-- The same change as SQLite's migration 0005. Every run recorded before this kept one
-- operation in flight.

ALTER TABLE iozone.runs ADD COLUMN iodepth bigint NOT NULL DEFAULT 1;
