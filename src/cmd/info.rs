//! `iozone info [DIR]`: what a run in DIR would record about the host and filesystem.

use anyhow::bail;

use crate::cli::{InfoArgs, RunFormat};
use crate::host;
use crate::render;

#[derive(serde::Serialize)]
struct Info {
    host: crate::model::Host,
    filesystem: crate::model::Filesystem,
}

pub fn exec(args: InfoArgs) -> anyhow::Result<()> {
    match std::fs::metadata(&args.dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => bail!("{} is not a directory", args.dir.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{} does not exist", args.dir.display())
        }
        Err(e) => bail!("cannot look at {}: {e}", args.dir.display()),
    }
    let info = Info {
        host: host::probe_host(),
        filesystem: host::probe_filesystem(&args.dir),
    };
    let text = match args.format {
        RunFormat::Json => render::json(&info),
        RunFormat::Table => render::environment_listing(&info.host, &info.filesystem).to_table(),
    };
    super::print_stdout(&text)?;
    Ok(())
}
