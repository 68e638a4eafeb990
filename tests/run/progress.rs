//! Progress on a terminal: while one long measurement runs, the bar says the time so
//! far and what remains, and moves; Ctrl-C wipes it before the error line. The run gets
//! a pseudo-terminal from `script(1)`, and Ctrl-C is typed into it, so the terminal
//! turns it into SIGINT for the run as a user's keyboard would.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A run on a pseudo-terminal that a failed assertion does not leave running: dropped,
/// it gets a Ctrl-C (which removes its test file), then is killed if still there.
struct Terminal(Child);

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.stdin.as_mut().map(|s| s.write_all(b"\x03"));
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline && matches!(self.0.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `iozone ARGS` on a pseudo-terminal; everything it draws is gathered in the buffer.
fn on_terminal(args: &str) -> (Terminal, Arc<Mutex<Vec<u8>>>) {
    let binary = assert_cmd::cargo::cargo_bin("iozone");
    let mut child = Command::new("script")
        // a terminal wide enough for the whole bar: script(1) sizes its terminal after
        // its standard input, which here is not one
        .args([
            "-qec",
            &format!("stty cols 160 rows 40; exec {} {args}", binary.display()),
            "/dev/null",
        ])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("script(1) from util-linux runs the test on a pseudo-terminal");
    let drawn = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&drawn);
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });
    (Terminal(child), drawn)
}

/// The bar's frames so far: each redraw starts with a carriage return.
fn frames(drawn: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(drawn)
        .split(['\r', '\n'])
        .map(|f| f.replace("\x1b[2K", "").trim().to_string())
        .filter(|f| f.starts_with("Measuring"))
        .collect()
}

#[test]
fn a_long_measurement_shows_its_time_and_what_remains_and_ctrl_c_wipes_the_bar() {
    // on the project's disk rather than /tmp, which may be memory: synchronous 4 KiB
    // writes of a 2 GiB file are one phase long enough to watch on any disk
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let args = format!(
        "run --no-record -s 2G -r 4k -n 1 --warmup 0 -i write --cache sync -d {}",
        dir.path().display()
    );
    let (mut terminal, drawn) = on_terminal(&args);
    let child = &mut terminal.0;
    // wait (bounded) for two different frames of the first phase with an estimate:
    // the bar moved while that one measurement ran
    let deadline = Instant::now() + Duration::from_secs(120);
    let seen = loop {
        let now = frames(&drawn.lock().unwrap());
        let first_phase: Vec<&String> = now
            .iter()
            .filter(|f| f.contains(" 0/2 write 4 KiB in 2 GiB [1/1] ") && f.ends_with(" left"))
            .collect();
        let mut distinct = first_phase.clone();
        distinct.dedup();
        if distinct.len() >= 2 {
            break now;
        }
        assert!(
            !now.iter().any(|f| f.contains(" 1/2 ")),
            "the first phase ended before its progress was seen twice: {now:#?}"
        );
        assert!(
            Instant::now() < deadline && child.try_wait().unwrap().is_none(),
            "no progress within the phase: {:?}",
            String::from_utf8_lossy(&drawn.lock().unwrap())
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    // the frames carry the elapsed time and the estimate: `0:03, ~41:20 left`
    let timing = seen.iter().rev().find(|f| f.ends_with(" left")).unwrap();
    let (elapsed, left) = timing
        .rsplit_once(" ~")
        .map(|(a, b)| (a.rsplit(' ').next().unwrap(), b))
        .unwrap();
    assert!(elapsed.ends_with(',') && elapsed.contains(':'), "{timing}");
    assert!(left.trim_end_matches(" left").contains(':'), "{timing}");

    // Ctrl-C, typed on the terminal
    child.stdin.as_mut().unwrap().write_all(b"\x03").unwrap();
    child.stdin.as_mut().unwrap().flush().unwrap();
    let status = crate::common::wait_bounded(child, "the run did not stop on Ctrl-C");
    std::thread::sleep(Duration::from_millis(200)); // the reader drains what is left
    let out = drawn.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&out);
    assert_eq!(status.code(), Some(130), "{text:?}");
    let at = text
        .find("error: interrupted by Ctrl-C")
        .expect("the error line");
    // the line the error starts on was wiped (carriage return, erase line) after the
    // bar's last frame and the terminal's ^C echo, and nothing was drawn after it
    let line = &text[text[..at].rfind('\n').map_or(0, |i| i + 1)..at];
    let after_wipe = line
        .rsplit_once("\x1b[2K")
        .map(|(_, rest)| rest)
        .unwrap_or(line);
    assert!(
        line.contains("\x1b[2K") && after_wipe.trim_matches('\r').is_empty(),
        "bar remnants before the error: {line:?}"
    );
    assert!(!text[at..].contains("Measuring"), "{:?}", &text[at..]);
    crate::common::assert_no_leftovers(dir.path());
}

#[test]
fn the_bar_counts_the_measurements_the_run_finishes_with() {
    let dir = tempfile::tempdir().unwrap();
    let binary = assert_cmd::cargo::cargo_bin("iozone");
    // write and rewrite at two record sizes, one warm-up round and two measured: 12
    let args = format!(
        "run --no-record -s 64k -r 4k,16k -n 2 --warmup 1 -i write -d {}",
        dir.path().display()
    );
    let out = Command::new("script")
        .args([
            "-qec",
            &format!("stty cols 160 rows 40; exec {} {args}", binary.display()),
            "/dev/null",
        ])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("script(1) from util-linux runs the test on a pseudo-terminal");
    assert!(out.status.success(), "{out:?}");
    let totals: std::collections::BTreeSet<String> = frames(&out.stdout)
        .iter()
        .filter_map(|f| f.split("] ").nth(1)?.split_whitespace().next())
        .filter_map(|counts| Some(counts.split_once('/')?.1.to_string()))
        .collect();
    let text = String::from_utf8_lossy(&out.stdout);
    let finished = text
        .split(['\r', '\n'])
        .find_map(|l| {
            l.replace("\x1b[2K", "")
                .trim()
                .strip_prefix("Finished ")
                .map(str::to_string)
        })
        .unwrap_or_else(|| panic!("no Finished line in {text}"));
    assert!(
        finished.starts_with("12 measurements in ") && finished.contains("(4 of them warm-up"),
        "{finished}"
    );
    assert_eq!(totals, ["12".to_string()].into(), "{text}");
}
