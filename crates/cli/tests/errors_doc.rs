//! docs/errors.md cannot go stale: every command it shows is run again here, in a directory
//! holding the files it shows, and must print exactly what the page says (stdout, then
//! stderr; a `[...]` line stands for any lines) and exit with the status the page gives
//! (`$ echo $?`). The engine messages it quotes (`text engine=CASE` blocks) are provoked
//! through the Rust API and compared too. The "Snapshots" section is skipped: its inputs are
//! binary files made by an earlier run, and tests/snapshot_cli.rs provokes each of its
//! messages. The page's introduction describes these conventions for readers.

mod common;

use std::path::{Path, PathBuf};

use common::{output, stiction, texts};
use stiction::math::Vec3;
use stiction::{ColliderBuilder, RigidBodyBuilder, Softness, World, WorldSettings};

fn page() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fenced code block: its info string, its lines and the line it starts on.
struct Block {
    info: String,
    lines: Vec<String>,
    line: usize,
}

/// The page's code blocks outside the skipped section.
fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut skipping = false;
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(block) = open.as_mut() {
            if line.starts_with("```") {
                blocks.extend(open.take().filter(|_| !skipping));
            } else {
                block.lines.push(line.to_string());
            }
        } else if let Some(title) = line.strip_prefix("## ") {
            skipping = title.trim() == "Snapshots";
        } else if let Some(info) = line.strip_prefix("```") {
            open = Some(Block {
                info: info.trim().to_string(),
                lines: Vec::new(),
                line: i + 1,
            });
        }
    }
    assert!(open.is_none(), "docs/errors.md: a code block is not closed");
    blocks
}

fn attribute<'a>(info: &'a str, key: &str) -> Option<&'a str> {
    info.split_whitespace()
        .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
}

/// One `$ stiction ...` of a console block, with what the page says it prints.
struct Case {
    args: Vec<String>,
    expected: Vec<String>,
    status: Option<i32>,
    line: usize,
}

fn cases(block: &Block) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut lines = block.lines.iter().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let line_no = block.line + 1 + i;
        let Some(command) = line.strip_prefix("$ ") else {
            let last = cases.last_mut().unwrap_or_else(|| {
                panic!("docs/errors.md:{line_no}: output before any command: {line}")
            });
            last.expected.push(line.clone());
            continue;
        };
        if command == "echo $?" {
            let (_, status) = lines.next().expect("a status after `echo $?`");
            let last = cases.last_mut().expect("`echo $?` after a command");
            last.status = Some(status.trim().parse().expect("a numeric exit status"));
            continue;
        }
        let mut words = command.split_whitespace().map(str::to_string);
        assert_eq!(
            words.next().as_deref(),
            Some("stiction"),
            "docs/errors.md:{line_no}"
        );
        cases.push(Case {
            args: words.collect(),
            expected: Vec::new(),
            status: None,
            line: line_no,
        });
    }
    cases
}

/// Whether `actual` matches `expected`, where a `[...]` line matches any number of lines.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "[...]" => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, others)| line == first && matches(rest, others)),
    }
}

fn write_files(dir: &Path, blocks: &[Block]) -> usize {
    let mut written = 0;
    for block in blocks {
        if let Some(name) = attribute(&block.info, "file") {
            let path: PathBuf = dir.join(name);
            assert!(!path.exists(), "docs/errors.md: two files named {name}");
            std::fs::write(&path, block.lines.join("\n") + "\n").unwrap();
            written += 1;
        }
    }
    written
}

#[test]
fn every_documented_command_prints_exactly_what_the_page_says() {
    let text = page();
    let blocks = blocks(&text);
    let dir = tempfile::tempdir().unwrap();
    let files = write_files(dir.path(), &blocks);
    assert!(
        files >= 40,
        "only {files} example files: the page lost its examples"
    );
    let mut failures = Vec::new();
    let mut run = 0;
    for block in blocks.iter().filter(|b| b.info == "console") {
        for case in cases(block) {
            run += 1;
            let result = output(stiction().current_dir(dir.path()).args(&case.args));
            let (stdout, stderr) = texts(&result);
            let printed = format!("{stdout}{stderr}");
            let actual: Vec<&str> = printed.lines().collect();
            let status = result.status.code();
            let status_ok = case.status.is_none_or(|s| Some(s) == status);
            if !matches(&case.expected, &actual) || !status_ok {
                failures.push(format!(
                    "docs/errors.md:{}: stiction {}\n  page says (exit {:?}):\n    {}\n  prints (exit {status:?}):\n    {}",
                    case.line,
                    case.args.join(" "),
                    case.status,
                    case.expected.join("\n    "),
                    actual.join("\n    ")
                ));
            }
        }
    }
    assert!(run >= 50, "only {run} commands: the page lost its examples");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The engine error each `text engine=CASE` block quotes, provoked through the API.
fn engine_message(case: &str) -> String {
    match case {
        "step" => World::new().step(0.0).unwrap_err().to_string(),
        "erp" => World::with_settings(WorldSettings {
            softness: Softness {
                erp: 1.5,
                cfm: 1e-5,
            },
            ..WorldSettings::default()
        })
        .unwrap_err()
        .to_string(),
        "collider" => ColliderBuilder::ball(-1.0).unwrap_err().to_string(),
        "joint" => {
            let mut world = World::new();
            let body = world.add_body(RigidBodyBuilder::dynamic().build().unwrap());
            world
                .add_ball_joint(body, Some(body), Vec3::ZERO)
                .unwrap_err()
                .to_string()
        }
        "body" => RigidBodyBuilder::dynamic()
            .position(Vec3::new(f64::NAN, 0.0, 0.0))
            .build()
            .unwrap_err()
            .to_string(),
        "stale" => {
            let mut world = World::new();
            let body = world.add_body(RigidBodyBuilder::dynamic().build().unwrap());
            world.remove_body(body).unwrap();
            world.body(body).unwrap_err().to_string()
        }
        other => panic!("docs/errors.md quotes an engine case the test does not know: {other}"),
    }
}

#[test]
fn every_quoted_engine_message_is_what_the_engine_says() {
    let text = page();
    let mut checked = 0;
    for block in blocks(&text) {
        let Some(case) = attribute(&block.info, "engine") else {
            continue;
        };
        let quoted = block.lines.join("\n");
        assert_eq!(
            quoted,
            engine_message(case),
            "docs/errors.md:{}: engine case {case}",
            block.line
        );
        checked += 1;
    }
    assert_eq!(checked, 6, "the page quotes six engine messages");
}

#[test]
fn wildcards_match_any_lines_and_nothing_else() {
    let page = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(&page(&["a", "[...]", "z"]), &["a", "b", "c", "z"]));
    assert!(matches(&page(&["a", "[...]", "z"]), &["a", "z"]));
    assert!(!matches(&page(&["a", "[...]", "z"]), &["a", "b"]));
    assert!(!matches(&page(&["a"]), &["a", "b"]));
    assert!(!matches(&page(&["a", "b"]), &["a"]));
}
