//! Everything said on stderr: cargo-style status lines with a right-aligned verb,
//! warnings, errors, and the progress bar. Data goes to stdout elsewhere.

use std::io::{IsTerminal, Write};

use console::style;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
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

    /// `    Measuring 32 MiB file ...`: a right-aligned green verb, then the message.
    pub fn status(&self, verb: &str, message: impl std::fmt::Display) {
        if self.verbosity != Verbosity::Quiet {
            self.line(&format!(
                "{:>12} {message}",
                style(verb).green().bold().for_stderr()
            ));
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
            self.line(&format!(
                "{} {message}",
                style("warning:").yellow().bold().for_stderr()
            ));
        }
    }

    /// Always shown, even with `-q`.
    pub fn error(&self, message: impl std::fmt::Display) {
        self.line(&format!(
            "{} {message}",
            style("error:").red().bold().for_stderr()
        ));
    }

    fn line(&self, text: &str) {
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }

    /// A progress bar on stderr; hidden when stderr is not a terminal or with `-q`.
    pub fn progress(&self, total: u64) -> ProgressBar {
        let visible = self.verbosity != Verbosity::Quiet && std::io::stderr().is_terminal();
        let target = if visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>12.cyan.bold} [{bar:27}] {pos}/{len} {wide_msg}",
            )
            .expect("static progress template is valid")
            .progress_chars("=> "),
        );
        bar.set_prefix("Measuring");
        bar
    }
}
