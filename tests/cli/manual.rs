//! Manual pages and shell completions, checked against what `--help` says exists.

use std::collections::BTreeSet;

use crate::common::iozone;

fn stdout(args: &[&str]) -> String {
    let out = iozone().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands `iozone PATH… --help` lists (clap's `help` left out).
fn subcommands(path: &[&str]) -> Vec<String> {
    let help = stdout(&[path, &["--help"]].concat());
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every long flag `--help` shows for `iozone PATH…`.
fn long_flags(path: &[&str]) -> BTreeSet<String> {
    let help = stdout(&[path, &["--help"]].concat());
    help.lines()
        .filter_map(|l| l.trim_start().split_once("--"))
        .filter(|(before, _)| before.is_empty() || before.ends_with(", "))
        .map(|(_, flag)| {
            let end = flag
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(flag.len());
            format!("--{}", &flag[..end])
        })
        .collect()
}

/// A roff page as text: roff writes a hyphen as `\-`.
fn plain(roff: &str) -> String {
    roff.replace("\\-", "-")
}

#[test]
fn the_run_page_shows_every_run_option() {
    let flags = long_flags(&["run"]);
    assert!(flags.len() > 25, "{flags:?}");
    let page = plain(&stdout(&["man", "run"]));
    assert!(page.contains("\n.TH iozone-run 1 "), "{}", &page[..200]);
    for flag in &flags {
        assert!(
            page.contains(flag.as_str()),
            "{flag} is not in iozone-run(1)"
        );
    }
    // nested: `db check` has its own page
    assert!(plain(&stdout(&["man", "db", "check"])).contains("\n.TH iozone-db-check 1 "));
    let out = iozone().args(["man", "frob"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no manual page for 'frob': expected one of run, history"),
        "{err}"
    );
}

#[test]
fn man_dir_writes_one_page_per_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    stdout(&["man", "--dir", dir.path().to_str().unwrap()]);
    let written: BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut expected = BTreeSet::from(["iozone.1".to_string()]);
    let mut pending = vec![Vec::<String>::new()];
    while let Some(path) = pending.pop() {
        let path_refs: Vec<&str> = path.iter().map(String::as_str).collect();
        for sub in subcommands(&path_refs) {
            let mut child = path.clone();
            child.push(sub);
            expected.insert(format!("iozone-{}.1", child.join("-")));
            pending.push(child);
        }
    }
    assert!(expected.contains("iozone-db-check.1"), "{expected:?}");
    assert_eq!(written, expected);
    // each page is named by its parent's: iozone(1) names iozone-db(1), which names
    // iozone-db-check(1)
    let read = |name: &str| plain(&std::fs::read_to_string(dir.path().join(name)).unwrap());
    for page in &expected {
        let name = page.trim_end_matches(".1");
        if let Some((parent, _)) = name.rsplit_once('-') {
            assert!(
                read(&format!("{parent}.1")).contains(&format!("{name}(1)")),
                "{parent}(1) does not name {name}(1)"
            );
        }
    }
}

#[test]
fn the_top_page_has_exit_status_environment_and_examples() {
    let page = plain(&stdout(&["man"]));
    for needle in [
        ".SH \"EXIT STATUS\"",
        "compare --fail-on-regression found a regression",
        "130 for Ctrl-C",
        ".SH ENVIRONMENT",
        "IOZONE_DB",
        "NO_COLOR",
        ".SH EXAMPLES",
        "iozone run 32 512",
    ] {
        assert!(page.contains(needle), "no {needle} in the top page");
    }
    // the statuses it lists are the ones the binary returns
    for (status, args) in [(2, &["compare"][..]), (0, &["--version"][..])] {
        assert_eq!(
            iozone().args(args).output().unwrap().status.code(),
            Some(status)
        );
        assert!(
            page.contains(&format!("\\fB{status}\\fR")),
            "status {status} not listed"
        );
    }
}

/// What bash's completion of `iozone WORDS…` offers, by the script `completions bash`
/// generates, run in a real bash.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let driver = format!(
        "source {}\nCOMP_WORDS=(iozone {})\nCOMP_CWORD=$((${{#COMP_WORDS[@]}}-1))\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\nCOMP_POINT=${{#COMP_LINE}}\nCOMPREPLY=()\n\
         _iozone iozone \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(driver)
        .current_dir(script.parent().unwrap())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn completions_offer_test_names_cache_modes_and_engines() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("iozone.bash");
    std::fs::write(&script, stdout(&["completions", "bash"])).unwrap();
    // a file in the directory: a completion that falls back to file names would offer it
    std::fs::write(dir.path().join("readme-not-a-test"), "").unwrap();
    let offered = |words: &[&str]| bash_completes(&script, words);
    assert_eq!(
        offered(&["run", "-i", "ra"]),
        ["random", "random-read", "random-write"]
    );
    assert!(offered(&["run", "--test", "rea"]).contains(&"read".to_string()));
    assert_eq!(offered(&["history", "--test", "stri"]), ["stride_read"]);
    assert_eq!(
        offered(&["run", "--cache", ""]),
        ["flush", "buffered", "direct", "sync"]
    );
    // the engines the build registers, each by its prefix
    assert_eq!(offered(&["run", "--engine", "po"]), ["posix"]);
    assert!(offered(&["run", "--engine", "p"]).contains(&"pread".to_string()));
    // zsh and fish name the same values in their scripts
    let zsh = stdout(&["completions", "zsh"]);
    let fish = stdout(&["completions", "fish"]);
    for name in ["record-rewrite", "random-write"] {
        assert!(
            zsh.lines()
                .any(|l| l.contains("--test=") && l.contains(name)),
            "zsh: {name}"
        );
    }
    assert!(
        fish.lines()
            .any(|l| l.contains("-s i -l test") && l.contains("-a \"write")),
        "fish completes no test names"
    );
    for (flag, value) in [("cache", "direct"), ("engine", "uring")] {
        assert!(
            fish.lines()
                .skip_while(|l| !l.contains(&format!("-l {flag} ")))
                .take(6)
                .any(|l| l.starts_with(value)),
            "fish: --{flag} {value}"
        );
    }
}
