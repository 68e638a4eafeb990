//! The report's comparison section: the two sides, what changed in their environment,
//! the rows with their verdicts, a bar chart of the changes, the per-test summary and
//! the rule a regression follows. The figures' text comes from [`crate::render::cells`],
//! as in the terminal.

use std::fmt::Write;

use super::{empty, table_cells};
use crate::compare::{Comparison, Row, Verdict};
use crate::render::SideInfo;
use crate::render::cells::{Scale, change};
use crate::render::compare::{
    SUMMARY_HEADERS, change_cells, ci, explanation, header_scale, key_name, level,
    machine_sentence, needed_sentences, one_sided_sentences, resolved, row_cells, row_headers,
    rule_sentence, side_text, summary_cells,
};
use crate::render::svg::{Bar, BarChart, escape};
use crate::units::RateUnit;

pub(super) fn comparison_section(
    comparison: Option<(&SideInfo, &SideInfo, &Comparison)>,
    unit: RateUnit,
) -> String {
    let mut out = String::from("<section id=\"comparison\">\n<h2>Comparison</h2>\n");
    let Some((base, cand, c)) = comparison else {
        out.push_str(&empty(
            "No comparison: give a baseline and a candidate to compare two groups of runs.",
        ));
        return out + "</section>\n";
    };
    let _ = writeln!(
        out,
        "<p><strong>Baseline:</strong> {} · <strong>Candidate:</strong> {}</p>",
        escape(&side_text(base)),
        escape(&side_text(cand))
    );
    out.push_str(&environment_html(c));
    out.push_str(&rows_html(c, unit));
    out.push_str(&change_chart(c));
    out.push_str(&summary_html(c));
    out.push_str(&verdict_note(c));
    out + "</section>\n"
}

fn environment_html(c: &Comparison) -> String {
    let mut out = String::from("<h3>What changed in the environment</h3>\n");
    if c.environment_changes.is_empty() {
        return out + &empty("No differences recorded between the two sides' environments.");
    }
    out.push_str("<table>\n<thead><tr><th>Fact</th><th>Baseline</th><th>Candidate</th></tr></thead>\n<tbody>\n");
    for e in &c.environment_changes {
        let values = change_cells(e);
        let pairs: Vec<(&str, bool)> = values.iter().map(|v| (v.as_str(), false)).collect();
        let _ = writeln!(out, "<tr>{}</tr>", table_cells(&pairs, "td"));
    }
    out.push_str("</tbody>\n</table>\n");
    if let Some(sentence) = machine_sentence(c) {
        let _ = writeln!(out, "<p class=\"note\">{}.</p>", escape(sentence));
    }
    out
}

fn rows_html(c: &Comparison, unit: RateUnit) -> String {
    let mut out = String::from("<h3>Rows</h3>\n");
    if c.rows.is_empty() {
        return out + &empty("No rows in common between the two sides.");
    }
    let unit = resolved(c, unit);
    let header = header_scale(c, unit);
    // wider than a narrow window: it scrolls on screen rather than squeezing the figures
    out.push_str("<div class=\"wide\">\n<table class=\"rows\">\n<thead><tr>");
    let headers = row_headers(c, unit);
    let mut names: Vec<(&str, bool)> = headers.iter().map(|(h, n)| (h.as_str(), *n)).collect();
    names.push(("Verdict", false));
    out.push_str(&table_cells(&names, "th"));
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &c.rows {
        out.push_str(&row_html(row, &headers, header));
    }
    out + "</tbody>\n</table>\n</div>\n"
}

fn row_html(row: &Row, headers: &[(String, bool)], header: Scale) -> String {
    let values = row_cells(row, header);
    let pairs: Vec<(&str, bool)> = values
        .iter()
        .zip(headers)
        .map(|(text, (_, numeric))| (text.as_str(), *numeric))
        .collect();
    let name = row.verdict.name();
    // the noise has a column: under the verdict, where it came from and any note
    let why = explanation(row).map_or(String::new(), |why| {
        format!("<span class=\"why\">{}</span>", escape(&why))
    });
    format!(
        "<tr class=\"{name}\">{}<td><span class=\"badge {name}\">{name}</span>{why}</td></tr>\n",
        table_cells(&pairs, "td")
    )
}

fn verdict_color(v: Verdict) -> &'static str {
    match v {
        Verdict::Regression => "#c62828",
        Verdict::Improvement => "#2e7d32",
        Verdict::Inconclusive => "#e0a100",
        Verdict::Unchanged => "#9e9e9e",
    }
}

fn change_chart(c: &Comparison) -> String {
    if c.rows.is_empty() {
        return String::new();
    }
    let bars = c
        .rows
        .iter()
        .map(|row| Bar {
            label: key_name(&row.key),
            value: Some(row.change_pct),
            interval: row.ci_low_pct.zip(row.ci_high_pct),
            color: verdict_color(row.verdict),
            tip: format!(
                "{}: {} {}, {}",
                key_name(&row.key),
                change(row.change_pct),
                ci(row),
                row.verdict.name()
            ),
        })
        .collect();
    let chart = BarChart {
        width: 720.0,
        title: "Change of the median per row".into(),
        threshold: c.threshold_pct,
        bars,
    };
    format!(
        "<figure class=\"chart changes\">\n<h3>Change per row</h3>\n{}\n<figcaption>Drops to the left, \
         gains to the right, with the {} interval; red: regression, green: improvement, amber: \
         inconclusive, grey: unchanged. An arrowhead at the edge marks a change or an interval cut \
         there: its true value is printed on the right or shown on hovering.</figcaption>\n</figure>\n",
        chart.to_svg(),
        level(c.ci_level_pct)
    )
}

fn summary_html(c: &Comparison) -> String {
    if c.summary.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h3>Per test</h3>\n<table>\n<thead><tr>");
    out.push_str(&table_cells(&SUMMARY_HEADERS, "th"));
    out.push_str("</tr></thead>\n<tbody>\n");
    for s in &c.summary {
        let values = summary_cells(s);
        let pairs: Vec<(&str, bool)> = values
            .iter()
            .zip(SUMMARY_HEADERS)
            .map(|(text, (_, numeric))| (text.as_str(), numeric))
            .collect();
        let _ = writeln!(out, "<tr>{}</tr>", table_cells(&pairs, "td"));
    }
    out + "</tbody>\n</table>\n"
}

fn verdict_note(c: &Comparison) -> String {
    let mut text = rule_sentence(c);
    for line in needed_sentences(c) {
        text.push(' ');
        text.push_str(&line);
    }
    for sentence in one_sided_sentences(c) {
        text.push_str(&format!(" {sentence}."));
    }
    format!("<p class=\"note\">{}</p>\n", escape(&text))
}
