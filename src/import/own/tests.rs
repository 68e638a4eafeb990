//! Our own formats read back: JSON and CSV, runs of one and several combinations,
//! the depth, and the metadata tests' tree and operations.

use super::super::text::testing::origin;
use super::*;

/// A run at queue depth 32: the fio fixture's.
fn sample_run() -> Run {
    let text = include_str!("../../../tests/fixtures/fio/uring-qd32-write-4k-edited.json");
    super::super::fio::parse(text, &origin(text))
        .unwrap()
        .remove(0)
}

#[test]
fn json_keeps_the_depth_and_a_run_without_one_reads_as_depth_one() {
    let run = sample_run();
    assert_eq!(run.params.iodepth, 32);
    let text = serde_json::to_string(&run).unwrap();
    assert_eq!(parse_json(&text, &origin(&text)).unwrap()[0], run);
    // a run written before depths existed
    let mut value = serde_json::to_value(&run).unwrap();
    value["params"].as_object_mut().unwrap().remove("iodepth");
    let old = value.to_string();
    let back = &parse_json(&old, &origin(&old)).unwrap()[0];
    assert_eq!(back.params.iodepth, 1);
}

/// The columns the CSV export added last: the depth, then the metadata tests'.
const METADATA_HEADER: &str =
    ",iodepth,meta_files,meta_dirs,meta_file_bytes,meta_shared_dir,meta_random_order,meta_warm,ops";

/// `csv` as an export before its last `n` columns existed wrote it.
fn without_last_fields(csv: &str, n: usize) -> String {
    csv.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            format!("{}\n", fields[..fields.len() - n].join(","))
        })
        .collect()
}

/// A run of create and stat over a tree, beside a write.
fn metadata_run() -> Run {
    let mut run = sample_run();
    run.params.metadata = Some(MetadataTree {
        files: 100,
        dirs: 2,
        file_bytes: 512,
        shared_dir: false,
        random_order: true,
        warm: false,
    });
    let write = run.results[0].clone();
    for (test, ops) in [(TestKind::Create, 200), (TestKind::Stat, 200)] {
        run.results.push(Measurement {
            test,
            file_size: ByteSize(0),
            record_size: ByteSize(0),
            bytes: if test == TestKind::Create {
                200 * 512
            } else {
                0
            },
            throughput: 1e5,
            ops: Some(ops),
            ..write.clone()
        });
    }
    run.params.tests.extend([TestKind::Create, TestKind::Stat]);
    run
}

#[test]
fn a_metadata_run_comes_back_whole_from_json_and_csv() {
    let run = metadata_run();
    let text = serde_json::to_string(&run).unwrap();
    assert_eq!(parse_json(&text, &origin(&text)).unwrap()[0], run);
    let text = crate::export::to_csv(std::slice::from_ref(&run));
    let lines: Vec<&str> = text.lines().collect();
    // the throughput line states no tree; the metadata lines state the run's
    assert!(lines[1].ends_with(",32,,,,,,,"), "{}", lines[1]);
    assert!(
        lines[2].ends_with(",32,100,2,512,false,true,false,200"),
        "{}",
        lines[2]
    );
    let back = &parse_csv(&text, &origin(&text)).unwrap()[0];
    assert_eq!(back.results, run.results);
    assert_eq!(back.params.metadata, run.params.metadata);
    assert_eq!(back.params.tests, run.params.tests);
    assert_eq!(back.params.file_sizes, run.params.file_sizes);
    // an export from before metadata tests: no tree, as before
    let plain = sample_run();
    let old = without_last_fields(&crate::export::to_csv(&[plain]), 7);
    assert_eq!(
        parse_csv(&old, &origin(&old)).unwrap()[0].params.metadata,
        None
    );
}

/// The fio run measured through both posix and mmap, and buffered too.
fn combined_run() -> Run {
    let mut run = sample_run();
    run.params.engines = vec![EngineKind::Posix, EngineKind::Mmap];
    run.params.caches = vec![CacheMode::Flush, CacheMode::Buffered];
    let first = run.results.clone();
    run.results = [EngineKind::Posix, EngineKind::Mmap]
        .into_iter()
        .flat_map(|engine| [CacheMode::Flush, CacheMode::Buffered].map(|c| (engine, c)))
        .flat_map(|(engine, cache)| {
            first.iter().map(move |m| Measurement {
                engine,
                cache,
                ..m.clone()
            })
        })
        .collect();
    run.results.sort_by_key(Measurement::list_order);
    run
}

#[test]
fn json_keeps_each_measurements_engine_and_old_json_takes_the_runs() {
    let run = combined_run();
    let text = serde_json::to_string(&run).unwrap();
    assert_eq!(parse_json(&text, &origin(&text)).unwrap()[0], run);
    // a run written before measurements named theirs: the run's, as its params say
    let mut old = sample_run();
    old.params.engines = vec![EngineKind::Mmap];
    old.params.caches = vec![CacheMode::Buffered];
    let mut value = serde_json::to_value(&old).unwrap();
    for m in value["results"].as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        assert!(m.remove("engine").is_some() && m.remove("cache").is_some());
    }
    assert!(value["params"].get("engines").is_none());
    let text = serde_json::json!([value]).to_string();
    let back = &parse_json(&text, &origin(&text)).unwrap()[0];
    assert!(!back.results.is_empty());
    for m in &back.results {
        assert_eq!((m.engine, m.cache), (EngineKind::Mmap, CacheMode::Buffered));
    }
}

#[test]
fn csv_keeps_each_lines_engine_and_the_runs_lists() {
    let run = combined_run();
    let text = crate::export::to_csv(std::slice::from_ref(&run));
    let back = &parse_csv(&text, &origin(&text)).unwrap()[0];
    assert_eq!(back.results, run.results);
    assert_eq!(
        (&back.params.engines, &back.params.caches),
        (&run.params.engines, &run.params.caches)
    );
    // one combination: the lists hold it alone
    let single = sample_run();
    let text = crate::export::to_csv(std::slice::from_ref(&single));
    let back = &parse_csv(&text, &origin(&text)).unwrap()[0];
    assert_eq!(
        (&back.params.engines, &back.params.caches),
        (&vec![single.params.engine()], &vec![single.params.cache()])
    );
}

#[test]
fn csv_keeps_the_depth_and_an_export_without_the_column_reads_as_depth_one() {
    let run = sample_run();
    let text = crate::export::to_csv(std::slice::from_ref(&run));
    let header = text.lines().next().unwrap();
    assert!(header.ends_with(METADATA_HEADER), "{header}");
    assert_eq!(
        parse_csv(&text, &origin(&text)).unwrap()[0].params.iodepth,
        32
    );
    // an export from before the column: every line without its last fields
    let old = without_last_fields(&text, 8);
    assert!(old.lines().next().unwrap().ends_with(",lat_samples"));
    assert_eq!(parse_csv(&old, &origin(&old)).unwrap()[0].params.iodepth, 1);
    let bad = text.replacen(",32,,,,,,,\n", ",deep,,,,,,,\n", 1);
    let err = parse_csv(&bad, &origin(&bad)).unwrap_err();
    assert_eq!(err.message, "iodepth 'deep' is not a number");
}

#[test]
fn a_depth_of_zero_is_refused_in_either_format() {
    let mut run = sample_run();
    run.params.iodepth = 0;
    let json = serde_json::to_string(&run).unwrap();
    let e = parse_json(&json, &origin(&json)).unwrap_err();
    assert!(
        e.message.contains("iodepth 0 is not a queue depth"),
        "{e:?}"
    );
    let csv = crate::export::to_csv(std::slice::from_ref(&run));
    assert!(csv.lines().nth(1).unwrap().ends_with(",0,,,,,,,"), "{csv}");
    let e = parse_csv(&csv, &origin(&csv)).unwrap_err();
    assert!(
        e.message.contains("iodepth 0 is not a queue depth"),
        "{e:?}"
    );
}
