//! Records set aside in an anonymous temporary file and read back in order, as often as
//! needed: for a command that must see every record before it can write the first
//! (a table's column widths), in the memory of one record rather than all of them.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Records of type `T`, one JSON line each in a file that disappears with the spool
/// (or the process).
pub struct Spool<T> {
    out: BufWriter<File>,
    len: usize,
    /// Whether the file was read since the last push, so is not positioned at its end.
    read: bool,
    records: PhantomData<T>,
}

impl<T: Serialize + DeserializeOwned> Spool<T> {
    pub fn new() -> io::Result<Spool<T>> {
        Ok(Spool {
            out: BufWriter::new(tempfile::tempfile()?),
            len: 0,
            read: false,
            records: PhantomData,
        })
    }

    pub fn push(&mut self, record: &T) -> io::Result<()> {
        if std::mem::take(&mut self.read) {
            self.out.seek(io::SeekFrom::End(0))?;
        }
        serde_json::to_writer(&mut self.out, record)?;
        self.out.write_all(b"\n")?;
        self.len += 1;
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every record pushed, in order.
    pub fn replay(&mut self) -> io::Result<impl Iterator<Item = io::Result<T>> + '_> {
        self.out.flush()?;
        self.read = true;
        let mut file = self.out.get_ref();
        file.rewind()?;
        let records = BufReader::new(file)
            .lines()
            .map(|line| -> io::Result<T> { Ok(serde_json::from_str(&line?)?) });
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_in_order_each_time() {
        let mut spool = Spool::new().unwrap();
        assert!(spool.is_empty());
        let records = [(1, "one\nline".to_string()), (2, "two|\"".to_string())];
        for record in &records {
            spool.push(record).unwrap();
        }
        for _ in 0..2 {
            let back: Vec<(i32, String)> = spool.replay().unwrap().map(Result::unwrap).collect();
            assert_eq!(back, records);
        }
        // one more after reading goes after the others
        spool.push(&(3, String::new())).unwrap();
        let back: Vec<(i32, String)> = spool.replay().unwrap().map(Result::unwrap).collect();
        assert_eq!(back.len(), 3);
        assert_eq!(back[2], (3, String::new()));
    }
}
