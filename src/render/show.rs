//! `show`: one run in full — what it was, where it ran, and every figure.

use super::cells;
use super::environment::environment_listing;
use super::history::local_time;
use super::listing::{Listing, TextStyle};
use crate::model::{Latency, MachineState, RowKey, Run, Source, by_row};
use crate::stats::Summary;
use crate::units::{ByteSize, RateUnit, count, format_nanos};

/// The run's identity and parameters as label/value lines.
fn header(run: &Run) -> Listing {
    let p = &run.params;
    let list = |sizes: &[ByteSize]| {
        sizes
            .iter()
            .map(ByteSize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let duration = run.finished_at.map_or("-".into(), |end| {
        format!(
            "{} ({:.1} s)",
            local_time(&end),
            (end - run.started_at).as_seconds_f64()
        )
    });
    let mut listing =
        Listing::new(&["run", &run.id.map_or("-".into(), |id| id.to_string())]).wrapped(110);
    for (fact, value) in [
        ("uuid", run.uuid.to_string()),
        ("status", cells::status(run.status)),
        (
            "started",
            run.stated_start()
                .map_or("unknown (the file states no time)".into(), |at| {
                    local_time(&at)
                }),
        ),
        ("finished", duration),
        ("labels", run.labels.join(", ")),
        ("tags", cells::tags(&run.tags, ", ")),
        ("note", run.note.clone().unwrap_or_default()),
        (
            "directory",
            p.dir.clone().unwrap_or_else(|| "unknown".into()),
        ),
        ("file sizes", list(&p.file_sizes)),
        ("record sizes", list(&p.record_sizes)),
        (
            "tests",
            p.tests
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        (
            "mode",
            format!(
                "cache {}, engine {}{}, {}{}{}",
                p.cache_names(),
                p.engine_names(),
                // depth 1, every run's before depths existed, goes unsaid
                match p.iodepth {
                    1 => String::new(),
                    n => format!(", queue depth {n}"),
                },
                count(p.threads as usize, "thread"),
                p.seed.map_or(String::new(), |s| format!(", seed {s}")),
                if p.verify { ", verified" } else { "" }
            ),
        ),
        (
            "metadata tree",
            p.metadata.as_ref().map_or(String::new(), cells::run_tree),
        ),
        ("rounds", rounds(run)),
        ("machine at start", state(&run.state_at_start)),
        ("machine at end", state(&run.state_at_end)),
        ("iozone", run.tool_version.clone()),
    ] {
        // a run without metadata tests has no tree to speak of
        if fact == "metadata tree" && value.is_empty() {
            continue;
        }
        listing.push(vec![fact.into(), value]);
        // only an imported run has the line, right under its start
        if let (Some(source), "started") = (&run.source, fact) {
            listing.push(vec!["imported".into(), imported(source)]);
        }
    }
    listing
}

/// "from results.txt (iozone3 3.489), on 2026-12-01 09:00".
fn imported(source: &Source) -> String {
    let tool = match &source.version {
        Some(version) => format!("{} {version}", source.tool),
        None => source.tool.clone(),
    };
    let file = source.file.as_deref().unwrap_or("an unnamed file");
    format!(
        "from {file} ({tool}), on {}",
        local_time(&source.imported_at)
    )
}

/// "1 warm-up (8 measurements kept, left out), 5 rounds interleaved".
fn rounds(run: &Run) -> String {
    let p = &run.params;
    let auto = p.repeat_auto.map_or(String::new(), |a| {
        format!(
            " (auto: ±{}% asked, at most {} s)",
            a.precision_pct, a.max_time_s
        )
    });
    let warmup = match p.warmup {
        0 => "no warm-up".to_string(),
        w => format!(
            "{w} warm-up ({} kept apart, in no statistic)",
            count(run.warmup.len(), "measurement")
        ),
    };
    format!(
        "{warmup}, {} {}{auto}",
        count(p.repeat as usize, "round"),
        p.order.name()
    )
}

/// Load, writeback and pressure, or `unknown` for runs that did not record them.
fn state(state: &Option<MachineState>) -> String {
    let Some(s) = state else {
        return "unknown".into();
    };
    let bytes = |b: Option<u64>| b.map_or("-".into(), |b| ByteSize(b).to_string());
    let pct = |p: Option<f64>| p.map_or("-".into(), |p| format!("{p:.1}%"));
    format!(
        "load {}, dirty {}, writeback {}, available memory {}, I/O pressure {}, CPU pressure {}",
        s.load_1m.map_or("-".into(), |l| format!("{l:.2}")),
        bytes(s.dirty_bytes),
        bytes(s.writeback_bytes),
        bytes(s.mem_available_bytes),
        pct(s.io_pressure_pct),
        pct(s.cpu_pressure_pct)
    )
}

/// The run's rows that timed single operations, each with its mode (`flush/posix`,
/// in a run of several combinations) and its figures' latencies; listed by size, then
/// mode by name, then test.
fn latency_rows(run: &Run) -> Vec<(RowKey, String, Vec<Latency>)> {
    let combined = run.params.combined();
    let mut rows: Vec<(RowKey, String, Vec<Latency>)> = by_row(&run.params, &run.results)
        .into_iter()
        .map(|(key, figures)| {
            let mode = match combined {
                true => cells::mode(
                    Some(key.cache.name()),
                    Some(key.engine.name()),
                    Some(1),
                    Some(1),
                ),
                false => String::new(),
            };
            let latencies = figures.iter().filter_map(|m| m.latency_ns.as_deref());
            (key, mode, latencies.copied().collect())
        })
        .filter(|(_, _, latencies): &(_, _, Vec<Latency>)| !latencies.is_empty())
        .collect();
    rows.sort_by(|(a, a_mode, _), (b, b_mode, _)| {
        let order = |k: &RowKey, mode| (k.file_size, k.record_size, mode, k.test);
        order(a, a_mode).cmp(&order(b, b_mode))
    });
    rows
}

/// Median latency percentiles per test, size and, in a run of several engines or cache
/// modes, combination (each has latencies of its own).
fn latency(run: &Run) -> Option<Listing> {
    let combined = run.params.combined();
    let rows = latency_rows(run);
    if rows.is_empty() {
        return None;
    }
    let mut headers = vec!["File", "Record"];
    if combined {
        headers.push("Mode");
    }
    let first_figure = headers.len() + 1;
    headers.extend(["Test", "p50", "p99", "p99.9", "max"]);
    let numeric: Vec<usize> = [0, 1]
        .into_iter()
        .chain(first_figure..headers.len())
        .collect();
    let mut listing = Listing::new(&headers).numeric(&numeric);
    for (key, mode, values) in rows {
        let median = |pick: fn(&Latency) -> u64| {
            let v: Vec<f64> = values.iter().map(|x| pick(x) as f64).collect();
            Summary::of(&v).map_or("-".into(), |s| format_nanos(s.median as u64))
        };
        // a metadata test's row is its tree's, which has no record
        let mut row = match key.test.is_metadata() {
            true => vec![cells::tree(key.files, key.dirs, key.file_bytes), "-".into()],
            false => vec![key.file_size.to_string(), key.record_size.to_string()],
        };
        if combined {
            row.push(mode);
        }
        row.extend([
            key.test.name().into(),
            median(|l| l.p50),
            median(|l| l.p99),
            median(|l| l.p999),
            median(|l| l.max),
        ]);
        listing.push(row);
    }
    Some(listing)
}

/// The whole run for the terminal or, in Markdown, for a ticket; only the results
/// table takes colour.
pub fn show_text(run: &Run, unit: RateUnit, style: TextStyle) -> String {
    let render = |l: Listing| l.render(style.plain());
    let mut out = render(header(run));
    out.push('\n');
    out.push_str(&render(environment_listing(&run.host, &run.filesystem)));
    out.push('\n');
    if run.results.is_empty() {
        out.push_str("no results recorded\n");
        return out;
    }
    out.push_str(&super::run_table(run, unit, style));
    if let Some(latency) = latency(run) {
        out.push_str(&style.paragraph("\nlatency per operation, median over repetitions\n"));
        out.push_str(&render(latency));
    }
    out
}
