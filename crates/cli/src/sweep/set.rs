//! `--set PATH=VALUES`: the values of one swept parameter, and their edits of a scene's
//! document (the scene as a JSON value, every default filled in).

use serde_json::{Map, Number, Value};

use crate::scene::schema::SceneFile;
use crate::sweep::SweepError;

/// The most values one `--set` may list (a range's `N` included).
pub const MAX_VALUES: usize = 100_000;

/// One swept parameter: a dotted path into the scene and its values, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Set {
    /// The path as typed, e.g. `materials.steel.friction`.
    pub path: String,
    /// Its segments: table keys, array indices or names.
    pub segments: Vec<String>,
    /// The values, each already converted to the type of the field it replaces.
    pub values: Vec<Value>,
}

/// Parses `PATH=VALUES` (no check against a scene yet).
pub fn parse(arg: &str) -> Result<Set, SweepError> {
    let bad = |reason: &str| SweepError::Syntax {
        arg: arg.to_string(),
        reason: reason.to_string(),
    };
    let (path, values) = arg
        .split_once('=')
        .ok_or_else(|| bad("expected PATH=VALUES, e.g. materials.steel.friction=0.1,0.5"))?;
    let path = path.trim();
    let segments: Vec<String> = path.split('.').map(|s| s.trim().to_string()).collect();
    if segments.iter().any(String::is_empty) {
        return Err(bad("the path has an empty segment"));
    }
    let values = values.trim();
    let values = if values.contains(':') && !values.contains(',') {
        range(values).map_err(|reason| bad(&reason))?
    } else {
        values
            .split(',')
            .map(|token| scalar(token.trim()).map_err(|reason| bad(&reason)))
            .collect::<Result<Vec<_>, _>>()?
    };
    if values.len() > MAX_VALUES {
        return Err(bad(&format!("more than {MAX_VALUES} values")));
    }
    Ok(Set {
        path: path.to_string(),
        segments,
        values,
    })
}

/// `A:B:N`: N evenly spaced numbers from A to B inclusive, rounded to 12 significant digits
/// so that `0.1:0.7:7` gives 0.3 and not 0.30000000000000004.
fn range(text: &str) -> Result<Vec<Value>, String> {
    let expected = || format!("expected a range A:B:N (N numbers from A to B), got `{text}`");
    let parts: Vec<&str> = text.split(':').map(str::trim).collect();
    let [a, b, n] = parts[..] else {
        return Err(expected());
    };
    let (Ok(a), Ok(b), Ok(n)) = (a.parse::<f64>(), b.parse::<f64>(), n.parse::<usize>()) else {
        return Err(expected());
    };
    if !a.is_finite() || !b.is_finite() || n == 0 {
        return Err(expected());
    }
    if n > MAX_VALUES {
        return Err(format!("more than {MAX_VALUES} values"));
    }
    (0..n)
        .map(|i| {
            let t = if n == 1 {
                0.0
            } else {
                i as f64 / (n - 1) as f64
            };
            let v = round12(a + (b - a) * t);
            Number::from_f64(v).map(Value::Number).ok_or_else(expected)
        })
        .collect()
}

/// `v` rounded to 12 significant digits.
fn round12(v: f64) -> f64 {
    format!("{v:.11e}").parse().unwrap_or(v)
}

/// One value of a comma list: a boolean, an integer, a finite number or else a string
/// (quotes around it are removed).
fn scalar(token: &str) -> Result<Value, String> {
    if token.is_empty() {
        return Err("an empty value in the list".to_string());
    }
    match token {
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Ok(i) = token.parse::<i64>() {
        return Ok(Value::from(i));
    }
    let looks_numeric = token
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.'));
    if let Ok(v) = token.parse::<f64>() {
        // `inf` and `nan` parse as f64 but are names, not numbers, in a scene.
        if looks_numeric {
            return Number::from_f64(v)
                .map(Value::Number)
                .ok_or_else(|| format!("`{token}` is not a finite number"));
        }
    }
    let unquoted = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(token);
    Ok(Value::String(unquoted.to_string()))
}

/// A value as the summary table writes it: numbers as [`crate::sweep::table::float`] does,
/// strings as they are.
pub fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => n
                .as_f64()
                .map_or_else(|| n.to_string(), super::table::float),
        },
        other => other.to_string(),
    }
}

/// What a path leads to in the document: the slot a value goes in.
enum Slot<'a> {
    /// An existing value.
    Existing(&'a mut Value),
    /// A key absent from a table (an optional field left out): inserted, and the schema
    /// decides.
    Absent(&'a mut Map<String, Value>, String),
}

/// The segment `key` of an array: an index, or the element whose `name` is `key`.
fn element<'a>(array: &'a mut [Value], key: &str) -> Option<&'a mut Value> {
    if let Ok(i) = key.parse::<usize>() {
        return array.get_mut(i);
    }
    array
        .iter_mut()
        .find(|v| v.get("name").and_then(Value::as_str) == Some(key))
}

/// Finds the slot of `set` in `doc`, or says which part of the path the scene lacks.
fn locate<'a>(doc: &'a mut Value, set: &Set) -> Result<Slot<'a>, SweepError> {
    let no_path = |upto: usize, reason: String| SweepError::NoPath {
        path: set.path.clone(),
        missing: set.segments[..=upto].join("."),
        reason,
    };
    let last = set.segments.len() - 1;
    let mut here = doc;
    for (i, key) in set.segments.iter().enumerate() {
        here = match here {
            Value::Object(map) => {
                if !map.contains_key(key) {
                    if i == last {
                        return Ok(Slot::Absent(map, key.clone()));
                    }
                    return Err(no_path(i, "no such key".to_string()));
                }
                map.get_mut(key).expect("checked above")
            }
            Value::Array(items) => {
                let count = items.len();
                element(items, key).ok_or_else(|| {
                    no_path(
                        i,
                        format!(
                            "no such element (it has {count}: index 0 to {count} - 1, or a name)"
                        ),
                    )
                })?
            }
            _ => {
                return Err(no_path(
                    i,
                    format!("`{}` is a value, not a table", set.segments[..i].join(".")),
                ))
            }
        };
    }
    Ok(Slot::Existing(here))
}

/// `value` converted to the type of `old` (the value it replaces), or why it cannot be.
fn convert(old: &Value, value: &Value) -> Result<Value, String> {
    let integral = |v: f64| v.fract() == 0.0 && v.abs() < 9.0e15;
    match (old, value) {
        (Value::Null, v) => Ok(v.clone()),
        (Value::Bool(_), Value::Bool(_)) => Ok(value.clone()),
        (Value::Bool(_), _) => Err("expected true or false".to_string()),
        (Value::Number(o), Value::Number(n)) if o.is_f64() => n
            .as_f64()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| "expected a finite number".to_string()),
        (Value::Number(_), Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(_), _) => Ok(value.clone()),
            (None, Some(v)) if integral(v) => Ok(Value::from(v as i64)),
            _ => Err("expected an integer".to_string()),
        },
        (Value::Number(o), _) if o.is_f64() => Err("expected a number".to_string()),
        (Value::Number(_), _) => Err("expected an integer".to_string()),
        (Value::String(_), v) => Ok(Value::String(text(v))),
        (Value::Array(_), _) => {
            Err("it is an array: set its elements by index (e.g. PATH.2)".to_string())
        }
        (Value::Object(_), _) => Err("it is a table: set one of its keys".to_string()),
    }
}

/// Writes `value` at `set`'s path in `doc`, converted to the field's type, and returns
/// the value written.
pub fn apply(doc: &mut Value, set: &Set, value: &Value) -> Result<Value, SweepError> {
    let bad = |reason: String| SweepError::BadValue {
        path: set.path.clone(),
        value: text(value),
        reason,
    };
    match locate(doc, set)? {
        Slot::Existing(slot) => {
            *slot = convert(slot, value).map_err(bad)?;
            Ok(slot.clone())
        }
        Slot::Absent(map, key) => {
            map.insert(key, value.clone());
            Ok(value.clone())
        }
    }
}

/// Checks every value of every set against the scene `doc`, one at a time, and returns the
/// sets with their values converted to the fields' types: a path the scene does not have
/// or a value its schema refuses is an error before any run starts.
pub fn check(doc: &Value, sets: &[Set]) -> Result<Vec<Set>, SweepError> {
    for (i, set) in sets.iter().enumerate() {
        if sets[..i].iter().any(|s| s.segments == set.segments) {
            return Err(SweepError::Syntax {
                arg: set.path.clone(),
                reason: "the path is set twice".to_string(),
            });
        }
    }
    let mut checked = Vec::with_capacity(sets.len());
    for set in sets {
        let mut values = Vec::with_capacity(set.values.len());
        for value in &set.values {
            let mut edited = doc.clone();
            let converted = apply(&mut edited, set, value)?;
            if let Err(e) = serde_json::from_value::<SceneFile>(edited) {
                let message = e.to_string();
                return Err(if message.starts_with("unknown field") {
                    SweepError::NoPath {
                        path: set.path.clone(),
                        missing: set.path.clone(),
                        reason: message,
                    }
                } else {
                    SweepError::BadValue {
                        path: set.path.clone(),
                        value: text(value),
                        reason: message,
                    }
                });
            }
            values.push(converted);
        }
        checked.push(Set {
            values,
            ..set.clone()
        });
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_inclusive_and_rounded() {
        let set = parse("a.b=0.1:0.7:7").unwrap();
        let values: Vec<f64> = set.values.iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(values, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
        assert_eq!(parse("a=2:2:1").unwrap().values, [Value::from(2.0)]);
        assert!(parse("a=0:1").is_err());
        assert!(parse("a=0:1:0").is_err());
    }

    #[test]
    fn lists_hold_numbers_booleans_and_strings() {
        let set = parse("x=1, 2.5,true,iterative,\"a b\"").unwrap();
        assert_eq!(
            set.values,
            [
                Value::from(1),
                Value::from(2.5),
                Value::Bool(true),
                Value::from("iterative"),
                Value::from("a b")
            ]
        );
        assert!(parse("x=1,,2").is_err());
        assert!(parse("x").is_err());
        assert!(parse("a..b=1").is_err());
    }

    #[test]
    fn values_take_the_type_of_the_field() {
        let doc: Value = serde_json::json!({"n": 20, "f": 0.5, "b": true, "s": "x"});
        let set = |p: &str, v: Value| Set {
            path: p.to_string(),
            segments: vec![p.to_string()],
            values: vec![v],
        };
        let mut d = doc.clone();
        apply(&mut d, &set("n", Value::from(40.0)), &Value::from(40.0)).unwrap();
        assert_eq!(d["n"], Value::from(40));
        assert!(apply(&mut d, &set("n", Value::from(1.5)), &Value::from(1.5)).is_err());
        apply(&mut d, &set("f", Value::from(1)), &Value::from(1)).unwrap();
        assert!(d["f"].is_f64());
        assert!(apply(&mut d, &set("b", Value::from(1)), &Value::from(1)).is_err());
        assert!(apply(&mut d, &set("f", Value::from("x")), &Value::from("x")).is_err());
    }
}
