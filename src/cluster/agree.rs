//! What the ranks settle before anything is measured: every rank checks the directory
//! as a run of one would (exists, writable, room, O_DIRECT), tells rank 0 its host's
//! facts and its filesystem's, and rank 0 refuses for all, in one line naming the rank
//! and its host, when one rank failed its checks, measures another type of filesystem,
//! or (one file shared by all) does not see the file rank 0 created. Refused, nothing
//! is left anywhere: the checks' probe files are removed before anyone answers.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ClusterError;
use crate::bench::{FileNames, Peers, text_words, words_text};
use crate::model::ClientHost;

/// What a rank tells rank 0 before measuring.
#[derive(Serialize, Deserialize)]
struct Report {
    /// Why its checks refused the run, in their words.
    refused: Option<String>,
    facts: ClientHost,
}

/// What rank 0 learnt: each rank's host, and the facts of every distinct host in the
/// order of their first rank.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gathered {
    pub rank_hosts: Vec<String>,
    pub hosts: Vec<ClientHost>,
}

/// Every rank's checks (`checked`: this rank's, with its facts) and facts, judged on
/// rank 0; `Some` there, `None` on the others. A refusal is every rank's error; rank 0's
/// names the rank and host that caused it.
pub fn checks(
    peers: &dyn Peers,
    dir: &Path,
    checked: Result<ClientHost, String>,
) -> Result<Option<Gathered>, ClusterError> {
    let report = match checked {
        Ok(facts) => Report {
            refused: None,
            facts,
        },
        Err(refused) => Report {
            refused: Some(refused),
            facts: ClientHost::default(),
        },
    };
    let text = serde_json::to_string(&report).expect("a report is plain data");
    let reports: Option<Vec<Report>> = peers.gather(&text_words(&text)).map(|all| {
        (all.iter())
            .map(|words| {
                serde_json::from_str(&words_text(words)).unwrap_or(Report {
                    refused: Some("its report was not whole".into()),
                    facts: ClientHost::default(),
                })
            })
            .collect()
    });
    let verdict = reports.as_ref().and_then(|r| refusal(peers, dir, r));
    decide(peers, verdict)?;
    Ok(reports.map(|reports| gathered(peers, reports)))
}

/// Rank 0's reason to refuse, from every rank's report: the first rank whose checks
/// failed, else the first that measures a filesystem of another type than rank 0's.
fn refusal(peers: &dyn Peers, dir: &Path, reports: &[Report]) -> Option<(u32, String)> {
    let failed = reports.iter().enumerate().find_map(|(rank, r)| {
        let reason = r.refused.clone()?;
        Some((rank as u32, reason))
    });
    if failed.is_some() {
        return failed;
    }
    let type_of = |r: &Report| {
        r.facts
            .filesystem
            .fs_type
            .clone()
            .unwrap_or_else(|| "unknown".into())
    };
    let first = type_of(&reports[0]);
    let (rank, other) = reports
        .iter()
        .enumerate()
        .map(|(rank, r)| (rank, type_of(r)))
        .find(|(_, t)| *t != first)?;
    Some((
        rank as u32,
        format!(
            "{} is {other} there but {first} on rank 0 ({}): every rank must measure the same \
             filesystem",
            dir.display(),
            peers.host(0)
        ),
    ))
}

/// Says rank 0's verdict to every rank: each returns the refusal, rank 0's naming the
/// rank and host, the others' only that there was one.
fn decide(peers: &dyn Peers, verdict: Option<(u32, String)>) -> Result<(), ClusterError> {
    let refused = peers.share(
        verdict
            .as_ref()
            .map_or(u64::MAX, |(rank, _)| u64::from(*rank)),
    );
    if refused == u64::MAX {
        return Ok(());
    }
    let rank = refused as u32;
    Err(ClusterError::Refused {
        rank,
        host: peers.host(rank).to_string(),
        reason: verdict.map(|(_, reason)| reason).unwrap_or_default(),
    })
}

/// Each rank's host, and the distinct hosts' facts (by name, the first rank's).
fn gathered(peers: &dyn Peers, reports: Vec<Report>) -> Gathered {
    let rank_hosts: Vec<String> = (0..peers.size())
        .map(|r| peers.host(r).to_string())
        .collect();
    let mut hosts: Vec<ClientHost> = Vec::new();
    for (rank, report) in reports.into_iter().enumerate() {
        let name = &rank_hosts[rank];
        if !hosts
            .iter()
            .any(|h| h.host.hostname.as_deref() == Some(name))
        {
            let mut facts = report.facts;
            facts.host.hostname = Some(name.clone());
            hosts.push(facts);
        }
    }
    Gathered { rank_hosts, hosts }
}

/// For one file shared by all: rank 0 creates a probe file in `dir` and every rank
/// looks for it; a rank that does not see it measures another directory than rank
/// 0's, and the run is refused naming it. The probe is removed before anyone answers.
pub fn shared_dir(peers: &dyn Peers, dir: &Path) -> Result<(), ClusterError> {
    let names = FileNames {
        tag: format!("probe{:08x}", peers.share(u64::from(rand::random::<u32>()))),
        client: None,
    };
    let path = names.shared(dir, Some((peers.pid(0), peers.host(0))));
    let created = match peers.rank() {
        0 => std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map(drop),
        _ => Ok(()),
    };
    let made = peers.share(u64::from(created.is_ok()));
    let seen = std::fs::symlink_metadata(&path).is_ok();
    let all = peers.gather(&[u64::from(seen)]);
    if peers.rank() == 0 {
        let _ = std::fs::remove_file(&path);
    }
    let verdict = match (made, created) {
        (0, Err(e)) => Some((0, format!("cannot create a file in {}: {e}", dir.display()))),
        (0, Ok(())) => Some((0, String::new())),
        _ => all.and_then(|all| {
            let blind = all.iter().position(|w| w.first() != Some(&1))?;
            Some((
                blind as u32,
                format!(
                    "does not see the file rank 0 ({}) created in {}: with --shared-file every \
                     rank must see the same directory",
                    peers.host(0),
                    dir.display()
                ),
            ))
        }),
    };
    decide(peers, verdict)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{Fake, together};
    use super::*;
    use crate::model::{Filesystem, Host};

    fn facts(host: &str, fs_type: &str, kernel: &str) -> ClientHost {
        ClientHost {
            host: Host {
                hostname: Some(host.into()),
                kernel: Some(kernel.into()),
                ..Host::default()
            },
            filesystem: Filesystem {
                fs_type: Some(fs_type.into()),
                ..Filesystem::default()
            },
        }
    }

    #[test]
    fn every_host_is_gathered_once_in_the_order_of_its_first_rank() {
        let hosts = ["a", "b", "a", "c"];
        let results = together(&hosts, |peers: &Fake| {
            let me = peers.rank() as usize;
            checks(peers, Path::new("/d"), Ok(facts(hosts[me], "ext4", "6.1")))
        });
        let gathered = results[0].as_ref().unwrap().as_ref().unwrap();
        assert_eq!(gathered.rank_hosts, hosts);
        let names: Vec<_> = gathered
            .hosts
            .iter()
            .map(|h| h.host.hostname.clone().unwrap())
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(results[1..].iter().all(|r| matches!(r, Ok(None))));
    }

    #[test]
    fn a_rank_that_failed_its_checks_or_measures_another_filesystem_is_named_to_all() {
        let hosts = ["a", "b", "c"];
        let results = together(&hosts, |peers: &Fake| match peers.rank() {
            1 => checks(
                peers,
                Path::new("/d"),
                Err("directory /d does not exist".into()),
            ),
            r => checks(
                peers,
                Path::new("/d"),
                Ok(facts(hosts[r as usize], "ext4", "6.1")),
            ),
        });
        let said = results[0].as_ref().unwrap_err().to_string();
        assert_eq!(said, "rank 1 on b: directory /d does not exist");
        assert!(results.iter().all(Result::is_err));
        let results = together(&hosts, |peers: &Fake| {
            let fs = if peers.rank() == 2 { "xfs" } else { "ext4" };
            checks(
                peers,
                Path::new("/d"),
                Ok(facts(hosts[peers.rank() as usize], fs, "6.1")),
            )
        });
        let said = results[0].as_ref().unwrap_err().to_string();
        assert!(
            said.starts_with("rank 2 on c: /d is xfs there but ext4 on rank 0 (a)"),
            "{said}"
        );
    }

    #[test]
    fn the_shared_file_is_seen_by_all_in_one_directory_and_refused_in_another() {
        let shared = tempfile::tempdir().unwrap();
        let results = together(&["a", "b"], |peers: &Fake| shared_dir(peers, shared.path()));
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        let elsewhere = tempfile::tempdir().unwrap();
        let results = together(&["a", "b"], |peers: &Fake| {
            let dir = if peers.rank() == 0 {
                shared.path()
            } else {
                elsewhere.path()
            };
            shared_dir(peers, dir)
        });
        let said = results[0].as_ref().unwrap_err().to_string();
        assert!(
            said.starts_with("rank 1 on b: does not see the file rank 0 (a) created"),
            "{said}"
        );
        assert_eq!(std::fs::read_dir(shared.path()).unwrap().count(), 0);
    }
}
