//! `run`'s flags as the engine's plan, the plan as the run's recorded parameters, and
//! the engine's refusals of a plan in the words of the flags that set it.

use crate::bench::{self, Plan, PlanError, Rounds};
use crate::cli::{Repeat, RunArgs};
use crate::model::{self, AUTO_RECORD_SIZES, AutoRepeat, Params, TestKind};
use crate::units::ByteSize;

/// A plan the engine refused, in the words of `run`'s flags.
pub(crate) fn plan_message(error: &PlanError) -> String {
    match error {
        PlanError::NoThreads => "--threads must be at least 1".into(),
        PlanError::TooManyThreads => format!("--threads must be at most {}", bench::MAX_THREADS),
        PlanError::NoRounds => "--repeat must be at least 1".into(),
        PlanError::AutoBounds => {
            "--precision must be above 0 and below 100 (percent), --max-time above 0".into()
        }
        PlanError::ReadShare(pct) => format!("--read-pct must be 0..100, not {pct}"),
        PlanError::NeedsPageCache(engine) => format!(
            "--engine {} goes through the page cache and cannot do --cache direct; \
             use --engine {}",
            engine.name(),
            bench::engine::names_where(|e| !e.uses_page_cache())
        ),
        PlanError::DepthRange(depth) => {
            format!("--iodepth must be 1..={}, not {depth}", bench::MAX_IODEPTH)
        }
        PlanError::DepthNeedsQueue { engine, depth } => format!(
            "--iodepth {depth} needs --engine {}: --engine {} keeps one operation in flight",
            bench::engine::names_where(|e| e.queues()),
            engine.name()
        ),
        PlanError::QueueTooLarge { .. } => format!("{error}; use a smaller --iodepth or --record"),
        PlanError::RecordLargerThanFile { .. } => {
            format!("{error}; use a smaller --record or a larger --size")
        }
        PlanError::EmptyTree => "--files and --dirs must be at least 1".into(),
        PlanError::TreeTooLarge { .. } => format!("{error}; use fewer --files or --dirs"),
        PlanError::FileBytesTooLarge(_) => format!("--file-bytes: {error}"),
        PlanError::MetadataEngine(engine) => format!(
            "the metadata tests go through plain system calls, measured once as --engine \
             {plain}: add {plain} to --engine {}, or run them apart",
            engine.name(),
            plain = bench::engine::names_where(|e| e.plain_calls())
        ),
        PlanError::MetadataDirect => {
            "--cache direct means nothing to the metadata tests (they move no records): use \
             flush, buffered or sync, or run them apart"
                .into()
        }
        PlanError::RecordTooLarge(_)
        | PlanError::NotOurs(_)
        | PlanError::NothingToMeasure
        | PlanError::FileNotWhole { .. } => error.to_string(),
    }
}

pub(super) fn plan_from(args: &RunArgs) -> anyhow::Result<Plan> {
    let file_sizes = if args.auto {
        doubling(args.min_size.bytes(), args.max_size.bytes())
    } else {
        let size = args
            .size_mb
            .or(args.size)
            .map_or(model::DEFAULT_FILE_SIZE, ByteSize::bytes);
        vec![size]
    };
    if file_sizes.is_empty() {
        anyhow::bail!(
            "--min-size {} is larger than --max-size {}",
            args.min_size,
            args.max_size
        );
    }
    let mut record_sizes: Vec<u64> = match (&args.record_bytes, args.records.is_empty()) {
        (Some(r), _) => vec![r.bytes()],
        (None, false) => args.records.iter().map(|r| r.bytes()).collect(),
        (None, true) if args.auto => doubling(AUTO_RECORD_SIZES.0, AUTO_RECORD_SIZES.1),
        (None, true) => model::DEFAULT_RECORD_SIZES.to_vec(),
    };
    record_sizes.sort_unstable();
    record_sizes.dedup();
    let mut tests: Vec<TestKind> = args.tests.iter().flatten().copied().collect();
    if tests.is_empty() {
        tests = model::DEFAULT_TESTS.to_vec();
    }
    tests.sort_unstable();
    tests.dedup();
    let metadata = tree(args, &tests)?;
    // a run of metadata tests alone measures no file: it states no sizes
    let (file_sizes, record_sizes) = match tests.iter().all(|t| t.is_metadata()) {
        true => (Vec::new(), Vec::new()),
        false => (file_sizes, record_sizes),
    };
    // the absolute path says which filesystem was measured; a missing directory is
    // left as given for preflight to report
    let dir = std::fs::canonicalize(&args.dir).unwrap_or_else(|_| args.dir.clone());
    Ok(Plan {
        dir,
        file_sizes,
        record_sizes,
        tests,
        engines: model::first_seen(args.engine.iter().copied()),
        caches: model::first_seen(args.cache.iter().copied()),
        iodepth: args.iodepth,
        threads: args.threads,
        rounds: match args.repeat {
            Repeat::Rounds(n) => Rounds::Fixed(n),
            Repeat::Auto => Rounds::Auto {
                precision: args.precision / 100.0,
                max_time: std::time::Duration::try_from_secs_f64(args.max_time).map_err(|_| {
                    anyhow::anyhow!("--max-time must be a number of seconds above 0")
                })?,
            },
        },
        warmup: args.warmup,
        order: args.order,
        seed: args
            .seed
            .unwrap_or_else(|| rand::random::<u64>() & model::MAX_SEED),
        verify: args.verify,
        read_pct: args.read_pct,
        stride_records: args.stride,
        latency: !args.no_latency,
        auto: args.auto,
        metadata,
    })
}

/// The metadata tests' tree the flags ask for; flags of a tree without a metadata test
/// to measure it are a mistake, said as one.
fn tree(args: &RunArgs, tests: &[TestKind]) -> anyhow::Result<Option<model::MetadataTree>> {
    if !tests.iter().any(|t| t.is_metadata()) {
        let given = [
            ("--files", args.files.is_some()),
            ("--dirs", args.dirs.is_some()),
            ("--file-bytes", args.file_bytes.is_some()),
            ("--shared-dir", args.shared_dir),
            ("--random-order", args.random_order),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, given)| *given) {
            anyhow::bail!(
                "{flag} is for the metadata tests: add one with -i (metadata for all of them, \
                 or mkdir, create, stat, open, readfile, readdir, rename, unlink, rmdir)"
            );
        }
        return Ok(None);
    }
    Ok(Some(model::MetadataTree {
        files: args.files.unwrap_or(model::DEFAULT_META_FILES),
        dirs: args.dirs.unwrap_or(model::DEFAULT_META_DIRS),
        file_bytes: args
            .file_bytes
            .map_or(model::DEFAULT_META_FILE_BYTES, ByteSize::bytes),
        shared_dir: args.shared_dir,
        random_order: args.random_order,
        warm: false,
    }))
}

/// `from`, `2·from`, … up to and including `to`.
fn doubling(from: u64, to: u64) -> Vec<u64> {
    std::iter::successors(Some(from), |&s| s.checked_mul(2))
        .take_while(|&s| s <= to)
        .collect()
}

pub(super) fn params(plan: &Plan) -> Params {
    Params {
        engines: plan.engines.clone(),
        caches: plan.caches.clone(),
        iodepth: plan.iodepth,
        threads: plan.threads,
        file_sizes: plan.file_sizes.iter().copied().map(ByteSize).collect(),
        record_sizes: plan.record_sizes.iter().copied().map(ByteSize).collect(),
        tests: plan.tests.clone(),
        repeat: plan.rounds.planned(),
        warmup: plan.warmup,
        order: plan.order,
        repeat_auto: match plan.rounds {
            Rounds::Fixed(_) => None,
            Rounds::Auto {
                precision,
                max_time,
            } => Some(AutoRepeat {
                precision_pct: precision * 100.0,
                max_time_s: max_time.as_secs_f64(),
            }),
        },
        seed: Some(plan.seed),
        auto: plan.auto,
        verify: plan.verify,
        read_pct: Some(plan.read_pct),
        stride_records: Some(plan.stride_records),
        latency: plan.latency,
        dir: Some(plan.dir.display().to_string()),
        // whether it was warm is the preflight's to say
        metadata: plan.tree(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubling_includes_both_ends() {
        assert_eq!(doubling(4, 32), [4, 8, 16, 32]);
        assert_eq!(doubling(4, 31), [4, 8, 16]);
        assert!(doubling(8, 4).is_empty());
    }
}
