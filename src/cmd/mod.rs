//! One file per subcommand: each turns its arguments into model values, calls the
//! library, and hands the result to a renderer.

mod run;

use std::io::Write;

pub use run::Interrupted;

use crate::cli::Command;
use crate::shell::Shell;

pub fn dispatch(command: Command, shell: &Shell) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => run::exec(args, shell),
    }
}

/// Data goes to stdout; a closed pipe surfaces as an error for main to treat as success.
pub(crate) fn print_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}
