//! Passwords never print: whatever characters a password holds, and whichever way a
//! connection fails (a mistyped scheme, nothing listening, a wrong password at the real
//! test server, a libpq `key=value` string), no piece of it reaches stdout or stderr,
//! and no file is created under a name made of it. Text that only looks like a
//! connection location (a URL missing its `//`, a password parameter under a misspelt
//! name, `USER:PASSWORD@HOST` naming no file) is refused the same way, by every command.

use std::path::Path;

use proptest::prelude::*;

use crate::common::{PgDb, iozone, on, pg_base_url};

/// Marker words every generated password holds; neither ever appears in a message.
const MARKERS: [&str; 2] = ["Zqx", "Wvk"];

fn special() -> impl Strategy<Value = Vec<&'static str>> {
    proptest::collection::vec(
        proptest::sample::select(vec![
            "Zqx", "Wvk", "@", "?", "/", ":", "%", "#", "&", "=", " ", "'", "\\", "%40", "+", ";",
            "!", "$", "*", "[", "]", "\"",
        ]),
        1..10,
    )
}

/// A password parameter as people misspell it: none of these is the client's name.
fn mistyped_key() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "passwd", "pass", "pwd", "PassWord", "PASSWORD", "Passwd", "PWD", "Pass", "pasword",
    ])
}

/// A URL's start without its `//`, which was taken for a file name.
fn scheme_without_slashes() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "postgres:",
        "postgres:/",
        "postgres//",
        "postgresql:",
        "postgresql:/",
        "postgresql//",
        "PostgreSQL:",
        "",
    ])
}

/// The test server's `host:port`, from its URL.
fn server_address(url: &str) -> String {
    let after_at = &url[url.rfind('@').expect("the test URL has a user") + 1..];
    after_at[..after_at.find('/').unwrap_or(after_at.len())].to_string()
}

/// The commands tried on each location: `db path` prints it, the others fail on it;
/// `run` measures in `scratch`, never in the working directory.
fn commands(scratch: &Path) -> Vec<Vec<String>> {
    let scratch = scratch.to_str().unwrap();
    let run = [
        "run", "-s", "64k", "-r", "4k", "-n", "1", "--warmup", "0", "-q", "-d", scratch,
    ];
    [&["db", "path"][..], &["history"], &["db", "migrate"], &run]
        .iter()
        .map(|args| args.iter().map(|a| a.to_string()).collect())
        .collect()
}

/// Runs `iozone --db DB ARGS` in `cwd`: the status is one of `expected` (`db path` of
/// a location it takes prints it, status 0), no marker is printed, nothing is created.
fn assert_never_printed(db: &str, args: &[String], cwd: &Path, expected: &[i32]) {
    let out = iozone()
        .current_dir(cwd)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status
            .code()
            .is_some_and(|code| expected.contains(&code)),
        "{args:?} on {db}: {:?} {printed}",
        out.status
    );
    for marker in MARKERS {
        assert!(
            !printed.contains(marker),
            "{args:?}: a piece of the password in {db:?} was printed: {printed}"
        );
    }
    let created: Vec<_> = std::fs::read_dir(cwd).unwrap().collect();
    assert!(created.is_empty(), "{args:?} on {db:?} created {created:?}");
}

proptest! {
    // each case starts iozone about a hundred times; a failing case is printed, not
    // kept in a file
    #![proptest_config(ProptestConfig {
        cases: 6,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_piece_of_a_password_is_ever_printed(pieces in special()) {
        let Some(base) = pg_base_url("fail to log in with odd passwords") else {
            return Ok(());
        };
        let server = server_address(&base);
        let (host, port) = server.split_once(':').unwrap();
        let password = format!("Zqx{}Wvk", pieces.concat());
        let encoded = password.replace('%', "%25").replace('&', "%26").replace('#', "%23");
        let quoted = password.replace('\\', "\\\\").replace('\'', "\\'");
        let cwd = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        // taken for a server: `db path` prints them masked, the server refuses them
        let servers = [
            // nothing listens on port 1
            format!("postgres://iozone:{password}@127.0.0.1:1/iozone_test"),
            // the real server refuses the password
            format!("postgres://iozone:{password}@{server}/iozone_test?sslmode=disable"),
            format!("postgresql://iozone@{server}/iozone_test?password={password}"),
            // a percent-encoded name is the driver's `password` all the same
            format!("postgres://iozone@{server}/iozone_test?pass%77ord={encoded}"),
            format!("postgres://iozone@{server}/iozone_test?%70assword={encoded}"),
            format!(
                "host={host} port={port} user=iozone password='{quoted}' dbname=iozone_test"
            ),
        ];
        let mistyped = [
            // a mistyped scheme: refused, never a file
            format!("postgress://iozone:{password}@{server}/iozone_test"),
            // unquoted, spaces and all: libpq would split it, it is still never shown
            format!("host=127.0.0.1 port=1 user=iozone password={password} dbname=iozone_test"),
        ];
        for args in commands(scratch.path()) {
            // `db path` prints what it takes, masked; an odd character in the password
            // (an unencoded '&', an unquoted space) may make it refuse the rest
            let expected: &[i32] = match args[..] == ["db", "path"] {
                true => &[0, 2],
                false => &[2],
            };
            for db in servers.iter().chain(&mistyped) {
                assert_never_printed(db, &args, cwd.path(), expected);
            }
            assert_never_printed(&mistyped[0], &args, cwd.path(), &[2]);
        }
    }

    /// What only looks like a connection location is refused by every command, `db
    /// path` included, masked, and never becomes a file in the working directory.
    #[test]
    fn what_looks_like_a_location_is_refused_and_never_a_file(
        pieces in special(),
        scheme in scheme_without_slashes(),
        key in mistyped_key(),
    ) {
        let password = format!("Zqx{}Wvk", pieces.concat());
        let quoted = password.replace('\\', "\\\\").replace('\'', "\\'");
        let cwd = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let locations = [
            // a URL missing its `//` (or its scheme): was a SQLite file of that name
            format!("{scheme}iozone:{password}@127.0.0.1:1/iozone_test"),
            format!("{scheme}iozone@127.0.0.1:1/iozone_test?sslmode=disable&password={password}"),
            // a misspelt password parameter, in a URL, a libpq string (first or not,
            // quoted or not)
            format!("postgres://iozone@127.0.0.1:1/iozone_test?{key}={password}"),
            format!("host=127.0.0.1 port=1 {key}='{quoted}' dbname=iozone_test"),
            format!("host=127.0.0.1 port=1 {key}={password} dbname=iozone_test"),
            format!("{key}='{quoted}' host=127.0.0.1 port=1"),
        ];
        for args in commands(scratch.path()) {
            for db in &locations {
                assert_never_printed(db, &args, cwd.path(), &[2]);
            }
        }
    }
}

#[test]
fn a_missing_database_on_the_server_is_named_without_the_password() {
    let Some(base) = pg_base_url("ask the test server for a database that does not exist") else {
        return;
    };
    let password_start = base.find("://").unwrap() + 3;
    let user_info = &base[password_start..base.rfind('@').unwrap()];
    let password = user_info.split_once(':').unwrap().1;
    let cut = base.rfind('/').unwrap();
    let url = format!("{}/iozone_no_such_database", &base[..cut]);
    let out = iozone().args(["--db", &url, "history"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("iozone_no_such_database"), "{err}");
    assert!(err.contains(":***@"), "{err}");
    assert!(!err.contains(password), "{err}");
}

/// The real server takes a password under a percent-encoded parameter name, as the
/// driver decodes it; `db path` shows the name, not the password.
#[test]
fn a_percent_encoded_password_parameter_connects_and_is_masked() {
    let Some(pg) = PgDb::new("log in with a percent-encoded parameter name") else {
        return;
    };
    let start = pg.url.find("://").unwrap() + 3;
    let at = pg.url.rfind('@').unwrap();
    let (user, password) = pg.url[start..at].split_once(':').unwrap();
    let url = format!(
        "{}{user}@{}?pass%77ord={password}",
        &pg.url[..start],
        &pg.url[at + 1..]
    );
    let (code, out, err) = on(&url, &["db", "path"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.trim_end().ends_with("?pass%77ord=***"), "{out}");
    let (code, out, err) = on(&url, &["history"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!format!("{out}{err}").contains(password), "{out}{err}");
}

/// A file whose name reads as `USER:PASSWORD@HOST` is refused for writing, with nothing
/// created, unless `--db-file` names it; then it is that file, for writes and reads.
#[test]
fn db_file_names_a_file_that_looks_like_a_location() {
    let cwd = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let scratch = scratch.path().to_str().unwrap();
    let name = "me@host:runs.db";
    let run = [
        "run", "-s", "64k", "-r", "4k", "-n", "1", "--warmup", "0", "-q", "-d", scratch,
    ];
    let iozone_in = |args: &[&str]| {
        let out = iozone()
            .current_dir(cwd.path())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, err, _) = iozone_in(&[&["--db", name][..], &run].concat());
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("give it with --db-file"), "{err}");
    assert!(std::fs::read_dir(cwd.path()).unwrap().next().is_none());

    let (code, err, _) = iozone_in(&[&["--db-file", name][..], &run].concat());
    assert_eq!(code, Some(0), "{err}");
    assert!(cwd.path().join(name).is_file());
    let (code, err, out) = iozone_in(&["--db-file", name, "db", "path"]);
    assert_eq!((code, out.trim()), (Some(0), name), "{err}");
    // once it exists, it is that file under --db as well
    let (code, err, out) = iozone_in(&["--db", name, "history", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"id\": 1"), "{out}");
    // --db-file is --db's alternative, and wins over IOZONE_DB
    let (code, err, _) = iozone_in(&["--db", "other.db", "--db-file", name, "history"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--db and --db-file both name the database"),
        "{err}"
    );
    let out = iozone()
        .current_dir(cwd.path())
        .env("IOZONE_DB", "postgres:u:Zqx@h/d")
        .args(["--db-file", name, "db", "path"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), name);
}
