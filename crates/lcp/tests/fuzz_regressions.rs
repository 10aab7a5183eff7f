//! The fuzzer's interesting inputs, kept as regression tests.
//!
//! Every file in `tests/fuzz_corpus/` is a problem file (most were written by the fuzz
//! targets' `STICTION_FUZZ_DUMP` from a crashing or slow input; a few are malformed text
//! found by the `lcp_json` target). Each is read, written back and read again, and both of
//! its readings go to every solver in every variant the fuzz targets use, with the same
//! assertions (`fuzz/src/check.rs`, included below): no panic, and `Solved` only for a
//! finite answer that passes the solver's own residual rule.
//!
//! A few cases also pin down what the fix behind them promised (the tests after
//! `whole_corpus_keeps_every_property`).

// The fuzz targets' own checks, so the corpus is held to exactly what the fuzzer held it to
// (`check_defaults` serves only the `lcp_json` target).
#[allow(dead_code)]
#[path = "../../../fuzz/src/check.rs"]
mod check;

use std::fs;
use std::path::PathBuf;

use stiction_lcp::json::parse_problem;
use stiction_lcp::{boxed_residual, BoxedLcp};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus")
}

fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(corpus_dir())
        .expect("tests/fuzz_corpus exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = fs::read_to_string(&path).expect("corpus files are UTF-8");
            (name, text)
        })
        .collect();
    files.sort();
    files
}

fn load(name: &str) -> BoxedLcp {
    let text = fs::read_to_string(corpus_dir().join(name)).expect("corpus file exists");
    parse_problem(&text)
        .and_then(|f| f.into_boxed())
        .expect("corpus problem is valid")
}

#[test]
fn whole_corpus_keeps_every_property() {
    let files = corpus();
    assert!(
        files.len() >= 5,
        "the corpus went missing: {} files",
        files.len()
    );
    for (name, text) in &files {
        // A panic names the file, so the failing case is easy to find.
        let outcome = std::panic::catch_unwind(|| check::check_json(text, check::check_all));
        if let Err(cause) = outcome {
            let message = cause
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| cause.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{name}: {message}");
        }
    }
}

/// Found by the `dantzig` target: an indefinite 2x2 problem drove a pivot to infinity, and
/// `boxed_residual` then panicked in `f64::clamp` on the NaN bounds `inf / inf` made. The
/// residual of a non-finite answer must be infinite (a NaN used to be dropped by `f64::max`).
#[test]
fn residual_of_a_non_finite_answer_is_infinite() {
    let p = load("dantzig_infinite_x_residual_panic.json");
    let r = boxed_residual(&p, &[f64::INFINITY, -65.535], &[f64::NAN, f64::INFINITY]);
    assert_eq!(r.max(), f64::INFINITY);
    assert_eq!(r.complementarity, f64::INFINITY);
    // A friction row whose normal force is NaN gets NaN bounds: no panic either.
    let mut q = p.clone();
    q.findex[0] = Some(1);
    q.hi[0] = 0.5;
    let r = boxed_residual(&q, &[1.0, f64::NAN], &[0.0, 0.0]);
    assert_eq!(r.max(), f64::INFINITY);
    let standard = check::standard_reading(&p);
    let r = stiction_lcp::standard_residual(&standard, &[f64::NAN, 0.0], &[0.0, 0.0]);
    assert_eq!(r.max(), f64::INFINITY);
}

/// Found by the `mlcp` target: with an LU that accepts any nonzero pivot, `A^-1 a`
/// overflowed while the (empty) reduced LCP was solved, and the solution said `Solved` with
/// `u = [inf, ...]`.
#[test]
fn mlcp_with_an_overflowing_free_block_is_not_solved() {
    use stiction_lcp::lemke::LemkeOptions;
    use stiction_lcp::mlcp::{solve_mlcp_with, ReductionOptions};
    let mixed = check::mixed_reading(&load("mlcp_free_block_overflow.json"));
    let any_pivot = ReductionOptions {
        singular_pivot_tolerance: 0.0,
        ..ReductionOptions::default()
    };
    let s = solve_mlcp_with(&mixed, &any_pivot, &LemkeOptions::default()).unwrap();
    assert!(s.u.iter().any(|v| !v.is_finite()));
    assert_eq!(s.report.status, stiction_lcp::Status::NonFinite);
    // The default reduction sees the tiny pivots and regularises instead: finite and solved.
    let s = solve_mlcp_with(
        &mixed,
        &ReductionOptions::default(),
        &LemkeOptions::default(),
    )
    .unwrap();
    assert!(s.regularised);
    assert!(s.u.iter().all(|v| v.is_finite()));
    assert!(s.report.status.is_solved());
}

/// Found by the `lcp_json` target: serde_json's default number parser read `12e-308` one
/// ulp off, so `to_json` wrote a different number back. The exact reading is Rust's own.
#[test]
fn problem_file_numbers_are_read_exactly() {
    let p = load("json_subnormal_decimal_roundtrip.json");
    assert_eq!(
        p.a[(1, 0)].to_bits(),
        "12e-308".parse::<f64>().unwrap().to_bits()
    );
    for text in [
        "0.30000000000000004",
        "1.1999999999999999e-307",
        "5e-324",
        "1.7976931348623157e308",
    ] {
        let file = format!(r#"{{"a": [[{text}]], "b": [{text}]}}"#);
        let q = parse_problem(&file).unwrap().into_boxed().unwrap();
        let exact: f64 = text.parse().unwrap();
        assert_eq!(q.b[0].to_bits(), exact.to_bits(), "{text}");
    }
}
