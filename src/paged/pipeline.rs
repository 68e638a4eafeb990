//! A listing on two threads: this one walks the store and writes the output, a second
//! one prints the pages of runs as they come, so that reading the database and
//! printing JSON or CSV (about as long as each other for an export) overlap. Pages and
//! printed text pass through short queues, so memory holds a few pages of runs and a
//! few pieces of text whatever the database's size or a run's.

use std::io;
use std::sync::mpsc::{Receiver, Sender, SyncSender, TrySendError, channel, sync_channel};

use crate::output::{Output, OutputError};

/// Pages of runs waiting to be printed, and pieces of text waiting to be written: one
/// being worked on at each end and one more ready keep both threads busy.
const PAGES_QUEUED: usize = 2;
const PIECES_QUEUED: usize = 4;

/// The size of a piece of printed text handed back: large enough that passing it on
/// costs nothing beside printing it.
const PIECE: usize = 256 << 10;

/// A printer of pages of type `P` to text, on the second thread.
pub(super) trait Printer<P>: Send {
    fn print(&mut self, page: &P, out: &mut Pieces) -> io::Result<()>;
}

/// Runs `produce`, which hands pages to the sender it is given (and returns its own
/// error or `E::from` an output's), while `printer` prints them on a thread of its
/// own and their text is written to `out` on this one, in order. Returns what
/// `produce` returns, and the printer, for what follows the last page.
pub(super) fn print_pages<P, T, Q, E>(
    out: &mut Output,
    printer: T,
    produce: impl FnOnce(&mut Pages<'_, P>) -> Result<Q, E>,
) -> Result<(Q, T), E>
where
    P: Send,
    T: Printer<P>,
    E: From<OutputError>,
{
    std::thread::scope(|scope| {
        let (page_sender, page_queue) = sync_channel::<P>(PAGES_QUEUED);
        let (piece_sender, pieces) = sync_channel::<Vec<u8>>(PIECES_QUEUED);
        // pieces written, handed back to be filled again: a new one each time was
        // memory the printer's thread first touched (a page fault for each 4 KiB),
        // freed on this one
        let (blank_sender, blanks) = channel::<Vec<u8>>();
        // unbounded, so the printer never waits to hand a page back; this thread takes
        // them as it sends the next ones, so few are ever there
        let (spent_sender, spent) = channel::<P>();
        let writer = Pieces {
            gathered: Vec::with_capacity(PIECE),
            sender: piece_sender,
            blanks,
        };
        let printing = scope.spawn(move || print_all(printer, page_queue, writer, spent_sender));
        let mut pages = Pages {
            sender: Some(page_sender),
            pieces: &pieces,
            blanks: blank_sender,
            spent: &spent,
            out,
        };
        let produced = produce(&mut pages);
        // no more pages: the printer ends once it has printed those queued
        drop(pages.sender.take());
        let written = match &produced {
            Ok(_) => (pieces.iter()).try_for_each(|piece| write(pages.out, &pages.blanks, piece)),
            Err(_) => Ok(()),
        };
        drop(pieces);
        let printer = printing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let produced = produced?;
        written?;
        Ok((produced, printer))
    })
}

/// The printer's loop: each page printed into pieces handed back, and then the page
/// itself, until the pages end or nobody takes the pieces any more (the writer failed).
fn print_all<P, T: Printer<P>>(
    mut printer: T,
    pages: Receiver<P>,
    mut writer: Pieces,
    spent: Sender<P>,
) -> T {
    for page in pages {
        let printed = printer.print(&page, &mut writer);
        let _ = spent.send(page);
        if printed.is_err() {
            return printer;
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
    /// Pieces written, to be filled again.
    blanks: Receiver<Vec<u8>>,
}

impl Pieces {
    fn hand_on(&mut self) -> io::Result<()> {
        if self.gathered.is_empty() {
            return Ok(());
        }
        let blank = match self.blanks.try_recv() {
            Ok(mut blank) => {
                blank.clear();
                blank
            }
            Err(_) => Vec::with_capacity(PIECE),
        };
        let piece = std::mem::replace(&mut self.gathered, blank);
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
    /// Where pieces written go back to the printer.
    blanks: Sender<Vec<u8>>,
    /// Pages printed, handed back to be dropped on this thread, which allocated them:
    /// freed on the printer's, each block waited for a lock on this thread's arena of
    /// the system allocator (a fifth of a listing's time).
    spent: &'a Receiver<P>,
    out: &'a mut Output,
}

/// Writes a piece printed to `out`, and hands it back to `blanks` to be filled again.
fn write(out: &mut Output, blanks: &Sender<Vec<u8>>, piece: Vec<u8>) -> Result<(), OutputError> {
    out.write_bytes(&piece)?;
    // the printer may have ended: the piece is then dropped here
    let _ = blanks.send(piece);
    Ok(())
}

impl<P> Pages<'_, P> {
    pub fn send(&mut self, page: P) -> Result<(), OutputError> {
        let sender = self.sender.as_ref().expect("pages are sent until the end");
        let mut page = page;
        loop {
            match sender.try_send(page) {
                Ok(()) => break,
                Err(TrySendError::Full(back)) => {
                    page = back;
                    // the printer has a page to print, so a piece will come
                    match self.pieces.recv() {
                        Ok(piece) => write(self.out, &self.blanks, piece)?,
                        Err(_) => return Ok(()),
                    }
                }
                // the printer stopped: only a failed write stops it, said below
                Err(TrySendError::Disconnected(_)) => return Ok(()),
            }
        }
        while let Ok(piece) = self.pieces.try_recv() {
            write(self.out, &self.blanks, piece)?;
        }
        while let Ok(page) = self.spent.try_recv() {
            drop(page);
        }
        Ok(())
    }
}
