//! The runs of an opened input, one at a time. Another tool's output, read whole, is
//! parsed whole; our own export is parsed on a thread of its own as it is read, each
//! run passed on through a short queue as soon as it is complete, so that memory holds
//! a few runs whatever the file's size, and parsing goes on while the caller stores.

use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

use chrono::{DateTime, Utc};

use super::formats::{parse, read_stream};
use super::{Input, Origin, ParseError};
use crate::model::{Run, RunPart};

/// Runs or parts parsed ahead of the caller: enough to keep both sides busy, few enough
/// that a queue of the largest stays small beside a batch. A full queue of 32 parts of
/// an iozone3 table (8,192 figures each) held 19 MiB more: the 300 MB import's peak went
/// from 70 to 94 MiB whenever the disk slowed its store down.
const QUEUE: usize = 8;

/// What a parser passes on: a whole run, or a part of one too large to hold whole.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Run(Box<Run>),
    Part(RunPart),
}

/// The runs of one input, in its order, each `Ok` or the input's one failure, after
/// which there are no more.
pub struct Runs {
    source: Source,
    /// A part taken too early, to come next.
    back: Option<RunPart>,
}

enum Source {
    Parsed(std::vec::IntoIter<Result<Run, ParseError>>),
    Streamed {
        queue: Receiver<Result<Piece, ParseError>>,
        /// Joined once the queue ends, to tell a parser that ended from one that
        /// panicked; a parser still reading when the caller gives up stops at its next
        /// run, when nobody takes it.
        parser: Option<JoinHandle<()>>,
    },
}

/// The runs of `input`, read from `file` (as messages and `Source.file` name it) at
/// `imported_at`.
pub fn runs(input: Input, file: &str, imported_at: DateTime<Utc>) -> Runs {
    let source = match input {
        Input::Whole { text, format } => {
            let origin = Origin::new(file, text.as_bytes(), imported_at);
            let parsed = match parse(format, &text, &origin) {
                Ok(runs) => runs.into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            };
            Source::Parsed(parsed.into_iter())
        }
        Input::Stream { reader, format } => {
            let (sender, queue) = sync_channel(QUEUE);
            let file = file.to_string();
            let parser = std::thread::spawn(move || {
                let mut emit = |piece| sender.send(Ok(piece)).is_ok();
                let read = read_stream(format, reader, &file, imported_at, &mut emit);
                if let Err(e) = read {
                    // passed on after the runs before it, if anyone still listens
                    let _ = sender.send(Err(e));
                }
            });
            Source::Streamed {
                queue,
                parser: Some(parser),
            }
        }
    };
    Runs { source, back: None }
}

impl Runs {
    /// Puts `part` back, to come next.
    pub fn put_back(&mut self, part: RunPart) {
        debug_assert!(self.back.is_none(), "one part put back at a time");
        self.back = Some(part);
    }
}

impl Iterator for Runs {
    type Item = Result<Piece, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(part) = self.back.take() {
            return Some(Ok(Piece::Part(part)));
        }
        match &mut self.source {
            Source::Parsed(runs) => runs
                .next()
                .map(|run| run.map(|run| Piece::Run(Box::new(run)))),
            Source::Streamed { queue, parser } => match queue.recv() {
                Ok(item) => Some(item),
                Err(_) => {
                    if let Some(Err(panic)) = parser.take().map(JoinHandle::join) {
                        std::panic::resume_unwind(panic);
                    }
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{Format, open};

    fn streamed(text: String) -> Vec<Result<Run, ParseError>> {
        let input = open(std::io::Cursor::new(text.into_bytes()), None).unwrap();
        assert!(matches!(input, Input::Stream { .. }), "{input:?}");
        let whole = |piece| match piece {
            Piece::Run(run) => *run,
            Piece::Part(part) => panic!("an export is read in whole runs: {part:?}"),
        };
        runs(input, "t.json", Utc::now())
            .map(|piece| piece.map(whole))
            .collect()
    }

    /// `n` runs: the fio fixture's, each with a UUID and start of its own.
    fn sample(n: usize) -> Vec<Run> {
        let text = include_str!("../../tests/fixtures/fio/uring-qd32-write-4k-edited.json");
        let origin = Origin::new("fio", text.as_bytes(), Utc::now());
        let run = parse(Format::Fio, text, &origin).unwrap().remove(0);
        (0..n)
            .map(|i| Run {
                uuid: origin.run_uuid(i),
                started_at: run.started_at + chrono::Duration::minutes(i as i64),
                ..run.clone()
            })
            .collect()
    }

    #[test]
    fn an_export_streams_every_run_in_order() {
        let runs = sample(3 * QUEUE);
        let text = crate::export::to_json(runs.clone(), Utc::now());
        let back: Vec<Run> = streamed(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(back, runs);
    }

    #[test]
    fn a_failure_half_way_comes_after_the_runs_before_it_and_ends_the_runs() {
        let runs = sample(5);
        let text = crate::export::to_json(runs.clone(), Utc::now());
        // the fourth run's start time made unreadable
        let fourth = text.match_indices("\"started_at\"").nth(3).unwrap().0;
        let broken = format!("{}\"started_at\": \"soon\",{}", &text[..fourth], {
            let rest = &text[fourth..];
            &rest[rest.find(",\n").unwrap() + 2..]
        });
        let back = streamed(broken);
        assert_eq!(back.len(), 4);
        for (read, run) in back[..3].iter().zip(&runs) {
            assert_eq!(read.as_ref().unwrap(), run);
        }
        let e = back[3].as_ref().unwrap_err();
        assert!(
            e.message
                .starts_with(&format!("run 4 ({}): not an iozone run", runs[3].uuid)),
            "{e}"
        );
        // cut short: the runs before, then the syntax error with its line
        let cut = text[..text.len() * 2 / 3].to_string();
        let back = streamed(cut);
        let e = back.last().unwrap().as_ref().unwrap_err();
        assert!(e.message.starts_with("not valid JSON: EOF"), "{e}");
        assert!(e.line.is_some_and(|l| l > 1), "{e:?}");
        assert!(back[..back.len() - 1].iter().all(Result::is_ok));
    }

    #[test]
    fn a_caller_that_stops_early_leaves_the_parser_to_stop() {
        let text = crate::export::to_json(sample(4 * QUEUE), Utc::now());
        let mut runs = runs(
            open(std::io::Cursor::new(text.into_bytes()), None).unwrap(),
            "t",
            Utc::now(),
        );
        assert!(runs.next().unwrap().is_ok());
        drop(runs);
    }

    #[test]
    fn other_tools_outputs_are_parsed_whole() {
        let text = include_str!("../../tests/fixtures/classic/bebox-beos-dr8.txt");
        let input = open(std::io::Cursor::new(text.as_bytes().to_vec()), None).unwrap();
        assert_eq!(input.format(), Format::Classic);
        let all: Vec<_> = runs(input, "dr8", Utc::now()).collect();
        assert_eq!(all.len(), 1);
        assert!(all[0].is_ok());
    }
}
