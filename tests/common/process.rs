//! A run in progress: spawned until it says what a test waits for, waited for within a
//! bound (against a hang, not a timing).

use std::process::Command;

/// Spawns `cmd` (an `iozone run`) and returns once it says it is measuring, with the
/// rest of its stderr to read.
pub fn spawn_until_measuring(
    cmd: &mut Command,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let (child, stderr, _) = spawn_until(cmd.stdout(std::process::Stdio::null()), "Measuring");
    (child, stderr)
}

/// Spawns `cmd` with its stderr piped and returns once a line of it holds `needle`:
/// the process, the rest of its stderr to read, and that line.
pub fn spawn_until(
    cmd: &mut Command,
    needle: &str,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead;
    let mut child = cmd.stderr(std::process::Stdio::piped()).spawn().unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains(needle) {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the run ended before saying '{needle}'"
        );
    }
    (child, stderr, line)
}

/// Waits for `child` to exit, at most two minutes (then kills it and fails, saying
/// `what` did not happen): a bound against a hang, not a timing.
pub fn wait_bounded(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
