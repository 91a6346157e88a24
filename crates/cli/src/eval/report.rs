//! What a result file says: a table per task with the totals and medians, ending in `solved
//! N/M` (with a 95% confidence interval when tasks ran more than once); and two result files
//! side by side.

use std::fmt::Write;

use super::record::RunRecord;

/// The runs of one task, in the order they appear.
struct TaskRuns<'a> {
    id: &'a str,
    runs: Vec<&'a RunRecord>,
}

impl TaskRuns<'_> {
    fn solved(&self) -> usize {
        self.runs.iter().filter(|r| r.solved).count()
    }
}

fn by_task(records: &[RunRecord]) -> Vec<TaskRuns<'_>> {
    let mut tasks: Vec<TaskRuns<'_>> = Vec::new();
    for record in records {
        match tasks.iter_mut().find(|t| t.id == record.id) {
            Some(task) => task.runs.push(record),
            None => tasks.push(TaskRuns {
                id: &record.id,
                runs: vec![record],
            }),
        }
    }
    tasks
}

/// Sums over runs.
#[derive(Debug, Default)]
struct Totals {
    runs: usize,
    solved: usize,
    input: u64,
    cached: u64,
    output: u64,
    cost: Option<f64>,
    wall: f64,
    tool_calls: u64,
}

impl Totals {
    fn of<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Self {
        let mut totals = Self::default();
        for run in runs {
            totals.runs += 1;
            totals.solved += usize::from(run.solved);
            totals.input += run.input_tokens;
            totals.cached += run.cached_tokens;
            totals.output += run.output_tokens;
            totals.tool_calls += u64::from(run.tool_calls);
            if let Some(cost) = run.cost_usd {
                *totals.cost.get_or_insert(0.0) += cost;
            }
            totals.wall += run.wall_s;
        }
        totals
    }
}

const HEADER: [&str; 10] = [
    "task", "solved", "turns", "tools", "input", "cached", "output", "cost", "time", "ended",
];

/// The summary of `records`: one row per task, the totals, the medians per run, then
/// `solved N/M`.
pub fn summary(records: &[RunRecord]) -> String {
    let tasks = by_task(records);
    let mut rows: Vec<Vec<String>> = vec![HEADER.iter().map(|h| h.to_string()).collect()];
    for task in &tasks {
        let totals = Totals::of(task.runs.iter().copied());
        let turns: Vec<f64> = task.runs.iter().map(|r| f64::from(r.turns)).collect();
        let mut ended: Vec<&str> = Vec::new();
        for run in &task.runs {
            let word = run.ended_by.word();
            if !ended.contains(&word) {
                ended.push(word);
            }
        }
        rows.push(vec![
            task.id.to_string(),
            format!("{}/{}", totals.solved, totals.runs),
            number(median(&turns)),
            totals.tool_calls.to_string(),
            totals.input.to_string(),
            totals.cached.to_string(),
            totals.output.to_string(),
            usd(totals.cost),
            seconds(totals.wall),
            ended.join(","),
        ]);
    }
    let all = Totals::of(records);
    rows.push(vec![
        "total".into(),
        format!("{}/{}", all.solved, all.runs),
        records
            .iter()
            .map(|r| u64::from(r.turns))
            .sum::<u64>()
            .to_string(),
        all.tool_calls.to_string(),
        all.input.to_string(),
        all.cached.to_string(),
        all.output.to_string(),
        usd(all.cost),
        seconds(all.wall),
        String::new(),
    ]);
    rows.push(medians(records));
    let mut out = table(&rows);
    out.push_str(&solved_line(&tasks, &all));
    out.push('\n');
    out
}

/// The median run: turns, tool calls, tokens, cost, time.
fn medians(records: &[RunRecord]) -> Vec<String> {
    let of = |f: &dyn Fn(&RunRecord) -> f64| {
        let values: Vec<f64> = records.iter().map(f).collect();
        median(&values)
    };
    let costs: Vec<f64> = records.iter().filter_map(|r| r.cost_usd).collect();
    vec![
        "median".into(),
        String::new(),
        number(of(&|r| f64::from(r.turns))),
        number(of(&|r| f64::from(r.tool_calls))),
        number(of(&|r| r.input_tokens as f64)),
        number(of(&|r| r.cached_tokens as f64)),
        number(of(&|r| r.output_tokens as f64)),
        usd((!costs.is_empty()).then(|| median(&costs))),
        seconds(of(&|r| r.wall_s)),
        String::new(),
    ]
}

/// `solved N/M`, with the share and its 95% Wilson interval when some task ran more than once.
fn solved_line(tasks: &[TaskRuns<'_>], all: &Totals) -> String {
    let repeated = tasks.iter().any(|t| t.runs.len() > 1);
    let mut line = format!("solved {}/{}", all.solved, all.runs);
    if repeated && all.runs > 0 {
        let (low, high) = wilson(all.solved, all.runs);
        let share = all.solved as f64 / all.runs as f64;
        let _ = write!(
            line,
            " ({:.1}%, 95% CI {:.1}–{:.1}%)",
            share * 100.0,
            low * 100.0,
            high * 100.0
        );
    }
    line
}

/// Two result files task by task (tasks of either), then their totals.
pub fn compare(a: &[RunRecord], b: &[RunRecord], names: (&str, &str)) -> String {
    let (tasks_a, tasks_b) = (by_task(a), by_task(b));
    let mut ids: Vec<&str> = tasks_a.iter().map(|t| t.id).collect();
    for task in &tasks_b {
        if !ids.contains(&task.id) {
            ids.push(task.id);
        }
    }
    let find = |tasks: &'_ [TaskRuns<'_>], id: &str| {
        tasks
            .iter()
            .find(|t| t.id == id)
            .map(|t| (t.solved(), t.runs.len()))
    };
    let mut rows = vec![vec![
        "task".to_string(),
        names.0.to_string(),
        names.1.to_string(),
        String::new(),
    ]];
    for id in ids {
        let (left, right) = (find(&tasks_a, id), find(&tasks_b, id));
        let show = |side: Option<(usize, usize)>| {
            side.map_or("-".to_string(), |(solved, runs)| format!("{solved}/{runs}"))
        };
        let change = match (left, right) {
            (Some((sa, na)), Some((sb, nb))) => {
                // Compared as shares, so different repeat counts compare fairly.
                let (ra, rb) = (sa as f64 / na as f64, sb as f64 / nb as f64);
                if rb > ra {
                    "better"
                } else if rb < ra {
                    "worse"
                } else {
                    ""
                }
            }
            _ => "only one",
        };
        rows.push(vec![id.to_string(), show(left), show(right), change.into()]);
    }
    let (ta, tb) = (Totals::of(a), Totals::of(b));
    let pair = |label: &str, f: &dyn Fn(&Totals) -> String| {
        vec![label.to_string(), f(&ta), f(&tb), String::new()]
    };
    rows.push(pair("solved", &|t| format!("{}/{}", t.solved, t.runs)));
    rows.push(pair("input", &|t| t.input.to_string()));
    rows.push(pair("cached", &|t| t.cached.to_string()));
    rows.push(pair("output", &|t| t.output.to_string()));
    rows.push(pair("cost", &|t| usd(t.cost)));
    rows.push(pair("time", &|t| seconds(t.wall)));
    table(&rows)
}

/// Columns padded to their widest cell (left-aligned), trailing spaces trimmed.
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (cell, width) in row.iter().zip(&widths) {
            let _ = write!(line, "{cell:<width$}  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

/// The 95% Wilson score interval of `solved` out of `runs`.
fn wilson(solved: usize, runs: usize) -> (f64, f64) {
    let z = 1.959_964_f64;
    let n = runs as f64;
    let p = solved as f64 / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A count or a median: whole numbers without decimals.
fn number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

fn usd(cost: Option<f64>) -> String {
    cost.map_or("-".to_string(), |c| format!("${c:.4}"))
}

fn seconds(value: f64) -> String {
    format!("{value:.1}s")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::record::{CheckOutcome, EndedBy};

    fn run(id: &str, run: u32, solved: bool) -> RunRecord {
        RunRecord {
            id: id.into(),
            run,
            solved,
            check: if solved {
                CheckOutcome::Passed
            } else {
                CheckOutcome::Failed
            },
            ended_by: EndedBy::Done,
            turns: 2,
            tool_calls: 1,
            input_tokens: 100,
            cached_tokens: 40,
            output_tokens: 10,
            cost_usd: Some(0.01),
            wall_s: 1.5,
            session_id: None,
            model: None,
            error: None,
            workspace: None,
        }
    }

    #[test]
    fn the_summary_sums_the_runs_and_ends_with_the_solved_line() {
        let records = vec![run("a", 1, true), run("b", 1, false), run("c", 1, true)];
        let text = summary(&records);
        assert!(text.ends_with("solved 2/3\n"), "{text}");
        let total = text.lines().find(|l| l.starts_with("total")).unwrap();
        let cells: Vec<&str> = total.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "total", "2/3", "6", "3", "300", "120", "30", "$0.0300", "4.5s"
            ]
        );
    }

    #[test]
    fn repeated_runs_get_a_confidence_interval() {
        let records: Vec<RunRecord> = (1..=4)
            .flat_map(|i| [run("a", i, true), run("b", i, i == 1)])
            .collect();
        let text = summary(&records);
        // 5 of 8: Wilson's 95% interval is 30.6%–86.3%.
        assert!(
            text.ends_with("solved 5/8 (62.5%, 95% CI 30.6–86.3%)\n"),
            "{text}"
        );
        assert!(text.contains("a       4/4"), "{text}");
    }

    #[test]
    fn compare_shows_each_task_and_who_solved_it() {
        let a = vec![
            run("x", 1, true),
            run("y", 1, false),
            run("only-a", 1, true),
        ];
        let b = vec![
            run("x", 1, false),
            run("y", 1, true),
            run("only-b", 1, true),
        ];
        let text = compare(&a, &b, ("A", "B"));
        let row = |id: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(id))
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
        };
        assert_eq!(row("x"), ["x", "1/1", "0/1", "worse"]);
        assert_eq!(row("y"), ["y", "0/1", "1/1", "better"]);
        assert_eq!(row("only-a"), ["only-a", "1/1", "-", "only", "one"]);
        assert_eq!(row("solved"), ["solved", "2/3", "2/3"]);
    }
}
