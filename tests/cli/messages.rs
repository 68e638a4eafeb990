//! What the command line says when it is misused or asked something surprising.

use crate::common::{expect_bad_input, is_usage_error};

#[test]
fn usage_errors_show_clap_s_whole_message() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, needles) in [
        (&["import"][..], &["<FILE>", "Usage: iozone import"][..]),
        (&["compare"], &["<BASELINE>", "<CANDIDATE>", "Usage: iozone compare"]),
        (&["report", "A", "B"], &["--output <FILE>", "Usage: iozone report"]),
        (&["histroy"], &["a similar subcommand exists: 'history'"]),
        (&["run", "--sise", "8M"], &["a similar argument exists: '--size'"]),
    ] {
        let message = expect_bad_input(d, args);
        assert!(is_usage_error(&message), "{args:?}: {message}");
        for needle in needles {
            assert!(message.contains(needle), "{args:?}: no {needle} in\n{message}");
        }
    }
    // help and version are answers, not errors
    for flag in ["--help", "--version"] {
        crate::common::iozone().arg(flag).assert().success();
    }
}
