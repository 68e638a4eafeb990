//! A listing on two threads where the machine has a core for each: this one walks the
//! store and writes the output, a second one prints the pages of runs as they come, so
//! that reading the database and printing JSON or CSV (about as long as each other for
//! an export) overlap. Pages and printed text pass through short queues, so memory
//! holds a few pages of runs and a few pieces of text whatever the database's size or
//! a run's. Where the store's server runs on this machine and takes a core itself, the
//! pages are printed on this thread as they are read ([`Threads::One`]).

use std::io;
use std::sync::mpsc::{Receiver, Sender, SyncSender, TrySendError, channel, sync_channel};

use crate::output::{Output, OutputError};
use crate::store::StoreError;

/// Pages of runs waiting to be printed, and pieces of text waiting to be written: one
/// being worked on at each end and one more ready keep both threads busy.
const PAGES_QUEUED: usize = 2;
const PIECES_QUEUED: usize = 4;

/// The size of a piece of printed text handed back: large enough that passing it on
/// costs nothing beside printing it.
const PIECE: usize = 256 << 10;

/// A printer of pages of type `P` to text, on the second thread. A page is its to
/// finish (an export's results are decoded there, `store::Pending`).
pub(super) trait Printer<P>: Send {
    fn print(&mut self, page: &mut P, out: &mut Pieces) -> Result<(), Stop>;
}

/// Why a printer stopped before the last page.
#[derive(Debug)]
pub(super) enum Stop {
    /// The text could not be handed on: the writer failed, and says why.
    Output,
    /// A page held a value the store cannot read: the listing fails with it.
    Store(StoreError),
    /// The printer could not print a page (a value serde refused): the listing fails
    /// with it, as a write to the output that failed.
    Print(io::Error),
}

/// The error [`Pieces`] hands a printer when the text could not be passed on, told
/// apart from a printer's own errors, which reach [`Stop`] as `io::Error`s too.
#[derive(Debug, thiserror::Error)]
#[error("the output failed")]
struct OutputFailed;

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        match e.get_ref().is_some_and(|inner| inner.is::<OutputFailed>()) {
            true => Stop::Output,
            false => Stop::Print(e),
        }
    }
}

impl Stop {
    /// The listing's error for a printer that stopped on a page, but for a failed
    /// write to the output, which its writer says.
    fn into_error<E: From<OutputError> + From<StoreError>>(self, out: &Output) -> Option<E> {
        match self {
            Stop::Output => None,
            Stop::Store(e) => Some(e.into()),
            Stop::Print(e) => Some(out.error(e).into()),
        }
    }
}

/// The listing's error, if the printer's thread sent why it stopped (a page it could not
/// read or print) to `failed`.
fn stopped_apart<E: From<OutputError> + From<StoreError>>(
    failed: &Receiver<Stop>,
    out: &Output,
) -> Option<E> {
    failed.try_recv().ok().and_then(|stop| stop.into_error(out))
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Stop {
        Stop::Store(e)
    }
}

/// Where the pages are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Threads {
    /// On a thread of their own, while the next are read.
    Two,
    /// On the walk's thread, as each is read: a server on this machine that hands the
    /// rows over keeps a core busy itself, and a third busy thread on two cores made
    /// a PostgreSQL export slower, not faster (73 against 82 s, three rounds each).
    One,
}

impl Threads {
    /// Two threads when the machine has a core for each besides `busy_elsewhere`, the
    /// cores another process keeps busy serving the walk.
    pub fn for_cores(busy_elsewhere: usize) -> Threads {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match cores >= 2 + busy_elsewhere {
            true => Threads::Two,
            false => Threads::One,
        }
    }
}

/// Runs `produce`, which hands pages to the sender it is given (and returns its own
/// error or `E::from` an output's), while `printer` prints them where `threads` says
/// and their text is written to `out` on this thread, in order. Returns what `produce`
/// returns, and the printer, for what follows the last page. The printer's error
/// comes first: its pages were sent before whatever `produce` failed on.
pub(super) fn print_pages<P, T, Q, E>(
    out: &mut Output,
    printer: T,
    threads: Threads,
    produce: impl FnOnce(&mut Pages<'_, P>) -> Result<Q, E>,
) -> Result<(Q, T), E>
where
    P: Send,
    T: Printer<P>,
    E: From<OutputError> + From<StoreError>,
{
    match threads {
        Threads::Two => print_apart(out, printer, produce),
        Threads::One => print_here(out, printer, produce),
    }
}

/// [`print_pages`] on this thread: each page printed as it is sent.
fn print_here<P, T, Q, E>(
    out: &mut Output,
    mut printer: T,
    produce: impl FnOnce(&mut Pages<'_, P>) -> Result<Q, E>,
) -> Result<(Q, T), E>
where
    T: Printer<P>,
    E: From<OutputError> + From<StoreError>,
{
    let mut pages = Pages {
        route: Route::Here {
            printer: &mut printer,
            pieces: Pieces::new(To::Out { out, failed: None }),
        },
    };
    let produced = produce(&mut pages)?;
    if let Route::Here { mut pieces, .. } = pages.route {
        pieces.hand_on().map_err(|_| pieces.failure())?;
    }
    Ok((produced, printer))
}

/// [`print_pages`] on two threads.
fn print_apart<P, T, Q, E>(
    out: &mut Output,
    printer: T,
    produce: impl FnOnce(&mut Pages<'_, P>) -> Result<Q, E>,
) -> Result<(Q, T), E>
where
    P: Send,
    T: Printer<P>,
    E: From<OutputError> + From<StoreError>,
{
    std::thread::scope(|scope| {
        let (page_sender, page_queue) = sync_channel::<P>(PAGES_QUEUED);
        let (piece_sender, pieces) = sync_channel::<Vec<u8>>(PIECES_QUEUED);
        // unbounded, so the printer never waits to hand a page back; this thread takes
        // them as it sends the next ones, so few are ever there
        let (spent_sender, spent) = channel::<P>();
        // pieces written, handed back to be printed into again: a listing's gigabyte
        // of text then passes through a few pieces, not thousands allocated and freed
        let (written_sender, written) = channel::<Vec<u8>>();
        let (failed_sender, failed) = channel::<Stop>();
        // made on the printer's thread: the pieces of [`Threads::One`] may hold the
        // output, which stays on this one
        let writer = move || {
            Pieces::new(To::Queue {
                sender: piece_sender,
                written,
            })
        };
        let printing = scope
            .spawn(move || print_all(printer, page_queue, writer, spent_sender, failed_sender));
        let mut pages = Pages {
            route: Route::Queue(Queue {
                sender: page_sender,
                pieces: &pieces,
                written: written_sender,
                spent: &spent,
                failed: &failed,
                out: &mut *out,
            }),
        };
        let produced = produce(&mut pages);
        // no more pages: the printer ends once it has printed those queued
        let Route::Queue(queue) = pages.route else {
            unreachable!("the pages were queued")
        };
        drop(queue.sender);
        let written = match &produced {
            Ok(_) => pieces
                .iter()
                .try_for_each(|piece| queue.out.write_bytes(&piece)),
            // not written, but taken: the printer goes on to the pages sent, which came
            // before what failed, and may fail on one of them
            Err(_) => {
                pieces.iter().for_each(drop);
                Ok(())
            }
        };
        drop(pieces);
        let printer = printing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        if let Some(e) = stopped_apart(&failed, out) {
            return Err(e);
        }
        let produced = produced?;
        written?;
        Ok((produced, printer))
    })
}

/// The printer's loop: each page printed into pieces handed back, and then the page
/// itself, until the pages end, nobody takes the pieces any more (the writer failed)
/// or a page cannot be read or printed (why sent to `failed`).
fn print_all<P, T: Printer<P>>(
    mut printer: T,
    pages: Receiver<P>,
    writer: impl FnOnce() -> Pieces<'static>,
    spent: Sender<P>,
    failed: Sender<Stop>,
) -> T {
    let mut writer = writer();
    for mut page in pages {
        let printed = printer.print(&mut page, &mut writer);
        let _ = spent.send(page);
        // what the page printed goes on now, however short (even nothing): a walk with
        // the page queue full waits for a piece, and pages shorter than a piece (a
        // listing's few runs that `--status running` keeps of 500) would keep it
        // waiting for ever while this thread waits for the next page
        match printed.and_then(|()| Ok(writer.pass()?)) {
            Ok(()) => {}
            Err(stop) => {
                let _ = failed.send(stop);
                return printer;
            }
        }
    }
    let _ = writer.hand_on();
    printer
}

/// Text printed, handed on a piece at a time. A type of its own rather than any writer:
/// a printer's many small writes (a comma, an indent) are then each a copy, not a
/// call.
pub(super) struct Pieces<'o> {
    gathered: Vec<u8>,
    to: To<'o>,
}

/// Where the printed pieces go.
enum To<'o> {
    /// To the walk's thread, which writes them.
    Queue {
        sender: SyncSender<Vec<u8>>,
        /// Pieces written, to print into again.
        written: Receiver<Vec<u8>>,
    },
    /// Straight to the output, with its error when it failed.
    Out {
        out: &'o mut Output,
        failed: Option<OutputError>,
    },
}

impl<'o> Pieces<'o> {
    fn new(to: To<'o>) -> Pieces<'o> {
        Pieces {
            gathered: Vec::with_capacity(PIECE),
            to,
        }
    }

    /// Passes on the text gathered, when there is some.
    fn hand_on(&mut self) -> io::Result<()> {
        match self.gathered.is_empty() {
            true => Ok(()),
            false => self.pass(),
        }
    }

    /// Passes on the text gathered, even none.
    fn pass(&mut self) -> io::Result<()> {
        match &mut self.to {
            To::Queue { sender, written } => {
                let next = match written.try_recv() {
                    Ok(mut written) => {
                        written.clear();
                        written
                    }
                    Err(_) => Vec::with_capacity(PIECE),
                };
                let piece = std::mem::replace(&mut self.gathered, next);
                (sender.send(piece)).map_err(|_| io::Error::other(OutputFailed))
            }
            To::Out { out, failed } => {
                let written = out.write_bytes(&self.gathered);
                self.gathered.clear();
                written.map_err(|e| {
                    *failed = Some(e);
                    io::Error::other(OutputFailed)
                })
            }
        }
    }

    /// Why the output failed, once a piece could not be written to it.
    fn failure(&mut self) -> OutputError {
        match &mut self.to {
            To::Out { failed, .. } => failed.take().expect("a write to the output failed"),
            To::Queue { .. } => unreachable!("a queue's writer says why itself"),
        }
    }

    /// The listing's error for a printer that stopped on this thread.
    fn stopped<E: From<OutputError> + From<StoreError>>(&mut self, stop: Stop) -> E {
        let To::Out { out, .. } = &self.to else {
            unreachable!("a queue's printer sends why it stopped")
        };
        match stop.into_error(out) {
            Some(e) => e,
            None => self.failure().into(),
        }
    }
}

impl io::Write for Pieces<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.gathered.extend_from_slice(bytes);
        match self.gathered.len() >= PIECE {
            true => self.hand_on(),
            false => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where the walk hands its pages.
pub(super) struct Pages<'a, P> {
    route: Route<'a, P>,
}

enum Route<'a, P> {
    /// To the printer's thread.
    Queue(Queue<'a, P>),
    /// To the printer, on this thread.
    Here {
        printer: &'a mut dyn Printer<P>,
        pieces: Pieces<'a>,
    },
}

/// The printer's queue, writing the text printed so far whenever the queue is full, so
/// that neither thread waits for the other for long and neither queue grows.
struct Queue<'a, P> {
    sender: SyncSender<P>,
    pieces: &'a Receiver<Vec<u8>>,
    /// Where pieces go back once written.
    written: Sender<Vec<u8>>,
    /// Pages printed, handed back to be dropped on this thread, which allocated them:
    /// freed on the printer's, each block waited for a lock on this thread's arena of
    /// the system allocator (a fifth of a listing's time).
    spent: &'a Receiver<P>,
    /// Why the printer stopped, when it could not read or print a page.
    failed: &'a Receiver<Stop>,
    out: &'a mut Output,
}

impl<P> Pages<'_, P> {
    /// Hands `page` to the printer; its error if it stopped on a page it could not read.
    pub fn send<E: From<OutputError> + From<StoreError>>(&mut self, page: P) -> Result<(), E> {
        match &mut self.route {
            Route::Queue(queue) => queue.send(page),
            Route::Here { printer, pieces } => {
                let mut page = page;
                (printer.print(&mut page, pieces)).map_err(|stop| pieces.stopped(stop))
            }
        }
    }

    /// Writes the pieces printed so far, without waiting for more.
    pub fn write_printed(&mut self) -> Result<(), OutputError> {
        match &mut self.route {
            Route::Queue(queue) => queue.write_printed(),
            // written as they are printed
            Route::Here { .. } => Ok(()),
        }
    }
}

impl<P> Queue<'_, P> {
    fn send<E: From<OutputError> + From<StoreError>>(&mut self, page: P) -> Result<(), E> {
        let mut page = page;
        loop {
            match self.sender.try_send(page) {
                Ok(()) => break,
                Err(TrySendError::Full(back)) => {
                    page = back;
                    // the printer has a page to print, so a piece will come
                    match self.pieces.recv() {
                        Ok(piece) => write(self.out, &self.written, piece)?,
                        Err(_) => return self.stopped(),
                    }
                }
                // the printer stopped: on a page it could not read, or for a failed
                // write, said below
                Err(TrySendError::Disconnected(_)) => return self.stopped(),
            }
        }
        self.write_printed()?;
        while let Ok(page) = self.spent.try_recv() {
            drop(page);
        }
        Ok(())
    }

    /// Why the printer stopped: a page it could not read or print, or nothing here
    /// (the writer failed, which it says itself).
    fn stopped<E: From<OutputError> + From<StoreError>>(&self) -> Result<(), E> {
        match stopped_apart(self.failed, self.out) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn write_printed(&mut self) -> Result<(), OutputError> {
        while let Ok(piece) = self.pieces.try_recv() {
            write(self.out, &self.written, piece)?;
        }
        Ok(())
    }
}

/// Writes a piece to `out` and hands it back to the printer, to print into again.
fn write(out: &mut Output, written: &Sender<Vec<u8>>, piece: Vec<u8>) -> Result<(), OutputError> {
    out.write_bytes(&piece)?;
    // the printer may have ended: the piece is then freed here
    let _ = written.send(piece);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::path::Path;

    use super::*;
    use crate::output::Policy;

    const PAGES: usize = 40;
    /// A page prints a tenth of a piece, so that the walk finds the page queue full
    /// before the printer has a piece to hand it.
    const LINES: usize = 3000;
    /// Pages that print nothing, more of them in a row than the queue holds.
    const EMPTY: std::ops::Range<usize> = 20..30;

    /// Prints page `n` as many numbered lines, so that a listing is several pieces; fails
    /// on page `unreadable` as on a value the store cannot read, and on page
    /// `unprintable` as on a value serde cannot print.
    #[derive(Default)]
    struct Numbers {
        unreadable: Option<usize>,
        unprintable: Option<usize>,
    }

    impl Printer<usize> for Numbers {
        fn print(&mut self, page: &mut usize, out: &mut Pieces) -> Result<(), Stop> {
            if EMPTY.contains(page) {
                return Ok(());
            }
            if self.unreadable == Some(*page) {
                let reason = format!("page {page} is unreadable");
                return Err(Stop::Store(StoreError::Corrupt {
                    path: "test.db".into(),
                    reason,
                }));
            }
            if self.unprintable == Some(*page) {
                let keyed_by_pairs = std::collections::BTreeMap::from([((*page, 0), 0)]);
                serde_json::to_writer(&mut *out, &keyed_by_pairs).map_err(io::Error::from)?;
            }
            (0..LINES).try_for_each(|line| writeln!(out, "{page} {line}"))?;
            Ok(())
        }
    }

    /// Prints every page through `threads` to `path`; how many pages were sent.
    fn list(path: &Path, threads: Threads, printer: Numbers) -> anyhow::Result<usize> {
        let mut out = Output::open(path, &Policy::default())?;
        let (sent, _) = print_pages(&mut out, printer, threads, |pages| {
            (0..PAGES).try_for_each(|page| pages.send::<anyhow::Error>(page))?;
            Ok::<_, anyhow::Error>(PAGES)
        })?;
        out.finish()?;
        Ok(sent)
    }

    #[test]
    fn either_way_the_pages_are_written_whole_and_in_order() {
        let expected: String = (0..PAGES)
            .filter(|page| !EMPTY.contains(page))
            .flat_map(|page| (0..LINES).map(move |line| format!("{page} {line}\n")))
            .collect();
        assert!(expected.len() > 2 * PIECE, "the listing spans pieces");
        let dir = tempfile::tempdir().unwrap();
        for threads in [Threads::One, Threads::Two] {
            let path = dir.path().join(format!("{threads:?}"));
            let sent = list(&path, threads, Numbers::default()).unwrap();
            assert_eq!(sent, PAGES);
            let written = std::fs::read_to_string(&path).unwrap();
            assert!(written == expected, "{threads:?}: {} bytes", written.len());
        }
    }

    /// Lists through each route with a printer `printer` makes: the listing fails saying
    /// `expected`, and leaves no output behind.
    fn fails_whole(printer: impl Fn() -> Numbers, expected: &str) {
        let dir = tempfile::tempdir().unwrap();
        for threads in [Threads::One, Threads::Two] {
            let path = dir.path().join(format!("{threads:?}"));
            let failed = list(&path, threads, printer()).unwrap_err().to_string();
            assert!(failed.contains(expected), "{threads:?}: {failed}");
            // the output was abandoned, not left half-written
            assert!(!path.exists(), "{threads:?}");
        }
    }

    #[test]
    fn either_way_a_page_that_cannot_be_read_fails_the_listing_with_its_error() {
        let printer = || Numbers {
            unreadable: Some(7),
            ..Numbers::default()
        };
        fails_whole(printer, "page 7 is unreadable");
    }

    #[test]
    fn either_way_an_output_that_fails_stops_the_listing_with_its_error() {
        for threads in [Threads::One, Threads::Two] {
            let printer = Numbers::default();
            let failed = list(Path::new("/dev/full"), threads, printer).unwrap_err();
            let failed = failed.to_string();
            assert!(failed.contains("No space left"), "{threads:?}: {failed}");
        }
    }

    #[test]
    fn either_way_a_page_that_cannot_be_printed_fails_the_listing_with_its_error() {
        let printer = || Numbers {
            unprintable: Some(7),
            ..Numbers::default()
        };
        fails_whole(printer, "key must be a string");
    }
}
