//! The PostgreSQL server the tests use, and a database of its own for each test.

/// The server the PostgreSQL tests use, or `None` when they are skipped knowingly.
pub(super) fn test_server() -> Option<String> {
    if let Ok(url) = std::env::var("IOZONE_TEST_PG")
        && !url.is_empty()
    {
        return Some(url);
    }
    if std::env::var("IOZONE_SKIP_PG_TESTS").as_deref() != Ok("1")
        && let Some(url) = started_server()
    {
        return Some(url);
    }
    if std::env::var("IOZONE_SKIP_PG_TESTS").as_deref() == Ok("1") {
        // straight to stderr, past the test harness's capture, once per test binary
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "\n!!! IOZONE_SKIP_PG_TESTS=1: SKIPPING the PostgreSQL store tests; the fleet store is NOT tested !!!\n"
            );
        });
        return None;
    }
    panic!(
        "IOZONE_TEST_PG is not set and scripts/pg-test-server.sh could not start a server \
         (it needs root to install and start PostgreSQL), so the PostgreSQL store cannot be \
         tested: run `eval \"$(scripts/pg-test-server.sh)\"` first, or set \
         IOZONE_SKIP_PG_TESTS=1 to skip these tests knowingly"
    );
}

/// Starts (or finds running) the project's throwaway server, once per test binary, so
/// a plain `cargo test` as root needs nothing else; the script prints the URL.
fn started_server() -> Option<String> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server.sh");
        let out = std::process::Command::new("bash")
            .arg(script)
            .output()
            .ok()?;
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

/// `url` with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let server = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    format!("{server}/{name}{query}")
}

/// A database of its own for one test, dropped (with whoever is still connected) when
/// the test ends, however it ends.
pub(super) struct PgDatabase {
    server: String,
    name: String,
    pub(super) url: String,
}

impl PgDatabase {
    pub(super) fn create() -> Option<PgDatabase> {
        let server = test_server()?;
        let name = format!(
            "iozone_t_{}",
            &uuid::Uuid::new_v4().simple().to_string()[..16]
        );
        ::postgres::Client::connect(&server, ::postgres::NoTls)
            .unwrap_or_else(|e| panic!("cannot reach the test server IOZONE_TEST_PG: {e}"))
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let url = with_database(&server, &name);
        Some(PgDatabase { server, name, url })
    }

    /// A plain connection to the test's database, to set things up behind the store.
    pub(super) fn client(&self) -> ::postgres::Client {
        ::postgres::Client::connect(&self.url, ::postgres::NoTls).unwrap()
    }

    /// The schema's tables, its versions and its row counts, as text.
    pub(super) fn snapshot(&self) -> String {
        let mut client = self.client();
        let mut text = String::new();
        for row in client
            .query(
                "SELECT c.relname::text, c.relkind::text, c.reltuples::float8 FROM pg_class c \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') \
                 ORDER BY 1",
                &[],
            )
            .unwrap()
        {
            let (name, kind): (String, String) = (row.get(0), row.get(1));
            text.push_str(&format!("{name} {kind}\n"));
        }
        let has_versions: bool = client
            .query_one(
                "SELECT to_regclass('iozone.schema_version') IS NOT NULL",
                &[],
            )
            .unwrap()
            .get(0);
        if has_versions {
            for row in client
                .query(
                    "SELECT version, applied_at::text FROM iozone.schema_version ORDER BY 1",
                    &[],
                )
                .unwrap()
            {
                let (v, at): (i32, String) = (row.get(0), row.get(1));
                text.push_str(&format!("version {v} {at}\n"));
            }
        }
        let has_runs: bool = client
            .query_one("SELECT to_regclass('iozone.runs') IS NOT NULL", &[])
            .unwrap()
            .get(0);
        if has_runs {
            let counts = client
                .query_one(
                    "SELECT (SELECT count(*) FROM iozone.runs), \
                            (SELECT count(*) FROM iozone.results), \
                            (SELECT count(*) FROM iozone.run_labels), \
                            (SELECT max(finished_at)::text FROM iozone.runs)",
                    &[],
                )
                .unwrap();
            let (runs, results, labels, last): (i64, i64, i64, Option<String>) =
                (counts.get(0), counts.get(1), counts.get(2), counts.get(3));
            text.push_str(&format!(
                "{runs} runs {results} results {labels} labels {last:?}\n"
            ));
        }
        text
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let dropped =
            ::postgres::Client::connect(&self.server, ::postgres::NoTls).and_then(|mut c| {
                c.batch_execute(&format!(
                    "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                    self.name
                ))
            });
        if let Err(e) = dropped {
            eprintln!("could not drop the test database {}: {e}", self.name);
        }
    }
}

/// The test server's URL with another password and database.
pub(super) fn server_with(password: &str, database: &str) -> Option<String> {
    let server = test_server()?;
    let config: ::postgres::Config = server.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        ::postgres::config::Host::Tcp(host) => host.clone(),
        #[allow(unreachable_patterns)]
        other => panic!("IOZONE_TEST_PG must name a TCP host, not {other:?}"),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("iozone");
    Some(format!(
        "postgres://{user}:{password}@{host}:{port}/{database}"
    ))
}
