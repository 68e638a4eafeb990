//! Passwords never print: whatever characters a password holds, and whichever way a
//! connection fails (a mistyped scheme, nothing listening, a wrong password at the real
//! test server, a libpq `key=value` string), no piece of it reaches stdout or stderr,
//! and no file is created under a name made of it.

use proptest::prelude::*;

use crate::common::{iozone, pg_base_url};

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

/// The test server's `host:port`, from its URL.
fn server_address(url: &str) -> String {
    let after_at = &url[url.rfind('@').expect("the test URL has a user") + 1..];
    after_at[..after_at.find('/').unwrap_or(after_at.len())].to_string()
}

fn assert_never_printed(db: &str, args: &[&str], cwd: &std::path::Path) {
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
    assert_eq!(out.status.code(), Some(2), "{args:?} on {db}: {printed}");
    for marker in MARKERS {
        assert!(
            !printed.contains(marker),
            "{args:?}: a piece of the password in {db:?} was printed: {printed}"
        );
    }
    let created: Vec<_> = std::fs::read_dir(cwd).unwrap().collect();
    assert!(created.is_empty(), "{db:?} created {created:?}");
}

proptest! {
    // each case starts iozone twelve times; a failing case is printed, not kept in a file
    #![proptest_config(ProptestConfig {
        cases: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_piece_of_a_password_is_ever_printed(pieces in special()) {
        let Some(base) = pg_base_url("fail to log in with odd passwords") else {
            return Ok(());
        };
        let server = server_address(&base);
        let password = format!("Zqx{}Wvk", pieces.concat());
        let quoted = password.replace('\\', "\\\\").replace('\'', "\\'");
        let cwd = tempfile::tempdir().unwrap();
        let locations = [
            // a mistyped scheme: refused, never a file
            format!("postgress://iozone:{password}@{server}/iozone_test"),
            // nothing listens on port 1
            format!("postgres://iozone:{password}@127.0.0.1:1/iozone_test"),
            // the real server refuses the password
            format!("postgres://iozone:{password}@{server}/iozone_test?sslmode=disable"),
            format!("postgresql://iozone@{server}/iozone_test?password={password}"),
            format!(
                "host={} port={} user=iozone password='{quoted}' dbname=iozone_test",
                server.split(':').next().unwrap(),
                server.rsplit(':').next().unwrap()
            ),
            // unquoted, spaces and all: libpq would split it, it is still never shown
            format!("host=127.0.0.1 port=1 user=iozone password={password} dbname=iozone_test"),
        ];
        for db in &locations {
            assert_never_printed(db, &["history"], cwd.path());
            assert_never_printed(db, &["db", "migrate"], cwd.path());
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
