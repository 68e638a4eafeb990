-- The first schema: a run with its parameters and environment, its labels and tags,
-- and its raw per-repetition results. Summaries are always derived from `results`.
-- Sizes are bytes, times nanoseconds, rates bytes per second, instants RFC 3339 UTC.

PRAGMA application_id = 1229937230; -- 'IOZN': tells an iozone database from any other

CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT    NOT NULL UNIQUE,
    started_at      TEXT    NOT NULL,
    finished_at     TEXT,
    status          TEXT    NOT NULL CHECK (status IN ('running', 'complete', 'aborted', 'failed')),
    note            TEXT,
    tool_version    TEXT    NOT NULL,
    -- parameters
    engine          TEXT    NOT NULL,
    cache           TEXT    NOT NULL,
    threads         INTEGER NOT NULL,
    file_size       INTEGER NOT NULL,
    file_sizes      TEXT    NOT NULL, -- JSON array of bytes
    record_sizes    TEXT    NOT NULL, -- JSON array of bytes
    tests           TEXT    NOT NULL, -- JSON array of test names
    repeat          INTEGER NOT NULL,
    seed            INTEGER NOT NULL,
    auto            INTEGER NOT NULL,
    verify          INTEGER NOT NULL,
    read_pct        INTEGER NOT NULL,
    stride_records  INTEGER NOT NULL,
    latency         INTEGER NOT NULL,
    dir             TEXT    NOT NULL,
    -- the host
    hostname        TEXT,
    os              TEXT,
    os_version      TEXT,
    kernel          TEXT,
    kernel_cmdline  TEXT,
    boot_id         TEXT,
    arch            TEXT,
    cpu_model       TEXT,
    cpus            INTEGER,
    cpu_governor    TEXT,
    memory_bytes    INTEGER,
    page_size       INTEGER,
    dirty_ratio                 INTEGER,
    dirty_background_ratio      INTEGER,
    dirty_bytes                 INTEGER,
    dirty_background_bytes      INTEGER,
    dirty_expire_centisecs      INTEGER,
    dirty_writeback_centisecs   INTEGER,
    virtualization  TEXT,
    container       TEXT,
    -- the filesystem under `dir`
    mount_point     TEXT,
    fs_type         TEXT,
    fs_device       TEXT,
    mount_options   TEXT,
    block_size      INTEGER,
    total_bytes     INTEGER,
    free_bytes      INTEGER,
    block_device    TEXT,
    device_model    TEXT,
    rotational      INTEGER,
    scheduler       TEXT,
    device_size     INTEGER
);

CREATE TABLE run_labels (
    run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    label     TEXT    NOT NULL,
    position  INTEGER NOT NULL, -- labels keep the order they were given in
    PRIMARY KEY (run_id, label)
) WITHOUT ROWID;

CREATE TABLE run_tags (
    run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key     TEXT    NOT NULL,
    value   TEXT    NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

CREATE TABLE results (
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    test         TEXT    NOT NULL,
    file_size    INTEGER NOT NULL,
    record_size  INTEGER NOT NULL,
    repetition   INTEGER NOT NULL,
    bytes        INTEGER NOT NULL,
    elapsed_ns   INTEGER NOT NULL,
    throughput   REAL    NOT NULL,
    lat_p50      INTEGER,
    lat_p99      INTEGER,
    lat_p999     INTEGER,
    lat_max      INTEGER,
    lat_samples  INTEGER,
    PRIMARY KEY (run_id, test, file_size, record_size, repetition)
) WITHOUT ROWID;
