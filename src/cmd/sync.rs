//! `iozone sync --to URL | --from URL`: runs move between two databases by UUID, in
//! batches of one transaction each (`store::move_runs`), so a second sync moves
//! nothing and an interrupted one resumes where it stopped.

use super::Context;
use crate::cli::SyncArgs;
use crate::store::{self, Location, Moved};

pub fn exec(args: SyncArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let (remote_text, sending) = match (&args.to, &args.from) {
        (Some(to), _) => (to, true),
        (None, Some(from)) => (from, false),
        (None, None) => unreachable!("clap requires --to or --from"),
    };
    let flag = if sending { "--to" } else { "--from" };
    let remote_location = Location::parse(remote_text).map_err(|refused| super::OtherDatabase {
        flag,
        error: refused.into(),
    })?;
    // the side sent from is only read
    let (local, remote) = match sending {
        true => (context.read_store()?, store::open(&remote_location)),
        false => (context.open_store()?, store::open_to_read(&remote_location)),
    };
    let remote = remote.map_err(|error| super::OtherDatabase { flag, error })?;
    // a second connection to the target, which only asks what it already has: the
    // source is read a batch ahead on a thread of its own while the target writes
    let target_reader = match sending {
        true => store::open_to_read(&remote_location)
            .map_err(|error| super::OtherDatabase { flag, error })?,
        false => context.read_store()?,
    };
    let (source, mut target) = match sending {
        true => (local, remote),
        false => (remote, local),
    };
    // oldest first, so the target numbers them in the order they ran
    let mut filter = super::run_filter(&args.filter, None);
    filter.oldest_first = true;
    let Moved {
        moved,
        present,
        running,
    } = store::move_runs(
        source,
        target_reader,
        &mut *target,
        &filter,
        args.batch as usize,
    )?;
    let mut message = format!(
        "{moved} run{} {} {} ({present} already there)",
        if moved == 1 { "" } else { "s" },
        if sending { "to" } else { "from" },
        remote_location.display()
    );
    if running > 0 {
        message.push_str(&format!(
            "; {running} still running or unfinished, not sent"
        ));
    }
    shell.status("Synced", message);
    Ok(())
}
