//! The fio parser's tests, on the fixtures of real fio outputs.

use chrono::TimeZone;

use super::super::text::testing::{never_panics, origin};
use super::*;
use crate::units::ByteSize;

const WRITE_4K: &str = include_str!("../../../tests/fixtures/fio/buffered-write-4k.json");
const READ_64K: &str = include_str!("../../../tests/fixtures/fio/fsync-read-64k.json");
const TWO_JOBS: &str =
    include_str!("../../../tests/fixtures/fio/two-jobs-write-read-16k-clean.json");
const URING_QD32: &str =
    include_str!("../../../tests/fixtures/fio/uring-qd32-write-4k-edited.json");

fn runs(text: &str) -> Vec<Run> {
    parse(text, &origin(text)).unwrap()
}

#[test]
fn buffered_write_is_one_run_with_fios_figures() {
    let runs = runs(WRITE_4K);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let p = &run.params;
    assert_eq!(p.tests, [TestKind::Write]);
    assert_eq!(p.record_sizes, [ByteSize(4096)]);
    assert_eq!(p.file_size(), ByteSize(32 << 20));
    assert_eq!(
        (p.cache(), p.engine(), p.threads),
        (CacheMode::Buffered, EngineKind::Pread, 1)
    );
    assert_eq!(p.dir.as_deref(), Some("/data/fio"));
    assert!(p.latency);
    let m = &run.results[0];
    assert_eq!(m.throughput, 1016800969.0);
    assert_eq!(m.bytes, 33554432);
    assert_eq!(m.elapsed_ns, 33_000_000);
    let lat = m.latency_ns.as_deref().unwrap();
    assert_eq!(
        (lat.p50, lat.p99, lat.p999, lat.max, lat.samples),
        (3024, 7392, 113152, 164036, 8192)
    );
    let source = run.source.as_ref().unwrap();
    assert_eq!(source.tool, "fio");
    assert_eq!(source.version.as_deref(), Some("fio-3.33"));
    assert_eq!(source.command, None);
    assert!(source.time_known);
    let stamped = Utc.timestamp_millis_opt(1796018322271).unwrap();
    assert_eq!(run.started_at, stamped);
    assert_eq!(run.started_at.timestamp(), 1796018322);
    assert_eq!(run.host, Default::default());
}

#[test]
fn invalidated_read_is_a_cold_read_so_flush() {
    let run = &runs(READ_64K)[0];
    assert_eq!(run.params.cache(), CacheMode::Flush);
    assert_eq!(run.params.tests, [TestKind::Read]);
    assert_eq!(run.params.record_sizes, [ByteSize(65536)]);
    let m = &run.results[0];
    assert_eq!(
        (m.throughput, m.bytes, m.elapsed_ns),
        (516222030.0, 33554432, 65_000_000)
    );
    assert_eq!(m.latency_ns.as_deref().unwrap().p999, 15794176);
    // The same read with invalidate=0 reads what the cache holds.
    let warm = READ_64K.replace("\"invalidate\" : \"1\"", "\"invalidate\" : \"0\"");
    assert_eq!(runs(&warm)[0].params.cache(), CacheMode::Buffered);
}

#[test]
fn two_stonewalled_jobs_with_one_set_of_parameters_are_one_run() {
    let runs = runs(TWO_JOBS);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.params.tests, [TestKind::Write, TestKind::Read]);
    // end_fsync times the write with its sync; the read starts cold (invalidate).
    assert_eq!(run.params.cache(), CacheMode::Flush);
    assert_eq!(run.params.record_sizes, [ByteSize(16384)]);
    assert_eq!(run.params.file_sizes, [ByteSize(32 << 20)]);
    assert_eq!(run.params.dir.as_deref(), Some("/data/fio"));
    let write = &run.results[0];
    assert_eq!(
        (write.test, write.throughput, write.elapsed_ns),
        (TestKind::Write, 1016800969.0, 33_000_000)
    );
    let read = &run.results[1];
    assert_eq!(
        (read.test, read.throughput, read.elapsed_ns),
        (TestKind::Read, 335544320.0, 100_000_000)
    );
    assert_eq!(read.latency_ns.as_deref().unwrap().max, 8010722);
    // Without end_fsync the write is buffered and the read flush: two runs.
    let unsynced = TWO_JOBS.replace("\"end_fsync\" : \"1\"", "\"end_fsync\" : \"0\"");
    let split = parse(&unsynced, &origin(&unsynced)).unwrap();
    assert_eq!(split.len(), 2);
    assert_eq!(split[0].params.cache(), CacheMode::Buffered);
    assert_eq!(split[1].params.cache(), CacheMode::Flush);
    assert_ne!(split[0].uuid, split[1].uuid);
}

#[test]
fn warnings_before_the_json_and_json_plus_bins_are_fine() {
    // json+ adds the histogram beside the percentiles.
    let bins = "\"bins\" : {\"2864\" : 10, \"3024\" : 4000}, \"percentile\" : {";
    let text = format!(
        "fio: this platform does not support process shared mutexes {{x}}\n\n{}",
        WRITE_4K.replacen("\"percentile\" : {", bins, 1)
    );
    assert!(looks_like(&text));
    let run = &runs(&text)[0];
    assert_eq!(run.results[0].throughput, 1016800969.0);
    assert_eq!(run.results[0].latency_ns.as_deref().unwrap().p50, 3024);
}

#[test]
fn options_map_as_fio_means_them() {
    let with = |extra: &str| {
        let text = WRITE_4K.replace("\"invalidate\" : \"0\"", extra);
        runs(&text)[0].params.clone()
    };
    assert_eq!(with("\"direct\" : \"1\"").cache(), CacheMode::Direct);
    assert_eq!(with("\"sync\" : \"1\"").cache(), CacheMode::Sync);
    assert_eq!(with("\"fdatasync\" : \"32\"").cache(), CacheMode::Flush);
    assert_eq!(
        with("\"fsync_on_close\" : \"1\"").cache(),
        CacheMode::Buffered
    );
    let engine = |name: &str| {
        let text = WRITE_4K.replace("\"psync\"", &format!("\"{name}\""));
        runs(&text)[0].params.engine()
    };
    assert_eq!(engine("sync"), EngineKind::Posix);
    assert_eq!(engine("mmap"), EngineKind::Mmap);
    assert_eq!(engine("io_uring"), EngineKind::Uring);
    let random = WRITE_4K.replace("\"rw\" : \"write\"", "\"rw\" : \"randwrite\"");
    assert_eq!(runs(&random)[0].params.tests, [TestKind::RandomWrite]);
    let grouped = WRITE_4K.replace(
        "\"invalidate\" : \"0\"",
        "\"numjobs\" : \"4\", \"group_reporting\" : \"\"",
    );
    assert_eq!(runs(&grouped)[0].params.threads, 4);
    let split_bs = WRITE_4K.replace("\"bs\" : \"4k\"", "\"bs\" : \"64k,8k\"");
    assert_eq!(runs(&split_bs)[0].params.record_sizes, [ByteSize(8192)]);
}

#[test]
fn a_queued_engine_keeps_its_depth() {
    let run = &runs(URING_QD32)[0];
    assert_eq!(
        (run.params.engine(), run.params.iodepth),
        (EngineKind::Uring, 32)
    );
    let with_engine = |name: &str| {
        let text = URING_QD32.replace("\"io_uring\"", &format!("\"{name}\""));
        runs(&text)[0].params.clone()
    };
    let libaio = with_engine("libaio");
    assert_eq!((libaio.engine().name(), libaio.iodepth), ("libaio", 32));
    // a synchronous engine has one I/O in flight whatever iodepth says
    for sync in ["psync", "sync", "pvsync2", "mmap"] {
        assert_eq!(with_engine(sync).iodepth, 1, "{sync}");
    }
    // no iodepth: fio's default, 1
    assert_eq!(runs(WRITE_4K)[0].params.iodepth, 1);
    let without = URING_QD32.replace("\"iodepth\" : \"32\",", "");
    assert_eq!(runs(&without)[0].params.iodepth, 1);
    for bad in ["0", "deep", "-4"] {
        let text = URING_QD32.replace("\"iodepth\" : \"32\"", &format!("\"iodepth\" : \"{bad}\""));
        let e = parse(&text, &origin(&text)).unwrap_err();
        assert!(e.message.contains("is not a queue depth"), "{bad}: {e:?}");
    }
}

#[test]
fn jobs_at_two_depths_are_two_runs() {
    let deep = TWO_JOBS.replacen(
        "\"name\" : ",
        "\"ioengine\" : \"io_uring\", \"iodepth\" : \"8\", \"name\" : ",
        1,
    );
    let split = runs(&deep);
    assert_eq!(split.len(), 2);
    assert_eq!((split[0].params.iodepth, split[1].params.iodepth), (8, 1));
}

#[test]
fn the_same_text_gives_the_same_uuids() {
    assert_eq!(runs(TWO_JOBS)[0].uuid, runs(TWO_JOBS)[0].uuid);
    assert_ne!(runs(WRITE_4K)[0].uuid, runs(READ_64K)[0].uuid);
}

#[test]
fn bad_input_says_where() {
    let cut = &READ_64K[..READ_64K.len() / 2];
    let e = parse(cut, &origin(cut)).unwrap_err();
    assert!(e.line.is_some_and(|l| l > 100), "{e:?}");
    let shifted = format!("warning\n{cut}");
    assert_eq!(
        parse(&shifted, &origin(&shifted)).unwrap_err().line,
        e.line.map(|l| l + 1)
    );
    let failed = WRITE_4K.replace("\"error\" : 0", "\"error\" : 5");
    assert!(
        parse(&failed, &origin(&failed))
            .unwrap_err()
            .message
            .contains("error 5")
    );
    let ranged = WRITE_4K.replace("\"bs\" : \"4k\"", "\"bs\" : \"4k-64k\"");
    assert!(parse(&ranged, &origin(&ranged)).is_err());
    let trim = WRITE_4K.replace("\"rw\" : \"write\"", "\"rw\" : \"trim\"");
    assert!(
        parse(&trim, &origin(&trim))
            .unwrap_err()
            .message
            .starts_with("no measurements")
    );
}

#[test]
fn detection() {
    assert!([WRITE_4K, READ_64K, TWO_JOBS].iter().all(|t| looks_like(t)));
    assert!(!looks_like("{\"format\": \"iozone-export\"}"));
}

#[test]
fn never_panics_on_damaged_json() {
    never_panics(parse, &[WRITE_4K, READ_64K, TWO_JOBS], 2000);
}
