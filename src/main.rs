//! `iozone`: measure file I/O throughput, record it, and tell what got slower.

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};

use iozone::cli::Cli;
use iozone::cmd::{self, exit_status};
use iozone::shell::{ColorChoice, Shell, Verbosity};

/// mimalloc rather than the system's: the walks of a whole history allocate and free
/// millions of small values (a run's strings, its results) on two threads, and a page
/// of runs is freed on the thread that did not allocate it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    // under mpirun, rank 0 alone speaks for a run: the other ranks say nothing on stderr
    let speaks = !matches!(cli.command, iozone::cli::Command::Run(_)) || launched_rank_speaks();
    let verbosity = match speaks {
        true => cli.global.verbosity(),
        false => Verbosity::Quiet,
    };
    let shell = Shell::new(cli.global.color.launched(launched()), verbosity);
    let context = cmd::Context::new(
        shell,
        cli.global.db.as_deref(),
        cli.global.db_file.as_deref(),
    );
    match cmd::dispatch(cli.command, &context) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure(&e, &context.shell, speaks),
    }
}

/// Whether an MPI launcher started this process, as one rank or many.
fn launched() -> bool {
    let sizes = iozone::cluster::LAUNCHER_VARIABLES.map(|name| std::env::var(name).ok());
    iozone::cluster::launched_ranks(sizes.iter().map(Option::as_deref)).is_some()
}

/// Whether this process speaks: it was not started by an MPI launcher, or is rank 0.
fn launched_rank_speaks() -> bool {
    let ranks = iozone::cluster::RANK_VARIABLES.map(|name| std::env::var(name).ok());
    iozone::cluster::speaks(iozone::cluster::launched_ranks(
        ranks.iter().map(Option::as_deref),
    ))
}

/// The command line; `--db-file` with `--db` is an error, with `IOZONE_DB` it wins
/// (clap's conflicts would count the environment's value as given).
fn parse() -> Result<Cli, clap::Error> {
    let matches = Cli::command().try_get_matches()?;
    let cli = Cli::from_arg_matches(&matches)?;
    let db_given = matches.value_source("db") == Some(ValueSource::CommandLine);
    if cli.global.db_file.is_some() && db_given {
        return Err(Cli::command().error(
            clap::error::ErrorKind::ArgumentConflict,
            "--db and --db-file both name the database; give one",
        ));
    }
    Ok(cli)
}

/// Help and version print as clap likes, with status 0; a usage error is clap's whole
/// message (the usage line, the missing argument's name, "did you mean") and status 2,
/// or for iozone3's flags a line saying what this program is and what to type.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let shown = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    if !shown && !launched_rank_speaks() {
        return ExitCode::from(exit_status::ERROR);
    }
    if let Some(habit) = (!shown)
        .then(|| iozone::cli::iozone3::recognise(std::env::args_os().skip(1)))
        .flatten()
    {
        Shell::new(ColorChoice::Auto, Verbosity::Normal).error(habit);
        return ExitCode::from(exit_status::ERROR);
    }
    let _ = e.print();
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
        ErrorKind::MissingSubcommand => {
            // the command that lacks one (`iozone db`), whose help lists its subcommands
            let command = match e.get(clap::error::ContextKind::InvalidSubcommand) {
                Some(clap::error::ContextValue::String(command)) => command.as_str(),
                _ => "iozone",
            };
            eprintln!("Run '{command} --help' for the commands.");
            ExitCode::from(exit_status::ERROR)
        }
        _ => ExitCode::from(exit_status::ERROR),
    }
}

/// A closed stdout pipe is success (as in ripgrep); a signal gives 128 + its number; a
/// run measured but not recorded 3; everything else is one line and status 2, said
/// unless another process (rank 0 of many) `speaks` for this one.
fn failure(e: &anyhow::Error, shell: &Shell, speaks: bool) -> ExitCode {
    let broken_pipe = e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    // the report said it already; the status is for CI
    if e.downcast_ref::<cmd::RegressionsFound>().is_some() {
        return ExitCode::from(exit_status::REGRESSION);
    }
    if speaks {
        shell.error(cmd::error_message(e));
    } else if said_by_rank_0(e) {
        // Rank 0 has this error too and says it: a silent rank that left with an error
        // status first would have the launcher end the job before rank 0's line got out
        // (seen under mpirun for a refusal, once in seven, and for a rank out of space
        // under load); rank 0's status is the job's.
        return ExitCode::SUCCESS;
    }
    if let Some(signal) = cmd::interrupted_by(e) {
        return ExitCode::from(exit_status::SIGNAL_BASE + signal as u8);
    }
    // the results were printed; the status tells a script they are not in the database
    match e.downcast_ref::<cmd::NotRecorded>() {
        Some(_) => ExitCode::from(exit_status::NOT_RECORDED),
        None => ExitCode::from(exit_status::ERROR),
    }
}

/// An error every rank has, which rank 0 says: a refusal agreed before measuring, a
/// rank's failure met at the end of a round, or ranks that MPI did not join (each finds
/// it alone, and the launcher's rank 0 says it).
fn said_by_rank_0(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<iozone::cluster::ClusterError>(),
            Some(
                iozone::cluster::ClusterError::Refused { .. }
                    | iozone::cluster::ClusterError::Unjoined { .. }
            )
        ) || matches!(
            c.downcast_ref::<iozone::bench::BenchError>(),
            Some(iozone::bench::BenchError::Client { .. })
        )
    })
}
