//! `iozone`: measure file I/O throughput, record it, and tell what got slower.

use std::process::ExitCode;

use clap::Parser;

use iozone::cli::Cli;
use iozone::cmd;
use iozone::shell::Shell;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let shell = Shell::new(cli.global.color, cli.global.verbosity());
    let context = cmd::Context::new(shell, cli.global.db.as_deref());
    match cmd::dispatch(cli.command, &context) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => failure(&e, &context.shell),
    }
}

/// Help and version print as clap likes; a usage error is one line and status 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        // `iozone` alone: the help is the most useful answer, but it is still an error
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        _ => {}
    }
    let text = e.to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("invalid arguments");
    match lines.find(|l| l.starts_with("[possible values:")) {
        Some(values) => eprintln!("{first} {values}"),
        None => eprintln!("{first}"),
    }
    if e.kind() == ErrorKind::MissingSubcommand {
        // the command that lacks one (`iozone db`), whose help lists its subcommands
        let command = match e.get(clap::error::ContextKind::InvalidSubcommand) {
            Some(clap::error::ContextValue::String(command)) => command.as_str(),
            _ => "iozone",
        };
        eprintln!("Run '{command} --help' for the commands.");
    }
    ExitCode::from(2)
}

/// A closed stdout pipe is success (as in ripgrep); a signal gives 128 + its number;
/// everything else is one line and status 2.
fn failure(e: &anyhow::Error, shell: &Shell) -> ExitCode {
    let broken_pipe = e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    // the report said it already; the status is for CI
    if e.downcast_ref::<cmd::RegressionsFound>().is_some() {
        return ExitCode::from(1);
    }
    shell.error(cmd::error_message(e));
    match e.downcast_ref::<cmd::Interrupted>() {
        Some(cmd::Interrupted(signal)) => ExitCode::from((128 + signal) as u8),
        None => ExitCode::from(2),
    }
}
