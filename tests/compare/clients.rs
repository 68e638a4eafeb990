//! Runs of many clients in comparisons: their count is part of a row's key (rows of 1
//! and of 4 clients never match unless `--ignore-param clients`), the environment diff
//! gives the hosts' facts, and `compare --by host` leaves them out unless asked.

use iozone::model::{ClientHost, Cluster, Run};
use iozone::store;

use crate::common::{compare_json, on, planted};

/// A planted run of four clients on hosts `vm` and `vm-b` (rank 0's first), the
/// second on kernel `kernel_b`.
fn of_four(day: i64, level: f64, kernel_b: &str) -> Run {
    let mut run = planted("vm", day, level);
    run.params.clients = 4;
    run.params.hosts = ["vm", "vm", "vm-b", "vm-b"].map(String::from).to_vec();
    run.host.kernel = Some("6.1.0".into());
    let mut other = ClientHost {
        host: run.host.clone(),
        filesystem: run.filesystem.clone(),
    };
    other.host.hostname = Some("vm-b".into());
    other.host.kernel = Some(kernel_b.into());
    run.cluster = Some(Cluster {
        hosts: vec![
            ClientHost {
                host: run.host.clone(),
                filesystem: run.filesystem.clone(),
            },
            other,
        ],
        ..Cluster::default()
    });
    run.labels = vec!["four".into()];
    run
}

fn planted_db(runs: &[Run]) -> (tempfile::TempDir, std::path::PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    store::open(&db).unwrap().save_runs(runs).unwrap();
    (scratch, db)
}

#[test]
fn one_client_and_four_are_other_rows_unless_clients_are_ignored() {
    let mut one = planted("vm", 1, 300e6);
    one.labels = vec!["one".into()];
    let (_scratch, db) = planted_db(&[one, of_four(2, 900e6, "6.1.0")]);
    let (code, _, err) = on(&db, &["compare", "one", "four"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no row"), "{err}");
    let c = compare_json(&db, &["one", "four", "--ignore-param", "clients"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["clients"], serde_json::Value::Null);
    let changes = c["environment_changes"].as_array().unwrap();
    let clients = changes
        .iter()
        .find(|c| c["field"] == "params.clients")
        .unwrap();
    assert_eq!(
        (&clients["baseline"][0], &clients["candidate"][0]),
        (&"1".into(), &"4".into())
    );
    let hosts = changes
        .iter()
        .find(|c| c["field"] == "host.hostname")
        .unwrap();
    assert_eq!(hosts["candidate"][0], "vm, vm-b", "{hosts}");
    let (code, table, err) = on(
        &db,
        &["compare", "one", "four", "--ignore-param", "clients"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(table.contains("on * clients"), "{table}");
}

#[test]
fn a_kernel_changed_on_one_host_of_many_is_an_environment_change() {
    let mut before = of_four(1, 900e6, "6.1.0");
    before.labels = vec!["before".into()];
    let mut after = of_four(2, 800e6, "6.12.0");
    after.labels = vec!["after".into()];
    let (_scratch, db) = planted_db(&[before, after]);
    let c = compare_json(&db, &["before", "after"]);
    assert_eq!(c["rows"][0]["clients"], 4);
    let changes = c["environment_changes"].as_array().unwrap();
    let kernel = changes
        .iter()
        .find(|c| c["field"] == "host.kernel")
        .unwrap();
    assert_eq!(kernel["baseline"][0], "6.1.0");
    assert_eq!(kernel["candidate"][0], "6.1.0, 6.12.0");
}

#[test]
fn compare_by_host_leaves_runs_of_many_clients_out_unless_asked() {
    let mut runs = Vec::new();
    for (day, label) in [(1, "before"), (2, "after")] {
        let mut alone = planted("vm", day, 300e6);
        alone.labels = vec![label.into()];
        let mut many = of_four(day, 900e6, "6.1.0");
        many.labels = vec![label.into()];
        runs.extend([alone, many]);
    }
    let (_scratch, db) = planted_db(&runs);
    let args = [
        "compare", "before", "after", "--by", "host", "--format", "json",
    ];
    let (code, out, err) = on(&db, &args);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("left out 2 runs of many clients"), "{err}");
    let fleet: serde_json::Value = serde_json::from_str(&out).unwrap();
    let groups: Vec<&str> = (fleet["groups"].as_array().unwrap().iter())
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert_eq!(groups, ["vm"]);
    let (code, out, err) = on(&db, &[&args[..], &["--with-clients"]].concat());
    assert_eq!(code, Some(0), "{err}");
    let fleet: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut groups: Vec<&str> = (fleet["groups"].as_array().unwrap().iter())
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    groups.sort_unstable();
    assert_eq!(groups, ["vm", "vm+vm-b"]);
}
