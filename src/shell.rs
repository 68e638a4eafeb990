//! Everything said on stderr: cargo-style status lines with a right-aligned verb,
//! warnings, errors, and the progress bar. Data goes to stdout elsewhere.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use console::style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Every choice, in the order `--help` lists them.
    pub const ALL: [ColorChoice; 3] = [ColorChoice::Auto, ColorChoice::Always, ColorChoice::Never];

    /// The choice's name as `--color` takes it.
    pub fn name(self) -> &'static str {
        match self {
            ColorChoice::Auto => "auto",
            ColorChoice::Always => "always",
            ColorChoice::Never => "never",
        }
    }

    /// The choice for a process an MPI launcher started (`launched`): none in auto, as
    /// Open MPI gives each rank a pseudo-terminal for stdout whatever `mpirun`'s own
    /// stdout is, so a rank cannot tell a terminal from a file it is redirected to.
    pub fn launched(self, launched: bool) -> ColorChoice {
        match (self, launched) {
            (ColorChoice::Auto, true) => ColorChoice::Never,
            _ => self,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// The user's terminal, as far as status output is concerned.
pub struct Shell {
    verbosity: Verbosity,
    stdout_color: bool,
}

impl Shell {
    pub fn new(color: ColorChoice, verbosity: Verbosity) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let decide = |is_tty: bool| match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_tty && !no_color,
        };
        let stdout_color = decide(std::io::stdout().is_terminal());
        console::set_colors_enabled(stdout_color);
        console::set_colors_enabled_stderr(decide(std::io::stderr().is_terminal()));
        Shell {
            verbosity,
            stdout_color,
        }
    }

    /// Whether `-v` asked for more.
    pub fn verbose(&self) -> bool {
        self.verbosity == Verbosity::Verbose
    }

    /// Whether tables on stdout may carry colour.
    pub fn stdout_color(&self) -> bool {
        self.stdout_color
    }

    /// How tables on stdout are laid out: coloured as decided, and fitted to the
    /// terminal's width when stdout is one (piped output keeps whole lines).
    pub fn table_style(&self) -> crate::render::TextStyle {
        let width = console::Term::stdout()
            .size_checked()
            .map(|(_rows, columns)| columns);
        crate::render::TextStyle::Table {
            color: self.stdout_color,
            width,
        }
    }

    /// `    Measuring 32 MiB file ...`: a right-aligned green verb, then the message,
    /// wrapped at its words to the terminal under the message's start.
    pub fn status(&self, verb: &str, message: impl std::fmt::Display) {
        if self.verbosity != Verbosity::Quiet {
            let verb = format!("{verb:>12} ");
            let width = verb.chars().count();
            self.said(style(verb).green().bold().for_stderr(), width, message);
        }
    }

    /// A line that goes on from the status line above it, indented under its message.
    pub fn continued(&self, message: impl std::fmt::Display) {
        if self.verbosity != Verbosity::Quiet {
            self.said(format!("{:>12} ", ""), 13, message);
        }
    }

    /// A status line shown only with `-v`.
    pub fn verbose_status(&self, verb: &str, message: impl std::fmt::Display) {
        if self.verbosity == Verbosity::Verbose {
            self.status(verb, message);
        }
    }

    pub fn warn(&self, message: impl std::fmt::Display) {
        if self.verbosity != Verbosity::Quiet {
            let prefix = style("warning:").yellow().bold().for_stderr();
            self.said(format!("{prefix} "), "warning: ".len(), message);
        }
    }

    /// Always shown, even with `-q`.
    pub fn error(&self, message: impl std::fmt::Display) {
        let prefix = style("error:").red().bold().for_stderr();
        self.said(format!("{prefix} "), "error: ".len(), message);
    }

    /// `message` after `prefix` (`width` columns on screen, whatever its colour
    /// codes): on a terminal, wrapped at its words to the terminal's width, each further
    /// line under the message's start; elsewhere one line, for a program or a log.
    fn said(&self, prefix: impl std::fmt::Display, width: usize, message: impl std::fmt::Display) {
        let message = printable(message);
        let text = match console::Term::stderr().size_checked() {
            Some((_rows, columns)) => crate::render::wrap::hanging(
                &prefix.to_string(),
                width,
                &message,
                usize::from(columns),
            ),
            None => format!("{prefix}{message}"),
        };
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// A progress bar on stderr over `total` steps; hidden when stderr is not a terminal
    /// or with `-q`. `within` says how far the current step has got, from 0 to 1: the
    /// bar's own ticker reads it several times a second, so the bar, the elapsed time
    /// and the estimate of what remains move during a long step too, not only between
    /// steps. `finish_and_clear` stops the ticker and wipes the line, so whatever is
    /// said next (the error after Ctrl-C) starts on a clean line.
    ///
    /// The step's message is set through the [`Message`] returned with the bar, and is
    /// cut to the room the line leaves it between whole words (`write 16 KiB in…`),
    /// never inside one.
    pub fn progress(
        &self,
        total: u64,
        within: Arc<dyn Fn() -> f64 + Send + Sync>,
    ) -> (ProgressBar, Message) {
        let visible = self.verbosity != Verbosity::Quiet && std::io::stderr().is_terminal();
        let target = if visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        let share = move |state: &ProgressState| {
            let len = state.len().unwrap_or(0).max(1) as f64;
            ((state.pos() as f64 + within().clamp(0.0, 1.0)) / len).clamp(0.0, 1.0)
        };
        let fill = share.clone();
        let left = share.clone();
        let message = Message::default();
        let said = message.clone();
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>12.cyan.bold} [{bar}] {pos}/{len} {fitted} {timing}",
            )
            .expect("static progress template is valid")
            .with_key(
                "fitted",
                move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let columns = usize::from(console::Term::stderr().size().1);
                    let counts = format!("{}/{}", state.pos(), state.len().unwrap_or(0));
                    let clock = timing(state.elapsed(), left(state));
                    // verb, bar, counts and clock with their spaces; one more, for a
                    // clock a character longer by the time it is drawn
                    let used = 13 + BAR_WIDTH + 3 + counts.len() + 2 + clock.chars().count() + 1;
                    let _ = w.write_str(&fitted(&said.text(), columns.saturating_sub(used)));
                },
            )
            .with_key(
                "bar",
                move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&bar_text(fill(state), BAR_WIDTH));
                },
            )
            .with_key(
                "timing",
                move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&timing(state.elapsed(), share(state)));
                },
            ),
        );
        bar.set_prefix("Measuring");
        if visible {
            bar.enable_steady_tick(TICK);
        }
        (bar, message)
    }
}

/// What a progress bar says of its step, set by the run and read by the bar's ticker.
#[derive(Clone, Default)]
pub struct Message(Arc<std::sync::Mutex<String>>);

impl Message {
    pub fn set(&self, text: String) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = text;
    }

    fn text(&self) -> String {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// `text` in exactly `room` columns: padded, or cut after its last whole word that
/// fits with an ellipsis (nothing, when not even the first does).
fn fitted(text: &str, room: usize) -> String {
    let width = |t: &str| console::measure_text_width(t);
    let mut kept = String::new();
    if width(text) <= room {
        kept.push_str(text);
    } else {
        for word in text.split(' ') {
            let longer = match kept.is_empty() {
                true => word.to_string(),
                false => format!("{kept} {word}"),
            };
            if width(&longer) + 1 > room {
                break;
            }
            kept = longer;
        }
        if !kept.is_empty() {
            kept.push('…');
        }
    }
    let pad = room.saturating_sub(width(&kept));
    kept + &" ".repeat(pad)
}

/// A message as said on stderr: a label, a path or a database's words quoted in it
/// are shown with their controls escaped (see [`crate::render::printable`]), so that
/// only the verb's own colour reaches the terminal.
fn printable(message: impl std::fmt::Display) -> String {
    crate::render::printable::text(&message.to_string()).into_owned()
}

/// How often the bar is redrawn while a step runs.
const TICK: Duration = Duration::from_millis(250);
const BAR_WIDTH: usize = 27;

/// `=====>     `: the share done of a bar `width` wide.
fn bar_text(done: f64, width: usize) -> String {
    let filled = (done * width as f64).floor() as usize;
    let mut text = "=".repeat(filled.min(width));
    if filled < width {
        text.push('>');
        text.push_str(&" ".repeat(width - filled - 1));
    }
    text
}

/// `0:12, ~1:05 left`: the time so far and what remains at the pace so far, short
/// enough to leave the message room; no estimate in the first second or before
/// anything is done.
fn timing(elapsed: Duration, done: f64) -> String {
    let mut text = clock(elapsed.as_secs_f64());
    if done > 0.0 && elapsed >= Duration::from_secs(1) {
        let left = elapsed.as_secs_f64() * (1.0 - done) / done;
        let _ = write!(text, ", ~{} left", clock(left));
    }
    text
}

/// `0:07`, `12:30`, `2:05:00`: seconds as a clock shows them.
fn clock(secs: f64) -> String {
    let secs = secs.round() as u64;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    match h {
        0 => format!("{m}:{s:02}"),
        h => format!("{h}:{m:02}:{s:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launched_process_colours_only_when_asked() {
        for (asked, alone, launched) in [
            (ColorChoice::Auto, ColorChoice::Auto, ColorChoice::Never),
            (
                ColorChoice::Always,
                ColorChoice::Always,
                ColorChoice::Always,
            ),
            (ColorChoice::Never, ColorChoice::Never, ColorChoice::Never),
        ] {
            assert_eq!(asked.launched(false), alone);
            assert_eq!(asked.launched(true), launched);
        }
    }

    #[test]
    fn the_bar_fills_with_the_share_done() {
        assert_eq!(bar_text(0.0, 10), ">         ");
        assert_eq!(bar_text(0.55, 10), "=====>    ");
        assert_eq!(bar_text(1.0, 10), "==========");
        assert!(bar_text(0.99, 27).len() == 27 && bar_text(0.0, 27).len() == 27);
    }

    #[test]
    fn a_message_is_cut_between_words() {
        assert_eq!(
            fitted("write 16 KiB in 64 KiB [warm-up 1]", 16),
            "write 16 KiB in…"
        );
        assert_eq!(
            fitted("write 16 KiB in 64 KiB [warm-up 1]", 15),
            "write 16 KiB…  "
        );
        assert_eq!(fitted("write 16 KiB", 14), "write 16 KiB  ");
        assert_eq!(fitted("reread", 3), "   ");
        assert_eq!(fitted("", 0), "");
        for room in 0..40 {
            let text = fitted("reread 16 KiB in 64 KiB [warm-up 1]", room);
            assert_eq!(console::measure_text_width(&text), room, "{text:?}");
        }
    }

    #[test]
    fn what_remains_is_estimated_at_the_pace_so_far() {
        let secs = Duration::from_secs;
        assert_eq!(timing(secs(0), 0.5), "0:00");
        assert_eq!(timing(secs(20), 0.0), "0:20");
        assert_eq!(timing(secs(20), 0.25), "0:20, ~1:00 left");
        assert_eq!(timing(secs(90), 1.0), "1:30, ~0:00 left");
        assert_eq!(timing(secs(60), 0.01), "1:00, ~1:39:00 left");
    }
}
