//! `iozone completions SHELL`: generated from the command line itself.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    // generated into memory: clap_complete panics when writing to a closed pipe
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "iozone", &mut buf);
    super::print_stdout(&String::from_utf8_lossy(&buf))?;
    Ok(())
}
