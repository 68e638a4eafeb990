//! A listing on two threads: this one walks the store and writes the output, a second
//! one prints the pages of runs as they come, so that reading the database and
//! printing JSON or CSV (about as long as each other for an export) overlap. Pages and
//! printed text pass through short queues, so memory holds a few pages of runs and a
//! few pieces of text whatever the database's size or a run's.

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
}

impl From<io::Error> for Stop {
    fn from(_: io::Error) -> Stop {
        Stop::Output
    }
}

impl From<StoreError> for Stop {
    fn from(e: StoreError) -> Stop {
        Stop::Store(e)
    }
}

/// Runs `produce`, which hands pages to the sender it is given (and returns its own
/// error or `E::from` an output's), while `printer` prints them on a thread of its
/// own and their text is written to `out` on this one, in order. Returns what
/// `produce` returns, and the printer, for what follows the last page. The printer's
/// error comes first: its pages were sent before whatever `produce` failed on.
pub(super) fn print_pages<P, T, Q, E>(
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
        let (failed_sender, failed) = channel::<StoreError>();
        let writer = Pieces {
            gathered: Vec::with_capacity(PIECE),
            sender: piece_sender,
            written,
        };
        let printing = scope
            .spawn(move || print_all(printer, page_queue, writer, spent_sender, failed_sender));
        let mut pages = Pages {
            sender: Some(page_sender),
            pieces: &pieces,
            written: written_sender,
            spent: &spent,
            failed: &failed,
            out,
        };
        let produced = produce(&mut pages);
        // no more pages: the printer ends once it has printed those queued
        let out = pages.out;
        drop(pages.sender);
        let written = match &produced {
            Ok(_) => pieces.iter().try_for_each(|piece| out.write_bytes(&piece)),
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
        if let Ok(e) = failed.try_recv() {
            return Err(e.into());
        }
        let produced = produced?;
        written?;
        Ok((produced, printer))
    })
}

/// The printer's loop: each page printed into pieces handed back, and then the page
/// itself, until the pages end, nobody takes the pieces any more (the writer failed)
/// or a page cannot be read (its error sent to `failed`).
fn print_all<P, T: Printer<P>>(
    mut printer: T,
    pages: Receiver<P>,
    mut writer: Pieces,
    spent: Sender<P>,
    failed: Sender<StoreError>,
) -> T {
    for mut page in pages {
        let printed = printer.print(&mut page, &mut writer);
        let _ = spent.send(page);
        match printed {
            Ok(()) => {}
            Err(Stop::Output) => return printer,
            Err(Stop::Store(e)) => {
                let _ = failed.send(e);
                return printer;
            }
        }
    }
    let _ = writer.hand_on();
    printer
}

/// Text printed on the second thread, handed back a piece at a time. A type of its
/// own rather than any writer: a printer's many small writes (a comma, an indent) are
/// then each a copy, not a call.
pub(super) struct Pieces {
    gathered: Vec<u8>,
    sender: SyncSender<Vec<u8>>,
    /// Pieces written, to print into again.
    written: Receiver<Vec<u8>>,
}

impl Pieces {
    fn hand_on(&mut self) -> io::Result<()> {
        if self.gathered.is_empty() {
            return Ok(());
        }
        let next = match self.written.try_recv() {
            Ok(mut written) => {
                written.clear();
                written
            }
            Err(_) => Vec::with_capacity(PIECE),
        };
        let piece = std::mem::replace(&mut self.gathered, next);
        (self.sender.send(piece)).map_err(|_| io::Error::other("the output failed"))
    }
}

impl io::Write for Pieces {
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

/// Where the walk hands its pages: to the printer's queue, writing the text printed
/// so far whenever the queue is full, so that neither thread waits for the other
/// for long and neither queue grows.
pub(super) struct Pages<'a, P> {
    sender: Option<SyncSender<P>>,
    pieces: &'a Receiver<Vec<u8>>,
    /// Where pieces go back once written.
    written: Sender<Vec<u8>>,
    /// Pages printed, handed back to be dropped on this thread, which allocated them:
    /// freed on the printer's, each block waited for a lock on this thread's arena of
    /// the system allocator (a fifth of a listing's time).
    spent: &'a Receiver<P>,
    /// What the printer could not read, when it stopped for that.
    failed: &'a Receiver<StoreError>,
    out: &'a mut Output,
}

impl<P> Pages<'_, P> {
    /// Hands `page` to the printer; its error if it stopped on a page it could not read.
    pub fn send<E: From<OutputError> + From<StoreError>>(&mut self, page: P) -> Result<(), E> {
        let sender = self.sender.as_ref().expect("pages are sent until the end");
        let mut page = page;
        loop {
            match sender.try_send(page) {
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

    /// Why the printer stopped: a page it could not read, or nothing here (the writer
    /// failed, which it says itself).
    fn stopped<E: From<StoreError>>(&self) -> Result<(), E> {
        match self.failed.try_recv() {
            Ok(e) => Err(e.into()),
            Err(_) => Ok(()),
        }
    }

    /// Writes the pieces printed so far, without waiting for more.
    pub fn write_printed(&mut self) -> Result<(), OutputError> {
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
