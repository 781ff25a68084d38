//! The ledger's history page (`harness ledger history --html FILE`): for each series (an engine
//! name under one conditions class), Elo over commits with 95% interval bars, then the table
//! of its builds. One self-contained page in the style of `report.html`.

use super::chart::{commits_chart, EloBar};
use super::html::{esc, CSS};
use std::fmt::Write;

/// How a history page's reader names another anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnchorBy {
    /// `harness ledger history --anchor BUILD`.
    Flag,
    /// `?anchor=BUILD` on the address of the page `serve` shows.
    Address,
}

/// One series of the page.
pub struct CommitSeries {
    /// The engine name.
    pub engine: String,
    /// Its conditions class as `ledger history` words it (`1s+0.01s, xot-large (10784
    /// openings), margin 0.2 s, stall 60 s`), and its number there (from 1).
    pub conditions: String,
    pub class: usize,
    /// What the series' Elo is relative to (a build as a person reads it), and whether
    /// `--anchor` named it; `None` when no build of the series is rated.
    pub anchor: Option<(String, bool)>,
    /// How the page's reader names another anchor: `ledger history --html`'s page by the
    /// flag, the page `serve` shows by its address.
    pub anchor_by: AnchorBy,
    /// The builds in commit order.
    pub builds: Vec<CommitBuild>,
}

/// One build (a player: a plugin digest with its options) of a series.
pub struct CommitBuild {
    /// Every commit that claims it, then its labels (either may be empty).
    pub commits: Vec<String>,
    pub labels: Vec<String>,
    pub digest: String,
    /// Elo against the anchor with its 95% interval; `None` without a rated game.
    pub elo: Option<(f64, f64, f64)>,
    pub games: u32,
    pub runs: usize,
    pub verdicts: Vec<String>,
    /// Whether the builds' dates fix its place (else it is placed in the order recorded).
    pub order_known: bool,
}

impl CommitBuild {
    /// The build's short name on the chart's axis: its first label, else its first commit (12
    /// characters), else its digest's first 8; a label that other builds of the series share
    /// (a branch name such as `main`, which CI sets for every push) gets the commit's first 7
    /// beside it, so that the points can be told apart; with a `?` when no date fixes its
    /// place.
    fn tick(&self, shared_label: bool) -> String {
        let commit = |n: usize| {
            self.commits
                .first()
                .map(|c| c.chars().take(n).collect::<String>())
        };
        let name: String = match (self.labels.first(), commit(12)) {
            (Some(l), _) if shared_label => match commit(7) {
                Some(c) => format!("{l} {c}"),
                None => format!("{l} {}", self.digest.chars().take(8).collect::<String>()),
            },
            (Some(l), _) => l.clone(),
            (None, Some(c)) => c,
            (None, None) => self.digest.chars().take(8).collect(),
        };
        if self.order_known {
            name
        } else {
            format!("{name}?")
        }
    }
}

/// The page of `series`, each saying what its Elo is relative to.
pub fn html(series: &[CommitSeries]) -> anyhow::Result<String> {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Elo over commits</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n\
         <h1>Elo over commits</h1>\n<p class=\"meta\">From the results ledger: every \
         comparable result rated jointly (Bradley-Terry), one series per engine name and \
         conditions class; each series' Elo against the build its heading names, with 95% \
         intervals.</p>\n"
    );
    if series.is_empty() {
        let _ = writeln!(s, "<p>The ledger holds no run yet.</p>");
    }
    for (i, one) in series.iter().enumerate() {
        series_section(&mut s, i, one)?;
    }
    let _ = writeln!(
        s,
        "<footer>Written by <code>harness ledger history --html</code>.</footer>\n\
         </main>\n</body>\n</html>"
    );
    Ok(s)
}

/// One series: its heading, its chart and its table.
fn series_section(s: &mut String, i: usize, one: &CommitSeries) -> anyhow::Result<()> {
    let shared = |label: Option<&String>| {
        label.is_some_and(|l| {
            one.builds
                .iter()
                .filter(|b| b.labels.first() == Some(l))
                .count()
                > 1
        })
    };
    let points: Vec<(String, Option<EloBar>)> = one
        .builds
        .iter()
        .map(|b| (b.tick(shared(b.labels.first())), b.elo))
        .collect();
    let _ = write!(
        s,
        "<h2 id=\"series-{}\">{} under conditions #{}</h2>\n\
         <p class=\"meta anchor\">{}</p>\n\
         <p class=\"meta\">Conditions: {}</p>\n\
         <div class=\"charts\"><figure>{}<figcaption>Each point a build in commit order (the \
         builds' dates, else the order recorded: no date fixes the place of a build marked ?); \
         bars are 95% intervals.</figcaption>\
         </figure></div>\n",
        i + 1,
        esc(&one.engine),
        one.class,
        match &one.anchor {
            Some((build, true)) => format!(
                "Elo against <code>{}</code> (named by {})",
                esc(build),
                match one.anchor_by {
                    AnchorBy::Flag => "--anchor",
                    AnchorBy::Address => "the page's address",
                }
            ),
            Some((build, false)) => format!(
                "Elo against <code>{}</code>, the series' first rated build ({})",
                esc(build),
                match one.anchor_by {
                    AnchorBy::Flag => "--anchor BUILD picks another",
                    AnchorBy::Address =>
                        "<code>?anchor=BUILD</code> on this page's address picks another",
                }
            ),
            None => "No build of this series is rated.".to_string(),
        },
        esc(&one.conditions),
        commits_chart(&points)?
    );
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><table class=\"builds\"><thead><tr><th class=\"l\">commits</th>\
         <th class=\"l\">labels</th><th class=\"l\">digest</th><th>Elo</th><th>95% interval</th>\
         <th>games</th><th>runs</th><th class=\"l\">verdicts</th></tr></thead><tbody>"
    );
    for b in &one.builds {
        let (elo, interval) = match b.elo {
            Some((e, l, h)) => (
                format!("<span class=\"{}\">{e:+.1}</span>", sign_class(e)),
                format!("[{l:+.1}, {h:+.1}]"),
            ),
            None => ("–".to_string(), "–".to_string()),
        };
        let _ = writeln!(
            s,
            "<tr><td class=\"l\"><code>{}</code></td><td class=\"l\">{}</td>\
             <td class=\"l\"><code>{}</code></td><td>{elo}</td><td>{interval}</td>\
             <td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&b.commits.join(", ")),
            esc(&b.labels.join(", ")),
            esc(&b.digest.chars().take(16).collect::<String>()),
            b.games,
            b.runs,
            esc(&b.verdicts.join(", "))
        );
    }
    let _ = writeln!(s, "</tbody></table></div>");
    Ok(())
}

fn sign_class(elo: f64) -> &'static str {
    if elo > 0.0 {
        "pos"
    } else if elo < 0.0 {
        "neg"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(commit: &str, elo: Option<(f64, f64, f64)>) -> CommitBuild {
        CommitBuild {
            commits: vec![commit.to_string()],
            labels: Vec::new(),
            digest: "0123456789abcdef".into(),
            elo,
            games: 10,
            runs: 1,
            verdicts: vec!["pass".into()],
            order_known: true,
        }
    }

    #[test]
    fn every_rated_build_is_a_point_with_a_bar_and_a_row() {
        let series = [CommitSeries {
            engine: "mine<1>".into(),
            conditions: "{\"time\":\"depth 2\"}".into(),
            class: 1,
            anchor: Some(("mine@aaaa (digest 01234567)".into(), true)),
            anchor_by: AnchorBy::Flag,
            builds: vec![
                build("aaaaaaaaaaaaaaaa", Some((0.0, -20.0, 20.0))),
                build("bbbb", Some((-150.0, -190.0, -110.0))),
                build("cccc", None),
            ],
        }];
        let page = html(&series).unwrap();
        assert_eq!(page.matches("<circle").count(), 2, "{page}");
        assert_eq!(page.matches("<tr><td").count(), 3);
        assert!(page.contains("mine&lt;1&gt; under conditions #1"));
        assert!(page.contains("<span class=\"neg\">-150.0</span>"));
        assert!(page.contains("Elo against <code>mine@aaaa (digest 01234567)</code> (named by"));
        // Tick labels are the short commits.
        assert!(page.contains("\naaaaaaaaaaaa\n</text>"), "{page}");
        assert!(!page.contains("<script"), "the page needs no script");
    }

    /// Builds that share a label (CI sets `main` for every push) are told apart on the axis
    /// by their commits; a label of one build alone stays as it is. The page `serve` shows
    /// does not offer `--anchor`, which `serve` does not take.
    #[test]
    fn shared_labels_get_their_commits_and_serve_offers_no_flag() {
        let labelled = |commit: &str, label: &str| CommitBuild {
            labels: vec![label.into()],
            ..build(commit, Some((0.0, -20.0, 20.0)))
        };
        let series = [CommitSeries {
            engine: "mine".into(),
            conditions: "depth 2, xot-small (3623 openings), margin 0.2 s, stall 10 s".into(),
            class: 1,
            anchor: Some(("mine@1111111".into(), false)),
            anchor_by: AnchorBy::Address,
            builds: vec![
                labelled("1111111aaaa", "main"),
                labelled("2222222bbbb", "main"),
                labelled("3333333cccc", "v1.2"),
            ],
        }];
        let page = html(&series).unwrap();
        for tick in [
            "\nmain 1111111\n</text>",
            "\nmain 2222222\n</text>",
            "\nv1.2\n</text>",
        ] {
            assert!(page.contains(tick), "no tick {tick:?} in {page}");
        }
        assert!(!page.contains("--anchor BUILD picks"), "{page}");
        assert!(page.contains("?anchor=BUILD</code> on this page"), "{page}");
        assert!(page.contains("Conditions: depth 2, xot-small"), "{page}");
    }
}
