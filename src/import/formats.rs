//! Which parser reads a file: sniffed from the content, or forced with `--format`.

use super::{
    Origin, ParseError, Piece, bonnie, classic, fileop, fio, fs_mark, iozone3, json_stream, mdtest,
    ops, own,
};
use crate::model::Run;

/// A format a parser reads. Which one a file is in is [`detect`]ed, or the user says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Iozone3,
    Fio,
    Classic,
    Json,
    Csv,
    Fileop,
    FsMark,
    Bonnie,
    Mdtest,
}

/// The format a file's content shows, most specific first.
pub fn detect(text: &str) -> Option<Format> {
    if fio::looks_like(text) {
        Some(Format::Fio)
    } else if own::looks_like_json(text) {
        Some(Format::Json)
    } else if iozone3::looks_like(text) {
        Some(Format::Iozone3)
    } else if classic::looks_like(text) {
        Some(Format::Classic)
    } else if fileop::looks_like(text) {
        Some(Format::Fileop)
    } else if fs_mark::looks_like(text) {
        Some(Format::FsMark)
    } else if mdtest::looks_like(text) {
        Some(Format::Mdtest)
    } else if bonnie::looks_like(text) {
        Some(Format::Bonnie)
    } else if own::looks_like_csv(text) {
        Some(Format::Csv)
    } else {
        None
    }
}

pub fn parse(format: Format, text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    match format {
        Format::Iozone3 => iozone3::parse(text, origin),
        Format::Fio => fio::parse(text, origin),
        Format::Classic => classic::parse(text, origin),
        Format::Json => own::parse_json(text, origin),
        Format::Csv => own::parse_csv(text, origin),
        Format::Fileop => ops::into_runs(fileop::parse(text)?, origin),
        Format::FsMark => ops::into_runs(fs_mark::parse(text)?, origin),
        Format::Bonnie => ops::into_runs(bonnie::parse(text)?, origin),
        Format::Mdtest => ops::into_runs(mdtest::parse(text)?, origin),
    }
}

/// Reads the runs of a format read as a stream (one without
/// [`Format::max_bytes`]) from `reader`, handing each to `emit` as it is complete, or
/// in parts as it is read (iozone3's).
pub fn read_stream(
    format: Format,
    reader: impl std::io::Read,
    file: &str,
    imported_at: chrono::DateTime<chrono::Utc>,
    emit: &mut dyn FnMut(Piece) -> bool,
) -> Result<(), ParseError> {
    let mut whole = |run| emit(Piece::Run(Box::new(run)));
    match format {
        Format::Json => json_stream::read_json(reader, &mut whole),
        Format::Csv => own::read_csv(reader, file, imported_at, &mut whole),
        Format::Iozone3 => iozone3::read(std::io::BufReader::new(reader), file, imported_at, emit),
        Format::Fio
        | Format::Classic
        | Format::Fileop
        | Format::FsMark
        | Format::Bonnie
        | Format::Mdtest => {
            unreachable!("{format:?} has a size limit: it is read whole")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FORMATS: [Format; 9] = [
        Format::Iozone3,
        Format::Fio,
        Format::Classic,
        Format::Json,
        Format::Csv,
        Format::Fileop,
        Format::FsMark,
        Format::Bonnie,
        Format::Mdtest,
    ];

    fn origin() -> Origin {
        Origin::new("fuzz", b"fuzz", chrono::Utc::now())
    }

    /// Lines that look like each format's, for the fuzzer to splice into noise.
    fn fragments() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "Iozone: Performance Test of File I/O\n",
            "        Version $Revision: 3.489 $\n",
            "              kB  reclen    write  rewrite    read    reread\n",
            "           32768      64  2728381  7796271 10670058  8773181\n",
            "iozone test complete.\n",
            "Command\t\t\tRead (bytes/sec)  Write (bytes/sec)\n",
            "iozone 32 512\t\t773910\t\t  909728\n",
            "{\"fio version\" : \"fio-3.33\", \"jobs\" : [ {\"jobname\": \"x\"} ] }",
            "uuid,started_at,finished_at,status,labels,tags,note,hostname,throughput\n",
            "{\"format\": \"iozone-export\", \"runs\": [ {\"uuid\": 1} ] }",
            // times at and beyond the years a run may state, in each format's words
            "\tRun began: Fri Dec 31 23:59:59 9999\n",
            "\tRun began: Sat Jan  1 00:00:00 +10000\n",
            "\tRun began: Wed Dec 31 23:59:59 1969\n",
            "\"timestamp\" : 253402300800,\n",
            "\"timestamp\" : -62167219201,\n",
            "\"timestamp_ms\" : 253402300799999,\n",
            "\"timestamp\" : 0,\n",
            "\"started_at\": \"+10000-01-01T00:00:00Z\", ",
            "\"started_at\": \"-0001-12-31T00:00:00Z\", ",
            "\"finished_at\": \"1969-12-31T23:59:59Z\", ",
            "0748c869-446c-5975-9565-affc9db25898,0000-01-01T00:00:00Z,,complete,,,\n",
            // the metadata tools' headers and rows
            " .       mkdir   chdir   rmdir  create    open    read   write   close    stat  access   chmod readdir  link    unlink  delete  Total_files\n",
            "A    4    1241  388447     317    6198  601873  500812   46693   95597  627186 1525201  530505  179917  176952  297931     308         64 \n",
            "#  fs_mark  -d  /data/fsm  -n  2000  -s  0  -S  0  -L  3 \n",
            "#\tVersion 3.3, 1 thread(s) starting at Tue Dec  1 22:49:34 2026\n",
            "#\tSync method: NO SYNC: Test does not issue sync() or fsync() calls.\n",
            "FSUse%        Count         Size    Files/sec     App Overhead\n",
            "    69         2000            0      28607.0            12536\n",
            "1.98,2.00a,vm,1,1796170709,,,,,,,,,,,,,,,,,4,,,,,2947,86,+++++,+++,+++++,+++,+++++,+++,+++++,+++,+++++,+++,,,,,,,5034us,4069us\n",
            "mdtest-4.0.0 was launched with 1 total task(s) on 1 node(s)\n",
            "1 tasks, 1000 files/directories\n",
            "SUMMARY rate: (of 3 iterations)\n",
            "   File creation                 901.547        552.630        674.295        196.970\n",
        ])
        .prop_map(str::to_string)
    }

    #[test]
    fn each_metadata_tool_is_told_from_its_output() {
        let fixture = |name: &str| {
            let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(path).unwrap()
        };
        for (name, format) in [
            ("metadata/fileop-f10.txt", Format::Fileop),
            ("metadata/fileop-e-f4.txt", Format::Fileop),
            ("metadata/fs_mark-n500-s4096-S1-t2-v.txt", Format::FsMark),
            ("metadata/bonnie-n4.csv", Format::Bonnie),
            ("metadata/bonnie-n1-x2.csv", Format::Bonnie),
            ("metadata/bonnie-n4.txt", Format::Bonnie),
            ("metadata/mdtest-n300-z2-b3-P.txt", Format::Mdtest),
            ("metadata/mdtest-dev-n1000.txt", Format::Mdtest),
            ("iozone3/auto-n64k-g4m.txt", Format::Iozone3),
            ("classic/bebox-beos-dr8.txt", Format::Classic),
            ("fio/buffered-write-4k.json", Format::Fio),
        ] {
            assert_eq!(detect(&fixture(name)), Some(format), "{name}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn no_input_panics_any_parser(
            pieces in prop::collection::vec(prop_oneof![fragments(), ".{0,40}"], 0..12)
        ) {
            let text: String = pieces.concat();
            let _ = detect(&text);
            for format in FORMATS {
                // what a parser lets through, the check before storing judges whole
                for (i, run) in parse(format, &text, &origin()).unwrap_or_default().iter().enumerate() {
                    if crate::import::check_storable(run, "fuzz", i).is_ok() {
                        prop_assert!(crate::model::instant_in_range(run.started_at));
                    }
                }
            }
        }
    }
}
