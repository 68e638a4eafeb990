-- Engines may keep several operations in flight per worker (io_uring at a queue
-- depth): the depth is a parameter of the run, shown and compared like the engine.
-- Every run recorded before this kept one operation in flight.

ALTER TABLE runs ADD COLUMN iodepth INTEGER NOT NULL DEFAULT 1;
