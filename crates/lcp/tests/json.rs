//! The JSON problem file: every accepted spelling reads to the intended number, omitted
//! fields take their documented defaults, every malformed file is rejected with the typed
//! error naming the offending field (never a panic), and `to_json` followed by
//! `parse_problem` gives back exactly the problem it wrote.

use stiction_lcp::json::{parse_problem, to_json, ProblemFile};
use stiction_lcp::{BoxedLcp, DenseMatrix, LcpError, StandardLcp};

const INF: f64 = f64::INFINITY;

fn boxed(text: &str) -> Result<BoxedLcp, LcpError> {
    parse_problem(text)?.into_boxed()
}

fn standard(text: &str) -> Result<StandardLcp, LcpError> {
    parse_problem(text)?.into_standard()
}

/// A 3-row file with the given `lo` and `hi` JSON arrays and no coupling.
fn with_bounds(lo: &str, hi: &str) -> String {
    format!(r#"{{"a": [[1,0,0],[0,1,0],[0,0,1]], "b": [0,0,0], "lo": {lo}, "hi": {hi}}}"#)
}

#[test]
fn every_spelling_of_infinity_is_read() {
    let p = boxed(&with_bounds(
        r#"["-inf", "-INF", "-Infinity"]"#,
        r#"["inf", "+inf", "INFINITY"]"#,
    ))
    .unwrap();
    assert_eq!(p.lo, vec![-INF; 3]);
    assert_eq!(p.hi, vec![INF; 3]);

    let p = boxed(&with_bounds(
        r#"["-infinity", -1, -2.5]"#,
        r#"["+Infinity", "+INF", 3]"#,
    ))
    .unwrap();
    assert_eq!(p.lo, vec![-INF, -1.0, -2.5]);
    assert_eq!(p.hi, vec![INF, INF, 3.0]);
}

#[test]
fn null_is_the_open_end_of_its_side() {
    let p = boxed(&with_bounds("[null, 0, null]", "[null, null, 1e3]")).unwrap();
    assert_eq!(p.lo, vec![-INF, 0.0, -INF]);
    assert_eq!(p.hi, vec![INF, INF, 1000.0]);
}

#[test]
fn null_optional_fields_read_as_omitted() {
    let file =
        parse_problem(r#"{"a": [[2]], "b": [4], "lo": null, "hi": null, "findex": null}"#).unwrap();
    assert_eq!((file.lo, file.hi, file.findex), (None, None, None));
}

#[test]
fn omitted_fields_take_the_standard_lcp_defaults() {
    let file = parse_problem(r#"{"a": [[2, 1], [1, 3]], "b": [4, 1]}"#).unwrap();
    assert_eq!(file.lo, None);
    assert_eq!(file.hi, None);
    assert_eq!(file.findex, None);
    assert_eq!(file.nub, 0);
    let p = file.into_boxed().unwrap();
    assert_eq!(
        p.a,
        DenseMatrix::from_rows(&[[2.0, 1.0], [1.0, 3.0]]).unwrap()
    );
    assert_eq!(p.b, vec![4.0, 1.0]);
    assert_eq!(p.lo, vec![0.0, 0.0]);
    assert_eq!(p.hi, vec![INF, INF]);
    assert_eq!(p.findex, vec![None, None]);
    assert_eq!(p.nub, 0);
}

#[test]
fn omitted_bounds_leave_the_first_nub_rows_unbounded() {
    let p = boxed(r#"{"a": [[2, 1], [1, 2]], "b": [1, 4], "nub": 1}"#).unwrap();
    assert_eq!(p.nub, 1);
    assert_eq!(p.lo, vec![-INF, 0.0]);
    assert_eq!(p.hi, vec![INF, INF]);
}

#[test]
fn findex_minus_one_and_null_mean_no_coupling() {
    let p = boxed(
        r#"{"a": [[1,0,0],[0,1,0],[0,0,1]], "b": [1,0,0],
            "lo": [0, -0.5, -0.5], "hi": ["inf", 0.5, 0.25], "findex": [-1, 0, null]}"#,
    )
    .unwrap();
    assert_eq!(p.findex, vec![None, Some(0), None]);
    assert_eq!(p.hi, vec![INF, 0.5, 0.25]);
}

#[test]
fn an_empty_problem_is_valid() {
    let p = boxed(r#"{"a": [], "b": []}"#).unwrap();
    assert!(p.is_empty());
    assert_eq!(p.a.rows(), 0);
    let s = standard(r#"{"a": [], "b": [], "lo": [], "hi": [], "findex": []}"#).unwrap();
    assert!(s.is_empty());
}

#[test]
fn malformed_json_is_a_parse_error_with_line_and_column() {
    let err = parse_problem("{\"a\": [[1]],\n \"b\": [1,]}").unwrap_err();
    match err {
        LcpError::Parse(msg) => assert!(msg.contains("line 2 column"), "{msg}"),
        other => panic!("expected Parse, got {other:?}"),
    }
    let not_an_object = parse_message("[[1, 0], [0, 1]]");
    assert!(not_an_object.contains("problem object"), "{not_an_object}");
    let trailing = parse_message("{\"a\": [[1]], \"b\": [1]} {}");
    assert!(trailing.contains("trailing"), "{trailing}");
    for text in [
        "",
        "[",
        "null",
        "{\"a\": [[1]]}",
        "{\"a\": [[1]], \"b\": [1e400]}",
    ] {
        assert!(
            matches!(parse_problem(text), Err(LcpError::Parse(_))),
            "{text:?}"
        );
    }
}

/// The message of a `Parse` error, failing the test for any other outcome.
fn parse_message(text: &str) -> String {
    match parse_problem(text) {
        Err(LcpError::Parse(msg)) => msg,
        other => panic!("expected Parse for {text:?}, got {other:?}"),
    }
}

#[test]
fn type_errors_name_the_field() {
    let cases = [
        (r#"{"a": [[1, "x"]], "b": [1]}"#, "`a`"),
        (r#"{"a": [[1]], "b": ["inf"]}"#, "`b`"),
        (
            r#"{"a": [[1]], "b": [1], "lo": ["minus infinity"]}"#,
            "`lo`",
        ),
        (r#"{"a": [[1]], "b": [1], "hi": [true]}"#, "`hi`"),
        (r#"{"a": [[1]], "b": [1], "findex": [0.5]}"#, "`findex`"),
        (r#"{"a": [[1]], "b": [1], "nub": -1}"#, "`nub`"),
        (r#"{"a": [[1]], "b": [1], "nub": 1.5}"#, "`nub`"),
        (r#"{"a": [[1]], "b": [1], "finedx": [-1]}"#, "`finedx`"),
        (r#"{"a": [[1]], "b": [1], "b": [2]}"#, "`b`"),
        // A scalar where an array belongs.
        (r#"{"a": 5, "b": [1]}"#, "an array in `a`"),
        (r#"{"a": [5], "b": [1]}"#, "an array in `a`"),
        (r#"{"a": [[1]], "b": "x"}"#, "an array in `b`"),
        (r#"{"a": [[1]], "b": [1], "lo": 0}"#, "an array in `lo`"),
        (
            r#"{"a": [[1]], "b": [1], "findex": -1}"#,
            "an array in `findex`",
        ),
        // null is a bound, but not a matrix entry or right-hand side.
        (r#"{"a": [[null]], "b": [1]}"#, "`a`"),
        (r#"{"a": [[1]], "b": [null]}"#, "`b`"),
    ];
    for (text, field) in cases {
        let msg = parse_message(text);
        assert!(msg.contains(field), "{text}: {msg}");
        assert!(msg.contains("line 1 column"), "{text}: {msg}");
    }
}

#[test]
fn nan_bounds_are_read_then_rejected_naming_the_field_and_row() {
    let err = boxed(&with_bounds("[0, 0, \"NaN\"]", "[1, 1, 1]")).unwrap_err();
    assert!(
        matches!(err, LcpError::NonFinite { field: "lo", index: 2, value } if value.is_nan()),
        "{err:?}"
    );
    let err = boxed(&with_bounds("[0, 0, 0]", "[1, \"nan\", 1]")).unwrap_err();
    assert!(
        matches!(
            err,
            LcpError::NonFinite {
                field: "hi",
                index: 1,
                ..
            }
        ),
        "{err:?}"
    );
    let err = standard(r#"{"a": [[1]], "b": [1], "lo": ["nan"]}"#).unwrap_err();
    assert!(
        matches!(
            err,
            LcpError::NonFinite {
                field: "lo",
                index: 0,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn shape_errors_are_typed() {
    assert_eq!(
        boxed(r#"{"a": [[1, 0], [0]], "b": [1, 1]}"#),
        Err(LcpError::RaggedMatrix {
            row: 1,
            expected: 2,
            found: 1
        })
    );
    assert_eq!(
        boxed(r#"{"a": [[1, 0, 0], [0, 1, 0]], "b": [1, 1]}"#),
        Err(LcpError::NotSquare { rows: 2, cols: 3 })
    );
    assert_eq!(
        boxed(r#"{"a": [[]], "b": [1]}"#),
        Err(LcpError::NotSquare { rows: 1, cols: 0 })
    );
    assert_eq!(
        boxed(r#"{"a": [[1, 0], [0, 1]], "b": [1]}"#),
        Err(LcpError::LengthMismatch {
            field: "b",
            expected: 2,
            found: 1
        })
    );
    for field in ["lo", "hi", "findex"] {
        let value = if field == "findex" { "[-1]" } else { "[0]" };
        let text = format!(r#"{{"a": [[1, 0], [0, 1]], "b": [1, 1], "{field}": {value}}}"#);
        assert_eq!(
            boxed(&text),
            Err(LcpError::LengthMismatch {
                field,
                expected: 2,
                found: 1
            }),
            "{field}"
        );
    }
}

#[test]
fn bound_errors_are_typed() {
    assert_eq!(
        boxed(&with_bounds("[0, -1, 0]", "[1, -2, 1]")),
        Err(LcpError::BoundsInverted {
            index: 1,
            lo: -1.0,
            hi: -2.0
        })
    );
    assert_eq!(
        boxed(&with_bounds("[0, 0, 0.5]", "[1, 1, 1]")),
        Err(LcpError::BoundsExcludeZero {
            index: 2,
            lo: 0.5,
            hi: 1.0
        })
    );
}

#[test]
fn findex_errors_are_typed() {
    let file = |findex: &str, hi: &str| {
        format!(
            r#"{{"a": [[1,0,0],[0,1,0],[0,0,1]], "b": [1,0,0], "hi": {hi}, "findex": {findex}}}"#
        )
    };
    let hi = r#"["inf", 0.5, 0.5]"#;
    assert_eq!(
        boxed(&file("[-1, 3, 0]", hi)),
        Err(LcpError::FindexOutOfRange {
            index: 1,
            target: 3,
            n: 3
        })
    );
    assert_eq!(
        boxed(&file("[-1, 0, -2]", hi)),
        Err(LcpError::FindexOutOfRange {
            index: 2,
            target: -2,
            n: 3
        })
    );
    assert_eq!(
        boxed(&file("[-1, 1, 0]", hi)),
        Err(LcpError::FindexSelf { index: 1 })
    );
    assert_eq!(
        boxed(&file("[-1, 0, 1]", hi)),
        Err(LcpError::FindexChain {
            index: 2,
            target: 1
        })
    );
    assert_eq!(
        boxed(&file("[-1, 0, 0]", r#"["inf", -0.5, 0.5]"#)),
        Err(LcpError::BadFrictionCoefficient {
            index: 1,
            value: -0.5
        })
    );
    assert_eq!(
        boxed(&file("[-1, 0, 0]", r#"["inf", "inf", 0.5]"#)),
        Err(LcpError::BadFrictionCoefficient {
            index: 1,
            value: INF
        })
    );
}

#[test]
fn nub_errors_are_typed() {
    assert_eq!(
        boxed(r#"{"a": [[1]], "b": [1], "nub": 2}"#),
        Err(LcpError::NubTooLarge { nub: 2, n: 1 })
    );
    assert_eq!(
        boxed(r#"{"a": [[1, 0], [0, 1]], "b": [1, 1], "nub": 1, "lo": [0, 0]}"#),
        Err(LcpError::BoundedNubRow {
            field: "lo/hi",
            index: 0,
            nub: 1
        })
    );
}

#[test]
fn the_standard_reading_is_w_equals_a_z_plus_b() {
    let text = r#"{"a": [[2, 1], [1, 3]], "b": [4, -1]}"#;
    let s = standard(text).unwrap();
    assert_eq!(
        s.m,
        DenseMatrix::from_rows(&[[2.0, 1.0], [1.0, 3.0]]).unwrap()
    );
    // q is b itself, sign and all (issue 2: "for Lemke the file is read as w = a z + b").
    assert_eq!(s.q, vec![4.0, -1.0]);
}

#[test]
fn the_standard_and_boxed_readings_of_one_file_differ_in_the_sign_of_b() {
    let text = r#"{"a": [[2, 1], [1, 3]], "b": [4, -1]}"#;
    let s = standard(text).unwrap();
    let b = boxed(text).unwrap();
    assert_eq!(s.m, b.a);
    assert_eq!(s.q, b.b);
    // The boxed problem the standard reading stands for has b negated: a different problem.
    let as_boxed = s.to_boxed();
    assert_eq!(as_boxed.b, vec![-4.0, 1.0]);
    assert_ne!(as_boxed, b);
    // Negating b in the file gives the standard problem equal to the boxed reading.
    let negated = standard(r#"{"a": [[2, 1], [1, 3]], "b": [-4, 1]}"#).unwrap();
    assert_eq!(negated.to_boxed(), b);
}

#[test]
fn the_standard_reading_accepts_explicit_defaults() {
    let s = standard(
        r#"{"a": [[1, 0], [0, 1]], "b": [1, 1], "lo": [0, -0.0],
            "hi": ["inf", null], "findex": [-1, null], "nub": 0}"#,
    )
    .unwrap();
    assert_eq!(s.q, vec![1.0, 1.0]);
}

#[test]
fn the_standard_reading_rejects_boxed_only_fields_by_name() {
    let base = r#""a": [[1, 0], [0, 1]], "b": [1, 1]"#;
    let cases = [
        ("lo", r#""lo": [0, -1]"#),
        ("lo", r#""lo": [null, 0]"#),
        ("hi", r#""hi": ["inf", 2]"#),
        ("findex", r#""findex": [-1, 0], "hi": ["inf", 0.5]"#),
        ("nub", r#""nub": 1"#),
    ];
    for (field, extra) in cases {
        let text = format!("{{{base}, {extra}}}");
        match standard(&text) {
            Err(LcpError::NotStandard { field: f, .. }) => assert_eq!(f, field, "{text}"),
            other => panic!("{text}: expected NotStandard, got {other:?}"),
        }
    }
    assert_eq!(
        standard(&format!("{{{base}, \"hi\": [\"inf\"]}}")),
        Err(LcpError::LengthMismatch {
            field: "hi",
            expected: 2,
            found: 1
        })
    );
    assert_eq!(
        standard(r#"{"a": [[1, 0], [0, 1]], "b": [1, 1, 1]}"#),
        Err(LcpError::LengthMismatch {
            field: "b",
            expected: 2,
            found: 3
        })
    );
}

/// A problem using every feature: unbounded rows, infinite and finite bounds, coupling, and
/// numbers whose decimal forms are long.
fn feature_rich_problem() -> BoxedLcp {
    let a = DenseMatrix::from_rows(&[
        [4.0, 0.1, 1.0 / 3.0, 0.0],
        [0.1, 2.0, 0.0, -1e-300],
        [1.0 / 3.0, 0.0, 1.0, 7.123456789012345e20],
        [0.0, -1e-300, 7.123456789012345e20, 5.0],
    ])
    .unwrap();
    BoxedLcp {
        a,
        b: vec![-0.0, 2.0f64.sqrt(), -std::f64::consts::PI, 1e-17],
        lo: vec![-INF, -1.5, 0.0, -0.7],
        hi: vec![INF, INF, 0.3, 0.7],
        nub: 1,
        findex: vec![None, None, Some(1), None],
    }
}

#[test]
fn to_json_round_trips_exactly() {
    let p = feature_rich_problem();
    p.validate().unwrap();
    let text = to_json(&p);
    assert!(
        text.contains(r#""inf""#) && text.contains(r#""-inf""#),
        "{text}"
    );
    assert!(text.contains(r#""findex": [-1, -1, 1, -1]"#), "{text}");
    let back = parse_problem(&text).unwrap().into_boxed().unwrap();
    assert_eq!(back, p);
    // Bit-exact, not just equal: the sign of zero survives too.
    assert!(back.b[0].is_sign_negative());
    assert_eq!(to_json(&back), text);
}

#[test]
fn to_json_round_trips_the_empty_problem() {
    let p = BoxedLcp::new(DenseMatrix::zeros(0, 0), vec![]);
    let back = parse_problem(&to_json(&p)).unwrap().into_boxed().unwrap();
    assert_eq!(back, p);
}

#[test]
fn to_json_writes_nan_so_that_reading_rejects_it() {
    let mut p = BoxedLcp::new(DenseMatrix::identity(1), vec![1.0]);
    p.hi[0] = f64::NAN;
    let err = parse_problem(&to_json(&p))
        .unwrap()
        .into_boxed()
        .unwrap_err();
    assert!(
        matches!(err, LcpError::NonFinite { field: "hi", .. }),
        "{err:?}"
    );
}

#[test]
fn problem_file_fields_are_checked_when_built_by_hand() {
    let file = ProblemFile {
        a: vec![vec![f64::NAN]],
        b: vec![1.0],
        lo: None,
        hi: None,
        findex: None,
        nub: 0,
    };
    assert!(matches!(
        file.clone().into_boxed(),
        Err(LcpError::NonFinite {
            field: "a",
            index: 0,
            ..
        })
    ));
    assert!(matches!(
        file.into_standard(),
        Err(LcpError::NonFinite {
            field: "a",
            index: 0,
            ..
        })
    ));
}

#[test]
fn no_prefix_or_corruption_of_a_valid_file_panics() {
    let text = to_json(&feature_rich_problem());
    // Every prefix short of the closing brace is a truncated file: an error, not a panic.
    for end in 0..text.trim_end().len() {
        if text.is_char_boundary(end) {
            assert!(
                boxed(&text[..end]).is_err(),
                "prefix of {end} bytes accepted"
            );
        }
    }
    // Replacing one byte at a time by characters that change JSON structure or values.
    let bytes = text.as_bytes();
    for pos in 0..bytes.len() {
        for c in [b'"', b'[', b']', b',', b'-', b'9', b'n', b'{'] {
            let mut v = bytes.to_vec();
            v[pos] = c;
            if let Ok(s) = std::str::from_utf8(&v) {
                let _ = boxed(s);
                let _ = standard(s);
            }
        }
    }
}
