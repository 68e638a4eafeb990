-- `history` filters by time, host, filesystem type, label and tag over databases of
-- many thousands of runs; without these indexes each filter is a full scan.

CREATE INDEX runs_started_at ON runs (started_at);
CREATE INDEX runs_hostname_started_at ON runs (hostname, started_at);
CREATE INDEX runs_fs_type_started_at ON runs (fs_type, started_at);
CREATE INDEX run_labels_label ON run_labels (label, run_id);
CREATE INDEX run_tags_key_value ON run_tags (key, value, run_id);
