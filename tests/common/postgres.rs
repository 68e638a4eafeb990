//! The PostgreSQL test server, and a database of its own for each test.

use std::process::Command;

/// The test PostgreSQL server's URL: IOZONE_TEST_PG, else the server that
/// scripts/pg-test-server.sh starts (installing PostgreSQL as root if needed), so a
/// plain `cargo test` needs nothing else. Without either the test fails loudly,
/// unless IOZONE_SKIP_PG_TESTS=1 explicitly allows skipping.
pub fn pg_base_url(what: &str) -> Option<String> {
    if let Ok(url) = std::env::var("IOZONE_TEST_PG") {
        return Some(url);
    }
    if std::env::var("IOZONE_SKIP_PG_TESTS").as_deref() == Ok("1") {
        eprintln!("SKIPPED (no IOZONE_TEST_PG, IOZONE_SKIP_PG_TESTS=1): {what}");
        return None;
    }
    if let Some(url) = started_server() {
        return Some(url);
    }
    panic!(
        "this test needs a PostgreSQL server to {what}, and scripts/pg-test-server.sh could not \
         start one (it needs root): run `eval \"$(scripts/pg-test-server.sh)\"` first, or set \
         IOZONE_SKIP_PG_TESTS=1 to skip the PostgreSQL tests knowingly"
    );
}

/// Starts (or finds running) the project's throwaway server, once per test binary.
fn started_server() -> Option<String> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server.sh");
        let out = Command::new("bash").arg(script).output().ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("export IOZONE_TEST_PG="))
            .map(str::to_string)
    })
    .clone()
}

/// A database of its own on the test server, dropped when the test ends.
pub struct PgDb {
    pub url: String,
    base: String,
    name: String,
}

impl PgDb {
    pub fn new(what: &str) -> Option<PgDb> {
        let base = pg_base_url(what)?;
        let name = format!("iozone_e2e_{:016x}", rand::random::<u64>());
        let mut client = postgres::Client::connect(&base, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let cut = base.rfind('/').expect("the test URL names a database");
        let url = format!("{}/{name}", &base[..cut]);
        Some(PgDb { url, base, name })
    }

    /// A client on this database, for planting and inspecting.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).unwrap()
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.base, postgres::NoTls) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}
