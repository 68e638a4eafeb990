//! `iozone man [COMMAND…] [--dir DIR]`: manual pages generated from the command line
//! itself (clap_mangen), one per subcommand, nested ones too (`iozone-db-check(1)`),
//! so that the top page's list of `iozone-run(1)`, `iozone-compare(1)` … points to
//! pages that exist. The top page adds what `--help` has no place for: exit statuses,
//! environment, examples.

use std::path::Path;

use clap::CommandFactory;
use clap_mangen::Man;
use roff::{Roff, bold, roman};

use super::Context;
use super::exit_status::{ERROR, NOT_RECORDED, REGRESSION, SIGNAL_BASE};
use crate::cli::{Cli, ManArgs};
use crate::output::{Output, Policy};

/// A `COMMAND` that names no subcommand: the names there are, for the message.
#[derive(Debug, thiserror::Error)]
#[error("no manual page for '{asked}': expected one of {known}")]
pub struct NoSuchPage {
    asked: String,
    known: String,
}

pub fn exec(args: ManArgs, context: &Context) -> anyhow::Result<()> {
    let root = root_command();
    if let Some(dir) = &args.dir {
        let written = write_all(&root, dir, &super::output_policy(context, args.force))?;
        context.shell.status(
            "Wrote",
            format!(
                "{} to {}",
                crate::units::count(written, "manual page"),
                dir.display()
            ),
        );
        return Ok(());
    }
    let mut command = &root;
    for name in &args.command {
        command = command.find_subcommand(name).ok_or_else(|| NoSuchPage {
            asked: args.command.join(" "),
            known: command
                .get_subcommands()
                .map(|c| c.get_name())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    }
    super::print_stdout(&page(command, args.command.is_empty())?)?;
    Ok(())
}

/// The whole command line, built so that each subcommand knows its page's name
/// (`iozone-db-check`); clap's `help` subcommand has no page.
fn root_command() -> clap::Command {
    let mut root = Cli::command().disable_help_subcommand(true);
    root.build();
    root
}

/// One page in roff; the top page with its extra sections.
fn page(command: &clap::Command, top: bool) -> std::io::Result<String> {
    // the page's footer names the tool, not the subcommand: "iozone 0.1.0"
    let man = Man::new(command.clone()).source(format!("iozone {}", env!("CARGO_PKG_VERSION")));
    let mut out = Vec::new();
    man.render(&mut out)?;
    if top {
        out.extend_from_slice(top_page_sections().to_roff().as_bytes());
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Writes the page of `command` and of every subcommand under it; returns how many.
/// Every page is checked and written aside before any is moved into place, so that a
/// refusal or a full disk leaves the directory as it was.
fn write_all(root: &clap::Command, dir: &Path, policy: &Policy) -> anyhow::Result<usize> {
    let mut pending = vec![(root, true)];
    let mut written = Vec::new();
    while let Some((command, top)) = pending.pop() {
        let path = dir.join(Man::new(command.clone()).get_filename());
        let mut output = Output::open(&path, policy)?;
        output.write(&page(command, top)?)?;
        written.push(output);
        pending.extend(command.get_subcommands().map(|c| (c, false)));
    }
    let count = written.len();
    for output in written {
        output.finish()?;
    }
    Ok(count)
}

/// EXIT STATUS, ENVIRONMENT and EXAMPLES: after the sections clap_mangen renders.
fn top_page_sections() -> Roff {
    let mut roff = Roff::new();
    exit_status_section(&mut roff);
    environment_section(&mut roff);
    examples_section(&mut roff);
    roff
}

/// What each exit status means, from the constants main returns.
fn exit_status_section(roff: &mut Roff) {
    let exit_statuses = [
        (
            "0".to_string(),
            "Success, also for --help and --version; a closed stdout pipe is not an error.",
        ),
        (
            REGRESSION.to_string(),
            "compare --fail-on-regression found a regression (the report says which).",
        ),
        (
            ERROR.to_string(),
            "Bad input or an error: one line on stderr saying what was wrong and what to do; \
             a command line that cannot be parsed gets the usage and the argument's name.",
        ),
        (
            NOT_RECORDED.to_string(),
            "A run measured and printed but not recorded: the database could not take it, \
             so it waits in the spool file the message names (iozone import FILE records it).",
        ),
    ];
    let signal = format!(
        "Ended by signal N, the test files removed: {} for Ctrl-C (SIGINT), {} for SIGTERM.",
        u32::from(SIGNAL_BASE) + 2,
        u32::from(SIGNAL_BASE) + 15
    );
    let signalled = (format!("{SIGNAL_BASE}+N"), signal.as_str());
    tagged_section(
        roff,
        "EXIT STATUS",
        exit_statuses.into_iter().chain([signalled]),
    );
}

/// The variables `cmd::Context` and clap read.
fn environment_section(roff: &mut Roff) {
    let environment = [
        (
            "IOZONE_DB",
            "The database when --db is not given: a SQLite file, or a postgres:// URL for a \
             fleet. Unset, the platform data directory's history.db.",
        ),
        ("NO_COLOR", "Set (to anything), no colour in --color auto."),
        (
            "IOZONE_RECORD_RETRY",
            "Seconds a run's final write is retried before the run goes to the spool \
             (default 60).",
        ),
        (
            "IOZONE_BUSY_TIMEOUT",
            "Seconds a SQLite write waits for another process's lock (default 60).",
        ),
    ];
    tagged_section(
        roff,
        "ENVIRONMENT",
        environment.map(|(k, v)| (k.to_string(), v)),
    );
}

fn examples_section(roff: &mut Roff) {
    let examples = [
        (
            "iozone run 32 512",
            "The classic form: a 32 MB file written and read in 512-byte records.",
        ),
        (
            "iozone run -s 1G -r 4k,64k -i write,read,random -d /mnt/data -l DR9",
            "Measure on /mnt/data and record the run with the label DR9.",
        ),
        (
            "iozone history --host bebox",
            "The runs recorded on one host, newest first.",
        ),
        (
            "iozone compare DR8 DR9 --fail-on-regression",
            "Compare two labels; exit status 1 when anything regressed.",
        ),
        (
            "iozone report DR8 DR9 -o report.html",
            "Both groups charted, DR9 compared against DR8, in one HTML file.",
        ),
        (
            "iozone man --dir /usr/local/share/man/man1",
            "Install this page and one per subcommand.",
        ),
    ];
    tagged_section(roff, "EXAMPLES", examples.map(|(k, v)| (k.to_string(), v)));
}

/// A section of tagged paragraphs: each tag in bold, its text under it.
fn tagged_section<'a>(
    roff: &mut Roff,
    heading: &str,
    items: impl IntoIterator<Item = (String, &'a str)>,
) {
    roff.control("SH", [heading]);
    for (tag, text) in items {
        roff.control("TP", []).text([bold(tag)]).text([roman(text)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_has_a_page_with_its_own_name() {
        let root = root_command();
        let dir = tempfile::tempdir().unwrap();
        let written = write_all(&root, dir.path(), &Policy::default()).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(written, names.len());
        for name in [
            "iozone.1",
            "iozone-run.1",
            "iozone-db.1",
            "iozone-db-check.1",
        ] {
            assert!(names.iter().any(|n| n == name), "no {name} in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }

    #[test]
    fn only_the_top_page_has_the_extra_sections() {
        let root = root_command();
        let top = page(&root, true).unwrap();
        for section in ["EXIT STATUS", "ENVIRONMENT", "EXAMPLES"] {
            assert!(
                top.contains(&format!(".SH \"{section}\""))
                    || top.contains(&format!(".SH {section}")),
                "{section}"
            );
        }
        let run = page(root.find_subcommand("run").unwrap(), false).unwrap();
        assert!(!run.contains("EXIT STATUS"));
        assert!(run.contains("iozone\\-run"), "{}", &run[..200]);
    }
}
